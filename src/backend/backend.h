/* src/backend/backend.h: the kernel table each backend fills (its memory functions and one kernel group per module,
 * each group declared next to its module), and the backend registry.
 *
 * Two levels of dispatch: an object's ops say what it is (csr, cg), ctx->k says where it runs (ref, omp,
 * cuda). All array arguments are backend memory (host memory on CPU backends). Kernels return PDS_OK or an
 * error raised on ctx. /cpu/omp starts from a copy of the ref table and overrides what it optimizes; a
 * device backend starts from an empty table, and a NULL slot is reported as a missing kernel, never run on
 * the host behind the user's back. */
#ifndef PDS_BACKEND_H
#define PDS_BACKEND_H

#include "../sys/sys_impl.h"
#include "../disc/disc_kernels.h"
#include "../disc/sem_kernels.h"
#include "../disc/fv_kernels.h"
#include "../disc/fv_jac_kernels.h"
#include "../mat/mat_kernels.h"
#include "../precond/bilu0_kernels.h"
#include "../precond/ilu0_kernels.h"
#include "../precond/relax_kernels.h"
#include "../mat/patches_kernels.h"
#include "../precond/precond_kernels.h"
#include "../solver/krylov_kernels.h"
#include "../vec/vec_kernels.h"
#include "kernels_f32.h"

struct pds_kernels {
  const char *name;
  /* memory: NULL means host malloc/free (CPU backends) */
  int (*mem_alloc)(pds_ctx, size_t bytes, void **p);
  int (*mem_free)(pds_ctx, void *p);
  int (*mem_copy)(pds_ctx, void *dst, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes);
  int (*mem_zero)(pds_ctx, void *p, size_t bytes);
  /* page-lock / release the user's host memory (pds_host_register); NULL: nothing to do (CPU backends) */
  int (*mem_pin)(pds_ctx, void *p, size_t bytes);
  int (*mem_unpin)(pds_ctx, void *p);
  int (*destroy)(pds_ctx); /* release backend_data */
  /* optional (device backends; NULL: mem_copy, which waits, serves): copies between page-locked host memory and backend
     memory on a second queue beside the context's own, so that they run while its kernels run:
     mem_copy_async: queue a copy there, after the work queued so far on the context's queue when after_queued is 1,
                     else only after the earlier copies; return at once;
     fence_record:   mark the copies queued so far;  fence_wait: block the host until the mark is passed;
     fence_join:     make the work queued from now on on the context's queue wait for the mark.
     A distributed product (src/mat/halo.c) queues its gather, the copy of the gathered values to the host and a mark,
     queues its local product, waits for the mark only and sends; after the messages it queues the ghosts' copy to the
     device, a mark and a join, and then the off-rank part: both copies overlap the local product. */
  int (*mem_copy_async)(pds_ctx, void *dst, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes,
                        int after_queued);
  int (*fence_record)(pds_ctx);
  int (*fence_wait)(pds_ctx);
  int (*fence_join)(pds_ctx);
  /* optional (a device backend built with NCCL): the halo's messages between device buffers (src/mat/halo.c with the
     "nccl" transport, pds_ctx_set_halo_transport):
     xchg_prepare: load the transport; make_id: also write the id of a new group into id (len bytes), on one rank;
     xchg_init:    join the group of nranks ranks of that id as rank (collective over the ranks);
     xchg_post:    queue, after the work queued so far on the context's queue, the receives into recv (entries
                   recv_off[i] .. recv_off[i+1]-1 of bs values from recv_rank[i]) and the sends from send likewise,
                   beside that queue, and a mark behind them (fence_join makes later work wait for it). */
  int (*xchg_prepare)(pds_ctx, void *id, size_t len, int make_id);
  int (*xchg_init)(pds_ctx, const void *id, int nranks, int rank);
  int (*xchg_post)(pds_ctx, int nsend, const int *send_rank, const pds_size *send_off, int nrecv, const int *recv_rank,
                   const pds_size *recv_off, int bs, const pds_real *send, pds_real *recv);

  /* the modules' kernel groups, each declared next to its module (docs/dev.md: how a module adds one) */
  struct pds_vec_kernels    vec;    /* src/vec/vec_kernels.h */
  struct pds_csr_kernels    csr;    /* src/mat/mat_kernels.h */
  struct pds_bsr_kernels    bsr;    /* src/mat/mat_kernels.h */
  struct pds_stencil7_kernels stencil7; /* src/mat/mat_kernels.h */
  struct pds_bilu0_kernels  bilu0;  /* src/precond/bilu0_kernels.h */
  struct pds_ilu0_kernels   ilu0;   /* src/precond/ilu0_kernels.h */
  struct pds_patches_kernels patches; /* src/mat/patches_kernels.h */
  struct pds_relax_kernels  relax;  /* src/precond/relax_kernels.h */
  struct pds_sem_kernels    sem;    /* src/disc/sem_kernels.h */
  struct pds_fv_kernels     fv;     /* src/disc/fv_kernels.h */
  struct pds_fvjac_kernels  fvjac;  /* src/disc/fv_jac_kernels.h */
  struct pds_krylov_kernels krylov; /* src/solver/krylov_kernels.h */
  struct pds_fem2d_kernels  fem2d;  /* src/disc/disc_kernels.h */
  struct pds_block_kernels  blocks; /* src/precond/precond_kernels.h */
  /* single precision (kernels_f32.h): the kernels of a single-precision solve; a slot is named f32.name */
  struct pds_kernels_f32 f32;
};

/* Raise "backend X has no kernel K" when a slot is empty. */
#define PDS_KERNEL(ctx, slot)                                                                          \
  do {                                                                                                 \
    if (!(ctx)->k->slot)                                                                               \
      return pds_error((ctx), __FILE__, __LINE__, __func__, PDS_ERR_UNSUPPORTED,                       \
                       "backend %s has no kernel '%s'", (ctx)->backend, #slot);                        \
  } while (0)

/* Backend init hooks: fill *k for the resource, set ctx->backend_data. */
typedef int (*pds_backend_init)(pds_ctx ctx, const char *resource, struct pds_kernels *k);
PDS_INTERN int pds_backend_init_ref(pds_ctx ctx, const char *resource, struct pds_kernels *k);
PDS_INTERN int pds_backend_init_omp(pds_ctx ctx, const char *resource, struct pds_kernels *k);
PDS_INTERN int pds_backend_init_cuda(pds_ctx ctx, const char *resource, struct pds_kernels *k);
/* The GPUs a compiled backend can run on here (0: none); used by "auto" and by an MPI context's choice of device. */
PDS_INTERN int pds_backend_available_cuda(void);

/* The ref table, for backends that start from it. */
PDS_INTERN void pds_kernels_fill_ref(struct pds_kernels *k);
/* ref's single-precision group (ref_f32.c); pds_kernels_fill_ref calls it */
PDS_INTERN void pds_kernels_fill_ref_f32(struct pds_kernels_f32 *k);

/* Shared dense helpers (in ref): Gauss-Jordan inversion of one bs x bs row-major block with partial
   pivoting; returns 0 on success, -1 if singular (pivot exactly zero or not finite). */
PDS_INTERN int pds_block_invert(int bs, pds_real *a);

#endif
