/* tests/cuda/tc09_relax.c: patch sets and block relaxation (paper 002, issue 12) on /gpu/cuda against /cpu/ref in
 * the same program:
 * - the patches kernels (apply with beta 0 and not, residual, restrict_sum, prolong constant and trilinear) on a set
 *   of mixed patch sizes (8, 4, 6, 2 cells a side) with two patches taken out of the box (holes whose faces are
 *   Dirichlet boundaries), through the kernel table: relative 1e-13, and ref's values (cuda_patches.cuh rounds as
 *   patches_bodies.h does);
 * - relax smooth (2 sweeps from a random u) and apply (1 sweep from 0) for jacobi and multicolor (symmetric, and
 *   forward only once), variants mapc, mapc with 4 blocks per inverse read and one work item per thread block
 *   (PDS_CUDA_RELAX_REUSE=4, PDS_CUDA_RELAX_PACK=0), gemm (every segment by cuBLAS, on side streams; 2 cells per
 *   thread in its passes for every block size: PDS_CUDA_RELAX_CPT=2), and gemm on one stream with the segments under
 *   64 blocks by the block-product kernel and 4 cells per thread (PDS_CUDA_RELAX_SIDE=0, PDS_CUDA_RELAX_GEMM_MIN=64,
 *   PDS_CUDA_RELAX_CPT=4: this small set's segments then mostly go to the block-product kernel), blocks
 *   2^3, 4^3, 8^3 and 3 x 5 x 2 on patches of 8 and 12 cells (8^3 and 3 x 5 x 2 do not divide them: edge blocks):
 *   relative 1e-12 against ref, mapc also ref's values; two GPU runs give the same bits;
 * - chaotic (mapc, and gemm, which runs mapc) converges to the solution ref's block Gauss-Seidel converges to;
 * - CG + relax (jacobi 4^3) on the GPU with the device loop (the default: smooth is recorded into the loop's graph;
 *   auto, gemm (its DGEMMs forked to side streams inside the capture), gemm on one stream, mapc) takes ref's
 *   iteration count within 1, a second solve replays the graph (a few device-to-host copies, the same bits) and the
 *   host loop gives the device loop's bits;
 * - auto picks mapc for 2^3 blocks and gemm for 4^3 (-view); an unknown variant is PDS_ERR_ARG naming the known ones.
 * PDS_TEST_VERBOSE=1 prints a line per comparison (relative difference, values that differ from ref's).
 * Needs a GPU: registered with label cuda only; run with another backend it does nothing. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>

#include "test.h"
#include "backend/backend.h"
#include "backend/cuda/cuda_common.h" /* pds_cuda_counters */
#include "mat/mat_impl.h"             /* pds_mat_patches_view */

static pds_ctx ctx, ref;
static int     devloop = 1; /* 0 when PDS_DEVICE_LOOP=0 (compute-sanitizer's racecheck and synccheck runs) */
static int     verbose;     /* PDS_TEST_VERBOSE=1: a line per check on stdout */
static int     small;       /* PDS_TEST_SMALL=1 (under compute-sanitizer): no 8^3 blocks, fewer variants and cases */

/* ---- helpers ----------------------------------------------------------------------------------------------- */
static uint64_t rng_state;
static double   rnd1(void) { /* splitmix64, uniform in [-1, 1) */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-52 - 1.0;
}
static double *rnd(size_t n, uint64_t seed) {
  double *a = malloc((n ? n : 1) * sizeof *a);

  TEST_ASSERT(a);
  rng_state = seed * 0x9e3779b97f4a7c15u + 1;
  for (size_t i = 0; i < n; i++) a[i] = rnd1();
  return a;
}
static double *alloc(size_t n) {
  double *a = malloc((n ? n : 1) * sizeof *a);

  TEST_ASSERT(a);
  return a;
}
static void *dev(const void *h, size_t bytes) {
  void *d;

  TEST_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, bytes ? bytes : 1, &d));
  if (bytes) TEST_CALL(pds_memcpy(ctx, d, PDS_MEM_DEVICE, h, PDS_MEM_HOST, bytes));
  return d;
}
static void host(void *h, const void *d, size_t bytes) {
  if (bytes) TEST_CALL(pds_memcpy(ctx, h, PDS_MEM_HOST, d, PDS_MEM_DEVICE, bytes));
}
static void dfree(void *pp) { TEST_CALL(pds_free(ctx, PDS_MEM_DEVICE, pp)); }

/* max |got - want| <= rtol max |want|; same: also every value equal to ref's (the kernels round as ref does) */
static void compare(const char *what, const double *got, const double *want, size_t n, double rtol, int same) {
  double dmax = 0, wmax = 0;
  size_t at = 0;

  for (size_t i = 0; i < n; i++) {
    const double d = fabs(got[i] - want[i]);

    if (!(d <= dmax)) dmax = d, at = i; /* NaN lands here too */
    if (fabs(want[i]) > wmax) wmax = fabs(want[i]);
  }
  if (!(dmax <= rtol * wmax))
    TEST_FAIL("%s: max |gpu - ref| = %.3g at %zu (gpu %.17g, ref %.17g), max |ref| = %.3g: relative %.3g > %g", what,
              dmax, at, got[at], want[at], wmax, dmax / wmax, rtol);
  if (verbose) {
    size_t ndiff = 0;

    for (size_t i = 0; i < n; i++) ndiff += !(got[i] == want[i]);
    printf("%-90s relative %.2e, %zu of %zu values differ from ref's\n", what, wmax > 0 ? dmax / wmax : dmax, ndiff,
           n);
  }
  if (same)
    for (size_t i = 0; i < n; i++)
      if (!(got[i] == want[i]))
        TEST_FAIL("%s: entry %zu is %.17g on the GPU and %.17g on ref (the kernels round as ref; the values should be "
                  "ref's)", what, i, got[i], want[i]);
}

static void bitwise(const char *what, const double *a, const double *b, size_t n) {
  if (memcmp(a, b, n * sizeof *a)) {
    size_t i = 0;

    while (i < n && !memcmp(&a[i], &b[i], sizeof *a)) i++;
    TEST_FAIL("%s: two GPU runs differ at entry %zu (%.17g vs %.17g)", what, i, a[i], b[i]);
  }
}

/* the patches of a box of n cells tiled by sizes (pds_patches_tile_box); drop[0 .. ndrop) taken out */
static pds_patch *tile(const pds_int n[3], int nsizes, const pds_int *sizes, const int *drop, int ndrop, int *np) {
  int        all, k = 0;
  pds_patch *p;

  TEST_CALL(pds_patches_tile_box(n, nsizes, sizes, &all, NULL));
  p = malloc((size_t)all * sizeof *p);
  TEST_ASSERT(p);
  TEST_CALL(pds_patches_tile_box(n, nsizes, sizes, &all, p));
  for (int q = 0; q < all; q++) {
    int out = 0;

    for (int d = 0; d < ndrop; d++) out |= drop[d] == q;
    if (!out) p[k++] = p[q];
  }
  *np = k;
  return p;
}

/* ---- the patches kernels ------------------------------------------------------------------------------------ */
static void patches_kernels(void) {
  const pds_int  box[3] = {20, 12, 16}, sizes[3] = {8, 4, 6}; /* x: 8 4 6 2, y: 8 4, z: 8 4 4 */
  const int      drop[2] = {5, 13};
  const pds_real st[7] = {6.5, -1.1, -0.9, -1.2, -0.8, -1.05, -0.95};
  int            np;
  pds_patch     *pf = tile(box, 3, sizes, drop, 2, &np), *pc = malloc((size_t)np * sizeof *pc);
  pds_mat        Ag, Ar, Cg, Cr;
  const struct pds_patches *Pg, *Pr, *Qg, *Qr;
  size_t         nf, nc;
  double        *x, *y0, *b, *ec, *yr, *yg, *cr, *cg;
  double        *dx, *dy, *db, *dc;
  char           what[96];

  TEST_ASSERT(pc);
  for (int q = 0; q < np; q++)
    for (int d = 0; d < 3; d++) pc[q].lo[d] = pf[q].lo[d] / 2, pc[q].n[d] = pf[q].n[d] / 2;
  TEST_CALL(pds_mat_create_patches(ctx, np, pf, st, &Ag));
  TEST_CALL(pds_mat_create_patches(ref, np, pf, st, &Ar));
  TEST_CALL(pds_mat_create_patches(ctx, np, pc, st, &Cg));
  TEST_CALL(pds_mat_create_patches(ref, np, pc, st, &Cr));
  Pg = pds_mat_patches_view(Ag), Pr = pds_mat_patches_view(Ar), Qg = pds_mat_patches_view(Cg);
  Qr = pds_mat_patches_view(Cr);
  TEST_ASSERT(Pg && Pr && Qg && Qr && Pg->ncells == Pr->ncells && Qg->ncells == Qr->ncells);
  TEST_ASSERT(ctx->k->patches.apply && ctx->k->patches.residual && ctx->k->patches.restrict_sum &&
              ctx->k->patches.prolong);
  nf = (size_t)Pr->ncells, nc = (size_t)Qr->ncells;
  x = rnd(nf, 1), y0 = rnd(nf, 2), b = rnd(nf, 3), ec = rnd(nc, 4);
  yr = alloc(nf), yg = alloc(nf), cr = alloc(nc), cg = alloc(nc);
  dx = dev(x, nf * sizeof *x), dy = dev(y0, nf * sizeof *y0), db = dev(b, nf * sizeof *b), dc = dev(ec, nc * sizeof *ec);

  /* y = alpha A x (beta 0: y not read), then y = alpha A x + beta y */
  for (int t = 0; t < 2; t++) {
    const double alpha = t ? -0.75 : 1.5, beta = t ? 0.25 : 0;

    memcpy(yr, y0, nf * sizeof *yr);
    TEST_CALL(pds_memcpy(ctx, dy, PDS_MEM_DEVICE, y0, PDS_MEM_HOST, nf * sizeof *y0));
    TEST_CALL(ref->k->patches.apply(ref, Pr, alpha, x, beta, yr));
    TEST_CALL(ctx->k->patches.apply(ctx, Pg, alpha, dx, beta, dy));
    host(yg, dy, nf * sizeof *yg);
    snprintf(what, sizeof what, "patches.apply alpha %g beta %g (%d patches)", alpha, beta, np);
    compare(what, yg, yr, nf, 1e-13, 1);
  }
  /* r = b - A x */
  TEST_CALL(ref->k->patches.residual(ref, Pr, x, b, yr));
  TEST_CALL(ctx->k->patches.residual(ctx, Pg, dx, db, dy));
  host(yg, dy, nf * sizeof *yg);
  compare("patches.residual", yg, yr, nf, 1e-13, 1);
  /* rc = 1/2 (sum of the 8 fine cells) */
  TEST_CALL(ref->k->patches.restrict_sum(ref, Pr, Qr, 0.5, x, cr));
  TEST_CALL(ctx->k->patches.restrict_sum(ctx, Pg, Qg, 0.5, dx, dc));
  host(cg, dc, nc * sizeof *cg);
  compare("patches.restrict_sum", cg, cr, nc, 1e-13, 1);
  /* uf += P ec, constant and trilinear */
  TEST_CALL(pds_memcpy(ctx, dc, PDS_MEM_DEVICE, ec, PDS_MEM_HOST, nc * sizeof *ec));
  for (int tri = 0; tri < 2; tri++) {
    memcpy(yr, y0, nf * sizeof *yr);
    TEST_CALL(pds_memcpy(ctx, dy, PDS_MEM_DEVICE, y0, PDS_MEM_HOST, nf * sizeof *y0));
    TEST_CALL(ref->k->patches.prolong(ref, Qr, Pr, tri, ec, yr));
    TEST_CALL(ctx->k->patches.prolong(ctx, Qg, Pg, tri, dc, dy));
    host(yg, dy, nf * sizeof *yg);
    compare(tri ? "patches.prolong trilinear" : "patches.prolong constant", yg, yr, nf, 1e-13, 1);
  }
  /* a coarse set that is not the fine one halved */
  TEST_ASSERT_ERR(ctx, ctx->k->patches.restrict_sum(ctx, Pg, Pg, 0.5, dx, dy), PDS_ERR_SIZE, "not half");
  dfree(&dx), dfree(&dy), dfree(&db), dfree(&dc);
  free(x), free(y0), free(b), free(ec), free(yr), free(yg), free(cr), free(cg), free(pf), free(pc);
  TEST_CALL(pds_mat_destroy(&Ag));
  TEST_CALL(pds_mat_destroy(&Ar));
  TEST_CALL(pds_mat_destroy(&Cg));
  TEST_CALL(pds_mat_destroy(&Cr));
}

/* ---- relax ---------------------------------------------------------------------------------------------------- */
/* the relax test set on c: a 20 x 16 x 16 box in patches of 8 and 12 cells along x, 8 along y and z */
static pds_mat relax_set(pds_ctx c, const pds_real st[7]) {
  const pds_int box[3] = {20, 16, 16}, sizes[2] = {8, 12};
  int           np;
  pds_patch    *p = tile(box, 2, sizes, NULL, 0, &np);
  pds_mat       A;

  TEST_CALL(pds_mat_create_patches(c, np, p, st, &A));
  free(p);
  return A;
}

static pds_precond relax_pc(pds_ctx c, pds_mat A, pds_relax_type type, const int bs[3], int symmetric,
                            const char *variant) {
  pds_precond pc;

  TEST_CALL(pds_precond_create(c, "relax", &pc));
  TEST_CALL(pds_precond_relax_set_type(pc, type));
  TEST_CALL(pds_precond_relax_set_block(pc, bs[0], bs[1], bs[2]));
  TEST_CALL(pds_precond_relax_set_symmetric(pc, symmetric));
  if (variant) TEST_CALL(pds_precond_relax_set_variant(pc, variant));
  TEST_CALL(pds_precond_set_operator(pc, A));
  TEST_CALL(pds_precond_setup(pc));
  return pc;
}

/* out = 2 sweeps of pc from u0 on A u = f (smooth) and out2 = M^-1 f (apply: 1 sweep from 0) */
static void relax_run(pds_precond pc, pds_vec f, pds_vec u, const double *u0, double *out, double *out2) {
  TEST_CALL(pds_vec_set_values(u, u0, PDS_MEM_HOST));
  TEST_CALL(pds_precond_relax_smooth(pc, f, u, 2));
  TEST_CALL(pds_vec_get_values(u, out, PDS_MEM_HOST));
  TEST_CALL(pds_precond_apply(pc, f, u));
  TEST_CALL(pds_vec_get_values(u, out2, PDS_MEM_HOST));
}

static void relax_equivalence(void) {
  static const int blocks[4][3] = {{2, 2, 2}, {4, 4, 4}, {8, 8, 8}, {3, 5, 2}};
  /* the second gemm: one stream, the block-product kernel, 4 cells a thread; the second mapc: 4 blocks per inverse
     read, one item per thread block */
  static const char *const variants[4] = {"mapc", "gemm", "gemm", "mapc"};
  const pds_real st[7] = {6.5, -1.1, -0.9, -1.2, -0.8, -1.05, -0.95};
  pds_mat        Ag = relax_set(ctx, st), Ar = relax_set(ref, st);
  pds_int        n;
  pds_vec        fg, ug, fr, ur;
  double        *f, *u0, *sr, *ar, *s1, *a1, *s2, *a2;
  char           what[160];

  TEST_CALL(pds_mat_get_size(Ar, &n, NULL));
  f = rnd((size_t)n, 11), u0 = rnd((size_t)n, 12);
  sr = alloc((size_t)n), ar = alloc((size_t)n), s1 = alloc((size_t)n), a1 = alloc((size_t)n), s2 = alloc((size_t)n);
  a2 = alloc((size_t)n);
  TEST_CALL(pds_vec_create(ctx, n, &fg));
  TEST_CALL(pds_vec_create(ctx, n, &ug));
  TEST_CALL(pds_vec_create(ref, n, &fr));
  TEST_CALL(pds_vec_create(ref, n, &ur));
  TEST_CALL(pds_vec_set_values(fg, f, PDS_MEM_HOST));
  TEST_CALL(pds_vec_set_values(fr, f, PDS_MEM_HOST));
  for (int bi = 0; bi < 4; bi++)
    for (int ty = 0; ty < 3; ty++) { /* jacobi, multicolor symmetric, multicolor forward (4^3 only) */
      const pds_relax_type type = ty ? PDS_RELAX_MULTICOLOR : PDS_RELAX_JACOBI;
      const int            sym  = ty != 2;
      pds_precond          pr;

      if ((ty == 2 && bi != 1) || (small && blocks[bi][0] == 8)) continue;
      pr = relax_pc(ref, Ar, type, blocks[bi], sym, NULL);
      relax_run(pr, fr, ur, u0, sr, ar);
      TEST_CALL(pds_precond_destroy(&pr));
      for (int v = 0; v < (small ? 2 : 4); v++) { /* small: mapc and gemm as auto makes them */
        const int   mapc = v == 0 || v == 3;
        pds_precond pg;

        if (v == 1) setenv("PDS_CUDA_RELAX_CPT", "2", 1); /* read when the plan is made */
        if (v == 2)
          setenv("PDS_CUDA_RELAX_GEMM_MIN", "64", 1), setenv("PDS_CUDA_RELAX_SIDE", "0", 1),
              setenv("PDS_CUDA_RELAX_CPT", "4", 1);
        if (v == 3) setenv("PDS_CUDA_RELAX_REUSE", "4", 1), setenv("PDS_CUDA_RELAX_PACK", "0", 1);
        pg = relax_pc(ctx, Ag, type, blocks[bi], sym, variants[v]);
        unsetenv("PDS_CUDA_RELAX_GEMM_MIN"), unsetenv("PDS_CUDA_RELAX_REUSE"), unsetenv("PDS_CUDA_RELAX_PACK");
        unsetenv("PDS_CUDA_RELAX_SIDE"), unsetenv("PDS_CUDA_RELAX_CPT");
        relax_run(pg, fg, ug, u0, s1, a1);
        relax_run(pg, fg, ug, u0, s2, a2);
        snprintf(what, sizeof what, "relax %s%s %dx%dx%d, %s%s", ty ? "multicolor" : "jacobi",
                 ty == 2 ? " (forward only)" : "", blocks[bi][0], blocks[bi][1], blocks[bi][2], variants[v],
                 v == 2 ? " (one stream, block products, 4 cells a thread)"
                 : v == 3 ? " (4 blocks per inverse read, unpacked)"
                          : "");
        {
          char w2[200];

          snprintf(w2, sizeof w2, "%s: 2 sweeps from a random u", what);
          compare(w2, s1, sr, (size_t)n, 1e-12, mapc);
          bitwise(w2, s1, s2, (size_t)n);
          snprintf(w2, sizeof w2, "%s: apply (1 sweep from 0)", what);
          compare(w2, a1, ar, (size_t)n, 1e-12, mapc);
          bitwise(w2, a1, a2, (size_t)n);
        }
        TEST_CALL(pds_precond_destroy(&pg));
      }
    }
  TEST_CALL(pds_vec_destroy(&fg));
  TEST_CALL(pds_vec_destroy(&ug));
  TEST_CALL(pds_vec_destroy(&fr));
  TEST_CALL(pds_vec_destroy(&ur));
  TEST_CALL(pds_mat_destroy(&Ag));
  TEST_CALL(pds_mat_destroy(&Ar));
  free(f), free(u0), free(sr), free(ar), free(s1), free(a1), free(s2), free(a2);
}

/* ||f - A u|| / ||f|| */
static double relres(pds_mat A, pds_vec f, pds_vec u) {
  pds_vec  r;
  pds_real rn, fn;

  TEST_CALL(pds_vec_duplicate(f, &r));
  TEST_CALL(pds_mat_residual(A, f, u, r));
  TEST_CALL(pds_vec_norm2(r, &rn));
  TEST_CALL(pds_vec_norm2(f, &fn));
  TEST_CALL(pds_vec_destroy(&r));
  return rn / fn;
}

/* chaotic block Gauss-Seidel: 60 sweeps from 0 on a diagonally dominant stencil reach the solution ref's sequential
   block Gauss-Seidel reaches (chaotic relaxation converges on such matrices whatever the order of the updates) */
static void relax_chaotic(void) {
  static const int blocks[2][3] = {{4, 4, 4}, {3, 5, 2}};
  const pds_real   st[7] = {7.0, -1.1, -0.9, -1.2, -0.8, -1.05, -0.95};
  pds_mat          Ag = relax_set(ctx, st), Ar = relax_set(ref, st);
  pds_int          n;
  pds_vec          fg, ug, fr, ur;
  double          *f, *xr, *xg;

  TEST_CALL(pds_mat_get_size(Ar, &n, NULL));
  f = rnd((size_t)n, 21), xr = alloc((size_t)n), xg = alloc((size_t)n);
  TEST_CALL(pds_vec_create(ctx, n, &fg));
  TEST_CALL(pds_vec_create(ctx, n, &ug));
  TEST_CALL(pds_vec_create(ref, n, &fr));
  TEST_CALL(pds_vec_create(ref, n, &ur));
  TEST_CALL(pds_vec_set_values(fg, f, PDS_MEM_HOST));
  TEST_CALL(pds_vec_set_values(fr, f, PDS_MEM_HOST));
  for (int bi = small; bi < 2; bi++) {
    pds_precond pr = relax_pc(ref, Ar, PDS_RELAX_CHAOTIC, blocks[bi], 1, NULL);
    double      rr;

    TEST_CALL(pds_vec_set(ur, 0));
    TEST_CALL(pds_precond_relax_smooth(pr, fr, ur, 60));
    rr = relres(Ar, fr, ur);
    if (!(rr <= 1e-9)) TEST_FAIL("ref chaotic %dx%dx%d: relative residual %.3g after 60 sweeps", blocks[bi][0],
                                 blocks[bi][1], blocks[bi][2], rr);
    TEST_CALL(pds_vec_get_values(ur, xr, PDS_MEM_HOST));
    TEST_CALL(pds_precond_destroy(&pr));
    for (int v = 0; v < 2; v++) {
      pds_precond pg = relax_pc(ctx, Ag, PDS_RELAX_CHAOTIC, blocks[bi], 1, v ? "gemm" : "mapc");
      double      rg;
      char        what[96];

      TEST_CALL(pds_vec_set(ug, 0));
      TEST_CALL(pds_precond_relax_smooth(pg, fg, ug, 60));
      rg = relres(Ag, fg, ug);
      snprintf(what, sizeof what, "chaotic %dx%dx%d %s: the solution", blocks[bi][0], blocks[bi][1], blocks[bi][2],
               v ? "gemm" : "mapc");
      if (!(rg <= 1e-9)) TEST_FAIL("%s: relative residual %.3g after 60 sweeps", what, rg);
      TEST_CALL(pds_vec_get_values(ug, xg, PDS_MEM_HOST));
      compare(what, xg, xr, (size_t)n, 1e-7, 0);
      TEST_CALL(pds_precond_destroy(&pg));
    }
  }
  TEST_CALL(pds_vec_destroy(&fg));
  TEST_CALL(pds_vec_destroy(&ug));
  TEST_CALL(pds_vec_destroy(&fr));
  TEST_CALL(pds_vec_destroy(&ur));
  TEST_CALL(pds_mat_destroy(&Ag));
  TEST_CALL(pds_mat_destroy(&Ar));
  free(f), free(xr), free(xg);
}

/* CG preconditioned by block Jacobi (4^3) on the cell-centred Laplacian of the relax set */
static void relax_cg(void) {
  /* the second: gemm as it comes (its DGEMMs forked to side streams inside the device loop's capture); the third: gemm
     on one stream with the block-product kernel */
  static const char *const variants[4] = {"auto", "gemm", "gemm", "mapc"};
  const pds_real           st[7] = {6, -1, -1, -1, -1, -1, -1};
  const int                bs[3] = {4, 4, 4};
  pds_mat                  Ag = relax_set(ctx, st), Ar = relax_set(ref, st);
  pds_int                  n;
  pds_vec                  bg, xg, br, xr;
  double                  *b, *x1, *x2;
  pds_precond              pr;
  pds_solver               s;
  pds_solver_result        res_r, r1, r2, r3;

  TEST_CALL(pds_mat_get_size(Ar, &n, NULL));
  b = rnd((size_t)n, 31), x1 = alloc((size_t)n), x2 = alloc((size_t)n);
  TEST_CALL(pds_vec_create(ctx, n, &bg));
  TEST_CALL(pds_vec_create(ctx, n, &xg));
  TEST_CALL(pds_vec_create(ref, n, &br));
  TEST_CALL(pds_vec_create(ref, n, &xr));
  TEST_CALL(pds_vec_set_values(bg, b, PDS_MEM_HOST));
  TEST_CALL(pds_vec_set_values(br, b, PDS_MEM_HOST));
  pr = relax_pc(ref, Ar, PDS_RELAX_JACOBI, bs, 1, NULL);
  TEST_CALL(pds_solver_create(ref, "cg", &s));
  TEST_CALL(pds_solver_set_operator(s, Ar));
  TEST_CALL(pds_solver_set_precond(s, pr));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-8, 0, 1000));
  TEST_CALL(pds_vec_set(xr, 0));
  TEST_CALL(pds_solver_solve(s, br, xr));
  TEST_CALL(pds_solver_get_result(s, &res_r));
  TEST_ASSERT(res_r.reason > 0);
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_precond_destroy(&pr));
  for (int v = 0; v < 4; v += small ? 3 : 1) { /* small: auto and mapc */
    pds_precond pg;
    const char *name;
    long long   d0, d1;
    double      rr;

    if (v == 2) setenv("PDS_CUDA_RELAX_GEMM_MIN", "64", 1), setenv("PDS_CUDA_RELAX_SIDE", "0", 1);
    pg = relax_pc(ctx, Ag, PDS_RELAX_JACOBI, bs, 1, variants[v]);
    if (v == 2) unsetenv("PDS_CUDA_RELAX_GEMM_MIN"), unsetenv("PDS_CUDA_RELAX_SIDE");
    name = v == 2 ? "gemm, one stream, block products" : variants[v];
    TEST_CALL(pds_solver_create(ctx, "cg", &s));
    TEST_CALL(pds_solver_set_operator(s, Ag));
    TEST_CALL(pds_solver_set_precond(s, pg));
    TEST_CALL(pds_solver_set_tolerances(s, 1e-8, 0, 1000));
    /* first solve (records the device loop, the preconditioner's launches and cuBLAS's inside it) */
    TEST_CALL(pds_vec_set(xg, 0));
    TEST_CALL(pds_solver_solve(s, bg, xg));
    TEST_CALL(pds_solver_get_result(s, &r1));
    TEST_CALL(pds_vec_get_values(xg, x1, PDS_MEM_HOST));
    if (r1.reason <= 0 || abs(r1.iterations - res_r.iterations) > 1)
      TEST_FAIL("CG + relax jacobi 4^3 (%s): %d iterations (reason %d), ref %d", name, r1.iterations, r1.reason,
                res_r.iterations);
    rr = relres(Ag, bg, xg);
    if (!(rr <= 1e-7)) TEST_FAIL("CG + relax jacobi 4^3 (%s): true relative residual %.3g", name, rr);
    /* second solve from the same start: the graph replayed, a few device-to-host copies, the same bits */
    TEST_CALL(pds_vec_set(xg, 0));
    TEST_CALL(pds_cuda_counters(ctx, &d0, NULL, NULL));
    TEST_CALL(pds_solver_solve(s, bg, xg));
    TEST_CALL(pds_cuda_counters(ctx, &d1, NULL, NULL));
    TEST_CALL(pds_solver_get_result(s, &r2));
    TEST_CALL(pds_vec_get_values(xg, x2, PDS_MEM_HOST));
    if (r2.iterations != r1.iterations || memcmp(&r2.rnorm, &r1.rnorm, sizeof r1.rnorm))
      TEST_FAIL("CG + relax (%s): a second solve differs (%d vs %d iterations)", name, r2.iterations,
                r1.iterations);
    bitwise("CG + relax jacobi: a second solve", x2, x1, (size_t)n);
    if (verbose)
      printf("CG + relax jacobi 4^3 (%s): %d iterations (ref %d), %lld device-to-host copies in the second solve\n",
             name, r1.iterations, res_r.iterations, d1 - d0);
    if (devloop && d1 - d0 > 8)
      TEST_FAIL("CG + relax (%s): %lld device-to-host copies for %d iterations: was the device loop not used? "
                "(relax.smooth must be capturable)", name, d1 - d0, r2.iterations);
    /* the host loop: the device loop's bits */
    TEST_CALL(pds_solver_set_device_loop(s, 0));
    TEST_CALL(pds_vec_set(xg, 0));
    TEST_CALL(pds_solver_solve(s, bg, xg));
    TEST_CALL(pds_solver_get_result(s, &r3));
    TEST_CALL(pds_vec_get_values(xg, x2, PDS_MEM_HOST));
    if (r3.iterations != r1.iterations || memcmp(&r3.rnorm, &r1.rnorm, sizeof r1.rnorm))
      TEST_FAIL("CG + relax (%s): the host loop differs from the device loop (%d vs %d iterations)", name,
                r3.iterations, r1.iterations);
    bitwise("CG + relax jacobi: host loop against device loop", x2, x1, (size_t)n);
    TEST_CALL(pds_solver_destroy(&s));
    TEST_CALL(pds_precond_destroy(&pg));
  }
  TEST_CALL(pds_vec_destroy(&bg));
  TEST_CALL(pds_vec_destroy(&xg));
  TEST_CALL(pds_vec_destroy(&br));
  TEST_CALL(pds_vec_destroy(&xr));
  TEST_CALL(pds_mat_destroy(&Ag));
  TEST_CALL(pds_mat_destroy(&Ar));
  free(b), free(x1), free(x2);
}

/* host-resident data streamed through the GPU (pds_precond_relax_smooth_host): jacobi gives /cpu/ref's bits in both
   orders, for any number of slots and whatever the plan (mapc, gemm, 1, 4 or 8 blocks per inverse read); multicolor on
   a one-patch set (no neighbours to freeze) gives ref's bits too, and on the relax set the same bits in every order */
static void relax_streamed(void) {
  static const int blocks[3][3] = {{4, 4, 4}, {3, 5, 2}, {8, 8, 8}};
  static const int orders[4][2] = {{PDS_RELAX_STREAM_DEPTH, 1}, {PDS_RELAX_STREAM_DEPTH, 3},
                                   {PDS_RELAX_STREAM_BREADTH, 2}, {PDS_RELAX_STREAM_BREADTH, 64}};
  const pds_real   st[7] = {6.5, -1.1, -0.9, -1.2, -0.8, -1.05, -0.95};
  const pds_patch  one[1] = {{{0, 0, 0}, {12, 8, 8}}};
  char             what[200];

  for (int set = 0; set < 2; set++) { /* the relax set, then one patch */
    pds_mat Ag, Ar;
    pds_int n;
    double *f, *u0, *want, *got, *first;
    pds_vec fr, ur;

    if (set == 0) Ag = relax_set(ctx, st), Ar = relax_set(ref, st);
    else {
      TEST_CALL(pds_mat_create_patches(ctx, 1, one, st, &Ag));
      TEST_CALL(pds_mat_create_patches(ref, 1, one, st, &Ar));
    }
    TEST_CALL(pds_mat_get_size(Ar, &n, NULL));
    f = rnd((size_t)n, 31), u0 = rnd((size_t)n, 32), want = alloc((size_t)n), got = alloc((size_t)n);
    first = alloc((size_t)n);
    TEST_CALL(pds_vec_create(ref, n, &fr));
    TEST_CALL(pds_vec_create(ref, n, &ur));
    TEST_CALL(pds_vec_set_values(fr, f, PDS_MEM_HOST));
    for (int bi = 0; bi < 3; bi++)
      for (int ty = 0; ty < 2; ty++) {
        const pds_relax_type type = ty ? PDS_RELAX_MULTICOLOR : PDS_RELAX_JACOBI;
        pds_precond          pr;

        if (small && bi == 2) continue;
        pr = relax_pc(ref, Ar, type, blocks[bi], 1, NULL);
        TEST_CALL(pds_vec_set_values(ur, u0, PDS_MEM_HOST));
        TEST_CALL(pds_precond_relax_smooth(pr, fr, ur, 2));
        TEST_CALL(pds_vec_get_values(ur, want, PDS_MEM_HOST));
        TEST_CALL(pds_precond_destroy(&pr));
        for (int v = 0; v < (small ? 1 : 3); v++) {
          pds_precond pg;

          if (v == 2) setenv("PDS_CUDA_RELAX_REUSE", bi == 1 ? "4" : "1", 1), setenv("PDS_CUDA_RELAX_PACK", "0", 1);
          pg = relax_pc(ctx, Ag, type, blocks[bi], 1, v == 1 ? "gemm" : "mapc");
          unsetenv("PDS_CUDA_RELAX_REUSE"), unsetenv("PDS_CUDA_RELAX_PACK");
          for (int o = 0; o < 4; o++) {
            snprintf(what, sizeof what, "smooth_host %s, %s %dx%dx%d, %s, %s with %d slots", set ? "one patch" :
                     "the relax set", ty ? "multicolor" : "jacobi", blocks[bi][0], blocks[bi][1], blocks[bi][2],
                     v == 1 ? "gemm plan" : v == 2 ? "mapc (other reuse, unpacked)" : "mapc",
                     orders[o][0] == PDS_RELAX_STREAM_DEPTH ? "depth-first" : "breadth-first", orders[o][1]);
            TEST_CALL(pds_precond_relax_set_stream(pg, (pds_relax_stream)orders[o][0], orders[o][1]));
            memcpy(got, u0, (size_t)n * sizeof *got);
            TEST_CALL(pds_precond_relax_smooth_host(pg, f, got, 2));
            if (ty == 0 || set == 1) compare(what, got, want, (size_t)n, 0, 1);
            else if (o == 0 && v == 0) memcpy(first, got, (size_t)n * sizeof *got);
            else bitwise(what, got, first, (size_t)n);
          }
          TEST_CALL(pds_precond_destroy(&pg));
        }
      }
    TEST_CALL(pds_vec_destroy(&fr));
    TEST_CALL(pds_vec_destroy(&ur));
    TEST_CALL(pds_mat_destroy(&Ag));
    TEST_CALL(pds_mat_destroy(&Ar));
    free(f), free(u0), free(want), free(got), free(first);
  }
}

/* -view says what auto picked: mapc for 2^3 blocks, gemm for 4^3 */
static void relax_auto_and_errors(void) {
  const pds_real st[7] = {6, -1, -1, -1, -1, -1, -1};
  const int      b2[3] = {2, 2, 2}, b4[3] = {4, 4, 4};
  pds_mat        A = relax_set(ctx, st);
  pds_precond    pc;

  for (int k = 0; k < 2; k++) {
    FILE *fp = tmpfile();
    char  buf[4096];
    size_t len;

    TEST_ASSERT(fp);
    pc = relax_pc(ctx, A, PDS_RELAX_JACOBI, k ? b4 : b2, 1, NULL);
    TEST_CALL(pds_precond_view(pc, fp));
    rewind(fp);
    len      = fread(buf, 1, sizeof buf - 1, fp);
    buf[len] = 0;
    fclose(fp);
    if (verbose) printf("-view, auto with %s blocks:\n%s", k ? "4^3" : "2^3", buf);
    if (!strstr(buf, k ? "gemm (auto)" : "mapc (auto)"))
      TEST_FAIL("relax auto with %s blocks: -view does not say '%s':\n%s", k ? "4^3" : "2^3",
                k ? "gemm (auto)" : "mapc (auto)", buf);
    TEST_CALL(pds_precond_destroy(&pc));
  }
  /* an unknown variant: PDS_ERR_ARG at setup, naming the known ones */
  TEST_CALL(pds_precond_create(ctx, "relax", &pc));
  TEST_CALL(pds_precond_relax_set_block(pc, 4, 4, 4));
  TEST_CALL(pds_precond_relax_set_variant(pc, "tiles"));
  TEST_CALL(pds_precond_set_operator(pc, A));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "known: auto, gemm, mapc");
  TEST_CALL(pds_precond_destroy(&pc));
  TEST_CALL(pds_mat_destroy(&A));
}

int main(int argc, char **argv) {
  ctx = test_init(argc, argv);
  if (strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda")) {
    test_finalize(&ctx);
    return 0;
  }
  devloop = !(getenv("PDS_DEVICE_LOOP") && !strcmp(getenv("PDS_DEVICE_LOOP"), "0"));
  verbose = getenv("PDS_TEST_VERBOSE") && !strcmp(getenv("PDS_TEST_VERBOSE"), "1");
  small   = getenv("PDS_TEST_SMALL") && !strcmp(getenv("PDS_TEST_SMALL"), "1");
  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  patches_kernels();
  relax_equivalence();
  relax_chaotic();
  relax_cg();
  relax_streamed();
  relax_auto_and_errors();
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
