/* src/mat/halo.c: the halo exchange of a distributed matrix (dist.c): which of this rank's rows each neighbour needs,
 * which ghosts come from whom, and the exchange itself.
 *
 * Plan (setup, collective): the ghosts are sorted by global column, so the ones a rank owns are one run; each rank
 * tells every other how many of its rows it needs (MPI_Alltoall), then which (MPI_Alltoallv). A product then gathers
 * the requested rows into a send buffer on the backend (vec.permute), posts the receives and sends (comm.c), and
 * waits after the diagonal block's product. On a backend with device memory the buffers go through page-locked host
 * memory (one copy each way per product; a CUDA-aware MPI could take the device buffers: docs/mpi.md), or, with the
 * "nccl" transport (pds_ctx_set_halo_transport), NCCL moves them between device buffers on a second stream. */
#include <stdlib.h>

#include "dist_impl.h"

static int halo_lists(pds_ctx ctx, const int *count, int *n, int **rank, pds_size **off) {
  int k = 0;

  *n = 0;
  for (int r = 0; r < ctx->size; r++) *n += count[r] > 0;
  PDS_CALL(PDS_NEW(ctx, *n + 1, rank));
  PDS_CALL(PDS_NEW(ctx, *n + 1, off));
  for (int r = 0; r < ctx->size; r++) {
    if (count[r] <= 0) continue;
    (*rank)[k]    = r;
    (*off)[k + 1] = (*off)[k] + (pds_size)count[r];
    k++;
  }
  return PDS_OK;
}

int pds_dist_halo_setup(pds_mat A) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);
  const int        P   = ctx->size;
  const pds_int    lo  = (pds_int)D->ranges[ctx->rank], hi = (pds_int)D->ranges[ctx->rank + 1];
  int             *cnt = NULL, *sc, *rc, *sd, *rd, ierr;
  pds_int         *req = NULL;
  pds_size         total = 0;

  ierr = PDS_NEW(ctx, (size_t)4 * P, &cnt);
  ierr = pds_comm_agree(ctx, ierr);
  if (ierr) return ierr;
  sc = cnt, rc = cnt + P, sd = cnt + 2 * P, rd = cnt + 3 * P;
  for (pds_int k = 0, r = 0; k < D->nghost; k++) { /* the owner of each ghost: ascending, like the ranges */
    while ((pds_size)D->ghost[k] >= D->ranges[r + 1]) r++;
    sc[r]++;
  }
  ierr = pds_comm_alltoall_counts(ctx, sc, rc);
  for (int r = 0; r < P; r++) {
    if (r) sd[r] = sd[r - 1] + sc[r - 1], rd[r] = rd[r - 1] + rc[r - 1];
    total += (pds_size)rc[r];
  }
  if (!ierr) ierr = PDS_NEW(ctx, total ? total : 1, &req);
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = pds_comm_alltoallv_int(ctx, D->ghost, sc, sd, req, rc, rd);
  for (pds_size k = 0; !ierr && k < total; k++) {
    if (req[k] < lo || req[k] >= hi)
      ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "rank %d was asked for block row %" PDS_INT_FMT ", which it does not own",
                       ctx->rank, req[k]);
    else req[k] -= lo;
  }
  if (!ierr) ierr = halo_lists(ctx, rc, &D->halo.nsend, &D->halo.send_rank, &D->halo.send_off);
  if (!ierr) ierr = halo_lists(ctx, sc, &D->halo.nrecv, &D->halo.recv_rank, &D->halo.recv_off);
  if (!ierr) ierr = pds_comm_halo_alloc(ctx, &D->halo);
  D->nsend = (pds_int)total;
  if (!ierr) ierr = pds_dup_array(ctx, PDS_MEM_DEVICE, req, PDS_MEM_HOST, (total ? total : 1) * sizeof *req, &D->send_d);
  if (!ierr) ierr = pds_vec_create(ctx, (pds_size)total * D->bs, &D->sendbuf);
  if (!ierr) ierr = pds_vec_create(ctx, (pds_size)D->nghost * D->bs, &D->g);
  if (!ierr && ctx->k->mem_alloc) { /* device memory: page-locked host buffers for the messages */
    ierr = PDS_NEW(ctx, total * D->bs + 1, &D->hsend);
    if (!ierr) ierr = PDS_NEW(ctx, (size_t)D->nghost * D->bs + 1, &D->hrecv);
    if (!ierr) (void)pds_host_register(ctx, D->hsend, (total * D->bs + 1) * sizeof(pds_real));
    if (!ierr) (void)pds_host_register(ctx, D->hrecv, ((size_t)D->nghost * D->bs + 1) * sizeof(pds_real));
    pds_ctx_clear_error(ctx); /* registering is an optimization: plain host memory works too */
  }
  D->send_h = req; /* kept on the host too: the overlap's rows travel along it (dist_overlap.c) */
  pds_free(ctx, PDS_MEM_HOST, &cnt);
  return pds_comm_agree(ctx, ierr);
}

/* with device memory and an asynchronous copy: queue the gather and its copy to the host, then a fence (the caller queues
   the local product behind them and posts the messages once the fence is passed, pds_dist_halo_post); else the gather
   (and a waiting copy) and the messages at once */
static int halo_async(pds_ctx ctx, const struct mat_dist *D) {
  return D->hsend && ctx->k->mem_copy_async && ctx->k->fence_record && ctx->k->fence_wait && ctx->k->fence_join;
}

/* the "nccl" transport: the messages between device buffers, queued behind the gather beside the local product */
static int halo_nccl(pds_ctx ctx) { return ctx->halo_nccl && ctx->k->xchg_post && ctx->k->fence_join; }

/* nccl: gather on the context's queue, then the messages from the send buffer into the ghosts (backend memory) on the
   second queue behind it; the off-rank part waits for them on the device (pds_dist_halo_end) */
static int halo_begin_nccl(pds_mat A, pds_vec x) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);
  const pds_real  *xa;
  pds_real        *sb = NULL, *ga;

  if (D->nsend) {
    PDS_KERNEL(ctx, vec.permute);
    PDS_CALL(pds_vec_dev_read(x, &xa));
    PDS_CALL(pds_vec_dev_write(D->sendbuf, &sb));
    PDS_CALL(ctx->k->vec.permute(ctx, D->nsend, D->bs, D->send_d, 0, xa, sb));
  }
  PDS_CALL(pds_vec_dev_write(D->g, &ga));
  return ctx->k->xchg_post(ctx, D->halo.nsend, D->halo.send_rank, D->halo.send_off, D->halo.nrecv, D->halo.recv_rank,
                           D->halo.recv_off, D->bs, sb, ga);
}

int pds_dist_halo_begin(pds_mat A, pds_vec x) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);
  const pds_real  *xa;
  pds_real        *sb = NULL;
  const size_t     bytes = (size_t)D->nsend * D->bs * sizeof *sb;

  if (!pds_comm_parallel(ctx)) return PDS_OK; /* one rank: every column is local */
  if (halo_nccl(ctx)) return halo_begin_nccl(A, x);
  if (D->nsend) {
    PDS_KERNEL(ctx, vec.permute);
    PDS_CALL(pds_vec_dev_read(x, &xa));
    PDS_CALL(pds_vec_dev_write(D->sendbuf, &sb));
    PDS_CALL(ctx->k->vec.permute(ctx, D->nsend, D->bs, D->send_d, 0, xa, sb));
    if (halo_async(ctx, D)) /* behind the gather, beside the local product queued next */
      PDS_CALL(ctx->k->mem_copy_async(ctx, D->hsend, PDS_MEM_HOST, sb, PDS_MEM_DEVICE, bytes, 1));
    else if (D->hsend) PDS_CALL(pds_memcpy(ctx, D->hsend, PDS_MEM_HOST, sb, PDS_MEM_DEVICE, bytes));
  }
  if (halo_async(ctx, D)) return ctx->k->fence_record(ctx);
  return pds_dist_halo_post(A);
}

int pds_dist_halo_post(pds_mat A) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);
  pds_real        *ga, *sb = NULL;

  if (!pds_comm_parallel(ctx)) return PDS_OK;
  if (D->nsend) {
    if (D->hsend) sb = D->hsend;
    else PDS_CALL(pds_vec_dev_write(D->sendbuf, &sb)); /* the host memory of a CPU backend: still current */
  }
  if (halo_async(ctx, D)) PDS_CALL(ctx->k->fence_wait(ctx)); /* the gather's copy is on the host */
  PDS_CALL(pds_vec_dev_write(D->g, &ga));
  return pds_comm_halo_start(ctx, &D->halo, D->bs, sb, D->hrecv ? D->hrecv : ga);
}

int pds_dist_halo_posted_late(pds_mat A) {
  return !halo_nccl(MAT_CTX(A)) && halo_async(MAT_CTX(A), DIST(A)) && pds_comm_parallel(MAT_CTX(A));
}

int pds_dist_halo_end(pds_mat A) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);
  pds_real        *ga;

  if (!pds_comm_parallel(ctx)) return PDS_OK;
  if (halo_nccl(ctx)) return ctx->k->fence_join(ctx); /* the work queued next waits for the messages */
  PDS_CALL(pds_comm_halo_wait(ctx, &D->halo));
  if (!D->hrecv || !D->nghost) return PDS_OK;
  PDS_CALL(pds_vec_dev_write(D->g, &ga));
  if (halo_async(ctx, D)) {
    /* beside the local product: g's last reader, the previous product's off-rank part, was queued before this
       product's gather, which the copy to the host waited for (a rank that sends nothing has no such copy: its ghosts'
       copy waits for the queued work itself); the work queued next (the off-rank part) waits for this copy */
    PDS_CALL(ctx->k->mem_copy_async(ctx, ga, PDS_MEM_DEVICE, D->hrecv, PDS_MEM_HOST,
                                    (size_t)D->nghost * D->bs * sizeof *ga, D->nsend == 0));
    PDS_CALL(ctx->k->fence_record(ctx));
    return ctx->k->fence_join(ctx);
  }
  return pds_memcpy(ctx, ga, PDS_MEM_DEVICE, D->hrecv, PDS_MEM_HOST, (size_t)D->nghost * D->bs * sizeof *ga);
}

void pds_dist_halo_free(pds_mat A) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);

  pds_comm_halo_free(ctx, &D->halo);
  if (D->hsend) (void)pds_host_unregister(ctx, D->hsend);
  if (D->hrecv) (void)pds_host_unregister(ctx, D->hrecv);
  pds_free(ctx, PDS_MEM_HOST, &D->hsend);
  pds_free(ctx, PDS_MEM_HOST, &D->hrecv);
  pds_free(ctx, PDS_MEM_HOST, &D->halo.send_rank);
  pds_free(ctx, PDS_MEM_HOST, &D->halo.recv_rank);
  pds_free(ctx, PDS_MEM_HOST, &D->halo.send_off);
  pds_free(ctx, PDS_MEM_HOST, &D->halo.recv_off);
  pds_free(ctx, PDS_MEM_DEVICE, &D->send_d);
  pds_free(ctx, PDS_MEM_HOST, &D->send_h);
  pds_free(ctx, PDS_MEM_HOST, &D->ghost);
  pds_vec_destroy(&D->sendbuf);
  pds_vec_destroy(&D->g);
}

const char *pds_dist_halo_mode(pds_mat A) {
  const int aware = pds_comm_device_aware();

  if (halo_nccl(MAT_CTX(A)))
    return "NCCL point-to-point between device buffers on a second stream (the local product runs during the exchange; "
           "no host copy or wait)";
  if (!DIST(A)->hrecv) return "MPI on the vectors' host memory";
  if (halo_async(MAT_CTX(A), DIST(A)))
    return aware ? "MPI on page-locked host buffers, copied behind the device's work (the local product runs during the "
                   "exchange; this MPI is CUDA-aware, device buffers are not used yet)"
                 : "MPI on page-locked host buffers, copied behind the device's work (the local product runs during the "
                   "exchange; this MPI is not CUDA-aware)";
  return "MPI on page-locked host buffers, staged from the device";
}
