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
 *   - each bad option is PDS_ERR_ARG naming it; the random generator's diagonal dominance;
 *   - multi-block (pds_channel_generate_blocks): grid q's rows and b are bitwise the single-grid system of its size
 *     with phase q PDS_CHANNEL_PHASE_STEP, A is block diagonal by grids, grids of equal size differ unless
 *     perturb = 0; nb < 1, a bad size (naming the grid), too many rows and every allocation failure are clear
 *     errors that leave A and b NULL.
 * On a /gpu/cuda build without stencil7 kernels, generation is checked and the product's clear error. */
#include "../test.h"

static pds_channel_opts opts(int n, pds_int N, double cfl) {
  pds_channel_opts o;

  pds_channel_opts_default(&o);
  o.n = n, o.ni = o.nj = o.nk = N, o.cfl = cfl;
  return o;
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

  o.ni = 3, o.nj = 4, o.nk = 2;
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

    o.stretch = 0, o.perturb = 0, o.ni = 5, o.nk = 4, o.re = 50;
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
  C = test_mat_csr_copy(A);
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
  BAD(ni, 0, "option ni, nj, nk");
  BAD(nk, -1, "option ni, nj, nk");
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

/* Host CSR arrays and b of a generated system (the CSR handle returned for destroying). */
typedef struct {
  pds_mat         C;
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;
  pds_real       *b;
  pds_int         nr;
} host_sys;

static host_sys host_of(pds_mat A, pds_vec b) {
  host_sys        h;
  const pds_real *bv;

  h.C = test_mat_csr_copy(A);
  TEST_CALL(pds_mat_csr_get_arrays(h.C, &h.rp, &h.ci, &h.v));
  TEST_CALL(pds_mat_get_size(h.C, &h.nr, NULL));
  h.b = malloc(sizeof *h.b * (size_t)h.nr);
  TEST_ASSERT(h.b);
  TEST_CALL(pds_vec_get_array_read(b, PDS_MEM_HOST, &bv));
  memcpy(h.b, bv, sizeof *h.b * (size_t)h.nr);
  TEST_CALL(pds_vec_restore_array_read(b, &bv));
  return h;
}

static void host_free(host_sys *h) {
  TEST_CALL(pds_mat_destroy(&h->C));
  free(h->b);
}

/* Rows [off, off + g.nr) of m equal g's rows with columns shifted by off, bit for bit (and so stay in the grid). */
static int same_slice(const host_sys *m, pds_int off, const host_sys *g) {
  for (pds_int r = 0; r < g->nr; r++) {
    pds_size q0 = m->rp[off + r], len = m->rp[off + r + 1] - q0;

    if (len != g->rp[r + 1] - g->rp[r] || memcmp(&m->b[off + r], &g->b[r], sizeof *g->b)) return 0;
    for (pds_size e = 0; e < len; e++)
      if (m->ci[q0 + e] != g->ci[g->rp[r] + e] + off || memcmp(&m->v[q0 + e], &g->v[g->rp[r] + e], sizeof *g->v))
        return 0;
  }
  return 1;
}

/* Multi-block: each grid is its single-grid system (phase q PDS_CHANNEL_PHASE_STEP), the matrix block diagonal. */
static void check_blocks(pds_ctx ctx) {
  const pds_int    dims[] = {3, 4, 2, 2, 2, 2, 3, 4, 2, 1, 5, 3};
  const int        nb = 4;
  pds_channel_opts o = opts(5, 3, 10);
  pds_mat          A, G;
  pds_vec          b, bg;
  host_sys         m, g[4];
  pds_int          off = 0, I, J, K;
  int              nbA, n;

  o.phase = 0.25;
  TEST_CALL(pds_channel_generate_blocks(ctx, &o, nb, dims, &A, &b));
  TEST_ASSERT(!strcmp(pds_mat_get_type(A), "stencil7"));
  TEST_CALL(pds_mat_stencil7_get_blocks(A, &nbA));
  TEST_ASSERT(nbA == nb);
  for (int q = 0; q < nb; q++) {
    TEST_CALL(pds_mat_stencil7_get_block(A, q, &I, &J, &K, &n));
    TEST_ASSERT(I == dims[3 * q] && J == dims[3 * q + 1] && K == dims[3 * q + 2] && n == 5);
  }
  m = host_of(A, b);
  TEST_ASSERT(m.nr == (24 + 8 + 24 + 15) * 5);
  for (int q = 0; q < nb; q++) {
    pds_channel_opts og = o;

    og.ni = dims[3 * q], og.nj = dims[3 * q + 1], og.nk = dims[3 * q + 2];
    og.phase = o.phase + q * PDS_CHANNEL_PHASE_STEP;
    TEST_CALL(pds_channel_generate(ctx, &og, &G, &bg));
    g[q] = host_of(G, bg);
    TEST_ASSERT(same_slice(&m, off, &g[q])); /* its rows, its b, no column outside the grid */
    off += g[q].nr;
    TEST_CALL(pds_mat_destroy(&G));
    TEST_CALL(pds_vec_destroy(&bg));
  }
  TEST_ASSERT(off == m.nr);
  TEST_ASSERT(!same_slice(&m, 0, &g[2]) && !same_slice(&m, g[0].nr + g[1].nr, &g[0])); /* equal sizes differ */
  host_free(&m);
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
  /* without the perturbation the phase means nothing: grids 0 and 2 are the same system */
  o.perturb = 0;
  TEST_CALL(pds_channel_generate_blocks(ctx, &o, nb, dims, &A, &b));
  m = host_of(A, b);
  {
    host_sys s0 = m; /* grid 0 of this matrix, read as a system of its own */

    s0.nr = g[0].nr;
    TEST_ASSERT(same_slice(&m, g[0].nr + g[1].nr, &s0));
  }
  host_free(&m);
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
  /* one grid: pds_channel_generate itself */
  o = opts(6, 3, 10), o.ni = 2, o.nj = 3, o.nk = 4;
  TEST_CALL(pds_channel_generate_blocks(ctx, &o, 1, (const pds_int[]){2, 3, 4}, &A, &b));
  TEST_CALL(pds_channel_generate(ctx, &o, &G, &bg));
  m = host_of(A, b);
  {
    host_sys s = host_of(G, bg);

    TEST_ASSERT(m.nr == s.nr && same_slice(&m, 0, &s));
    host_free(&s);
  }
  host_free(&m);
  for (int q = 0; q < nb; q++) host_free(&g[q]);
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_mat_destroy(&G));
  TEST_CALL(pds_vec_destroy(&bg));
}

static void check_blocks_errors(pds_ctx ctx) {
  pds_channel_opts o = opts(6, 3, 10);
  pds_int          dims[6] = {2, 2, 2, 3, 0, 3};
  pds_mat          A = NULL;
  pds_vec          b = NULL;
  int              k, ierr = PDS_ERR_MEM;

#define BAD_BLOCKS(call, code, substr)                 \
  do {                                                 \
    TEST_ASSERT_ERR(ctx, call, code, substr);          \
    TEST_ASSERT(!A && !b);                             \
  } while (0)
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 0, dims, &A, &b), PDS_ERR_ARG, "nb = 0");
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, -3, dims, &A, &b), PDS_ERR_ARG, "nb = -3");
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 2, NULL, &A, &b), PDS_ERR_ARG, "NULL");
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, NULL, 2, dims, &A, &b), PDS_ERR_ARG, "NULL");
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 2, dims, &A, &b), PDS_ERR_ARG, "grid 1 of 2");
  dims[4] = 3, o.cfl = -1;
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 2, dims, &A, &b), PDS_ERR_ARG, "option cfl");
  o.cfl = 10, o.phase = NAN;
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 2, dims, &A, &b), PDS_ERR_ARG, "option phase");
  o.phase = 0, o.n = 7;
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 2, dims, &A, &b), PDS_ERR_ARG, "option n = 7");
  /* rows beyond 32-bit indices: in total (each grid fits), in one grid, and where I J K overflows 64 bits */
  o.n = 6, dims[0] = dims[1] = 1000, dims[2] = 300, dims[3] = dims[4] = 1000, dims[5] = 300;
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 2, dims, &A, &b), PDS_ERR_SIZE, "32-bit");
  dims[0] = dims[1] = dims[2] = PDS_INT_MAX;
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 1, dims, &A, &b), PDS_ERR_SIZE, "32-bit");
  BAD_BLOCKS(pds_channel_generate_blocks(ctx, &o, 2, dims, &A, &b), PDS_ERR_SIZE, "32-bit");
  o.ni = o.nj = o.nk = PDS_INT_MAX;
  BAD_BLOCKS(pds_channel_generate(ctx, &o, &A, &b), PDS_ERR_SIZE, "32-bit");
#undef BAD_BLOCKS
  /* every allocation failure: PDS_ERR_MEM, nothing made (the sanitizer build checks that nothing leaks) */
  dims[0] = 2, dims[1] = 3, dims[2] = 2, dims[3] = 1, dims[4] = 2, dims[5] = 3;
  for (k = 0; k < 1000; k++) {
    pds_ctx_set_alloc_fail(ctx, k);
    ierr = pds_channel_generate_blocks(ctx, &o, 2, dims, &A, &b);
    if (ierr != PDS_ERR_MEM) break;
    TEST_ASSERT(!A && !b && strstr(pds_ctx_get_error(ctx), "allocation"));
    pds_ctx_clear_error(ctx);
  }
  pds_ctx_set_alloc_fail(ctx, -1);
  TEST_ASSERT(ierr == PDS_OK && k > 2);
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
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
  C = test_mat_csr_copy(A);
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
  check_blocks_errors(ctx);
  if (!strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda")) { /* a build without stencil7 kernels: a clear error */
    pds_channel_opts o = opts(4, 3, 10);
    pds_mat          A;
    pds_vec          b, y;
    int              ierr;

    TEST_CALL(pds_channel_generate(ctx, &o, &A, &b));
    TEST_CALL(pds_vec_duplicate(b, &y));
    ierr = pds_mat_apply(A, b, y);
    if (ierr) TEST_ASSERT_ERR(ctx, ierr, PDS_ERR_UNSUPPORTED, "stencil7");
    TEST_CALL(pds_vec_destroy(&y));
    TEST_CALL(pds_vec_destroy(&b));
    TEST_CALL(pds_mat_destroy(&A));
    if (ierr) {
      test_finalize(&ctx);
      return 0;
    }
  }
  check_poiseuille(ctx);
  check_structure(ctx);
  check_random(ctx);
  check_blocks(ctx);
  check_solves(ctx);
  test_finalize(&ctx);
  return 0;
}
