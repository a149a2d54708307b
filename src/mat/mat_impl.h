/* src/mat/mat_impl.h: matrix internals: the ops table each format fills, and the format data. */
#ifndef PDS_MAT_IMPL_H
#define PDS_MAT_IMPL_H

#include <stdio.h>

#include "../vec/vec_impl.h"

struct pds_mat_ops {
  /* y = alpha A x + beta y (beta = 0: y is not read); sizes and aliasing checked by the caller */
  int (*apply)(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y);
  int (*apply_transpose)(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y);
  /* optional: r = b - A x in one pass (the bits of r = b; r = -1 A x + 1 r); NULL: that two-step sequence */
  int (*residual)(pds_mat A, pds_vec b, pds_vec x, pds_vec r);
  int (*get_diagonal)(pds_mat A, pds_vec d);
  int (*get_block_diagonal)(pds_mat A, int bs, pds_real *blocks); /* host output */
  int (*view)(pds_mat A, FILE *f);
  int (*destroy)(pds_mat A);
  /* optional: the operator as a new csr matrix (pds_mat_convert_to_csr of a format that is not csr or bsr) */
  int (*to_csr)(pds_mat A, pds_mat *B);
};

struct pds_mat_s {
  struct pds_header  hdr;
  const char        *type;  /* "csr", "bsr", "shell" */
  pds_int            nrows, ncols; /* scalar rows and columns */
  int                bs;
  pds_size           nnz;   /* stored scalar entries */
  unsigned long      id;    /* new for every matrix (never reused, unlike its address): what a recorded device loop
                               keys on, with the arrays */
  struct pds_mat_ops ops;
  void              *data;  /* private to the format */
  int                dist;  /* 1: a distributed matrix (dist.c): nrows, ncols and nnz are this rank's */
  pds_int            N, lo; /* distributed: global rows (= columns) and this rank's first row */
  struct pds_order  *order; /* distributed and renumbered by a partitioner: the renumbering (vec_impl.h), else NULL */
};

/* CSR and BSR keep the arrays on the host (h) and in backend memory (d); on CPU backends these are the same
   arrays. own_h/own_d say whether the matrix frees them. */
struct pds_mat_csr {
  struct pds_csr h, d;
  int            own_h, own_d, unified;
  int            h_missing; /* born on the device (pds_mat_csr_from_device_owned): h's arrays are NULL until the
                               first host use downloads them (pds_mat_csr_host_sync) */
  float         *vals32;    /* the values rounded to float (backend memory), made by the first single-precision
                               product (csr_f32.c) and kept: a matrix's values never change */
};
struct pds_mat_bsr {
  struct pds_bsr h, d;
  int            own_h, own_d, unified;
  int            h_vals_missing; /* born on the device (pds_mat_bsr_from_device_owned): h.vals is NULL until the
                                    first host use of the values downloads them (pds_mat_bsr_host_sync) */
};

PDS_INTERN int pds_mat_alloc(pds_ctx ctx, const char *type, pds_int nrows, pds_int ncols, pds_mat *A);
/* Build a csr matrix that takes ownership of host arrays allocated with the context allocator. */
PDS_INTERN int pds_mat_csr_from_host_owned(pds_ctx ctx, pds_int nrows, pds_int ncols, pds_size *rowptr,
                                           pds_int *colidx, pds_real *vals, pds_mat *A);
PDS_INTERN int pds_mat_bsr_from_host_owned(pds_ctx ctx, pds_int nbrows, pds_int nbcols, int bs, pds_size *browptr,
                                           pds_int *bcolidx, pds_real *vals, pds_mat *A);
/* Build a csr matrix that takes ownership of backend arrays (device memory on a device backend); no host copy is
   made until one is needed. */
PDS_INTERN int pds_mat_csr_from_device_owned(pds_ctx ctx, pds_int nrows, pds_int ncols, pds_size nnz,
                                             pds_size *rowptr, pds_int *colidx, pds_real *vals, pds_mat *A);
/* Make a csr matrix's host arrays exist (one download for a matrix born on the device); a no-op otherwise. */
PDS_INTERN int pds_mat_csr_host_sync(pds_mat A);
/* Build a bsr matrix from a pattern on the host (h_browptr, h_bcolidx: taken, context allocator) and the same pattern
   and the values in backend memory (d_browptr, d_bcolidx, d_vals: taken; on a backend whose memory is the host's,
   d_browptr and d_bcolidx are NULL and d_vals is host memory): values computed on the device (a Jacobian) stay
   there; the host copy of the values is made by the first host use (pds_mat_bsr_host_sync). Freed on failure. */
PDS_INTERN int pds_mat_bsr_from_device_owned(pds_ctx ctx, pds_int nbrows, pds_int nbcols, int bs, pds_size *h_browptr,
                                             pds_int *h_bcolidx, pds_size *d_browptr, pds_int *d_bcolidx,
                                             pds_real *d_vals, pds_mat *A);
/* Make a bsr matrix's host values exist (one download for one born on the device); a no-op otherwise. */
PDS_INTERN int pds_mat_bsr_host_sync(pds_mat A);
/* Single-precision products of a csr matrix (src/mat/csr_f32.c), on single-precision vectors (vec_impl.h), with the
   values rounded to float once (an error names the first value outside float's range): the csr ops dispatch here
   when x is single. apply_dot: y = A x; s[i] = y . w1 (and s[i+1] = y . w2 when w2 != NULL), in double. */
PDS_INTERN int pds_mat_csr_apply_f32(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y);
PDS_INTERN int pds_mat_csr_residual_f32(pds_mat A, pds_vec b, pds_vec x, pds_vec r);
PDS_INTERN int pds_mat_csr_apply_dot_f32(pds_mat A, pds_vec x, pds_vec y, pds_vec w1, pds_vec w2, pds_vec s, int i);
/* Host CSR/BSR arrays of a matrix (NULL if it is not of that type; csr: after pds_mat_csr_host_sync; bsr's values:
   after pds_mat_bsr_host_sync). */
/* a whole cg / bicgstab iteration without a preconditioner in one launch where the backend can (mat_fused.c);
   *done = 0: it could not, queue the steps (backend.h: cg_iteration, bicg_iteration) */
PDS_INTERN int pds_mat_fused_cg_iteration(pds_mat A, pds_vec x, pds_vec r, pds_vec p, pds_vec q, pds_vec S, int *done);
PDS_INTERN int pds_mat_fused_bicgstab_iteration(pds_mat A, pds_vec x, pds_vec r, pds_vec rhat, pds_vec p, pds_vec v,
                                                pds_vec s, pds_vec t, pds_vec S, int *done);
/* stencil7 (stencil7.c): its grids' views of the backend values, *nb of them (NULL for another type), and the BSR
   copy (bs = n) */
PDS_INTERN const struct pds_stencil7 *pds_mat_stencil7_grids(pds_mat A, int *nb);
PDS_INTERN int pds_mat_stencil7_to_bsr(pds_mat A, pds_mat *B);
/* a stencil7 matrix of nb >= 0 grids (vals: their arms) and the couplings C between them (bsr of bs = n on all the
   grids' points; taken, also on failure; NULL: none) */
PDS_INTERN int pds_mat_stencil7_create_local(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals,
                                             pds_memtype mt, pds_mat C, pds_mat *A);
/* stencil7 (stencil7.c): the nb grids' dimensions checked and their points counted; m coupling blocks finite */
PDS_INTERN int pds_stencil7_points(pds_ctx ctx, int nb, const pds_int *dims, int n, pds_size *np);
PDS_INTERN int pds_stencil7_check_couplings(pds_ctx ctx, int n, pds_size m, const pds_real *blocks);
/* a block into a block row kept in column order, added to one of its column (bsr.c) */
PDS_INTERN void pds_bsr_row_add(pds_int *cj, pds_real *v, size_t b2, pds_size start, pds_size *end, pds_int c,
                                const pds_real *blk);
/* blocks given one by one (block row, block column, bs x bs values) as sorted, merged block rows (bsr.c) */
PDS_INTERN int pds_bsr_rows_from_blocks(pds_ctx ctx, pds_int nbrows, int bs, pds_size m, const pds_int *row,
                                        const pds_int *col, const pds_real *blocks, pds_size **rp, pds_int **cj,
                                        pds_real **v);
/* patches (patches.c): the set as kernels see it (NULL for another type), and the set coarsened by 2 (every patch's
   size and origin halved, the stencil rediscretized: off-diagonals kept, c0 + sum c_d times 4; PDS_ERR_UNSUPPORTED
   when a size or an origin is odd or a size is 1) as a new patches matrix */
struct pds_patches;
PDS_INTERN const struct pds_patches *pds_mat_patches_view(pds_mat A);
/* the CSR rows of patches q0 .. q1-1 with the set's column numbering (arrays new on A's allocator) */
PDS_INTERN int pds_mat_patches_rows(pds_mat A, int q0, int q1, pds_size **rp, pds_int **ci, pds_real **v);
/* the distributed patch set (dist_patches.c) of the whole set G (a host patches matrix, the same on every rank;
   collective): the rank's cells are its ownership range */
PDS_INTERN int pds_mat_patches_dist_from(pds_ctx ctx, pds_mat G, pds_mat *A);
/* the whole set on a host context of its own (*host), a failure reported on ctx (local; dist_patches.c) */
PDS_INTERN int pds_mat_patches_whole(pds_ctx ctx, int np, const pds_patch *patches, const pds_real stencil[7],
                                     pds_ctx *host, pds_mat *G);
/* a distributed matrix's block for bjacobi's local preconditioner: its patch set (mpipatches) or its diagonal block */
PDS_INTERN pds_mat pds_mat_dist_local_pc(pds_mat A);
PDS_INTERN int pds_mat_patches_coarsen(pds_mat A, pds_mat *Ac);
/* the patches operator as a csr matrix (pds_mat_convert_to_csr of a patches matrix): rows in unknown order, columns
   ascending, the Dirichlet extrapolation on the diagonal */
PDS_INTERN int pds_mat_patches_to_csr(pds_mat A, pds_mat *B);
PDS_INTERN const struct pds_csr *pds_mat_host_csr(pds_mat A);
/* a distributed matrix read from a file (src/io/mmio_dist.c): how its rows were cut (a static name), the
   partitioner's edge cut (-1: none) and its renumbering (taken; NULL: the file's numbering) */
PDS_INTERN void pds_mat_dist_set_partition(pds_mat A, const char *name, long edgecut, struct pds_order *order);
/* a new vector of A's rows: distributed like A when A is (dist.c; no communication) */
PDS_INTERN int pds_mat_row_vec(pds_mat A, pds_vec *v);
/* additive Schwarz's view of a distributed matrix (dist_overlap.c; collective): the rank's rows extended by overlap 1
   (own block rows, then the ghosts' rows in ascending global order, columns restricted to that set) as a new ordinary
   csr/bsr matrix; and x's ghost values (*g: owned by A, valid until its next product), in that order */
PDS_INTERN int pds_mat_dist_overlap(pds_mat A, pds_mat *Aext);
PDS_INTERN int pds_mat_dist_ghosts(pds_mat A, pds_vec x, pds_vec *g);
PDS_INTERN const struct pds_bsr *pds_mat_host_bsr(pds_mat A);

#endif
