/* tests/mpi/mpi_test.h: what the tests of tests/mpi share (after test.h and mpi.h): the rank and size, the start and
 * the end of a test, every rank's failure, a distributed vector against the serial one's rows, the same bits on every
 * rank, a CG solve. */
#ifndef PDS_MPI_TEST_H
#define PDS_MPI_TEST_H

#include <stdlib.h>

static int rank_, size_;

/* MPI, the distributed context on the backend (PDS_TEST_HALO, the GPU machine's runs: its halo transport) and a serial
   context on the same backend */
static inline void mpi_test_begin(int *argc, char ***argv, const char *backend, pds_ctx *ctx, pds_ctx *serial) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  TEST_CALL(pds_ctx_create_mpi(MPI_COMM_WORLD, backend, ctx));
  test_ctx_ = *ctx;
  TEST_ASSERT(pds_ctx_get_rank(*ctx) == rank_ && pds_ctx_get_size(*ctx) == size_);
  if (getenv("PDS_TEST_HALO")) TEST_CALL(pds_ctx_set_halo_transport(*ctx, getenv("PDS_TEST_HALO")));
  if (rank_ == 0) printf("halo transport: %s\n", pds_ctx_get_halo_transport(*ctx));
  TEST_CALL(pds_ctx_create(backend, serial));
  TEST_ASSERT(pds_ctx_get_rank(*serial) == 0 && pds_ctx_get_size(*serial) == 1);
}

static inline void mpi_test_end(pds_ctx *ctx, pds_ctx *serial, const char *name) {
  TEST_CALL(pds_ctx_destroy(serial));
  TEST_CALL(pds_ctx_destroy(ctx));
  MPI_Finalize();
  if (rank_ == 0) printf("%s: %d rank%s passed\n", name, size_, size_ > 1 ? "s" : "");
}

/* every rank must have failed with an error; none may hang (a hang is ctest's timeout) */
static inline void expect_all_fail(int ierr, const char *what) {
  int bad = ierr == PDS_OK, any = 0;

  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) TEST_FAIL("%s: some rank did not return an error (this rank: %s)", what, pds_error_name(ierr));
}

static inline double maxdiff(pds_vec xd, pds_vec xs) { /* distributed xd against the rows lo..hi of the serial xs */
  const pds_real *a, *b;
  pds_size        lo, hi;
  double          m = 0;

  TEST_CALL(pds_vec_get_ownership_range(xd, &lo, &hi));
  TEST_CALL(pds_vec_get_array_read(xd, PDS_MEM_HOST, &a));
  TEST_CALL(pds_vec_get_array_read(xs, PDS_MEM_HOST, &b));
  for (pds_size i = lo; i < hi; i++) m = fmax(m, fabs(a[i - lo] - b[i]));
  TEST_CALL(pds_vec_restore_array_read(xd, &a));
  TEST_CALL(pds_vec_restore_array_read(xs, &b));
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/* a and b hold the same bits on every rank */
static inline int same_bits(pds_vec a, pds_vec b) {
  const pds_real *x, *y;
  pds_size        n;
  int             same, all;

  TEST_CALL(pds_vec_get_size(a, &n));
  TEST_CALL(pds_vec_get_array_read(a, PDS_MEM_HOST, &x));
  TEST_CALL(pds_vec_get_array_read(b, PDS_MEM_HOST, &y));
  same = !n || !memcmp(x, y, (size_t)n * sizeof *x);
  TEST_CALL(pds_vec_restore_array_read(a, &x));
  TEST_CALL(pds_vec_restore_array_read(b, &y));
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

/* CG (rtol 1e-10, at most maxit iterations) with pc (and its sub-preconditioner sub, or NULL) on p from zero: the
   iterations, the solution in *xout (the caller destroys it); not converging fails the test */
static inline int cg_solve(pds_ctx ctx, pds_problem *p, const char *pc, const char *sub, int maxit, pds_vec *xout) {
  pds_solver        s;
  pds_precond       P;
  pds_vec           x;
  pds_solver_result r;

  TEST_CALL(pds_mat_create_vecs(p->A, &x, NULL));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, "cg", &s));
  TEST_CALL(pds_precond_create(ctx, pc, &P));
  if (sub) TEST_CALL(pds_precond_set_sub_type(P, sub));
  TEST_CALL(pds_solver_set_operator(s, p->A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0, maxit));
  TEST_CALL(pds_solver_solve(s, p->b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  if (r.reason <= 0) TEST_FAIL("cg + %s(%s) did not converge: %s", pc, sub ? sub : "", pds_reason_name(r.reason));
  pds_solver_destroy(&s), pds_precond_destroy(&P);
  *xout = x;
  return r.iterations;
}

#endif
