/* src/mat/dist_stencil7.c: a multi-block structured grid spread over the ranks ("mpistencil7"): each rank holds whole
 * grids (the blocks of a multi-block code, paper 000's INCOMP3D layout) and the couplings of their points to points of
 * other grids, its own or another rank's. It is a distributed matrix of dist.c whose diagonal block is a stencil7
 * matrix: the rank's grids, with the couplings among them as that matrix's coupling part, and whose off-rank block
 * holds the couplings to other ranks' grids. So the product is the stencil7 product plus the couplings, overlapped with
 * the halo exchange as for mpibsr, and bjacobi with bilu0 factors every grid alone: Richardson with it is the paper's
 * multi-block defect correction, the residual exchanged between block faces before each correction (Eq. 4). */
#include "dist_impl.h"

/* the local checks of the grids and the couplings (the columns are checked by the split) */
static int s7d_args(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals, pds_size m,
                    const pds_int *row, const pds_int *col, const pds_real *blocks, pds_mat *A, pds_size *np) {
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL, *np = 0;
  PDS_CHECK(nb >= 0, ctx, PDS_ERR_ARG, "stencil7: %d grids on this rank", nb);
  PDS_CHECK(nb == 0 || vals, ctx, PDS_ERR_ARG, "stencil7: vals is NULL");
  PDS_CHECK(m == 0 || (row && col && blocks), ctx, PDS_ERR_ARG, "stencil7: row, col or blocks is NULL");
  PDS_CALL(pds_stencil7_points(ctx, nb, dims, n, np));
  return pds_stencil7_check_couplings(ctx, n, m, blocks);
}

int pds_mat_create_stencil7_dist(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals, pds_size m,
                                 const pds_int *row, const pds_int *col, const pds_real *blocks, pds_mat *A) {
  pds_mat   M = NULL, S = NULL, C;
  pds_size  np = 0, *rp = NULL;
  pds_int  *cj = NULL;
  pds_real *v  = NULL;
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  pds_comm_begin(ctx);
  ierr = s7d_args(ctx, nb, dims, n, vals, m, row, col, blocks, A, &np);
  if (!ierr) ierr = pds_bsr_rows_from_blocks(ctx, (pds_int)np, n, m, row, col, blocks, &rp, &cj, &v);
  /* the couplings split as any distributed matrix's rows: those to this rank's points into the diagonal block,
     the others into the off-rank block and the halo plan (agrees on every failure so far) */
  ierr = pds_dist_create(ctx, ierr, (pds_int)np, n, rp ? rp : &(pds_size){0}, cj, v, &M);
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &cj);
  pds_free(ctx, PDS_MEM_HOST, &v);
  if (ierr) return ierr;
  {
    struct mat_dist *D   = DIST(M);
    const pds_size   lo  = D->ranges[ctx->rank];

    for (pds_size k = 0; k < m && !ierr; k++)
      if ((pds_size)col[k] == lo + (pds_size)row[k])
        ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "stencil7 coupling %" PDS_SIZE_FMT " couples point %" PDS_INT_FMT
                         " to itself: its diagonal block is the grid's (delta)", k, col[k]);
    C = D->Ad, D->Ad = NULL; /* taken by the stencil7 matrix, also when it fails */
    if (ierr) pds_mat_destroy(&C);
    else ierr = pds_mat_stencil7_create_local(ctx, nb, dims, n, vals, PDS_MEM_HOST, C, &S);
    ierr = pds_comm_agree(ctx, ierr);
    if (ierr) {
      pds_mat_destroy(&S);
      pds_mat_destroy(&M);
      return ierr;
    }
    D->Ad        = S;
    D->partition = "whole grids per rank";
    M->type      = "mpistencil7";
    M->nnz       = S->nnz + D->Ao->nnz;
  }
  *A = M;
  return PDS_OK;
}
