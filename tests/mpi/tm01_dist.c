/* tests/mpi/tm01_dist.c: distributed vectors, matrices and solves against the serial library on the same data, run
 * by ctest under mpirun -np 1, 2 and 3 (argv[1]: the backend; argv[2]: a Matrix Market file of ../shared).
 *   - layouts: uneven local sizes, rank 1 with no rows when there are three ranks or more;
 *   - reductions: dot, norms, set_random equal the serial vector's (to round-off; bits for the same ranks);
 *   - products: y = A x of an irregular matrix whose rows reach every rank (and a block matrix, bs 3) against the
 *     serial csr / bsr product; a file read by rank 0 and scattered against the same file read serially; a matrix
 *     and a vector rank 0 holds whole, spread (pds_mat_scatter_dist, pds_vec_scatter_dist);
 *   - solves: cg + jacobi, bicgstab + pbjacobi, gmres + jacobi and richardson + jacobi take the serial iteration
 *     counts with the serial iterates to round-off; bjacobi(ilu0) converges (and equals serial ilu0 on one rank);
 *     every solve twice gives the same bits;
 *   - failures, every rank returning an error and none hanging: a column outside the matrix on one rank, an
 *     allocation failing on one rank (in assembly and in a solver's setup), a vector of the wrong length on one
 *     rank, a local-only preconditioner on a distributed matrix, an unknown halo transport, nccl without NCCL.
 * PDS_TEST_HALO=nccl (the GPU machine's runs) makes every product's halo travel through NCCL. */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include "pdesolve_mpi.h"
#include "test.h"
#include "mpi_test.h"

#define N2 20 /* the grid of the generated matrices: N2 x N2 */
#define NG (N2 * N2)

/* The generated matrix, every rank the whole of it (row-major triplets into CSR): a 5-point stencil with a
   convection term (nonsymmetric unless sym), plus a coupling of row i to row (7 i + 13) mod NG and back (so every
   rank needs ghosts from far away); strictly diagonally dominant (symmetric: SPD). */
static void gen(int sym, pds_size *rp, pds_int *cj, pds_real *v) {
  pds_size k = 0;

  rp[0] = 0;
  for (int i = 0; i < NG; i++) {
    const int x = i % N2, y = i / N2, far = (7 * i + 13) % NG, back = (int)(((long)(i - 13 + 7L * NG) * 343) % NG);
    pds_real  off = 0;
    int       c[6], nc = 0;
    pds_real  w[6];

    if (x > 0) c[nc] = i - 1, w[nc++] = -1.0 - (sym ? 0 : 0.3);
    if (x < N2 - 1) c[nc] = i + 1, w[nc++] = -1.0 + (sym ? 0 : 0.3);
    if (y > 0) c[nc] = i - N2, w[nc++] = -1.0;
    if (y < N2 - 1) c[nc] = i + N2, w[nc++] = -1.0;
    /* (7 back + 13) mod NG = i: 343 is 7's inverse modulo 400 (7 * 343 = 2401); no column twice in a row */
    for (int t = 0; t < 2; t++) {
      const int j = t ? back : far;
      int       dup = j == i || (t && back == far);

      for (int q = 0; q < nc; q++) dup |= c[q] == j;
      if (!dup) c[nc] = j, w[nc++] = -0.25;
    }
    for (int q = 0; q < nc; q++) off += fabs(w[q]);
    cj[k] = i, v[k++] = off + 0.5;
    for (int q = 0; q < nc; q++) cj[k] = c[q], v[k++] = w[q];
    rp[i + 1] = k;
  }
}

/* rank r's first row of n: uneven parts, rank 1 empty when there are three ranks or more */
static pds_int part(pds_int n, int r) {
  static const int w[] = {3, 0, 2, 5, 1, 4};
  long             tot = 0, acc = 0;

  for (int q = 0; q < size_; q++) tot += size_ >= 3 ? w[q % 6] : q + 2;
  for (int q = 0; q < r; q++) acc += size_ >= 3 ? w[q % 6] : q + 2;
  return (pds_int)(n * acc / tot);
}

/* the distributed matrix of rank's rows of (rp, cj, v) */
static pds_mat dist_of(pds_ctx ctx, const pds_size *rp, const pds_int *cj, const pds_real *v, pds_int n) {
  const pds_int a = part(n, rank_), b = part(n, rank_ + 1);
  pds_size     *lrp = malloc(sizeof *lrp * (size_t)(b - a + 1));
  pds_mat       A;

  for (pds_int i = a; i <= b; i++) lrp[i - a] = rp[i] - rp[a];
  TEST_CALL(pds_mat_create_csr_dist(ctx, b - a, lrp, cj + rp[a], v + rp[a], &A));
  free(lrp);
  return A;
}

static void test_vectors(pds_ctx ctx, pds_ctx serial) {
  pds_vec  x, y, xs, ys;
  pds_size lo, hi, N, n;
  pds_real d, ds, nrm, nrms;

  TEST_CALL(pds_vec_create_dist(ctx, part(NG, rank_ + 1) - part(NG, rank_), &x));
  TEST_CALL(pds_vec_get_global_size(x, &N));
  TEST_CALL(pds_vec_get_ownership_range(x, &lo, &hi));
  TEST_CALL(pds_vec_get_size(x, &n));
  TEST_ASSERT(N == NG && lo == (pds_size)part(NG, rank_) && hi == lo + n && pds_vec_is_distributed(x));
  if (size_ >= 3 && rank_ == 1) TEST_ASSERT(n == 0);
  TEST_CALL(pds_vec_duplicate(x, &y));
  TEST_ASSERT(pds_vec_is_distributed(y));
  TEST_CALL(pds_vec_create(serial, NG, &xs));
  TEST_CALL(pds_vec_create(serial, NG, &ys));
  TEST_CALL(pds_vec_set_random(x, 11));
  TEST_CALL(pds_vec_set_random(xs, 11));
  TEST_ASSERT(maxdiff(x, xs) == 0); /* the same stream, each rank its part */
  TEST_CALL(pds_vec_set_random(y, 12));
  TEST_CALL(pds_vec_set_random(ys, 12));
  TEST_CALL(pds_vec_dot(x, y, &d));
  TEST_CALL(pds_vec_dot(xs, ys, &ds));
  TEST_ASSERT_NEAR(d, ds, 1e-13, 1e-13);
  TEST_CALL(pds_vec_norm2(x, &nrm));
  TEST_CALL(pds_vec_norm2(xs, &nrms));
  TEST_ASSERT_NEAR(nrm, nrms, 1e-14, 0);
  TEST_CALL(pds_vec_norm_inf(y, &nrm));
  TEST_CALL(pds_vec_norm_inf(ys, &nrms));
  TEST_ASSERT(nrm == nrms);
  { /* every rank holds the same bits */
    double mn = d, mx = d;

    MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    TEST_ASSERT(mn == mx);
  }
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xs), pds_vec_destroy(&ys);
}

/* one solve of A x = b (b = A * ones) with x0 = 0; returns the iterations */
static int solve(pds_ctx ctx, pds_mat A, const char *method, const char *pc, pds_vec *xout) {
  pds_solver        s;
  pds_precond       P;
  pds_vec           x, b, e;
  pds_solver_result r;

  TEST_CALL(pds_mat_create_vecs(A, &x, &b));
  TEST_CALL(pds_vec_duplicate(x, &e));
  TEST_CALL(pds_vec_set(e, 1.0));
  TEST_CALL(pds_mat_apply(A, e, b));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, method, &s));
  TEST_CALL(pds_precond_create(ctx, pc, &P));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0, 500));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  if (r.reason <= 0) TEST_FAIL("%s + %s did not converge: reason %s", method, pc, pds_reason_name(r.reason));
  pds_solver_destroy(&s), pds_precond_destroy(&P), pds_vec_destroy(&b), pds_vec_destroy(&e);
  *xout = x;
  return r.iterations;
}

static void test_products(pds_ctx ctx, pds_ctx serial, const char *file) {
  pds_size *rp = malloc(sizeof *rp * (NG + 1));
  pds_int  *cj = malloc(sizeof *cj * NG * 7);
  pds_real *v  = malloc(sizeof *v * NG * 7);
  pds_mat   A, As;
  pds_vec   x, y, xs, ys;
  pds_int   Ng, lo, hi;

  gen(0, rp, cj, v);
  A = dist_of(ctx, rp, cj, v, NG);
  TEST_CALL(pds_mat_create_csr(serial, NG, NG, rp, cj, v, PDS_MEM_HOST, PDS_COPY_VALUES, &As));
  TEST_ASSERT(!strcmp(pds_mat_get_type(A), "mpicsr") && pds_mat_is_distributed(A));
  TEST_CALL(pds_mat_get_global_size(A, &Ng));
  TEST_CALL(pds_mat_get_ownership_range(A, &lo, &hi));
  TEST_ASSERT(Ng == NG && lo == part(NG, rank_) && hi == part(NG, rank_ + 1));
  TEST_CALL(pds_mat_create_vecs(A, &x, &y));
  TEST_CALL(pds_mat_create_vecs(As, &xs, &ys));
  TEST_CALL(pds_vec_set_random(x, 5));
  TEST_CALL(pds_vec_set_random(xs, 5));
  TEST_CALL(pds_mat_apply(A, x, y));
  TEST_CALL(pds_mat_apply(As, xs, ys));
  TEST_ASSERT(maxdiff(y, ys) <= 1e-14);
  TEST_CALL(pds_mat_apply_add(A, 2.0, x, -0.5, y)); /* y = 2 A x - 0.5 A x */
  TEST_CALL(pds_vec_scale(ys, 1.5));
  TEST_ASSERT(maxdiff(y, ys) <= 1e-13);
  TEST_CALL(pds_mat_view(A, stdout));
  pds_mat_destroy(&A), pds_mat_destroy(&As);

  { /* blocks of 3: the scalar matrix above as block rows of a bsr (3 x 3 blocks, each the entry times a fixed block) */
    const int bs = 3;
    pds_real *bv = malloc(sizeof *bv * rp[NG] * 9);
    pds_mat   B, Bs;
    pds_vec   bx, by, bxs, bys;
    pds_int   blo, bhi;

    for (pds_size q = 0; q < rp[NG]; q++)
      for (int e = 0; e < 9; e++) bv[q * 9 + e] = v[q] * (e % 4 == 0 ? 1.0 : 0.1 * (e + 1));
    blo = part(NG, rank_), bhi = part(NG, rank_ + 1);
    {
      pds_size *lrp = malloc(sizeof *lrp * (size_t)(bhi - blo + 1));

      for (pds_int i = blo; i <= bhi; i++) lrp[i - blo] = rp[i] - rp[blo];
      TEST_CALL(pds_mat_create_bsr_dist(ctx, bhi - blo, bs, lrp, cj + rp[blo], bv + rp[blo] * 9, &B));
      free(lrp);
    }
    TEST_CALL(pds_mat_create_bsr(serial, NG, NG, bs, rp, cj, bv, PDS_MEM_HOST, PDS_COPY_VALUES, &Bs));
    TEST_ASSERT(!strcmp(pds_mat_get_type(B), "mpibsr"));
    TEST_CALL(pds_mat_create_vecs(B, &bx, &by));
    TEST_CALL(pds_mat_create_vecs(Bs, &bxs, &bys));
    TEST_CALL(pds_vec_set_random(bx, 8));
    TEST_CALL(pds_vec_set_random(bxs, 8));
    TEST_CALL(pds_mat_apply(B, bx, by));
    TEST_CALL(pds_mat_apply(Bs, bxs, bys));
    TEST_ASSERT(maxdiff(by, bys) <= 1e-13);
    pds_vec_destroy(&bx), pds_vec_destroy(&by), pds_vec_destroy(&bxs), pds_vec_destroy(&bys);
    { /* block solves: GMRES with asm and bjacobi on the mpibsr matrix, ILU(0) by blocks on each rank, against serial */
      int it_as, it_bj, it_s;

      it_as = solve(ctx, B, "gmres", "asm", &bx);
      it_bj = solve(ctx, B, "gmres", "bjacobi", &by);
      it_s  = solve(serial, Bs, "gmres", "ilu0", &bxs);
      if (rank_ == 0)
        printf("bsr 3x3: gmres + asm %d, + bjacobi %d iterations on %d rank%s, + ilu0 %d serial\n", it_as, it_bj, size_,
               size_ > 1 ? "s" : "", it_s);
      TEST_ASSERT(maxdiff(bx, bxs) <= 1e-7 && maxdiff(by, bxs) <= 1e-7);
      if (size_ == 1) TEST_ASSERT(it_as == it_s && it_bj == it_s);
      pds_vec_destroy(&bx), pds_vec_destroy(&by), pds_vec_destroy(&bxs);
    }
    pds_mat_destroy(&B), pds_mat_destroy(&Bs);
    free(bv);
  }
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xs), pds_vec_destroy(&ys);

  /* a real file: read by rank 0 and scattered, against the serial read */
  TEST_CALL(pds_mat_load_dist(ctx, file, 1, &A));
  TEST_CALL(pds_mm_read_mat(serial, file, &As));
  TEST_CALL(pds_mat_create_vecs(A, &x, &y));
  TEST_CALL(pds_mat_create_vecs(As, &xs, &ys));
  TEST_CALL(pds_vec_set_random(x, 9));
  TEST_CALL(pds_vec_set_random(xs, 9));
  TEST_CALL(pds_mat_apply(A, x, y));
  TEST_CALL(pds_mat_apply(As, xs, ys));
  {
    pds_real ny;

    TEST_CALL(pds_vec_norm_inf(ys, &ny));
    TEST_ASSERT(maxdiff(y, ys) <= 1e-13 * ny);
  }
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xs), pds_vec_destroy(&ys);
  pds_mat_destroy(&A), pds_mat_destroy(&As);
  free(rp), free(cj), free(v);
}

static void test_solves(pds_ctx ctx, pds_ctx serial) {
  static const char *cases[][2] = {{"cg", "jacobi"}, {"bicgstab", "pbjacobi"}, {"gmres", "jacobi"},
                                   {"richardson", "jacobi"}, {"bicgstab", "bjacobi"}, {"gmres", "bjacobi"},
                                   {"bicgstab", "asm"}, {"gmres", "asm"}};
  pds_size *rp = malloc(sizeof *rp * (NG + 1));
  pds_int  *cj = malloc(sizeof *cj * NG * 7);
  pds_real *v  = malloc(sizeof *v * NG * 7);
  int       last_bjacobi = 0;

  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    const int   sym = !strcmp(cases[c][0], "cg");
    const int   schwarz = !strcmp(cases[c][1], "bjacobi") || !strcmp(cases[c][1], "asm");
    const char *spc     = schwarz ? "ilu0" : cases[c][1]; /* one rank: bjacobi and asm are ilu0 */
    pds_mat     A, As;
    pds_vec     x, x2, xs;
    int         it, it2, its;

    gen(sym, rp, cj, v);
    A = dist_of(ctx, rp, cj, v, NG);
    TEST_CALL(pds_mat_create_csr(serial, NG, NG, rp, cj, v, PDS_MEM_HOST, PDS_COPY_VALUES, &As));
    it  = solve(ctx, A, cases[c][0], cases[c][1], &x);
    it2 = solve(ctx, A, cases[c][0], cases[c][1], &x2);
    its = solve(serial, As, cases[c][0], spc, &xs);
    if (rank_ == 0) printf("%s + %s: %d iterations on %d rank%s, %d serial\n", cases[c][0], cases[c][1], it, size_,
                           size_ > 1 ? "s" : "", its);
    TEST_ASSERT(it == it2 && same_bits(x, x2)); /* deterministic for a fixed number of ranks */
    if (!schwarz || size_ == 1) { /* the same method as the serial one */
      TEST_ASSERT(it == its);
      TEST_ASSERT(maxdiff(x, xs) <= 1e-8);
    } else { /* block Jacobi or Schwarz over the ranks: another preconditioner, the same solution */
      TEST_ASSERT(maxdiff(x, xs) <= 1e-7);
    }
    if (!strcmp(cases[c][1], "bjacobi")) last_bjacobi = it;
    if (!strcmp(cases[c][1], "asm")) /* the overlap helps (or, on one rank, changes nothing) */
      TEST_ASSERT(it <= last_bjacobi + 1 || size_ == 1);
    pds_vec_destroy(&x), pds_vec_destroy(&x2), pds_vec_destroy(&xs);
    pds_mat_destroy(&A), pds_mat_destroy(&As);
  }
  free(rp), free(cj), free(v);
}

/* a matrix and a vector that rank 0 holds whole, spread (pds_mat_scatter_dist, pds_vec_scatter_dist): the product of
   the spread matrix on the spread vector equals the serial one; no matrix on rank 0 fails on every rank */
static void test_scatter(pds_ctx ctx, pds_ctx serial) {
  pds_size *rp = malloc(sizeof *rp * (NG + 1));
  pds_int  *cj = malloc(sizeof *cj * NG * 7);
  pds_real *v  = malloc(sizeof *v * NG * 7);
  pds_mat   As = NULL, A = NULL;
  pds_vec   xs, ys, x, y;

  gen(0, rp, cj, v);
  TEST_CALL(pds_mat_create_csr(serial, NG, NG, rp, cj, v, PDS_MEM_HOST, PDS_COPY_VALUES, &As));
  TEST_CALL(pds_mat_create_vecs(As, &xs, &ys));
  TEST_CALL(pds_vec_set_random(xs, 21));
  TEST_CALL(pds_mat_apply(As, xs, ys));
  TEST_CALL(pds_mat_scatter_dist(ctx, rank_ == 0 ? As : NULL, 1, "contiguous", &A));
  TEST_CALL(pds_mat_create_vecs(A, &x, &y));
  TEST_CALL(pds_vec_scatter_dist(x, rank_ == 0 ? xs : NULL));
  TEST_ASSERT(maxdiff(x, xs) == 0);
  TEST_CALL(pds_mat_apply(A, x, y));
  TEST_ASSERT(maxdiff(y, ys) <= 1e-13);
  pds_mat_destroy(&A);
  expect_all_fail(pds_mat_scatter_dist(ctx, NULL, 1, "contiguous", &A), "no matrix on rank 0");
  TEST_ASSERT(!A);
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xs), pds_vec_destroy(&ys), pds_mat_destroy(&As);
  free(rp), free(cj), free(v);
}

/* the ghosts of all ranks: the halo's volume of a product */
static long total_ghosts(pds_mat A) {
  pds_mat Ao;
  pds_int ng;
  long    g;

  TEST_CALL(pds_mat_dist_get_local(A, NULL, &Ao));
  TEST_CALL(pds_mat_get_size(Ao, NULL, &ng));
  g = ng;
  MPI_Allreduce(MPI_IN_PLACE, &g, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return g;
}

/* Partitioning: a 5-point 30 x 30 grid numbered at random (contiguous rows then touch rows all over the grid), written
   by rank 0, read contiguous and cut by METIS: the same CG iterations, far fewer ghosts with METIS, b read and x
   written in the file's numbering (the solutions equal the serial one) */
static void test_partition(pds_ctx ctx, pds_ctx serial) {
  const int   m = 30, n = m * m;
  char        fa[256], fb[256], fx[2][256];
  const char *parts[2] = {"contiguous", "metis"};
  long        ghosts[2] = {0, 0};
  int         its[2] = {0, 0};

  int         pid = (int)getpid();

  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD); /* one name on every rank: rank 0's */
  snprintf(fa, sizeof fa, "%s/pds_tm01_grid_%d.mtx", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", pid);
  snprintf(fb, sizeof fb, "%s.b", fa);
  for (int k = 0; k < 2; k++) snprintf(fx[k], sizeof fx[k], "%s.x%d", fa, k);
  if (rank_ == 0) { /* the scrambled grid and b = A * (random), serially */
    pds_int  *perm = malloc(sizeof *perm * n), *rows = malloc(sizeof *rows * 5 * n), *cols = malloc(sizeof *cols * 5 * n);
    pds_real *vals = malloc(sizeof *vals * 5 * n);
    pds_size  k    = 0;
    uint64_t  s    = 7;
    pds_mat   A;
    pds_vec   x, b;

    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates with a fixed LCG */
      int j, t;

      s = s * 6364136223846793005ull + 1442695040888963407ull;
      j = (int)((s >> 33) % (uint64_t)(i + 1)), t = perm[i], perm[i] = perm[j], perm[j] = t;
    }
    for (int c = 0; c < n; c++) {
      const int i = c % m, j = c / m;

      rows[k] = perm[c], cols[k] = perm[c], vals[k++] = 4.2;
      if (i > 0) rows[k] = perm[c], cols[k] = perm[c - 1], vals[k++] = -1;
      if (i < m - 1) rows[k] = perm[c], cols[k] = perm[c + 1], vals[k++] = -1;
      if (j > 0) rows[k] = perm[c], cols[k] = perm[c - m], vals[k++] = -1;
      if (j < m - 1) rows[k] = perm[c], cols[k] = perm[c + m], vals[k++] = -1;
    }
    TEST_CALL(pds_mat_create_csr_from_triplets(serial, n, n, k, rows, cols, vals, &A));
    TEST_CALL(pds_mm_write_mat(A, fa));
    TEST_CALL(pds_mat_create_vecs(A, &x, &b));
    TEST_CALL(pds_vec_set_random(x, 3));
    TEST_CALL(pds_mat_apply(A, x, b));
    TEST_CALL(pds_mm_write_vec(b, fb));
    pds_vec_destroy(&x), pds_vec_destroy(&b), pds_mat_destroy(&A);
    free(perm), free(rows), free(cols), free(vals);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < 2; k++) {
    pds_mat           A;
    pds_vec           x, b;
    pds_solver        s;
    pds_precond       P;
    pds_solver_result r;
    int               ierr = pds_mat_load_dist_partitioned(ctx, fa, 1, parts[k], &A);

    if (k == 1 && !PDS_HAVE_METIS) { /* a build without METIS says so, on every rank */
      TEST_ASSERT(ierr == PDS_ERR_UNSUPPORTED || size_ == 1);
      if (ierr) break;
    }
    TEST_CALL(ierr);
    ghosts[k] = total_ghosts(A);
    TEST_CALL(pds_mat_create_vecs(A, &x, &b));
    TEST_CALL(pds_vec_load_dist(b, fb));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_create(ctx, "cg", &s));
    TEST_CALL(pds_precond_create(ctx, "jacobi", &P));
    TEST_CALL(pds_solver_set_operator(s, A));
    TEST_CALL(pds_solver_set_precond(s, P));
    TEST_CALL(pds_solver_set_tolerances(s, 1e-12, 0, 1000));
    TEST_CALL(pds_solver_solve(s, b, x));
    TEST_CALL(pds_solver_get_result(s, &r));
    its[k] = r.iterations;
    TEST_ASSERT(r.reason > 0);
    TEST_CALL(pds_vec_write_dist(x, fx[k]));
    pds_solver_destroy(&s), pds_precond_destroy(&P), pds_vec_destroy(&x), pds_vec_destroy(&b), pds_mat_destroy(&A);
  }
  if (rank_ == 0) {
    pds_vec         x0, x1, xr;
    const pds_real *a, *c, *e;
    double          d = 0;

    printf("partition of a scrambled 30x30 grid on %d rank%s: %ld ghosts contiguous, %ld with METIS; CG %d and %d "
           "iterations\n", size_, size_ > 1 ? "s" : "", ghosts[0], ghosts[1], its[0], its[1]);
    TEST_CALL(pds_mm_read_vec(serial, fx[0], &x0));
    TEST_CALL(pds_mm_read_vec(serial, fx[1 - (!PDS_HAVE_METIS && size_ > 1)], &x1));
    TEST_CALL(pds_vec_duplicate(x0, &xr));
    TEST_CALL(pds_vec_set_random(xr, 3)); /* the exact solution */
    TEST_CALL(pds_vec_get_array_read(x0, PDS_MEM_HOST, &a));
    TEST_CALL(pds_vec_get_array_read(x1, PDS_MEM_HOST, &c));
    TEST_CALL(pds_vec_get_array_read(xr, PDS_MEM_HOST, &e));
    for (int i = 0; i < n; i++) d = fmax(d, fmax(fabs(a[i] - e[i]), fabs(c[i] - e[i])));
    TEST_ASSERT(d < 1e-9);
    TEST_CALL(pds_vec_restore_array_read(x0, &a));
    TEST_CALL(pds_vec_restore_array_read(x1, &c));
    TEST_CALL(pds_vec_restore_array_read(xr, &e));
    pds_vec_destroy(&x0), pds_vec_destroy(&x1), pds_vec_destroy(&xr);
    remove(fa), remove(fb), remove(fx[0]), remove(fx[1]);
  }
  if (PDS_HAVE_METIS && size_ > 1) {
    TEST_ASSERT(ghosts[1] * 3 < ghosts[0]); /* METIS: a fraction of the contiguous rows' ghosts */
    TEST_ASSERT(abs(its[0] - its[1]) <= 1); /* CG + Jacobi does not see a symmetric renumbering but for round-off */
  }
}

static void test_failures(pds_ctx ctx, const char *backend) {
  pds_size *rp = malloc(sizeof *rp * (NG + 1));
  pds_int  *cj = malloc(sizeof *cj * NG * 7);
  pds_real *v  = malloc(sizeof *v * NG * 7);
  const int last = size_ - 1;
  pds_mat   A = NULL;
  int       ierr;

  gen(0, rp, cj, v);
  { /* a column outside the matrix on the last rank's first row */
    const pds_int a = part(NG, rank_), b = part(NG, rank_ + 1);
    pds_size     *lrp = malloc(sizeof *lrp * (size_t)(b - a + 1));
    pds_int      *lcj = malloc(sizeof *lcj * (rp[b] - rp[a] + 1));

    for (pds_int i = a; i <= b; i++) lrp[i - a] = rp[i] - rp[a];
    memcpy(lcj, cj + rp[a], sizeof *lcj * (rp[b] - rp[a]));
    if (rank_ == last && b > a) lcj[0] = NG + 5;
    ierr = pds_mat_create_csr_dist(ctx, b - a, lrp, lcj, v + rp[a], &A);
    expect_all_fail(ierr, "a column outside the matrix");
    TEST_ASSERT(!A);
    free(lrp), free(lcj);
  }
  /* an allocation failing on the last rank during assembly, for the first few allocations */
  for (long k = 1; k <= 12; k++) {
    if (rank_ == last) pds_ctx_set_alloc_fail(ctx, k);
    {
      const pds_int a = part(NG, rank_), b = part(NG, rank_ + 1);
      pds_size     *lrp = malloc(sizeof *lrp * (size_t)(b - a + 1));

      for (pds_int i = a; i <= b; i++) lrp[i - a] = rp[i] - rp[a];
      ierr = pds_mat_create_csr_dist(ctx, b - a, lrp, cj + rp[a], v + rp[a], &A);
      free(lrp);
    }
    pds_ctx_set_alloc_fail(ctx, -1);
    if (size_ > 1 || ierr) expect_all_fail(ierr, "an allocation failing on one rank in assembly");
    pds_mat_destroy(&A);
  }
  /* an allocation failing on the last rank in a solver's setup; then a vector of the wrong length on that rank */
  A = dist_of(ctx, rp, cj, v, NG);
  {
    pds_solver  s;
    pds_precond P;
    pds_vec     x, b, bad;
    pds_size    n;

    TEST_CALL(pds_mat_create_vecs(A, &x, &b));
    TEST_CALL(pds_vec_set(b, 1.0));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_solver_create(ctx, "bicgstab", &s));
    TEST_CALL(pds_precond_create(ctx, "bjacobi", &P));
    TEST_CALL(pds_solver_set_operator(s, A));
    TEST_CALL(pds_solver_set_precond(s, P));
    if (rank_ == last) pds_ctx_set_alloc_fail(ctx, 2);
    ierr = pds_solver_solve(s, b, x);
    pds_ctx_set_alloc_fail(ctx, -1);
    expect_all_fail(ierr, "an allocation failing on one rank in a solver's setup");
    TEST_CALL(pds_vec_get_size(b, &n));
    TEST_CALL(pds_vec_create(ctx, rank_ == last ? n + 1 : n, &bad));
    TEST_CALL(pds_vec_set(bad, 1.0));
    if (size_ > 1) expect_all_fail(pds_solver_solve(s, bad, x), "a vector of the wrong length on one rank");
    TEST_CALL(pds_solver_solve(s, b, x)); /* and the solver still works */
    pds_vec_destroy(&bad);
    /* a preconditioner of one rank's matrix on the distributed one */
    pds_precond_destroy(&P);
    TEST_CALL(pds_precond_create(ctx, "ilu0", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    ierr = pds_precond_setup(P);
    expect_all_fail(ierr, "ilu0 on a distributed matrix");
    TEST_ASSERT(ierr == PDS_ERR_UNSUPPORTED && strstr(pds_ctx_get_error(ctx), "bjacobi"));
    pds_precond_destroy(&P), pds_solver_destroy(&s), pds_vec_destroy(&x), pds_vec_destroy(&b);
  }
  pds_mat_destroy(&A);
  { /* the halo's transport: an unknown name; nccl where the backend has no NCCL (every rank returns the error and the
       products keep the transport they had) */
    const char *had = pds_ctx_get_halo_transport(ctx);

    expect_all_fail(pds_ctx_set_halo_transport(ctx, "carrier-pigeon"), "an unknown halo transport");
    TEST_ASSERT(strstr(pds_ctx_get_error(ctx), "mpi or nccl"));
    /* (on /gpu/cuda NCCL may be there: its own runs, PDS_TEST_HALO=nccl, test it; not here, where a rank may be under
       compute-sanitizer, which counts the CUDA errors NCCL provokes and handles while it probes the device) */
    ierr = strcmp(backend, "/gpu/cuda") ? pds_ctx_set_halo_transport(ctx, "nccl") : PDS_OK;
    if (ierr) {
      expect_all_fail(ierr, "the nccl transport without NCCL");
      TEST_ASSERT(ierr == PDS_ERR_UNSUPPORTED && strstr(pds_ctx_get_error(ctx), "nccl"));
      TEST_ASSERT(!strcmp(pds_ctx_get_halo_transport(ctx), had));
    }
    TEST_CALL(pds_ctx_set_halo_transport(ctx, had));
  }
  { /* a file that does not exist: every rank learns of rank 0's failure */
    ierr = pds_mat_load_dist(ctx, "/nonexistent/file.mtx", 1, &A);
    expect_all_fail(ierr, "a missing file");
  }
  (void)backend;
  free(rp), free(cj), free(v);
}

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : "/cpu/ref";
  const char *file    = argc > 2 ? argv[2] : PDS_SHARED_DIR "/matrices/orsirr_1.mtx";
  pds_ctx     ctx, serial;

  mpi_test_begin(&argc, &argv, backend, &ctx, &serial);
  test_vectors(ctx, serial);
  test_products(ctx, serial, file);
  test_scatter(ctx, serial);
  test_solves(ctx, serial);
  test_partition(ctx, serial);
  test_failures(ctx, backend);
  mpi_test_end(&ctx, &serial, "tm01_dist");
  return 0;
}
