/* src/precond/gmg.c: geometric multigrid on a patch hierarchy (issue 12; paper 002's smoothers are for it). Level 0 is
 * the operator (a patches matrix); level l + 1 is level l with every patch coarsened by 2 (pds_mat_patches_coarsen:
 * the stencil rediscretized, 4 times the operator of width 2h). A cycle on level l solving A_l u = f:
 *   u = S_pre(f, u)                   relax sweeps (pds_precond_relax_smooth; from u = 0: the relax application)
 *   r = f - A_l u                     patches.residual
 *   f_(l+1) = 1/2 sum_8 r             patches.restrict_sum: 4 times the average of the 8 children (the h^2 scaling)
 *   u_(l+1) = cycle(l + 1) from 0     V: once; W: twice; F: an F-cycle, then a V-cycle from its result
 *   u += P u_(l+1)                    patches.prolong: piecewise constant or trilinear
 *   u = S_post(f, u)
 * and on the coarsest level u = A_L^-1 f, by a dense inverse (made on the host with pds_block_invert from the
 * level's CSR, applied by blocks.apply as one block of the level's size) or by CG with Jacobi to rtol 1e-10. As a
 * preconditioner y = M^-1 x is one cycle on level 0 from y = 0.
 * Symmetry, and the default prolongation: with constant prolongation the restriction is P^T / 2, so with a symmetric
 * smoother (jacobi, symmetric multicolor) and as many post as pre sweeps the V- and W-cycles are symmetric, what CG
 * needs. Trilinear prolongation with the same restriction is not (x^T M^-1 y against y^T M^-1 x on random vectors,
 * 32^3: 1.6e-3 apart relatively with the default smoother, 4e-2 with 2^3 block Jacobi and one sweep each side). The
 * default is constant: CG took 4 iterations with it and 5 with trilinear to rtol 1e-8 on 16^3 .. 256^3 cells (default
 * smoother), and with 2^3 block Jacobi, 1 + 1 sweeps, CG + trilinear did not converge in 100 iterations on 16^3 ..
 * 64^3 where CG + constant took 13-16. As a solver (Richardson) trilinear is the stronger cycle with weak smoothers
 * (19 iterations flat against constant's 33, 51, over 100 on 16^3, 32^3, 64^3); with the default smoother both take
 * 5-7. */
#include <math.h>

#include "../mat/patches_kernels.h"
#include "precond_impl.h"

#define GMG_MAX_LEVELS 32    /* halving a 32-bit size: at most 31 coarsenings */
#define GMG_MAX_DIRECT 8192  /* the dense inverse holds 8 n^2 bytes: 512 MiB at this size */
#define GMG_MAX_SWEEPS 100
#define GMG_CG_RTOL    1e-10 /* the coarse CG's tolerance */

enum { CYCLE_V = 0, CYCLE_W = 1, CYCLE_F = 2 };
static const char *const cycle_names[] = {"v", "w", "f"};

struct gmg_level {
  pds_mat     A;        /* level 0: the operator (one more reference) */
  pds_precond smoother; /* relax; NULL on the coarsest level */
  pds_vec     f, u;     /* NULL on level 0 (the caller's x and y) */
  pds_vec     r;        /* NULL on the coarsest level */
};

struct gmg {
  /* options */
  int            cycle, max_levels, trilinear, coarse_cg;
  pds_relax_type stype;
  int            bx, by, bz, pre, post;
  pds_real       omega;
  pds_int        max_direct;
  /* the hierarchy (setup) */
  int              nlevels;
  struct gmg_level lev[GMG_MAX_LEVELS];
  const char      *stop;  /* why coarsening stopped (view) */
  pds_real        *inv;   /* direct: the coarsest level's inverse, row-major, backend memory */
  pds_int          ninv;
  pds_solver       cg;    /* cg: the coarse solver and its preconditioner */
  pds_precond      cgpc;
};

static int gmg_of(pds_precond pc, struct gmg **G) { return pds_precond_data(pc, "gmg", (void **)G); }

int pds_precond_gmg_set_cycle(pds_precond pc, const char *cycle) {
  struct gmg *G = NULL;

  PDS_CALL(gmg_of(pc, &G));
  for (int c = 0; c < 3; c++)
    if (cycle && !strcmp(cycle, cycle_names[c])) {
      G->cycle = c; /* the hierarchy stays */
      return PDS_OK;
    }
  return PDS_ERROR(pc->hdr.ctx, PDS_ERR_ARG, "gmg cycle '%s': v, w or f", cycle ? cycle : "(null)");
}

int pds_precond_gmg_set_levels(pds_precond pc, int max_levels) {
  struct gmg *G = NULL;

  PDS_CALL(gmg_of(pc, &G));
  PDS_CHECK(max_levels >= 0, pc->hdr.ctx, PDS_ERR_ARG, "gmg: %d levels; at least 1 (0: as many as possible)",
            max_levels);
  if (G->max_levels != max_levels) pc->setup_done = 0;
  G->max_levels = max_levels;
  return PDS_OK;
}

int pds_precond_gmg_set_smoother(pds_precond pc, pds_relax_type type, int bx, int by, int bz, pds_real omega,
                                 int pre, int post) {
  struct gmg *G = NULL;

  PDS_CALL(gmg_of(pc, &G));
  PDS_CHECK(type == PDS_RELAX_JACOBI || type == PDS_RELAX_MULTICOLOR || type == PDS_RELAX_CHAOTIC, pc->hdr.ctx,
            PDS_ERR_ARG, "gmg smoother: relax type %d; PDS_RELAX_JACOBI, PDS_RELAX_MULTICOLOR or PDS_RELAX_CHAOTIC",
            (int)type);
  PDS_CHECK(bx >= 1 && bx <= 8 && by >= 1 && by <= 8 && bz >= 1 && bz <= 8, pc->hdr.ctx, PDS_ERR_ARG,
            "gmg smoother: block %d x %d x %d; 1 to 8 cells each way", bx, by, bz);
  PDS_CHECK(isfinite(omega) && omega >= 0 && omega < 2, pc->hdr.ctx, PDS_ERR_ARG,
            "gmg smoother: omega %g; 0 < omega < 2 (0: the relax type's default)", omega);
  PDS_CHECK(pre >= 0 && post >= 0 && pre <= GMG_MAX_SWEEPS && post <= GMG_MAX_SWEEPS, pc->hdr.ctx, PDS_ERR_ARG,
            "gmg smoother: %d pre and %d post sweeps; 0 to %d each", pre, post, GMG_MAX_SWEEPS);
  PDS_CHECK(pre + post > 0, pc->hdr.ctx, PDS_ERR_ARG, "gmg smoother: no sweeps at all; at least one pre or post sweep");
  if (G->stype != type || G->bx != bx || G->by != by || G->bz != bz || G->omega != omega || G->pre != pre)
    pc->setup_done = 0; /* the smoothers are set up again (pre: the relax application's sweeps) */
  G->stype = type, G->bx = bx, G->by = by, G->bz = bz, G->omega = omega, G->pre = pre, G->post = post;
  return PDS_OK;
}

int pds_precond_gmg_set_prolongation(pds_precond pc, const char *p) {
  struct gmg *G = NULL;

  PDS_CALL(gmg_of(pc, &G));
  PDS_CHECK(p && (!strcmp(p, "constant") || !strcmp(p, "trilinear")), pc->hdr.ctx, PDS_ERR_ARG,
            "gmg prolongation '%s': constant or trilinear", p ? p : "(null)");
  G->trilinear = !strcmp(p, "trilinear");
  return PDS_OK;
}

int pds_precond_gmg_set_coarse(pds_precond pc, const char *solver, pds_int max_direct) {
  struct gmg *G = NULL;
  int         cg;

  PDS_CALL(gmg_of(pc, &G));
  PDS_CHECK(solver && (!strcmp(solver, "direct") || !strcmp(solver, "cg")), pc->hdr.ctx, PDS_ERR_ARG,
            "gmg coarse solver '%s': direct or cg", solver ? solver : "(null)");
  PDS_CHECK(max_direct >= 1 && max_direct <= GMG_MAX_DIRECT, pc->hdr.ctx, PDS_ERR_ARG,
            "gmg: max_direct %" PDS_INT_FMT " cells; 1 to %d (the dense inverse holds 8 n^2 bytes)", max_direct,
            GMG_MAX_DIRECT);
  cg = !strcmp(solver, "cg");
  if (G->coarse_cg != cg || G->max_direct != max_direct) pc->setup_done = 0;
  G->coarse_cg = cg, G->max_direct = max_direct;
  return PDS_OK;
}

int pds_precond_gmg_get_levels(pds_precond pc, int *nlevels, pds_size *coarse_cells) {
  struct gmg *G = NULL;

  PDS_CALL(gmg_of(pc, &G));
  PDS_CHECK(pc->setup_done && G->nlevels > 0, pc->hdr.ctx, PDS_ERR_STATE,
            "gmg is not set up; call pds_precond_setup (or solve) first");
  if (nlevels) *nlevels = G->nlevels;
  if (coarse_cells) *coarse_cells = G->lev[G->nlevels - 1].A->nrows;
  return PDS_OK;
}

/* everything setup made; the options stay */
static void gmg_free(pds_ctx ctx, struct gmg *G) {
  for (int l = 0; l < G->nlevels; l++) {
    struct gmg_level *L = &G->lev[l];

    pds_precond_destroy(&L->smoother);
    pds_vec_destroy(&L->f), pds_vec_destroy(&L->u), pds_vec_destroy(&L->r);
    pds_mat_destroy(&L->A);
  }
  G->nlevels = 0, G->ninv = 0, G->stop = NULL;
  pds_free(ctx, PDS_MEM_DEVICE, &G->inv);
  pds_solver_destroy(&G->cg);
  pds_precond_destroy(&G->cgpc);
}

/* why A cannot be coarsened by 2 (NULL: it can): every patch's origin even and size even */
static const char *coarsen_obstacle(const struct pds_patches *P) {
  for (int q = 0; q < P->np; q++)
    for (int d = 0; d < 3; d++) {
      if (P->hgeom[q].n[d] % 2) return P->hgeom[q].n[d] == 1 ? "a patch is 1 cell wide" : "a patch size is odd";
      if (P->hgeom[q].lo[d] % 2) return "a patch origin is odd";
    }
  return NULL;
}

/* the dense inverse of the coarsest level from its CSR, made on the host and copied to backend memory */
static int coarse_direct_setup(pds_precond pc, pds_mat A) {
  struct gmg     *G   = pc->data;
  pds_ctx         ctx = pc->hdr.ctx;
  const pds_int   n   = A->nrows;
  const size_t    bytes = (size_t)n * (size_t)n * sizeof(pds_real);
  pds_mat         csr = NULL;
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;
  pds_real       *dense = NULL;
  int             ierr, bad;

  PDS_CALL_GOTO(ierr, done, pds_mat_convert_to_csr(A, &csr));
  PDS_CALL_GOTO(ierr, done, pds_mat_csr_get_arrays(csr, &rp, &ci, &v));
  PDS_CALL_GOTO(ierr, done, pds_calloc(ctx, PDS_MEM_HOST, bytes, &dense));
  for (pds_int i = 0; i < n; i++)
    for (pds_size e = rp[i]; e < rp[i + 1]; e++) dense[(size_t)i * n + ci[e]] += v[e];
  bad = pds_block_invert(n, dense);
  if (bad == -2) {
    ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "gmg: no memory for the pivots of the coarsest level's %" PDS_INT_FMT
                     " x %" PDS_INT_FMT " inverse", n, n);
    goto done;
  }
  if (bad) {
    ierr = PDS_ERROR(ctx, PDS_ERR_ZERO_PIVOT, "gmg: the coarsest level's matrix (%" PDS_INT_FMT " cells) is singular; "
                     "check the stencil, or stop coarsening earlier (pds_precond_gmg_set_levels)", n);
    goto done;
  }
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_DEVICE, bytes, &G->inv));
  PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, G->inv, PDS_MEM_DEVICE, dense, PDS_MEM_HOST, bytes));
  G->ninv = n;
done:
  pds_free(ctx, PDS_MEM_HOST, &dense);
  pds_mat_destroy(&csr);
  return ierr;
}

static int coarse_cg_setup(pds_precond pc, pds_mat A) {
  struct gmg *G   = pc->data;
  pds_ctx     ctx = pc->hdr.ctx;

  PDS_CALL(pds_precond_create(ctx, "jacobi", &G->cgpc));
  PDS_CALL(pds_precond_set_operator(G->cgpc, A));
  PDS_CALL(pds_solver_create(ctx, "cg", &G->cg));
  PDS_CALL(pds_solver_set_operator(G->cg, A));
  PDS_CALL(pds_solver_set_precond(G->cg, G->cgpc));
  PDS_CALL(pds_solver_set_tolerances(G->cg, GMG_CG_RTOL, 0.0, 10000));
  return pds_solver_setup(G->cg);
}

static int gmg_build(pds_precond pc) {
  struct gmg *G         = pc->data;
  pds_ctx     ctx       = pc->hdr.ctx;
  const int   maxl      = G->max_levels && G->max_levels < GMG_MAX_LEVELS ? G->max_levels : GMG_MAX_LEVELS;
  pds_size    cells;

  PDS_CALL(pds_mat_reference(pc->A));
  G->lev[0].A = pc->A, G->nlevels = 1;
  /* direct: coarsen while the level is above max_direct; cg: as far as the patches allow (the smaller its level,
     the fewer CG iterations) */
  for (;;) {
    const struct pds_patches *P = pds_mat_patches_view(G->lev[G->nlevels - 1].A);

    if (!G->coarse_cg && P->ncells <= G->max_direct) {
      G->stop = "the coarse limit";
      break;
    }
    if (G->nlevels == maxl) {
      G->stop = "the level limit";
      break;
    }
    if ((G->stop = coarsen_obstacle(P))) break;
    PDS_CALL(pds_mat_patches_coarsen(G->lev[G->nlevels - 1].A, &G->lev[G->nlevels].A));
    G->nlevels++;
  }
  cells = G->lev[G->nlevels - 1].A->nrows;
  if (!G->coarse_cg && cells > G->max_direct) {
    int np = 0;

    PDS_CALL(pds_mat_patches_get_count(G->lev[G->nlevels - 1].A, &np));
    return PDS_ERROR(ctx, PDS_ERR_ARG, "gmg: the coarsest level (level %d: %" PDS_SIZE_FMT " cells in %d patches) "
                     "has more than max_direct = %" PDS_INT_FMT " cells for the direct solver (coarsening stopped: %s)"
                     "; raise max_direct or use the cg coarse solver (pds_precond_gmg_set_coarse), %s",
                     G->nlevels - 1, cells, np, G->max_direct, G->stop,
                     !strcmp(G->stop, "the level limit") ? "or allow more levels (pds_precond_gmg_set_levels)"
                                                         : "or use patches whose sizes and origins are divisible by "
                                                           "a higher power of 2");
  }
  for (int l = 0; l < G->nlevels; l++) {
    struct gmg_level *L = &G->lev[l];
    const pds_size    n = L->A->nrows;

    if (l > 0) {
      PDS_CALL(pds_vec_create(ctx, n, &L->f));
      PDS_CALL(pds_vec_create(ctx, n, &L->u));
    }
    if (l == G->nlevels - 1) break;
    PDS_CALL(pds_vec_create(ctx, n, &L->r));
    PDS_CALL(pds_precond_create(ctx, "relax", &L->smoother));
    PDS_CALL(pds_precond_set_operator(L->smoother, L->A));
    PDS_CALL(pds_precond_relax_set_type(L->smoother, G->stype));
    PDS_CALL(pds_precond_relax_set_block(L->smoother, G->bx, G->by, G->bz));
    PDS_CALL(pds_precond_relax_set_omega(L->smoother, G->omega));
    if (G->pre > 0) PDS_CALL(pds_precond_relax_set_sweeps(L->smoother, G->pre)); /* the sweeps from u = 0 */
    PDS_CALL(pds_precond_relax_set_clip(L->smoother, 1));
    PDS_CALL(pds_precond_setup(L->smoother));
  }
  return G->coarse_cg ? coarse_cg_setup(pc, G->lev[G->nlevels - 1].A)
                      : coarse_direct_setup(pc, G->lev[G->nlevels - 1].A);
}

static int gmg_setup(pds_precond pc) {
  struct gmg *G   = pc->data;
  pds_ctx     ctx = pc->hdr.ctx;
  int         ierr;

  gmg_free(ctx, G);
  PDS_CHECK(pds_mat_patches_view(pc->A), ctx, PDS_ERR_ARG,
            "gmg needs a patches matrix (pds_mat_create_patches, pds_problem_patches), not %s; for another "
            "matrix use ilu0, bilu0 or jacobi", pc->A->type);
  PDS_KERNEL(ctx, patches.residual);
  PDS_KERNEL(ctx, patches.restrict_sum);
  PDS_KERNEL(ctx, patches.prolong);
  PDS_KERNEL(ctx, blocks.apply);
  pc->host_sync = G->coarse_cg; /* the coarse CG reads its norms on the host: no device loop can record the cycle */
  ierr = gmg_build(pc);
  if (ierr) gmg_free(ctx, G);
  return ierr;
}

/* u = A_L^-1 f on the coarsest level (zero: u is 0 on entry) */
static int coarse_solve(pds_precond pc, pds_vec f, pds_vec u, int zero) {
  struct gmg     *G   = pc->data;
  pds_ctx         ctx = pc->hdr.ctx;
  const pds_real *fa;
  pds_real       *ua;

  if (G->coarse_cg) {
    if (zero) PDS_CALL(pds_vec_set(u, 0.0));
    return pds_solver_solve(G->cg, f, u); /* not converging is a result: the cycle goes on with its iterate */
  }
  PDS_CALL(pds_vec_dev_read(f, &fa));
  PDS_CALL(pds_vec_dev_write(u, &ua));
  return ctx->k->blocks.apply(ctx, 1, G->ninv, G->inv, fa, ua);
}

/* one cycle of the given kind on level l for A_l u = f (zero: u is 0 on entry, its values are not read) */
static int gmg_cycle(pds_precond pc, int l, pds_vec f, pds_vec u, int zero, int kind) {
  struct gmg               *G   = pc->data;
  pds_ctx                   ctx = pc->hdr.ctx;
  struct gmg_level         *L, *C;
  const struct pds_patches *Pf, *Pc;
  const pds_real           *a, *b;
  pds_real                 *w;

  if (l == G->nlevels - 1) return coarse_solve(pc, f, u, zero);
  L = &G->lev[l], C = &G->lev[l + 1];
  Pf = pds_mat_patches_view(L->A), Pc = pds_mat_patches_view(C->A);
  /* u = S_pre(f, u) */
  if (G->pre > 0 && zero) PDS_CALL(pds_precond_apply(L->smoother, f, u));
  else if (G->pre > 0) PDS_CALL(pds_precond_relax_smooth(L->smoother, f, u, G->pre));
  else if (zero) PDS_CALL(pds_vec_set(u, 0.0));
  /* r = f - A u */
  PDS_CALL(pds_vec_dev_read(u, &a));
  PDS_CALL(pds_vec_dev_read(f, &b));
  PDS_CALL(pds_vec_dev_write(L->r, &w));
  PDS_CALL(ctx->k->patches.residual(ctx, Pf, a, b, w));
  /* f_(l+1) = 1/2 sum of the 8 children of r (4 times their average) */
  PDS_CALL(pds_vec_dev_read(L->r, &a));
  PDS_CALL(pds_vec_dev_write(C->f, &w));
  PDS_CALL(ctx->k->patches.restrict_sum(ctx, Pf, Pc, 0.5, a, w));
  /* u_(l+1) from 0; an exact coarse solve needs no second visit (it would give the same u_(l+1)) */
  PDS_CALL(gmg_cycle(pc, l + 1, C->f, C->u, 1, kind));
  if (kind != CYCLE_V && l + 1 < G->nlevels - 1)
    PDS_CALL(gmg_cycle(pc, l + 1, C->f, C->u, 0, kind == CYCLE_W ? CYCLE_W : CYCLE_V));
  /* u += P u_(l+1) */
  PDS_CALL(pds_vec_dev_read(C->u, &a));
  PDS_CALL(pds_vec_dev_write(u, &w));
  PDS_CALL(ctx->k->patches.prolong(ctx, Pc, Pf, G->trilinear, a, w));
  /* u = S_post(f, u) */
  if (G->post > 0) PDS_CALL(pds_precond_relax_smooth(L->smoother, f, u, G->post));
  return PDS_OK;
}

static int gmg_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct gmg *G = pc->data;

  return gmg_cycle(pc, 0, x, y, 1, G->cycle); /* y = M^-1 x: one cycle on A y = x from y = 0 */
}

static int gmg_view(pds_precond pc, FILE *f) {
  static const char *const stype[] = {"jacobi", "multicolor", "chaotic"};
  struct gmg              *G       = pc->data;

  fprintf(f, "  geometric multigrid, %c-cycle, prolongation %s, restriction 1/2 sum of the 8 children\n",
          "VWF"[G->cycle], G->trilinear ? "trilinear" : "piecewise constant");
  fprintf(f, "  smoother relax %s, blocks %d x %d x %d (clipped to the patches), omega ", stype[G->stype], G->bx, G->by,
          G->bz);
  if (G->omega > 0) fprintf(f, "%g", G->omega);
  else fprintf(f, "the type's default");
  fprintf(f, ", %d pre and %d post sweeps\n", G->pre, G->post);
  if (!G->nlevels) {
    fprintf(f, "  not set up; levels: ");
    if (G->max_levels) fprintf(f, "at most %d", G->max_levels);
    else fprintf(f, "as many as possible");
    fprintf(f, ", coarse solver %s, max_direct %" PDS_INT_FMT "\n", G->coarse_cg ? "cg" : "direct", G->max_direct);
    return PDS_OK;
  }
  fprintf(f, "  %d level%s (coarsening stopped at %s)\n", G->nlevels, G->nlevels == 1 ? "" : "s",
          G->stop ? G->stop : "-");
  for (int l = 0; l < G->nlevels; l++) {
    const struct pds_patches *P = pds_mat_patches_view(G->lev[l].A);
    int                       nt = 0, nc = 0;
    pds_int                   nb = 0;

    fprintf(f, "  level %d: %" PDS_SIZE_FMT " cells in %d patch%s", l, P->ncells, P->np, P->np == 1 ? "" : "es");
    if (G->lev[l].smoother && !pds_precond_relax_get_info(G->lev[l].smoother, &nt, &nc, &nb))
      fprintf(f, "; smoother: %" PDS_INT_FMT " blocks, %d colour%s, %d block matri%s", nb, nc, nc == 1 ? "" : "s", nt,
              nt == 1 ? "x" : "ces");
    fprintf(f, "\n");
  }
  if (G->coarse_cg)
    fprintf(f, "  coarse solver: cg with jacobi to rtol %g on level %d\n", GMG_CG_RTOL, G->nlevels - 1);
  else
    fprintf(f, "  coarse solver: direct (dense inverse of %" PDS_INT_FMT " x %" PDS_INT_FMT ", max_direct %" PDS_INT_FMT
            ")\n", G->ninv, G->ninv, G->max_direct);
  return PDS_OK;
}

static int gmg_destroy(pds_precond pc) {
  struct gmg *G = pc->data;

  if (G) gmg_free(pc->hdr.ctx, G);
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_create_gmg(pds_precond pc) {
  struct gmg *G = NULL;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &G));
  G->cycle = CYCLE_V, G->max_levels = 0, G->trilinear = 0, G->coarse_cg = 0, G->max_direct = 1000;
  G->stype = PDS_RELAX_MULTICOLOR, G->bx = G->by = G->bz = 4, G->omega = 0, G->pre = G->post = 2;
  pc->data        = G;
  pc->ops.setup   = gmg_setup;
  pc->ops.apply   = gmg_apply;
  pc->ops.view    = gmg_view;
  pc->ops.destroy = gmg_destroy;
  return PDS_OK;
}
