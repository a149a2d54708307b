/* src/sys/comm.c: MPI behind the library's collectives (comm.h says what each does and how errors are agreed), the
 * MPI context (pds_ctx_create_mpi: a duplicate of the user's communicator, one GPU per rank from the node-local rank),
 * and the rank queries. Without MPI (PDS_HAVE_MPI 0) only the one-rank paths remain. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "comm.h"
#include "../backend/backend.h"

#if PDS_HAVE_MPI
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

#include "pdesolve_mpi.h"
#endif

/* one rank's record in an agreement: [0] its error code, [1] how many values follow, [2 ..) the values */
#define PDS_COMM_REC  16
#define PDS_COMM_VALS (PDS_COMM_REC - 2)

int pds_ctx_get_rank(pds_ctx ctx) { return ctx ? ctx->rank : 0; }
int pds_ctx_get_size(pds_ctx ctx) { return ctx ? ctx->size : 1; }
int pds_comm_parallel(pds_ctx ctx) { return ctx->comm && ctx->size > 1; }
double pds_ctx_get_comm_time(pds_ctx ctx) { return ctx ? ctx->comm_time : 0; }

#if PDS_HAVE_MPI

#define COMM(ctx) (*(MPI_Comm *)(ctx)->comm)
#define MPI_CHECK(ctx, call, what)                                                                          \
  do {                                                                                                      \
    int    mpi_e_;                                                                                          \
    double mpi_t_ = pds_wtime();                                                                            \
    mpi_e_        = (call);                                                                                 \
    (ctx)->comm_time += pds_wtime() - mpi_t_;                                                               \
    if (mpi_e_ != MPI_SUCCESS) {                                                                            \
      char mpi_s_[MPI_MAX_ERROR_STRING];                                                                    \
      int  mpi_l_ = 0;                                                                                      \
      MPI_Error_string(mpi_e_, mpi_s_, &mpi_l_);                                                            \
      return PDS_ERROR((ctx), PDS_ERR_MPI, "%s failed on rank %d: %s", (what), (ctx)->rank, mpi_s_);        \
    }                                                                                                       \
  } while (0)

/* One round of an agreement: every rank's record (err, k values) to every rank. Returns the first failing rank's code
   (this rank's own when it failed) after noting it on ctx; else 0 with the records in ctx->comm_rec. */
static int comm_round(pds_ctx ctx, int ierr, int k, const pds_real *v) {
  double rec[PDS_COMM_REC] = {0};

  rec[0] = ierr, rec[1] = k;
  for (int i = 0; i < k; i++) rec[2 + i] = v[i];
  MPI_CHECK(ctx, MPI_Allgather(rec, PDS_COMM_REC, MPI_DOUBLE, ctx->comm_rec, PDS_COMM_REC, MPI_DOUBLE, COMM(ctx)),
            "MPI_Allgather");
  for (int r = 0; r < ctx->size; r++) {
    int code = (int)ctx->comm_rec[r * PDS_COMM_REC];

    if (!code) continue;
    ctx->comm_err = code;
    if (ierr) return ierr; /* this rank's message stays */
    return PDS_ERROR(ctx, code, "rank %d of %d failed (error %d); this rank stops with it", r, ctx->size, code);
  }
  ctx->comm_err = 0;
  return PDS_OK;
}

static int comm_reduce(pds_ctx ctx, int k, pds_real *v, int max) {
  if (!pds_comm_parallel(ctx)) return PDS_OK;
  for (int i0 = 0; i0 < k; i0 += PDS_COMM_VALS) {
    const int kk = k - i0 < PDS_COMM_VALS ? k - i0 : PDS_COMM_VALS;

    PDS_CALL(comm_round(ctx, 0, kk, v + i0));
    for (int i = 0; i < kk; i++) { /* rank order: the same bits on every rank, in every run */
      pds_real s = ctx->comm_rec[2 + i];

      for (int r = 1; r < ctx->size; r++) {
        const pds_real x = ctx->comm_rec[r * PDS_COMM_REC + 2 + i];

        s = max ? (x > s || x != x ? x : s) : s + x;
      }
      v[i0 + i] = s;
    }
  }
  return PDS_OK;
}

int pds_comm_sum(pds_ctx ctx, int k, pds_real *v) { return comm_reduce(ctx, k, v, 0); }

/* Whether MPI takes device pointers: Open MPI says so at build time (MPIX_CUDA_AWARE_SUPPORT) and at run time
   (MPIX_Query_cuda_support); MPICH-based libraries, when MPICH_GPU_SUPPORT_ENABLED=1 is set. */
int pds_comm_device_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support();
#else
  const char *e = getenv("MPICH_GPU_SUPPORT_ENABLED");

  return e && !strcmp(e, "1");
#endif
}
int pds_comm_max(pds_ctx ctx, int k, pds_real *v) { return comm_reduce(ctx, k, v, 1); }

int pds_comm_agree(pds_ctx ctx, int ierr) {
  if (!pds_comm_parallel(ctx)) return ierr;
  if (ierr && ctx->comm_err) return ierr; /* agreed already: every rank is on its way out */
  return comm_round(ctx, ierr, 0, NULL);
}

int pds_comm_allgather_size(pds_ctx ctx, int ierr, pds_size v, pds_size *all) {
  pds_real x = (pds_real)v;

  if (!pds_comm_parallel(ctx)) {
    all[0] = v;
    return ierr;
  }
  if (ierr && ctx->comm_err) return ierr;
  PDS_CALL(comm_round(ctx, ierr, 1, &x));
  for (int r = 0; r < ctx->size; r++) all[r] = (pds_size)ctx->comm_rec[r * PDS_COMM_REC + 2];
  return PDS_OK;
}

int pds_comm_bcast(pds_ctx ctx, void *buf, size_t bytes, int root) {
  if (!pds_comm_parallel(ctx)) return PDS_OK;
  for (size_t o = 0; o < bytes; o += (size_t)1 << 30) { /* MPI counts are int */
    const size_t n = bytes - o < ((size_t)1 << 30) ? bytes - o : (size_t)1 << 30;

    MPI_CHECK(ctx, MPI_Bcast((char *)buf + o, (int)n, MPI_BYTE, root, COMM(ctx)), "MPI_Bcast");
  }
  return PDS_OK;
}

/* root's side of a scatter (gather = 0) or a gather (gather = 1) of contiguous parts, counted in elements of elsize */
static int comm_parts(pds_ctx ctx, int gather, const void *send, const pds_size *counts, const pds_size *displs,
                      size_t elsize, void *recv, pds_size mine, int root) {
  MPI_Datatype t;
  int         *c = NULL, *d = NULL, ierr = PDS_OK;

  if (!pds_comm_parallel(ctx)) {
    if (mine && gather) memcpy((char *)recv + displs[0] * elsize, send, (size_t)mine * elsize);
    else if (mine) memcpy(recv, (const char *)send + displs[0] * elsize, (size_t)mine * elsize);
    return PDS_OK;
  }
  /* elements of elsize bytes as one MPI type: counts stay far below 2^31 for any matrix with 32-bit local indices */
  MPI_CHECK(ctx, MPI_Type_contiguous((int)elsize, MPI_BYTE, &t), "MPI_Type_contiguous");
  MPI_CHECK(ctx, MPI_Type_commit(&t), "MPI_Type_commit");
  if (ctx->rank == root) {
    c = malloc(2 * (size_t)ctx->size * sizeof *c);
    if (!c) {
      MPI_Type_free(&t);
      return PDS_ERROR(ctx, PDS_ERR_MEM, "out of host memory for %d ranks' counts", ctx->size);
    }
    d = c + ctx->size;
    for (int r = 0; r < ctx->size; r++) {
      if (counts[r] > 0x7fffffff || displs[r] > 0x7fffffff) {
        ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "rank %d's part (%" PDS_SIZE_FMT " elements at %" PDS_SIZE_FMT
                         ") is beyond MPI's int counts", r, counts[r], displs[r]);
      }
      c[r] = (int)counts[r], d[r] = (int)displs[r];
    }
  }
  if (!ierr) {
    double t0 = pds_wtime();
    int    e  = gather ? MPI_Gatherv(send, (int)mine, t, recv, c, d, t, root, COMM(ctx))
                       : MPI_Scatterv(send, c, d, t, recv, (int)mine, t, root, COMM(ctx));

    ctx->comm_time += pds_wtime() - t0;
    if (e != MPI_SUCCESS)
      ierr = PDS_ERROR(ctx, PDS_ERR_MPI, "%s failed on rank %d", gather ? "MPI_Gatherv" : "MPI_Scatterv", ctx->rank);
  }
  free(c);
  MPI_Type_free(&t);
  return ierr;
}

int pds_comm_scatterv(pds_ctx ctx, const void *send, const pds_size *counts, const pds_size *displs, size_t elsize,
                      void *recv, pds_size rcount, int root) {
  return comm_parts(ctx, 0, send, counts, displs, elsize, recv, rcount, root);
}

int pds_comm_gatherv(pds_ctx ctx, const void *send, pds_size scount, size_t elsize, void *recv, const pds_size *counts,
                     const pds_size *displs, int root) {
  return comm_parts(ctx, 1, send, counts, displs, elsize, recv, scount, root);
}

int pds_comm_alltoall_counts(pds_ctx ctx, const int *sendcounts, int *recvcounts) {
  if (!pds_comm_parallel(ctx)) {
    recvcounts[0] = sendcounts[0];
    return PDS_OK;
  }
  MPI_CHECK(ctx, MPI_Alltoall(sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, COMM(ctx)), "MPI_Alltoall");
  return PDS_OK;
}

int pds_comm_alltoallv_int(pds_ctx ctx, const pds_int *send, const int *sendcounts, const int *sdispls, pds_int *recv,
                           const int *recvcounts, const int *rdispls) {
  if (!pds_comm_parallel(ctx)) {
    if (sendcounts[0]) memcpy(recv + rdispls[0], send + sdispls[0], (size_t)sendcounts[0] * sizeof *send);
    return PDS_OK;
  }
  MPI_CHECK(ctx, MPI_Alltoallv(send, sendcounts, sdispls, MPI_INT32_T, recv, recvcounts, rdispls, MPI_INT32_T,
                               COMM(ctx)), "MPI_Alltoallv");
  return PDS_OK;
}

int pds_comm_halo_alloc(pds_ctx ctx, struct pds_halo *h) {
  h->req = calloc((size_t)(h->nsend + h->nrecv) + 1, sizeof(MPI_Request));
  PDS_CHECK(h->req, ctx, PDS_ERR_MEM, "out of host memory for %d requests", h->nsend + h->nrecv);
  return PDS_OK;
}

int pds_comm_halo_start(pds_ctx ctx, struct pds_halo *h, int bs, const pds_real *send, pds_real *recv) {
  MPI_Request *rq = h->req;

  if (!pds_comm_parallel(ctx)) return PDS_OK;
  for (int i = 0; i < h->nrecv; i++)
    MPI_CHECK(ctx, MPI_Irecv(recv + h->recv_off[i] * bs, (int)((h->recv_off[i + 1] - h->recv_off[i]) * bs), MPI_DOUBLE,
                             h->recv_rank[i], 7, COMM(ctx), &rq[i]), "MPI_Irecv");
  for (int i = 0; i < h->nsend; i++)
    MPI_CHECK(ctx, MPI_Isend(send + h->send_off[i] * bs, (int)((h->send_off[i + 1] - h->send_off[i]) * bs), MPI_DOUBLE,
                             h->send_rank[i], 7, COMM(ctx), &rq[h->nrecv + i]), "MPI_Isend");
  return PDS_OK;
}

int pds_comm_halo_wait(pds_ctx ctx, struct pds_halo *h) {
  if (!pds_comm_parallel(ctx)) return PDS_OK;
  MPI_CHECK(ctx, MPI_Waitall(h->nsend + h->nrecv, h->req, MPI_STATUSES_IGNORE), "MPI_Waitall");
  return PDS_OK;
}

/* "auto" and "/gpu/cuda" without a device: the node-local rank's GPU (local rank mod the GPUs of the node) */
static void pick_resource(MPI_Comm comm, const char *resource, char *out, size_t len) {
  int      ngpu = 0, lrank = 0;
  MPI_Comm node;

  if (!resource || !*resource) resource = "auto";
#if PDS_HAVE_CUDA
  ngpu = pds_backend_available_cuda();
#endif
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &lrank);
    MPI_Comm_free(&node);
  }
  if (ngpu > 0 && (!strcmp(resource, "auto") || !strcmp(resource, "/gpu/cuda")))
    snprintf(out, len, "/gpu/cuda:device=%d", lrank % ngpu);
  else
    snprintf(out, len, "%s", resource);
}

int pds_ctx_create_mpi(MPI_Comm comm, const char *resource, pds_ctx *ctx) {
  char      res[96];
  MPI_Comm *dup = NULL;
  int       init = 0, ierr, worst = 0, rank = 0, size = 1;
  pds_ctx   c    = NULL;

  if (!ctx) return PDS_ERR_ARG;
  *ctx = NULL;
  MPI_Initialized(&init);
  if (!init) {
    fprintf(stderr, "pdesolve: PDS_ERR_MPI: pds_ctx_create_mpi needs MPI_Init first\n");
    return PDS_ERR_MPI;
  }
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  pick_resource(comm, resource, res, sizeof res);
  ierr = pds_ctx_create(res, &c);
  if (!ierr) {
    dup = malloc(sizeof *dup);
    c->comm_rec = malloc((size_t)size * PDS_COMM_REC * sizeof *c->comm_rec);
    if (!dup || !c->comm_rec) ierr = PDS_ERR_MEM;
  }
  /* every rank learns whether one failed (the worst code: they are negative) */
  if (MPI_Allreduce(&ierr, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) worst = ierr ? ierr : PDS_ERR_MPI;
  if (!worst && MPI_Comm_dup(comm, dup) != MPI_SUCCESS) worst = PDS_ERR_MPI;
  if (worst) {
    if (!ierr) fprintf(stderr, "pdesolve: rank %d: another rank could not make its context (error %d)\n", rank, worst);
    free(dup);
    if (c) {
      free(c->comm_rec);
      c->comm_rec = NULL;
    }
    pds_ctx_destroy(&c);
    return worst;
  }
  c->comm = dup, c->rank = rank, c->size = size;
  *ctx = c;
  return PDS_OK;
}

int pds_ctx_get_comm(pds_ctx ctx, MPI_Comm *comm) {
  if (!ctx || !comm) return PDS_ERR_ARG;
  *comm = ctx->comm ? COMM(ctx) : MPI_COMM_SELF;
  return PDS_OK;
}

void pds_comm_free(pds_ctx ctx) {
  int fin = 0;

  if (ctx->comm) {
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free((MPI_Comm *)ctx->comm);
    free(ctx->comm);
    ctx->comm = NULL;
  }
  free(ctx->comm_rec);
  ctx->comm_rec = NULL;
}

void pds_comm_halo_free(pds_ctx ctx, struct pds_halo *h) {
  (void)ctx;
  free(h->req);
  h->req = NULL;
}

#else /* one rank: nothing to exchange */

int pds_comm_sum(pds_ctx ctx, int k, pds_real *v) { return (void)ctx, (void)k, (void)v, PDS_OK; }
int pds_comm_max(pds_ctx ctx, int k, pds_real *v) { return (void)ctx, (void)k, (void)v, PDS_OK; }
int pds_comm_agree(pds_ctx ctx, int ierr) { return (void)ctx, ierr; }
int pds_comm_device_aware(void) { return 0; }
int pds_comm_allgather_size(pds_ctx ctx, int ierr, pds_size v, pds_size *all) {
  (void)ctx;
  all[0] = v;
  return ierr;
}
int pds_comm_bcast(pds_ctx ctx, void *buf, size_t bytes, int root) {
  return (void)ctx, (void)buf, (void)bytes, (void)root, PDS_OK;
}
int pds_comm_scatterv(pds_ctx ctx, const void *send, const pds_size *counts, const pds_size *displs, size_t elsize,
                      void *recv, pds_size rcount, int root) {
  (void)ctx, (void)counts, (void)root;
  if (rcount) memcpy(recv, (const char *)send + displs[0] * elsize, (size_t)rcount * elsize);
  return PDS_OK;
}
int pds_comm_gatherv(pds_ctx ctx, const void *send, pds_size scount, size_t elsize, void *recv, const pds_size *counts,
                     const pds_size *displs, int root) {
  (void)ctx, (void)counts, (void)root;
  if (scount) memcpy((char *)recv + displs[0] * elsize, send, (size_t)scount * elsize);
  return PDS_OK;
}
int pds_comm_alltoall_counts(pds_ctx ctx, const int *sendcounts, int *recvcounts) {
  (void)ctx;
  recvcounts[0] = sendcounts[0];
  return PDS_OK;
}
int pds_comm_alltoallv_int(pds_ctx ctx, const pds_int *send, const int *sendcounts, const int *sdispls, pds_int *recv,
                           const int *recvcounts, const int *rdispls) {
  (void)ctx, (void)recvcounts;
  if (sendcounts[0]) memcpy(recv + rdispls[0], send + sdispls[0], (size_t)sendcounts[0] * sizeof *send);
  return PDS_OK;
}
int pds_comm_halo_alloc(pds_ctx ctx, struct pds_halo *h) { return (void)ctx, (void)h, PDS_OK; }
int pds_comm_halo_start(pds_ctx ctx, struct pds_halo *h, int bs, const pds_real *send, pds_real *recv) {
  return (void)ctx, (void)h, (void)bs, (void)send, (void)recv, PDS_OK;
}
int pds_comm_halo_wait(pds_ctx ctx, struct pds_halo *h) { return (void)ctx, (void)h, PDS_OK; }
void pds_comm_halo_free(pds_ctx ctx, struct pds_halo *h) { (void)ctx, (void)h; }
void pds_comm_free(pds_ctx ctx) { (void)ctx; }

#endif

/* ---- the halo's transport (both builds) ---------------------------------------------------------------------- */

int pds_ctx_set_halo_transport(pds_ctx ctx, const char *name) {
  unsigned char id[256]; /* NCCL's id is 128 bytes */
  int           ierr = PDS_OK;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  pds_comm_begin(ctx);
  memset(id, 0, sizeof id);
  if (!name || (strcmp(name, "mpi") && strcmp(name, "nccl")))
    ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "halo transport '%s': mpi or nccl", name ? name : "(null)");
  else if (!strcmp(name, "mpi")) {
    ctx->halo_nccl = 0;
    return pds_comm_agree(ctx, ierr);
  } else if (!ctx->k->xchg_prepare || !ctx->k->xchg_init || !ctx->k->xchg_post)
    ierr = PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "the nccl halo transport needs /gpu/cuda built with NCCL "
                     "(PDS_ENABLE_NCCL, nccl.h at build time); this context is %s%s", ctx->backend,
                     strcmp(ctx->backend, "/gpu/cuda") ? "" : " built without NCCL");
  if (!ierr) ierr = ctx->k->xchg_prepare(ctx, id, sizeof id, ctx->rank == 0); /* every rank loads it first */
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = pds_comm_bcast(ctx, id, sizeof id, 0);
  if (!ierr) ierr = ctx->k->xchg_init(ctx, id, ctx->size, ctx->rank);
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ctx->halo_nccl = 1;
  return ierr;
}

const char *pds_ctx_get_halo_transport(pds_ctx ctx) { return ctx && ctx->halo_nccl ? "nccl" : "mpi"; }
