/* src/mat/dist_impl.h: the distributed matrix's data (dist.c) and its halo exchange (halo.c). */
#ifndef PDS_DIST_IMPL_H
#define PDS_DIST_IMPL_H

#include "mat_impl.h"
#include "../sys/comm.h"

struct mat_dist {
  pds_mat         Ad, Ao;   /* this rank's diagonal block (local columns) and off-rank block (ghost columns; only the
                               nrows_o block rows that have any, listed by orow_d) */
  pds_mat         Apc;      /* what a local preconditioner of bjacobi factors instead of Ad (a rank's patches as a patch
                               set, dist_patches.c), or NULL: Ad */
  pds_int         nrows_o;
  pds_int        *orow_d;   /* backend [nrows_o]: the local block rows of Ao's rows */
  pds_int        *orow_h;   /* the same on the host */
  pds_vec         t, ysub;  /* [nrows_o bs]: Ao g, and y's values on those rows */
  int             bs;
  const char     *partition; /* how the rows were cut (mmio_dist.c: "contiguous", "metis"); NULL: by the caller */
  long            edgecut;   /* the partitioner's edge cut (-1: not known) */
  pds_int        *orig;     /* a renumbered operator's own numbering of each local row (host; mpisem: the space's
                               global point), or NULL */
  pds_size       *ranges;   /* [size + 1]: rank r owns the block rows ranges[r] .. ranges[r+1]-1 */
  pds_int        *ghost;    /* [nghost]: the global block column of each ghost, ascending (host) */
  pds_int         nghost;
  /* the halo (halo.c) */
  struct pds_halo halo;
  pds_int         nsend;    /* block entries sent, neighbour after neighbour */
  pds_int        *send_d;   /* backend [nsend]: the local block rows sent */
  pds_int        *send_h;   /* the same on the host */
  pds_vec         sendbuf;  /* [nsend bs]: the gathered values */
  pds_vec         g;        /* [nghost bs]: the ghost values received */
  pds_real       *hsend, *hrecv; /* host staging on a device backend (NULL where the backend's memory is the host's) */
};
#define DIST(A) ((struct mat_dist *)(A)->data)
#define MAT_CTX(A) ((A)->hdr.ctx)

/* A distributed matrix from the rank's nb block rows of bs (global block columns; ierr: an earlier local failure, agreed
   here): the header, the layout (an all-gather of the local sizes, which also agrees on earlier failures), the split
   and the halo plan. Every rank returns the same success or failure. */
PDS_INTERN int pds_dist_create(pds_ctx ctx, int ierr, pds_int nb, int bs, const pds_size *rp, const pds_int *cj,
                               const pds_real *v, pds_mat *A);
/* A distributed operator of nb rows whose product the caller sets (ops.apply): Ad the rank's part (taken, also on
   failure; its get_diagonal the operator's), ghost[nghost] the global rows whose values it needs from other ranks
   (ascending; host memory of the context allocator, taken), no off-rank block; the layout and the halo plan as
   pds_dist_create's. Collective; every rank returns the same success or failure. */
PDS_INTERN int pds_dist_create_ghosts(pds_ctx ctx, int ierr, const char *type, pds_int nb, pds_mat Ad, pds_int *ghost,
                                      pds_int nghost, pds_mat *A);
/* the exchange plan from the ghosts (collective; every rank returns the same success or failure) */
PDS_INTERN int pds_dist_halo_setup(pds_mat A);
/* start the exchange of x's values that the other ranks need; end: wait, the ghosts in D->g. On a device backend with
   asynchronous copies begin only queues the gather and its copy (posted_late: 1), and post, called after the local
   product is queued, sends the messages; otherwise begin sends them and post does nothing more. */
PDS_INTERN int pds_dist_halo_begin(pds_mat A, pds_vec x);
PDS_INTERN int pds_dist_halo_post(pds_mat A);
PDS_INTERN int pds_dist_halo_posted_late(pds_mat A);
PDS_INTERN int pds_dist_halo_end(pds_mat A);
PDS_INTERN void pds_dist_halo_free(pds_mat A);
PDS_INTERN const char *pds_dist_halo_mode(pds_mat A); /* "host memory", "staged through host memory" */

#endif
