/* tests/mpi/mpi_test.h: what the tests of tests/mpi share (after test.h and mpi.h): the rank and size, every rank's
 * failure, a distributed vector against the serial one's rows, the same bits on every rank. */
#ifndef PDS_MPI_TEST_H
#define PDS_MPI_TEST_H

static int rank_, size_;

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

#endif
