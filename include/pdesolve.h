/* include/pdesolve.h: the one header users of pdesolve include.
 *
 * Objects: a context (backend, errors, allocator), vectors, matrices (csr, bsr, shell), preconditioners
 * (none, jacobi, pbjacobi, shell), Krylov solvers (cg, bicgstab, gmres, fgmres, richardson), Matrix Market
 * I/O, 2D triangle meshes, P1 finite elements (fem2d) and problem generators. Every function returns PDS_OK (0)
 * or a negative pds_error_code; the message is read with pds_ctx_get_error(). Handles are opaque;
 * create(..., &h) pairs with destroy(&h), which sets h to NULL and accepts NULL. See docs/user-guide.md. */
#ifndef PDESOLVE_H
#define PDESOLVE_H

#include <stdio.h>

#include "pdesolve/pds_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pds_ctx_s     *pds_ctx;
typedef struct pds_vec_s     *pds_vec;
typedef struct pds_mat_s     *pds_mat;
typedef struct pds_precond_s *pds_precond;
typedef struct pds_solver_s  *pds_solver;

/* ---- context ---------------------------------------------------------------------------------------- */
/* resource: "/cpu/ref", "/cpu/omp", "/gpu/cuda", "/gpu/cuda:device=N" or "auto" (GPU if compiled and
   present, else OpenMP if compiled, else ref). An uncompiled backend answers PDS_ERR_UNSUPPORTED with how to
   enable it; the message is then printed to stderr since there is no context to hold it. */
PDS_EXTERN int         pds_ctx_create(const char *resource, pds_ctx *ctx);
PDS_EXTERN int         pds_ctx_destroy(pds_ctx *ctx);
PDS_EXTERN const char *pds_ctx_get_backend(pds_ctx ctx);                 /* "/cpu/ref", ... */
PDS_EXTERN const char *pds_ctx_get_error(pds_ctx ctx);                   /* last error message, "" if none */
PDS_EXTERN int         pds_ctx_get_error_code(pds_ctx ctx);
PDS_EXTERN void        pds_ctx_clear_error(pds_ctx ctx);
PDS_EXTERN int         pds_ctx_get_num_threads(pds_ctx ctx);             /* 1 except on /cpu/omp */
/* Ranks: a context made by pds_ctx_create_mpi (include/pdesolve_mpi.h) spans the ranks of its communicator; one of
   pds_ctx_create is rank 0 of 1. Seconds spent in MPI calls (reductions, halo exchanges, setup) since creation. */
PDS_EXTERN int         pds_ctx_get_rank(pds_ctx ctx);
PDS_EXTERN int         pds_ctx_get_size(pds_ctx ctx);
PDS_EXTERN double      pds_ctx_get_comm_time(pds_ctx ctx);
/* How a distributed product's halo travels (collective): "mpi" (the default; through page-locked host memory on a
   GPU, its copies beside the local product) or "nccl" (NCCL's point-to-point calls between device buffers, queued on
   a second stream of each GPU: no host copy and no host wait in a product; /gpu/cuda built with NCCL, libnccl.so.2
   found at run time, else PDS_ERR_UNSUPPORTED on every rank; NVLink multicast is left off). Set it before the
   products; reductions stay MPI's (deterministic, docs/mpi.md). */
PDS_EXTERN int         pds_ctx_set_halo_transport(pds_ctx ctx, const char *name);
PDS_EXTERN const char *pds_ctx_get_halo_transport(pds_ctx ctx);
/* Names of the backends of this library, compiled or not, and whether each is compiled. */
PDS_EXTERN int         pds_backend_count(void);
PDS_EXTERN const char *pds_backend_name(int i);
PDS_EXTERN int         pds_backend_compiled(int i);
PDS_EXTERN const char *pds_error_name(int code);                          /* "PDS_ERR_SIZE", ... */
PDS_EXTERN const char *pds_reason_name(int reason);                       /* "converged_rtol", ... */
PDS_EXTERN const char *pds_version(void);
PDS_EXTERN double      pds_wtime(void);                                  /* monotonic wall clock, seconds */

/* One allocator for every array of the library. Memory type DEVICE is the backend's memory (host memory on
   CPU backends). Tests can make the k-th allocation from now on fail with pds_ctx_set_alloc_fail(ctx, k)
   (k < 0 turns this off); the environment variable PDS_ALLOC_FAIL=k does the same for a new context. */
PDS_EXTERN int  pds_malloc(pds_ctx ctx, pds_memtype mt, size_t bytes, void *p);
PDS_EXTERN int  pds_calloc(pds_ctx ctx, pds_memtype mt, size_t bytes, void *p);
PDS_EXTERN int  pds_free(pds_ctx ctx, pds_memtype mt, void *p);  /* p: address of the pointer; sets it NULL */
PDS_EXTERN void pds_ctx_set_alloc_fail(pds_ctx ctx, long k);
/* Page-lock bytes bytes of host memory at p (the user's own arrays) so that a device backend copies them
   asynchronously, overlapped with its kernels (pds_precond_relax_smooth_host); /gpu/cuda: cudaHostRegister, an error
   if p is already registered; CPU backends: nothing to do. Unregister before freeing p. */
PDS_EXTERN int pds_host_register(pds_ctx ctx, void *p, size_t bytes);
PDS_EXTERN int pds_host_unregister(pds_ctx ctx, void *p);

/* ---- vectors ---------------------------------------------------------------------------------------- */
PDS_EXTERN int pds_vec_create(pds_ctx ctx, pds_size n, pds_vec *v);      /* values undefined until set */
PDS_EXTERN int pds_vec_duplicate(pds_vec v, pds_vec *w);                  /* same size and context, no values */
/* A vector on the caller's array a of n doubles (16-byte aligned) in memory type mt, used in place, never freed by
   the library (PDS_USE_POINTER): the caller keeps it alive until the vector is destroyed. CPU backends take host
   arrays only (their memory is host memory); /gpu/cuda takes a device array (operations work on it directly; a
   host access copies it to a host array of the library's) or a host array (the library keeps a device copy: after
   operations on the device, pds_vec_get_array_read(v, PDS_MEM_HOST, ...) brings the values back into a). */
PDS_EXTERN int pds_vec_create_with_array(pds_ctx ctx, pds_size n, pds_memtype mt, pds_real *a, pds_vec *v);
PDS_EXTERN int pds_vec_destroy(pds_vec *v);
/* Distributed vectors (docs/mpi.md): this rank's nlocal rows of a global vector whose rows are the ranks' in rank order
   (collective: every rank of the context calls it; nlocal may be 0). Its reductions (dot, norms, the Krylov methods'
   dots) span the ranks, summed in rank order: the same bits on every rank and in every run with the same number of
   ranks. pds_vec_duplicate keeps the layout; pds_vec_get_size gives the local length. On a context of one rank it is
   an ordinary vector. */
PDS_EXTERN int pds_vec_create_dist(pds_ctx ctx, pds_size nlocal, pds_vec *v);
PDS_EXTERN int pds_vec_get_ownership_range(pds_vec v, pds_size *lo, pds_size *hi); /* global rows lo .. hi-1 */
PDS_EXTERN int pds_vec_get_global_size(pds_vec v, pds_size *N);
PDS_EXTERN int pds_vec_is_distributed(pds_vec v);
PDS_EXTERN int pds_vec_get_size(pds_vec v, pds_size *n);
PDS_EXTERN pds_ctx pds_vec_get_ctx(pds_vec v);
PDS_EXTERN int pds_vec_set(pds_vec v, pds_real alpha);                    /* v_i = alpha */
PDS_EXTERN int pds_vec_set_values(pds_vec v, const pds_real *x, pds_memtype mt);  /* v = x[0..n) */
PDS_EXTERN int pds_vec_get_values(pds_vec v, pds_real *x, pds_memtype mt);        /* x[0..n) = v */
PDS_EXTERN int pds_vec_set_random(pds_vec v, uint64_t seed);              /* uniform in [-1, 1), reproducible */
PDS_EXTERN int pds_vec_copy(pds_vec x, pds_vec y);                        /* y = x */
PDS_EXTERN int pds_vec_scale(pds_vec x, pds_real alpha);                  /* x = alpha x */
PDS_EXTERN int pds_vec_axpy(pds_vec y, pds_real alpha, pds_vec x);        /* y = y + alpha x */
PDS_EXTERN int pds_vec_aypx(pds_vec y, pds_real beta, pds_vec x);         /* y = x + beta y */
PDS_EXTERN int pds_vec_axpby(pds_vec y, pds_real alpha, pds_vec x, pds_real beta); /* y = alpha x + beta y */
PDS_EXTERN int pds_vec_waxpy(pds_vec w, pds_real alpha, pds_vec x, pds_vec y);     /* w = alpha x + y */
PDS_EXTERN int pds_vec_pointwise_mult(pds_vec w, pds_vec x, pds_vec y);   /* w_i = x_i y_i */
PDS_EXTERN int pds_vec_pointwise_divide(pds_vec w, pds_vec x, pds_vec y); /* w_i = x_i / y_i */
PDS_EXTERN int pds_vec_dot(pds_vec x, pds_vec y, pds_real *d);            /* x^T y, deterministic */
PDS_EXTERN int pds_vec_axpbypcz(pds_vec z, pds_real alpha, pds_vec x, pds_real beta, pds_vec y, pds_real gamma);
                                                                          /* z = alpha x + beta y + gamma z */
PDS_EXTERN int pds_vec_dot2(pds_vec x, pds_vec y, pds_vec z, pds_real *xy, pds_real *xz); /* x^T y, x^T z, one pass */
PDS_EXTERN int pds_vec_norm2(pds_vec x, pds_real *nrm);                   /* ||x||_2 */
PDS_EXTERN int pds_vec_norm_inf(pds_vec x, pds_real *nrm);                /* max |x_i| (NaN if any is NaN) */
/* Reductions whose results stay in backend memory, in a small vector s of scalars: the Krylov methods keep the
   scalars that feed their next step there and read s on the host once per iteration (pds_vec_get_values), which
   on a GPU is one small device-to-host copy. Same bits as pds_vec_dot / pds_vec_dot2. */
PDS_EXTERN int pds_vec_dot_into(pds_vec x, pds_vec y, pds_vec s, int i);             /* s_i = x^T y */
PDS_EXTERN int pds_vec_dot2_into(pds_vec x, pds_vec y, pds_vec z, pds_vec s, int i); /* s_i = x^T y, s_i+1 = x^T z */
/* Block Gram-Schmidt (GMRES's CGS2), results and coefficients in backend memory (s, c: scalar vectors):
   mdot_into: s_{offset+i} = V_i^T w for i < k, each with the bits of pds_vec_dot(V_i, w);
   maxpy_dev: w = w - sum_{i<k} c_{offset+i} V_i, the bits of k successive pds_vec_axpy(w, -c_{offset+i}, V_i) */
PDS_EXTERN int pds_vec_mdot_into(pds_vec w, int k, const pds_vec *V, pds_vec s, int offset);
PDS_EXTERN int pds_vec_maxpy_dev(pds_vec w, int k, const pds_vec *V, pds_vec c, int offset);
/* y = A x, then s_i = y^T w1 (and s_i+1 = y^T w2 when w2 is not NULL): one pass over y where the backend fuses the
   product with the dots (csr); otherwise pds_mat_apply followed by pds_vec_dot_into / pds_vec_dot2_into, whose bits
   the CPU backends also give on the fused path. w1 may be x, w2 may be y. */
PDS_EXTERN int pds_vec_fused_apply_dot(pds_mat A, pds_vec x, pds_vec y, pds_vec w1, pds_vec w2, pds_vec s, int i);
/* Direct access: get, use, restore. A read access may be open several times at once; a write access
   excludes every other access. mt = DEVICE gives the backend's array. */
PDS_EXTERN int pds_vec_get_array_read(pds_vec v, pds_memtype mt, const pds_real **a);
PDS_EXTERN int pds_vec_restore_array_read(pds_vec v, const pds_real **a);
PDS_EXTERN int pds_vec_get_array_write(pds_vec v, pds_memtype mt, pds_real **a);
PDS_EXTERN int pds_vec_restore_array_write(pds_vec v, pds_real **a);

/* ---- matrices --------------------------------------------------------------------------------------- */
/* CSR from arrays: rowptr[nrows+1] (rowptr[0] = 0), colidx[nnz], vals[nnz]; column indices are checked to be
   in range; within a row they may come in any order. copymode applies to all three arrays. */
PDS_EXTERN int pds_mat_create_csr(pds_ctx ctx, pds_int nrows, pds_int ncols, pds_size *rowptr, pds_int *colidx,
                                  pds_real *vals, pds_memtype mt, pds_copymode cm, pds_mat *A);
/* CSR from 0-based triplets; duplicates are summed, rows come out sorted by column. */
PDS_EXTERN int pds_mat_create_csr_from_triplets(pds_ctx ctx, pds_int nrows, pds_int ncols, pds_size nnz,
                                                const pds_int *rows, const pds_int *cols, const pds_real *vals,
                                                pds_mat *A);
/* BSR with bs x bs blocks: browptr[nbrows+1], bcolidx[nnzb], vals[nnzb*bs*bs], each block row-major. */
PDS_EXTERN int pds_mat_create_bsr(pds_ctx ctx, pds_int nbrows, pds_int nbcols, int bs, pds_size *browptr,
                                  pds_int *bcolidx, pds_real *vals, pds_memtype mt, pds_copymode cm, pds_mat *A);
/* Structured 7-point block matrix ("stencil7"): an I x J x K grid, point p = (i J + j) K + k (k fastest), n
   unknowns per point (1 <= n <= PDS_STENCIL7_MAXN; unknown u of point p is row p n + u), and for each point seven
   n x n row-major blocks, vals[((p 7) + a) n^2 ..]: a = 0 alpha (couples to (i, j, k-1)), 1 beta (j-1), 2 gamma
   (i-1), 3 delta (the point itself), 4 epsilon (i+1), 5 zeta (j+1), 6 eta (k+1) (paper 000's names). Blocks that
   point out of the grid must be zero (a coupling to another grid of a multi-block grid is given to
   pds_mat_create_stencil7_coupled). The values are copied (mt: where vals lives). */
#define PDS_STENCIL7_MAXN 8
PDS_EXTERN int pds_mat_create_stencil7(pds_ctx ctx, pds_int ni, pds_int nj, pds_int nk, int n, const pds_real *vals,
                                       pds_memtype mt, pds_mat *A);
/* Several independent grids in one matrix (the blocks of a multi-block structured code, coupled only through the
   right-hand side): grid b is dims[3 b] x dims[3 b + 1] x dims[3 b + 2], its points follow the previous grids'
   (rows and vals in that order); products and bilu0 run over all grids at once. */
PDS_EXTERN int pds_mat_create_stencil7_blocks(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals,
                                              pds_memtype mt, pds_mat *A);
/* Grids cut from one domain (a multi-block grid whose blocks touch): the grids as pds_mat_create_stencil7_blocks and m
   coupling blocks across the cuts, block k coupling point row[k] to point col[k] (points numbered over all grids,
   row != col; repeats summed) with the n x n row-major values blocks[k n^2 ..] (host memory). A = grids + couplings in
   products and conversions; bilu0 factors each grid alone and leaves the couplings to the residual (paper 000's
   multi-block coupling, Eq. 4: Richardson with bilu0 is its defect correction). pds_channel_generate_decomposed makes
   one; pds_mat_create_stencil7_dist spreads the grids over ranks. */
PDS_EXTERN int pds_mat_create_stencil7_coupled(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals,
                                               pds_memtype mt, pds_size m, const pds_int *row, const pds_int *col,
                                               const pds_real *blocks, pds_mat *A);
PDS_EXTERN int pds_mat_stencil7_get_grid(pds_mat A, pds_int *ni, pds_int *nj, pds_int *nk, int *n); /* one grid */
PDS_EXTERN int pds_mat_stencil7_get_blocks(pds_mat A, int *nb);                                      /* grids */
PDS_EXTERN int pds_mat_stencil7_get_block(pds_mat A, int b, pds_int *ni, pds_int *nj, pds_int *nk, int *n);
/* A csr or bsr matrix (a Matrix Market file read back, say) as stencil7 on the given grid: every stored nonzero
   must couple a point to itself or to one of its 7-point neighbours (PDS_ERR_ARG names the first that does not),
   and the size must be I J K n (PDS_ERR_SIZE). Duplicates are summed. */
PDS_EXTERN int pds_mat_convert_to_stencil7(pds_mat A, pds_int ni, pds_int nj, pds_int nk, int n, pds_mat *B);
/* Patch set ("patches", paper 002): non-overlapping boxes of cells on one common cell grid (patch q covers cells
   lo[d] .. lo[d] + n[d] - 1 in each direction d; sizes may differ) and a constant-coefficient 7-point stencil
   stencil[7] = {c0, c_x-, c_x+, c_y-, c_y+, c_z-, c_z+}: (A u)_p = c0 u_p + sum_d c_d u_(p+d). The unknowns are the
   cells, patch after patch, each x fastest (cell (i, j, k) of patch q is row first_q + (k n_y + j) n_x + i). The
   domain is the union of the patches; a neighbour that no patch owns lies outside it, and the cell's face there is
   a homogeneous Dirichlet boundary: its ghost value is extrapolated, u_ghost = -u_p (a boundary value g adds
   -2 c_d g to the right-hand side). Interior ghosts come from the neighbouring patch, whatever its size. For -lap u
   = f with cell width h: c0 = 6, c_d = -1, right-hand side h^2 f (paper 002 Eq. 2), or everything over h^2.
   Errors: an empty or negative size, overlapping patches (PDS_ERR_ARG naming both), a non-finite stencil value,
   c0 = 0, more cells than 32-bit indices allow. The patches are copied. */
typedef struct {
  pds_int lo[3]; /* first cell on the common grid */
  pds_int n[3];  /* cells in x, y, z */
} pds_patch;
PDS_EXTERN int pds_mat_create_patches(pds_ctx ctx, int np, const pds_patch *patches, const pds_real stencil[7],
                                      pds_mat *A);
/* Patches tiling the box of n[0] x n[1] x n[2] cells: along each axis the segments take the sizes sizes[0],
   sizes[1], ... in turn (nsizes >= 1; one size: equal patches; the last segment of an axis is cut at the box),
   patches x fastest. patches = NULL: only *np is set; else patches has room for *np on entry (PDS_ERR_SIZE if not). */
PDS_EXTERN int pds_patches_tile_box(const pds_int n[3], int nsizes, const pds_int *sizes, int *np,
                                    pds_patch *patches);
PDS_EXTERN int pds_mat_patches_get_count(pds_mat A, int *np);
PDS_EXTERN int pds_mat_patches_get_patch(pds_mat A, int q, pds_patch *patch, pds_size *first);
PDS_EXTERN int pds_mat_patches_get_stencil(pds_mat A, pds_real stencil[7]);
/* Patch q of x with its ghost layer, host memory: g[((k+1)(n_y+2) + j+1)(n_x+2) + i+1] for i = -1 .. n_x (likewise
   j, k): the cells, interior ghosts across faces, edges and corners from whichever patch owns them, boundary ghosts
   extrapolated (-u, applied once per direction that leaves the domain, so an edge ghost beyond two boundaries is
   +u). An edge or corner ghost is reached by stepping x, then y, then z from the cell through the neighbours (a step
   that leaves the domain stays and flips the sign): on a box domain that is the owner's value; at a re-entrant
   corner of a non-box union it is the reflected value of the last cell reached. */
PDS_EXTERN int pds_mat_patches_get_ghosted(pds_mat A, pds_vec x, int q, pds_real *g);
/* Matrix-free operator: apply(ctx_user, x, y) computes y = A x with pds_vec operations or array access. */
typedef int (*pds_shell_apply)(void *user, pds_vec x, pds_vec y);
PDS_EXTERN int pds_mat_create_shell(pds_ctx ctx, pds_int nrows, pds_int ncols, void *user, pds_shell_apply apply,
                                    pds_mat *A);
/* Distributed matrices (docs/mpi.md; collective: every rank of the context calls them, in the same order). Each rank
   gives its rows, in rank order: nlocal rows (nblocal block rows of bs x bs blocks) with GLOBAL column indices; rows
   and columns share one layout (a square matrix; rank r's columns are its rows). Entries of a row may come in any
   order. The rows are split into the block of the rank's own columns and the block of the other ranks' ("mpicsr",
   "mpibsr": PETSc's MPIAIJ split), and a product overlaps the halo exchange with the first block's product. The
   arrays are copied. pds_mat_get_size and pds_mat_get_nnz give the rank's local counts (what its vectors hold);
   pds_mat_get_global_size the global. A column outside the matrix is PDS_ERR_ARG on the rank that has it, and every
   rank returns an error. Products, diagonals (jacobi, pbjacobi), the Krylov methods and bjacobi work on them. */
PDS_EXTERN int pds_mat_create_csr_dist(pds_ctx ctx, pds_int nlocal, const pds_size *rowptr, const pds_int *colidx,
                                       const pds_real *vals, pds_mat *A);
PDS_EXTERN int pds_mat_create_bsr_dist(pds_ctx ctx, pds_int nblocal, int bs, const pds_size *browptr,
                                       const pds_int *bcolidx, const pds_real *vals, pds_mat *A);
/* A multi-block structured grid spread over the ranks ("mpistencil7"): each rank gives its nb >= 0 grids (dims, vals as
   pds_mat_create_stencil7_blocks; the ranks' grids follow each other in rank order) and the m couplings of their
   points to points of any grid: block k couples this rank's point row[k] (local numbering) to point col[k] (GLOBAL
   numbering over all ranks' grids) with the n x n values blocks[k n^2 ..] (host memory; repeats summed). Products
   exchange the halo of the coupled points; bjacobi with -sub_pc bilu0 factors each grid alone (paper 000's multi-block
   BILU: Richardson with it is the residual exchange of its Eq. 4); pds_channel_generate_decomposed_dist makes one. */
PDS_EXTERN int pds_mat_create_stencil7_dist(pds_ctx ctx, int nb, const pds_int *dims, int n, const pds_real *vals,
                                            pds_size m, const pds_int *row, const pds_int *col,
                                            const pds_real *blocks, pds_mat *A);
/* A patch set spread over the ranks ("mpipatches", collective): every rank gives the whole list of boxes and the
   stencil (as pds_mat_create_patches); rank r holds the cells of whole patches, those starting in its share
   ncells r / P .. ncells (r + 1) / P - 1. Products are the whole set's operator (an mpicsr split); bjacobi gives its
   local preconditioner (relax, gmg) the rank's patches as a patch set whose faces to other ranks' patches are
   Dirichlet faces like the domain's boundary: a block Jacobi preconditioner with those couplings moved onto the
   diagonal. pds_problem_patches_dist makes the patches problem this way. */
PDS_EXTERN int pds_mat_create_patches_dist(pds_ctx ctx, int np, const pds_patch *patches, const pds_real stencil[7],
                                           pds_mat *A);
/* A Matrix Market file read by rank 0 and scattered by contiguous block rows of bs (rank r: block rows nb r / P ..
   nb (r + 1) / P - 1, rounded down); bs > 1 stores it as mpibsr. */
PDS_EXTERN int pds_mat_load_dist(pds_ctx ctx, const char *path, int bs, pds_mat *A);
/* The same with a partitioner: "contiguous" (the above) or "metis" (a build with METIS, else PDS_ERR_UNSUPPORTED): rank
   0 cuts the graph of A + A^T into P parts with few edges between them (the halo's volume) and the matrix is renumbered
   part after part (P A P^T: rank r holds part r). The vectors of pds_mat_create_vecs carry the renumbering, so that
   pds_vec_load_dist and pds_vec_write_dist read and write files in the file's numbering; -view reports the edge cut
   and the halo's volume. */
PDS_EXTERN int pds_mat_load_dist_partitioned(pds_ctx ctx, const char *path, int bs, const char *partitioner,
                                             pds_mat *A);
/* A matrix that rank 0 holds whole (S: any format pds_mat_convert_to_csr takes, on any context, a host one say; NULL on
   the other ranks) spread over ctx's ranks as pds_mat_load_dist_partitioned spreads a file (the same partitioners and
   layouts); S stays rank 0's. Collective; no S on rank 0 is PDS_ERR_ARG on every rank. With pds_vec_scatter_dist, what
   a code that assembles on one rank needs to solve on many (the driver does so for fem2d, patches and sem). */
PDS_EXTERN int pds_mat_scatter_dist(pds_ctx ctx, pds_mat S, int bs, const char *partitioner, pds_mat *A);
/* The whole vector s of rank 0 (its own numbering, the one of the matrix given to pds_mat_scatter_dist; NULL on the
   other ranks) into the distributed v's rows (collective) */
PDS_EXTERN int pds_vec_scatter_dist(pds_vec v, pds_vec s);
/* A Matrix Market vector into v's rows (read by rank 0 and scattered by v's layout); v not distributed: the whole file */
PDS_EXTERN int pds_vec_load_dist(pds_vec v, const char *path);
/* v gathered on rank 0 and written there as one Matrix Market array file (collective) */
PDS_EXTERN int pds_vec_write_dist(pds_vec v, const char *path);
PDS_EXTERN int pds_mat_get_global_size(pds_mat A, pds_int *N);          /* = local rows when not distributed */
PDS_EXTERN int pds_mat_get_ownership_range(pds_mat A, pds_int *lo, pds_int *hi);
PDS_EXTERN int pds_mat_is_distributed(pds_mat A);
/* the rank's two blocks (owned by A): Ad (local columns) and Ao (ghost columns, ascending global order; only the rows
   that have off-rank entries, in order: compressed rows; NULL for a matrix-free type: mpisem) */
PDS_EXTERN int pds_mat_dist_get_local(pds_mat A, pds_mat *Ad, pds_mat *Ao);
/* the values this rank receives in a product's exchange (its ghosts, times the block size; 0 when not distributed):
   the halo's volume, which a partitioner lowers */
PDS_EXTERN int pds_mat_dist_get_ghost_count(pds_mat A, pds_int *n);
/* x (A's columns) and b (A's rows), distributed like A when A is (either may be NULL) */
PDS_EXTERN int pds_mat_create_vecs(pds_mat A, pds_vec *x, pds_vec *b);
/* CSR -> BSR with block size bs (bs = 0: detect the largest bs in 8..1 that divides n and gives the fewest
   stored zeros; a bs that leaves more than half of the stored block entries zero is not chosen); stencil7 -> BSR
   with bs = 0 or n. Blocks that hold any nonzero of the CSR pattern are stored, with zeros filled in. */
PDS_EXTERN int pds_mat_convert_to_bsr(pds_mat A, int bs, pds_mat *B);
/* BSR -> CSR (all block entries); patches -> CSR (the same operator: rows in unknown order, columns ascending) */
PDS_EXTERN int pds_mat_convert_to_csr(pds_mat A, pds_mat *B);
PDS_EXTERN int pds_mat_detect_block_size(pds_mat A, int *bs);            /* the rule of convert_to_bsr(A, 0) */
PDS_EXTERN int pds_mat_destroy(pds_mat *A);
PDS_EXTERN int pds_mat_reference(pds_mat A);                              /* one more owner; destroy drops one */
PDS_EXTERN const char *pds_mat_get_type(pds_mat A); /* "csr", "bsr", "stencil7", "patches", "shell" */
PDS_EXTERN pds_ctx pds_mat_get_ctx(pds_mat A);
PDS_EXTERN int pds_mat_get_size(pds_mat A, pds_int *nrows, pds_int *ncols); /* scalar rows and columns */
PDS_EXTERN int pds_mat_get_block_size(pds_mat A, int *bs);                /* 1 for csr and shell */
PDS_EXTERN int pds_mat_get_nnz(pds_mat A, pds_size *nnz);                 /* stored scalar entries */
PDS_EXTERN int pds_mat_apply(pds_mat A, pds_vec x, pds_vec y);            /* y = A x */
PDS_EXTERN int pds_mat_apply_add(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y); /* y = alpha A x + beta y */
PDS_EXTERN int pds_mat_apply_transpose(pds_mat A, pds_vec x, pds_vec y); /* y = A^T x (csr) */
PDS_EXTERN int pds_mat_residual(pds_mat A, pds_vec b, pds_vec x, pds_vec r); /* r = b - A x */
PDS_EXTERN int pds_mat_get_diagonal(pds_mat A, pds_vec d);                /* d_i = a_ii (0 where absent) */
/* Diagonal blocks: blocks[(i*bs + r)*bs + c] = A(i*bs + r, i*bs + c) for block row i, row-major, host memory,
   nrows/bs * bs*bs values. Works for csr (any bs dividing nrows) and bsr (its own bs). */
PDS_EXTERN int pds_mat_get_block_diagonal(pds_mat A, int bs, pds_real *blocks);
/* Host CSR view of a csr matrix (read only; valid until the matrix is destroyed). */
PDS_EXTERN int pds_mat_csr_get_arrays(pds_mat A, const pds_size **rowptr, const pds_int **colidx,
                                      const pds_real **vals);
PDS_EXTERN int pds_mat_bsr_get_arrays(pds_mat A, const pds_size **browptr, const pds_int **bcolidx,
                                      const pds_real **vals);
PDS_EXTERN int pds_mat_view(pds_mat A, FILE *f);

/* ---- preconditioners -------------------------------------------------------------------------------- */
/* type: "none", "jacobi", "pbjacobi", "ilu0", "bilu0" (stencil7), "relax" and "gmg" (patches), "semjacobi" (sem),
   "bjacobi" (block Jacobi over the ranks of a distributed matrix, a local preconditioner per rank), "asm" (restricted
   additive Schwarz over the ranks with overlap 1, a local preconditioner per rank), "shell". */
PDS_EXTERN int pds_precond_create(pds_ctx ctx, const char *type, pds_precond *pc);
PDS_EXTERN int pds_precond_destroy(pds_precond *pc);
PDS_EXTERN const char *pds_precond_get_type(pds_precond pc);
PDS_EXTERN int pds_precond_set_operator(pds_precond pc, pds_mat A);     /* takes a reference */
PDS_EXTERN int pds_precond_set_block_size(pds_precond pc, int bs);      /* pbjacobi on csr; default: A's bs */
PDS_EXTERN int pds_precond_setup(pds_precond pc);                        /* numeric setup from the operator */
PDS_EXTERN int pds_precond_apply(pds_precond pc, pds_vec x, pds_vec y);  /* y = M^-1 x */
typedef int (*pds_shell_pc_apply)(void *user, pds_vec x, pds_vec y);
typedef int (*pds_shell_pc_setup)(void *user, pds_mat A);
PDS_EXTERN int pds_precond_shell_set(pds_precond pc, void *user, pds_shell_pc_setup setup, pds_shell_pc_apply apply);
PDS_EXTERN int pds_precond_view(pds_precond pc, FILE *f);
/* bilu0 (a stencil7 operator): how the backend runs the factorization and the sweeps. /gpu/cuda: "auto" (the default:
   the fastest measured for the grids, docs/bilu0.md), "hyperplane" (paper 000's kernels, n^2 threads per point, one
   launch per hyperplane), "graph" (those launches captured once in a CUDA graph), "recycle" (one persistent
   cooperative kernel, a grid barrier per hyperplane), "syncfree" (no barriers: each point waits on its upstream
   neighbours' flags), "lanes" (n lanes per point, blocks in registers, one launch per hyperplane, captured in a graph),
   "block" (one thread block per grid, all hyperplanes inside it: many small grids), "tiles" (the sweeps by tiles of
   up to 8^3 points, a thread block each, the tile's factors staged in shared memory, one launch per plane of tiles;
   the factorization as lanes). Every variant gives the same bits
   (those of /cpu/ref). CPU backends run their own order and take "auto" only. Unknown name: PDS_ERR_ARG at setup. */
PDS_EXTERN int pds_precond_bilu0_set_variant(pds_precond pc, const char *variant);
/* bilu0: PDS_PRECISION_DOUBLE (default) or PDS_PRECISION_SINGLE: the sweeps read the factors (the six off-diagonal
   blocks and the inverted diagonals) from a float copy made at setup, arithmetic in double: about half the bytes of
   an application, the preconditioner slightly perturbed. Every backend (/cpu/ref and /cpu/omp give the same bits). */
PDS_EXTERN int pds_precond_bilu0_set_factor_precision(pds_precond pc, pds_precision p);
/* A new matrix of the operator's pattern (same type, sizes and nonzero positions; new values: the next Newton step
   or time step): pds_precond_set_operator then pds_precond_setup, checking the pattern first (PDS_ERR_ARG if it
   differs). ilu0 keeps its analysis (no level schedule is made again); every other type sets up as usual. */
PDS_EXTERN int pds_precond_update_values(pds_precond pc, pds_mat A);
/* ilu0 (a csr, bsr or stencil7 operator: ILU(0), by blocks on bsr and stencil7, docs/ilu0.md): factor A + shift I
   instead of A (default 0): lets a matrix with zero or missing diagonal entries (saddle points) be factored. */
/* bjacobi and asm: the local preconditioner of each rank's part (default "ilu0"; any type of one rank; replaces the
   current one), and that preconditioner itself, to set its options (pds_precond_ilu0_set_variant(sub, ...)); they set
   its operator at setup (bjacobi: the rank's diagonal block; asm: the rank's rows extended by overlap 1). */
PDS_EXTERN int pds_precond_set_sub_type(pds_precond pc, const char *type);
PDS_EXTERN int pds_precond_get_sub(pds_precond pc, pds_precond *sub);
PDS_EXTERN int pds_precond_ilu0_set_shift(pds_precond pc, pds_real shift);
/* ilu0: how it runs. Exact (the factor and sweeps of ILU(0)): "auto" (the default: /cpu/ref natural order, /cpu/omp
   natural order or level scheduling as measured, /gpu/cuda its fastest measured), and /gpu/cuda's "levels" (one
   launch per level) and "syncfree" (one launch, each row waits on the rows it needs). Approximate, on every backend
   (docs/ilu0.md): "approx-jacobi" (the exact factor, each triangle applied by Jacobi sweeps) and "approx-chow" (also
   the factor by Chow-Patel sweeps: no analysis of the pattern). Unknown name: an error at setup. */
PDS_EXTERN int pds_precond_ilu0_set_variant(pds_precond pc, const char *variant);
/* ilu0's approximate variants: the Jacobi sweeps per triangle after the first (0 to 1000; 0: x = D^-1 b, block
   Jacobi; default 3) and approx-chow's Chow-Patel sweeps after its start L = 0, U = A (1 to 1000; default 3); a
   negative count keeps the current one. */
PDS_EXTERN int pds_precond_ilu0_set_sweeps(pds_precond pc, int sweeps, int factor_sweeps);
/* ilu0: the order the factorization takes the (block) rows in: "natural" (the default), "rcm" (reverse
   Cuthill-McKee of A + A^T: a narrow band, often fewer iterations), "multicolor" (greedy colouring of A + A^T, rows
   by colour: few levels, so parallel sweeps, usually more iterations). M = P^T ILU0(P A P^T) P. */
PDS_EXTERN int pds_precond_ilu0_set_ordering(pds_precond pc, const char *ordering);

/* relax (a patches operator, paper 002): block relaxation with spatial blocks of bx x by x bz cells (1..8 each;
   default 8 x 8 x 8), each block's matrix inverted exactly once (Gauss-Jordan in double) per distinct block matrix
   (shape, and which of its cells lie on the Dirichlet boundary; a patch that is not a multiple of the block size
   gets smaller edge blocks with their own inverses). One sweep on A u = f:
     PDS_RELAX_JACOBI:     u += omega A_b^-1 (f - A u)_b for every block b at once (default omega 0.8);
     PDS_RELAX_MULTICOLOR: the blocks coloured so that no two of a colour touch; the same colour by colour, each
                           colour reading the others' new values (deterministic block Gauss-Seidel; default omega 1;
                           symmetric: forward colours then backward, what CG needs; the default);
     PDS_RELAX_CHAOTIC:    each block updated in place reading whatever its neighbours hold (paper 002's chaotic
                           block Gauss-Seidel, default omega 1): not reproducible on parallel backends (/cpu/ref
                           runs the blocks in order: plain block Gauss-Seidel).
   As a preconditioner y = M^-1 x is `sweeps` sweeps (default 1) on A y = x from y = 0. A block larger than a patch is
   PDS_ERR_ARG; a singular block matrix PDS_ERR_ZERO_PIVOT naming its shape. */
typedef enum { PDS_RELAX_JACOBI = 0, PDS_RELAX_MULTICOLOR = 1, PDS_RELAX_CHAOTIC = 2 } pds_relax_type;
PDS_EXTERN int pds_precond_relax_set_type(pds_precond pc, pds_relax_type type);
PDS_EXTERN int pds_precond_relax_set_block(pds_precond pc, int bx, int by, int bz);
PDS_EXTERN int pds_precond_relax_set_omega(pds_precond pc, pds_real omega); /* 0: the type's default */
PDS_EXTERN int pds_precond_relax_set_sweeps(pds_precond pc, int sweeps);
PDS_EXTERN int pds_precond_relax_set_symmetric(pds_precond pc, int symmetric); /* multicolor only */
/* how the backend runs it: "auto" (every backend); /cpu/omp: "patch", "block", "nested" (threads over patches, over
   blocks, or over patches then blocks: paper 002 Fig. 5); /gpu/cuda: "gemm" (every block's residual in one pass, all
   blocks of a matrix times its inverse as one dense matrix product on the FP64 tensor cores, then the update),
   "mapc" (paper 002's mapping C: one thread block per spatial block). Unknown name: PDS_ERR_ARG at setup. */
PDS_EXTERN int pds_precond_relax_set_variant(pds_precond pc, const char *variant);
/* sweeps on A u = f from the given u (the smoother's use; after setup) */
PDS_EXTERN int pds_precond_relax_smooth(pds_precond pc, pds_vec f, pds_vec u, int sweeps);
/* after setup: distinct block matrices (inverses), colours, blocks */
PDS_EXTERN int pds_precond_relax_get_info(pds_precond pc, int *ntypes, int *ncolors, pds_int *nblocks);
/* relax on a patch set whose data live in host memory (paper 002 Fig. 6; by default data stay on the device and
   pds_precond_relax_smooth is the call): `sweeps` sweeps on A u = f, f and u host arrays of the operator's rows in
   patch order; after setup. On /gpu/cuda each sweep gathers every patch's ghost values on the host, then streams the
   patches through the device on `nslots` streams, each patch copied in (u, its ghosts, f), swept by mapping C
   (one thread block per spatial block) and copied back:
     PDS_RELAX_STREAM_DEPTH:   patch after patch, copy in, sweep, copy out (copies overlap other patches' sweeps);
     PDS_RELAX_STREAM_BREADTH: nslots patches at a time, all copies in, then all sweeps, then all copies out
                               (sweeps of small patches overlap each other).
   A patch sees its neighbours' values from the start of the sweep: jacobi gives the values of the device-resident
   sweep (bitwise those of /cpu/ref and of the mapc variant); multicolor and chaotic become patch-wise (each patch
   swept by its own colours or chaotically against frozen neighbours; multicolor stays deterministic, the same bits
   in both orders and for any nslots). Page-lock f and u (pds_host_register) so that the copies overlap the sweeps.
   On CPU backends host memory is the backend's: this is pds_precond_relax_smooth on the arrays. Defaults: depth,
   8 slots (fewer when there are fewer patches). */
typedef enum { PDS_RELAX_STREAM_DEPTH = 0, PDS_RELAX_STREAM_BREADTH = 1 } pds_relax_stream;
PDS_EXTERN int pds_precond_relax_set_stream(pds_precond pc, pds_relax_stream order, int nslots);
PDS_EXTERN int pds_precond_relax_smooth_host(pds_precond pc, const pds_real *f, pds_real *u, int sweeps);
/* gmg (a patches operator): geometric multigrid on the patch hierarchy of cell-centred problems: every patch
   coarsened by 2 in each direction while all patch sizes and origins are even and the level has more cells than
   the coarse limit; restriction by summing the 8 fine cells times 1/2 (4 times their average: the h^2 scaling of a
   second-order operator), the coarse stencil the fine one rediscretized (its off-diagonals kept, its zeroth-order
   part c0 + sum c_d times 4); prolongation piecewise constant or trilinear; relax as pre- and post-smoother; the
   coarsest level solved directly (dense inverse, up to the coarse limit of cells) or by CG. */
PDS_EXTERN int pds_precond_gmg_set_cycle(pds_precond pc, const char *cycle);   /* "v" (default), "w", "f" */
PDS_EXTERN int pds_precond_gmg_set_levels(pds_precond pc, int max_levels);     /* 0: as many as possible */
/* the smoother on every level: relax type, block (clipped to the patches on coarse levels), omega (0: the type's
   default), sweeps before and after the coarse correction (default multicolor, 4 x 4 x 4, 2 and 2) */
PDS_EXTERN int pds_precond_gmg_set_smoother(pds_precond pc, pds_relax_type type, int bx, int by, int bz,
                                            pds_real omega, int pre, int post);
/* "constant" (the default: with the restriction P^T / 2 and a symmetric smoother the cycle is symmetric, what CG needs;
   4 CG iterations from 16^3 to 256^3) or "trilinear" (a stronger standalone solver with weak smoothers, not symmetric
   with the averaging restriction) */
PDS_EXTERN int pds_precond_gmg_set_prolongation(pds_precond pc, const char *p);
/* "direct" (default) or "cg"; max_direct: the most cells solved directly (default 1000) */
PDS_EXTERN int pds_precond_gmg_set_coarse(pds_precond pc, const char *solver, pds_int max_direct);
PDS_EXTERN int pds_precond_gmg_get_levels(pds_precond pc, int *nlevels, pds_size *coarse_cells);

/* ---- solvers ---------------------------------------------------------------------------------------- */
/* type: "cg", "bicgstab", "gmres", "fgmres", "richardson". */
PDS_EXTERN int pds_solver_create(pds_ctx ctx, const char *type, pds_solver *s);
PDS_EXTERN int pds_solver_destroy(pds_solver *s);
PDS_EXTERN const char *pds_solver_get_type(pds_solver s);
PDS_EXTERN int pds_solver_set_operator(pds_solver s, pds_mat A);         /* takes a reference */
PDS_EXTERN int pds_solver_set_precond(pds_solver s, pds_precond pc);     /* takes a reference; NULL = none */
/* Stop when ||r||_2 <= max(rtol ||b||_2, atol) or after maxit iterations (defaults 1e-8, 1e-50, 10000). */
PDS_EXTERN int pds_solver_set_tolerances(pds_solver s, pds_real rtol, pds_real atol, int maxit);
/* Also stop when ||b - A x||_inf <= inftol (paper 004's criterion); costs one residual per test. 0 = off. */
PDS_EXTERN int pds_solver_set_inf_tolerance(pds_solver s, pds_real inftol);
PDS_EXTERN int pds_solver_set_restart(pds_solver s, int restart);        /* gmres/fgmres, default 30 */
/* gmres/fgmres: "cgs2" (classical Gram-Schmidt with one reorthogonalization, the default) or "cgs" (one pass,
   half the orthogonalization traffic, as PETSc's default; less robust when the Krylov basis loses orthogonality) */
PDS_EXTERN int pds_solver_set_orthogonalization(pds_solver s, const char *type);
PDS_EXTERN int pds_solver_set_damping(pds_solver s, pds_real omega);     /* richardson, default 1 */
/* cg, bicgstab, richardson on a device backend: 1 (default) lets the device run the iterations on its own, the host
   reading each one's residual behind it (no per-iteration synchronization; same iterates, bits and history);
   0 keeps the host in the loop (one small device-to-host copy per iteration). docs/dev.md says when the device
   loop is not used (shell operator or preconditioner, the infinity-norm test). */
PDS_EXTERN int pds_solver_set_device_loop(pds_solver s, int on);
/* The arithmetic of the solve (cg, bicgstab, richardson on a csr operator with no or the jacobi preconditioner):
   PDS_PRECISION_DOUBLE (default); _SINGLE: the matrix values and the Krylov vectors in float, reductions accumulated
   in double (half the bytes, about eps_f accuracy: it may stall); _MIXED: double's accuracy (while cond(A) eps_f
   << 1) from float iterations: cg updates x and the residual in double after every tenfold reduction and keeps
   its search direction (reliable updates: about double's iteration count), bicgstab and richardson run as the
   preconditioner of an FGMRES in double. b and x stay double vectors.
   docs/dev.md has the numerics and the measured costs. */
PDS_EXTERN int pds_solver_set_precision(pds_solver s, pds_precision p);
PDS_EXTERN int pds_solver_get_precision(pds_solver s, pds_precision *p);
/* Called after every iteration with the residual 2-norm the method tracks (iteration 0 = initial). */
typedef int (*pds_monitor_fn)(void *user, int it, pds_real rnorm);
PDS_EXTERN int pds_solver_set_monitor(pds_solver s, pds_monitor_fn fn, void *user);
PDS_EXTERN int pds_solver_set_history(pds_solver s, int keep);           /* keep the residual history */
PDS_EXTERN int pds_solver_setup(pds_solver s);                           /* sets up the preconditioner too */
/* Solve A x = b from the initial guess in x. Returns PDS_OK also when it did not converge: read the result. */
PDS_EXTERN int pds_solver_solve(pds_solver s, pds_vec b, pds_vec x);
PDS_EXTERN int pds_solver_get_result(pds_solver s, pds_solver_result *r);
PDS_EXTERN int pds_solver_get_history(pds_solver s, int *len, const pds_real **h); /* len = iterations + 1 */
PDS_EXTERN int pds_solver_view(pds_solver s, FILE *f);

/* ---- Matrix Market I/O ------------------------------------------------------------------------------ */
/* Reads a coordinate file (real, integer or pattern; general, symmetric or skew-symmetric) into CSR.
   Symmetric storage is expanded. Any malformed input gives PDS_ERR_FORMAT with the line number. */
PDS_EXTERN int pds_mm_read_mat(pds_ctx ctx, const char *path, pds_mat *A);
PDS_EXTERN int pds_mm_write_mat(pds_mat A, const char *path);            /* csr or bsr, general, 1-based */
/* Dense vectors: "array real general" with one column (coordinate files with one column are accepted too). */
PDS_EXTERN int pds_mm_read_vec(pds_ctx ctx, const char *path, pds_vec *v);
PDS_EXTERN int pds_mm_write_vec(pds_vec v, const char *path);

/* ---- meshes (2D triangles) ------------------------------------------------------------------------ */
/* An unstructured triangle mesh: node coordinates xy[2*i], xy[2*i+1]; triangles tri[3*e..3*e+2] (0-based node
   numbers, counter-clockwise); boundary edges bedge[2*k..2*k+1] with tags bedge_tag[k] (> 0: a physical group
   or generator boundary id); node markers: 0 interior, else the tag of a boundary edge the node lies on (the
   smallest tag where edges of several tags meet). Meshes live on the host. */
typedef struct pds_mesh_s *pds_mesh;
/* From arrays (copied); checks indices, orientation (clockwise triangles are flipped), degenerate and
   duplicate triangles, nodes used by no triangle. */
PDS_EXTERN int pds_mesh_create_tri(pds_ctx ctx, pds_int nnodes, const pds_real *xy, pds_int ntri, const pds_int *tri,
                                   pds_int nbedge, const pds_int *bedge, const pds_int *bedge_tag, pds_mesh *m);
/* Built-in unstructured generator: domain "square" (unit square; boundary tags 1 bottom, 2 right, 3 top, 4 left)
   or "hole" (rectangle [0,2]x[0,1] with a circular hole of radius 0.25 at (0.5,0.5); tags 1..4 as the square,
   5 the circle), with about target_nodes nodes (within 5%), reproducible for a given seed. */
PDS_EXTERN int pds_mesh_generate(pds_ctx ctx, const char *domain, pds_int target_nodes, uint64_t seed, pds_mesh *m);
/* Gmsh .msh 2.2 and 4.1, ASCII and binary: 3-node triangles and boundary lines in physical groups (with their
   physical tags) are kept, points ignored; volume elements, quads or curved triangles are refused with
   PDS_ERR_UNSUPPORTED (a 3D file's surface triangles are not a 2D mesh); nodes used by no triangle are dropped.
   Nodes are numbered by increasing Gmsh tag. A partitioned 4.1 file (gmsh -part N) reads as the whole mesh: a
   line takes its partitioned curve's group (or the parent curve's); lines between partitions are interior.
   Malformed files give PDS_ERR_FORMAT with the line or byte offset. */
PDS_EXTERN int pds_mesh_read_gmsh(pds_ctx ctx, const char *path, pds_mesh *m);
PDS_EXTERN int pds_mesh_write_gmsh(pds_mesh m, const char *path);        /* MSH 2.2 ASCII, tags kept */
PDS_EXTERN int pds_mesh_destroy(pds_mesh *m);
PDS_EXTERN int pds_mesh_get_sizes(pds_mesh m, pds_int *nnodes, pds_int *ntri, pds_int *nbedge);
PDS_EXTERN int pds_mesh_get_arrays(pds_mesh m, const pds_real **xy, const pds_int **tri, const pds_int **bedge,
                                   const pds_int **bedge_tag, const pds_int **node_marker);
/* Minimum interior angle (degrees) and maximum aspect ratio (longest edge over shortest altitude * sqrt(3)/2,
   1 for an equilateral triangle). */
PDS_EXTERN int pds_mesh_quality(pds_mesh m, pds_real *min_angle_deg, pds_real *max_aspect);
PDS_EXTERN int pds_mesh_reorder_rcm(pds_mesh m);                         /* reverse Cuthill-McKee node order */
/* VTK XML unstructured grid (.vtu) with point fields names[k] -> values[k][nnodes]. */
PDS_EXTERN int pds_mesh_write_vtk(pds_mesh m, const char *path, int nfields, const char *const *names,
                                  const pds_real *const *values);

/* ---- meshes (3D cells) ------------------------------------------------------------------------------ */
/* An unstructured hybrid volume mesh: node coordinates xyz[3*i..3*i+2]; cells of four types, each named by its vertex
   count, with their vertices in Gmsh's order (tetrahedron 0-1-2-3; pyramid base 0-1-2-3, apex 4; prism bottom 0-1-2,
   top 3-4-5; hexahedron bottom 0-1-2-3, top 4-5-6-7) and positively oriented (the corner tetrahedron at every vertex,
   the vertex and its three edge neighbours in Gmsh's order, has positive volume); cell c's vertices are
   cell_nodes[cell_ptr[c] .. cell_ptr[c+1]); cell tags >= 0 (a physical volume, 0: none). Boundary faces (triangles
   or quadrangles, each a face of a cell, any vertex order) with tags > 0; their vertices are
   bface_nodes[bface_ptr[k] .. bface_ptr[k+1]). Meshes live on the host. */
typedef struct pds_mesh3d_s *pds_mesh3d;
enum { PDS_CELL_TET = 4, PDS_CELL_PYRAMID = 5, PDS_CELL_PRISM = 6, PDS_CELL_HEX = 8 };
/* From arrays (copied): cell_type[c] in {4, 5, 6, 8}, cell_nodes concatenated (cell_type[c] entries each), cell_tag
   NULL (all 0) or >= 0; bface_type[k] 3 or 4, bface_tag > 0. PDS_ERR_ARG, naming the cell or face, for: a node index
   out of range, a repeated vertex in a cell, a coordinate that is not finite, an unknown cell type, an inverted or
   zero-volume cell (a corner tetrahedron with signed volume <= 1e-12 times the cube of the cell's longest corner
   edge: not re-oriented, the error says which corner), a face shared by more than two cells, a boundary face that is
   no face of a cell, a node used by no cell. */
PDS_EXTERN int pds_mesh3d_create(pds_ctx ctx, pds_int nnodes, const pds_real *xyz, pds_int ncells,
                                 const unsigned char *cell_type, const pds_int *cell_nodes, const pds_int *cell_tag,
                                 pds_int nbfaces, const unsigned char *bface_type, const pds_int *bface_nodes,
                                 const pds_int *bface_tag, pds_mesh3d *m);
/* Gmsh .msh 2.2 and 4.1, ASCII and binary, partitioned 4.1 read as the whole mesh: linear tetrahedra, hexahedra,
   prisms and pyramids (cell tag: the first physical tag, 0 for none) and the triangles and quadrangles of physical
   groups (boundary faces with their physical tags; those in no group, lines and points are ignored). Second-order
   and other curved elements: PDS_ERR_UNSUPPORTED naming the Gmsh type; a file without volume cells (a 2D mesh):
   PDS_ERR_UNSUPPORTED "no volume cells". Nodes used by no cell are dropped; nodes are numbered by increasing Gmsh
   tag, cells and boundary faces by increasing element tag. The checks of pds_mesh3d_create give PDS_ERR_FORMAT
   naming the element tag; malformed files give PDS_ERR_FORMAT with the line or byte offset. */
PDS_EXTERN int pds_mesh3d_read_gmsh(pds_ctx ctx, const char *path, pds_mesh3d *m);
/* MSH 2.2 ASCII: boundary faces (physical and elementary tag = their tag), then cells (tag = cell tag); reading it
   back gives the same mesh bitwise. */
PDS_EXTERN int pds_mesh3d_write_gmsh(pds_mesh3d m, const char *path);
/* Structured hexahedra on the box [lo, hi] with n[d] >= 1 cells per direction (nodes x fastest, then y, z; cells
   likewise; cell tag 1); boundary quadrangles tagged 1..6 for the faces x = lo, x = hi, y = lo, y = hi, z = lo,
   z = hi, oriented outward. */
PDS_EXTERN int pds_mesh3d_generate_box(pds_ctx ctx, const pds_int n[3], const pds_real lo[3], const pds_real hi[3],
                                       pds_mesh3d *m);
/* The domain between the sphere |x| = radius and the box [-half_width, half_width]^3 (paper 001's kind of mesh) as a
   hybrid mesh of all four cell types: a six-block cubed-sphere O-grid (an equiangular n x n grid on each cube face,
   L layers of radial rays from the sphere to the box, thickness growing geometrically, so cells are finer near the
   sphere). From the sphere outward: hexahedra (about 11% of the cells at large sizes), a transition layer of
   pyramids and tetrahedra, prisms (about 17%), then each hexahedron as 4 pyramids and 4 tetrahedra (pyramids about
   37%, tetrahedra 35%; every type at least 5% at any size). Conforming (interior faces shared by two cells with the
   same vertices: faces between layers cut along the diagonal through the vertex with the lowest node number),
   every cell positive, nodes on the sphere at the radius to round-off, box nodes exactly on it; cell tag 1;
   boundary quadrangles on the sphere tagged 1, boundary triangles on the box tagged 2, both outward. n and L are
   chosen so the cell count is within 10% of target_cells for targets from 1000 up (432 is the smallest mesh;
   50 000 000 the largest target). Deterministic. PDS_ERR_ARG: radius <= 0, radius >= half_width / 2, either not
   finite, target_cells below 432 (the message names it) or above 50 000 000; a NULL context or output. */
PDS_EXTERN int pds_mesh3d_generate_sphere(pds_ctx ctx, pds_int target_cells, pds_real radius, pds_real half_width,
                                          pds_mesh3d *m);
/* An all-hexahedral mesh of the same domain: each tetrahedron into 4, prism into 6 and hexahedron into 8 hexahedra
   (one at each vertex, through new nodes at the edge midpoints, the face and cell centroids, shared between cells;
   the old nodes keep their numbers, then edge, face and cell nodes follow), boundary triangles into 3 and quadrangles
   into 4 quadrangles; tags kept. Pyramids: PDS_ERR_UNSUPPORTED. */
PDS_EXTERN int pds_mesh3d_subdivide_hex(pds_mesh3d in, pds_mesh3d *out);
PDS_EXTERN int pds_mesh3d_destroy(pds_mesh3d *m);
/* VTK XML unstructured grid (.vtu) of the cells (VTK tetrahedra, pyramids, wedges, hexahedra) with cell fields
   names[k] -> values[k][ncells] (the finite-volume states, say). */
PDS_EXTERN int pds_mesh3d_write_vtk(pds_mesh3d m, const char *path, int nfields, const char *const *names,
                                    const pds_real *const *values);
PDS_EXTERN int pds_mesh3d_get_sizes(pds_mesh3d m, pds_int *nnodes, pds_int *ncells, pds_int *nbfaces);
/* The arrays (any output may be NULL); cell_ptr has ncells + 1 entries, bface_ptr nbfaces + 1. */
PDS_EXTERN int pds_mesh3d_get_arrays(pds_mesh3d m, const pds_real **xyz, const unsigned char **cell_type,
                                     const pds_size **cell_ptr, const pds_int **cell_nodes, const pds_int **cell_tag,
                                     const unsigned char **bface_type, const pds_size **bface_ptr,
                                     const pds_int **bface_nodes, const pds_int **bface_tag);
/* The number of cells of one type (PDS_CELL_*), or of all cells for type 0. */
PDS_EXTERN int pds_mesh3d_count(pds_mesh3d m, int type, pds_int *n);
/* The unique faces of the cells (triangles and quadrangles), numbered as the cells first meet them: face f has the
   vertices face_nodes[face_ptr[f] .. face_ptr[f+1]) as its first cell face_cells[2f] lists them (outward from it);
   face_cells[2f+1] is the other cell, -1 on the boundary; nbound: faces with one cell. cell_faces[cface_ptr[c] + k]
   is the face of cell c's local face k (Gmsh's face order of its type). */
PDS_EXTERN int pds_mesh3d_get_faces(pds_mesh3d m, pds_int *nfaces, pds_int *nbound, const unsigned char **face_type,
                                    const pds_size **face_ptr, const pds_int **face_nodes, const pds_int **face_cells,
                                    const pds_size **cface_ptr, const pds_int **cell_faces);
/* Finite-volume geometry, computed on the first request and kept by the mesh (any output may be NULL): the cells'
   volumes and barycentres (3 per cell), the faces' area vectors (3 per face of pds_mesh3d_get_faces, in its order:
   |a| is the area, pointing out of the face's first cell face_cells[2f]) and barycentres (area centroids, 3 per
   face). A quadrangle, planar or not, is 4 triangles around the average of its 4 vertices: its area vector is their
   sum, its barycentre their area-weighted centroid. A cell is the tetrahedra from the average of its vertices to all
   its face triangles, so its volume and barycentre are exact for that decomposition (exact for tetrahedra and
   planar-faced cells), each closed cell's outward area vectors sum to zero (round-off) and the cells of a conforming
   mesh fill the volume its boundary encloses. The triangles of a face are taken from its smallest node index on, so
   its geometry does not depend on which cell lists it: renumbering the cells permutes these values bit for bit (area
   vectors change sign with their first cell). */
PDS_EXTERN int pds_mesh3d_get_geometry(pds_mesh3d m, const pds_real **cell_volume, const pds_real **cell_centre,
                                       const pds_real **face_area, const pds_real **face_centre);
/* The dual graph, computed once and kept: the cells sharing a face with cell c are adj[ptr[c] .. ptr[c+1]), ascending,
   without c (ptr has ncells + 1 entries; a cell's degree is its number of interior faces unless it shares two faces
   with one neighbour). */
PDS_EXTERN int pds_mesh3d_get_dual(pds_mesh3d m, const pds_size **ptr, const pds_int **adj);
/* Renumber the cells for locality, by how: "rcm" (reverse Cuthill-McKee on the dual graph), "hilbert" (barycentres
   sorted along a 3D Hilbert curve, 21 bits a coordinate over the cube of the nodes' bounding box, ties by old number)
   or "none" (nothing changes). Cell types, vertices and tags move with their cells; the faces are rebuilt (numbered
   as the renumbered cells first meet them, first cell the lower-numbered one); nodes and boundary faces keep their
   numbers. Geometry, dual graph and face tags are recomputed on the next request: arrays got before are invalid.
   Deterministic. An unknown name is PDS_ERR_ARG listing the known ones; a mesh with several owners PDS_ERR_STATE;
   on an error the mesh is unchanged. */
PDS_EXTERN int pds_mesh3d_reorder(pds_mesh3d m, const char *how);
/* The boundary kind of each face, for flux code, computed once and kept: -1 for an interior face (two cells), else
   the tag of the boundary face that coincides with it (the first such, by boundary face number), 0 for a face of one
   cell that no boundary face covers. A boundary face on an interior face (an interface) does not change its -1. */
PDS_EXTERN int pds_mesh3d_face_tags(pds_mesh3d m, const pds_int **face_tag);

/* ---- spectral elements (paper 003) ------------------------------------------------------------------------ */
/* The spectral-element space on the unit cube cut into elements[0] x elements[1] x elements[2] hexahedra, with
   order + 1 Gauss-Lobatto-Legendre points per direction (order 1 .. 13), affine (deform 0) or deformed by the
   smooth map x = xi + deform sin(pi xi_x) sin(pi xi_y) sin(pi xi_z) (1, 1, 1), which keeps the cube's faces and
   makes the geometric factors full 3 x 3 per point (|deform| < 0.106 keeps every element valid; an inverted
   element is PDS_ERR_ARG naming it). The global points are those of the structured grid of
   (elements[d] order + 1) points per direction; the points on the cube's faces are the Dirichlet points. */
typedef struct pds_sem_s *pds_sem;
typedef struct {
  int      order, n;       /* polynomial order, points per direction (order + 1) */
  pds_int  elements[3], nelem; /* per direction of the box (0 on a mesh), in all */
  pds_size nlocal;         /* nelem n^3: points counted once per element */
  pds_int  nglobal;        /* distinct points */
  pds_int  nmasked;        /* of them on the boundary (Dirichlet) */
  pds_real deform;
  int      affine;         /* 1: every element is affine (a parallelepiped): the operator reads 6 geometric values
                              an element instead of 6 a point */
} pds_sem_info;
PDS_EXTERN int pds_sem_create_box(pds_ctx ctx, const pds_int elements[3], int order, pds_real deform, pds_sem *sem);
/* The space on a hexahedral mesh (a Gmsh file: pds_mesh3d_read_gmsh; every cell a hexahedron, else PDS_ERR_ARG naming
   the first other cell): each cell's points by its trilinear map, numbered by topology (conforming meshes: a face
   shared by two cells matches whatever their orientations), the points on the boundary faces (faces of one cell)
   Dirichlet; info.elements is {0, 0, 0}. The mesh may be destroyed after. */
PDS_EXTERN int pds_sem_create_mesh(pds_ctx ctx, pds_mesh3d mesh, int order, pds_sem *sem);
PDS_EXTERN int pds_sem_destroy(pds_sem *sem);
PDS_EXTERN int pds_sem_get_info(pds_sem sem, pds_sem_info *info);
/* xyz[3 g + d]: coordinate d of global point g (host memory, 3 nglobal values) */
PDS_EXTERN int pds_sem_get_coordinates(pds_sem sem, pds_real *xyz);
/* VTK XML unstructured grid (.vtu): the global points, each element as (order)^3 linear hexahedra between its GLL
   points, point fields names[k] -> values[k][nglobal] (host arrays) */
PDS_EXTERN int pds_sem_write_vtk(pds_sem sem, const char *path, int nfields, const char *const *names,
                                 const pds_real *const *values);
/* The Poisson operator -lap on the space as a matrix of type "sem" (nglobal rows), applied matrix-free: each
   element's D^T G D on its points, summed at the shared points (paper 003 Eq. 3-6; deterministic, no atomics), the
   Dirichlet points masked (their rows and columns the identity): symmetric positive definite. get_diagonal gives
   paper 003 Eq. 9's diagonal (with a full G's cross terms), assembled; pds_mat_convert_to_csr assembles the whole
   operator for small cases (at most 2^25 element entries, else PDS_ERR_SIZE). The matrix copies what it needs: the
   space may be destroyed after. */
PDS_EXTERN int pds_mat_create_sem(pds_sem sem, pds_mat *A);
/* semjacobi (a sem operator, paper 003): z = j .* r with j the inverse of the assembled diagonal by Eq. 9, computed
   at setup by one of the paper's kernels: "extended" (the default: a thread per point, any order), "natural" (a
   thread block per element; order <= 9), "shared" (natural with G in shared memory; order <= 9), "wide" (a thread
   per line of points). The four give the same values; on CPU backends they are one loop. */
PDS_EXTERN int pds_precond_semjacobi_set_variant(pds_precond pc, const char *variant);
/* The sem operator spread over the ranks ("mpisem", collective; docs/mpi.md): every rank passes the whole space (the
   same on every rank: another is PDS_ERR_SIZE on all) and the same partitioner: NULL or "contiguous" (the elements cut
   into contiguous ranges, one a rank) or "metis" (METIS on the graph of the elements sharing a corner; a build without
   METIS: PDS_ERR_UNSUPPORTED). A global point belongs to the rank of its first element, and the rows are renumbered
   rank after rank (each rank's points in the space's order; vector files stay in the space's numbering). A rank keeps
   every element that holds one of its points, so its product and its diagonal are the one-rank operator's bit for bit,
   after one exchange of the ghost points' values; still matrix-free. semjacobi, jacobi and bjacobi (-sub_pc
   semjacobi) work on it. */
PDS_EXTERN int pds_mat_create_sem_dist(pds_sem sem, const char *partitioner, pds_mat *A);
/* points[i]: the space's global point of the rank's row i (pds_mat_get_size rows; host memory), to fill vectors */
PDS_EXTERN int pds_mat_sem_dist_get_points(pds_mat A, pds_int *points);

/* ---- finite volumes: the Euler equations on 3D hybrid meshes (paper 001; src/disc/fv.c) ----------------------- */
/* The cell-centred finite-volume operator of paper 001 on a pds_mesh3d: states Q = (rho, rho u, rho v, rho w, E),
   5 values a cell in one vector; the convective residual R = - sum over each cell's faces of Roe's flux (first order:
   the cells' values on both sides of a face) with Harten's entropy fix, summed into the cells by the paper's stages
   (the flux through each face, then the sum into each cell; deterministic, the same bits on every backend) or
   another summation (params' summation);
   boundary faces whose tag (pds_mesh3d_face_tags) is one of wall_tags are walls (the paper's flux (0, p n, 0)), all
   others free stream (Roe's flux against Q_inf). A perfect gas of ratio gamma; the free stream has density 1,
   sound speed 1 and velocity mach dir / |dir|. */
typedef struct pds_fv_s *pds_fv;
typedef struct {
  pds_real       gamma;     /* 1.4 */
  pds_real       mach;      /* free-stream Mach number (0.1) */
  pds_real       dir[3];    /* free-stream direction ((1, 0, 0)) */
  pds_real       efix;      /* Harten's entropy fix, a fraction of the Roe-averaged sound speed (0.1; 0: none) */
  int            nwall;     /* boundary tags that are walls (0: none) */
  const pds_int *wall_tags;
  /* Order 2 (paper 001 Section 2.2, src/disc/fv_recon.c): the face states are the values at the face barycentres of
     each cell's quadratic polynomial P(x) = sum_h C^h (m_h(x) - g_h) + C^6 (x - xc) + C^7 (y - yc) + C^8 (z - zc)
     + f (m_h the six second-degree monomials centred at the barycentre, g_h their cell means), fitted by least
     squares to the cell means of a stencil (the paper's Eq. 5: C = A (f_G - f)), exact for quadratic fields. The
     stencil grows by levels of the dual graph (face neighbours, their neighbours, ...) until it has at least
     recon_min cells and the column-scaled 9-column least-squares matrix has a condition estimate (the ratio of the
     largest to the smallest |diagonal| of its QR factor's R) below recon_cond, at most recon_levels levels and
     recon_max cells (the last level cut to its cells nearest the barycentre). A cell whose capped stencil is still
     rank deficient (e.g. a mesh of a few cells) is PDS_ERR_ARG naming it. No limiter: for smooth flows. */
  int            order;        /* 1 (the default) or 2 */
  pds_real       recon_cond;   /* 100 */
  int            recon_min;    /* 18 (>= 9) */
  int            recon_levels; /* 4 */
  int            recon_max;    /* 120 */
  pds_real       recon_weight; /* rows weighted by 1 / distance^recon_weight (0, the default: unweighted) */
  /* How the faces' fluxes are summed into the cells (docs/fv.md; every one at order 1 and 2, on every backend):
     "stages"  paper 001's Section 3.2: every face's flux (its states from the cells' values or polynomials, in the
               same kernel) into a face array, then each cell adds its faces' fluxes in its face order;
     "color"   the faces coloured so that no two faces of a colour share a cell; colour after colour, each face's
               flux is added into its two cells (deterministic for the colouring, which is fixed: each cell adds in
               colour order; other bits than "stages");
     "atomic"  one loop over the faces adding each flux into its two cells with atomic additions: NOT
               deterministic on /cpu/omp and /gpu/cuda (the order of a cell's additions varies from run to run;
               the results agree to round-off);
     "cells"   each cell computes its faces' fluxes itself (an interior face's twice) and sums them in its face
               order, with no face arrays: the same bits as "stages".
     NULL (the default): "stages", the fastest deterministic one on /gpu/cuda and /cpu/omp (docs/fv.md's table). */
  const char    *summation;
} pds_fv_params;
typedef struct {
  pds_int  ncells, nfaces, ninterior, nfree, nwall; /* faces by kind */
  pds_real volume;                                  /* sum of the cell volumes */
  pds_real gamma, mach, qinf[5];                    /* the free stream state */
  int      order;
  /* order 2: stencil sizes NG (min, max, mean), entries (sum of NG), cells whose stencil stopped at a cap before its
     condition estimate fell below recon_cond, the largest condition estimate, seconds the setup took */
  pds_int  ng_min, ng_max;
  pds_real ng_mean;
  pds_size ng_sum;
  pds_int  ncapped;
  pds_real cond_max, t_recon_setup;
  const char *summation; /* the summation in use ("stages", "color", "atomic", "cells"; a static string) */
  pds_int     ncolors;   /* "color": the number of face colours (0 otherwise) */
} pds_fv_info;
PDS_EXTERN void pds_fv_params_default(pds_fv_params *p);
/* params NULL: the defaults. The mesh may be destroyed after. */
PDS_EXTERN int pds_fv_create(pds_ctx ctx, pds_mesh3d mesh, const pds_fv_params *params, pds_fv *fv);
PDS_EXTERN int pds_fv_destroy(pds_fv *fv);
PDS_EXTERN int pds_fv_get_info(pds_fv fv, pds_fv_info *info);
/* The histogram of the stencil sizes (paper 001's Fig. 3): counts[b], b = 0 .. nbins - 1, the cells with NG = b,
   the last bin also all larger stencils (order 1: all counts 0). */
PDS_EXTERN int pds_fv_stencil_histogram(pds_fv fv, pds_int *counts, int nbins);
/* Order 2: the polynomial coefficients of Q's reconstruction (host memory, 45 a cell: for each of the 5 variables
   C^0 .. C^8, the paper's PC layout), computed on fv's backend. */
PDS_EXTERN int pds_fv_reconstruct(pds_fv fv, pds_vec Q, pds_real *pc);
/* a vector of 5 ncells values on fv's context, set to the free stream */
PDS_EXTERN int pds_fv_create_state(pds_fv fv, pds_vec *Q);
/* R = the convective residual of Q (dQ/dt = R / V) */
PDS_EXTERN int pds_fv_residual(pds_fv fv, pds_vec Q, pds_vec R);
/* One explicit step with a local time step: R = the residual of Q, then in each cell tau = cfl V / sum over its faces
   of (|u . a| + c |a|) and Q += tau R / V; rnorm (may be NULL): ||R||_2 before the step. */
PDS_EXTERN int pds_fv_step(pds_fv fv, pds_real cfl, pds_vec Q, pds_vec R, pds_real *rnorm);
/* Implicit steps (backward Euler in pseudo-time; docs/fv.md). The Jacobian of the first-order residual at Q,
   J = diag(V / tau) - dR/dQ, as a new bsr matrix (5 x 5 blocks: a cell's own block and one per face neighbour, columns
   ascending) on fv's context, its values computed on the backend (on a GPU they stay there): each face's flux
   differentiated by central differences with respect to its two states (about 1e-10 of the entries' size), summed
   into the cells' block rows in a fixed order (deterministic, the same bits on every backend). tau is the local time
   step of pds_fv_step at CFL number cfl (V / tau = sum over the cell's faces of (|u . a| + c |a|) / cfl); cfl = 0:
   no such term, J = -dR/dQ. For fv objects of order 2 too (the first-order Jacobian: a defect correction). The first
   call keeps the pattern and a work array of 400 bytes a face in fv (freed with it). */
PDS_EXTERN int pds_fv_jacobian(pds_fv fv, pds_vec Q, pds_real cfl, pds_mat *J);
/* One implicit step: R = the residual of Q (fv's order), J = pds_fv_jacobian(fv, Q, cfl), then the solver s (any
   method and preconditioner: gmres or fgmres with pbjacobi or ilu0, block ILU(0) on J's blocks; its operator becomes
   J and its preconditioner is set up again, ilu0 keeping its analysis of the pattern) solves J dQ = R from dQ = 0
   to its tolerances, and Q += dQ. rnorm (may be NULL): ||R||_2 before the step; lin (may be NULL): the solve's
   result. A solve that stops short of its tolerance still updates Q (an inexact step: lin says so); a residual that
   is not finite is PDS_ERR_ARG with Q unchanged. */
PDS_EXTERN int pds_fv_step_implicit(pds_fv fv, pds_solver s, pds_real cfl, pds_vec Q, pds_vec R, pds_real *rnorm,
                                    pds_solver_result *lin);

/* ---- P1 finite elements (2D) ---------------------------------------------------------------------- */
/* -div(k grad u) = f on a triangle mesh with linear triangles (P1), u = g at every node that carries a boundary
   marker (> 0). Element stiffness k_ij = k/(4A) (b_i b_j + c_i c_j) (b, c: differences of the y and x
   coordinates of the other two nodes; thickness 1); load f A/3 per node for a constant f, else the 3-point
   edge-midpoint rule (exact when f is linear). The matrix is CSR on the mesh graph (sorted columns, diagonal
   included; Dirichlet zeros stay stored, so the pattern is the same in both modes).
   pds_fem2d_create builds the pattern and a gather map once: for every CSR entry, the list of (triangle, local
   i, local j) contributions in ascending triangle order; assembly computes the 3x3 element matrices
   (element-parallel), then sums each entry over its list in that order (row-parallel). No two threads write
   the same value, no atomics, and the bits equal a serial triangle-by-triangle assembly on every backend and
   thread count. The mesh must outlive the fem2d object and keep its triangles (reorder it before create;
   assembling after the mesh changed is PDS_ERR_STATE). Assembly runs on the context's backend (threads on
   /cpu/omp; on /gpu/cuda one thread per triangle and a few per row, with the pattern and maps uploaded on the
   first assembly and A, b left on the device; callbacks k, f, g are evaluated on the host and uploaded). */
typedef struct pds_fem2d_s *pds_fem2d;
typedef enum {
  PDS_DIRICHLET_ROW       = 0, /* paper 004: row i of a marked node becomes e_i^T, b_i = g_i (nonsymmetric:
                                  bicgstab, gmres) */
  PDS_DIRICHLET_SYMMETRIC = 1  /* also column i zeroed and moved to the right-hand side (b_j -= a_ji g_i):
                                  symmetric positive definite, so cg applies */
} pds_dirichlet_mode;
/* A coefficient, source, boundary value or exact solution as a function of the point; user is the problem's.
   The callbacks run on the host, possibly from several threads at once (on /cpu/omp): they must be thread-safe. */
typedef pds_real (*pds_fem2d_fn)(void *user, pds_real x, pds_real y);
typedef struct {
  pds_real     k;    /* conductivity (> 0), used when kfn is NULL */
  pds_fem2d_fn kfn;  /* or k(x, y), taken at each triangle's centroid */
  pds_real     f;    /* source, used when ffn is NULL (load f A/3 per node) */
  pds_fem2d_fn ffn;  /* or f(x, y) (load by the edge-midpoint rule) */
  pds_real     g;    /* boundary value, used when gfn is NULL */
  pds_fem2d_fn gfn;  /* or g(x, y) at the marked nodes */
  pds_fem2d_fn u;    /* exact solution, or NULL (then pds_fem2d_exact and pds_fem2d_l2_error are unsupported) */
  void        *user; /* passed to the callbacks */
} pds_fem2d_problem;
typedef struct {
  pds_int  nnodes, ntri;  /* unknowns (one per node) and triangles */
  pds_int  ndirichlet;    /* nodes with a boundary marker (Dirichlet rows) */
  pds_size nnz;           /* entries of the pattern: nodes + 2 * edges */
  pds_size ncontrib;      /* entries of the matrix gather map: 9 per triangle */
  size_t   bytes;         /* memory held: pattern, gather maps, and after the first assembly its workspace
                             (the element matrices and loads, 72 bytes per triangle, kept for re-assembly) */
  double   t_create;      /* seconds pds_fem2d_create took (pattern and gather maps) */
  double   t_assemble;    /* seconds the last pds_fem2d_assemble took (0 before the first) */
  double   t_upload;      /* of which copying to a device (/gpu/cuda: the mesh's coordinates and flags on every
                             assembly, the pattern and gather maps on the first; 0 on the CPU backends) */
} pds_fem2d_info;
/* Pattern and gather maps for a mesh (checks that it has triangles, no node outside them, and fits the
   32-bit indices: 9 * triangles < 2^31). The problem is "paper" until set. */
PDS_EXTERN int pds_fem2d_create(pds_ctx ctx, pds_mesh mesh, pds_fem2d *fem);
PDS_EXTERN int pds_fem2d_destroy(pds_fem2d *fem);
/* Built-in problems:
   "paper":        paper 004's model problem: -lap u = 10 on the unit square, u = 10 on the boundary; exact
                   solution u = 10 + 10 w, -lap w = 1, w = 0 on the boundary, by the single Fourier series of w
                   (in x or y, whichever decays faster there; summed to a rigorous tail bound below 2^-52, so u is
                   exact to ~1e-14); the exact solution needs a mesh of the unit square.
   "manufactured": u = sin(pi x) cos(pi y) + x^2 y, f = -lap u = 2 pi^2 sin(pi x) cos(pi y) - 2 y, g = u: any
                   domain (for convergence orders). */
PDS_EXTERN int pds_fem2d_set_problem(pds_fem2d fem, const char *name);
PDS_EXTERN int pds_fem2d_set_problem_user(pds_fem2d fem, const pds_fem2d_problem *prob); /* copied */
PDS_EXTERN const char *pds_fem2d_get_problem(pds_fem2d fem);  /* "paper", "manufactured" or "user" */
/* A (csr, nnodes x nnodes) and b for the current problem; new objects on the fem2d object's context. A node on
   the mesh's boundary (an edge of one triangle) without a marker is an error: the Dirichlet data need it. */
PDS_EXTERN int pds_fem2d_assemble(pds_fem2d fem, pds_dirichlet_mode mode, pds_mat *A, pds_vec *b);
PDS_EXTERN int pds_fem2d_exact(pds_fem2d fem, pds_vec *u);               /* u_i = u(x_i, y_i), a new vector */
/* ||u_h - u||_L2(domain), u_h the P1 interpolant of the nodal values x, by the 7-point degree-5 rule on
   every triangle (deterministic: fixed element chunks added in order). */
PDS_EXTERN int pds_fem2d_l2_error(pds_fem2d fem, pds_vec x, pds_real *err);
PDS_EXTERN int pds_fem2d_get_info(pds_fem2d fem, pds_fem2d_info *info);
PDS_EXTERN int pds_fem2d_view(pds_fem2d fem, FILE *f);

/* ---- channel flow systems (issue 10; src/disc/channel.c, docs/channel.md) ------------------------------- */
/* Paper 000's kind of system: one implicit pseudo-time step (V/dtau I + dR/dq) dq = -R(q0) of the artificial-
   compressibility incompressible Navier-Stokes equations in a channel [0, lx] x [0, 2] x [0, lz], finite volumes
   on I x J x K cells (tanh clustering towards the walls y = 0, 2), n unknowns per cell: 4 (p, u, v, w), 5 (+ a
   scalar), 6 (+ k, omega with linear model sources); Rusanov convection (lambda = |u_n| + sqrt(u_n^2 + beta)),
   central viscous terms (1/Re), local dtau = cfl h / (|u| + sqrt(u^2 + beta)); base state Poiseuille plus a
   smooth perturbation. Inflow x = 0 (velocity given), outflow x = lx (p given), no-slip walls in y, slip in z.
   A is stencil7 (n x n blocks) and b = -R(q0), both new on ctx; larger cfl gives a stiffer matrix. */
typedef struct {
  int     n;       /* unknowns per cell, 4..6 (default 6) */
  pds_int ni, nj, nk; /* cells in x (streamwise), y (wall-normal), z (spanwise) (default 16 each); named so that
                         <complex.h>'s I macro cannot clash with them */
  double  cfl;     /* pseudo-time CFL number (> 0, default 10) */
  double  re;      /* Reynolds number on the bulk velocity and half height (> 0, default 100) */
  double  stretch; /* tanh clustering towards the y walls, 0 = uniform (default 1.5, at most 10) */
  double  beta;    /* artificial compressibility (> 0, default 1) */
  double  lx, lz;  /* channel length and width (> 0, default 4 and 2; the height is 2) */
  double  perturb; /* amplitude of the perturbation of the base state, 0..0.5 (default 0.05) */
  double  phase;   /* streamwise phase of the perturbation, radians (finite, default 0): its x pattern is
                      sin(2 pi x / lx + phase), i.e. moved upstream by phase lx / (2 pi) */
} pds_channel_opts;
PDS_EXTERN void pds_channel_opts_default(pds_channel_opts *o);
/* PDS_ERR_ARG names a bad option ("option cfl = ..."); PDS_ERR_SIZE when I J K n exceeds 32-bit indices. */
PDS_EXTERN int pds_channel_generate(pds_ctx ctx, const pds_channel_opts *o, pds_mat *A, pds_vec *b);
/* Multi-block: nb grids, grid q of dims[3 q] x dims[3 q + 1] x dims[3 q + 2] cells (o->ni, nj, nk are not used), in
   one block-diagonal stencil7 matrix (pds_mat_create_stencil7_blocks: grid q's rows follow grid q-1's) and b
   their concatenation. Grid q is exactly the pds_channel_generate system of its size with the options o and
   phase = o->phase + q PDS_CHANNEL_PHASE_STEP (the golden angle), so grids of equal size have their own
   coefficients (unless perturb = 0) and adding grids changes none of the earlier ones. PDS_ERR_ARG: nb < 1, a bad
   option, a grid size < 1 (naming the grid); PDS_ERR_SIZE: more rows in all than 32-bit local indices allow. */
#define PDS_CHANNEL_PHASE_STEP 2.399963229728653 /* pi (3 - sqrt 5) */
PDS_EXTERN int pds_channel_generate_blocks(pds_ctx ctx, const pds_channel_opts *o, int nb, const pds_int *dims,
                                           pds_mat *A, pds_vec *b);
/* One channel of o->ni x o->nj x o->nk cells cut into split[0] x split[1] x split[2] touching blocks (a multi-block grid;
   block (a, b, c) is grid q = (a split[1] + b) split[2] + c and holds the a-th of split[0] near-equal ranges of the
   I cells, i from I a / split[0], and so on): the pds_channel_generate system renumbered block after block (each
   block's cells k fastest), as pds_mat_create_stencil7_coupled: the arms inside a block on its grid, the arms across
   a cut as couplings. The unknowns and values are the one grid's, so its solution is the one grid's renumbered.
   PDS_ERR_ARG: a split < 1 or larger than its dimension, or a bad option. */
PDS_EXTERN int pds_channel_generate_decomposed(pds_ctx ctx, const pds_channel_opts *o, const int *split, pds_mat *A,
                                               pds_vec *b);
/* The same spread over the context's ranks (collective; whole blocks per rank, as paper 000's code): rank r
   makes blocks nblocks r / P .. nblocks (r + 1) / P - 1 (rounded down; a rank may have none), A is mpistencil7
   (pds_mat_create_stencil7_dist) and b distributed. On one rank: the serial system's values. */
PDS_EXTERN int pds_channel_generate_decomposed_dist(pds_ctx ctx, const pds_channel_opts *o, const int *split,
                                                    pds_mat *A, pds_vec *b);
/* A random stencil7 matrix for tests: every in-grid block entry uniform in [-1, 1) (splitmix64 from seed, point
   by point, blocks alpha..eta), then each diagonal entry set to +-dominance times the sum of |entries| of the
   rest of its row (dominance > 1: strictly row diagonally dominant). */
PDS_EXTERN int pds_stencil7_random(pds_ctx ctx, pds_int ni, pds_int nj, pds_int nk, int n, double dominance,
                                   uint64_t seed, pds_mat *A);

/* ---- problem generators ----------------------------------------------------------------------------- */
/* A generated problem: the operator, a right-hand side and, where known, the exact solution of the
   discrete system (x_exact) and of the PDE sampled at the unknowns (u_exact, for the discretization error). */
typedef struct {
  pds_mat A;
  pds_vec b;
  pds_vec x_exact; /* NULL when unknown */
  pds_vec u_exact; /* NULL when not a PDE problem */
  char    description[160];
} pds_problem;
/* poisson7 (dims[3]) distributed over the context's ranks by contiguous rows, each rank making only its rows: A an
   mpicsr matrix, b and u_exact distributed (collective; on one rank the serial problem) */
PDS_EXTERN int pds_problem_create_poisson7_dist(pds_ctx ctx, const pds_int *dims, pds_problem *p);
/* pds_problem_patches over the context's ranks (collective): A is pds_mat_create_patches_dist's, b and u_exact
   distributed like it */
PDS_EXTERN int pds_problem_patches_dist(pds_ctx ctx, const pds_int n[3], int nsizes, const pds_int *sizes,
                                        pds_problem *p);
/* name: "poisson7" (dims[0..2] = nx ny nz); "fem2d" (dims[0] = nodes: paper 004's problem, P1 on a generated
   unit-square mesh of about that many nodes, seed 1, Dirichlet rows as the paper: see pds_fem2d_*). */
PDS_EXTERN int pds_problem_generate(pds_ctx ctx, const char *name, const pds_int *dims, int ndims, pds_problem *p);
/* Cell-centred -lap u = f on (0,1)^3 with n[0] x n[1] x n[2] cells (h_d = 1/n_d) tiled by patches of sizes[0..nsizes)
   (pds_patches_tile_box), stencil c_d = -1/h_d^2, c0 = -sum c_d, Dirichlet u = g on the boundary faces (ghost
   2 g - u), manufactured u = sin(pi x) sin(pi y) sin(pi z) + x y z at the cell centres (u_exact; the discrete
   solution is within O(h^2)). */
PDS_EXTERN int pds_problem_patches(pds_ctx ctx, const pds_int n[3], int nsizes, const pds_int *sizes, pds_problem *p);
/* Spectral-element -lap u = f on (0,1)^3 (paper 003): the space of pds_sem_create_box(elements, order, deform), its
   sem matrix, manufactured u = sin(pi x) sin(pi y) sin(pi z) + x y z (Dirichlet values u on the cube's faces: the
   Dirichlet rows are the identity with b = u there, the inside rows carry the lifting), u_exact = u at the global
   points (the error falls as h^(order+1), exponentially in the order). The registry's "sem" is order 7, affine. */
PDS_EXTERN int pds_problem_sem(pds_ctx ctx, const pds_int elements[3], int order, pds_real deform, pds_problem *p);
/* The same u and f on a hexahedral mesh's domain (pds_sem_create_mesh), u prescribed on its boundary. */
PDS_EXTERN int pds_problem_sem_mesh(pds_ctx ctx, pds_mesh3d mesh, int order, pds_problem *p);
/* pds_problem_sem and pds_problem_sem_mesh over the context's ranks (collective; every rank builds the whole space on
   the host): A is pds_mat_create_sem_dist's with the partitioner (NULL: contiguous), b and u_exact distributed like
   it */
PDS_EXTERN int pds_problem_sem_dist(pds_ctx ctx, const pds_int elements[3], int order, pds_real deform,
                                    const char *partitioner, pds_problem *p);
PDS_EXTERN int pds_problem_sem_mesh_dist(pds_ctx ctx, pds_mesh3d mesh, int order, const char *partitioner,
                                         pds_problem *p);

PDS_EXTERN int pds_problem_destroy(pds_problem *p);
PDS_EXTERN int pds_problem_count(void);
PDS_EXTERN const char *pds_problem_name(int i);

#ifdef __cplusplus
}
#endif
#endif
