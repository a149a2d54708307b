/* tests/disc/td09_channel.c: the channel-flow systems (src/disc/channel.c, docs/channel.md) and the random stencil7
 * generator, on the backend of argv[1]. Truths from the equations, not from the code:
 *   - A is stencil7 on the I x J x K grid with n x n blocks, b has I J K n entries;
 *   - the laminar Poiseuille flow (u = 1.5 (1 - (y-1)^2), p = 3 (lx - x) / Re) is a steady solution of the
 *     continuous equations, and the scheme (central viscous differences, exact for parabolas; linear p; the wall
 *     gradient through a quadratic) keeps it exactly on a uniform grid: R(q0) = b = 0 to rounding for n = 4, 5;
 *   - the central part of the continuity flux: in an interior cell the i+1 block's (p, u) entry is +beta S_x / 2
 *     and the i-1 block's -beta S_x / 2 (S_x = dy dz); the momentum rows see the pressure (entry (u, p) = +-S_x/2);
 *   - convection makes A nonsymmetric; every unknown's row couples to another unknown;
 *   - Richardson + bilu0 converges at CFL 1 and needs more iterations at CFL 100; GMRES + bilu0 converges at 100;
 *   - each bad option is PDS_ERR_ARG naming it; the random generator's diagonal dominance.
 * /gpu/cuda has no stencil7 kernels yet: there generation is checked and the product's clear error. */
#include "../test.h"

static pds_channel_opts opts(int n, pds_int N, double cfl) {
  pds_channel_opts o;

  pds_channel_opts_default(&o);
  o.n = n, o.I = o.J = o.K = N, o.cfl = cfl;
  return o;
}

/* Host CSR copy of a stencil7 matrix (through BSR). */
static pds_mat to_csr(pds_mat A) {
  pds_mat B, C;

  TEST_CALL(pds_mat_convert_to_bsr(A, 0, &B));
  TEST_CALL(pds_mat_convert_to_csr(B, &C));
  TEST_CALL(pds_mat_destroy(&B));
  return C;
}

static double entry(const pds_size *rp, const pds_int *ci, const pds_real *v, pds_int r, pds_int c) {
  for (pds_size q = rp[r]; q < rp[r + 1]; q++)
    if (ci[q] == c) return v[q];
  return 0;
}

static void check_sizes(pds_ctx ctx) {
  pds_channel_opts o = opts(5, 3, 10);
  pds_mat          A;
  pds_vec          b;
  pds_int          I, J, K, nr, nc;
  pds_size         nb;
  int              n;

  o.I = 3, o.J = 4, o.K = 2;
  TEST_CALL(pds_channel_generate(ctx, &o, &A, &b));
  TEST_ASSERT(!strcmp(pds_mat_get_type(A), "stencil7"));
  TEST_CALL(pds_mat_stencil7_get_grid(A, &I, &J, &K, &n));
  TEST_ASSERT(I == 3 && J == 4 && K == 2 && n == 5);
  TEST_CALL(pds_mat_get_size(A, &nr, &nc));
  TEST_ASSERT(nr == 3 * 4 * 2 * 5 && nc == nr);
  TEST_CALL(pds_vec_get_size(b, &nb));
  TEST_ASSERT(nb == (pds_size)nr);
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
}

/* Poiseuille is exact on a uniform grid without perturbation; with stretching or perturbation it is not. */
static void check_poiseuille(pds_ctx ctx) {
  for (int n = 4; n <= 6; n++) {
    pds_channel_opts o = opts(n, 6, 10);
    pds_mat          A;
    pds_vec          b;
    pds_real         nrm;

    o.stretch = 0, o.perturb = 0, o.I = 5, o.K = 4, o.re = 50;
    TEST_CALL(pds_channel_generate(ctx, &o, &A, &b));
    TEST_CALL(pds_vec_norm_inf(b, &nrm));
    if (n < 6) TEST_ASSERT(nrm <= 1e-13);
    else TEST_ASSERT(nrm > 1e-3); /* the k, omega model sources do not vanish */
    TEST_CALL(pds_mat_destroy(&A));
    TEST_CALL(pds_vec_destroy(&b));
    if (n == 4) {
      o.stretch = 1.5;
      TEST_CALL(pds_channel_generate(ctx, &o, &A, &b));
      TEST_CALL(pds_vec_norm_inf(b, &nrm));
      TEST_ASSERT(nrm > 1e-8);
      TEST_CALL(pds_mat_destroy(&A));
      TEST_CALL(pds_vec_destroy(&b));
    }
  }
}

/* Entries against the continuous operator, nonsymmetry, coupling (CPU backends: host CSR). */
static void check_structure(pds_ctx ctx) {
  pds_channel_opts o = opts(6, 5, 10);
  pds_mat          A, C;
  pds_vec          b;
  const pds_size  *rp;
  const pds_int   *ci;
  const pds_real  *v;
  int              n = 6;
  pds_int          I = 5, J = 5, K = 5, nr;
  double           dx = o.lx / I, dy = 2.0 / J, dz = o.lz / K, Sx = dy * dz, asym = 0, amax = 0;

  o.stretch = 0, o.beta = 2.5;
  TEST_CALL(pds_channel_generate(ctx, &o, &A, &b));
  C = to_csr(A);
  TEST_CALL(pds_mat_csr_get_arrays(C, &rp, &ci, &v));
  TEST_CALL(pds_mat_get_size(C, &nr, NULL));
  {
    pds_int p = (2 * J + 2) * K + 2, pe = p + J * K, pw = p - J * K, r = p * n;

    TEST_ASSERT_NEAR(entry(rp, ci, v, r, pe * n + 1), 0.5 * o.beta * Sx, 1e-12, 0);
    TEST_ASSERT_NEAR(entry(rp, ci, v, r, pw * n + 1), -0.5 * o.beta * Sx, 1e-12, 0);
    TEST_ASSERT_NEAR(entry(rp, ci, v, r + 1, pe * n), 0.5 * Sx, 1e-12, 0);
    TEST_ASSERT_NEAR(entry(rp, ci, v, r + 1, pw * n), -0.5 * Sx, 1e-12, 0);
    TEST_ASSERT(entry(rp, ci, v, r, pe * n + 2) == 0); /* continuity: x face sees u only */
    (void)dx;
    for (int u = 0; u < n; u++) { /* every row couples to another unknown of the cell or a neighbour */
      int off = 0;

      for (pds_size q = rp[r + u]; q < rp[r + u + 1]; q++) off |= ci[q] % n != u && v[q] != 0;
      TEST_ASSERT(off);
    }
  }
  for (pds_int r = 0; r < nr; r++)
    for (pds_size q = rp[r]; q < rp[r + 1]; q++) {
      asym = fmax(asym, fabs(v[q] - entry(rp, ci, v, ci[q], r)));
      amax = fmax(amax, fabs(v[q]));
    }
  TEST_ASSERT(asym > 0.1 * amax);
  TEST_CALL(pds_mat_destroy(&C));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
}

static int solve(pds_ctx ctx, const char *method, int n, pds_int N, double cfl, int maxit, int *its) {
  pds_channel_opts  o = opts(n, N, cfl);
  pds_mat           A;
  pds_vec           b, x;
  pds_solver        s;
  pds_precond       P;
  pds_solver_result res;

  TEST_CALL(pds_channel_generate(ctx, &o, &A, &b));
  TEST_CALL(pds_vec_duplicate(b, &x));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, method, &s));
  TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-8, 0.0, maxit));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &res));
  *its = res.iterations;
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_precond_destroy(&P));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_mat_destroy(&A));
  return res.reason > 0;
}

static void check_solves(pds_ctx ctx) {
  int it1, it100, itg;

  TEST_ASSERT(solve(ctx, "richardson", 6, 8, 1, 500, &it1));
  TEST_ASSERT(!solve(ctx, "richardson", 6, 8, 100, it1, &it100) || it100 > it1);
  TEST_ASSERT(solve(ctx, "gmres", 6, 8, 100, 500, &itg));
  TEST_ASSERT(solve(ctx, "richardson", 4, 6, 1, 500, &it1));
}

static void check_errors(pds_ctx ctx) {
  pds_channel_opts o;
  pds_mat          A = NULL;
  pds_vec          b = NULL;

#define BAD(field, value, substr)                                                                  \
  do {                                                                                             \
    o = opts(6, 4, 10), o.field = value;                                                           \
    TEST_ASSERT_ERR(ctx, pds_channel_generate(ctx, &o, &A, &b), PDS_ERR_ARG, substr);              \
    TEST_ASSERT(!A && !b);                                                                         \
  } while (0)
  BAD(n, 3, "option n = 3");
  BAD(n, 7, "option n = 7");
  BAD(I, 0, "option I, J, K");
  BAD(K, -1, "option I, J, K");
  BAD(cfl, 0, "option cfl");
  BAD(cfl, -1, "option cfl");
  BAD(re, 0, "option re");
  BAD(stretch, -0.5, "option stretch");
  BAD(beta, 0, "option beta");
  BAD(lx, 0, "option lx");
  BAD(perturb, -1, "option perturb");
#undef BAD
  o = opts(6, 4, 10);
  TEST_ASSERT_ERR(ctx, pds_channel_generate(ctx, NULL, &A, &b), PDS_ERR_ARG, "NULL");
  TEST_ASSERT_ERR(ctx, pds_channel_generate(ctx, &o, NULL, &b), PDS_ERR_ARG, "NULL");
  TEST_ASSERT_ERR(ctx, pds_stencil7_random(ctx, 2, 2, 2, 9, 2.0, 1, &A), PDS_ERR_ARG, "n = 9");
  TEST_ASSERT_ERR(ctx, pds_stencil7_random(ctx, 2, 2, 2, 3, 0.0, 1, &A), PDS_ERR_ARG, "dominance");
}

/* Random stencil7: diagonal dominance row by row, zero blocks out of the grid, reproducible. */
static void check_random(pds_ctx ctx) {
  pds_mat         A, A2, C;
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;
  pds_int         nr;
  pds_real        nb[2];
  pds_vec         x, y;

  TEST_CALL(pds_stencil7_random(ctx, 3, 4, 2, 3, 1.5, 7, &A));
  C = to_csr(A);
  TEST_CALL(pds_mat_csr_get_arrays(C, &rp, &ci, &v));
  TEST_CALL(pds_mat_get_size(C, &nr, NULL));
  for (pds_int r = 0; r < nr; r++) {
    double d = 0, off = 0;

    for (pds_size q = rp[r]; q < rp[r + 1]; q++)
      if (ci[q] == r) d = fabs(v[q]);
      else off += fabs(v[q]);
    TEST_ASSERT_NEAR(d, 1.5 * off, 1e-14, 0);
  }
  TEST_CALL(pds_stencil7_random(ctx, 3, 4, 2, 3, 1.5, 7, &A2));
  TEST_CALL(pds_vec_create(ctx, (pds_size)nr, &x));
  TEST_CALL(pds_vec_duplicate(x, &y));
  TEST_CALL(pds_vec_set_random(x, 3));
  TEST_CALL(pds_mat_apply(A, x, y));
  TEST_CALL(pds_vec_norm2(y, &nb[0]));
  TEST_CALL(pds_mat_apply(A2, x, y));
  TEST_CALL(pds_vec_norm2(y, &nb[1]));
  TEST_ASSERT(nb[0] == nb[1]);
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&y));
  TEST_CALL(pds_mat_destroy(&C));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_mat_destroy(&A2));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  check_sizes(ctx);
  check_errors(ctx);
  if (!strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda")) { /* no stencil7 kernels there yet: a clear error */
    pds_channel_opts o = opts(4, 3, 10);
    pds_mat          A;
    pds_vec          b, y;

    TEST_CALL(pds_channel_generate(ctx, &o, &A, &b));
    TEST_CALL(pds_vec_duplicate(b, &y));
    TEST_ASSERT_ERR(ctx, pds_mat_apply(A, b, y), PDS_ERR_UNSUPPORTED, "stencil7");
    TEST_CALL(pds_vec_destroy(&y));
    TEST_CALL(pds_vec_destroy(&b));
    TEST_CALL(pds_mat_destroy(&A));
    test_finalize(&ctx);
    return 0;
  }
  check_poiseuille(ctx);
  check_structure(ctx);
  check_random(ctx);
  check_solves(ctx);
  test_finalize(&ctx);
  return 0;
}
