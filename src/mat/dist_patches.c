/* src/mat/dist_patches.c: a patch set spread over the ranks ("mpipatches", paper 002's patches on many processes):
 * every rank knows the whole list of boxes (a few numbers a patch) and holds the cells of whole patches, patch after
 * patch, rank r the patches whose cells start in its share nc r / P .. nc (r + 1) / P of all cells. The operator is
 * an mpicsr matrix of the rank's rows (the exact 7-point rows of the whole set, src/mat/patches.c's, so products and
 * Krylov methods see the global operator), and beside it the rank's patches as a patch set of their own: what
 * bjacobi gives its local preconditioner (relax, gmg), where the faces to other ranks' patches are Dirichlet faces as
 * the domain's boundary is (the rank's block with those couplings moved onto the diagonal: a preconditioner, not the
 * operator). */
#include "dist_impl.h"

/* the first cell of patch q (the number of cells when q is past the last) */
static pds_size first_cell(const struct pds_patches *P, int q) { return q < P->np ? P->hgeom[q].first : P->ncells; }

/* the rank's patches q0 .. q1-1: whole patches, cut by cells */
static void rank_patches(const struct pds_patches *P, int rank, int size, int *q0, int *q1) {
  const pds_size lo = (pds_size)((double)P->ncells * rank / size), hi = (pds_size)((double)P->ncells * (rank + 1) / size);
  int            q = 0;

  while (q < P->np && P->hgeom[q].first < lo) q++;
  *q0 = q;
  while (q < P->np && P->hgeom[q].first < hi) q++;
  *q1 = rank + 1 == size ? P->np : q;
}

int pds_mat_patches_dist_from(pds_ctx ctx, pds_mat G, pds_mat *A) {
  const struct pds_patches *P  = pds_mat_patches_view(G);
  pds_size                 *rp = NULL;
  pds_int                  *ci = NULL;
  pds_real                 *v  = NULL;
  pds_mat                   M = NULL, Pl = NULL;
  pds_patch                *pt = NULL;
  int                       q0 = 0, q1 = 0, ierr = PDS_OK;

  *A = NULL;
  pds_comm_begin(ctx);
  if (!P) ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "mpipatches: the whole set is not a patches matrix");
  if (!ierr) {
    rank_patches(P, ctx->rank, ctx->size, &q0, &q1);
    ierr = pds_mat_patches_rows(G, q0, q1, &rp, &ci, &v);
  }
  if (!ierr && q1 > q0) { /* the rank's patches as their own set, on the rank's backend */
    ierr = PDS_NEW(ctx, q1 - q0, &pt);
    for (int q = q0; !ierr && q < q1; q++) ierr = pds_mat_patches_get_patch(G, q, &pt[q - q0], NULL);
    if (!ierr) ierr = pds_mat_create_patches(ctx, q1 - q0, pt, P->c, &Pl);
  }
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) /* collective, agrees */
    ierr = pds_mat_create_csr_dist(ctx, (pds_int)(first_cell(P, q1) - first_cell(P, q0)), rp, ci, v, &M);
  if (!ierr) {
    DIST(M)->Apc       = Pl, Pl = NULL;
    DIST(M)->partition = "whole patches per rank";
    M->type            = "mpipatches";
    *A                 = M;
  }
  pds_mat_destroy(&Pl);
  pds_free(ctx, PDS_MEM_HOST, &pt);
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

/* the whole set on a host context of its own (*host; the same on every rank), a failure reported on ctx (local) */
int pds_mat_patches_whole(pds_ctx ctx, int np, const pds_patch *patches, const pds_real stencil[7], pds_ctx *host,
                          pds_mat *G) {
  int ierr = pds_ctx_create("/cpu/ref", host);

  if (!ierr && (ierr = pds_mat_create_patches(*host, np, patches, stencil, G)))
    ierr = PDS_ERROR(ctx, ierr, "%s", pds_ctx_get_error(*host));
  return ierr;
}

int pds_mat_create_patches_dist(pds_ctx ctx, int np, const pds_patch *patches, const pds_real stencil[7], pds_mat *A) {
  pds_ctx host = NULL;
  pds_mat G    = NULL;
  int     ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  pds_comm_begin(ctx);
  /* the whole set's geometry and ghost map on the host (every rank the same): the rows and the rank's share */
  ierr = pds_comm_agree(ctx, pds_mat_patches_whole(ctx, np, patches, stencil, &host, &G));
  if (!ierr) ierr = pds_mat_patches_dist_from(ctx, G, A);
  pds_mat_destroy(&G);
  pds_ctx_destroy(&host);
  return ierr;
}
