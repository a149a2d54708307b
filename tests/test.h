/* tests/test.h: the few macros pdesolve's C tests use. A test prints nothing on success and exits 1 on the
 * first failure, saying where. test_init() takes the backend from argv[1] (default /cpu/ref). */
#ifndef PDS_TEST_H
#define PDS_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve.h"

static pds_ctx test_ctx_;

#define TEST_FAIL(...)                                                   \
  do {                                                                   \
    fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);              \
    fprintf(stderr, __VA_ARGS__);                                        \
    fprintf(stderr, "\n");                                               \
    if (test_ctx_ && pds_ctx_get_error(test_ctx_)[0])                    \
      fprintf(stderr, "  last error: %s\n", pds_ctx_get_error(test_ctx_)); \
    exit(1);                                                             \
  } while (0)

#define TEST_ASSERT(cond) \
  do {                    \
    if (!(cond)) TEST_FAIL("%s", #cond); \
  } while (0)

/* A library call that must succeed. */
#define TEST_CALL(...)                                                            \
  do {                                                                            \
    int test_ierr_ = (__VA_ARGS__);                                               \
    if (test_ierr_) TEST_FAIL("%s returned %s", #__VA_ARGS__, pds_error_name(test_ierr_)); \
  } while (0)

/* |a - b| <= rtol * max(|a|, |b|) + atol */
#define TEST_ASSERT_NEAR(a, b, rtol, atol)                                                           \
  do {                                                                                               \
    double test_a_ = (a), test_b_ = (b);                                                             \
    double test_m_ = fabs(test_a_) > fabs(test_b_) ? fabs(test_a_) : fabs(test_b_);                 \
    if (!(fabs(test_a_ - test_b_) <= (rtol) * test_m_ + (atol)))                                      \
      TEST_FAIL("%s = %.17g and %s = %.17g differ by %.3g", #a, test_a_, #b, test_b_, fabs(test_a_ - test_b_)); \
  } while (0)

/* A call that must fail with a given code and a message containing substr (on ctx). */
#define TEST_ASSERT_ERR(ctx, call, code, substr)                                                         \
  do {                                                                                                   \
    int test_ierr_ = (call);                                                                             \
    if (test_ierr_ != (code))                                                                            \
      TEST_FAIL("%s returned %s, expected %s", #call, pds_error_name(test_ierr_), pds_error_name(code)); \
    if ((ctx) && !strstr(pds_ctx_get_error(ctx), (substr)))                                              \
      TEST_FAIL("%s: message '%s' lacks '%s'", #call, pds_ctx_get_error(ctx), (substr));                 \
    if (ctx) pds_ctx_clear_error(ctx);                                                                   \
  } while (0)

static inline pds_ctx test_init(int argc, char **argv) {
  const char *res = argc > 1 ? argv[1] : "/cpu/ref";

  if (pds_ctx_create(res, &test_ctx_)) {
    fprintf(stderr, "cannot create context %s\n", res);
    exit(1);
  }
  return test_ctx_;
}

static inline void test_finalize(pds_ctx *ctx) {
  TEST_CALL(pds_ctx_destroy(ctx));
  test_ctx_ = NULL;
}

/* Path of a file of ../shared (PDS_SHARED_DIR from CMake); NULL if that folder is absent. */
static inline const char *test_shared_path(const char *rel, char *buf, size_t len) {
#ifdef PDS_SHARED_DIR
  snprintf(buf, len, "%s/%s", PDS_SHARED_DIR, rel);
  FILE *f = fopen(buf, "r");
  if (!f) return NULL;
  fclose(f);
  return buf;
#else
  (void)rel, (void)buf, (void)len;
  return NULL;
#endif
}

/* A fan of nt counter-clockwise triangles around node 0 at the origin (the nodes 1..nt on the unit circle), every
   rim edge a boundary edge tagged 1: node 0's row has nt + 1 entries. */
static inline pds_mesh test_mesh_fan(pds_ctx ctx, int nt) {
  pds_real *xy  = malloc(sizeof(pds_real) * 2 * (size_t)(nt + 1));
  pds_int  *tri = malloc(sizeof(pds_int) * 3 * (size_t)nt), *be = malloc(sizeof(pds_int) * 2 * (size_t)nt);
  pds_int  *tag = malloc(sizeof(pds_int) * (size_t)nt);
  pds_mesh  m;

  if (!xy || !tri || !be || !tag) TEST_FAIL("out of host memory");
  xy[0] = xy[1] = 0.0;
  for (int j = 0; j < nt; j++) {
    xy[2 * (j + 1)]     = cos(2 * 3.141592653589793 * j / nt);
    xy[2 * (j + 1) + 1] = sin(2 * 3.141592653589793 * j / nt);
    tri[3 * j] = 0, tri[3 * j + 1] = 1 + j, tri[3 * j + 2] = 1 + (j + 1) % nt;
    be[2 * j] = 1 + j, be[2 * j + 1] = 1 + (j + 1) % nt, tag[j] = 1;
  }
  TEST_CALL(pds_mesh_create_tri(ctx, nt + 1, xy, nt, tri, nt, be, tag, &m));
  free(xy), free(tri), free(be), free(tag);
  return m;
}

/* ||b - A x||_2 / ||b||_2 */
static inline double test_true_relres(pds_mat A, pds_vec b, pds_vec x) {
  pds_vec  r;
  pds_real rn, bn;

  TEST_CALL(pds_vec_duplicate(b, &r));
  TEST_CALL(pds_mat_residual(A, b, x, r));
  TEST_CALL(pds_vec_norm2(r, &rn));
  TEST_CALL(pds_vec_norm2(b, &bn));
  TEST_CALL(pds_vec_destroy(&r));
  return rn / bn;
}

/* Defines static void NAME(pds_ctx ctx, const char *what, int (*op)(pds_ctx, const void *arg, T *obj), const void *arg):
   an allocation-failure sweep: op runs with the k-th allocation failing, k = 0, 1, ..., until it succeeds; each
   failure must be PDS_ERR_MEM with an "allocation" message and leave *obj NULL; the success is released by DESTROY;
   at least 3 allocations (PDS_TEST_VERBOSE prints the count). */
#define TEST_DEFINE_ALLOC_SWEEP(NAME, T, DESTROY)                                                                     \
  static void NAME(pds_ctx ctx, const char *what, int (*op)(pds_ctx, const void *, T *), const void *arg) {         \
    int  ierr = PDS_ERR_MEM;                                                                                         \
    long k;                                                                                                          \
                                                                                                                     \
    for (k = 0; k < 100000; k++) {                                                                                   \
      T obj = NULL;                                                                                                  \
                                                                                                                     \
      pds_ctx_set_alloc_fail(ctx, k);                                                                                \
      ierr = op(ctx, arg, &obj);                                                                                     \
      pds_ctx_set_alloc_fail(ctx, -1);                                                                               \
      if (ierr != PDS_ERR_MEM) {                                                                                     \
        DESTROY(&obj);                                                                                               \
        break;                                                                                                       \
      }                                                                                                              \
      TEST_ASSERT(obj == NULL);                                                                                      \
      if (!strstr(pds_ctx_get_error(ctx), "allocation"))                                                             \
        TEST_FAIL("%s, k = %ld: %s", what, k, pds_ctx_get_error(ctx));                                               \
      pds_ctx_clear_error(ctx);                                                                                      \
    }                                                                                                                \
    if (ierr) TEST_FAIL("%s: allocation %ld gave %s: %s", what, k, pds_error_name(ierr), pds_ctx_get_error(ctx));   \
    if (k < 3) TEST_FAIL("%s: only %ld allocations", what, k);                                                       \
    if (getenv("PDS_TEST_VERBOSE")) printf("%s: %ld allocations\n", what, k);                                       \
  }

/* A as a new csr matrix, through its bsr form (stencil7 and bsr matrices; the entries of every block) */
static inline pds_mat test_mat_csr_copy(pds_mat A) {
  pds_mat B, C;

  TEST_CALL(pds_mat_convert_to_bsr(A, 0, &B));
  TEST_CALL(pds_mat_convert_to_csr(B, &C));
  TEST_CALL(pds_mat_destroy(&B));
  return C;
}

/* a malloc'd host copy of all of v's values (free it) */
static inline double *test_vec_values(pds_vec v) {
  pds_size n;
  double  *h;

  TEST_CALL(pds_vec_get_size(v, &n));
  h = malloc(sizeof *h * (size_t)(n > 0 ? n : 1));
  TEST_ASSERT(h);
  TEST_CALL(pds_vec_get_values(v, h, PDS_MEM_HOST));
  return h;
}

/* max |x - u_exact| after CG + jacobi from 0 to rtol (it must converge) on a generated problem; *its: the iterations
   (may be NULL). The problem is kept. */
static inline double test_problem_cg_error(pds_ctx ctx, pds_problem *p, double rtol, int maxit, int *its) {
  pds_solver        s;
  pds_precond       pc;
  pds_vec           x;
  pds_solver_result res;
  pds_real          e;

  TEST_CALL(pds_vec_duplicate(p->b, &x));
  TEST_CALL(pds_vec_set(x, 0));
  TEST_CALL(pds_solver_create(ctx, "cg", &s));
  TEST_CALL(pds_precond_create(ctx, "jacobi", &pc));
  TEST_CALL(pds_solver_set_operator(s, p->A));
  TEST_CALL(pds_solver_set_precond(s, pc));
  TEST_CALL(pds_solver_set_tolerances(s, rtol, 0, maxit));
  TEST_CALL(pds_solver_solve(s, p->b, x));
  TEST_CALL(pds_solver_get_result(s, &res));
  TEST_ASSERT(res.reason > 0);
  TEST_CALL(pds_vec_axpy(x, -1.0, p->u_exact));
  TEST_CALL(pds_vec_norm_inf(x, &e));
  if (its) *its = res.iterations;
  TEST_CALL(pds_precond_destroy(&pc));
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_vec_destroy(&x));
  return e;
}

/* nonsymmetric, diagonally dominant convection-diffusion on an m x m grid (5-point, upwinded in x) */
static inline pds_mat test_convdiff(pds_ctx ctx, int m) {
  int      n = m * m, k = 0;
  pds_int *ri = malloc(sizeof(pds_int) * 5 * n), *cj = malloc(sizeof(pds_int) * 5 * n);
  double  *v = malloc(sizeof(double) * 5 * n);
  pds_mat  A;

  if (!ri || !cj || !v) TEST_FAIL("out of host memory");
  for (int j = 0; j < m; j++)
    for (int i = 0; i < m; i++) {
      int row = j * m + i;

      ri[k] = row, cj[k] = row, v[k++] = 4.0 + 1.5;
      if (i > 0) ri[k] = row, cj[k] = row - 1, v[k++] = -1.0 - 1.5; /* upwind in x */
      if (i < m - 1) ri[k] = row, cj[k] = row + 1, v[k++] = -1.0;
      if (j > 0) ri[k] = row, cj[k] = row - m, v[k++] = -1.0;
      if (j < m - 1) ri[k] = row, cj[k] = row + m, v[k++] = -1.0;
    }
  TEST_CALL(pds_mat_create_csr_from_triplets(ctx, n, n, k, ri, cj, v, &A));
  free(ri), free(cj), free(v);
  return A;
}

#endif
