/* src/backend/cuda/cuda_nccl.c: the halo's messages between device buffers through NCCL's point-to-point calls
 * (ncclSend / ncclRecv in one group), the backend's xchg slots (backend.h). NCCL is loaded at run time (dlopen of
 * libnccl.so.2: the library links no NCCL, and a machine without it gets an error naming the library when the
 * transport is asked for, nothing else); its types come from nccl.h at build time (PDS_HAVE_NCCL). The messages are
 * queued on the copy stream behind the work queued so far on the context's stream (the gather of the values sent), and
 * a fence behind them: the local product runs on the stream meanwhile, and the off-rank part waits for the fence on the
 * device (fence_join): no host wait and no host copy in a product. NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE
 * is set to 0 unless the environment sets it. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cuda_impl.h"

#if PDS_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

struct nccl_lib {
  void        *so;
  ncclComm_t   comm;
  ncclResult_t (*get_unique_id)(ncclUniqueId *);
  ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*comm_destroy)(ncclComm_t);
  ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*group_start)(void);
  ncclResult_t (*group_end)(void);
  const char *(*error_string)(ncclResult_t);
};

#define NCCL_CALL(ctx, L, call)                                                                                    \
  do {                                                                                                            \
    ncclResult_t r_ = (call);                                                                                     \
    if (r_ != ncclSuccess)                                                                                        \
      return PDS_ERROR((ctx), PDS_ERR_BACKEND, "NCCL: %s failed: %s", #call,                                       \
                       (L)->error_string ? (L)->error_string(r_) : "(no message)");                               \
  } while (0)

/* libnccl.so.2 and its functions, loaded once a context */
static int nccl_load(pds_ctx ctx, struct cuda_be *be) {
  struct nccl_lib *L;

  if (be->nccl) return PDS_OK;
  PDS_CALL(PDS_NEW(ctx, 1, &L));
  L->so = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!L->so) {
    const char *why = dlerror();

    pds_free(ctx, PDS_MEM_HOST, &L);
    return PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "the NCCL halo transport needs libnccl.so.2 at run time (%s); put its "
                     "folder on LD_LIBRARY_PATH, or use the MPI transport", why ? why : "not found");
  }
#define NCCL_SYM(field, name) *(void **)&L->field = dlsym(L->so, name)
  NCCL_SYM(get_unique_id, "ncclGetUniqueId");
  NCCL_SYM(comm_init_rank, "ncclCommInitRank");
  NCCL_SYM(comm_destroy, "ncclCommDestroy");
  NCCL_SYM(send, "ncclSend");
  NCCL_SYM(recv, "ncclRecv");
  NCCL_SYM(group_start, "ncclGroupStart");
  NCCL_SYM(group_end, "ncclGroupEnd");
  NCCL_SYM(error_string, "ncclGetErrorString");
#undef NCCL_SYM
  if (!L->get_unique_id || !L->comm_init_rank || !L->comm_destroy || !L->send || !L->recv || !L->group_start ||
      !L->group_end) {
    dlclose(L->so);
    pds_free(ctx, PDS_MEM_HOST, &L);
    return PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "libnccl.so.2 lacks the point-to-point calls (ncclSend, ncclRecv: "
                     "NCCL 2.7 or newer)");
  }
  be->nccl = L;
  return PDS_OK;
}

int pds_cuda_xchg_prepare(pds_ctx ctx, void *id, size_t len, int make_id) {
  struct cuda_be *be = pds_cuda_enter(ctx);

  PDS_CHECK(len >= sizeof(ncclUniqueId), ctx, PDS_ERR_ARG, "NCCL id: %zu bytes, needs %zu", len, sizeof(ncclUniqueId));
  setenv("NCCL_NVLS_ENABLE", "0", 0); /* NVLink multicast off, unless the user says otherwise */
  PDS_CALL(nccl_load(ctx, be));
  if (make_id) {
    struct nccl_lib *L = be->nccl;

    NCCL_CALL(ctx, L, L->get_unique_id((ncclUniqueId *)id));
  }
  return PDS_OK;
}

int pds_cuda_xchg_init(pds_ctx ctx, const void *id, int nranks, int rank) {
  struct cuda_be  *be = pds_cuda_enter(ctx);
  ncclUniqueId     u;
  struct nccl_lib *L  = be->nccl;

  PDS_CHECK(L, ctx, PDS_ERR_ARG, "NCCL is not loaded (xchg_prepare first)");
  if (L->comm) return PDS_OK;
  memcpy(&u, id, sizeof u);
  NCCL_CALL(ctx, L, L->comm_init_rank(&L->comm, nranks, u, rank));
  return PDS_OK;
}

int pds_cuda_xchg_post(pds_ctx ctx, int nsend, const int *send_rank, const pds_size *send_off, int nrecv,
                       const int *recv_rank, const pds_size *recv_off, int bs, const pds_real *send, pds_real *recv) {
  struct cuda_be  *be = pds_cuda_enter(ctx);
  struct nccl_lib *L  = be->nccl;

  PDS_CHECK(L && L->comm, ctx, PDS_ERR_ARG, "the NCCL transport is not set up on this context");
  /* behind the gather queued on the stream; the fence behind the messages */
  PDS_CALL(pds_cuda_copy_stream(ctx, be, 1));
  NCCL_CALL(ctx, L, L->group_start());
  for (int i = 0; i < nrecv; i++)
    NCCL_CALL(ctx, L, L->recv(recv + recv_off[i] * bs, (size_t)(recv_off[i + 1] - recv_off[i]) * bs, ncclFloat64,
                              recv_rank[i], L->comm, be->copy_stream));
  for (int i = 0; i < nsend; i++)
    NCCL_CALL(ctx, L, L->send(send + send_off[i] * bs, (size_t)(send_off[i + 1] - send_off[i]) * bs, ncclFloat64,
                              send_rank[i], L->comm, be->copy_stream));
  NCCL_CALL(ctx, L, L->group_end());
  PDS_CUDA_CALL(ctx, cudaEventRecord(be->fence, be->copy_stream));
  return PDS_OK;
}

void pds_cuda_xchg_free(pds_ctx ctx, struct cuda_be *be) {
  struct nccl_lib *L = be->nccl;

  if (!L) return;
  if (be->have_copy) (void)cudaStreamSynchronize(be->copy_stream);
  if (L->comm) (void)L->comm_destroy(L->comm);
  dlclose(L->so);
  pds_free(ctx, PDS_MEM_HOST, &L);
  be->nccl = NULL;
}
#else
void pds_cuda_xchg_free(pds_ctx ctx, struct cuda_be *be) { (void)ctx, (void)be; }
#endif
