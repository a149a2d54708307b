/* tests/equiv/equiv_bsr.c: BSR kernels of the backend under test against /cpu/ref, for bs = 1..8 (the
 * specialized loops) and 11 (the generic one): y = alpha A x + beta y and the scalar diagonal, on matrices
 * made by pds_mat_convert_to_bsr from random CSR (square, rectangular, 0 x 0, with empty block rows, large
 * enough for the threaded path); then the public API (apply, diagonal, block diagonal), and BSR against the
 * CSR it came from (a different summation order: within c n eps). On /cpu/omp, 1, 2 and 3 threads agree. */
#include "equiv.h"

static eq_env E;

/* The BSR form of a random CSR, both as matrices of the ref context. */
typedef struct {
  pds_mat        csr, bsr;
  struct pds_bsr h; /* host arrays of bsr (owned by the matrix) */
} bsr_case;

static bsr_case bsr_make(int bs, pds_int nbr, pds_int nbc, int avg, int empty_pct) {
  bsr_case       c;
  struct pds_csr A = eq_csr_random(nbr * bs, nbc * bs, avg, empty_pct, 0);
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;

  TEST_CALL(pds_mat_create_csr(E.ref, A.nrows, A.ncols, A.rowptr, A.colidx, A.vals, PDS_MEM_HOST, PDS_COPY_VALUES,
                               &c.csr));
  eq_csr_free(&A);
  TEST_CALL(pds_mat_convert_to_bsr(c.csr, bs, &c.bsr));
  TEST_CALL(pds_mat_bsr_get_arrays(c.bsr, &rp, &ci, &v));
  c.h = (struct pds_bsr){nbr, nbc, bs, rp[nbr], (pds_size *)rp, (pds_int *)ci, (pds_real *)v};
  return c;
}

static void bsr_case_destroy(bsr_case *c) {
  TEST_CALL(pds_mat_destroy(&c->csr));
  TEST_CALL(pds_mat_destroy(&c->bsr));
}

/* mag_i = |alpha| sum |a_ij x_j| + |beta y_i|, over the stored block entries; returns the terms per row */
static double bsr_mag(const struct pds_bsr *A, pds_real alpha, const pds_real *x, pds_real beta, const pds_real *y,
                      pds_real *mag) {
  int    bs   = A->bs;
  double most = 0;

  for (pds_int ib = 0; ib < A->nbrows; ib++) {
    double len = (double)(A->browptr[ib + 1] - A->browptr[ib]) * bs + 2;

    most = len > most ? len : most;
    for (int r = 0; r < bs; r++) {
      pds_size i = (pds_size)ib * bs + r;

      mag[i] = beta == 0 ? 0 : fabs(beta * y[i]);
      for (pds_size k = A->browptr[ib]; k < A->browptr[ib + 1]; k++)
        for (int cc = 0; cc < bs; cc++)
          mag[i] += fabs(alpha * A->vals[(k * bs + r) * bs + cc] * x[(pds_size)A->bcolidx[k] * bs + cc]);
    }
  }
  return most;
}

static void spmv_both(const struct pds_bsr *Ab, const struct pds_bsr *Ar, pds_real alpha, const pds_real *x,
                      pds_real beta, const pds_real *y, pds_real *got, pds_real *want) {
  size_t    nx = (size_t)Ar->nbcols * Ar->bs, ny = (size_t)Ar->nbrows * Ar->bs;
  pds_real *bx = eq_dev(E.be, x, nx * sizeof *x), *by = eq_dev(E.be, y, ny * sizeof *y);

  memcpy(want, y, ny * sizeof *y);
  TEST_CALL(E.be->k->bsr.spmv(E.be, Ab, alpha, bx, beta, by));
  TEST_CALL(E.ref->k->bsr.spmv(E.ref, Ar, alpha, x, beta, want));
  eq_host(E.be, got, by, ny * sizeof *got);
  eq_dfree(E.be, &bx), eq_dfree(E.be, &by);
}

static void test_kernels(const char *name, bsr_case *c) {
  const pds_real  ab[][2] = {{1, 0}, {2.5, -0.5}, {1, 1}, {-0.5, 0}};
  struct pds_bsr *A = &c->h, Ab = eq_bsr_upload(E.be, A);
  int             bs   = A->bs;
  size_t          nmax = ((size_t)(A->nbrows > A->nbcols ? A->nbrows : A->nbcols) + 1) * bs;
  pds_real       *x = eq_random((pds_size)nmax), *y = eq_random((pds_size)nmax), *ynan = eq_xmalloc(nmax * sizeof *ynan);
  pds_real       *got = eq_xmalloc(nmax * sizeof *got), *want = eq_xmalloc(nmax * sizeof *want);
  pds_real       *mag = eq_xmalloc(nmax * sizeof *mag);
  pds_size        ny = (pds_size)A->nbrows * bs;
  char            msg[160];

  for (size_t i = 0; i < nmax; i++) ynan[i] = NAN;
  for (size_t k = 0; k < sizeof ab / sizeof ab[0]; k++) {
    const pds_real *yin = ab[k][1] == 0 ? ynan : y;
    double          terms;

    spmv_both(&Ab, A, ab[k][0], x, ab[k][1], yin, got, want);
    terms = bsr_mag(A, ab[k][0], x, ab[k][1], yin, mag);
    snprintf(msg, sizeof msg, "bsr_spmv %s bs %d (%" PDS_INT_FMT " x %" PDS_INT_FMT " blocks, nnzb %" PDS_SIZE_FMT
             ") alpha %g beta %g", name, bs, A->nbrows, A->nbcols, A->nnzb, ab[k][0], ab[k][1]);
    eq_compare(msg, got, want, mag, ny, terms, E.exact);
    spmv_both(&Ab, A, ab[k][0], x, ab[k][1], yin, mag, want);
    TEST_ASSERT(!memcmp(got, mag, (size_t)ny * sizeof *got));
  }
  {
    pds_int   nd = (A->nbrows < A->nbcols ? A->nbrows : A->nbcols) * bs;
    pds_real *bd = eq_dev(E.be, y, (size_t)nd * sizeof *bd);

    TEST_CALL(E.be->k->bsr.diag(E.be, &Ab, bd));
    TEST_CALL(E.ref->k->bsr.diag(E.ref, A, want));
    eq_host(E.be, got, bd, (size_t)nd * sizeof *got);
    snprintf(msg, sizeof msg, "bsr_diag %s bs %d", name, bs);
    eq_compare(msg, got, want, NULL, nd, 2, E.exact);
    eq_dfree(E.be, &bd);
  }
  if (E.omp) {
    int t0 = eq_threads_get();

    eq_threads_set(1);
    spmv_both(&Ab, A, 1.5, x, -1.0, y, got, want);
    for (int t = 2; t <= 3; t++) {
      eq_threads_set(t);
      spmv_both(&Ab, A, 1.5, x, -1.0, y, mag, want);
      if (memcmp(got, mag, (size_t)ny * sizeof *got)) TEST_FAIL("bsr_spmv %s bs %d: 1 and %d threads differ", name, bs, t);
    }
    eq_threads_set(t0);
  }
  eq_bsr_free_dev(E.be, &Ab);
  free(x), free(y), free(ynan), free(got), free(want), free(mag);
}

/* Public API: the same BSR arrays in both contexts; and BSR against its CSR. */
static void test_public(const char *name, bsr_case *c) {
  struct pds_bsr *A  = &c->h;
  int             bs = A->bs;
  pds_int         nr = A->nbrows * bs, nc = A->nbcols * bs;
  pds_mat         Mb;
  pds_vec         xb, yb, xr, yr;
  size_t          nmax = (size_t)(nr > nc ? nr : nc) + 1;
  pds_real       *got = eq_xmalloc(nmax * sizeof *got), *want = eq_xmalloc(nmax * sizeof *want);
  char            msg[128];

  TEST_CALL(pds_mat_create_bsr(E.be, A->nbrows, A->nbcols, bs, A->browptr, A->bcolidx, A->vals, PDS_MEM_HOST,
                               PDS_COPY_VALUES, &Mb));
  TEST_CALL(pds_vec_create(E.be, nc, &xb));
  TEST_CALL(pds_vec_create(E.be, nr, &yb));
  TEST_CALL(pds_vec_create(E.ref, nc, &xr));
  TEST_CALL(pds_vec_create(E.ref, nr, &yr));
  TEST_CALL(pds_vec_set_random(xb, 7));
  TEST_CALL(pds_vec_set_random(xr, 7));
  TEST_CALL(pds_mat_apply(Mb, xb, yb));
  TEST_CALL(pds_mat_apply(c->bsr, xr, yr));
  TEST_CALL(pds_vec_get_values(yb, got, PDS_MEM_HOST));
  TEST_CALL(pds_vec_get_values(yr, want, PDS_MEM_HOST));
  snprintf(msg, sizeof msg, "pds_mat_apply bsr %s bs %d", name, bs);
  eq_compare(msg, got, want, NULL, nr, 2.0 * (double)(A->nnzb * bs * bs + 1), E.exact);
  /* the CSR it came from: same operator, other summation order */
  TEST_CALL(pds_mat_apply(c->csr, xr, yr));
  TEST_CALL(pds_vec_get_values(yr, want, PDS_MEM_HOST));
  for (pds_int i = 0; i < nr; i++) TEST_ASSERT_NEAR(got[i], want[i], 0, 1e-13 * (1 + A->nnzb));
  if (nr == nc) {
    TEST_CALL(pds_mat_get_diagonal(Mb, yb));
    TEST_CALL(pds_mat_get_diagonal(c->bsr, yr));
    TEST_CALL(pds_vec_get_values(yb, got, PDS_MEM_HOST));
    TEST_CALL(pds_vec_get_values(yr, want, PDS_MEM_HOST));
    snprintf(msg, sizeof msg, "pds_mat_get_diagonal bsr %s bs %d", name, bs);
    eq_compare(msg, got, want, NULL, nr, 2, E.exact);
    {
      pds_real *bb = eq_xmalloc(((size_t)nr * bs + 1) * sizeof *bb), *br = eq_xmalloc(((size_t)nr * bs + 1) * sizeof *br);

      TEST_CALL(pds_mat_get_block_diagonal(Mb, bs, bb));
      TEST_CALL(pds_mat_get_block_diagonal(c->csr, bs, br)); /* from the CSR: the same numbers */
      snprintf(msg, sizeof msg, "pds_mat_get_block_diagonal bsr %s bs %d", name, bs);
      eq_compare(msg, bb, br, NULL, (pds_size)nr * bs, 4, E.exact);
      free(bb), free(br);
    }
  }
  TEST_CALL(pds_vec_destroy(&xb));
  TEST_CALL(pds_vec_destroy(&yb));
  TEST_CALL(pds_vec_destroy(&xr));
  TEST_CALL(pds_vec_destroy(&yr));
  TEST_CALL(pds_mat_destroy(&Mb));
  free(got), free(want);
}

int main(int argc, char **argv) {
  const int bss[] = {1, 2, 3, 4, 5, 6, 7, 8, 11};

  E = eq_init(argc, argv);
  eq_seed(3);
  for (size_t s = 0; s < sizeof bss / sizeof bss[0]; s++) {
    int bs = bss[s];
    struct {
      const char *name;
      pds_int     nbr, nbc;
      int         avg, empty_pct;
    } cases[] = {
        {"0x0", 0, 0, 3, 0},
        {"1x1", 1, 1, 2, 0},
        {"small", 7, 7, 4, 10},
        {"tall", 40, 25, 5, 10},
        {"wide", 25, 40, 5, 10},
        {"sparse rows", 300, 300, 2, 85}, /* most block rows empty for small bs */
        {"large", 60000 / bs, 60000 / bs, 6, 5},
    };

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      bsr_case c = bsr_make(bs, cases[k].nbr, cases[k].nbc, cases[k].avg, cases[k].empty_pct);

      test_kernels(cases[k].name, &c);
      test_public(cases[k].name, &c);
      bsr_case_destroy(&c);
    }
  }
  eq_finalize(&E);
  return 0;
}
