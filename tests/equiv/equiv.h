/* tests/equiv/equiv.h: helpers of the equivalence tests: the backend under test (argv[1]) and a /cpu/ref
 * context side by side, backend arrays, a reproducible random generator, and the comparison rule.
 *
 * Comparison rule: the CPU backends promise bitwise equality with ref (src/backend/omp/omp.c says why), so
 * for /cpu/... the bits must match (NaN payloads and zero signs included). Any other backend must agree
 * within c * terms * eps * mag_i, where mag_i bounds the magnitudes summed into entry i (the same kernel run
 * by ref on absolute values) and terms is the number of operations summed into it. */
#ifndef PDS_EQUIV_H
#define PDS_EQUIV_H

#include <float.h>
#include <stdint.h>

#include "test.h"
#include "backend/kernel_bodies.h"

#if PDS_HAVE_OPENMP
#include <omp.h>
#endif

typedef struct {
  pds_ctx be;    /* the backend under test */
  pds_ctx ref;   /* /cpu/ref */
  int     exact; /* bitwise comparison */
  int     omp;   /* the backend under test is /cpu/omp */
} eq_env;

static inline eq_env eq_init(int argc, char **argv) {
  eq_env e;

  e.be = test_init(argc, argv);
  TEST_CALL(pds_ctx_create("/cpu/ref", &e.ref));
  e.exact = !strncmp(pds_ctx_get_backend(e.be), "/cpu/", 5);
  e.omp   = !strcmp(pds_ctx_get_backend(e.be), "/cpu/omp");
  return e;
}

static inline void eq_finalize(eq_env *e) {
  TEST_CALL(pds_ctx_destroy(&e->ref));
  test_finalize(&e->be);
}

/* splitmix64: reproducible on every platform */
static uint64_t eq_state_ = 0x9e3779b97f4a7c15u;
static inline void     eq_seed(uint64_t s) { eq_state_ = s * 0x9e3779b97f4a7c15u + 1; }
static inline uint64_t eq_u64(void) {
  uint64_t z = (eq_state_ += 0x9e3779b97f4a7c15u);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}
static inline double eq_real(void) { return (double)(eq_u64() >> 11) * 0x1.0p-52 - 1.0; } /* [-1, 1) */
static inline long   eq_int(long n) { return (long)(eq_u64() % (uint64_t)n); }          /* [0, n) */

static inline void *eq_xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);

  if (!p) TEST_FAIL("out of memory (%zu bytes)", bytes);
  return p;
}

/* n random reals in [-1, 1) with a few exact zeros of both signs */
static inline pds_real *eq_random(pds_size n) {
  pds_real *a = eq_xmalloc((size_t)n * sizeof *a);

  for (pds_size i = 0; i < n; i++) a[i] = eq_real();
  if (n > 10) a[3] = 0.0, a[7] = -0.0;
  return a;
}

/* A backend array with a copy of host data (bytes may be 0). */
static inline void *eq_dev(pds_ctx c, const void *h, size_t bytes) {
  void *d;

  TEST_CALL(pds_malloc(c, PDS_MEM_DEVICE, bytes, &d));
  if (bytes) TEST_CALL(pds_memcpy(c, d, PDS_MEM_DEVICE, h, PDS_MEM_HOST, bytes));
  return d;
}
static inline void eq_host(pds_ctx c, void *h, const void *d, size_t bytes) {
  if (bytes) TEST_CALL(pds_memcpy(c, h, PDS_MEM_HOST, d, PDS_MEM_DEVICE, bytes));
}
static inline void eq_dfree(pds_ctx c, void *pp) { TEST_CALL(pds_free(c, PDS_MEM_DEVICE, pp)); }

/* Random CSR: each row is empty with probability empty_pct %, else has 1..2*avg-1 entries; a row may repeat a
   column (duplicates) and columns come unsorted. heavy > 0: rows 0 and nrows-1 get `heavy` entries, the rest
   none (a partition by rows alone would be badly balanced). */
static inline struct pds_csr eq_csr_random(pds_int nrows, pds_int ncols, int avg, int empty_pct, pds_size heavy) {
  struct pds_csr A = {nrows, ncols, 0, NULL, NULL, NULL};
  pds_size       cap = 0;

  A.rowptr = eq_xmalloc(((size_t)nrows + 1) * sizeof *A.rowptr);
  A.rowptr[0] = 0;
  for (pds_int i = 0; i < nrows; i++) {
    pds_size len = 0;

    if (ncols > 0) {
      if (heavy > 0) len = (i == 0 || i == nrows - 1) ? heavy : 0;
      else if (eq_int(100) >= empty_pct) len = 1 + eq_int(2 * avg - 1);
    }
    A.rowptr[i + 1] = A.rowptr[i] + len;
  }
  A.nnz    = A.rowptr[nrows];
  cap      = A.nnz;
  A.colidx = eq_xmalloc((size_t)cap * sizeof *A.colidx);
  A.vals   = eq_random(cap);
  for (pds_int i = 0; i < nrows; i++)
    for (pds_size k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
      /* mostly near the diagonal (a banded pattern, as discretizations give), some anywhere; the diagonal
         itself often, so diag has something to find */
      long r = eq_int(10);
      long j;

      if (r == 0) j = eq_int(ncols);
      else if (r < 3 && i < ncols) j = i;
      else j = (((long)i * ncols / (nrows ? nrows : 1) + eq_int(41) - 20) % ncols + ncols) % ncols;
      if (k > A.rowptr[i] && eq_int(20) == 0) j = A.colidx[k - 1]; /* duplicate */
      A.colidx[k] = (pds_int)j;
    }
  return A;
}

static inline void eq_csr_free(struct pds_csr *A) { free(A->rowptr), free(A->colidx), free(A->vals); }

static inline struct pds_csr eq_csr_upload(pds_ctx c, const struct pds_csr *h) {
  struct pds_csr d = *h;

  d.rowptr = eq_dev(c, h->rowptr, ((size_t)h->nrows + 1) * sizeof *h->rowptr);
  d.colidx = eq_dev(c, h->colidx, (size_t)h->nnz * sizeof *h->colidx);
  d.vals   = eq_dev(c, h->vals, (size_t)h->nnz * sizeof *h->vals);
  return d;
}
static inline void eq_csr_free_dev(pds_ctx c, struct pds_csr *d) {
  eq_dfree(c, &d->rowptr), eq_dfree(c, &d->colidx), eq_dfree(c, &d->vals);
}
static inline struct pds_bsr eq_bsr_upload(pds_ctx c, const struct pds_bsr *h) {
  struct pds_bsr d = *h;
  size_t         b2 = (size_t)h->bs * h->bs;

  d.browptr = eq_dev(c, h->browptr, ((size_t)h->nbrows + 1) * sizeof *h->browptr);
  d.bcolidx = eq_dev(c, h->bcolidx, (size_t)h->nnzb * sizeof *h->bcolidx);
  d.vals    = eq_dev(c, h->vals, (size_t)h->nnzb * b2 * sizeof *h->vals);
  return d;
}
static inline void eq_bsr_free_dev(pds_ctx c, struct pds_bsr *d) {
  eq_dfree(c, &d->browptr), eq_dfree(c, &d->bcolidx), eq_dfree(c, &d->vals);
}

static inline uint64_t eq_bits(double a) {
  uint64_t u;

  memcpy(&u, &a, sizeof u);
  return u;
}

/* got[0..n) against want[0..n): bitwise when exact, else |got - want| <= 8 terms eps mag (mag NULL: |want|). */
static inline void eq_compare_(const char *file, int line, const char *what, const pds_real *got,
                               const pds_real *want, const pds_real *mag, pds_size n, double terms, int exact) {
  for (pds_size i = 0; i < n; i++) {
    int ok;

    if (exact) ok = !memcmp(&got[i], &want[i], sizeof *got);
    else if (isnan(want[i])) ok = isnan(got[i]);
    else ok = got[i] == want[i] || /* equal infinities have no finite difference */
              fabs(got[i] - want[i]) <= 8 * terms * DBL_EPSILON * (mag ? mag[i] : fabs(want[i])) + DBL_MIN;
    if (!ok) {
      fprintf(stderr, "%s:%d: FAILED: %s: entry %" PDS_SIZE_FMT " of %" PDS_SIZE_FMT ": %.17g (0x%016" PRIx64
              ") vs ref %.17g (0x%016" PRIx64 ")%s\n", file, line, what, i, n, got[i], eq_bits(got[i]), want[i],
              eq_bits(want[i]), exact ? " (bitwise expected)" : "");
      exit(1);
    }
  }
}
#define eq_compare(...) eq_compare_(__FILE__, __LINE__, __VA_ARGS__)

/* Run a block of code with t OpenMP threads (a no-op wrapper without OpenMP). */
static inline int eq_threads_get(void) {
#if PDS_HAVE_OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
static inline void eq_threads_set(int t) {
#if PDS_HAVE_OPENMP
  omp_set_num_threads(t);
#else
  (void)t;
#endif
}

#endif
