/* src/backend/cuda/cuda_impl.h: what the host files of /gpu/cuda share (compiled as C): the backend's context data
 * (struct cuda_be: stream, pool, reduction scratch, the CSR plan cache, the device loop), error mapping
 * (PDS_CUDA_CALL), memory, and each module's group fill function. cuda.c holds the core (device, memory, copies,
 * the table); cuda_vec.c, cuda_mat.c, cuda_krylov.c, cuda_blocks.c, cuda_fem2d.c, cuda_f32.c, cuda_stencil7.c,
 * cuda_bilu0.c each fill one group
 * from the launchers of the *.cu files (cuda_common.h). */
#ifndef PDS_CUDA_IMPL_H
#define PDS_CUDA_IMPL_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../backend.h"
#include "../krylov_step.h"
#include "cuda_common.h"

struct csr_entry {
  const void        *rowptr, *colidx; /* the key: structure arrays of A (device) */
  pds_int            nrows, ncols;
  pds_size           nnz;
  pds_cuda_csr_plan  plan;
  int                have_t;          /* the transpose below is built */
  pds_size          *t_rowptr;
  pds_int           *t_rowidx, *t_perm;
  pds_cuda_csr_plan  t_plan;
  struct csr_entry  *next;
};

/* a device loop (its picture: the Krylov section below) */
struct cuda_loop {
  const pds_real   *S;      /* the scalar vector the graph was made for */
  cudaGraph_t       graph, body;
  cudaGraphExec_t   exec;
  pds_cuda_loop_dev dev;
  int               next;   /* the iteration whose record comes next */
  int               queued; /* the last iteration the launched chunks can reach */
  long              updates, instantiations;
};

struct cuda_be {
  int                 device, use_pool;
  cudaStream_t        stream;
  cudaMemPool_t       pool;
  pds_cuda_red        red;
  pds_real           *mdot_partial; /* device: [PDS_CUDA_MDOT_BATCH][PDS_CUDA_RED_MAXBLOCK], vec_mdot_into's partials */
  pds_real           *dscal; /* device: results of reductions that go to the host */
  unsigned long long *dstat; /* device: integer results (plan statistics, singular block) */
  pds_real           *hscal; /* pinned mirrors */
  unsigned long long *hstat;
  void               *small; /* pinned, SMALL_BYTES */
  void               *stage[2];
  cudaEvent_t         ev[2];
  int                 have_stage;
  cudaStream_t        copy_stream; /* mem_copy_async's copies beside the stream (a distributed product's halo) */
  cudaEvent_t         fence, queued; /* fence_record's mark; the stream's work before an after_queued copy */
  int                 have_copy;
  void               *nccl;   /* the NCCL transport (cuda_nccl.c), or NULL */
  struct csr_entry   *csr;
  long long           n_d2h; /* device-to-host copies made (tests/cuda counts them per solve) */
  struct cuda_loop   *loop;   /* the device loop being recorded, if any */
  pds_cuda_loop_rec  *ring_h; /* device loops' records and abort flag (mapped pinned), and chunk counter */
  void               *ring_d;
  volatile int       *abort_h;
  int                *loop_left;
  int                 no_loops; /* the driver has no conditional graph nodes */
  int                 small_on; /* whole iterations in one launch (cuda_small.cu, cuda_coop.cu); PDS_CUDA_SMALL=0: off */
  int                 coop_on;  /* ... of the cooperative kernel (cuda_coop.cu); PDS_CUDA_COOP=0: off */
  int                 coop_per_sm; /* its blocks per SM (0: as many as fit); PDS_CUDA_COOP_PER_SM (-1: tests) */
  int                 nsm;         /* the device's SMs */
  pds_real           *coop_part;   /* device: [6][PDS_CUDA_RED_MAXBLOCK], the cooperative kernel's partials */
  long long           n_small, n_coop; /* such iterations queued (tests/cuda count them) */
};


/* ---- errors ------------------------------------------------------------------------------------------------ */
/* a CUDA error as PDS_ERR_BACKEND (PDS_ERR_MEM for cudaErrorMemoryAllocation), its sticky state cleared (cuda.c) */
PDS_INTERN int pds_cuda_error(pds_ctx ctx, const char *file, int line, const char *func, cudaError_t e,
                              const char *what);
#define PDS_CUDA_CALL(ctx, ...)                                                              \
  do {                                                                                       \
    cudaError_t pds_cuda_e_ = (__VA_ARGS__);                                                 \
    if (pds_cuda_e_ != cudaSuccess)                                                          \
      return pds_cuda_error((ctx), __FILE__, __LINE__, __func__, pds_cuda_e_, #__VA_ARGS__);     \
  } while (0)

/* the copy stream and its events (made by the first use; cuda.c); after_queued: its next work waits for the stream's */
PDS_INTERN int pds_cuda_copy_stream(pds_ctx ctx, struct cuda_be *be, int after_queued);
/* the NCCL transport of the halo (cuda_nccl.c; backend.h's xchg slots, set when built with NCCL) */
PDS_INTERN int  pds_cuda_xchg_prepare(pds_ctx ctx, void *id, size_t len, int make_id);
PDS_INTERN int  pds_cuda_xchg_init(pds_ctx ctx, const void *id, int nranks, int rank);
PDS_INTERN int  pds_cuda_xchg_post(pds_ctx ctx, int nsend, const int *send_rank, const pds_size *send_off, int nrecv,
                                   const int *recv_rank, const pds_size *recv_off, int bs, const pds_real *send,
                                   pds_real *recv);
PDS_INTERN void pds_cuda_xchg_free(pds_ctx ctx, struct cuda_be *be);

/* The context's backend data, with its device made current. */
static inline struct cuda_be *pds_cuda_enter(pds_ctx ctx) {
  struct cuda_be *be = ctx->backend_data;
  int             cur;

  if (cudaGetDevice(&cur) != cudaSuccess || cur != be->device) cudaSetDevice(be->device);
  return be;
}

/* a slot that only launches: be_ and s_ (the context's stream) for the call, its error checked */
#define LAUNCH(ctx, call)                          \
  do {                                             \
    struct cuda_be *be_ = pds_cuda_enter(ctx);              \
    cudaStream_t    s_  = be_->stream;             \
    (void)s_;                                      \
    PDS_CUDA_CALL(ctx, call);                      \
    return PDS_OK;                                 \
  } while (0)

/* ---- memory (cuda.c) --------------------------------------------------------------------------------------- */
PDS_INTERN cudaError_t pds_cuda_raw_alloc(struct cuda_be *be, size_t bytes, void **p);
PDS_INTERN void pds_cuda_raw_free(struct cuda_be *be, void *p);
PDS_INTERN int pds_cuda_dev_alloc(pds_ctx ctx, struct cuda_be *be, size_t bytes, void **p);
PDS_INTERN cudaError_t pds_cuda_scratch_alloc(void *user, size_t bytes, void **p);
PDS_INTERN void pds_cuda_scratch_release(void *user, void *p);
/* n reduction results (device, be->dscal) or plan statistics (be->dstat) to the host: one small copy */
PDS_INTERN int pds_cuda_fetch_scalars(pds_ctx ctx, struct cuda_be *be, int n, pds_real *out);
PDS_INTERN int pds_cuda_fetch_stats(pds_ctx ctx, struct cuda_be *be, int n, unsigned long long *out);

/* ---- the CSR plan cache (cuda_mat.c) ----------------------------------------------------------------------- */
/* A's entry (its product plan, built on first use) */
PDS_INTERN int pds_cuda_csr_entry(pds_ctx ctx, struct cuda_be *be, const struct pds_csr *A, struct csr_entry **out);
PDS_INTERN void pds_cuda_csr_entry_free(struct cuda_be *be, struct csr_entry *e);
PDS_INTERN void pds_cuda_csr_plan_free(struct cuda_be *be, pds_cuda_csr_plan *pl);

/* ---- schedules replayed as CUDA graphs (cuda_graph.c) ------------------------------------------------------------ */
#define PDS_CUDA_GRAPH_KEY 6
struct pds_cuda_graph {
  cudaGraphExec_t exec;
  const void     *key[PDS_CUDA_GRAPH_KEY]; /* the arrays the launches were captured with (unused ones NULL) */
};
/* launch(arg) captured into g once per key and replayed (what: the message if the capture fails) */
PDS_INTERN int  pds_cuda_graph_run(pds_ctx ctx, struct cuda_be *be, struct pds_cuda_graph *g,
                                   const void *const key[PDS_CUDA_GRAPH_KEY], cudaError_t (*launch)(void *arg), void *arg,
                                   const char *what);
PDS_INTERN void pds_cuda_graph_destroy(struct pds_cuda_graph *g);

/* ---- the Krylov group (cuda_krylov.c) ---------------------------------------------------------------------- */
/* the step an update kernel runs after its reduction: none (< 0) or a known one (else PDS_ERR_ARG) */
PDS_INTERN int pds_cuda_check_step(pds_ctx ctx, int step);

/* ---- each module's kernel group (the table is made in cuda.c) ---------------------------------------------- */
PDS_INTERN void pds_cuda_fill_vec(struct pds_vec_kernels *g);
PDS_INTERN void pds_cuda_fill_csr(struct pds_csr_kernels *g);
PDS_INTERN void pds_cuda_fill_bsr(struct pds_bsr_kernels *g);
PDS_INTERN void pds_cuda_fill_krylov(struct pds_krylov_kernels *g);
PDS_INTERN void pds_cuda_fill_blocks(struct pds_block_kernels *g);
PDS_INTERN void pds_cuda_fill_fem2d(struct pds_fem2d_kernels *g);
PDS_INTERN void pds_cuda_fill_f32(struct pds_kernels_f32 *g);
PDS_INTERN void pds_cuda_fill_stencil7(struct pds_stencil7_kernels *g);
PDS_INTERN void pds_cuda_fill_bilu0(struct pds_bilu0_kernels *g);
PDS_INTERN void pds_cuda_fill_ilu0(struct pds_ilu0_kernels *g);
PDS_INTERN void pds_cuda_fill_patches(struct pds_patches_kernels *g);
PDS_INTERN void pds_cuda_fill_relax(struct pds_relax_kernels *g);
PDS_INTERN void pds_cuda_fill_sem(struct pds_sem_kernels *g);
PDS_INTERN void pds_cuda_fill_fv(struct pds_fv_kernels *g);
PDS_INTERN void pds_cuda_fill_fvjac(struct pds_fvjac_kernels *g);

#endif
