/* src/sys/sys_impl.h: internal core of pdesolve: context, error macros, object header, allocator. */
#ifndef PDS_SYS_IMPL_H
#define PDS_SYS_IMPL_H

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "pdesolve.h"

#if defined(__GNUC__)
#define PDS_INTERN __attribute__((visibility("hidden")))
#define PDS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PDS_INTERN
#define PDS_PRINTF(a, b)
#endif

#define PDS_ERR_MSG_LEN 1280

struct pds_kernels; /* src/backend/backend.h */

struct pds_ctx_s {
  char                resource[64];   /* backend name as given, e.g. "/gpu/cuda:device=1" */
  char                backend[32];    /* canonical backend name, e.g. "/cpu/omp" */
  struct pds_kernels *k;              /* where things run */
  void               *backend_data;   /* owned by the backend (streams, handles, pool) */
  int                 nthreads;
  int                 err_code;
  char                err_msg[PDS_ERR_MSG_LEN];
  long                alloc_fail_after; /* < 0: never; else the allocation that fails, counted down */
  pds_real           *work;           /* reduction partials, grown on demand (backend memory) */
  size_t              work_len;
  /* distribution (src/sys/comm.c): a context of pds_ctx_create_mpi holds a duplicate of the user's communicator */
  void               *comm;           /* MPI_Comm *; NULL: one rank, no MPI */
  int                 rank, size;     /* 0 and 1 without a communicator */
  int                 comm_err;       /* an error already agreed across the ranks (comm.h) */
  double             *comm_rec;       /* the records of an agreement, size x PDS_COMM_REC */
  double              comm_time;      /* seconds spent in communication since the context was made */
  int                 halo_nccl;      /* the halo's messages through the backend's xchg slots (NCCL), not MPI */
};

/* Object header shared by vec, mat, precond, solver. */
#define PDS_CLASSID_VEC     0x70645601u
#define PDS_CLASSID_MAT     0x70644d02u
#define PDS_CLASSID_PRECOND 0x70645003u
#define PDS_CLASSID_SOLVER  0x70645304u
#define PDS_CLASSID_MESH    0x70646d05u
#define PDS_CLASSID_FREED   0xdeadbeefu
struct pds_header {
  pds_ctx  ctx;
  uint32_t classid;
  int      refct;
};

/* Store "func() at file:line: message" on ctx (if any) and return code. */
PDS_INTERN int pds_error(pds_ctx ctx, const char *file, int line, const char *func, int code, const char *fmt, ...)
    PDS_PRINTF(6, 7);

/* Raise PDS_ERR_ARG for a name missing from a registry table (entries start with their name). */
PDS_INTERN int pds_error_unknown_name(pds_ctx ctx, const char *func, const char *kind, const char *name,
                                      const void *table, size_t n, size_t stride);
#define PDS_ERROR_UNKNOWN(ctx, kind, name, table) \
  pds_error_unknown_name((ctx), __func__, (kind), (name), (table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))

#define PDS_CALL(...)                  \
  do {                                 \
    int pds_ierr_ = (__VA_ARGS__);     \
    if (pds_ierr_) return pds_ierr_;   \
  } while (0)
#define PDS_CHECK(cond, ctx, code, ...)                                                        \
  do {                                                                                         \
    if (!(cond)) return pds_error((ctx), __FILE__, __LINE__, __func__, (code), __VA_ARGS__);   \
  } while (0)
#define PDS_ERROR(ctx, code, ...) pds_error((ctx), __FILE__, __LINE__, __func__, (code), __VA_ARGS__)
/* For functions that must release things before returning: `ierr = call; if (ierr) goto done;`. */
#define PDS_CALL_GOTO(ierr, label, ...) \
  do {                                  \
    (ierr) = (__VA_ARGS__);             \
    if (ierr) goto label;               \
  } while (0)

/* Validate a handle of a given class (catches NULL, wrong handle kind and use after destroy). */
#define PDS_VALID(obj, cls, name)                                                                      \
  do {                                                                                                 \
    if (!(obj)) return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG, "%s is NULL", name); \
    if ((obj)->hdr.classid != (cls))                                                                   \
      return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG,                                \
                       "%s is not a valid object of its kind (destroyed, or another kind of handle)", name); \
  } while (0)

/* Typed allocation through the context allocator: PDS_NEW(ctx, n, &p) allocates n zeroed elements of *p. */
#define PDS_NEW(ctx, n, pp) pds_calloc((ctx), PDS_MEM_HOST, (size_t)(n) * sizeof(**(pp)), (pp))
#define PDS_NEW_DEV(ctx, n, pp) pds_malloc((ctx), PDS_MEM_DEVICE, (size_t)(n) * sizeof(**(pp)), (pp))

/* Copy between host and backend memory. */
PDS_INTERN int pds_memcpy(pds_ctx ctx, void *dst, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes);

/* *dst = new array of memory type dmt with a copy of src (memory type smt). */
PDS_INTERN int pds_dup_array(pds_ctx ctx, pds_memtype dmt, const void *src, pds_memtype smt, size_t bytes, void *dst);

/* Grow ctx->work (backend memory) to at least n reals. */
PDS_INTERN int pds_ctx_work(pds_ctx ctx, size_t n, pds_real **w);

/* Threads of the library's host loops (setups: pattern and maps, stencils; callbacks): the context's on /cpu/omp; all
   the host's on a device backend, whose host cores are otherwise idle (on an H200 host, fem2d's pattern and maps of
   the 1.7M-node grid took 0.85 s on one core, 0.18 s on 16); 1 on /cpu/ref, the sequential oracle. Every such loop
   gives the same result for any thread count. pds_host_thread_id: the calling thread's number in such a loop. */
PDS_INTERN int pds_host_threads(pds_ctx ctx);
PDS_INTERN int pds_host_thread_id(void);

#endif
