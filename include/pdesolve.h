/* include/pdesolve.h: the one header users of pdesolve include.
 *
 * Objects: a context (backend, errors, allocator), vectors, matrices (csr, bsr, shell), preconditioners
 * (none, jacobi, pbjacobi, shell), Krylov solvers (cg, bicgstab, gmres, fgmres, richardson), Matrix Market
 * I/O and problem generators. Every function returns PDS_OK (0) or a negative pds_error_code; the message is
 * read with pds_ctx_get_error(). Handles are opaque; create(..., &h) pairs with destroy(&h), which sets h to
 * NULL and accepts NULL. See docs/user-guide.md. */
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

/* ---- vectors ---------------------------------------------------------------------------------------- */
PDS_EXTERN int pds_vec_create(pds_ctx ctx, pds_size n, pds_vec *v);      /* values undefined until set */
PDS_EXTERN int pds_vec_duplicate(pds_vec v, pds_vec *w);                  /* same size and context, no values */
PDS_EXTERN int pds_vec_destroy(pds_vec *v);
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
/* Matrix-free operator: apply(ctx_user, x, y) computes y = A x with pds_vec operations or array access. */
typedef int (*pds_shell_apply)(void *user, pds_vec x, pds_vec y);
PDS_EXTERN int pds_mat_create_shell(pds_ctx ctx, pds_int nrows, pds_int ncols, void *user, pds_shell_apply apply,
                                    pds_mat *A);
/* CSR -> BSR with block size bs (bs = 0: detect the largest bs in 8..1 that divides n and gives the fewest
   stored zeros; a bs that leaves more than half of the stored block entries zero is not chosen). Blocks that
   hold any nonzero of the CSR pattern are stored, with zeros filled in. */
PDS_EXTERN int pds_mat_convert_to_bsr(pds_mat A, int bs, pds_mat *B);
PDS_EXTERN int pds_mat_convert_to_csr(pds_mat A, pds_mat *B);             /* BSR -> CSR, all block entries */
PDS_EXTERN int pds_mat_detect_block_size(pds_mat A, int *bs);            /* the rule of convert_to_bsr(A, 0) */
PDS_EXTERN int pds_mat_destroy(pds_mat *A);
PDS_EXTERN int pds_mat_reference(pds_mat A);                              /* one more owner; destroy drops one */
PDS_EXTERN const char *pds_mat_get_type(pds_mat A);                       /* "csr", "bsr", "shell" */
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
/* type: "none", "jacobi", "pbjacobi", "shell". */
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
PDS_EXTERN int pds_solver_set_damping(pds_solver s, pds_real omega);     /* richardson, default 1 */
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
/* name: "poisson7" (dims[0..2] = nx ny nz). */
PDS_EXTERN int pds_problem_generate(pds_ctx ctx, const char *name, const pds_int *dims, int ndims, pds_problem *p);
PDS_EXTERN int pds_problem_destroy(pds_problem *p);
PDS_EXTERN int pds_problem_count(void);
PDS_EXTERN const char *pds_problem_name(int i);

#ifdef __cplusplus
}
#endif
#endif
