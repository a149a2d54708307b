/* tests/equiv/equiv_pbjacobi.c: the point-block Jacobi kernels of the backend under test against /cpu/ref:
 * blocks_invert (Gauss-Jordan with partial pivoting, in place) and blocks_apply (y = blockdiag(inv) x), for
 * bs = 1..8 and 11 and nb = 0, 1, a few, many (the threaded path); singular blocks (a zero column, a NaN) at the
 * start, middle and end must be reported with the index of the first one, as ref does; and the pbjacobi
 * flow on a matrix: block diagonal of a BSR matrix, invert, apply, check A_ii y_i = x_i. */
#include "equiv.h"

static eq_env E;

/* nb random bs x bs blocks made diagonally dominant (well conditioned), row-major */
static pds_real *random_blocks(pds_size nb, int bs) {
  pds_real *b = eq_random(nb * bs * bs);

  for (pds_size k = 0; k < nb; k++)
    for (int r = 0; r < bs; r++) b[(k * bs + r) * bs + r] += (r % 2 ? -1 : 1) * (bs + 1.0);
  return b;
}

/* invert on both contexts; returns the bad indices and leaves the results in got / want */
static void invert_both(pds_size nb, int bs, const pds_real *blocks, pds_real *got, pds_real *want, pds_size *bad_be,
                        pds_size *bad_ref) {
  size_t    bytes = (size_t)nb * bs * bs * sizeof *blocks;
  pds_real *d     = eq_dev(E.be, blocks, bytes);

  memcpy(want, blocks, bytes);
  *bad_be = *bad_ref = -7;
  TEST_CALL(E.be->k->blocks.invert(E.be, nb, bs, d, bad_be));
  TEST_CALL(E.ref->k->blocks.invert(E.ref, nb, bs, want, bad_ref));
  eq_host(E.be, got, d, bytes);
  eq_dfree(E.be, &d);
}

static void test_invert_apply(pds_size nb, int bs) {
  size_t    n2 = (size_t)nb * bs * bs, n1 = (size_t)nb * bs;
  pds_real *blocks = random_blocks(nb, bs), *got = eq_xmalloc(n2 * sizeof *got), *want = eq_xmalloc(n2 * sizeof *want);
  pds_real *x = eq_random((pds_size)n1), *ygot = eq_xmalloc(n1 * sizeof *ygot), *ywant = eq_xmalloc(n1 * sizeof *ywant);
  pds_real *bi, *bx, *by;
  pds_size  bad_be, bad_ref;
  char      msg[128];

  invert_both(nb, bs, blocks, got, want, &bad_be, &bad_ref);
  TEST_ASSERT(bad_be == -1 && bad_ref == -1);
  snprintf(msg, sizeof msg, "blocks_invert nb %" PDS_SIZE_FMT " bs %d", nb, bs);
  /* Gauss-Jordan: about bs^2 operations reach each entry; entries of the inverse are O(1/bs) here */
  eq_compare(msg, got, want, NULL, (pds_size)n2, (double)bs * bs + 1, E.exact);
  /* A_b inv_b = I (ref), to know the oracle itself is right */
  for (pds_size k = 0; k < (nb < 50 ? nb : 50); k++)
    for (int r = 0; r < bs; r++)
      for (int c = 0; c < bs; c++) {
        pds_real s = 0;

        for (int m = 0; m < bs; m++) s += blocks[(k * bs + r) * bs + m] * want[(k * bs + m) * bs + c];
        TEST_ASSERT_NEAR(s, r == c ? 1.0 : 0.0, 0, 1e-13 * bs);
      }
  /* apply with the inverses each backend computed */
  bi = eq_dev(E.be, got, n2 * sizeof *got);
  bx = eq_dev(E.be, x, n1 * sizeof *x);
  by = eq_dev(E.be, x, n1 * sizeof *x);
  TEST_CALL(E.be->k->blocks.apply(E.be, nb, bs, bi, bx, by));
  TEST_CALL(E.ref->k->blocks.apply(E.ref, nb, bs, want, x, ywant));
  eq_host(E.be, ygot, by, n1 * sizeof *ygot);
  snprintf(msg, sizeof msg, "blocks_apply nb %" PDS_SIZE_FMT " bs %d", nb, bs);
  eq_compare(msg, ygot, ywant, NULL, (pds_size)n1, (double)bs * bs + 2, E.exact);
  if (E.omp) { /* 1 and 3 threads: the same bits */
    int       t0 = eq_threads_get();
    pds_real *g1 = eq_xmalloc(n2 * sizeof *g1), *g3 = eq_xmalloc(n2 * sizeof *g3);

    eq_threads_set(1);
    invert_both(nb, bs, blocks, g1, want, &bad_be, &bad_ref);
    eq_threads_set(3);
    invert_both(nb, bs, blocks, g3, want, &bad_be, &bad_ref);
    eq_threads_set(t0);
    snprintf(msg, sizeof msg, "blocks_invert nb %" PDS_SIZE_FMT " bs %d, 1 vs 3 threads", nb, bs);
    eq_compare(msg, g3, g1, NULL, (pds_size)n2, 1, 1);
    free(g1), free(g3);
  }
  eq_dfree(E.be, &bi), eq_dfree(E.be, &bx), eq_dfree(E.be, &by);
  free(blocks), free(got), free(want), free(x), free(ygot), free(ywant);
}

/* Singular blocks at s1 < s2 (a zero column at s1, a NaN at s2; s2 < 0: none): both report s1; the blocks
   before it are inverted identically. */
static void test_singular(pds_size nb, int bs, pds_size s1, pds_size s2) {
  size_t    n2 = (size_t)nb * bs * bs;
  pds_real *blocks = random_blocks(nb, bs), *got = eq_xmalloc(n2 * sizeof *got), *want = eq_xmalloc(n2 * sizeof *want);
  pds_size  bad_be, bad_ref;
  char      msg[128];

  for (int r = 0; r < bs; r++) blocks[(s1 * bs + r) * bs + (bs - 1) / 2] = 0.0;
  if (s2 >= 0) blocks[s2 * bs * bs + bs * bs / 2] = NAN;
  invert_both(nb, bs, blocks, got, want, &bad_be, &bad_ref);
  if (bad_ref != s1 || bad_be != s1)
    TEST_FAIL("singular block %" PDS_SIZE_FMT " of %" PDS_SIZE_FMT " (bs %d): backend reports %" PDS_SIZE_FMT
              ", ref %" PDS_SIZE_FMT, s1, nb, bs, bad_be, bad_ref);
  snprintf(msg, sizeof msg, "blocks_invert before the singular block %" PDS_SIZE_FMT " bs %d", s1, bs);
  eq_compare(msg, got, want, NULL, s1 * bs * bs, (double)bs * bs + 1, E.exact);
  free(blocks), free(got), free(want);
}

/* pbjacobi on a matrix: diagonal blocks of a BSR matrix (shifted to be invertible), invert, apply. */
static void test_matrix_flow(int bs, pds_int nbr) {
  struct pds_csr A = eq_csr_random(nbr * bs, nbr * bs, 5, 5, 0);
  pds_mat        C, B;
  pds_size       nb = nbr, bad_be, bad_ref;
  size_t         n2 = (size_t)nb * bs * bs, n1 = (size_t)nb * bs;
  pds_real      *blocks = eq_xmalloc(n2 * sizeof *blocks), *got = eq_xmalloc(n2 * sizeof *got);
  pds_real      *want = eq_xmalloc(n2 * sizeof *want), *x = eq_random((pds_size)n1);
  pds_real      *ygot = eq_xmalloc(n1 * sizeof *ygot), *ywant = eq_xmalloc(n1 * sizeof *ywant), *bi, *bx, *by;
  char           msg[128];

  TEST_CALL(pds_mat_create_csr(E.ref, A.nrows, A.ncols, A.rowptr, A.colidx, A.vals, PDS_MEM_HOST, PDS_COPY_VALUES, &C));
  TEST_CALL(pds_mat_convert_to_bsr(C, bs, &B));
  TEST_CALL(pds_mat_get_block_diagonal(B, bs, blocks));
  for (pds_size k = 0; k < nb; k++)
    for (int r = 0; r < bs; r++) blocks[(k * bs + r) * bs + r] += 2.0 * bs + 2;
  invert_both(nb, bs, blocks, got, want, &bad_be, &bad_ref);
  TEST_ASSERT(bad_be == -1 && bad_ref == -1);
  bi = eq_dev(E.be, got, n2 * sizeof *got);
  bx = eq_dev(E.be, x, n1 * sizeof *x);
  by = eq_dev(E.be, x, n1 * sizeof *x);
  TEST_CALL(E.be->k->blocks.apply(E.be, nb, bs, bi, bx, by));
  TEST_CALL(E.ref->k->blocks.apply(E.ref, nb, bs, want, x, ywant));
  eq_host(E.be, ygot, by, n1 * sizeof *ygot);
  snprintf(msg, sizeof msg, "pbjacobi apply on a bsr matrix, bs %d", bs);
  eq_compare(msg, ygot, ywant, NULL, (pds_size)n1, (double)bs * bs + 2, E.exact);
  for (pds_size k = 0; k < nb; k++) /* D_k y_k = x_k */
    for (int r = 0; r < bs; r++) {
      pds_real s = 0;

      for (int c = 0; c < bs; c++) s += blocks[(k * bs + r) * bs + c] * ygot[k * bs + c];
      TEST_ASSERT_NEAR(s, x[k * bs + r], 0, 1e-12);
    }
  eq_dfree(E.be, &bi), eq_dfree(E.be, &bx), eq_dfree(E.be, &by);
  TEST_CALL(pds_mat_destroy(&B));
  TEST_CALL(pds_mat_destroy(&C));
  eq_csr_free(&A);
  free(blocks), free(got), free(want), free(x), free(ygot), free(ywant);
}

int main(int argc, char **argv) {
  const int bss[] = {1, 2, 3, 4, 5, 6, 7, 8, 11};

  E = eq_init(argc, argv);
  eq_seed(4);
  for (size_t s = 0; s < sizeof bss / sizeof bss[0]; s++) {
    int      bs    = bss[s];
    pds_size large = 200000 / (bs * bs) + 17;

    test_invert_apply(0, bs);
    test_invert_apply(1, bs);
    test_invert_apply(7, bs);
    test_invert_apply(large, bs);
    test_singular(1, bs, 0, -1);
    test_singular(9, bs, 4, 7);
    test_singular(large, bs, 0, large - 1);
    test_singular(large, bs, large / 2 + 1, large / 2 + 3);
    test_singular(large, bs, large - 1, -1);
    test_matrix_flow(bs, 20);
    test_matrix_flow(bs, 30000 / bs);
  }
  eq_finalize(&E);
  return 0;
}
