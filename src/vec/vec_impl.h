/* src/vec/vec_impl.h: vector internals: a host copy and a backend copy with a validity mask. */
#ifndef PDS_VEC_IMPL_H
#define PDS_VEC_IMPL_H

#include "../backend/backend.h"
#include "../backend/krylov_step.h"

enum { PDS_VALID_HOST = 1, PDS_VALID_DEVICE = 2 };

/* A renumbering of a distributed matrix's block rows (a partitioner's, src/io/mmio_dist.c), shared by the matrix and
   the vectors made from it (reference counted): rank 0, which reads and writes the files, holds old_of_new (block
   row i of the matrix is block row old_of_new[i] of the file; NULL on the other ranks), so that vector files, in the
   file's numbering, are scattered and gathered in the matrix's. */
struct pds_order {
  int       refct, bs;
  pds_size  nb;
  pds_int  *old_of_new;
};
PDS_INTERN void pds_order_release(pds_ctx ctx, struct pds_order **o);

struct pds_vec_s {
  struct pds_header hdr;
  pds_size          n;
  pds_real         *h;       /* host copy (NULL until needed on device backends) */
  pds_real         *d;       /* backend copy; == h on CPU backends */
  int               valid;   /* PDS_VALID_* mask */
  int               unified; /* host and backend memory are the same (CPU backends) */
  int               nread;   /* open read accesses */
  int               writing; /* an open write access */
  int               f32;     /* 1: the arrays hold n floats (a single-precision solve's internal vector, vec_f32.c) */
  int               borrowed; /* PDS_VALID_* mask of the arrays the caller owns (pds_vec_create_with_array) */
  int               dist;     /* 1: the rank's rows of a distributed vector (vec_dist.c): reductions span the ranks */
  pds_size          N, lo;    /* distributed: the global length and this rank's first row (else n and 0) */
  struct pds_order *order;    /* distributed, made from a renumbered matrix: its renumbering (else NULL) */
};

/* argument checks shared by the vector operations and the fused products (src/mat/mat_fused.c): vectors share a
   context and a length (VEC_SAME: and a precision) */
#define VEC_CTX(v) ((v)->hdr.ctx)
#define VEC_LIKE(x, y)                                                                                           \
  do {                                                                                                           \
    PDS_VALID(x, PDS_CLASSID_VEC, #x);                                                                           \
    PDS_VALID(y, PDS_CLASSID_VEC, #y);                                                                           \
    PDS_CHECK(VEC_CTX(x) == VEC_CTX(y), VEC_CTX(x), PDS_ERR_ARG, "vectors " #x " and " #y " belong to different contexts"); \
    PDS_CHECK((x)->n == (y)->n, VEC_CTX(x), PDS_ERR_SIZE,                                                        \
              "vector " #x " has length %" PDS_SIZE_FMT " but " #y " has %" PDS_SIZE_FMT, (x)->n, (y)->n);      \
  } while (0)
#define VEC_SAME(x, y)                                                                                           \
  do {                                                                                                           \
    VEC_LIKE(x, y);                                                                                              \
    PDS_CHECK((x)->f32 == (y)->f32, VEC_CTX(x), PDS_ERR_ARG, "vectors " #x " and " #y " differ in precision");    \
  } while (0)
/* s must hold at least need scalars and share x's context */
#define VEC_SCALARS(x, s, need)                                                                                  \
  do {                                                                                                           \
    PDS_VALID(s, PDS_CLASSID_VEC, "s");                                                                          \
    PDS_CHECK(VEC_CTX(s) == VEC_CTX(x), VEC_CTX(x), PDS_ERR_ARG, "scalar vector s belongs to another context");   \
    PDS_CHECK((s)->n >= (need), VEC_CTX(x), PDS_ERR_SIZE,                                                        \
              "scalar vector s has length %" PDS_SIZE_FMT ", needs at least %d", (s)->n, (int)(need));         \
  } while (0)

/* Distribution (vec_dist.c): a reduction's k values of a distributed vector summed over the ranks, on the host (d)
   or in backend memory (s[i .. i+k)); nothing to do for a vector of one rank. */
PDS_INTERN int pds_vec_allsum(pds_vec v, int k, pds_real *d);
/* give v (just created, of the rank's length) a layout known without communication: distributed or not, the global
   length, the first row, and a renumbering (referenced; NULL: none) */
PDS_INTERN void pds_vec_set_layout(pds_vec v, int dist, pds_size N, pds_size lo, struct pds_order *order);
PDS_INTERN int pds_vec_allsum_dev(pds_vec v, pds_vec s, int i, int k);
/* 1 when v's reductions need the other ranks (a distributed vector on more than one rank) */
PDS_INTERN int pds_vec_spans_ranks(pds_vec v);

/* Backend array for reading / for writing (marks the host copy stale). Used by kernels' callers. */
PDS_INTERN int pds_vec_dev_read(pds_vec v, const pds_real **a);
PDS_INTERN int pds_vec_dev_write(pds_vec v, pds_real **a);

/* Single-precision vectors (src/vec/vec_f32.c): internal to a single-precision solve (src/solver/precision.c),
   never handed to a user. Their backend arrays hold floats; pds_vec_dev_read/_write and the user's array access
   refuse them (an error naming the vector, never a float array read as doubles), the _f32 accessors refuse double
   vectors. The operations a single-precision Krylov method uses take them (vec.c dispatches to the f32 kernel
   group, src/backend/kernels_f32.h): set, copy (also converting between the precisions), axpby, axpbypcz, dot,
   dot2, dot_into, pointwise_divide (by a double vector), the fused steps, and the csr product; the others refuse
   them. */
PDS_INTERN int pds_vec_create_f32(pds_ctx ctx, pds_size n, pds_vec *v);
PDS_INTERN int pds_vec_dev_read_f32(pds_vec v, const float **a);
PDS_INTERN int pds_vec_dev_write_f32(pds_vec v, float **a);

/* The fused steps of CG and BiCGSTAB and the scalar step after them (one pass over the vectors instead of two or
   three; the kernels' semantics are in backend.h). S: the method's scalar vector (at least PDS_KS_N entries, laid
   out as src/backend/krylov_step.h says); every scalar they use comes from S, so they can be queued (or captured)
   without a value from the host. Each gives the bits of the unfused sequence on the same backend. */
/* step >= 0: the scalar step PDS_KS_STEP_* after the reduction, in the same kernel where the backend can */
PDS_INTERN int pds_vec_fused_cg_r(pds_vec r, pds_vec q, pds_vec S, int step); /* r -= (S_RHO/S_0) q; S_1 = r^T r */
PDS_INTERN int pds_vec_fused_cg_xp(pds_vec x, pds_vec p, pds_vec z, pds_vec S); /* x += alpha p; p = z + beta p */
PDS_INTERN int pds_vec_fused_bicgstab_s(pds_vec w, pds_vec r, pds_vec v, pds_vec S); /* w = r - (S_RHO/S_0) v; S_1 */
PDS_INTERN int pds_vec_fused_bicgstab_r(pds_vec r, pds_vec w, pds_vec t, pds_vec rhat, pds_vec S, int step);
PDS_INTERN int pds_vec_fused_bicgstab_xp(pds_vec x, pds_vec p, pds_vec ph, pds_vec sh, pds_vec r, pds_vec v,
                                         pds_vec S);
PDS_INTERN int pds_vec_krylov_step(pds_vec S, int method); /* the scalar step PDS_KS_STEP_* on S */
PDS_INTERN int pds_vec_krylov_set(pds_vec S, const pds_real *v); /* S = v[0..PDS_KS_N) (host), without a wait */

#endif
