/* src/backend/cuda/cuda_common.h: what the host side of /gpu/cuda (cuda.c, compiled as C) and its kernels (*.cu)
 * share: the extern "C" launchers, each a thin wrapper around one or a few kernel launches on a given stream that
 * returns the launch's cudaError_t (cudaGetLastError after the launch), and the constants of the reductions.
 *
 * Deterministic reductions (every dot, norm and fused dot of this backend):
 * - the grid has PDS_CUDA_RED_BLOCKS(n) blocks of PDS_CUDA_RED_THREADS threads: a function of n alone, never of
 *   timing or of the device; thread t of block b sums entries b*T + t, b*T + t + G*T, ... in that order;
 * - each block adds its threads' sums in a fixed tree (warp shuffles, then the 8 warp sums in warp 0) and writes
 *   one partial per output; the block that finishes last (an unsigned integer counter, the only atomic) adds the G
 *   partials in a fixed order (thread t takes partials t, t + T, ...; then the same tree) and writes the result;
 * - no floating-point atomics anywhere, so the same input gives the same bits on every run.
 * The result stays in device memory; cuda.c copies it to the host (one small copy to pinned memory) only when the
 * caller wants it there. */
#ifndef PDS_CUDA_COMMON_H
#define PDS_CUDA_COMMON_H

#include <cuda_runtime_api.h>

#include "pdesolve/pds_types.h"

#define PDS_CUDA_RED_THREADS  256
#define PDS_CUDA_RED_MAXBLOCK 8192 /* partials per output */
#define PDS_CUDA_RED_MAXOUT   3    /* outputs of one reduction */
#define PDS_CUDA_STREAM_MAXROW 64  /* the stream CSR kernel takes matrices whose rows all have at most this many */
#define PDS_CUDA_STREAM_MINROWS 65536 /* ... and at least this many rows (256 CTAs); smaller ones: sub-warp kernels */
/* blocks of a reduction over n entries: one per 2048 entries, at most PDS_CUDA_RED_MAXBLOCK */
#define PDS_CUDA_RED_BLOCKS(n) \
  ((unsigned)((n) <= 0 ? 1 : ((n) + 2047) / 2048 > PDS_CUDA_RED_MAXBLOCK ? PDS_CUDA_RED_MAXBLOCK : ((n) + 2047) / 2048))

/* Block Gram-Schmidt (vec_mdot_into, vec_maxpy_dev): the kernels take the pointers of up to PDS_CUDA_MDOT_BATCH
   basis vectors by value (a kernel parameter: no pointer upload, no copy) and the launchers loop over batches. */
#define PDS_CUDA_MDOT_BATCH 8
#define PDS_CUDA_LOOP_REC 5 /* = PDS_KS_REC */
typedef struct {
  const pds_real *v[PDS_CUDA_MDOT_BATCH];
} pds_cuda_ptrs;

/* Device scratch of the reductions, owned by the context (one stream: launches never overlap). */
typedef struct {
  pds_real *partial; /* [PDS_CUDA_RED_MAXOUT][PDS_CUDA_RED_MAXBLOCK] */
  unsigned *counter; /* blocks done; back to 0 after each reduction */
} pds_cuda_red;

/* Merge-path CSR product (csr_merge_k in cuda_csr.cu): CTAs of PDS_CUDA_MERGE_THREADS threads, each thread taking
   PDS_CUDA_MERGE_ITEMS consecutive items of the merge list (nrows row ends + nnz entries), so a CTA takes a tile of
   PDS_CUDA_MERGE_TILE items whatever the row lengths. */
#define PDS_CUDA_MERGE_THREADS 256
#define PDS_CUDA_MERGE_ITEMS   8
#define PDS_CUDA_MERGE_TILE    (PDS_CUDA_MERGE_THREADS * PDS_CUDA_MERGE_ITEMS)
/* CTAs of the merge-path kernel for a matrix of nrows rows and nnz entries */
#define PDS_CUDA_MERGE_CTAS(nrows, nnz) \
  (((pds_size)(nrows) + (pds_size)(nnz) + PDS_CUDA_MERGE_TILE - 1) / PDS_CUDA_MERGE_TILE)
/* Where CTA c's tile starts on the merge path: row = row ends before it, k = entries before it; first = the CTA
   that holds the first entry of that row when the row began in an earlier CTA (k > rowptr[row]), else -1. */
typedef struct {
  pds_size k;
  pds_int  row;
  pds_int  first;
} pds_cuda_merge_coord;

/* Per-matrix plan of the CSR product (cuda_mat.c builds it once per row-pointer array: csr_plan_build). stream: the
   block-staged thread-per-row kernel (all rows short); merge: the nnz-balanced merge-path kernel (irregular rows);
   else width: 1 = thread per row, 2..32 = sub-warp of that many lanes per row. Rows longer than long_len are left
   to the row-splitting kernels: long_rows[0..nlong) lists them, each cut into segments of seg entries whose
   partial sums go to partial[row slot * nseg + segment] and are then added in segment order. */
typedef struct {
  int       stream;    /* 1: csr_stream_k (every row has at most PDS_CUDA_STREAM_MAXROW entries) */
  int       merge;     /* 1: csr_merge_k and its fix-up (width and the row-splitting fields are then unused) */
  int       ncta;      /* merge: CTAs (tiles), PDS_CUDA_MERGE_CTAS(nrows, nnz) */
  pds_cuda_merge_coord *coord; /* merge: [ncta + 1] device, pds_cuda_csr_merge_setup fills it */
  pds_real *carry;     /* merge: [2 ncta] device scratch: each CTA's carry-out, then each CTA's head partial */
  int       width;     /* 1, 2, 4, 8, 16 or 32 lanes per row */
  pds_size  long_len;  /* rows with more entries go to the row-splitting kernels */
  int       nlong;     /* number of such rows */
  int      *long_rows; /* [nlong] device */
  pds_size  seg;       /* entries per segment (multiple of 256) */
  int       nseg;      /* segments of the longest row */
  pds_real *partial;   /* [nlong * nseg] device */
} pds_cuda_csr_plan;

/* Lanes per row of the sub-warp kernels (CSR product, P1 gather): the power of two nearest to avg / 2 (rounded
   geometrically), in [1, 32]; avg = entries per row. Measured on an H200 for both: rows of 6-7 entries take 4. */
static inline int pds_cuda_lanes_per_row(double avg) {
  int w = 1;

  while (w < 32 && avg / 2 >= 1.41421356 * w) w *= 2;
  return w;
}

/* BSR block layouts the SpMV kernels take (the library stores row-major; the others are for bench/gpu). */
enum { PDS_CUDA_BSR_ROW = 0, PDS_CUDA_BSR_COL = 1, PDS_CUDA_BSR_INTERLEAVED = 2 };
/* kernels of pds_cuda_bsr_spmv (cuda_bsr.cu describes them): AUTO, the rule there; or one forced (bench/gpu), which
   answers cudaErrorNotSupported where it does not apply (vec: even bs, 16-byte aligned vals and x, not interleaved;
   pipe_64: row-major) */
enum { PDS_CUDA_BSR_AUTO = 0, PDS_CUDA_BSR_VEC = 1, PDS_CUDA_BSR_PIPE = 2, PDS_CUDA_BSR_PIPE_64 = 3, PDS_CUDA_BSR_LANE = 4 };

#ifdef __cplusplus
extern "C" {
#endif

/* programmatic dependent launch of the iteration kernels (cuda_launch.cuh): 1 on (the default), 0 off; cuda.c sets it
   from PDS_CUDA_PDL when a context is made */
extern int pds_cuda_pdl;

/* ---- vectors (cuda_vec.cu); n > 0 ---------------------------------------------------------------------- */
cudaError_t pds_cuda_vec_set(cudaStream_t s, pds_size n, pds_real a, pds_real *y);
cudaError_t pds_cuda_vec_copy(cudaStream_t s, pds_size n, const pds_real *x, pds_real *y); /* a kernel (bench) */
cudaError_t pds_cuda_vec_scale(cudaStream_t s, pds_size n, pds_real a, pds_real *y);
cudaError_t pds_cuda_vec_axpby(cudaStream_t s, pds_size n, pds_real a, const pds_real *x, pds_real b, pds_real *y);
cudaError_t pds_cuda_vec_waxpby(cudaStream_t s, pds_size n, pds_real a, const pds_real *x, pds_real b,
                                const pds_real *y, pds_real *w);
cudaError_t pds_cuda_vec_pmult(cudaStream_t s, pds_size n, const pds_real *x, const pds_real *y, pds_real *w);
cudaError_t pds_cuda_vec_pdiv(cudaStream_t s, pds_size n, const pds_real *x, const pds_real *y, pds_real *w);
cudaError_t pds_cuda_vec_axpbypcz(cudaStream_t s, pds_size n, pds_real a, const pds_real *x, pds_real b,
                                  const pds_real *y, pds_real c, pds_real *z);
/* gather y_i = x_perm[i] (scatter = 0) or scatter y_perm[i] = x_i, by blocks of bs (nb bs > 0) */
cudaError_t pds_cuda_vec_permute(cudaStream_t s, pds_int nb, int bs, const pds_int *perm, int scatter,
                                 const pds_real *x, pds_real *y);
/* reductions: out is device memory */
cudaError_t pds_cuda_vec_dot(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *x, const pds_real *y,
                             pds_real *out);
cudaError_t pds_cuda_vec_dot2(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *x, const pds_real *y,
                              const pds_real *z, pds_real *out);
cudaError_t pds_cuda_vec_norm_inf(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *x, pds_real *out);
/* out[i] = V[i] . w for i < k (V: host array of k device pointers; out: device), each with pds_cuda_vec_dot's
   grid and tree, so its bits; red.partial must hold PDS_CUDA_MDOT_BATCH * PDS_CUDA_RED_MAXBLOCK reals.
   One kernel per batch of PDS_CUDA_MDOT_BATCH vectors (w read once per batch). */
cudaError_t pds_cuda_vec_mdot(cudaStream_t s, pds_cuda_red red, pds_size n, int k, const pds_real *const *V,
                              const pds_real *w, pds_real *out);
/* w = w - sum_{i<k} c[i] V[i], per entry i ascending (c: device); one kernel per batch; n > 0 */
cudaError_t pds_cuda_vec_maxpy(cudaStream_t s, pds_size n, int k, const pds_real *const *V, const pds_real *c,
                               pds_real *w);
/* fused Krylov steps (semantics in src/backend/backend.h); sc is the method's device scalar vector S
   (src/backend/krylov_step.h) */
struct pds_cuda_loop_dev_s;
/* ..._update_r: then the step `step` (>= 0) in the last block; lp: the device loop being recorded, or NULL */
cudaError_t pds_cuda_cg_update_r(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *q, pds_real *r,
                                 pds_real *sc, int step, const struct pds_cuda_loop_dev_s *lp);
cudaError_t pds_cuda_cg_update_xp(cudaStream_t s, pds_size n, const pds_real *z, pds_real *x, pds_real *p,
                                  const pds_real *sc);
cudaError_t pds_cuda_bicg_update_s(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *r, const pds_real *v,
                                   pds_real *w, pds_real *sc);
cudaError_t pds_cuda_bicg_update_r(cudaStream_t s, pds_cuda_red red, pds_size n, const pds_real *w,
                                   const pds_real *t, const pds_real *rhat, pds_real *r, pds_real *sc, int step,
                                   const struct pds_cuda_loop_dev_s *lp);
cudaError_t pds_cuda_bicg_update_xp(cudaStream_t s, pds_size n, const pds_real *ph, const pds_real *sh,
                                    const pds_real *r, const pds_real *v, pds_real *x, pds_real *p,
                                    const pds_real *sc);

/* ---- stencil7 (cuda_stencil7.cu): y = alpha A x + beta y over the nb grids g (host array; vals: device, n unknowns
   per point, 1 <= n <= 8); layout PDS_CUDA_S7_POINT_MAJOR (the library's [point][arm][n][n]) or
   PDS_CUDA_S7_ENTRY_MAJOR (the layout study of bench/gpu: vals from pds_cuda_s7_to_entry_major, np = all points of
   the matrix; the point-major layout does not read np) ------------------------------------------------------------ */
#define PDS_CUDA_S7_GRIDS 64 /* grids per launch: they ride in the kernel's parameters */
enum { PDS_CUDA_S7_POINT_MAJOR = 0, PDS_CUDA_S7_ENTRY_MAJOR = 1 };
typedef struct {
  pds_size first[PDS_CUDA_S7_GRIDS];
  int      I[PDS_CUDA_S7_GRIDS], J[PDS_CUDA_S7_GRIDS], K[PDS_CUDA_S7_GRIDS];
  int      ng;
} pds_cuda_s7_grids;
struct pds_stencil7;
cudaError_t pds_cuda_s7_spmv(cudaStream_t s, int layout, const struct pds_stencil7 *g, int nb, pds_size np, int n,
                             pds_real alpha, const pds_real *vals, const pds_real *x, pds_real beta, pds_real *y);
cudaError_t pds_cuda_s7_to_entry_major(cudaStream_t s, pds_size np, int n, const pds_real *vals, pds_real *out);
/* ---- block ILU(0) (cuda_bilu0.cu, which describes the kinds and schedules; cuda_bilu0.c drives them) ---------- */
enum { PDS_CUDA_BILU0_SQUARE = 0, PDS_CUDA_BILU0_LANES, PDS_CUDA_BILU0_BLOCK, PDS_CUDA_BILU0_SYNCFREE,
       PDS_CUDA_BILU0_RECYCLE, PDS_CUDA_BILU0_TILES };
typedef struct { /* the sync-free kernels' device state (bilu0, ilu0): the launch's stamp, tickets taken, warps ended */
  unsigned stamp, ticket, done;
} pds_cuda_sync_state;
typedef struct {
  cudaStream_t           stream;
  int                    kind, phase, n;  /* phase 0 factor, 1 forward, 2 backward (block, recycle: 1 = both) */
  const int4            *sched;           /* the schedule the kind takes (device) */
  long long              begin, count;    /* square, lanes: a plane's entries; syncfree: warps; recycle: widest plane;
                                             tiles: a tile-plane's tiles (sched: 2 int4 per tile) */
  long long              smem;            /* tiles: shared memory bytes per tile */
  long long              elem_max;        /* lanes, phase 0: planes of at most this many points are factored by the
                                             element kernel (n^2 lanes per point), wider ones by lanes */
  long long              lanes_wide;      /* lanes, phase 0, n >= 5: planes of more blocks than this are factored by
                                             lanes' register-bounded kernel (two blocks an SM) */
  const long long       *goff;            /* block: plane offsets of the grid-major schedule; recycle: plane-major's */
  const int             *gbase;           /* block: grid g's planes are goff[gbase[g]] .. goff[gbase[g + 1] - 1] */
  int                    nb, nh, nsm;     /* block: grids; recycle: planes and the device's SMs */
  long long              ijn;             /* block: > 0: the sweeps keep two planes of x in shared memory, ijn = the
                                             largest I J; 0: they read x from memory */
  int                   *grid_out;        /* recycle: the blocks launched (or NULL) */
  unsigned              *flags;           /* syncfree: [points] */
  pds_cuda_sync_state   *sync;            /* syncfree */
  const pds_real        *vals;            /* the matrix, [points][7][n][n] */
  pds_real              *dinv;            /* the inverted factored diagonals, [points][n][n] */
  const float           *fvals;           /* the sweeps' float factors (arm 3 the inverse), or NULL */
  const pds_real        *b;
  pds_real              *x;
  unsigned long long    *bad;             /* factor: min(p) over singular blocks (set to ~0 before) */
} pds_cuda_bilu0_launch;
cudaError_t pds_cuda_bilu0(const pds_cuda_bilu0_launch *L);
/* the sweeps' factors: the matrix's arms and the inverses (double), or the float copy fvals ([point][7][n][n], arm 3
   the inverse); *dstr: the inverses' stride per point */
static inline void pds_cuda_bilu0_sweep_factors(int n, const pds_real *vals, const pds_real *dinv, const float *fvals,
                                                const void **A7, const void **D, int *dstr) {
  if (fvals) *A7 = fvals, *D = fvals + 3 * n * n, *dstr = 7 * n * n;
  else *A7 = vals, *D = dinv, *dstr = n * n;
}
#define PDS_CUDA_BILU0_PIPE_PF_THREADS 512 /* a pipe block's most threads with pf_regs, and without */
#define PDS_CUDA_BILU0_PIPE_THREADS 576
typedef struct { /* bilu0's pipelined sweeps (cuda_bilu0_pipe.cu: one launch per sweep, a thread block per tile) */
  cudaStream_t        stream;
  int                 n, single, backward; /* single: float factors (A7, D) */
  int                 pf_regs;             /* 1: one line per group, the next step's loads in registers */
  int                 pf;                  /* > 0: also prefetch the factors pf steps ahead into L2 */
  const int4         *tiles;               /* device, 3 int4 per tile: {first, I, J, K}, {j0, k0, nj, nk},
                                              {up j, up k, down j, down k} (tile indices or -1) */
  int                 ntiles, tjm, tkm;    /* tiles; the most lines of any tile in j and k */
  int                 threads;             /* per block: 64 control lanes + the groups' */
  long long           smem;                /* dynamic shared memory per block */
  unsigned long long *prog;                /* device [ntiles]: each tile's progress */
  pds_cuda_sync_state *sync;
  const void         *A7, *D;              /* the sweeps' factors (double: vals and dinv; float: the copy) */
  int                 dstr;                /* D's stride per point */
  const pds_real     *b;
  pds_real           *x;
  int                *query;               /* not NULL: no launch, *query = the blocks that fit on one SM */
} pds_cuda_bilu0_pipe_launch;
cudaError_t pds_cuda_bilu0_pipe(const pds_cuda_bilu0_pipe_launch *L);
/* ---- ILU(0) of a block-CSR factor (cuda_ilu0.cu; cuda_ilu0.c drives it) ------------------------------------------- */
#define PDS_CUDA_ILU0_MAXB 8 /* the largest block the kernels take */
enum { /* pds_cuda_ilu0_launch's kinds */
  PDS_CUDA_ILU0_FACTOR = 0, PDS_CUDA_ILU0_FORWARD, PDS_CUDA_ILU0_BACKWARD, /* levels: one level's rows */
  PDS_CUDA_ILU0_JACOBI_FORWARD, PDS_CUDA_ILU0_JACOBI_BACKWARD, PDS_CUDA_ILU0_CHOW, /* approximate: every row */
  PDS_CUDA_ILU0_SF_FACTOR, PDS_CUDA_ILU0_SF_FORWARD, PDS_CUDA_ILU0_SF_BACKWARD,    /* syncfree: one launch */
  PDS_CUDA_ILU0_RELAYOUT_FORWARD, PDS_CUDA_ILU0_RELAYOUT_BACKWARD /* the level-ordered copy's values (bs 1) */
};
typedef struct {
  cudaStream_t        stream;
  int                 kind;            /* PDS_CUDA_ILU0_* */
  int                 bs;
  pds_int             nb;              /* block rows */
  const pds_size     *rowptr;
  const pds_int      *colidx;
  const pds_size     *diag;
  pds_real           *vals;            /* the factor (chow: the previous iterate, NULL at the start) */
  const pds_int      *rows;            /* levels: the schedule (rows[begin .. begin + count) is the level's);
                                          syncfree: the padded schedule, count warps of 32 entries (-1: padding) */
  long long           begin, count;
  int                 nsm;             /* syncfree: the device's SMs */
  long long           window;          /* syncfree: the warps to launch (at most what can be resident) */
  unsigned           *flags;           /* syncfree: [nb] */
  pds_cuda_sync_state *sync;           /* syncfree */
  pds_real            shift;           /* factor, chow */
  const pds_real     *b;               /* forward, jacobi: b */
  const pds_real     *xr;              /* jacobi: the iterate read (NULL: zero) */
  pds_real           *x;               /* the sweeps' x, jacobi's y */
  const pds_real     *aval;            /* chow: A's values in the factor's pattern */
  pds_real           *gvals;           /* chow: the new iterate */
  unsigned long long *bad;             /* factor, chow: min(row) over singular pivots (set to ~0 before) */
  int                 warp_rows;       /* factor, forward, backward (levels or syncfree; bs 1): a warp per row,
                                          not a thread (syncfree: rows is the unpadded schedule, a ticket a row) */
  const pds_size     *sptr;            /* levels sweeps (a thread per row, bs 1): the level-ordered copy of the
                                          triangle, its pointers from the level's first row (NULL: the factor's
                                          arrays); relayout: from the schedule's first row, rows the schedule */
  const pds_int      *scol;
  pds_real           *sval;
} pds_cuda_ilu0_launch;
cudaError_t pds_cuda_ilu0(const pds_cuda_ilu0_launch *L);
/* one wave of the factorization's kernels: the element kernel's points, lanes' (unbounded) kernel's blocks */
cudaError_t pds_cuda_bilu0_waves(int n, int nsm, long long *elem_points, long long *lanes_blocks);
cudaError_t pds_cuda_bilu0_to_float(cudaStream_t s, pds_size np, int n, const pds_real *vals, const pds_real *dinv,
                                    float *out);
/* ---- single precision (cuda_f32.cu): the kernel group of src/backend/kernels_f32.h, its numerics, on float vectors;
   the reductions accumulate (double)x_i (double)y_i in the grid and tree of the double ones; n > 0 --------------- */
cudaError_t pds_cuda_f32_to_f32(cudaStream_t s, pds_size n, const pds_real *x, float *y);
cudaError_t pds_cuda_f32_to_f64(cudaStream_t s, pds_size n, const float *y, pds_real *x);
cudaError_t pds_cuda_f32_set(cudaStream_t s, pds_size n, pds_real a, float *y);
cudaError_t pds_cuda_f32_axpby(cudaStream_t s, pds_size n, pds_real a, const float *x, pds_real b, float *y);
cudaError_t pds_cuda_f32_axpbypcz(cudaStream_t s, pds_size n, pds_real a, const float *x, pds_real b, const float *y,
                                  pds_real c, float *z);
cudaError_t pds_cuda_f32_pdiv(cudaStream_t s, pds_size n, const float *x, const pds_real *d, float *w);
/* out[0] = x . y, and out[1] = x . z when z != NULL (out: device); n >= 0 */
cudaError_t pds_cuda_f32_dot2(cudaStream_t s, pds_cuda_red red, pds_size n, const float *x, const float *y,
                              const float *z, pds_real *out);
cudaError_t pds_cuda_f32_cg_update_r(cudaStream_t s, pds_cuda_red red, pds_size n, const float *q, float *r,
                                     pds_real *sc, int step, const struct pds_cuda_loop_dev_s *lp);
cudaError_t pds_cuda_f32_cg_update_xp(cudaStream_t s, pds_size n, const float *z, float *x, float *p,
                                      const pds_real *sc);
cudaError_t pds_cuda_f32_bicg_update_s(cudaStream_t s, pds_cuda_red red, pds_size n, const float *r, const float *v,
                                       float *w, pds_real *sc);
cudaError_t pds_cuda_f32_bicg_update_r(cudaStream_t s, pds_cuda_red red, pds_size n, const float *w, const float *t,
                                       const float *rhat, float *r, pds_real *sc, int step,
                                       const struct pds_cuda_loop_dev_s *lp);
cudaError_t pds_cuda_f32_bicg_update_xp(cudaStream_t s, pds_size n, const float *ph, const float *sh, const float *r,
                                        const float *v, float *x, float *p, const pds_real *sc);

/* ---- one whole CG / BiCGSTAB iteration without a preconditioner in one block (cuda_small.cu): n <= PDS_CUDA_SMALL_N
   (one reduction block) and a thread- or sub-warp-per-row plan of `width` lanes without long rows; the bits of the
   kernel sequence; cudaErrorNotSupported otherwise. lp: the device loop being recorded, or NULL --------------------- */
#define PDS_CUDA_SMALL_N 2048
cudaError_t pds_cuda_cg_small(cudaStream_t s, int width, pds_int n, const pds_size *rp, const pds_int *ci,
                              const pds_real *av, pds_real *x, pds_real *r, pds_real *p, pds_real *q, pds_real *S,
                              const struct pds_cuda_loop_dev_s *lp);
cudaError_t pds_cuda_bicg_small(cudaStream_t s, int width, pds_int n, const pds_size *rp, const pds_int *ci,
                                const pds_real *av, pds_real *x, pds_real *r, const pds_real *rhat, pds_real *p,
                                pds_real *v, pds_real *sv, pds_real *t, pds_real *S,
                                const struct pds_cuda_loop_dev_s *lp);

/* ---- one whole CG / BiCGSTAB iteration without a preconditioner in one cooperative launch (cuda_coop.cu), for
   PDS_CUDA_SMALL_N < n <= PDS_CUDA_COOP_N: width 0 for the stream plan, else the lanes per row of a thread- or
   sub-warp-per-row plan without long rows; the bits of the kernel sequence. The grid is every block that fits at once
   (at most per_sm per SM of nsm SMs when per_sm > 0). part: 6 PDS_CUDA_RED_MAXBLOCK doubles of device scratch.
   pds_cuda_coop_pdl = 0: launched without programmatic dependent launch. ----------------------------------------- */
#define PDS_CUDA_COOP_N (1 << 18)
extern int pds_cuda_coop_pdl;
cudaError_t pds_cuda_cg_coop(cudaStream_t s, int width, int nsm, int per_sm, pds_int n, const pds_size *rp,
                             const pds_int *ci, const pds_real *av, pds_real *x, pds_real *r, pds_real *p,
                             pds_real *q, pds_real *S, pds_real *part, const struct pds_cuda_loop_dev_s *lp);
cudaError_t pds_cuda_bicg_coop(cudaStream_t s, int width, int nsm, int per_sm, pds_int n, const pds_size *rp,
                               const pds_int *ci, const pds_real *av, pds_real *x, pds_real *r, const pds_real *rhat,
                               pds_real *p, pds_real *v, pds_real *sv, pds_real *t, pds_real *S, pds_real *part,
                               const struct pds_cuda_loop_dev_s *lp);

/* ---- the device loop of the Krylov methods (cuda_krylov.cu) ----------------------------------------------------- */
/* One iteration's record as the host reads it (mapped pinned memory): seq = the iteration's number, written last. */
typedef struct {
  volatile double rec[PDS_CUDA_LOOP_REC]; /* S[PDS_KS_IT .. PDS_KS_IT + PDS_KS_REC) */
  volatile long long seq;
} pds_cuda_loop_rec;
/* What a step kernel inside a device loop also does (NULL outside one): write the record to ring[it % nring],
   count the chunk down, and end the loop (the conditional handle) when the record gives a reason, when the host
   asked to stop (*abort != 0), or after chunk iterations. */
typedef struct pds_cuda_loop_dev_s {
  pds_cuda_loop_rec        *ring;   /* device pointer of mapped pinned memory */
  int                       nring;
  volatile int             *abort;  /* device pointer of mapped pinned memory, host-written */
  unsigned long long        handle; /* cudaGraphConditionalHandle */
  int                      *left;   /* device: iterations left in this chunk */
  int                       chunk;
} pds_cuda_loop_dev;
/* the scalar step of method m on S (one thread), inside a device loop when lp != NULL */
cudaError_t pds_cuda_krylov_step(cudaStream_t s, int m, pds_real *S, const pds_cuda_loop_dev *lp);
/* S[0 .. PDS_KS_N) = v (host values, passed as the kernel's parameter: nothing to wait for) */
cudaError_t pds_cuda_krylov_set(cudaStream_t s, pds_real *S, const pds_real *v);
/* the loop's gate, first node of the graph: the loop runs (chunk more iterations) unless S says the solve ended or
   the host asked to stop */
cudaError_t pds_cuda_loop_gate(cudaStream_t s, const pds_real *S, const pds_cuda_loop_dev *lp);

/* ---- CSR (cuda_csr.cu) --------------------------------------------------------------------------------- */
/* Row statistics for the plan: stats[0] = longest row, stats[1] = rows longer than long_len (listed in
   long_rows, in no particular order, at most cap of them; cap 0: counted only, long_rows may be NULL; long_len 0
   counts the non-empty rows). stats: device, 2 entries, zeroed by the launcher. */
cudaError_t pds_cuda_csr_analyze(cudaStream_t s, pds_int nrows, const pds_size *rowptr, pds_size long_len,
                                 unsigned long long *stats, int *long_rows, int cap);
/* Merge-path plan: plan->coord[0..ncta] from the row pointers (one binary search per CTA), ncta = plan->ncta. */
cudaError_t pds_cuda_csr_merge_setup(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_int nrows, pds_size nnz,
                                     const pds_size *rowptr);
/* y = alpha A x + beta y (beta = 0: y not read) following plan; perm != NULL: entry k's value is vals[perm[k]]
   (the transpose, see below). */
cudaError_t pds_cuda_csr_spmv(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_int nrows, const pds_size *rowptr,
                              const pds_int *colidx, const pds_real *vals, const pds_int *perm, pds_real alpha,
                              const pds_real *x, pds_real beta, pds_real *y);
/* y = A x (alpha 1, beta 0) and out[0] = y . w1, out[1] = y . w2 if w2 (w2 may be y): stream plans only
   (cudaErrorNotSupported otherwise); deterministic grid reduction, out in device memory */
cudaError_t pds_cuda_csr_spmv_dot(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_cuda_red red, pds_int nrows,
                                  const pds_size *rowptr, const pds_int *colidx, const pds_real *vals,
                                  const pds_real *x, pds_real *y, const pds_real *w1, const pds_real *w2,
                                  pds_real *out);
/* the same products on float values and vectors (single-precision solves): alpha and beta rounded to float, each row
   summed in float in the plan's order; the dots in double (out: device) */
cudaError_t pds_cuda_csr_spmv_f32(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_int nrows, const pds_size *rowptr,
                                  const pds_int *colidx, const float *vals, pds_real alpha, const float *x,
                                  pds_real beta, float *y);
cudaError_t pds_cuda_csr_spmv_dot_f32(cudaStream_t s, const pds_cuda_csr_plan *plan, pds_cuda_red red, pds_int nrows,
                                      const pds_size *rowptr, const pds_int *colidx, const float *vals,
                                      const float *x, float *y, const float *w1, const float *w2, pds_real *out);
cudaError_t pds_cuda_csr_diag(cudaStream_t s, pds_int n, const pds_size *rowptr, const pds_int *colidx,
                              const pds_real *vals, pds_real *d);
/* The structure of A^T (cuda_transpose.cu): trowptr[ncols+1], trowidx[nnz] (row of each entry, column-major
   order, rows ascending within a column: a stable radix sort on the column index) and perm[nnz] (the entry of A
   it came from). Scratch comes from alloc/release (the context's pool). nnz < 2^31. */
typedef cudaError_t (*pds_cuda_alloc_fn)(void *user, size_t bytes, void **p);
typedef void (*pds_cuda_release_fn)(void *user, void *p);
cudaError_t pds_cuda_csr_transpose(cudaStream_t s, pds_int nrows, pds_int ncols, pds_size nnz,
                                   const pds_size *rowptr, const pds_int *colidx, pds_size *trowptr, pds_int *trowidx,
                                   pds_int *perm, pds_cuda_alloc_fn alloc, pds_cuda_release_fn release, void *user);

/* ---- BSR and point-block Jacobi (cuda_bsr.cu) ---------------------------------------------------------- */
cudaError_t pds_cuda_bsr_spmv(cudaStream_t s, int layout, int kernel, pds_int nbrows, int bs, pds_size nnzb,
                              const pds_size *browptr, const pds_int *bcolidx, const pds_real *vals, pds_real alpha,
                              const pds_real *x, pds_real beta, pds_real *y);
cudaError_t pds_cuda_bsr_diag(cudaStream_t s, pds_int nb, int bs, const pds_size *browptr, const pds_int *bcolidx,
                              const pds_real *vals, pds_real *d);
cudaError_t pds_cuda_bsr_diag_blocks(cudaStream_t s, pds_int nb, int bs, const pds_size *browptr,
                                     const pds_int *bcolidx, const pds_real *vals, pds_real *blocks);
/* invert nb row-major bs x bs blocks in place; *bad (device, set to nb by the launcher) becomes the smallest index
   of a singular block (nb if none). piv: device scratch of nb*bs ints, used for bs > 8 only. */
cudaError_t pds_cuda_blocks_invert(cudaStream_t s, pds_size nb, int bs, pds_real *blocks, int *piv,
                                   unsigned long long *bad);
cudaError_t pds_cuda_blocks_apply(cudaStream_t s, pds_size nb, int bs, const pds_real *inv, const pds_real *x,
                                  pds_real *y);

/* ---- P1 FEM assembly (cuda_fem2d.cu; the arithmetic of src/backend/fem2d_kernels.h, compiled without FMA
   contraction, so the bits are ref's) --------------------------------------------------------------------------- */
/* Launch configuration of the two assembly kernels; pds_cuda_fem2d_auto fills pdesolve's choice (the rule is in
   cuda_fem2d.cu), bench/gpu/bench_fem2d_gpu sweeps the others. */
typedef struct {
  int elem_threads;   /* threads per block of the element kernel: a multiple of 32 in [32, 1024] */
  int gather_lanes;   /* lanes per row of the gather kernel: 1, 2, 4, 8, 16 or 32 */
  int gather_threads; /* threads per block of the gather kernel: a multiple of 32 in [32, 1024] */
} pds_cuda_fem2d_cfg;
void pds_cuda_fem2d_auto(pds_int nrows, pds_size nnz, pds_cuda_fem2d_cfg *cfg);
/* Element kernel, one thread per triangle: Ke[6e..6e+6) and fe[3e..3e+3) of triangle tri[3e..3e+3) (coordinates
   xy[2 node..]), conductivity kv[e] (or k when kv is NULL), source values at the edge midpoints fm[3e..3e+3) (or
   the constant f when fm is NULL). *bad (device; the launcher sets it to ntri first) becomes the smallest e whose
   2A <= 0 or whose k or values are not finite. cfg NULL: the auto choice. ntri > 0. */
cudaError_t pds_cuda_fem2d_element(cudaStream_t s, const pds_cuda_fem2d_cfg *cfg, pds_int ntri, const pds_int *tri,
                                   const pds_real *xy, pds_real k, const pds_real *kv, pds_real f, const pds_real *fm,
                                   pds_real *Ke, pds_real *fe, unsigned long long *bad);
/* Gather, gather_lanes lanes per row: vals[rowptr[i]..rowptr[i+1]) and b[i] from Ke and fe through the gather maps
   (fem2d_gather_row's arithmetic and order); isd[i] != 0 marks Dirichlet nodes, whose value is g[i] (or gc for
   every node when g is NULL); symmetric != 0 also moves the Dirichlet columns to b. n > 0. cfg NULL: the auto
   choice for nnz = 7 n (a triangle mesh); cuda.c passes pds_cuda_fem2d_auto's with the true nnz. */
cudaError_t pds_cuda_fem2d_gather(cudaStream_t s, const pds_cuda_fem2d_cfg *cfg, pds_int n, const pds_size *rowptr,
                                  const pds_int *colidx, const pds_size *gptr, const pds_int *gidx, const pds_real *Ke,
                                  const pds_size *nptr, const pds_int *nidx, const pds_real *fe,
                                  const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric,
                                  pds_real *vals, pds_real *b);

/* ---- patch sets (cuda_patches.cu: src/mat/patches_kernels.h, a thread per cell, /cpu/ref's bits) and block
   relaxation on them (cuda_relax.cu: src/precond/relax_kernels.h). P, L: the host structs, whose arrays without h are
   device memory; the launchers read only the host fields and pass the device arrays on -------------------------- */
struct pds_patches;
struct pds_relax_layout;
cudaError_t pds_cuda_patches_apply(cudaStream_t s, const struct pds_patches *P, pds_real alpha, const pds_real *x,
                                   pds_real beta, pds_real *y);
cudaError_t pds_cuda_patches_residual(cudaStream_t s, const struct pds_patches *P, const pds_real *x,
                                      const pds_real *b, pds_real *r);
cudaError_t pds_cuda_patches_restrict(cudaStream_t s, const struct pds_patches *Pf, const struct pds_patches *Pc,
                                      pds_real scale, const pds_real *rf, pds_real *rc);
cudaError_t pds_cuda_patches_prolong(cudaStream_t s, const struct pds_patches *Pc, const struct pds_patches *Pf,
                                     int trilinear, const pds_real *ec, pds_real *uf);
/* gemm's passes over layout blocks [b0, b1) in mapc's thread-block shape (stride, pack: below) with cpt = 1, 2 or 4
   cells per thread (stride cpt >= every block's m): R[r_b + i] = (f - A u) at cell i of block b (zero: u is 0,
   R = f); u at cell i of block b += omega E[r_b + i] (zero: 0 + omega E, u not read) */
cudaError_t pds_cuda_relax_residual(cudaStream_t s, const struct pds_patches *P, const struct pds_relax_layout *L,
                                    pds_int b0, pds_int b1, int stride, int pack, int cpt, int zero, const pds_real *f,
                                    const pds_real *u, pds_real *R);
cudaError_t pds_cuda_relax_update(cudaStream_t s, const struct pds_patches *P, const struct pds_relax_layout *L,
                                  pds_int b0, pds_int b1, int stride, int pack, int cpt, int zero, pds_real omega,
                                  const pds_real *E, pds_real *u);
/* u_p = u_p + omega E_p for p in [0, n), E in cell order */
cudaError_t pds_cuda_relax_update_cells(cudaStream_t s, pds_size n, int zero, pds_real omega, const pds_real *E,
                                        pds_real *u);
/* paper 002's mapping C over the work items [i0, i1) of items (device; an item (x, y): the y <= reuse consecutive
   blocks x, x + 1, ... of one segment; items NULL: [i0, i1) are layout blocks, reuse 1): stride = threads per
   spatial block (>= the largest m), pack = items per thread block (stride pack <= 512), reuse = 1, 4 or 8 (blocks
   whose product shares one read of the inverse); inplace: u_p += omega A_b^-1 r_b, else E_p = A_b^-1 r_b (cell
   order); zero: r_b = f_b */
cudaError_t pds_cuda_relax_mapc(cudaStream_t s, const struct pds_patches *P, const struct pds_relax_layout *L,
                                int inplace, const int2 *items, pds_int i0, pds_int i1, int stride, int pack,
                                int reuse, int zero, pds_real omega, const pds_real *f, pds_real *u, pds_real *E);
/* E_b = A_b^-1 R_b (block-ordered work entries) for the blocks of the work items [i0, i1), the shape of mapc */
cudaError_t pds_cuda_relax_blockprod(cudaStream_t s, const struct pds_relax_layout *L, const int2 *items, pds_int i0,
                                     pds_int i1, int stride, int pack, int reuse, const pds_real *R, pds_real *E);

/* ---- sem (cuda_sem.cu): the spectral-element operator w = A x and its diagonal d (src/disc/sem_kernels.h), work:
   nloc values of device memory ---------------------------------------------------------------------------------- */
struct pds_sem_dev;
cudaError_t pds_cuda_sem_apply(cudaStream_t s, const struct pds_sem_dev *S, const pds_real *x, pds_real *w,
                               pds_real *work);
cudaError_t pds_cuda_sem_diag(cudaStream_t s, const struct pds_sem_dev *S, int variant, pds_real *d, pds_real *work);
/* the two phases of apply: elements [e0, e1)'s local products into work, then the sum at the global points */
cudaError_t pds_cuda_sem_elements(cudaStream_t s, const struct pds_sem_dev *S, pds_int e0, pds_int e1, const pds_real *x,
                                  pds_real *work);
cudaError_t pds_cuda_sem_assemble(cudaStream_t s, const struct pds_sem_dev *S, const pds_real *x, pds_real *w,
                                  const pds_real *work);

/* ---- fv (cuda_fv.cu): the finite-volume Euler operator's stages and update (src/disc/fv_kernels.h) ------------- */
struct pds_fv_dev;
cudaError_t pds_cuda_fv_face_states(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, pds_real *QF);
cudaError_t pds_cuda_fv_face_flux(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *QF, pds_real *F);
cudaError_t pds_cuda_fv_cell_sum(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *F, pds_real *R);
cudaError_t pds_cuda_fv_update(cudaStream_t s, const struct pds_fv_dev *D, pds_real cfl, const pds_real *R,
                               pds_real *Q, pds_real *tau);
/* order 2: the reconstruction, variant 0 a thread per (cell, variable), 1 a warp per cell (cooperative loads of the
   stencil's MAT block and differences into shared memory, a lane per coefficient); the face states at order 2 */
cudaError_t pds_cuda_fv_recon(cudaStream_t s, const struct pds_fv_dev *D, int variant, const pds_real *Q,
                              pds_real *PC);
cudaError_t pds_cuda_fv_face_states2(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q,
                                     const pds_real *PC, pds_real *QF);
/* the summations after stages (i) and (ii) fused (fv_kernels.h's flux_q, sum_color, sum_atomic, sum_cells) */
cudaError_t pds_cuda_fv_flux_q(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                               pds_real *F);
cudaError_t pds_cuda_fv_sum_color(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                                  pds_real *R);
cudaError_t pds_cuda_fv_sum_atomic(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                                   pds_real *R);
cudaError_t pds_cuda_fv_sum_cells(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, const pds_real *PC,
                                  pds_real *R);

/* ---- fvjac (cuda_fvjac.cu): the first-order finite-volume Jacobian (src/disc/fv_jac_kernels.h) --------------- */
struct pds_fvjac_dev;
cudaError_t pds_cuda_fvjac_face_jac(cudaStream_t s, const struct pds_fv_dev *D, const pds_real *Q, pds_real *JF);
cudaError_t pds_cuda_fvjac_assemble(cudaStream_t s, const struct pds_fv_dev *D, const struct pds_fvjac_dev *J,
                                    pds_real cfl, const pds_real *Q, const pds_real *JF, pds_real *vals);

/* Internal, for tests/cuda (cuda.c): device-to-host copies made so far, the bytes the memory pool holds, and the
   bytes of it in live allocations (outputs may be NULL). */
struct pds_ctx_s;
int pds_cuda_counters(struct pds_ctx_s *ctx, long long *d2h, size_t *reserved, size_t *used);
/* Internal, for tests/cuda (cuda.c): how many whole small iterations (cuda_small.cu) were queued on ctx. */
int pds_cuda_fused_count(struct pds_ctx_s *ctx, long long *small, long long *coop);

#ifdef __cplusplus
}
#endif
#endif
