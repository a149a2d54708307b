/* include/pdesolve/pds_types.h: scalar types, error codes, memory and copy modes, convergence reasons. */
#ifndef PDESOLVE_PDS_TYPES_H
#define PDESOLVE_PDS_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>

#include "pdesolve/pds_config.h"

#if defined(_WIN32)
#define PDS_EXTERN __declspec(dllexport)
#elif defined(__GNUC__)
#define PDS_EXTERN __attribute__((visibility("default")))
#else
#define PDS_EXTERN
#endif

/* Local indices (rows, columns, block indices) are 32-bit: GPU friendly and half the index traffic.
   Sizes and offsets (vector lengths, nonzero counts, CSR row pointers) are 64-bit. */
typedef int32_t pds_int;
typedef int64_t pds_size;
typedef double  pds_real;
#define PDS_INT_FMT  PRId32
#define PDS_SIZE_FMT PRId64
#define PDS_INT_MAX  INT32_MAX

/* Every function returns PDS_OK or one of these negative codes; the message is on the context. */
typedef enum {
  PDS_OK              = 0,
  PDS_ERR_ARG         = -1,  /* bad argument: NULL handle, unknown name, value out of range */
  PDS_ERR_SIZE        = -2,  /* dimensions do not match */
  PDS_ERR_MEM         = -3,  /* allocation failed (host or device) */
  PDS_ERR_UNSUPPORTED = -4,  /* operation or backend not available in this build or for this type */
  PDS_ERR_BACKEND     = -5,  /* CUDA, cuBLAS, cuSPARSE or other vendor error */
  PDS_ERR_MPI         = -6,  /* MPI error */
  PDS_ERR_ZERO_PIVOT  = -7,  /* zero or singular pivot in a factorization or inversion */
  PDS_ERR_STATE       = -8,  /* wrong call order, object in use, access not restored */
  PDS_ERR_IO          = -9,  /* file cannot be opened, read or written */
  PDS_ERR_FORMAT      = -10  /* file or data is malformed (with the line number) */
} pds_error_code;

/* Where an array lives. On CPU backends the backend's memory is host memory. */
typedef enum { PDS_MEM_HOST = 0, PDS_MEM_DEVICE = 1 } pds_memtype;

/* What the library does with an array passed to it (libCEED's modes). */
typedef enum {
  PDS_COPY_VALUES = 0, /* copy; the caller keeps ownership of its array */
  PDS_USE_POINTER = 1, /* use the caller's array; the caller frees it after destroying the object */
  PDS_OWN_POINTER = 2  /* take the array; the library frees it with free() (host) */
} pds_copymode;

/* Why a solver stopped: > 0 converged, < 0 diverged, 0 still iterating. */
typedef enum {
  PDS_ITERATING           = 0,
  PDS_CONVERGED_RTOL      = 1, /* ||r||_2 <= rtol * ||b||_2 */
  PDS_CONVERGED_ATOL      = 2, /* ||r||_2 <= atol */
  PDS_CONVERGED_INF       = 3, /* ||b - A x||_inf <= inftol */
  PDS_CONVERGED_ITS       = 4, /* fixed iteration count reached (solvers run without a test) */
  PDS_DIVERGED_MAXIT      = -1,
  PDS_DIVERGED_BREAKDOWN  = -2, /* a scalar the method divides by became zero */
  PDS_DIVERGED_NAN        = -3, /* the residual became NaN or Inf */
  PDS_DIVERGED_DTOL       = -4, /* the residual grew by more than dtol */
  PDS_DIVERGED_INDEFINITE = -5  /* CG: (p, A p) or (r, M^-1 r) zero or changing sign: A or M is indefinite */
} pds_reason;

/* The arithmetic of a solve (pds_solver_set_precision). */
typedef enum {
  PDS_PRECISION_DOUBLE = 0, /* everything in double (the default) */
  PDS_PRECISION_SINGLE = 1, /* matrix values and Krylov vectors in float, reductions accumulated in double */
  PDS_PRECISION_MIXED  = 2  /* double's accuracy from single-precision iterations, updated in double */
} pds_precision;

/* The outcome of one solve. Not converging is a result, not an error. */
typedef struct {
  int      iterations; /* iterations performed */
  pds_real bnorm;      /* ||b||_2 */
  pds_real rnorm0;     /* ||b - A x0||_2 */
  pds_real rnorm;      /* final residual 2-norm as tracked by the method */
  pds_real rnorm_inf;  /* final ||b - A x||_inf when the infinity-norm test is on, else -1 */
  int      reason;     /* pds_reason */
} pds_solver_result;

#endif
