/* src/sys/comm.h: the library's only door to MPI (src/sys/comm.c). Nothing else includes mpi.h, so every module
 * compiles the same with and without MPI; on a context without a communicator (pds_ctx_create, or a build without
 * MPI) every collective here returns at once, and the one-rank results are the serial ones.
 *
 * Error agreement. A rank that fails must not leave the others waiting in a collective. Every collective carries the
 * calling rank's error code: pds_comm_sum and pds_comm_max carry 0, pds_comm_agree the error a collective function is
 * about to return. Both exchange the same fixed-size record (MPI_Allgather), so a failing rank's agree meets the others'
 * next sum or agree, whichever it is, and every rank returns the error: the one that failed with its own message, the
 * others with "rank r failed (code)". Once an error has been agreed, the ranks return it through the agree calls on
 * their way out without communicating again (ctx->comm_err). Point-to-point exchanges (the halo) carry no error: their
 * buffers are made at setup, so a product cannot fail between its sends and receives on a CPU backend. */
#ifndef PDS_COMM_H
#define PDS_COMM_H

#include "sys_impl.h"

/* the start of a collective function: forget an error agreed by an earlier call */
static inline void pds_comm_begin(pds_ctx ctx) { ctx->comm_err = 0; }
/* 1 when ctx has a communicator of more than one rank */
PDS_INTERN int pds_comm_parallel(pds_ctx ctx);
/* v[0..k) = the sum over the ranks, added in rank order on every rank: the same bits on every rank and in every run
   with the same number of ranks */
PDS_INTERN int pds_comm_sum(pds_ctx ctx, int k, pds_real *v);
PDS_INTERN int pds_comm_max(pds_ctx ctx, int k, pds_real *v); /* v[0..k) = the maximum over the ranks */
/* 1 when the MPI library takes device (CUDA) pointers in its calls; the halo stages through host memory either way
   for now (docs/mpi.md) */
PDS_INTERN int pds_comm_device_aware(void);
/* collective: ierr, or the error of a rank that failed (see above) */
PDS_INTERN int pds_comm_agree(pds_ctx ctx, int ierr);
/* all[r] = rank r's v (all: size entries); an agreed error as pds_comm_agree's when ierr != 0 on some rank */
PDS_INTERN int pds_comm_allgather_size(pds_ctx ctx, int ierr, pds_size v, pds_size *all);
/* buf (bytes) from rank root to every rank */
PDS_INTERN int pds_comm_bcast(pds_ctx ctx, void *buf, size_t bytes, int root);
/* root sends counts[r] elements of elsize bytes from send + displs[r] elements to rank r, which receives them into recv
   (counts, displs: significant on root) */
PDS_INTERN int pds_comm_scatterv(pds_ctx ctx, const void *send, const pds_size *counts, const pds_size *displs,
                                 size_t elsize, void *recv, pds_size rcount, int root);
/* the reverse: every rank's scount elements to root, into recv + displs[r] elements (counts, displs: significant on
   root) */
PDS_INTERN int pds_comm_gatherv(pds_ctx ctx, const void *send, pds_size scount, size_t elsize, void *recv,
                                const pds_size *counts, const pds_size *displs, int root);
/* every rank sends sendcounts[r] pds_int values to rank r (send + sdispls[r]) and receives recvcounts[r] from it
   (recvcounts: computed here with an all-to-all of the counts when recv is NULL) */
PDS_INTERN int pds_comm_alltoall_counts(pds_ctx ctx, const int *sendcounts, int *recvcounts);
PDS_INTERN int pds_comm_alltoallv_int(pds_ctx ctx, const pds_int *send, const int *sendcounts, const int *sdispls,
                                      pds_int *recv, const int *recvcounts, const int *rdispls);

/* A halo exchange: the values this rank sends to each neighbour and receives from each (host or, with a CUDA-aware
   MPI, device buffers). Offsets count entries of bs values. */
struct pds_halo {
  int       nsend, nrecv;            /* neighbours sent to / received from */
  int      *send_rank, *recv_rank;   /* [nsend], [nrecv] */
  pds_size *send_off, *recv_off;     /* [nsend + 1], [nrecv + 1]: entries of the send and receive buffers */
  void     *req;                     /* MPI_Request [nsend + nrecv] (comm.c) */
};
/* post the receives into recv and the sends from send (bs values per entry) */
PDS_INTERN int pds_comm_halo_start(pds_ctx ctx, struct pds_halo *h, int bs, const pds_real *send, pds_real *recv);
PDS_INTERN int pds_comm_halo_wait(pds_ctx ctx, struct pds_halo *h);
PDS_INTERN void pds_comm_halo_free(pds_ctx ctx, struct pds_halo *h);
/* the halo's request array (after its neighbour lists are set) */
PDS_INTERN int pds_comm_halo_alloc(pds_ctx ctx, struct pds_halo *h);

/* the context's communicator's end (pds_ctx_destroy) */
PDS_INTERN void pds_comm_free(pds_ctx ctx);

#endif
