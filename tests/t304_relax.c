/* tests/t304_relax.c: block relaxation relax (paper 002) on patch sets, on the backend of argv[1]:
 * - M^-1 x of block Jacobi (omega 1, one sweep) against the test's own solve of every block's matrix, built here from
 *   the stencil and the patch boxes (Dirichlet reflection where no patch owns the neighbour, couplings leaving the
 *   block dropped) and solved by Gaussian elimination with partial pivoting; mixed patch sizes, sizes that are not
 *   multiples of the block, faces partly covered by other patches, a nonsymmetric stencil (a transposed inverse
 *   would show) and the Laplacian; blocks (2,2,2), (4,2,2), (3,5,1), and (8,8,8) on one 8^3 patch; the counts of
 *   blocks, distinct block matrices and colours;
 * - jacobi and multicolor (symmetric or not) bitwise the same on repeated applications, the preconditioner (u = 0
 *   known) the same as pds_precond_relax_smooth from u = 0, and a preconditioner set up again after its type, block,
 *   sweeps, omega and variant changed the same as a fresh one;
 * - the backend against a /cpu/ref context on 27 patches of sizes 6 and 5, every variant the backend knows: /cpu/omp
 *   bitwise for jacobi and multicolor (with its AVX2 products and with SSE2's, PDS_OMP_AVX2=0), /gpu/cuda to 1e-12;
 * - chaotic sweeps reduce the residual to 1e-8 and reach CG's solution (on the 4 patches, and on the 27, where
 *   /cpu/omp runs the blocks in parallel);
 * - CG + jacobi, CG + symmetric multicolor, FGMRES + chaotic and Richardson + relax (jacobi, multicolor) converge;
 * - bad input: a non-patches operator, block edges 0 and 9, a block larger than a patch, omega out of (0, 2),
 *   sweeps 0, an unknown type or variant, a singular block matrix (PDS_ERR_ZERO_PIVOT naming the block), smoothing
 *   before setup or with wrong sizes; every allocation of setup and application failing in turn (PDS_ERR_MEM,
 *   nothing leaked); the view. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test.h"

static unsigned long long g_seed = 88172645463325252ull;
static double             rnd(void) { /* [-1, 1) */
  g_seed ^= g_seed << 13, g_seed ^= g_seed >> 7, g_seed ^= g_seed << 17;
  return 2.0 * (double)(g_seed >> 11) * 0x1.0p-53 - 1.0;
}

#define MAXP 64
struct pset {
  int       np;
  pds_patch p[MAXP];
};

/* four patches of mixed sizes: q1 and q2 touch q0 on faces of other sizes, q3 lies on top of them covering parts of
   their z+ faces and overhanging, so some block faces are partly Dirichlet */
static const struct pset S1 = {4,
                               {{{0, 0, 0}, {6, 5, 5}},
                                {{6, 0, 0}, {4, 7, 5}},
                                {{0, 5, 0}, {6, 5, 5}},
                                {{1, 0, 5}, {7, 9, 6}}}};
static const struct pset S8 = {1, {{{0, 0, 0}, {8, 8, 8}}}};

static const double LAP[7]  = {6, -1, -1, -1, -1, -1, -1};
static const double NSYM[7] = {7.0, -1.2, -0.8, -1.1, -0.9, -0.5, -1.5};

static pds_size cells(const struct pset *S) {
  pds_size n = 0;

  for (int q = 0; q < S->np; q++) n += (pds_size)S->p[q].n[0] * S->p[q].n[1] * S->p[q].n[2];
  return n;
}

/* 27 patches of sizes 6 and 5 tiling 16^3 */
static struct pset tile16(void) {
  struct pset     S;
  const pds_int   n[3] = {16, 16, 16}, sz[2] = {6, 5};

  S.np = MAXP;
  TEST_CALL(pds_patches_tile_box(n, 2, sz, &S.np, S.p));
  TEST_ASSERT(S.np == 27);
  return S;
}

static pds_mat mk(pds_ctx ctx, const struct pset *S, const double c[7]) {
  pds_mat A;

  TEST_CALL(pds_mat_create_patches(ctx, S->np, S->p, c, &A));
  return A;
}

static pds_vec vec_of(pds_ctx ctx, const double *h, pds_size n) {
  pds_vec x;

  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_set_values(x, h, PDS_MEM_HOST));
  return x;
}

static double *rand_array(pds_size n) {
  double *h = malloc(sizeof *h * (size_t)n);

  TEST_ASSERT(h);
  for (pds_size i = 0; i < n; i++) h[i] = rnd();
  return h;
}

struct cfg {
  pds_relax_type type;
  int            b[3];
  double         omega;
  int            sweeps, symmetric;
  const char    *variant;
};

static pds_precond mkpc(pds_ctx ctx, pds_mat A, const struct cfg *c) {
  pds_precond pc;

  TEST_CALL(pds_precond_create(ctx, "relax", &pc));
  TEST_CALL(pds_precond_relax_set_type(pc, c->type));
  TEST_CALL(pds_precond_relax_set_block(pc, c->b[0], c->b[1], c->b[2]));
  TEST_CALL(pds_precond_relax_set_omega(pc, c->omega));
  TEST_CALL(pds_precond_relax_set_sweeps(pc, c->sweeps));
  TEST_CALL(pds_precond_relax_set_symmetric(pc, c->symmetric));
  if (c->variant) TEST_CALL(pds_precond_relax_set_variant(pc, c->variant));
  TEST_CALL(pds_precond_set_operator(pc, A));
  TEST_CALL(pds_precond_setup(pc));
  return pc;
}

/* M^-1 x as a host array */
static double *apply_pc(pds_precond pc, pds_ctx ctx, const double *x, pds_size n) {
  pds_vec xv = vec_of(ctx, x, n), yv;
  double *y;

  TEST_CALL(pds_vec_create(ctx, n, &yv));
  TEST_CALL(pds_vec_set(yv, 123.0)); /* apply must not read it */
  TEST_CALL(pds_precond_apply(pc, xv, yv));
  y = test_vec_values(yv);
  pds_vec_destroy(&xv), pds_vec_destroy(&yv);
  return y;
}

/* ---- the test's own block Jacobi ------------------------------------------------------------------------ */

static int owned(const struct pset *S, int X, int Y, int Z) {
  for (int q = 0; q < S->np; q++) {
    const pds_patch *p = &S->p[q];

    if (X >= p->lo[0] && X < p->lo[0] + p->n[0] && Y >= p->lo[1] && Y < p->lo[1] + p->n[1] && Z >= p->lo[2] &&
        Z < p->lo[2] + p->n[2])
      return 1;
  }
  return 0;
}

/* solve A y = r in place (r becomes y) by Gaussian elimination with partial pivoting; A row-major m x m, destroyed */
static void gauss(int m, double *A, double *r) {
  for (int k = 0; k < m; k++) {
    int piv = k;

    for (int i = k + 1; i < m; i++)
      if (fabs(A[(size_t)i * m + k]) > fabs(A[(size_t)piv * m + k])) piv = i;
    TEST_ASSERT(A[(size_t)piv * m + k] != 0);
    if (piv != k) {
      for (int j = 0; j < m; j++) {
        double t = A[(size_t)k * m + j];

        A[(size_t)k * m + j] = A[(size_t)piv * m + j], A[(size_t)piv * m + j] = t;
      }
      double t = r[k];

      r[k] = r[piv], r[piv] = t;
    }
    for (int i = k + 1; i < m; i++) {
      const double l = A[(size_t)i * m + k] / A[(size_t)k * m + k];

      if (l == 0) continue;
      for (int j = k; j < m; j++) A[(size_t)i * m + j] -= l * A[(size_t)k * m + j];
      r[i] -= l * r[k];
    }
  }
  for (int i = m - 1; i >= 0; i--) {
    double s = r[i];

    for (int j = i + 1; j < m; j++) s -= A[(size_t)i * m + j] * r[j];
    r[i] = s / A[(size_t)i * m + i];
  }
}

/* y = blockdiag(A_b)^-1 x with the blocks cut from each patch's origin; returns the number of blocks */
static int block_jacobi_test(const struct pset *S, const double c[7], const int b[3], const double *x, double *y) {
  static const int d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
  pds_size         first = 0;
  int              nblocks = 0;

  for (int q = 0; q < S->np; q++) {
    const pds_patch *P = &S->p[q];

    for (int ok = 0; ok < P->n[2]; ok += b[2])
      for (int oj = 0; oj < P->n[1]; oj += b[1])
        for (int oi = 0; oi < P->n[0]; oi += b[0]) {
          const int o[3] = {oi, oj, ok};
          int       s[3], m;
          double   *A, *r;
          pds_size *idx;

          for (int e = 0; e < 3; e++) s[e] = P->n[e] - o[e] < b[e] ? P->n[e] - o[e] : b[e];
          m   = s[0] * s[1] * s[2];
          A   = calloc((size_t)m * m, sizeof *A);
          r   = malloc(sizeof *r * (size_t)m);
          idx = malloc(sizeof *idx * (size_t)m);
          TEST_ASSERT(A && r && idx);
          for (int lk = 0, l = 0; lk < s[2]; lk++)
            for (int lj = 0; lj < s[1]; lj++)
              for (int li = 0; li < s[0]; li++, l++) {
                const int loc[3] = {li, lj, lk};
                const int i = oi + li, j = oj + lj, k = ok + lk;

                idx[l] = first + ((pds_size)k * P->n[1] + j) * P->n[0] + i;
                r[l]   = x[idx[l]];
                A[(size_t)l * m + l] += c[0];
                for (int f = 0; f < 6; f++) {
                  const int nl[3] = {loc[0] + d[f][0], loc[1] + d[f][1], loc[2] + d[f][2]};

                  if (nl[0] >= 0 && nl[0] < s[0] && nl[1] >= 0 && nl[1] < s[1] && nl[2] >= 0 && nl[2] < s[2])
                    A[(size_t)l * m + (nl[2] * s[1] + nl[1]) * s[0] + nl[0]] += c[1 + f];
                  else if (!owned(S, P->lo[0] + i + d[f][0], P->lo[1] + j + d[f][1], P->lo[2] + k + d[f][2]))
                    A[(size_t)l * m + l] -= c[1 + f]; /* ghost = -u */
                }
              }
          gauss(m, A, r);
          for (int l = 0; l < m; l++) y[idx[l]] = r[l];
          free(A), free(r), free(idx);
          nblocks++;
        }
    first += (pds_size)P->n[0] * P->n[1] * P->n[2];
  }
  return nblocks;
}

static double max_abs(const double *a, pds_size n) {
  double m = 0;

  for (pds_size i = 0; i < n; i++) m = fabs(a[i]) > m ? fabs(a[i]) : m;
  return m;
}

static void check_close(const double *y, const double *want, pds_size n, double tol, const char *what) {
  const double scale = max_abs(want, n);

  for (pds_size i = 0; i < n; i++)
    if (!(fabs(y[i] - want[i]) <= tol * scale))
      TEST_FAIL("%s: entry %" PDS_SIZE_FMT " is %.17g, expected %.17g (tolerance %g of %g)", what, i, y[i], want[i],
                tol, scale);
}

static void check_bits(const double *y, const double *want, pds_size n, const char *what) {
  if (memcmp(y, want, sizeof *y * (size_t)n)) {
    pds_size i = 0;

    while (!memcmp(&y[i], &want[i], sizeof *y)) i++;
    TEST_FAIL("%s: entry %" PDS_SIZE_FMT " is %.17g, expected bitwise %.17g", what, i, y[i], want[i]);
  }
}

/* block Jacobi's M^-1 x against the test's own block solves */
static void test_inverse(pds_ctx ctx) {
  static const int   blocks[3][3] = {{2, 2, 2}, {4, 2, 2}, {3, 5, 1}};
  const double      *stencils[2]  = {NSYM, LAP};
  const pds_size     n = cells(&S1);
  double            *x = rand_array(n), *want = malloc(sizeof *want * (size_t)n);
  char               what[96];

  TEST_ASSERT(want);
  for (int s = 0; s < 2; s++) {
    pds_mat A = mk(ctx, &S1, stencils[s]);

    for (int bi = 0; bi < 3; bi++) {
      const struct cfg c = {PDS_RELAX_JACOBI, {blocks[bi][0], blocks[bi][1], blocks[bi][2]}, 1.0, 1, 1, NULL};
      pds_precond      pc = mkpc(ctx, A, &c);
      const int        nb = block_jacobi_test(&S1, stencils[s], c.b, x, want);
      double          *y  = apply_pc(pc, ctx, x, n);
      int              ntypes, ncolors;
      pds_int          nblocks;

      snprintf(what, sizeof what, "block Jacobi, stencil %d, block %d x %d x %d", s, c.b[0], c.b[1], c.b[2]);
      check_close(y, want, n, 1e-12, what);
      TEST_CALL(pds_precond_relax_get_info(pc, &ntypes, &ncolors, &nblocks));
      TEST_ASSERT(nblocks == nb && ncolors == 1 && ntypes >= 8 && ntypes <= nb);
      free(y);
      pds_precond_destroy(&pc);
    }
    pds_mat_destroy(&A);
  }
  free(x), free(want);
  { /* one 8^3 patch, one 8^3 block: one 512 x 512 inverse */
    const pds_size   n8 = cells(&S8);
    const struct cfg c  = {PDS_RELAX_JACOBI, {8, 8, 8}, 1.0, 1, 1, NULL};
    pds_mat          A  = mk(ctx, &S8, NSYM);
    pds_precond      pc = mkpc(ctx, A, &c);
    double          *x8 = rand_array(n8), *w8 = malloc(sizeof *w8 * (size_t)n8), *y;
    int              ntypes, ncolors;
    pds_int          nblocks;

    TEST_ASSERT(w8);
    TEST_ASSERT(block_jacobi_test(&S8, NSYM, c.b, x8, w8) == 1);
    y = apply_pc(pc, ctx, x8, n8);
    check_close(y, w8, n8, 1e-12, "block Jacobi, one 8^3 block");
    TEST_CALL(pds_precond_relax_get_info(pc, &ntypes, &ncolors, &nblocks));
    TEST_ASSERT(ntypes == 1 && ncolors == 1 && nblocks == 1);
    free(y), free(x8), free(w8);
    pds_precond_destroy(&pc);
    /* 4^3 blocks of the 8^3 patch: 8 corner blocks, each its own matrix; red-black colours for multicolor */
    {
      const struct cfg m = {PDS_RELAX_MULTICOLOR, {4, 4, 4}, 0, 1, 1, NULL};

      pc = mkpc(ctx, A, &m);
      TEST_CALL(pds_precond_relax_get_info(pc, &ntypes, &ncolors, &nblocks));
      TEST_ASSERT(ntypes == 8 && ncolors == 2 && nblocks == 8);
      pds_precond_destroy(&pc);
    }
    pds_mat_destroy(&A);
  }
  { /* a 16 x 10 x 8 patch with 4^3 blocks: first, two middle and last in x (the middle ones one matrix), first,
       middle and last (2 cells) in y, first and last in z: 24 blocks, 18 matrices */
    const struct pset S = {1, {{{3, 2, 5}, {16, 10, 8}}}};
    const struct cfg  c = {PDS_RELAX_CHAOTIC, {4, 4, 4}, 0, 1, 1, NULL};
    pds_mat           A = mk(ctx, &S, LAP);
    pds_precond       pc = mkpc(ctx, A, &c);
    int               ntypes, ncolors;
    pds_int           nblocks;

    TEST_CALL(pds_precond_relax_get_info(pc, &ntypes, &ncolors, &nblocks));
    TEST_ASSERT(ntypes == 18 && ncolors == 1 && nblocks == 24);
    pds_precond_destroy(&pc);
    pds_mat_destroy(&A);
  }
}

/* the variants a backend knows (the first is auto) */
static int backend_variants(pds_ctx ctx, const char *const **v) {
  static const char *const omp[]  = {"auto", "patch", "block", "nested"};
  static const char *const cuda[] = {"auto", "gemm", "mapc"};
  static const char *const ref[]  = {"auto"};
  const char              *b      = pds_ctx_get_backend(ctx);

  if (!strcmp(b, "/cpu/omp")) return *v = omp, 4;
  if (!strncmp(b, "/gpu/cuda", 9)) return *v = cuda, 3;
  return *v = ref, 1;
}

/* repeated applications give the same bits; the preconditioner is the smoother from u = 0; a preconditioner set up
   again after changes gives a fresh one's bits */
static void test_repeat(pds_ctx ctx) {
  const struct pset S = tile16();
  const pds_size    n = cells(&S);
  pds_mat           A = mk(ctx, &S, NSYM);
  double           *x = rand_array(n);
  const struct cfg  cs[4] = {{PDS_RELAX_JACOBI, {4, 4, 4}, 0, 2, 1, NULL},
                             {PDS_RELAX_MULTICOLOR, {2, 2, 2}, 0, 2, 1, NULL},
                             {PDS_RELAX_MULTICOLOR, {3, 5, 1}, 0.9, 1, 0, NULL},
                             {PDS_RELAX_JACOBI, {4, 2, 2}, 0.7, 3, 1, NULL}};

  for (int i = 0; i < 4; i++) {
    pds_precond pc = mkpc(ctx, A, &cs[i]);
    double     *y1 = apply_pc(pc, ctx, x, n), *y2 = apply_pc(pc, ctx, x, n), *y3;
    pds_vec     f = vec_of(ctx, x, n), u;

    check_bits(y2, y1, n, "a second application");
    TEST_CALL(pds_vec_duplicate(f, &u));
    TEST_CALL(pds_vec_set(u, 0));
    TEST_CALL(pds_precond_relax_smooth(pc, f, u, cs[i].sweeps));
    y3 = test_vec_values(u);
    check_close(y3, y1, n, 1e-15, "smoothing from u = 0 against the preconditioner");
    free(y1), free(y2), free(y3);
    pds_vec_destroy(&f), pds_vec_destroy(&u);
    pds_precond_destroy(&pc);
  }
  { /* one preconditioner set up again after its type, block and variant change: a fresh one's bits */
    pds_precond pc = mkpc(ctx, A, &cs[0]), fresh = mkpc(ctx, A, &cs[1]);
    const char *const *var;
    const int          nv = backend_variants(ctx, &var);
    double            *y0, *y1;

    TEST_CALL(pds_precond_relax_set_type(pc, PDS_RELAX_MULTICOLOR));
    TEST_CALL(pds_precond_relax_set_block(pc, 2, 2, 2));
    TEST_CALL(pds_precond_relax_set_sweeps(pc, 2));
    TEST_CALL(pds_precond_relax_set_omega(pc, 0));
    TEST_CALL(pds_precond_relax_set_variant(pc, var[nv - 1]));
    TEST_CALL(pds_precond_setup(pc));
    y0 = apply_pc(pc, ctx, x, n), y1 = apply_pc(fresh, ctx, x, n);
    if (!strncmp(pds_ctx_get_backend(ctx), "/cpu/", 5)) check_bits(y0, y1, n, "set up again after changes");
    else check_close(y0, y1, n, 1e-12, "set up again after changes"); /* another variant's sums */
    free(y0), free(y1);
    pds_precond_destroy(&pc), pds_precond_destroy(&fresh);
  }
  free(x);
  pds_mat_destroy(&A);
}

/* the backend against /cpu/ref: jacobi and multicolor bitwise on /cpu/omp, to 1e-12 on a GPU */
static void test_vs_ref(pds_ctx ctx) {
  const struct pset   S = tile16();
  const pds_size      n = cells(&S);
  const int           cpu = !strncmp(pds_ctx_get_backend(ctx), "/cpu/", 5);
  const char *const  *var;
  const int           nv = backend_variants(ctx, &var);
  pds_ctx             r;
  pds_mat             A, Ar;
  double             *x = rand_array(n);
  const struct cfg    cs[5] = {{PDS_RELAX_JACOBI, {2, 2, 2}, 0, 2, 1, NULL},
                               {PDS_RELAX_JACOBI, {4, 4, 4}, 0, 1, 1, NULL},
                               {PDS_RELAX_MULTICOLOR, {4, 4, 4}, 0, 2, 1, NULL},
                               {PDS_RELAX_MULTICOLOR, {3, 5, 1}, 1.2, 1, 0, NULL},
                               {PDS_RELAX_MULTICOLOR, {2, 2, 2}, 0, 1, 1, NULL}};
  char                what[128];

  TEST_CALL(pds_ctx_create("/cpu/ref", &r));
  A = mk(ctx, &S, NSYM), Ar = mk(r, &S, NSYM);
  for (int i = 0; i < 5; i++) {
    pds_precond pr   = mkpc(r, Ar, &cs[i]);
    double     *want = apply_pc(pr, r, x, n);

    for (int simd = 0; simd < (cpu ? 2 : 1); simd++) { /* /cpu/omp: its AVX2 products, then SSE2's */
      if (simd) setenv("PDS_OMP_AVX2", "0", 1);
      for (int v = 0; v < nv; v++) {
        struct cfg  c  = cs[i];
        pds_precond pc;
        double     *y;

        c.variant = var[v];
        pc        = mkpc(ctx, A, &c);
        y         = apply_pc(pc, ctx, x, n);
        snprintf(what, sizeof what, "%s, type %d, block %d x %d x %d, variant %s%s against /cpu/ref",
                 pds_ctx_get_backend(ctx), (int)c.type, c.b[0], c.b[1], c.b[2], var[v], simd ? " (SSE2)" : "");
        if (cpu) check_bits(y, want, n, what);
        else check_close(y, want, n, 1e-12, what);
        free(y);
        pds_precond_destroy(&pc);
      }
      if (simd) unsetenv("PDS_OMP_AVX2");
    }
    free(want);
    pds_precond_destroy(&pr);
  }
  { /* chaotic: every variant runs and reduces the residual like /cpu/ref's block Gauss-Seidel */
    const struct cfg cc = {PDS_RELAX_CHAOTIC, {4, 4, 4}, 0, 3, 1, NULL};
    pds_vec          b  = vec_of(ctx, x, n), y;

    TEST_CALL(pds_vec_duplicate(b, &y));
    for (int v = 0; v < nv; v++) {
      struct cfg  c = cc;
      pds_precond pc;

      c.variant = var[v];
      pc        = mkpc(ctx, A, &c);
      TEST_CALL(pds_precond_apply(pc, b, y));
      TEST_ASSERT(test_true_relres(A, b, y) < 0.2);
      pds_precond_destroy(&pc);
    }
    pds_vec_destroy(&b), pds_vec_destroy(&y);
  }
  free(x);
  pds_mat_destroy(&A), pds_mat_destroy(&Ar);
  TEST_CALL(pds_ctx_destroy(&r));
}

static pds_solver mksolver(pds_ctx ctx, const char *type, pds_mat A, pds_precond pc, double rtol, int maxit) {
  pds_solver s;

  TEST_CALL(pds_solver_create(ctx, type, &s));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, pc));
  TEST_CALL(pds_solver_set_tolerances(s, rtol, 0, maxit));
  return s;
}

/* x solving A x = b to rtol with s; returns the iterations */
static int solve(pds_solver s, pds_mat A, pds_vec b, pds_vec x, double rtol, const char *what) {
  pds_solver_result res;

  TEST_CALL(pds_vec_set(x, 0));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &res));
  if (res.reason <= 0)
    TEST_FAIL("%s: no convergence (reason %d after %d iterations)", what, res.reason, res.iterations);
  if (!(test_true_relres(A, b, x) <= 10 * rtol)) TEST_FAIL("%s: true residual %g", what, test_true_relres(A, b, x));
  return res.iterations;
}

/* chaotic sweeps converge to CG's solution (on 27 patches with 4^3 blocks /cpu/omp runs them in parallel) */
static void test_chaotic(pds_ctx ctx, const struct pset *S, int b) {
  const pds_size   n = cells(S);
  pds_mat          A = mk(ctx, S, LAP);
  double          *h = rand_array(n), *xs, *xc;
  pds_vec          f = vec_of(ctx, h, n), u, x;
  const struct cfg c = {PDS_RELAX_CHAOTIC, {b, b, b}, 0, 1, 1, NULL};
  pds_precond      pc = mkpc(ctx, A, &c);
  pds_solver       s  = mksolver(ctx, "cg", A, NULL, 1e-12, 1000);
  int              k  = 0;

  TEST_CALL(pds_vec_duplicate(f, &u));
  TEST_CALL(pds_vec_duplicate(f, &x));
  TEST_CALL(pds_vec_set(u, 0));
  while (test_true_relres(A, f, u) > 1e-8 && k < 2000) {
    TEST_CALL(pds_precond_relax_smooth(pc, f, u, 10));
    k += 10;
  }
  if (test_true_relres(A, f, u) > 1e-8) TEST_FAIL("chaotic: residual %g after %d sweeps", test_true_relres(A, f, u), k);
  solve(s, A, f, x, 1e-12, "cg");
  xs = test_vec_values(u), xc = test_vec_values(x);
  check_close(xs, xc, n, 1e-6, "chaotic sweeps against CG");
  free(h), free(xs), free(xc);
  pds_vec_destroy(&f), pds_vec_destroy(&u), pds_vec_destroy(&x);
  pds_solver_destroy(&s);
  pds_precond_destroy(&pc);
  pds_mat_destroy(&A);
}

/* relax as a preconditioner (fewer iterations than CG alone) and as the stationary solver */
static void test_solvers(pds_ctx ctx) {
  const struct pset S = tile16();
  struct {
    const struct pset *S;
    const char        *solver;
    struct cfg         c;
    int                maxit;
  } cases[5] = {{&S, "cg", {PDS_RELAX_JACOBI, {4, 4, 4}, 0, 1, 1, NULL}, 200},
                {&S, "cg", {PDS_RELAX_MULTICOLOR, {4, 4, 4}, 0, 1, 1, NULL}, 200},
                {&S, "fgmres", {PDS_RELAX_CHAOTIC, {4, 4, 4}, 0, 1, 1, NULL}, 200},
                {&S1, "richardson", {PDS_RELAX_JACOBI, {4, 2, 2}, 0, 1, 1, NULL}, 2000},
                {&S1, "richardson", {PDS_RELAX_MULTICOLOR, {3, 5, 1}, 0, 2, 0, NULL}, 2000}};
  char              what[96];

  for (int i = 0; i < 5; i++) {
    const pds_size n = cells(cases[i].S);
    pds_mat        A = mk(ctx, cases[i].S, LAP);
    double        *h = rand_array(n);
    pds_vec        b = vec_of(ctx, h, n), x;
    pds_precond    pc = mkpc(ctx, A, &cases[i].c);
    pds_solver     s  = mksolver(ctx, cases[i].solver, A, pc, 1e-8, cases[i].maxit);
    pds_solver     s0 = mksolver(ctx, "cg", A, NULL, 1e-8, 2000);
    int            it, plain;

    TEST_CALL(pds_vec_duplicate(b, &x));
    snprintf(what, sizeof what, "%s + relax type %d", cases[i].solver, (int)cases[i].c.type);
    it    = solve(s, A, b, x, 1e-8, what);
    plain = solve(s0, A, b, x, 1e-8, "cg alone");
    if (strcmp(cases[i].solver, "richardson") && it >= plain)
      TEST_FAIL("%s: %d iterations, CG alone %d", what, it, plain);
    free(h);
    pds_vec_destroy(&b), pds_vec_destroy(&x);
    pds_solver_destroy(&s), pds_solver_destroy(&s0);
    pds_precond_destroy(&pc);
    pds_mat_destroy(&A);
  }
}

static void test_errors(pds_ctx ctx) {
  pds_precond    pc, other;
  pds_mat        A = mk(ctx, &S1, LAP), C = test_convdiff(ctx, 5);
  const pds_size n = cells(&S1);
  pds_vec        f, u, w;

  TEST_CALL(pds_precond_create(ctx, "relax", &pc));
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_block(pc, 0, 2, 2), PDS_ERR_ARG, "each edge 1 to 8");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_block(pc, 2, 9, 2), PDS_ERR_ARG, "each edge 1 to 8");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_omega(pc, 2.0), PDS_ERR_ARG, "omega");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_omega(pc, -0.5), PDS_ERR_ARG, "omega");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_omega(pc, NAN), PDS_ERR_ARG, "omega");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_sweeps(pc, 0), PDS_ERR_ARG, "sweeps");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_type(pc, (pds_relax_type)7), PDS_ERR_ARG, "relax type 7");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_variant(pc, ""), PDS_ERR_ARG, "variant");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_get_info(pc, NULL, NULL, NULL), PDS_ERR_STATE, "not set up");
  /* a non-patches operator */
  TEST_CALL(pds_precond_set_operator(pc, C));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "relax needs a patches matrix");
  /* a block larger than patch 1 (4 cells in x) */
  TEST_CALL(pds_precond_set_operator(pc, A));
  TEST_CALL(pds_precond_relax_set_block(pc, 5, 2, 2));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "larger than patch 1");
  /* an unknown variant */
  TEST_CALL(pds_precond_relax_set_block(pc, 2, 2, 2));
  TEST_CALL(pds_precond_relax_set_variant(pc, "bogus"));
  TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ARG, "bogus");
  TEST_CALL(pds_precond_relax_set_variant(pc, "auto"));
  /* smoothing: before setup, wrong sizes, f = u */
  TEST_CALL(pds_vec_create(ctx, n, &f));
  TEST_CALL(pds_vec_create(ctx, n, &u));
  TEST_CALL(pds_vec_create(ctx, n + 1, &w));
  TEST_CALL(pds_vec_set(f, 1));
  TEST_CALL(pds_vec_set(u, 0));
  TEST_ASSERT_ERR(ctx, pds_precond_relax_smooth(pc, f, u, 1), PDS_ERR_STATE, "not set up");
  TEST_CALL(pds_precond_setup(pc));
  TEST_ASSERT_ERR(ctx, pds_precond_relax_smooth(pc, f, w, 1), PDS_ERR_SIZE, "entries");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_smooth(pc, f, f, 1), PDS_ERR_ARG, "same vector");
  TEST_ASSERT_ERR(ctx, pds_precond_relax_smooth(pc, f, u, -1), PDS_ERR_ARG, "sweeps");
  TEST_CALL(pds_precond_relax_smooth(pc, f, u, 0));
  TEST_CALL(pds_precond_relax_smooth(pc, f, u, 2));
  pds_vec_destroy(&f), pds_vec_destroy(&u), pds_vec_destroy(&w);
  pds_precond_destroy(&pc);
  /* another preconditioner's handle */
  TEST_CALL(pds_precond_create(ctx, "jacobi", &other));
  TEST_ASSERT_ERR(ctx, pds_precond_relax_set_block(other, 2, 2, 2), PDS_ERR_ARG, "not relax");
  pds_precond_destroy(&other);
  { /* singular block matrices: c0 = 1, c_x- = 1 makes the diagonal of the x- boundary cells 0 */
    const double sing[7] = {1, 1, 0, 0, 0, 0, 0};
    pds_mat      B       = mk(ctx, &S1, sing);

    TEST_CALL(pds_precond_create(ctx, "relax", &pc));
    TEST_CALL(pds_precond_set_operator(pc, B));
    TEST_CALL(pds_precond_relax_set_block(pc, 2, 2, 2));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ZERO_PIVOT, "2 x 2 x 2 block at cell (0, 0, 0) of patch 0");
    TEST_CALL(pds_precond_relax_set_block(pc, 1, 1, 1));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ZERO_PIVOT, "1 x 1 x 1 block");
    TEST_CALL(pds_precond_relax_set_block(pc, 3, 5, 1));
    TEST_ASSERT_ERR(ctx, pds_precond_setup(pc), PDS_ERR_ZERO_PIVOT, "is singular");
    pds_precond_destroy(&pc);
    pds_mat_destroy(&B);
  }
  pds_mat_destroy(&A), pds_mat_destroy(&C);
}

/* every allocation of setup and application failing in turn: PDS_ERR_MEM, nothing leaked (the sanitizer build's
   leak check), then success; and the view names what runs */
static int relax_pipeline(pds_ctx ctx, pds_mat A, const struct cfg *c, pds_vec x, pds_vec y) {
  pds_precond pc = NULL;
  int         ierr;

  if ((ierr = pds_precond_create(ctx, "relax", &pc))) return ierr;
  if (!(ierr = pds_precond_relax_set_type(pc, c->type)) &&
      !(ierr = pds_precond_relax_set_block(pc, c->b[0], c->b[1], c->b[2])) &&
      !(ierr = pds_precond_set_operator(pc, A)) && !(ierr = pds_precond_setup(pc)))
    ierr = pds_precond_apply(pc, x, y);
  pds_precond_destroy(&pc);
  return ierr;
}

static void test_alloc(pds_ctx ctx) {
  const pds_size   n = cells(&S1);
  pds_mat          A = mk(ctx, &S1, NSYM);
  pds_vec          x, y;
  const struct cfg cs[2] = {{PDS_RELAX_MULTICOLOR, {2, 2, 2}, 0, 1, 1, NULL},
                            {PDS_RELAX_JACOBI, {4, 2, 2}, 0, 1, 1, NULL}};

  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_create(ctx, n, &y));
  TEST_CALL(pds_vec_set(x, 1));
  for (int i = 0; i < 2; i++) {
    int k, ierr = PDS_ERR_MEM;

    for (k = 0; k < 1000; k++) {
      pds_ctx_set_alloc_fail(ctx, k);
      ierr = relax_pipeline(ctx, A, &cs[i], x, y);
      if (ierr != PDS_ERR_MEM) break;
      pds_ctx_clear_error(ctx);
    }
    pds_ctx_set_alloc_fail(ctx, -1);
    if (ierr) TEST_FAIL("relax type %d: allocation %d gave %s: %s", (int)cs[i].type, k, pds_error_name(ierr),
                        pds_ctx_get_error(ctx));
    TEST_ASSERT(k > 10);
  }
  { /* the view */
    pds_precond pc = mkpc(ctx, A, &cs[0]);
    FILE       *f  = tmpfile();
    char        buf[2048];
    size_t      len;

    TEST_ASSERT(f);
    TEST_CALL(pds_precond_view(pc, f));
    rewind(f);
    len      = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = 0;
    fclose(f);
    if (!strstr(buf, "multicolor (symmetric)") || !strstr(buf, "2 x 2 x 2") || !strstr(buf, "colours") ||
        !strstr(buf, pds_ctx_get_backend(ctx)))
      TEST_FAIL("the view lacks what runs:\n%s", buf);
    pds_precond_destroy(&pc);
  }
  pds_vec_destroy(&x), pds_vec_destroy(&y);
  pds_mat_destroy(&A);
}

/* host-resident data (pds_precond_relax_smooth_host): on a CPU backend the smoother on the host arrays, the bits of
   pds_precond_relax_smooth; on a device backend the patches streamed with frozen neighbours: jacobi the
   device-resident values (to round-off: auto may run gemm there), multicolor the same bits in both orders and for any
   number of slots, and every type convergent; the errors */
static void test_host(pds_ctx ctx) {
  const struct pset S = tile16();
  const pds_size    n = cells(&S);
  const int         cpu = !strncmp(pds_ctx_get_backend(ctx), "/cpu/", 5);
  pds_mat           A = mk(ctx, &S, NSYM);
  double           *f = rand_array(n), *u0 = rand_array(n), *u = malloc(n * sizeof *u), *u2 = malloc(n * sizeof *u);
  const struct cfg  cs[3] = {{PDS_RELAX_JACOBI, {4, 4, 4}, 0, 1, 1, NULL},
                             {PDS_RELAX_MULTICOLOR, {2, 3, 2}, 0, 1, 1, NULL},
                             {PDS_RELAX_CHAOTIC, {3, 5, 1}, 0, 1, 1, NULL}};
  static const int  orders[3][2] = {{PDS_RELAX_STREAM_DEPTH, 1}, {PDS_RELAX_STREAM_BREADTH, 4},
                                    {PDS_RELAX_STREAM_DEPTH, 100}};
  char              what[128];

  TEST_ASSERT(u && u2);
  for (int i = 0; i < 3; i++) {
    pds_precond pc = mkpc(ctx, A, &cs[i]);
    pds_vec     fv = vec_of(ctx, f, n), uv = vec_of(ctx, u0, n);
    double     *want, rr;

    TEST_CALL(pds_precond_relax_smooth(pc, fv, uv, 2));
    want = test_vec_values(uv);
    for (int o = 0; o < 3; o++) {
      TEST_CALL(pds_precond_relax_set_stream(pc, (pds_relax_stream)orders[o][0], orders[o][1]));
      memcpy(u, u0, n * sizeof *u);
      TEST_CALL(pds_precond_relax_smooth_host(pc, f, u, 2));
      snprintf(what, sizeof what, "smooth_host, type %d, order %d, %d slots: 2 sweeps", (int)cs[i].type, orders[o][0],
               orders[o][1]);
      if (cpu && cs[i].type != PDS_RELAX_CHAOTIC) check_bits(u, want, n, what);
      else if (cs[i].type == PDS_RELAX_JACOBI) check_close(u, want, n, 1e-12, what);
      else if (cs[i].type == PDS_RELAX_MULTICOLOR && o > 0) check_bits(u, u2, n, what); /* the first order's bits */
      if (o == 0) memcpy(u2, u, n * sizeof *u);
    }
    /* convergent: 80 sweeps from 0 solve the diagonally dominant problem */
    memset(u, 0, n * sizeof *u);
    TEST_CALL(pds_precond_relax_smooth_host(pc, f, u, 80));
    TEST_CALL(pds_vec_set_values(uv, u, PDS_MEM_HOST));
    rr = test_true_relres(A, fv, uv);
    if (!(rr < 1e-8)) TEST_FAIL("smooth_host, type %d: relative residual %.3g after 80 sweeps", (int)cs[i].type, rr);
    if (i == 0) { /* the errors */
      TEST_ASSERT_ERR(ctx, pds_precond_relax_smooth_host(pc, f, (double *)f, 1), PDS_ERR_ARG, "same array");
      TEST_ASSERT_ERR(ctx, pds_precond_relax_smooth_host(pc, NULL, u, 1), PDS_ERR_ARG, "f is NULL");
      TEST_ASSERT_ERR(ctx, pds_precond_relax_smooth_host(pc, f, u, -2), PDS_ERR_ARG, "sweeps");
      TEST_ASSERT_ERR(ctx, pds_precond_relax_set_stream(pc, (pds_relax_stream)3, 4), PDS_ERR_ARG, "order 3");
      TEST_ASSERT_ERR(ctx, pds_precond_relax_set_stream(pc, PDS_RELAX_STREAM_DEPTH, 0), PDS_ERR_ARG, "0 slots");
      TEST_ASSERT_ERR(ctx, pds_host_register(ctx, NULL, 8), PDS_ERR_ARG, "NULL memory");
      TEST_ASSERT_ERR(ctx, pds_host_register(ctx, u, 0), PDS_ERR_ARG, "0 bytes");
      TEST_CALL(pds_precond_relax_smooth_host(pc, f, u, 0));
    }
    free(want);
    pds_vec_destroy(&fv), pds_vec_destroy(&uv);
    pds_precond_destroy(&pc);
  }
  { /* before setup */
    pds_precond pc;

    TEST_CALL(pds_precond_create(ctx, "relax", &pc));
    TEST_ASSERT_ERR(ctx, pds_precond_relax_smooth_host(pc, f, u, 1), PDS_ERR_STATE, "not set up");
    pds_precond_destroy(&pc);
  }
  { /* page-locked arrays: the same bits as pageable ones (CPU backends: registering is a no-op) */
    pds_precond pc = mkpc(ctx, A, &cs[1]);

    memcpy(u, u0, n * sizeof *u);
    TEST_CALL(pds_precond_relax_smooth_host(pc, f, u, 2));
    memcpy(u2, u0, n * sizeof *u);
    TEST_CALL(pds_host_register(ctx, u2, n * sizeof *u2));
    TEST_CALL(pds_host_register(ctx, f, n * sizeof *f));
    TEST_CALL(pds_precond_relax_smooth_host(pc, f, u2, 2));
    check_bits(u2, u, n, "smooth_host on page-locked arrays");
    if (!cpu) {
      TEST_ASSERT_ERR(ctx, pds_host_register(ctx, f, n * sizeof *f), PDS_ERR_ARG, "already page-locked");
    }
    TEST_CALL(pds_host_unregister(ctx, u2));
    TEST_CALL(pds_host_unregister(ctx, f));
    if (!cpu) TEST_ASSERT_ERR(ctx, pds_host_unregister(ctx, f), PDS_ERR_ARG, "not registered");
    pds_precond_destroy(&pc);
  }
  free(f), free(u0), free(u), free(u2);
  pds_mat_destroy(&A);
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);

  test_errors(ctx);
  test_alloc(ctx);
  test_inverse(ctx);
  test_repeat(ctx);
  test_vs_ref(ctx);
  {
    const struct pset T = tile16();

    test_chaotic(ctx, &S1, 2);
    test_chaotic(ctx, &T, 4);
  }
  test_solvers(ctx);
  test_host(ctx);
  test_finalize(&ctx);
  return 0;
}
