/* tests/equiv/equiv_csr.c: CSR kernels of the backend under test against /cpu/ref: y = alpha A x + beta y,
 * y = alpha A^T x + beta y and the diagonal, on random matrices with empty rows, unsorted and duplicate column
 * indices, 0 x 0, 0 x n and n x 0, rectangular both ways, imbalanced rows, and large ones (the threaded
 * paths); the product fused with its dots (csr_spmv_dot) and the one-pass residual (csr_residual); then the same
 * through the public API (pds_mat_apply,
 * _transpose, get_diagonal, get_block_diagonal).
 * Bitwise on the CPU backends, except /cpu/omp's transpose (within c n eps: it sums row parts separately).
 * On /cpu/omp the products must also be the same for 1, 2 and 3 threads, and on every call. */
#include "equiv.h"

static eq_env E;

/* mag_i = |alpha| sum_k |a_ik x_k| + |beta y_i| for the product (trans = 0) or its transpose; terms = longest
   row or column + 2 */
static double csr_mag(const struct pds_csr *A, int trans, pds_real alpha, const pds_real *x, pds_real beta,
                      const pds_real *y, pds_real *mag) {
  pds_int   m    = trans ? A->ncols : A->nrows;
  pds_size *len  = calloc((size_t)m + 1, sizeof *len);
  double    most = 0;

  for (pds_int i = 0; i < m; i++) mag[i] = beta == 0 ? 0 : fabs(beta * y[i]);
  for (pds_int i = 0; i < A->nrows; i++)
    for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      pds_int o = trans ? A->colidx[k] : i, in = trans ? i : A->colidx[k];

      mag[o] += fabs(alpha * A->vals[k] * x[in]);
      len[o]++;
    }
  for (pds_int i = 0; i < m; i++) most = len[i] > most ? (double)len[i] : most;
  free(len);
  return most + 2;
}

/* One product on both contexts; returns the backend's result in got (length of y). */
static void spmv_both(const struct pds_csr *Ab, const struct pds_csr *Ar, int trans, pds_real alpha,
                      const pds_real *x, pds_real beta, const pds_real *y, pds_real *got, pds_real *want) {
  pds_int   nx = trans ? Ar->nrows : Ar->ncols, ny = trans ? Ar->ncols : Ar->nrows;
  pds_real *bx = eq_dev(E.be, x, (size_t)nx * sizeof *x), *by = eq_dev(E.be, y, (size_t)ny * sizeof *y);

  memcpy(want, y, (size_t)ny * sizeof *y);
  if (trans) {
    TEST_CALL(E.be->k->csr.spmv_t(E.be, Ab, alpha, bx, beta, by));
    TEST_CALL(E.ref->k->csr.spmv_t(E.ref, Ar, alpha, x, beta, want));
  } else {
    TEST_CALL(E.be->k->csr.spmv(E.be, Ab, alpha, bx, beta, by));
    TEST_CALL(E.ref->k->csr.spmv(E.ref, Ar, alpha, x, beta, want));
  }
  eq_host(E.be, got, by, (size_t)ny * sizeof *got);
  eq_dfree(E.be, &bx), eq_dfree(E.be, &by);
}

static void test_kernels(const char *name, struct pds_csr *A) {
  const pds_real ab[][2] = {{1, 0}, {2.5, -0.5}, {1, 1}, {-0.5, 0}, {0, 1}, {1, -0.0}};
  struct pds_csr Ab      = eq_csr_upload(E.be, A);
  pds_int        nmax    = (A->nrows > A->ncols ? A->nrows : A->ncols) + 1;
  pds_real      *x = eq_random(nmax), *y = eq_random(nmax), *ynan = eq_xmalloc((size_t)nmax * sizeof *ynan);
  pds_real      *got = eq_xmalloc((size_t)nmax * sizeof *got), *want = eq_xmalloc((size_t)nmax * sizeof *want);
  pds_real      *mag = eq_xmalloc((size_t)nmax * sizeof *mag);
  char           msg[160];
  double         terms;

  for (pds_int i = 0; i < nmax; i++) ynan[i] = NAN; /* beta = 0 must not read y */
  for (int trans = 0; trans < 2; trans++)
    for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
      pds_real        alpha = ab[c][0], beta = ab[c][1];
      const pds_real *yin   = beta == 0 ? ynan : y;
      pds_int         ny    = trans ? A->ncols : A->nrows;

      spmv_both(&Ab, A, trans, alpha, x, beta, yin, got, want);
      terms = csr_mag(A, trans, alpha, x, beta, yin, mag);
      snprintf(msg, sizeof msg, "%s %s (%" PDS_INT_FMT " x %" PDS_INT_FMT ", nnz %" PDS_SIZE_FMT ") alpha %g beta %g",
               trans ? "csr_spmv_t" : "csr_spmv", name, A->nrows, A->ncols, A->nnz, alpha, beta);
      /* the transpose is deterministic but not bitwise ref's on /cpu/omp (src/backend/omp/omp.c) */
      eq_compare(msg, got, want, mag, ny, terms, E.exact && (!trans || !E.omp));
      /* same call again: same bits */
      spmv_both(&Ab, A, trans, alpha, x, beta, yin, mag, want);
      TEST_ASSERT(!memcmp(got, mag, (size_t)ny * sizeof *got));
    }
  /* y = A x fused with its dots (the Krylov methods' product): y, and d = (y.w1) or (y.w1, y.w2), with w1 = x (CG's
     (p, A p)) or another vector, w2 = y (BiCGSTAB's (t, t)); square matrices; on /cpu/omp for 1 to 4 threads */
  if (A->nrows == A->ncols) {
    pds_int   n  = A->nrows;
    size_t    nb = (size_t)n * sizeof(pds_real);
    pds_real *bx = eq_dev(E.be, x, nb), *bw = eq_dev(E.be, y, nb), *by = eq_dev(E.be, ynan, nb), *bd;
    pds_real *rw = want, dref[2], dgot[2], dmag[2];
    int       t0 = E.omp ? eq_threads_get() : 0;

    for (int t = 1; t <= (E.omp ? 4 : 1); t++) {
      if (E.omp) eq_threads_set(t);
      for (int form = 0; form < 3; form++) { /* 0: w1 = x; 1: w1 = w; 2: w1 = w, w2 = y */
        const pds_real *w1b = form ? bw : bx, *w1r = form ? y : x;
        pds_real        rd[2] = {0, 0};

        bd = eq_dev(E.be, rd, sizeof rd);
        TEST_CALL(E.be->k->csr.spmv_dot(E.be, &Ab, bx, by, w1b, form == 2 ? by : NULL, bd));
        TEST_CALL(E.ref->k->csr.spmv_dot(E.ref, A, x, rw, w1r, form == 2 ? rw : NULL, dref));
        eq_host(E.be, dgot, bd, sizeof dgot), eq_dfree(E.be, &bd);
        eq_host(E.be, got, by, nb);
        terms = csr_mag(A, 0, 1.0, x, 0.0, y, mag);
        snprintf(msg, sizeof msg, "csr_spmv_dot %s form %d threads %d: y", name, form, t);
        eq_compare(msg, got, rw, mag, n, terms, E.exact);
        dmag[0] = dmag[1] = 0;
        for (pds_int i = 0; i < n; i++) dmag[0] += mag[i] * fabs(w1r[i]), dmag[1] += mag[i] * mag[i];
        snprintf(msg, sizeof msg, "csr_spmv_dot %s form %d threads %d: dots", name, form, t);
        eq_compare(msg, dgot, dref, dmag, form == 2 ? 2 : 1, terms + (double)n, E.exact);
      }
    }
    if (E.omp) eq_threads_set(t0);
    eq_dfree(E.be, &bx), eq_dfree(E.be, &bw), eq_dfree(E.be, &by);
  }
  /* r = b - A x in one pass (csr_residual, where the backend has it) against ref's r = b; r = -1 A x + 1 r */
  if (A->nrows == A->ncols && E.be->k->csr.residual) {
    pds_int   n  = A->nrows;
    size_t    nb = (size_t)n * sizeof(pds_real);
    pds_real *bx = eq_dev(E.be, x, nb), *bb = eq_dev(E.be, y, nb), *br = eq_dev(E.be, ynan, nb);

    memcpy(want, y, nb);
    TEST_CALL(E.be->k->csr.residual(E.be, &Ab, bx, bb, br));
    TEST_CALL(E.ref->k->csr.spmv(E.ref, A, -1.0, x, 1.0, want));
    eq_host(E.be, got, br, nb);
    terms = csr_mag(A, 0, -1.0, x, 1.0, y, mag);
    snprintf(msg, sizeof msg, "csr_residual %s", name);
    eq_compare(msg, got, want, mag, n, terms, E.exact);
    TEST_CALL(E.be->k->csr.residual(E.be, &Ab, bx, bb, bb)); /* r may be b */
    eq_host(E.be, got, bb, nb);
    eq_compare(msg, got, want, mag, n, terms, E.exact);
    eq_dfree(E.be, &bx), eq_dfree(E.be, &bb), eq_dfree(E.be, &br);
  }
  /* diagonal: min(nrows, ncols) entries */
  {
    pds_int   nd = A->nrows < A->ncols ? A->nrows : A->ncols;
    pds_real *bd = eq_dev(E.be, y, (size_t)nd * sizeof *bd);

    TEST_CALL(E.be->k->csr.diag(E.be, &Ab, bd));
    TEST_CALL(E.ref->k->csr.diag(E.ref, A, want));
    eq_host(E.be, got, bd, (size_t)nd * sizeof *got);
    for (pds_int i = 0; i < nd; i++) mag[i] = 0;
    for (pds_int i = 0; i < nd; i++)
      for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colidx[k] == i) mag[i] += fabs(A->vals[k]);
    snprintf(msg, sizeof msg, "csr_diag %s", name);
    eq_compare(msg, got, want, mag, nd, 4, E.exact);
    eq_dfree(E.be, &bd);
  }
  /* /cpu/omp: 1, 2 and 3 threads give the same bits, both ways */
  if (E.omp) {
    int t0 = eq_threads_get();

    for (int trans = 0; trans < 2; trans++) {
      pds_int ny = trans ? A->ncols : A->nrows;

      eq_threads_set(1);
      spmv_both(&Ab, A, trans, 1.5, x, -1.0, y, got, want);
      for (int t = 2; t <= 3; t++) {
        eq_threads_set(t);
        spmv_both(&Ab, A, trans, 1.5, x, -1.0, y, mag, want);
        if (memcmp(got, mag, (size_t)ny * sizeof *got))
          TEST_FAIL("%s %s: 1 and %d threads differ", trans ? "csr_spmv_t" : "csr_spmv", name, t);
      }
    }
    eq_threads_set(t0);
  }
  eq_csr_free_dev(E.be, &Ab);
  free(x), free(y), free(ynan), free(got), free(want), free(mag);
}

/* The public API: the same CSR matrix in both contexts. */
static void test_public(const char *name, struct pds_csr *A) {
  pds_mat  Mb, Mr;
  pds_vec  xb, yb, xr, yr;
  pds_int  nr = A->nrows, nc = A->ncols;
  pds_real *got = eq_xmalloc(((size_t)(nr > nc ? nr : nc) + 1) * sizeof *got);
  pds_real *want = eq_xmalloc(((size_t)(nr > nc ? nr : nc) + 1) * sizeof *want);
  pds_real *mag = eq_xmalloc(((size_t)(nr > nc ? nr : nc) + 1) * sizeof *mag);
  pds_real *xh = eq_xmalloc(((size_t)(nr > nc ? nr : nc) + 1) * sizeof *xh);
  char      msg[128];

  TEST_CALL(pds_mat_create_csr(E.be, nr, nc, A->rowptr, A->colidx, A->vals, PDS_MEM_HOST, PDS_COPY_VALUES, &Mb));
  TEST_CALL(pds_mat_create_csr(E.ref, nr, nc, A->rowptr, A->colidx, A->vals, PDS_MEM_HOST, PDS_COPY_VALUES, &Mr));
  for (int trans = 0; trans < 2; trans++) {
    pds_int nx = trans ? nr : nc, ny = trans ? nc : nr;

    TEST_CALL(pds_vec_create(E.be, nx, &xb));
    TEST_CALL(pds_vec_create(E.be, ny, &yb));
    TEST_CALL(pds_vec_create(E.ref, nx, &xr));
    TEST_CALL(pds_vec_create(E.ref, ny, &yr));
    TEST_CALL(pds_vec_set_random(xb, 5));
    TEST_CALL(pds_vec_set_random(xr, 5));
    TEST_CALL(pds_vec_get_values(xr, xh, PDS_MEM_HOST));
    if (trans) {
      TEST_CALL(pds_mat_apply_transpose(Mb, xb, yb));
      TEST_CALL(pds_mat_apply_transpose(Mr, xr, yr));
    } else {
      TEST_CALL(pds_mat_apply(Mb, xb, yb));
      TEST_CALL(pds_mat_apply(Mr, xr, yr));
    }
    TEST_CALL(pds_vec_get_values(yb, got, PDS_MEM_HOST));
    TEST_CALL(pds_vec_get_values(yr, want, PDS_MEM_HOST));
    snprintf(msg, sizeof msg, "%s %s", trans ? "pds_mat_apply_transpose" : "pds_mat_apply", name);
    if (trans && E.omp) { /* within rounding of ref: compare against the sum of magnitudes */
      for (pds_int j = 0; j < ny; j++) mag[j] = 0;
      for (pds_int i = 0; i < nr; i++)
        for (pds_size k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) mag[A->colidx[k]] += fabs(A->vals[k] * xh[i]);
      eq_compare(msg, got, want, mag, ny, 2.0 * (double)(A->nnz + 1), 0);
    } else eq_compare(msg, got, want, NULL, ny, 2.0 * (double)(A->nnz + 1), E.exact);
    if (!trans && nr == nc) { /* residual r = b - A x */
      pds_vec bb, br;

      TEST_CALL(pds_vec_create(E.be, nr, &bb));
      TEST_CALL(pds_vec_create(E.ref, nr, &br));
      TEST_CALL(pds_vec_set_random(bb, 6));
      TEST_CALL(pds_vec_set_random(br, 6));
      TEST_CALL(pds_mat_residual(Mb, bb, xb, yb));
      TEST_CALL(pds_mat_residual(Mr, br, xr, yr));
      { /* b of another length or context: an error, r untouched */
        pds_vec  bs;
        pds_real r0;

        TEST_CALL(pds_vec_create(E.be, nr + 1, &bs));
        TEST_CALL(pds_vec_set(bs, 1.0));
        TEST_CALL(pds_vec_get_values(yb, got, PDS_MEM_HOST));
        r0 = nr ? got[0] : 0;
        TEST_ASSERT_ERR(E.be, pds_mat_residual(Mb, bs, xb, yb), PDS_ERR_SIZE, "b has length");
        TEST_ASSERT_ERR(E.be, pds_mat_residual(Mb, br, xb, yb), PDS_ERR_ARG, "contexts");
        TEST_CALL(pds_vec_get_values(yb, got, PDS_MEM_HOST));
        TEST_ASSERT(!nr || got[0] == r0);
        TEST_CALL(pds_vec_destroy(&bs));
      }
      TEST_CALL(pds_vec_destroy(&bb));
      TEST_CALL(pds_vec_destroy(&br));
      TEST_CALL(pds_vec_get_values(yb, got, PDS_MEM_HOST));
      TEST_CALL(pds_vec_get_values(yr, want, PDS_MEM_HOST));
      snprintf(msg, sizeof msg, "pds_mat_residual %s", name);
      eq_compare(msg, got, want, NULL, ny, 2.0 * (double)(A->nnz + 1), E.exact);
    }
    TEST_CALL(pds_vec_destroy(&xb));
    TEST_CALL(pds_vec_destroy(&yb));
    TEST_CALL(pds_vec_destroy(&xr));
    TEST_CALL(pds_vec_destroy(&yr));
  }
  if (nr == nc) {
    TEST_CALL(pds_vec_create(E.be, nr, &yb));
    TEST_CALL(pds_vec_create(E.ref, nr, &yr));
    TEST_CALL(pds_mat_get_diagonal(Mb, yb));
    TEST_CALL(pds_mat_get_diagonal(Mr, yr));
    TEST_CALL(pds_vec_get_values(yb, got, PDS_MEM_HOST));
    TEST_CALL(pds_vec_get_values(yr, want, PDS_MEM_HOST));
    snprintf(msg, sizeof msg, "pds_mat_get_diagonal %s", name);
    eq_compare(msg, got, want, NULL, nr, 4, E.exact);
    TEST_CALL(pds_vec_destroy(&yb));
    TEST_CALL(pds_vec_destroy(&yr));
    for (int bs = 1; bs <= 4; bs++) {
      pds_real *bb, *br;

      if (nr % bs) continue;
      bb = eq_xmalloc(((size_t)nr * bs + 1) * sizeof *bb);
      br = eq_xmalloc(((size_t)nr * bs + 1) * sizeof *br);
      TEST_CALL(pds_mat_get_block_diagonal(Mb, bs, bb));
      TEST_CALL(pds_mat_get_block_diagonal(Mr, bs, br));
      snprintf(msg, sizeof msg, "pds_mat_get_block_diagonal %s bs %d", name, bs);
      eq_compare(msg, bb, br, NULL, (pds_size)nr * bs, 4, E.exact);
      /* bs = 1 blocks are the diagonal */
      if (bs == 1) eq_compare(msg, bb, want, NULL, nr, 4, E.exact);
      free(bb), free(br);
    }
  }
  TEST_CALL(pds_mat_destroy(&Mb));
  TEST_CALL(pds_mat_destroy(&Mr));
  free(got), free(want), free(mag), free(xh);
}

int main(int argc, char **argv) {
  struct {
    const char *name;
    pds_int     nrows, ncols;
    int         avg, empty_pct;
    pds_size    heavy;
    int         pub;
  } cases[] = {
      {"0x0", 0, 0, 3, 0, 0, 1},
      {"1x1", 1, 1, 1, 0, 0, 1},
      {"0x5", 0, 5, 3, 0, 0, 1},
      {"5x0", 5, 0, 3, 0, 0, 1},
      {"all-empty", 1000, 1000, 3, 100, 0, 1},
      {"small", 50, 50, 4, 20, 0, 1},
      {"tall", 1000, 300, 5, 10, 0, 1},
      {"wide", 300, 1000, 5, 10, 0, 1},
      {"large", 200000, 200000, 7, 10, 0, 1},
      {"large-tall", 150000, 40000, 6, 5, 0, 1},
      {"large-wide", 40000, 150000, 6, 5, 0, 1},
      {"two-heavy-rows", 100000, 100000, 0, 0, 40000, 0},
      {"long-rows", 60000, 60000, 40, 0, 0, 0},   /* 2.4M nnz: several transpose parts, all sharing columns */
      {"one-per-row", 1100000, 1100000, 1, 0, 0, 0}, /* transpose parts too spread: sequential fallback */
      {"large-empty", 100000, 100000, 3, 100, 0, 0},
  };

  E = eq_init(argc, argv);
  eq_seed(2);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    struct pds_csr A = eq_csr_random(cases[c].nrows, cases[c].ncols, cases[c].avg, cases[c].empty_pct, cases[c].heavy);

    test_kernels(cases[c].name, &A);
    if (cases[c].pub) test_public(cases[c].name, &A);
    eq_csr_free(&A);
  }
  eq_finalize(&E);
  return 0;
}
