/* tests/mpi/tm02_stencil7.c: a multi-block structured grid over the ranks ("mpistencil7": one channel cut into touching
 * blocks, whole blocks per rank, pds_channel_generate_decomposed_dist) against the serial coupled stencil7 matrix of the
 * same blocks (pds_channel_generate_decomposed), run by ctest under mpirun -np 1, 2 and 3 (argv[1]: the backend).
 *   - the right-hand side is the serial one's rows, bit for bit; the product equals the serial product to round-off,
 *     through the halo of the points coupled across the ranks' cuts;
 *   - bjacobi with bilu0 on the ranks' grids is the serial bilu0 of the same grids (each grid factored alone, the
 *     couplings left to the residual), so GMRES and Richardson (paper 000's defect correction with the residual
 *     exchanged between block faces, Eq. 4) take the serial iteration counts with the serial iterates to round-off,
 *     and the same bits when run twice; asm(ilu0) converges on it to the same solution;
 *   - two blocks on three ranks leave rank 0 without rows;
 *   - failures: a coupling column outside the grid on one rank, an allocation failing on one rank while generating,
 *     and bilu0 straight on the distributed matrix: every rank returns the error, none hangs.
 * PDS_TEST_HALO=nccl (the GPU machine's runs) makes every product's halo travel through NCCL. */
#include <mpi.h>
#include <stdlib.h>

#include "pdesolve_mpi.h"
#include "test.h"
#include "mpi_test.h"

/* Richardson or GMRES with pc (bjacobi gets bilu0 on each rank's grids) from x0 = 0; the iterations */
static int solve(pds_ctx ctx, pds_mat A, pds_vec b, const char *method, const char *pc, const char *sub, pds_vec *xout) {
  pds_solver        s;
  pds_precond       P;
  pds_vec           x;
  pds_solver_result r;

  TEST_CALL(pds_mat_create_vecs(A, &x, NULL));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, method, &s));
  TEST_CALL(pds_precond_create(ctx, pc, &P));
  if (sub) TEST_CALL(pds_precond_set_sub_type(P, sub));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_precond(s, P));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-10, 0, 1000));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  if (r.reason <= 0) TEST_FAIL("%s + %s did not converge: reason %s", method, pc, pds_reason_name(r.reason));
  pds_solver_destroy(&s), pds_precond_destroy(&P);
  *xout = x;
  return r.iterations;
}

static void check_split(pds_ctx ctx, pds_ctx serial, const int split[3], int n, pds_int I, pds_int J, pds_int K) {
  static const char *methods[] = {"gmres", "richardson"};
  pds_channel_opts   o;
  pds_mat            A, As;
  pds_vec            b, bs, x, y, xs, ys;
  pds_int            N;
  pds_real           scale;

  pds_channel_opts_default(&o);
  o.n = n, o.ni = I, o.nj = J, o.nk = K, o.cfl = 1;
  TEST_CALL(pds_channel_generate_decomposed_dist(ctx, &o, split, &A, &b));
  TEST_CALL(pds_channel_generate_decomposed(serial, &o, split, &As, &bs));
  TEST_ASSERT(!strcmp(pds_mat_get_type(A), "mpistencil7") && pds_mat_is_distributed(A));
  TEST_CALL(pds_mat_get_global_size(A, &N));
  TEST_ASSERT(N == I * J * K * n);
  if (size_ == 3 && split[0] * split[1] * split[2] == 2 && rank_ == 0) { /* blocks 0 .. 2 r / 3 - 1: none here */
    pds_int nl;

    TEST_CALL(pds_mat_get_size(A, &nl, NULL));
    TEST_ASSERT(nl == 0);
  }
  TEST_ASSERT(maxdiff(b, bs) == 0);
  /* the product */
  TEST_CALL(pds_mat_create_vecs(A, &x, &y));
  TEST_CALL(pds_vec_duplicate(bs, &xs));
  TEST_CALL(pds_vec_duplicate(bs, &ys));
  TEST_CALL(pds_vec_set_random(x, 3));
  TEST_CALL(pds_vec_set_random(xs, 3));
  TEST_CALL(pds_mat_apply(A, x, y));
  TEST_CALL(pds_mat_apply(As, xs, ys));
  TEST_CALL(pds_vec_norm_inf(ys, &scale));
  TEST_ASSERT(maxdiff(y, ys) <= 1e-13 * scale);
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xs), pds_vec_destroy(&ys);
  /* block BILU over the ranks' grids = the serial multi-block BILU */
  for (int m = 0; m < 2; m++) {
    pds_vec x2;
    int     it  = solve(ctx, A, b, methods[m], "bjacobi", "bilu0", &x);
    int     it2 = solve(ctx, A, b, methods[m], "bjacobi", "bilu0", &x2);
    int     its = solve(serial, As, bs, methods[m], "bilu0", NULL, &xs);
    pds_real xn;

    if (rank_ == 0)
      printf("split %dx%dx%d n=%d, %s + bjacobi(bilu0): %d iterations on %d rank%s, %d serial\n", split[0], split[1],
             split[2], n, methods[m], it, size_, size_ > 1 ? "s" : "", its);
    TEST_ASSERT(it == its && it == it2 && same_bits(x, x2));
    TEST_CALL(pds_vec_norm_inf(xs, &xn));
    TEST_ASSERT(maxdiff(x, xs) <= 1e-8 * xn);
    pds_vec_destroy(&x), pds_vec_destroy(&x2), pds_vec_destroy(&xs);
  }
  { /* overlapping Schwarz with ILU(0) of the extended rows (the grids' bsr form) */
    pds_real xn;

    solve(ctx, A, b, "gmres", "asm", "ilu0", &x);
    solve(serial, As, bs, "gmres", "ilu0", NULL, &xs);
    TEST_CALL(pds_vec_norm_inf(xs, &xn));
    TEST_ASSERT(maxdiff(x, xs) <= 1e-7 * xn);
    pds_vec_destroy(&x), pds_vec_destroy(&xs);
  }
  pds_vec_destroy(&b), pds_vec_destroy(&bs), pds_mat_destroy(&A), pds_mat_destroy(&As);
}

static void check_failures(pds_ctx ctx) {
  const int        last = size_ - 1, split[3] = {3, 1, 1};
  pds_channel_opts o;
  pds_mat          A = NULL;
  pds_vec          b = NULL;
  int              ierr;

  { /* a coupling to a point outside the grids, on the last rank */
    const pds_int dims[3] = {2, 2, 2};
    pds_real      vals[7 * 8] = {0}, blk[1] = {-1};
    pds_int       row[1] = {0}, col[1] = {8 * size_ + 3};

    for (int p = 0; p < 8; p++) vals[7 * p + 3] = 4;
    ierr = pds_mat_create_stencil7_dist(ctx, 1, dims, 1, vals, rank_ == last, row, col, blk, &A);
    expect_all_fail(ierr, "a coupling outside the grids");
    TEST_ASSERT(!A);
  }
  pds_channel_opts_default(&o);
  o.n = 4, o.ni = 6, o.nj = 4, o.nk = 3;
  for (long k = 1; k <= 14; k++) { /* an allocation failing on the last rank while generating and assembling */
    if (rank_ == last) pds_ctx_set_alloc_fail(ctx, k);
    ierr = pds_channel_generate_decomposed_dist(ctx, &o, split, &A, &b);
    pds_ctx_set_alloc_fail(ctx, -1);
    if (size_ > 1 || ierr) expect_all_fail(ierr, "an allocation failing on one rank in generation");
    pds_mat_destroy(&A), pds_vec_destroy(&b);
  }
  { /* bilu0 straight on the distributed matrix: an error naming bjacobi */
    pds_precond P;

    TEST_CALL(pds_channel_generate_decomposed_dist(ctx, &o, split, &A, &b));
    TEST_CALL(pds_precond_create(ctx, "bilu0", &P));
    TEST_CALL(pds_precond_set_operator(P, A));
    ierr = pds_precond_setup(P);
    expect_all_fail(ierr, "bilu0 on a distributed matrix");
    TEST_ASSERT(strstr(pds_ctx_get_error(ctx), "bjacobi"));
    pds_precond_destroy(&P), pds_mat_destroy(&A), pds_vec_destroy(&b);
  }
}

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : "/cpu/ref";
  pds_ctx     ctx, serial;

  mpi_test_begin(&argc, &argv, backend, &ctx, &serial);
  check_split(ctx, serial, (const int[3]){4, 1, 1}, 6, 8, 6, 4); /* slabs along the flow */
  check_split(ctx, serial, (const int[3]){2, 2, 1}, 5, 6, 5, 4); /* cuts in two directions, uneven blocks */
  check_split(ctx, serial, (const int[3]){2, 1, 1}, 4, 5, 4, 3); /* two blocks: on three ranks one has none */
  check_failures(ctx);
  mpi_test_end(&ctx, &serial, "tm02_stencil7");
  return 0;
}
