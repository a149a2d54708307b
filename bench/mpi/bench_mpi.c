/* bench/mpi/bench_mpi.c: pdesolve distributed, on any backend (a GPU a rank on /gpu/cuda): the product, CG + Jacobi and
 * GMRES(30) + bjacobi(ilu0) on the 7-point Laplacian (bench_poisson.h's: 6 on the diagonal, -1 per neighbour) of a box
 * cut into slabs along z, one slab a rank.
 *
 *   mpirun -n P bench_mpi [-backend /gpu/cuda] [-n 256] [-strong 0] [-its 50] [-reps 5] [-cases spmv,cg,gmres]
 *                         [-c 64] (-cases channel: the multi-block channel instead) [-halo mpi|nccl]
 *                         [-e 16] [-order 7] (-cases sem: spectral elements instead)
 *
 * Weak scaling (default): every rank holds an n^3 slab (the box n x n x nP); -strong 1: the box n x n x n cut into P
 * slabs. Validation first: y = A x for x_i = 1 + (i mod 7) (global i) against the exact integers 6 x_c - sum x_nb,
 * every rank its rows (a halo that brings a wrong value fails it). Then, after a warm-up, each case's median over the
 * repetitions of the slowest rank's time (barriers around each repetition):
 *   copy:  the backend's copy of an n_local vector (pds_vec_copy: 16 n bytes), the bandwidth the kernels compare with;
 *   spmv:  y = A x (the whole distributed product), and its parts alone: the diagonal block's product (Ad, the
 *          interior work), the off-rank block's (Ao, its rows with ghosts only), and the seconds inside MPI calls per
 *          product (pds_ctx's communication clock: posting, waiting); exposed = t_spmv - t_Ad - t_Ao is what the
 *          halo added to the product (gather, copies, waits), overlap = 1 - exposed / t_comm (clamped to [0, 1])
 *          how much of the exchange hid behind the interior product (1: all of it; 0: none).
 *          Byte model of a product: 12 nnz + 16 n (values and column indices once, x and y once each; the ghosts are
 *          extra) against the copy bandwidth: frac_bw;
 *   cg:    `its` iterations of CG + Jacobi (rtol 0), time and communication per iteration;
 *   gmres: `its` iterations of GMRES(30) + bjacobi with ILU(0) on each rank's block;
 *   cg_serial (one rank): CG + Jacobi on the same matrix as an ordinary csr matrix, the library's one-rank path (the
 *          device loop on /gpu/cuda): what the distributed path costs on one rank.
 * -cases channel (issue 16's multi-block system, paper 000's layout): the channel of docs/channel.md with 6 unknowns a
 * cell, cut into blocks, whole blocks a rank (mpistencil7). Weak: (c P) x c x c cells (-c, default 64) in 2P x 2 x 1
 * blocks (four c/2 x c/2 x c blocks a rank); -strong 1: c x c x c in 16 x 2 x 1 blocks whatever P (the same
 * preconditioner on 1 to 16 ranks). Validated first on a small channel of the same cut: every rank's rows of A x
 * against the serial coupled matrix of /cpu/ref. Cases: ch_spmv (byte model: 8 * 7 * 36 bytes of values a cell plus
 * x and y, 16 * 6, per product; the couplings across cuts are extra), ch_richardson (Richardson + bjacobi(bilu0):
 * paper 000's defect correction, the residual exchanged between the block faces before each correction, Eq. 4) and
 * ch_gmres (GMRES(30) + bjacobi(bilu0)), `its` iterations each; ch_serial (one rank): GMRES + bilu0 on the serial
 * coupled stencil7 matrix, the one-rank path.
 * -cases sem (paper 003's operator over the ranks, mpisem): the spectral-element Poisson box of -e elements a direction
 * (default 16) of -order (default 7), affine; weak: e x e x eP elements (a z-slab of e^3 a rank), -strong 1: e^3 in
 * all. Validated first on a small box of the same cut: every rank's rows of A x against the whole space's product on
 * /cpu/ref, bit for bit. Cases: sem_spmv (byte model of cuda_sem.cu for affine elements: 33 bytes a local point, 13 a
 * row; the duplicated elements of the cut count in the rank's local points), sem_cg (CG + semjacobi, `its`
 * iterations) and sem_serial (one rank: CG + semjacobi on the serial sem matrix, the one-rank path).
 * One JSON line per case ("bench":"mpi") from rank 0; bench/mpi/gpu-mpi.sh runs it for several rank counts on a GPU
 * machine, bench/mpi/table.py makes the scaling tables. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve_mpi.h"
#include "../bench_common.h"
#include "../bench_poisson.h"
#include "../peers/peer_util.h"

static int rank_, size_;

#define DIE(...)                                                             \
  do {                                                                       \
    fprintf(stderr, "bench_mpi: rank %d: ", rank_);                          \
    fprintf(stderr, __VA_ARGS__);                                            \
    fprintf(stderr, "\n");                                                   \
    MPI_Abort(MPI_COMM_WORLD, 1);                                            \
  } while (0)
#define CALL(ctx, x)                                                                              \
  do {                                                                                            \
    int e_ = (x);                                                                                 \
    if (e_) DIE("%s: %s (%s)", #x, pds_error_name(e_), (ctx) ? pds_ctx_get_error(ctx) : "");      \
  } while (0)

/* the box nx x ny x nz, x fastest; this rank's rows r0 .. r1-1 (whole z-planes) */
typedef struct {
  long nx, ny, nz, r0, r1;
} box;

static long gidx(const box *b, long i, long j, long k) { return (k * b->ny + j) * b->nx + i; }

static pds_mat build(pds_ctx ctx, const box *b) {
  const long m = b->r1 - b->r0;
  pds_size  *rp = malloc(sizeof *rp * (size_t)(m + 1));
  pds_int   *ci = malloc(sizeof *ci * (size_t)(7 * m + 1));
  pds_real  *v  = malloc(sizeof *v * (size_t)(7 * m + 1));
  pds_mat    A;
  pds_size   q = 0;

  if (!rp || !ci || !v) DIE("out of memory for %ld rows", m);
  rp[0] = 0;
  for (long r = b->r0; r < b->r1; r++) {
    const long i = r % b->nx, j = (r / b->nx) % b->ny, k = r / (b->nx * b->ny);

    if (k > 0) ci[q] = (pds_int)gidx(b, i, j, k - 1), v[q++] = -1;
    if (j > 0) ci[q] = (pds_int)gidx(b, i, j - 1, k), v[q++] = -1;
    if (i > 0) ci[q] = (pds_int)gidx(b, i - 1, j, k), v[q++] = -1;
    ci[q] = (pds_int)r, v[q++] = 6;
    if (i < b->nx - 1) ci[q] = (pds_int)gidx(b, i + 1, j, k), v[q++] = -1;
    if (j < b->ny - 1) ci[q] = (pds_int)gidx(b, i, j + 1, k), v[q++] = -1;
    if (k < b->nz - 1) ci[q] = (pds_int)gidx(b, i, j, k + 1), v[q++] = -1;
    rp[r - b->r0 + 1] = q;
  }
  CALL(ctx, pds_mat_create_csr_dist(ctx, (pds_int)m, rp, ci, v, &A));
  free(rp), free(ci), free(v);
  return A;
}

static double xval(long g) { return 1.0 + (double)(g % 7); }

/* y = A x against the exact integers, on every rank; returns the number of wrong rows over all ranks */
static long validate(pds_ctx ctx, const box *b, pds_mat A) {
  pds_vec         x, y;
  pds_real       *xa;
  const pds_real *ya;
  long            bad = 0;

  CALL(ctx, pds_mat_create_vecs(A, &x, &y));
  CALL(ctx, pds_vec_get_array_write(x, PDS_MEM_HOST, &xa));
  for (long r = b->r0; r < b->r1; r++) xa[r - b->r0] = xval(r);
  CALL(ctx, pds_vec_restore_array_write(x, &xa));
  CALL(ctx, pds_mat_apply(A, x, y));
  CALL(ctx, pds_vec_get_array_read(y, PDS_MEM_HOST, &ya));
  for (long r = b->r0; r < b->r1; r++) {
    const long i = r % b->nx, j = (r / b->nx) % b->ny, k = r / (b->nx * b->ny);
    double     e = 6 * xval(r);

    if (k > 0) e -= xval(gidx(b, i, j, k - 1));
    if (j > 0) e -= xval(gidx(b, i, j - 1, k));
    if (i > 0) e -= xval(gidx(b, i - 1, j, k));
    if (i < b->nx - 1) e -= xval(gidx(b, i + 1, j, k));
    if (j < b->ny - 1) e -= xval(gidx(b, i, j + 1, k));
    if (k < b->nz - 1) e -= xval(gidx(b, i, j, k + 1));
    bad += ya[r - b->r0] != e;
  }
  CALL(ctx, pds_vec_restore_array_read(y, &ya));
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  pds_vec_destroy(&x), pds_vec_destroy(&y);
  return bad;
}

/* the share of the exchange's time in MPI (c) that hid behind the local products: exposed = t_spmv - t_Ad - t_Ao is
   what the halo added to the product (gather, copies, waits); clamped to [0, 1] */
static double overlap(double exposed, double c) {
  double o = c > 0 ? 1.0 - exposed / c : 1.0;

  return o < 0 ? 0 : o > 1 ? 1 : o;
}

typedef int (*op_fn)(void *user);

/* the slowest rank's seconds per call of f, median over reps (calls per repetition, a reduction at the end so that a
   device's queue has drained), and this rank's communication seconds per call (median) */
static void timeit(pds_ctx ctx, op_fn f, void *user, pds_vec sync, int calls, int reps, double *t, double *comm) {
  double *ts = malloc(sizeof *ts * (size_t)reps), *cs = malloc(sizeof *cs * (size_t)reps);
  pds_real d;

  for (int w = 0; w < 2; w++) CALL(ctx, f(user)); /* warm-up */
  for (int r = 0; r < reps; r++) {
    double t0, c0;

    CALL(ctx, pds_vec_norm_inf(sync, &d));
    MPI_Barrier(MPI_COMM_WORLD);
    c0 = pds_ctx_get_comm_time(ctx);
    t0 = MPI_Wtime();
    for (int c = 0; c < calls; c++) CALL(ctx, f(user));
    CALL(ctx, pds_vec_norm_inf(sync, &d)); /* the last call done (one reduction more, amortized over the calls) */
    ts[r] = (MPI_Wtime() - t0) / calls;
    cs[r] = (pds_ctx_get_comm_time(ctx) - c0) / calls;
    MPI_Allreduce(MPI_IN_PLACE, &ts[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  *t    = bench_median(ts, reps);
  *comm = bench_median(cs, reps);
  free(ts), free(cs);
}

typedef struct {
  pds_mat    A;
  pds_vec    x, y;
  pds_solver s;
} opdata;
static int op_apply(void *u) { opdata *o = u; return pds_mat_apply(o->A, o->x, o->y); }
static int op_copy(void *u) { opdata *o = u; return pds_vec_copy(o->x, o->y); }
static int op_solve(void *u) {
  opdata *o = u;
  int     e = pds_vec_set(o->y, 0.0);

  return e ? e : pds_solver_solve(o->s, o->x, o->y);
}

/* the channel of c_x x c_y x c_z cells with 6 unknowns, cut as the case says */
static void channel_opts(pds_channel_opts *o, long cx, long cy, long cz) {
  pds_channel_opts_default(o);
  o->n = 6, o->ni = (pds_int)cx, o->nj = (pds_int)cy, o->nk = (pds_int)cz;
}

/* every rank's rows of A x (x_i = xval(i)) of the distributed channel against the serial coupled matrix on /cpu/ref;
   the wrong rows over all ranks */
static long channel_validate(pds_ctx ctx, const int *split, long cx, long cy, long cz) {
  pds_channel_opts o;
  pds_ctx          ref;
  pds_mat          A, As;
  pds_vec          b, bs, x, y, xs, ys;
  pds_real        *xa;
  const pds_real  *ya, *yr;
  pds_int          lo, hi, N;
  long             bad = 0;

  channel_opts(&o, cx, cy, cz);
  CALL(ctx, pds_channel_generate_decomposed_dist(ctx, &o, split, &A, &b));
  CALL(NULL, pds_ctx_create("/cpu/ref", &ref));
  CALL(ref, pds_channel_generate_decomposed(ref, &o, split, &As, &bs));
  CALL(ctx, pds_mat_get_ownership_range(A, &lo, &hi));
  CALL(ctx, pds_mat_get_global_size(A, &N));
  CALL(ctx, pds_mat_create_vecs(A, &x, &y));
  CALL(ref, pds_mat_create_vecs(As, &xs, &ys));
  CALL(ctx, pds_vec_get_array_write(x, PDS_MEM_HOST, &xa));
  for (pds_int r = lo; r < hi; r++) xa[r - lo] = xval(r);
  CALL(ctx, pds_vec_restore_array_write(x, &xa));
  CALL(ref, pds_vec_get_array_write(xs, PDS_MEM_HOST, &xa));
  for (pds_int r = 0; r < N; r++) xa[r] = xval(r);
  CALL(ref, pds_vec_restore_array_write(xs, &xa));
  CALL(ctx, pds_mat_apply(A, x, y));
  CALL(ref, pds_mat_apply(As, xs, ys));
  CALL(ctx, pds_vec_get_array_read(y, PDS_MEM_HOST, &ya));
  CALL(ref, pds_vec_get_array_read(ys, PDS_MEM_HOST, &yr));
  for (pds_int r = lo; r < hi; r++) bad += !(fabs(ya[r - lo] - yr[r]) <= 1e-12 * (1 + fabs(yr[r])));
  CALL(ctx, pds_vec_restore_array_read(y, &ya));
  CALL(ref, pds_vec_restore_array_read(ys, &yr));
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&b), pds_mat_destroy(&A);
  pds_vec_destroy(&xs), pds_vec_destroy(&ys), pds_vec_destroy(&bs), pds_mat_destroy(&As);
  CALL(NULL, pds_ctx_destroy(&ref));
  return bad;
}

/* -cases channel: validation, the product, Richardson and GMRES with bjacobi(bilu0), and on one rank the serial path */
static void channel_cases(pds_ctx ctx, const char *host, long c, int strong, int its, int reps) {
  const int        split[3] = {strong ? 16 : 2 * size_, 2, 1};
  const long       cx = strong ? c : c * size_;
  pds_channel_opts o;
  opdata           od;
  pds_vec          b;
  double           t_copy, c_copy, t, cm, nl, bw, cells;
  char             head[512];

  if (c < 4 || (strong && c < 16)) DIE("-c %ld: the channel needs at least 4 cells a direction (16 with -strong 1)", c);
  {
    const long bad = channel_validate(ctx, split, strong ? 16 : 4 * size_, 6, 5);

    if (bad) DIE("channel validation: %ld rows of A x differ from the serial coupled matrix's", bad);
  }
  channel_opts(&o, cx, c, c);
  memset(&od, 0, sizeof od);
  CALL(ctx, pds_channel_generate_decomposed_dist(ctx, &o, split, &od.A, &b));
  CALL(ctx, pds_mat_create_vecs(od.A, &od.x, &od.y));
  CALL(ctx, pds_vec_set(od.x, 1.0));
  CALL(ctx, pds_vec_set(od.y, 0.0));
  timeit(ctx, op_copy, &od, od.y, 20, reps, &t_copy, &c_copy);
  {
    pds_int n;

    CALL(ctx, pds_mat_get_size(od.A, &n, NULL));
    nl = n, bw = 16.0 * nl / t_copy, cells = (double)cx * c * c;
  }
  snprintf(head, sizeof head,
           "\"bench\":\"mpi\",\"backend\":\"%s\",\"halo\":\"%s\",\"host_cpu\":\"%s\",\"ranks\":%d,\"scaling\":\"%s\","
           "\"grid\":[%ld,%ld,%ld],\"blocks\":[%d,%d,%d],\"rows_rank\":%.0f,\"copy_GBs_rank\":%.2f",
           pds_ctx_get_backend(ctx), pds_ctx_get_halo_transport(ctx), host, size_,
           strong ? "strong" : "weak", cx, c, c, split[0], split[1], split[2], nl, bw * 1e-9);
  timeit(ctx, op_apply, &od, od.y, 10, reps, &t, &cm);
  if (rank_ == 0) /* bytes: the blocks' values (7 x 36 doubles a cell) and x, y (6 doubles a cell each) */
    printf("{%s,\"case\":\"ch_spmv\",\"t_us\":%.2f,\"t_comm_us\":%.2f,\"frac_bw\":%.3f}\n", head, t * 1e6, cm * 1e6,
           (8.0 * 7 * 36 + 16.0 * 6) * cells / size_ / t / bw);
  for (int m = 0; m < 3; m++) {
    const char *name = m == 0 ? "richardson" : "gmres";
    pds_precond P;
    pds_mat     As = NULL;
    pds_vec     bs = NULL;
    opdata      os = od;

    if (m == 2) { /* one rank: the serial coupled stencil7 matrix and bilu0, the one-GPU path */
      if (size_ > 1) continue;
      CALL(ctx, pds_channel_generate_decomposed(ctx, &o, split, &As, &bs));
      os.A = As;
      CALL(ctx, pds_vec_duplicate(bs, &os.x));
      CALL(ctx, pds_vec_duplicate(bs, &os.y));
    }
    CALL(ctx, pds_solver_create(ctx, name, &os.s));
    CALL(ctx, pds_precond_create(ctx, m == 2 ? "bilu0" : "bjacobi", &P));
    if (m < 2) CALL(ctx, pds_precond_set_sub_type(P, "bilu0"));
    CALL(ctx, pds_solver_set_operator(os.s, os.A));
    CALL(ctx, pds_solver_set_precond(os.s, P));
    CALL(ctx, pds_solver_set_tolerances(os.s, 0.0, 0.0, its)); /* exactly `its` iterations */
    CALL(ctx, pds_solver_setup(os.s));
    CALL(ctx, pds_vec_copy(m == 2 ? bs : b, os.x));
    timeit(ctx, op_solve, &os, os.y, 1, reps, &t, &cm);
    {
      pds_solver_result r;

      CALL(ctx, pds_solver_get_result(os.s, &r));
      if (r.iterations != its) DIE("%s ran %d iterations, not %d", name, r.iterations, its);
      if (!(r.rnorm < r.rnorm0)) DIE("channel %s + bilu0: the residual did not fall (%g -> %g)", name, r.rnorm0, r.rnorm);
      if (rank_ == 0)
        printf("{%s,\"case\":\"%s\",\"pc\":\"%s\",\"its\":%d,\"t_iter_us\":%.2f,\"t_comm_iter_us\":%.2f,"
               "\"rel_residual\":%.3e}\n", head, m == 2 ? "ch_serial" : m ? "ch_gmres" : "ch_richardson",
               m == 2 ? "bilu0" : "bjacobi(bilu0)", its, t / its * 1e6, cm / its * 1e6, r.rnorm / r.rnorm0);
    }
    pds_solver_destroy(&os.s), pds_precond_destroy(&P);
    if (m == 2) pds_vec_destroy(&os.x), pds_vec_destroy(&os.y), pds_vec_destroy(&bs), pds_mat_destroy(&As);
  }
  pds_vec_destroy(&od.x), pds_vec_destroy(&od.y), pds_vec_destroy(&b), pds_mat_destroy(&od.A);
}
/* every rank's rows of A x (x the serial random vector at the rank's points) of mpisem on ctx against the whole
   space's sem product on /cpu/ref, bit for bit (the GPU kernels keep ref's order); returns the differing rows */
static long sem_validate(pds_ctx ctx, const pds_int *el, int order) {
  pds_ctx         ref;
  pds_problem     pd, ps;
  pds_vec         x, y, xs, ys;
  pds_int         nl, *pts;
  pds_real       *v;
  const pds_real *a;
  long            bad = 0;

  CALL(NULL, pds_ctx_create("/cpu/ref", &ref));
  CALL(ctx, pds_problem_sem_dist(ctx, el, order, 0.0, NULL, &pd));
  CALL(ref, pds_problem_sem(ref, el, order, 0.0, &ps));
  CALL(ctx, pds_mat_get_size(pd.A, &nl, NULL));
  pts = malloc(sizeof *pts * ((size_t)nl + 1)), v = malloc(sizeof *v * ((size_t)nl + 1));
  if (!pts || !v) DIE("out of memory");
  CALL(ctx, pds_mat_sem_dist_get_points(pd.A, pts));
  CALL(ctx, pds_mat_create_vecs(pd.A, &x, &y));
  CALL(ref, pds_mat_create_vecs(ps.A, &xs, &ys));
  CALL(ref, pds_vec_set_random(xs, 3));
  CALL(ref, pds_vec_get_array_read(xs, PDS_MEM_HOST, &a));
  for (pds_int i = 0; i < nl; i++) v[i] = a[pts[i]];
  CALL(ref, pds_vec_restore_array_read(xs, &a));
  CALL(ctx, pds_vec_set_values(x, v, PDS_MEM_HOST));
  CALL(ctx, pds_mat_apply(pd.A, x, y));
  CALL(ref, pds_mat_apply(ps.A, xs, ys));
  CALL(ctx, pds_vec_get_values(y, v, PDS_MEM_HOST));
  CALL(ref, pds_vec_get_array_read(ys, PDS_MEM_HOST, &a));
  for (pds_int i = 0; i < nl; i++) bad += v[i] != a[pts[i]];
  CALL(ref, pds_vec_restore_array_read(ys, &a));
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xs), pds_vec_destroy(&ys);
  pds_problem_destroy(&pd), pds_problem_destroy(&ps);
  free(pts), free(v);
  CALL(ref, pds_ctx_destroy(&ref));
  return bad;
}

/* -cases sem: validation, the product and CG + semjacobi on mpisem, and on one rank the serial sem matrix */
static void sem_cases(pds_ctx ctx, const char *host, long e, int order, int strong, int its, int reps) {
  const pds_int el[3] = {(pds_int)e, (pds_int)e, (pds_int)(strong ? e : e * size_)};
  pds_problem   p;
  opdata        od;
  double        t_copy, c_copy, t, cm, nl, nloc, bw;
  char          head[512];

  if (e < 2 || (strong && e < size_)) DIE("-e %ld: at least 2 elements a direction (and one a rank)", e);
  {
    const pds_int vel[3] = {3, 2, (pds_int)(2 * size_)};
    const long    bad    = sem_validate(ctx, vel, order);

    if (bad) DIE("sem validation: %ld rows of A x differ from the serial sem operator's", bad);
  }
  CALL(ctx, pds_problem_sem_dist(ctx, el, order, 0.0, NULL, &p));
  memset(&od, 0, sizeof od);
  od.A = p.A;
  CALL(ctx, pds_mat_create_vecs(od.A, &od.x, &od.y));
  CALL(ctx, pds_vec_set(od.x, 1.0));
  CALL(ctx, pds_vec_set(od.y, 0.0));
  timeit(ctx, op_copy, &od, od.y, 20, reps, &t_copy, &c_copy);
  {
    pds_int  n;
    pds_size nz;

    CALL(ctx, pds_mat_get_size(od.A, &n, NULL));
    CALL(ctx, pds_mat_get_nnz(od.A, &nz)); /* the rank's local points (its elements' and the duplicated ones') */
    nl = n, nloc = (double)nz, bw = 16.0 * nl / t_copy;
  }
  snprintf(head, sizeof head,
           "\"bench\":\"mpi\",\"backend\":\"%s\",\"halo\":\"%s\",\"host_cpu\":\"%s\",\"ranks\":%d,\"scaling\":\"%s\","
           "\"grid\":[%d,%d,%d],\"order\":%d,\"rows_rank\":%.0f,\"local_points_rank\":%.0f,\"copy_GBs_rank\":%.2f",
           pds_ctx_get_backend(ctx), pds_ctx_get_halo_transport(ctx), host, size_, strong ? "strong" : "weak",
           (int)el[0], (int)el[1], (int)el[2], order, nl, nloc, bw * 1e-9);
  timeit(ctx, op_apply, &od, od.y, 10, reps, &t, &cm);
  if (rank_ == 0) /* bytes (src/backend/cuda/cuda_sem.cu, affine): 21 a local point in the element kernel, 12 a local
                     point and 13 a row in the sum at the points; the ghosts' gather and messages are extra */
    printf("{%s,\"case\":\"sem_spmv\",\"t_us\":%.2f,\"t_comm_us\":%.2f,\"frac_bw\":%.3f}\n", head, t * 1e6,
           cm * 1e6, (33.0 * nloc + 13.0 * nl) / t / bw);
  for (int m = 0; m < 2; m++) {
    pds_problem ps;
    pds_precond P;
    opdata      os = od;

    if (m == 1) { /* one rank: the serial sem matrix, the one-GPU path */
      if (size_ > 1) continue;
      CALL(ctx, pds_problem_sem(ctx, el, order, 0.0, &ps));
      os.A = ps.A;
      CALL(ctx, pds_vec_duplicate(ps.b, &os.x));
      CALL(ctx, pds_vec_duplicate(ps.b, &os.y));
    }
    CALL(ctx, pds_solver_create(ctx, "cg", &os.s));
    CALL(ctx, pds_precond_create(ctx, "semjacobi", &P));
    CALL(ctx, pds_solver_set_operator(os.s, os.A));
    CALL(ctx, pds_solver_set_precond(os.s, P));
    CALL(ctx, pds_solver_set_tolerances(os.s, 0.0, 0.0, its)); /* exactly `its` iterations */
    CALL(ctx, pds_solver_setup(os.s));
    CALL(ctx, pds_vec_copy(m ? ps.b : p.b, os.x));
    timeit(ctx, op_solve, &os, os.y, 1, reps, &t, &cm);
    {
      pds_solver_result r;

      CALL(ctx, pds_solver_get_result(os.s, &r));
      if (r.iterations != its) DIE("sem cg ran %d iterations, not %d", r.iterations, its);
      if (!(r.rnorm < r.rnorm0)) DIE("sem cg + semjacobi: the residual did not fall (%g -> %g)", r.rnorm0, r.rnorm);
      if (rank_ == 0)
        printf("{%s,\"case\":\"%s\",\"pc\":\"semjacobi\",\"its\":%d,\"t_iter_us\":%.2f,\"t_comm_iter_us\":%.2f,"
               "\"rel_residual\":%.3e}\n", head, m ? "sem_serial" : "sem_cg", its, t / its * 1e6, cm / its * 1e6,
               r.rnorm / r.rnorm0);
    }
    pds_solver_destroy(&os.s), pds_precond_destroy(&P);
    if (m == 1) pds_vec_destroy(&os.x), pds_vec_destroy(&os.y), pds_problem_destroy(&ps);
  }
  pds_vec_destroy(&od.x), pds_vec_destroy(&od.y), pds_problem_destroy(&p);
}

int main(int argc, char **argv) {
  const char *backend = "auto", *cases = "spmv,cg,gmres", *halo = "mpi";
  long        n = 64, cells_c = 64, elems = 16;
  int         strong = 0, its = 50, reps = 5, order = 7;
  pds_ctx     ctx;
  box         b;
  pds_mat     A, Ad, Ao;
  opdata      o;
  double      t_copy, c_copy, nnz_local, nnz;
  char        host[256] = "";

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "-backend")) backend = argv[a + 1];
    else if (!strcmp(argv[a], "-n")) n = atol(argv[a + 1]);
    else if (!strcmp(argv[a], "-strong")) strong = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "-its")) its = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "-reps")) reps = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "-cases")) cases = argv[a + 1];
    else if (!strcmp(argv[a], "-c")) cells_c = atol(argv[a + 1]);
    else if (!strcmp(argv[a], "-halo")) halo = argv[a + 1];
    else if (!strcmp(argv[a], "-e")) elems = atol(argv[a + 1]);
    else if (!strcmp(argv[a], "-order")) order = atoi(argv[a + 1]);
    else DIE("unknown option %s (options: -backend -n -strong -its -reps -cases -c -e -order -halo)", argv[a]);
  }
  if (!strcmp(cases, "channel") || !strcmp(cases, "sem")) { /* the multi-block channel, or spectral elements, alone */
    CALL(NULL, pds_ctx_create_mpi(MPI_COMM_WORLD, backend, &ctx));
    CALL(ctx, pds_ctx_set_halo_transport(ctx, halo));
    cpu_name(host, sizeof host);
    if (its < 1 || reps < 1) DIE("need its >= 1, reps >= 1");
    if (!strcmp(cases, "sem")) sem_cases(ctx, host, elems, order, strong, its, reps);
    else channel_cases(ctx, host, cells_c, strong, its, reps);
    CALL(ctx, pds_ctx_destroy(&ctx));
    MPI_Finalize();
    return 0;
  }
  if (n < 2 || its < 1 || reps < 1) DIE("need n >= 2, its >= 1, reps >= 1");
  b.nx = b.ny = n, b.nz = strong ? n : n * size_;
  b.r0 = b.nx * b.ny * (b.nz * rank_ / size_), b.r1 = b.nx * b.ny * (b.nz * (rank_ + 1) / size_);
  if (b.nx * b.ny * b.nz > 0x7fffffffL) DIE("%ld rows: beyond 32-bit global indices", b.nx * b.ny * b.nz);
  CALL(NULL, pds_ctx_create_mpi(MPI_COMM_WORLD, backend, &ctx));
  CALL(ctx, pds_ctx_set_halo_transport(ctx, halo));
  cpu_name(host, sizeof host);
  A = build(ctx, &b);
  CALL(ctx, pds_mat_dist_get_local(A, &Ad, &Ao));
  {
    const long bad = validate(ctx, &b, A);

    if (bad) DIE("validation: %ld rows of A x differ from the exact values", bad);
  }
  {
    pds_size nl;

    CALL(ctx, pds_mat_get_nnz(A, &nl));
    nnz_local = (double)nl;
    MPI_Allreduce(&nnz_local, &nnz, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  memset(&o, 0, sizeof o);
  o.A = A;
  CALL(ctx, pds_mat_create_vecs(A, &o.x, &o.y));
  CALL(ctx, pds_vec_set(o.x, 1.0));
  CALL(ctx, pds_vec_set(o.y, 0.0));
  timeit(ctx, op_copy, &o, o.y, 20, reps, &t_copy, &c_copy);
  {
    const double nl = (double)(b.r1 - b.r0), bw = 16.0 * nl / t_copy;
    char         head[512];

    snprintf(head, sizeof head,
             "\"bench\":\"mpi\",\"backend\":\"%s\",\"halo\":\"%s\",\"host_cpu\":\"%s\",\"ranks\":%d,\"scaling\":\"%s\","
             "\"grid\":[%ld,%ld,%ld],\"rows_rank\":%.0f,\"nnz\":%.0f,\"copy_GBs_rank\":%.2f",
             pds_ctx_get_backend(ctx), pds_ctx_get_halo_transport(ctx), host, size_, strong ? "strong" : "weak", b.nx,
             b.ny, b.nz, nl, nnz, bw * 1e-9);
    if (strstr(cases, "spmv")) {
      double   t, c, t_ad, c_ad, t_ao, c_ao, bytes = 12.0 * nnz_local + 16.0 * nl;
      opdata   od = o, oo = o;
      pds_vec  g, yo;
      pds_int  ng, no;

      timeit(ctx, op_apply, &o, o.y, 20, reps, &t, &c);
      od.A = Ad;
      timeit(ctx, op_apply, &od, o.y, 20, reps, &t_ad, &c_ad);
      CALL(ctx, pds_mat_get_size(Ao, &no, &ng)); /* Ao: the rows with ghosts only */
      CALL(ctx, pds_vec_create(ctx, ng, &g));
      CALL(ctx, pds_vec_create(ctx, no, &yo));
      CALL(ctx, pds_vec_set(g, 1.0));
      oo.A = Ao, oo.x = g, oo.y = yo;
      timeit(ctx, op_apply, &oo, o.y, 20, reps, &t_ao, &c_ao);
      pds_vec_destroy(&g), pds_vec_destroy(&yo);
      if (rank_ == 0)
        printf("{%s,\"case\":\"spmv\",\"t_us\":%.2f,\"t_Ad_us\":%.2f,\"t_Ao_us\":%.2f,\"t_comm_us\":%.2f,"
               "\"t_exposed_us\":%.2f,\"overlap\":%.3f,\"frac_bw\":%.3f}\n",
               head, t * 1e6, t_ad * 1e6, t_ao * 1e6, c * 1e6, (t - t_ad - t_ao) * 1e6, overlap(t - t_ad - t_ao, c),
               bytes / t / bw);
    }
    /* m = 2 (one rank): CG + Jacobi on the rank's diagonal block, which is then the whole matrix, as an ordinary csr
       matrix: the library's one-GPU path (a device loop on /gpu/cuda), the reference of the distributed one */
    for (int m = 0; m < 3; m++) {
      const char *name = m == 1 ? "gmres" : "cg";
      pds_precond P;
      double      t, c;

      if (!strstr(cases, name) || (m == 2 && size_ > 1)) continue;
      CALL(ctx, pds_solver_create(ctx, name, &o.s));
      CALL(ctx, pds_precond_create(ctx, m == 1 ? "bjacobi" : "jacobi", &P));
      CALL(ctx, pds_solver_set_operator(o.s, m == 2 ? Ad : A));
      CALL(ctx, pds_solver_set_precond(o.s, P));
      CALL(ctx, pds_solver_set_tolerances(o.s, 0.0, 0.0, its)); /* exactly `its` iterations */
      CALL(ctx, pds_solver_setup(o.s));
      CALL(ctx, pds_mat_apply(A, o.x, o.y)); /* b = A 1 */
      CALL(ctx, pds_vec_copy(o.y, o.x));
      timeit(ctx, op_solve, &o, o.y, 1, reps, &t, &c);
      {
        pds_solver_result r;

        CALL(ctx, pds_solver_get_result(o.s, &r));
        if (r.iterations != its) DIE("%s ran %d iterations, not %d", name, r.iterations, its);
        if (rank_ == 0)
          printf("{%s,\"case\":\"%s\",\"pc\":\"%s\",\"its\":%d,\"t_iter_us\":%.2f,\"t_comm_iter_us\":%.2f,"
                 "\"rel_residual\":%.3e}\n",
                 head, m == 2 ? "cg_serial" : name, m == 1 ? "bjacobi(ilu0)" : "jacobi", its, t / its * 1e6, c / its * 1e6,
                 r.rnorm / r.rnorm0);
      }
      pds_solver_destroy(&o.s), pds_precond_destroy(&P);
      CALL(ctx, pds_vec_set(o.x, 1.0));
    }
  }
  pds_vec_destroy(&o.x), pds_vec_destroy(&o.y), pds_mat_destroy(&A);
  CALL(ctx, pds_ctx_destroy(&ctx));
  MPI_Finalize();
  return 0;
}
