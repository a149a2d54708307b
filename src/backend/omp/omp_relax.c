/* src/backend/omp/omp_relax.c: /cpu/omp's block-relaxation group (src/precond/relax_kernels.h), with ref's per-block
 * bodies (src/backend/relax_bodies.h), so jacobi and multicolor give /cpu/ref's bits for any thread count and any
 * variant. Three ways to share a sweep among the threads (paper 002 Fig. 5, pds_precond_relax_set_variant):
 *   "patch":  the patches in parallel (dynamic schedule, one patch at a time), each thread running a patch's
 *             blocks in layout order;
 *   "block":  the blocks in parallel: each colour's layout range cut into one contiguous part per thread, balanced by
 *             the blocks' work (m^2 + 16 m for m cells);
 *   "nested": two levels: the threads in p groups of q, the groups over the patches (round robin), the q threads
 *             of a group over each of its patches' blocks (p the largest divisor of the threads with p^2 <= threads
 *             and p <= patches: paper 002's 4 x 6 on 24 cores). One team, no nested OpenMP regions: the paper's
 *             inner parallel region per patch cost up to 1.5 ms each here while other jobs shared the 2 vCPUs,
 *             more than a patch's sweep; the groups need no barrier of their own;
 *   "auto":   "block": measured on the 2-vCPU EPYC (Zen 4; best of several runs, machine otherwise idle), jacobi
 *             sweeps, Mcells/s for patch / block / nested: one 64^3 patch 17 / 32 / 32 (8^3 blocks) and 112 / 235 /
 *             236 (4^3); 8 patches of 32^3 27 / 29 / 24 (8^3) and 214 / 215 / 210 (4^3); 27 of 32^3 with 4^3 blocks
 *             186 / 197 / 187, multicolor 91 / 96 / 92, chaotic 110 / 111 / 113; 64 of 16^3 196 / 207 / 195. "block"
 *             is the best or within 3% everywhere; "patch" leaves threads idle when there are few patches. With at
 *             least 4 patches a thread, "patch" is taken: on the 16-core Xeon host of an H200 (bench_relax, 64 and 96
 *             patches of 64^3, 16 threads) patch / block / nested gave 0.81 / 0.60 / 0.53 Gcells/s (4^3 blocks) and
 *             0.21-0.25 / 0.17-0.18 / 0.17-0.18 (8^3).
 * Within a thread's share, consecutive blocks of one type (consecutive in the work arrays) are multiplied as a group
 * (up to 4096 cells, whole tiles of 8 blocks: R and E 32 KiB each) by a tiled dense product on the inverses packed
 * in 4-row panels (the plan's copy, rb_pack), each panel read once per group and kept in L1; with AVX2 (checked at
 * run time; PDS_OMP_AVX2=0 keeps SSE2) in 4-lane registers, 4 rows x 8 blocks a tile. The sums per entry are
 * ref's. Jacobi: every residual, a barrier, every product and update; multicolor: per colour, residual, product
 * and update of each group, a barrier; chaotic: block by block in place with no barrier, neighbours read while
 * other threads write them (8-byte aligned loads and stores: each value read is an old or a new one; the result
 * depends on the timing, as the method's name says).
 * Models per cell and sweep as in ref_relax.c: 13 + 2 m + 2 flops, 56 to 72 bytes from memory; the inverses from
 * cache, 8 m / g bytes per cell for groups of g blocks (chaotic: g = 1). Measured on the 2-vCPU EPYC (one 64^3
 * patch, jacobi, variant block): 8^3 blocks 16.4 Mcells/s on one thread, 31.7 on two (32 GFlop/s in the
 * products; SSE2: 24.5); 4^3 blocks 117 and 235 Mcells/s (ref: 9.9 and 72). */
#include <stdlib.h>
#include <string.h>

#include "../relax_bodies.h"
#include "omp_impl.h"

enum { V_PATCH = 0, V_BLOCK = 1, V_NESTED = 2 };
static const char *const vnames[] = {"patch", "block", "nested"};

/* phases of a sweep over a set of blocks */
enum { PH_RES, PH_PU, PH_ALL, PH_CHAOS };

#define RELAX_GROUP_CELLS 4096   /* the most cells of a group multiplied together (R and E: 32 KiB each) */
#define RELAX_OMP_MIN_WORK 65536 /* below this much work a sweep runs on the calling thread (sum of m^2 + 16 m) */

struct omp_relax_plan {
  int       variant, is_auto, np, ncolors;
  pds_int  *pcol; /* [np (ncolors + 1)]: patch q's blocks of colour c are hpblk[pcol[q (nc + 1) + c] .. (c + 1)) */
  pds_size *cost; /* [nblocks + 1]: prefix sums of the blocks' work, layout order */
  pds_real *pack; /* [ninv]: each type's inverse in 4-row panels (rb_pack), at the type's offset */
  int       avx2; /* the products run rb_gemm_v4 compiled for AVX2 (the CPU has it), else rb_gemm (SSE2) */
};

typedef void (*gemm_fn)(pds_int m, const pds_real *A, const pds_real *Ap, const pds_real *R, pds_real *E, pds_int nb);
static void gemm_base(pds_int m, const pds_real *A, const pds_real *Ap, const pds_real *R, pds_real *E, pds_int nb) {
  rb_gemm(m, A, Ap, R, E, nb);
}
#if RB_HAVE_V4
/* the same products with 4-lane registers: measured on the 2-core EPYC (Zen 4), 512 x 512 inverse times 4 to 16
   blocks, 12-18 GFlop/s against 6-12 for the SSE2 tiles (one core, shared machine) */
__attribute__((target("avx2"))) static void gemm_avx2(pds_int m, const pds_real *A, const pds_real *Ap,
                                                      const pds_real *R, pds_real *E, pds_int nb) {
  rb_gemm_v4(m, A, Ap, R, E, nb);
}
static int have_avx2(void) { /* PDS_OMP_AVX2=0 in the environment keeps SSE2 (the tests run both) */
  const char *e = getenv("PDS_OMP_AVX2");

  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && !(e && !strcmp(e, "0"));
}
#else
static int have_avx2(void) { return 0; }
#endif

static void relax_plan_destroy_omp(pds_ctx ctx, void *plan) {
  struct omp_relax_plan *pl = plan;

  if (!pl) return;
  pds_free(ctx, PDS_MEM_HOST, &pl->pcol), pds_free(ctx, PDS_MEM_HOST, &pl->cost);
  pds_free(ctx, PDS_MEM_HOST, &pl->pack);
  pds_free(ctx, PDS_MEM_HOST, &pl);
}

/* the threads over the patches of the nested variant: the largest divisor p of nt with p^2 <= nt and p <= np */
static int nested_outer(int nt, int np) {
  int p = 1;

  for (int d = 1; d * d <= nt && d <= np; d++)
    if (nt % d == 0) p = d;
  return p;
}

static int relax_plan_create_omp(pds_ctx ctx, const struct pds_patches *P, const struct pds_relax_layout *L,
                                 const char *variant, void **plan) {
  struct omp_relax_plan *pl = NULL;
  int                    v  = -1, ierr;
  const int              nc = L->ncolors;

  for (int i = 0; i < 3; i++)
    if (variant && !strcmp(variant, vnames[i])) v = i;
  PDS_CHECK(v >= 0 || (variant && !strcmp(variant, "auto")), ctx, PDS_ERR_ARG,
            "relax variant '%s': %s knows auto, patch, block and nested", variant ? variant : "(null)", ctx->backend);
  PDS_CALL(PDS_NEW(ctx, 1, &pl));
  pl->is_auto = v < 0;
  /* auto: patches when every thread gets at least 4 (the 16-core Xeon of the H200 host, 64 and 96 patches of 64^3:
     patch 1.2-1.5x block), else blocks (few patches leave threads idle) */
  pl->variant = v >= 0 ? v : P->np >= 4 * omp_get_max_threads() ? V_PATCH : V_BLOCK;
  pl->np = P->np, pl->ncolors = nc;
  pl->avx2 = have_avx2();
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)P->np * (nc + 1) + 1, &pl->pcol));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)L->nblocks + 1, &pl->cost));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)L->ninv * sizeof(pds_real) + 1, &pl->pack));
  for (pds_int t = 0; t < L->ntypes; t++) rb_pack(L->htype[t].m, L->inv + L->htype[t].off, pl->pack + L->htype[t].off);
  for (pds_int b = 0; b < L->nblocks; b++) {
    const pds_size m = L->htype[L->hblk[b].type].m;

    pl->cost[b + 1] = pl->cost[b] + m * m + 16 * m;
  }
  for (int q = 0; q < P->np; q++) { /* q's list is in layout order, so by colour */
    pds_int *pc = pl->pcol + (size_t)q * (nc + 1), e = L->hpfirst[q];

    for (int c = 0; c < nc; c++) {
      pds_int b0, b1;

      rb_color_blocks(L, c, &b0, &b1);
      while (e < L->hpfirst[q + 1] && L->hpblk[e] < b0) e++;
      pc[c] = e;
    }
    pc[nc] = L->hpfirst[q + 1];
  }
  *plan = pl;
  return PDS_OK;
fail:
  relax_plan_destroy_omp(ctx, pl);
  return ierr;
}

static int relax_plan_describe_omp(pds_ctx ctx, void *plan, char *buf, size_t len) {
  const struct omp_relax_plan *pl   = plan;
  const int                    nt   = omp_get_max_threads();
  const int                    ng   = nested_outer(nt, pl->np);
  const char                  *simd = pl->avx2 ? "AVX2" : "SSE2";

  if (pl->variant == V_NESTED)
    snprintf(buf, len, "%s: variant nested%s, %d groups over the patches x %d threads over a patch's blocks, %s "
             "products", ctx->backend, pl->is_auto ? " (auto)" : "", ng, nt / ng, simd);
  else
    snprintf(buf, len, "%s: variant %s%s, %d threads over the %s, %s products", ctx->backend, vnames[pl->variant],
             pl->is_auto ? " (auto)" : "", nt, pl->variant == V_PATCH ? "patches" : "blocks", simd);
  return PDS_OK;
}

struct sweep {
  const struct pds_patches      *P;
  const struct pds_relax_layout *L;
  const struct omp_relax_plan   *pl;
  gemm_fn                        gemm;
  pds_real                       omega;
  const pds_real                *f;
  pds_real                      *u, *R, *E;
};

/* one group: blocks b0 .. b0 + nb - 1 (consecutive, one type) */
static void run_group(const struct sweep *S, pds_int b0, pds_int nb, int phase, int zero) {
  const struct pds_relax_layout *L = S->L;
  const struct pds_relax_block  *B = &L->blk[b0];
  const struct pds_relax_btype   *T = &L->type[B->type];

  if (phase != PH_PU)
    for (pds_int b = 0; b < nb; b++) rb_residual(S->P, &B[b], T->b, S->f, S->u, zero, S->R + B[b].r);
  if (phase == PH_RES) return;
  S->gemm(T->m, L->inv + T->off, S->pl->pack + T->off, S->R + B->r, S->E + B->r, nb);
  for (pds_int b = 0; b < nb; b++) rb_update(S->P, &B[b], T->b, S->omega, S->E + B[b].r, S->u);
}

/* the blocks idx[a .. b) (layout numbers; idx NULL: a .. b - 1 themselves), runs of consecutive blocks of one type
   as groups (chaotic: one block at a time) */
static void run_list(const struct sweep *S, const pds_int *idx, pds_int a, pds_int b, int phase, int zero) {
  const struct pds_relax_layout *L = S->L;

  while (a < b) {
    const pds_int first = idx ? idx[a] : a, t = L->blk[first].type;
    const pds_int gcells = RELAX_GROUP_CELLS / L->type[t].m; /* whole tiles of 8 blocks where it can */
    const pds_int gmax   = phase == PH_CHAOS ? 1 : gcells >= 8 ? gcells & ~7 : gcells > 0 ? gcells : 1;
    pds_int       e     = a + 1;

    while (e < b && e - a < gmax && (idx ? idx[e] : e) == first + (e - a) && L->blk[first + (e - a)].type == t) e++;
    run_group(S, first, e - a, phase == PH_CHAOS ? PH_ALL : phase, zero);
    a = e;
  }
}

/* the first block of [b0, b1) at which the work prefix reaches target */
static pds_int cost_at(const pds_size *cost, pds_int b0, pds_int b1, pds_size target) {
  while (b0 < b1) {
    const pds_int mid = b0 + (b1 - b0) / 2;

    if (cost[mid] < target) b0 = mid + 1;
    else b1 = mid;
  }
  return b0;
}

/* thread t of nt: its part of the blocks [b0, b1), balanced by work */
static void cost_range(const pds_size *cost, pds_int b0, pds_int b1, int t, int nt, pds_int *lo, pds_int *hi) {
  const pds_size w = cost[b1] - cost[b0];

  *lo = t == 0 ? b0 : cost_at(cost, b0, b1, cost[b0] + (pds_size)((double)w * t / nt));
  *hi = t == nt - 1 ? b1 : cost_at(cost, b0, b1, cost[b0] + (pds_size)((double)w * (t + 1) / nt));
}

/* one phase over the blocks of colour c, by every thread of the enclosing region; ends with a barrier */
static void run_phase(const struct sweep *S, int c, int phase, int zero) {
  const struct omp_relax_plan   *pl = S->pl;
  const struct pds_relax_layout *L  = S->L;
  const int                      nc = pl->ncolors;

  if (pl->variant == V_BLOCK) {
    pds_int b0, b1, lo, hi;

    rb_color_blocks(L, c, &b0, &b1);
    cost_range(pl->cost, b0, b1, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
    run_list(S, NULL, lo, hi, phase, zero);
#pragma omp barrier
  } else if (pl->variant == V_PATCH) {
#pragma omp for schedule(dynamic, 1)
    for (int q = 0; q < pl->np; q++) {
      const pds_int *pc = pl->pcol + (size_t)q * (nc + 1);

      run_list(S, L->hpblk, pc[c], pc[c + 1], phase, zero);
    }
  } else { /* nested: group g = t / inner takes patches g, g + groups, ...; its member t % inner a part of each */
    const int nt = omp_get_num_threads(), ng = nested_outer(nt, pl->np), inner = nt / ng;
    const int t = omp_get_thread_num(), g = t / inner, rank = t % inner; /* g = ng: a thread left over */

    for (int q = g; g < ng && q < pl->np; q += ng) {
      const pds_int *pc = pl->pcol + (size_t)q * (nc + 1);
      pds_size       i0, i1;

      static_range(pc[c + 1] - pc[c], rank, inner, &i0, &i1);
      run_list(S, L->hpblk, pc[c] + (pds_int)i0, pc[c] + (pds_int)i1, phase, zero);
    }
#pragma omp barrier
  }
}

static int relax_smooth_omp(pds_ctx ctx, void *plan, const struct pds_patches *P, const struct pds_relax_layout *L,
                            int method, int symmetric, pds_real omega, int sweeps, int zero, const pds_real *f,
                            pds_real *u, pds_real *work) {
  const struct omp_relax_plan *pl    = plan;
  const int                    nt    = omp_get_max_threads();
  const int                    par   = pl->cost[L->nblocks] >= RELAX_OMP_MIN_WORK && nt > 1;
#if RB_HAVE_V4
  const gemm_fn gemm = pl->avx2 ? gemm_avx2 : gemm_base;
#else
  const gemm_fn gemm = gemm_base;
#endif
  const struct sweep S = {P, L, pl, gemm, omega, f, u, work, work + P->ncells};

  (void)ctx;
#pragma omp parallel num_threads(par ? nt : 1)
  for (int s = 0; s < sweeps; s++) {
    const int z = zero && s == 0;

    if (method == PDS_RELAX_JACOBI) {
      run_phase(&S, 0, PH_RES, z);
      run_phase(&S, 0, PH_PU, 0);
    } else if (method == PDS_RELAX_MULTICOLOR) {
      const int nsteps = symmetric ? 2 * L->ncolors : L->ncolors;

      for (int t = 0; t < nsteps; t++) run_phase(&S, rb_color_step(L->ncolors, t), PH_ALL, z && t == 0);
    } else
      run_phase(&S, 0, PH_CHAOS, 0);
  }
  return PDS_OK;
}

void pds_omp_fill_relax(struct pds_relax_kernels *g) {
  g->plan_create   = relax_plan_create_omp;
  g->plan_destroy  = relax_plan_destroy_omp;
  g->plan_describe = relax_plan_describe_omp;
  g->smooth        = relax_smooth_omp;
}
