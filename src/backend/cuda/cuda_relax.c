/* src/backend/cuda/cuda_relax.c: /gpu/cuda's relax group (src/precond/relax_kernels.h): paper 002's block relaxation
 * on a patch set, u += omega A_b^-1 (f - A u)_b by spatial blocks (jacobi, multicolor, chaotic), in two variants
 * (kernels and byte / flop models in cuda_relax.cu):
 *   gemm  per colour (jacobi: all blocks at once) one residual pass writes R, the block-ordered work entries of the
 *         colour's blocks; then E_seg = A_t^-1 R_seg for each segment (m x m inverse times the m x nblocks matrix of
 *         its residuals) as one cuBLAS DGEMM (FP64 tensor cores on sm_80 and later), the DGEMMs of a colour spread
 *         over the context's stream and up to RELAX_NSIDE side streams (a boundary type's few hundred blocks do not
 *         fill the GPU alone); without side streams (PDS_CUDA_RELAX_SIDE=0) segments of fewer than 64 blocks, too
 *         small for a serial library launch to pay, are multiplied by one block-product kernel per colour; then one
 *         update pass u += omega E. Chaotic runs mapc: gemm is a Jacobi-type scheme (all residuals before any
 *         update).
 *   mapc  paper 002's mapping C: a thread per cell of a spatial block, the block residual in shared memory,
 *         e_i = sum_k inv[k m + i] r_k, the update; small blocks packed several to a thread block, and blocks of 64
 *         cells or more taken 8 of one type at a time so that each inverse entry read serves 8 products
 *         (cuda_relax.cu). multicolor: colour by colour in place; chaotic: every block at once in place (each reads
 *         whatever its neighbours hold); jacobi: the blocks write E, then an update pass (two vectors: no block reads
 *         a neighbour's new value).
 *   auto  gemm when the largest block has at least 64 cells, else mapc. Measured on an H200 (bench_relax, 64 patches of
 *         64^3, 7-point Poisson; Gcells/s per sweep, jacobi / multicolor forward): 4^3 mapc 28 / 27, gemm 31 / 27; 8^3
 *         mapc 7.5 / 7.6 (2.5 without the 8-block reuse), gemm 22 / 19. Per 8^3 jacobi sweep on these 16.8M cells
 *         (ncu, one stream): the residual pass 255 us (1.65 TB/s), the interior type's DGEMM 264 us (53.6 TFLOP/s),
 *         six face types' DGEMMs 14 us each, the update pass 141 us (2.7 TB/s).
 * smooth runs inside the Krylov device loop's stream capture (src/solver/loop.c): it allocates nothing, waits for
 * nothing and reads nothing from the device; everything it needs (the cuBLAS handles bound to their streams,
 * cuBLAS's workspaces set with cublasSetWorkspace, the events of the side streams' fork and join, the block lists) is
 * made by plan_create. Deterministic: jacobi and multicolor give the same bits on every run (no atomics; cuBLAS DGEMM
 * with a fixed workspace, default math mode and atomics off is reproducible on one device, and each DGEMM writes its
 * own columns, whichever stream runs it); mapc gives /cpu/ref's bits, gemm ref's results to round-off. */
#include <stdlib.h>
#include <string.h>

#include "cuda_relax.h"

enum { V_AUTO, V_GEMM, V_MAPC, V_COUNT };
static const char *const variant_names[V_COUNT] = {"auto", "gemm", "mapc"};

#define RELAX_GEMM_MIN 64  /* segments of at least this many blocks go to cuBLAS, the others to the block-product
                              kernel (PDS_CUDA_RELAX_GEMM_MIN sets it) ... */
#define RELAX_ALLGEMM_M 256 /* ... except that with side streams every segment of a type of this many cells or more
                              does: H200, the seven 8^3 sets of bench_relax, jacobi gemm, 0-7 % faster per sweep
                              (64^3 / 64: 20.5 -> 22.0 Gcells/s; the block products of its 368 edge and corner blocks
                              took 98 us on 46 thread blocks, each reading the 2 MiB inverse). Not for small blocks:
                              with gmg's multicolor 4^3 smoothers and every segment by cuBLAS, CG + gmg at 128^3 took
                              0.024 s instead of 0.011 (one DGEMM launch per type and colour on every level) */
#define RELAX_AUTO_M   64  /* auto: gemm from this many cells per block on */
#define RELAX_CTA      256 /* mapc: blocks of fewer cells are packed up to this many threads (PDS_CUDA_RELAX_PACK=0: 1) */
#define RELAX_CPT_M    256 /* gemm's passes: blocks of this many cells or more take 2 cells per thread (the block's
                              descriptors read once for 2 cells, both cells' loads in flight; PDS_CUDA_RELAX_CPT=1, 2
                              or 4 sets it). Measured on an H200, 8^3 blocks, jacobi gemm, the seven 8^3 sets of
                              bench_relax: 2 cells per thread 4-6 % faster per sweep than 1 on every set, 4 cells
                              between the two */
#define RELAX_NSIDE    4   /* gemm: DGEMMs of one colour on up to this many side streams beside the context's (each
                              with its own cuBLAS handle and workspace), so that segments too narrow to fill the GPU
                              alone (a face type's 900 blocks: 4 x 8 output tiles) run side by side;
                              PDS_CUDA_RELAX_SIDE=0..4 sets the count */
#define RELAX_REUSE_M  64  /* mapc, block products: blocks of this many cells or more take 8 blocks of one type per
                              inverse read (PDS_CUDA_RELAX_REUSE=1, 4 or 8 sets it) */

static int blas_error(pds_ctx ctx, const struct pds_cublas *cb, cublasStatus_t st, const char *what) {
  return PDS_ERROR(ctx, PDS_ERR_BACKEND, "relax (gemm): cuBLAS error %s (%d) in %s", cb->status_string(st), (int)st,
                   what);
}
/* a call through the loaded cuBLAS R->cb (cuda_cublas.h) */
#define BLAS_CALL(ctx, what, ...)                                                 \
  do {                                                                            \
    cublasStatus_t st_ = (__VA_ARGS__);                                           \
    if (st_ != CUBLAS_STATUS_SUCCESS) return blas_error((ctx), R->cb, st_, what); \
  } while (0)

static int env_int(const char *name, int dflt) {
  const char *s = getenv(name);

  return s && *s ? atoi(s) : dflt;
}

static void plan_free(pds_ctx ctx, struct relax_plan *R) {
  struct cuda_be *be;

  if (!R) return;
  be = pds_cuda_enter(ctx);
  pds_cuda_relax_stream_free(ctx, R->st);
  for (int j = 0; j < R->nside; j++) {
    if (R->sstream[j]) (void)cudaStreamSynchronize(R->sstream[j]);
    if (R->sblas[j]) (void)R->cb->destroy(R->sblas[j]);
    if (R->sstream[j]) (void)cudaStreamDestroy(R->sstream[j]);
    if (R->join[j]) (void)cudaEventDestroy(R->join[j]);
    pds_cuda_raw_free(be, R->sws[j]);
  }
  if (R->fork) (void)cudaEventDestroy(R->fork);
  if (R->blas) (void)R->cb->destroy(R->blas);
  pds_cuda_raw_free(be, R->ws);
  pds_cuda_raw_free(be, R->items);
  (void)cudaGetLastError();
  free(R->grp), free(R->bigseg);
  free(R);
}

/* The layout's promises (relax_kernels.h) that the kernels rely on, checked once on its host arrays: types of
   1..8^3 cells whose inverses lie in inv; segments that cover the blocks in order, each one type, the blocks of a
   segment consecutive in the work arrays (one m x nblocks matrix for a DGEMM) and the segments one after the other;
   colours that cover the segments in order (a colour's blocks are one range); blocks inside their patches. */
static int layout_check(pds_ctx ctx, const struct pds_patches *P, const struct pds_relax_layout *L) {
  pds_size r = 0;
  pds_int  b = 0;

  PDS_CHECK(L->ntypes >= 1 && L->nsegs >= 1 && L->ncolors >= 1 && L->nblocks >= 1, ctx, PDS_ERR_ARG,
            "relax layout: %d types, %d segments, %d colours, %d blocks (at least one of each is needed)", L->ntypes,
            L->nsegs, L->ncolors, (int)L->nblocks);
  PDS_CHECK(L->htype && L->hseg && L->hblk && L->hcolor && L->type && L->seg && L->blk && L->inv, ctx, PDS_ERR_ARG,
            "relax layout: missing arrays");
  for (int t = 0; t < L->ntypes; t++) {
    const struct pds_relax_btype *T = &L->htype[t];

    PDS_CHECK(T->b[0] >= 1 && T->b[0] <= 8 && T->b[1] >= 1 && T->b[1] <= 8 && T->b[2] >= 1 && T->b[2] <= 8 &&
                  T->m == T->b[0] * T->b[1] * T->b[2] && T->off >= 0 && T->off + (pds_size)T->m * T->m <= L->ninv,
              ctx, PDS_ERR_ARG, "relax layout: type %d (%d x %d x %d, m %d, inverse at %" PDS_SIZE_FMT " of %"
              PDS_SIZE_FMT ") is not a block of 1..8 cells a side with its inverse in inv", t, (int)T->b[0],
              (int)T->b[1], (int)T->b[2], (int)T->m, T->off, L->ninv);
  }
  for (int s = 0; s < L->nsegs; s++) {
    const struct pds_relax_seg *S = &L->hseg[s];

    PDS_CHECK(S->type >= 0 && S->type < L->ntypes && S->b0 == b && S->b1 >= S->b0 && S->b1 <= L->nblocks && S->r == r,
              ctx, PDS_ERR_ARG, "relax layout: segment %d (type %d, blocks %d .. %d, entries from %" PDS_SIZE_FMT
              ") does not follow the segments before it (blocks from %d, entries from %" PDS_SIZE_FMT ")", s,
              (int)S->type, (int)S->b0, (int)S->b1, S->r, (int)b, r);
    for (pds_int k = S->b0; k < S->b1; k++) {
      const struct pds_relax_block *B = &L->hblk[k];
      const struct pds_relax_btype  *T = &L->htype[S->type];
      int                           in = B->patch >= 0 && B->patch < P->np;

      for (int d = 0; d < 3 && in && P->hgeom; d++)
        in = B->o[d] >= 0 && B->o[d] + T->b[d] <= P->hgeom[B->patch].n[d];
      PDS_CHECK(B->type == S->type && B->r == S->r + (pds_size)(k - S->b0) * T->m && in, ctx, PDS_ERR_ARG,
                "relax layout: block %d (patch %d, type %d, entries from %" PDS_SIZE_FMT ") does not match segment %d "
                "or does not lie in its patch", (int)k, (int)B->patch, (int)B->type, B->r, s);
    }
    b = S->b1, r += (pds_size)(S->b1 - S->b0) * L->htype[S->type].m;
  }
  PDS_CHECK(b == L->nblocks && r == P->ncells, ctx, PDS_ERR_ARG, "relax layout: the segments cover %d of %d blocks and %"
            PDS_SIZE_FMT " of %" PDS_SIZE_FMT " cells", (int)b, (int)L->nblocks, r, P->ncells);
  PDS_CHECK(L->hcolor[0] == 0 && L->hcolor[L->ncolors] == L->nsegs, ctx, PDS_ERR_ARG,
            "relax layout: the colours cover segments %d .. %d of %d", (int)L->hcolor[0], (int)L->hcolor[L->ncolors],
            L->nsegs);
  for (int c = 0; c < L->ncolors; c++)
    PDS_CHECK(L->hcolor[c + 1] >= L->hcolor[c], ctx, PDS_ERR_ARG, "relax layout: colour %d has a negative count", c);
  return PDS_OK;
}

/* segment S cut into work items of up to `reuse` blocks, appended to h at *n */
static void seg_items(const struct pds_relax_seg *S, int reuse, int2 *h, pds_int *n) {
  for (pds_int b = S->b0; b < S->b1; b += reuse) {
    h[*n].x = (int)b, h[*n].y = (int)(S->b1 - b < reuse ? S->b1 - b : reuse);
    (*n)++;
  }
}

/* The groups, cuBLAS's segments and the work items (host, then the items on the device): mapc's items colour by
   colour (every segment), then gemm's items of small segments colour by colour; the all-blocks group takes each
   list whole (the colours' blocks follow each other). */
static int plan_groups(pds_ctx ctx, struct cuda_be *be, const struct pds_relax_layout *L, struct relax_plan *R) {
  const int C = L->ncolors;
  int2     *h = NULL;
  int       ierr = PDS_OK, nb = 0;
  pds_int   n = 0;

  R->grp    = calloc((size_t)C + 1, sizeof *R->grp);
  R->bigseg = malloc(2 * (size_t)L->nsegs * sizeof *R->bigseg);
  h         = malloc((2 * (size_t)L->nblocks + 1) * sizeof *h);
  if (!R->grp || !R->bigseg || !h) {
    ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "relax: no host memory for the plan of %d blocks", (int)L->nblocks);
    goto done;
  }
  for (int c = 0; c < C; c++) { /* mapc's items */
    struct relax_group *G = &R->grp[c];

    G->s0 = L->hcolor[c], G->s1 = L->hcolor[c + 1], G->mi0 = n;
    if (G->s1 > G->s0) G->b0 = L->hseg[G->s0].b0, G->b1 = L->hseg[G->s1 - 1].b1;
    for (int s = G->s0; s < G->s1; s++) seg_items(&L->hseg[s], R->reuse, h, &n);
    G->mi1 = n;
  }
  R->grp[C].s0 = 0, R->grp[C].s1 = L->nsegs, R->grp[C].b0 = 0, R->grp[C].b1 = L->nblocks;
  R->grp[C].mi0 = 0, R->grp[C].mi1 = n, R->grp[C].si0 = n, R->nsmall = 0;
  for (int c = 0; c < C; c++) { /* cuBLAS's segments and the small segments' items */
    struct relax_group *G = &R->grp[c];

    G->big0 = nb, G->si0 = n;
    for (int s = G->s0; s < G->s1; s++) {
      const struct pds_relax_seg *S = &L->hseg[s];

      if (S->b1 - S->b0 >= R->gemm_min || (R->nside && L->htype[S->type].m >= RELAX_ALLGEMM_M)) R->bigseg[nb++] = s;
      else seg_items(S, R->reuse, h, &n), R->nsmall += S->b1 - S->b0;
    }
    G->big1 = nb, G->si1 = n;
  }
  R->grp[C].big0 = nb;
  for (int k = 0; k < R->grp[C].big0; k++) R->bigseg[nb++] = R->bigseg[k];
  R->grp[C].big1 = nb, R->grp[C].si1 = n;
  R->nbig = R->grp[C].big1 - R->grp[C].big0, R->nitems = n;
  if ((ierr = pds_cuda_dev_alloc(ctx, be, ((size_t)n + 1) * sizeof *h, (void **)&R->items))) goto done;
  if (n) {
    cudaError_t e = cudaMemcpyAsync(R->items, h, (size_t)n * sizeof *h, cudaMemcpyHostToDevice, be->stream);

    if (e == cudaSuccess) e = cudaStreamSynchronize(be->stream); /* h goes below */
    if (e != cudaSuccess) ierr = pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "upload of relax's work items");
  }
done:
  free(h);
  return ierr;
}

/* cuBLAS: a handle bound to the context's stream, a fixed workspace (a graph capture cannot let cuBLAS allocate its
   own), atomics off (deterministic) */
static int plan_blas(pds_ctx ctx, struct cuda_be *be, struct relax_plan *R) {
  int major = 0;

  PDS_CUDA_CALL(ctx, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, be->device));
  R->ws_bytes = (size_t)(major >= 9 ? 32 : 4) << 20; /* NVIDIA's recommendation: 32 MiB on Hopper, 4 MiB before */
  PDS_CALL(pds_cuda_dev_alloc(ctx, be, R->ws_bytes, &R->ws));
  BLAS_CALL(ctx, "cublasCreate", R->cb->create(&R->blas));
  /* cublasSetStream resets the workspace to cuBLAS's own pool: the stream first, then the workspace */
  BLAS_CALL(ctx, "cublasSetStream", R->cb->set_stream(R->blas, be->stream));
  BLAS_CALL(ctx, "cublasSetWorkspace", R->cb->set_workspace(R->blas, R->ws, R->ws_bytes));
  BLAS_CALL(ctx, "cublasSetAtomicsMode", R->cb->set_atomics_mode(R->blas, CUBLAS_ATOMICS_NOT_ALLOWED));
  BLAS_CALL(ctx, "cublasSetPointerMode", R->cb->set_pointer_mode(R->blas, CUBLAS_POINTER_MODE_HOST));
  R->blas_stream = be->stream;
  /* the side streams (R->nside, plan_create): DGEMMs of one colour run side by side (gemm_products); each its own
     handle and workspace */
  if (R->nside) PDS_CUDA_CALL(ctx, cudaEventCreateWithFlags(&R->fork, cudaEventDisableTiming));
  for (int j = 0; j < R->nside; j++) {
    PDS_CUDA_CALL(ctx, cudaStreamCreateWithFlags(&R->sstream[j], cudaStreamNonBlocking));
    PDS_CUDA_CALL(ctx, cudaEventCreateWithFlags(&R->join[j], cudaEventDisableTiming));
    PDS_CALL(pds_cuda_dev_alloc(ctx, be, R->ws_bytes, &R->sws[j]));
    BLAS_CALL(ctx, "cublasCreate", R->cb->create(&R->sblas[j]));
    BLAS_CALL(ctx, "cublasSetStream", R->cb->set_stream(R->sblas[j], R->sstream[j]));
    BLAS_CALL(ctx, "cublasSetWorkspace", R->cb->set_workspace(R->sblas[j], R->sws[j], R->ws_bytes));
    BLAS_CALL(ctx, "cublasSetAtomicsMode", R->cb->set_atomics_mode(R->sblas[j], CUBLAS_ATOMICS_NOT_ALLOWED));
    BLAS_CALL(ctx, "cublasSetPointerMode", R->cb->set_pointer_mode(R->sblas[j], CUBLAS_POINTER_MODE_HOST));
  }
  return PDS_OK;
}

static int relax_plan_create_cuda(pds_ctx ctx, const struct pds_patches *P, const struct pds_relax_layout *L,
                                  const char *variant, void **plan) {
  struct cuda_be    *be = pds_cuda_enter(ctx);
  struct relax_plan *R;
  int                asked = -1, ierr;

  *plan = NULL;
  for (int v = 0; v < V_COUNT; v++)
    if (variant && !strcmp(variant, variant_names[v])) asked = v;
  PDS_CHECK(asked >= 0, ctx, PDS_ERR_ARG, "relax: unknown variant '%s' on /gpu/cuda (known: auto, gemm, mapc)",
            variant ? variant : "(null)");
  PDS_CHECK(P && L, ctx, PDS_ERR_ARG, "relax: plan_create needs the patch set and the layout");
  PDS_CALL(layout_check(ctx, P, L));
  R = calloc(1, sizeof *R);
  PDS_CHECK(R, ctx, PDS_ERR_MEM, "relax: no host memory for the plan");
  R->asked = asked, R->ncolors = L->ncolors, R->nsegs = L->nsegs, R->nblocks = L->nblocks, R->ncells = P->ncells;
  R->last_method = -1;
  for (int t = 0; t < L->ntypes; t++)
    if (L->htype[t].m > R->mmax) R->mmax = L->htype[t].m;
  R->variant = asked != V_AUTO ? asked : R->mmax >= RELAX_AUTO_M ? V_GEMM : V_MAPC;
  /* gemm needs cuBLAS, loaded now (cuda_cublas.h): asked for by name, its absence is the error; auto takes mapc */
  if (R->variant == V_GEMM && (ierr = pds_cublas_get(ctx, asked == V_GEMM, &R->cb))) {
    if (asked == V_GEMM) goto fail;
    R->variant = V_MAPC, R->no_cublas = 1;
  }
  R->stride  = R->mmax;
  R->pack    = env_int("PDS_CUDA_RELAX_PACK", 1) == 0 || R->mmax >= RELAX_CTA ? 1 : RELAX_CTA / R->mmax;
  R->reuse   = env_int("PDS_CUDA_RELAX_REUSE", R->mmax >= RELAX_REUSE_M ? 8 : 1);
  if (R->reuse != 1 && R->reuse != 4 && R->reuse != 8) R->reuse = 1;
  R->cpt     = env_int("PDS_CUDA_RELAX_CPT", R->mmax >= RELAX_CPT_M ? 2 : 1);
  if (R->cpt != 1 && R->cpt != 2 && R->cpt != 4) R->cpt = 1;
  R->pstride = (R->mmax + R->cpt - 1) / R->cpt;
  R->ppack   = env_int("PDS_CUDA_RELAX_PACK", 1) == 0 || R->pstride >= RELAX_CTA ? 1 : RELAX_CTA / R->pstride;
  R->nside = env_int("PDS_CUDA_RELAX_SIDE", RELAX_NSIDE);
  if (R->nside < 0 || R->nside > RELAX_NSIDE) R->nside = RELAX_NSIDE;
  R->gemm_min = env_int("PDS_CUDA_RELAX_GEMM_MIN", RELAX_GEMM_MIN);
  if (R->gemm_min < 1) R->gemm_min = 1;
  if ((ierr = plan_groups(ctx, be, L, R))) goto fail;
  if (R->variant == V_GEMM && (ierr = plan_blas(ctx, be, R))) goto fail;
  *plan = R;
  return PDS_OK;
fail:
  plan_free(ctx, R);
  return ierr;
}

static void relax_plan_destroy_cuda(pds_ctx ctx, void *plan) { plan_free(ctx, plan); }

static int relax_plan_describe_cuda(pds_ctx ctx, void *plan, char *buf, size_t len) {
  const struct relax_plan *R = plan;
  const char              *a = !R || R->asked != V_AUTO ? "" : R->no_cublas ? " (auto: no cuBLAS for gemm)" : " (auto)";

  PDS_CHECK(R && buf && len > 0, ctx, PDS_ERR_ARG, "relax: plan_describe needs a plan and a buffer");
  if (R->variant == V_MAPC)
    snprintf(buf, len, "%s: mapc%s: a thread per block cell, %d x %d blocks per thread block (%d per inverse read), "
             "residual in shared memory, A_b^-1 r_b, update", ctx->backend, a, R->pack, R->reuse, R->reuse);
  else if (R->last_method == PDS_RELAX_CHAOTIC)
    snprintf(buf, len, "%s: gemm%s running mapc: chaotic block Gauss-Seidel is not a Jacobi-type scheme as gemm is",
             ctx->backend, a);
  else
    snprintf(buf, len, "%s: gemm%s: residual pass (%d cells per thread), cuBLAS DGEMM on %d segments of >= %d "
             "blocks (on %d streams), block products on %d blocks, update pass; chaotic runs mapc", ctx->backend, a,
             R->cpt, R->nbig, R->gemm_min, R->nside + 1, (int)R->nsmall);
  return PDS_OK;
}

/* mapc over group G (reuse 1: its block range, else its work items) */
static int mapc_group(pds_ctx ctx, struct cuda_be *be, const struct relax_plan *R, const struct pds_patches *P,
                      const struct pds_relax_layout *L, const struct relax_group *G, int inplace, int zero,
                      pds_real omega, const pds_real *f, pds_real *u, pds_real *E) {
  const pds_int i0 = R->reuse == 1 ? G->b0 : G->mi0, i1 = R->reuse == 1 ? G->b1 : G->mi1;

  PDS_CUDA_CALL(ctx, pds_cuda_relax_mapc(be->stream, P, L, inplace, R->reuse == 1 ? NULL : R->items, i0, i1,
                                         R->stride, R->pack, R->reuse, zero, omega, f, u, E));
  return PDS_OK;
}

/* gemm: E = A^-1 R over group G: its big segments by cuBLAS, its small ones by the block-product kernel. With side
   streams and two or more big segments, segment k goes to the context's stream (k = 0) or to side stream
   (k - 1) mod nside, forked from and joined back into the context's stream by events (a graph capture follows the
   fork: the side streams join it): each DGEMM writes its own columns of E with its own workspace, so the bits do not
   depend on how they overlap. */
static int gemm_products(pds_ctx ctx, struct cuda_be *be, struct relax_plan *R, const struct pds_relax_layout *L,
                         const struct relax_group *G, const pds_real *Rw, pds_real *Ew) {
  static const double one = 1.0, zero = 0.0;
  const int           nbig = G->big1 - G->big0, use = nbig >= 2 ? (R->nside < nbig - 1 ? R->nside : nbig - 1) : 0;

  if (use) {
    PDS_CUDA_CALL(ctx, cudaEventRecord(R->fork, be->stream));
    for (int j = 0; j < use; j++) PDS_CUDA_CALL(ctx, cudaStreamWaitEvent(R->sstream[j], R->fork, 0));
  }
  for (int k = G->big0; k < G->big1; k++) {
    const struct pds_relax_seg  *S = &L->hseg[R->bigseg[k]];
    const struct pds_relax_btype *T = &L->htype[S->type];
    const int                    idx = k - G->big0;
    cublasHandle_t               h = idx == 0 || !use ? R->blas : R->sblas[(idx - 1) % use];

    BLAS_CALL(ctx, "cublasDgemm (E = A_t^-1 R of a segment)",
              R->cb->dgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, T->m, S->b1 - S->b0, T->m, &one, L->inv + T->off, T->m,
                          Rw + S->r, T->m, &zero, Ew + S->r, T->m));
  }
  PDS_CUDA_CALL(ctx, pds_cuda_relax_blockprod(be->stream, L, R->items, G->si0, G->si1, R->stride, R->pack, R->reuse,
                                              Rw, Ew));
  for (int j = 0; j < use; j++) {
    PDS_CUDA_CALL(ctx, cudaEventRecord(R->join[j], R->sstream[j]));
    PDS_CUDA_CALL(ctx, cudaStreamWaitEvent(be->stream, R->join[j], 0));
  }
  return PDS_OK;
}

/* one gemm step over group G: residuals, products, update (zero: u is 0 on entry) */
static int gemm_group(pds_ctx ctx, struct cuda_be *be, struct relax_plan *R, const struct pds_patches *P,
                      const struct pds_relax_layout *L, const struct relax_group *G, int zero, pds_real omega,
                      const pds_real *f, pds_real *u, pds_real *Rw, pds_real *Ew) {
  if (G->s1 <= G->s0) return PDS_OK;
  PDS_CUDA_CALL(ctx, pds_cuda_relax_residual(be->stream, P, L, G->b0, G->b1, R->pstride, R->ppack, R->cpt, zero, f, u,
                                             Rw));
  PDS_CALL(gemm_products(ctx, be, R, L, G, Rw, Ew));
  PDS_CUDA_CALL(ctx, pds_cuda_relax_update(be->stream, P, L, G->b0, G->b1, R->pstride, R->ppack, R->cpt, zero, omega,
                                               Ew, u));
  return PDS_OK;
}

static int relax_smooth_cuda(pds_ctx ctx, void *plan, const struct pds_patches *P, const struct pds_relax_layout *L,
                             int method, int symmetric, pds_real omega, int sweeps, int zero, const pds_real *f,
                             pds_real *u, pds_real *work) {
  struct cuda_be     *be = pds_cuda_enter(ctx);
  struct relax_plan  *R  = plan;
  const int           C  = L ? L->ncolors : 0;
  pds_real           *Rw, *Ew;
  int                 mapc;

  PDS_CHECK(R, ctx, PDS_ERR_STATE, "relax: smooth without a plan (plan_create first)");
  PDS_CHECK(P && L && f && u && work, ctx, PDS_ERR_ARG, "relax: smooth needs the patch set, the layout, f, u and work");
  PDS_CHECK(method == PDS_RELAX_JACOBI || method == PDS_RELAX_MULTICOLOR || method == PDS_RELAX_CHAOTIC, ctx,
            PDS_ERR_ARG, "relax: unknown method %d (jacobi %d, multicolor %d, chaotic %d)", method, PDS_RELAX_JACOBI,
            PDS_RELAX_MULTICOLOR, PDS_RELAX_CHAOTIC);
  PDS_CHECK(L->ncolors == R->ncolors && L->nsegs == R->nsegs && L->nblocks == R->nblocks && P->ncells == R->ncells,
            ctx, PDS_ERR_ARG, "relax: the layout (%d colours, %d segments, %d blocks) is not the plan's (%d, %d, %d)",
            L->ncolors, L->nsegs, (int)L->nblocks, R->ncolors, R->nsegs, (int)R->nblocks);
  PDS_CHECK(sweeps >= 0, ctx, PDS_ERR_ARG, "relax: %d sweeps", sweeps);
  R->last_method = method;
  Rw = work, Ew = work + P->ncells;
  mapc = R->variant == V_MAPC || method == PDS_RELAX_CHAOTIC;
  if (!mapc && R->blas_stream != be->stream) { /* (the context's stream does not change; rebind if it ever does) */
    BLAS_CALL(ctx, "cublasSetStream", R->cb->set_stream(R->blas, be->stream));
    BLAS_CALL(ctx, "cublasSetWorkspace", R->cb->set_workspace(R->blas, R->ws, R->ws_bytes));
    R->blas_stream = be->stream;
  }
  /* zero: u holds zeros (relax_kernels.h's contract; relax.c sets them): jacobi's first sweep neither reads u nor
     its neighbours, multicolor's first colour takes f as its residual, later colours and chaotic read the zeros */
  for (int sw = 0; sw < sweeps; sw++) {
    const int z = zero && sw == 0;

    if (method == PDS_RELAX_JACOBI) {
      if (mapc) { /* E in cell order, then u += omega E (u not read when z) */
        PDS_CALL(mapc_group(ctx, be, R, P, L, &R->grp[C], 0, z, omega, f, u, Ew));
        PDS_CUDA_CALL(ctx, pds_cuda_relax_update_cells(be->stream, P->ncells, z, omega, Ew, u));
      } else PDS_CALL(gemm_group(ctx, be, R, P, L, &R->grp[C], z, omega, f, u, Rw, Ew));
    } else if (method == PDS_RELAX_CHAOTIC) { /* every block at once, in place */
      PDS_CALL(mapc_group(ctx, be, R, P, L, &R->grp[C], 1, 0, omega, f, u, NULL));
    } else { /* multicolor: 0 .. C - 1, then C - 1 .. 0 when symmetric; colour by colour in place */
      const int steps = symmetric ? 2 * C : C;

      for (int t = 0; t < steps; t++) {
        const struct relax_group *G  = &R->grp[t < C ? t : 2 * C - 1 - t];
        const int                 zc = z && t == 0; /* the first colour of a zero start: its residual is f */

        if (mapc) PDS_CALL(mapc_group(ctx, be, R, P, L, G, 1, zc, omega, f, u, NULL));
        else PDS_CALL(gemm_group(ctx, be, R, P, L, G, zc, omega, f, u, Rw, Ew));
      }
    }
  }
  return PDS_OK;
}

void pds_cuda_fill_relax(struct pds_relax_kernels *g) {
  g->plan_create   = relax_plan_create_cuda;
  g->plan_destroy  = relax_plan_destroy_cuda;
  g->plan_describe = relax_plan_describe_cuda;
  g->smooth        = relax_smooth_cuda;
  g->smooth_host   = pds_cuda_relax_smooth_host;
}
