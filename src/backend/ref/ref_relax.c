/* src/backend/ref/ref_relax.c: /cpu/ref's block-relaxation group (src/precond/relax_kernels.h): sequential sweeps
 * over the layout's blocks, block after block, with the per-block bodies of src/backend/relax_bodies.h:
 *   jacobi:     every block's residual R_b = (f - A u)_b, then block by block E_b = A_b^-1 R_b, u_b += omega E_b;
 *   multicolor: colour by colour (then back when symmetric), each block of the colour residual, product, update;
 *   chaotic:    block after block in layout order, each reading u as the blocks before it left it: plain block
 *               Gauss-Seidel (the deterministic member of the chaotic family).
 * Model per cell and sweep (m cells per block): 13 + 2 m + 2 flops; jacobi about 72 bytes (f, u read; R written and
 * read back; E written, read back from cache; u read and written; write-allocations counted), the chaotic and
 * multicolor steps 56 (R stays in cache); plus the inverse, 8 m bytes per cell from the cache level that holds it
 * (every block reads its whole inverse once). Measured (2-vCPU EPYC, Zen 4, one 64^3 patch, jacobi): 9.9 Mcells/s
 * with 8^3 blocks (10 GFlop/s in the products), 72 Mcells/s with 4^3. No plan state: the plan is NULL. */
#include <string.h>

#include "../relax_bodies.h"
#include "ref_impl.h"

static int relax_plan_create_ref(pds_ctx ctx, const struct pds_patches *P, const struct pds_relax_layout *L,
                                 const char *variant, void **plan) {
  (void)P, (void)L;
  PDS_CHECK(variant && !strcmp(variant, "auto"), ctx, PDS_ERR_ARG,
            "relax variant '%s': %s knows only 'auto' (the sequential sweep)", variant ? variant : "(null)",
            ctx->backend);
  *plan = NULL;
  return PDS_OK;
}

static void relax_plan_destroy_ref(pds_ctx ctx, void *plan) { (void)ctx, (void)plan; }

static int relax_plan_describe_ref(pds_ctx ctx, void *plan, char *buf, size_t len) {
  (void)plan;
  snprintf(buf, len, "%s: sequential sweep, block after block", ctx->backend);
  return PDS_OK;
}

/* residual, product and update of layout block b (R, E: its entries of the work arrays) */
static void block_step(const struct pds_patches *P, const struct pds_relax_layout *L, pds_int b, pds_real omega,
                       int zero, const pds_real *f, pds_real *u, pds_real *R, pds_real *E) {
  const struct pds_relax_block *B = &L->blk[b];
  const struct pds_relax_btype  *T = &L->type[B->type];

  rb_residual(P, B, T->b, f, u, zero, R + B->r);
  rb_product(T->m, L->inv + T->off, R + B->r, E + B->r);
  rb_update(P, B, T->b, omega, E + B->r, u);
}

static int relax_smooth_ref(pds_ctx ctx, void *plan, const struct pds_patches *P, const struct pds_relax_layout *L,
                            int method, int symmetric, pds_real omega, int sweeps, int zero, const pds_real *f,
                            pds_real *u, pds_real *work) {
  pds_real *R = work, *E = work + P->ncells;

  (void)ctx, (void)plan;
  for (int s = 0; s < sweeps; s++) {
    const int z = zero && s == 0; /* u = 0 on entry of this sweep */

    if (method == PDS_RELAX_JACOBI) {
      for (pds_int b = 0; b < L->nblocks; b++) {
        const struct pds_relax_block *B = &L->blk[b];

        rb_residual(P, B, L->type[B->type].b, f, u, z, R + B->r);
      }
      for (pds_int b = 0; b < L->nblocks; b++) {
        const struct pds_relax_block *B = &L->blk[b];
        const struct pds_relax_btype  *T = &L->type[B->type];

        rb_product(T->m, L->inv + T->off, R + B->r, E + B->r);
        rb_update(P, B, T->b, omega, E + B->r, u);
      }
    } else if (method == PDS_RELAX_MULTICOLOR) {
      const int nsteps = symmetric ? 2 * L->ncolors : L->ncolors;

      for (int t = 0; t < nsteps; t++) {
        pds_int b0, b1;

        rb_color_blocks(L, rb_color_step(L->ncolors, t), &b0, &b1);
        for (pds_int b = b0; b < b1; b++) block_step(P, L, b, omega, z && t == 0, f, u, R, E);
      }
    } else
      for (pds_int b = 0; b < L->nblocks; b++) block_step(P, L, b, omega, z && b == 0, f, u, R, E);
  }
  return PDS_OK;
}

void pds_ref_fill_relax(struct pds_relax_kernels *g) {
  g->plan_create   = relax_plan_create_ref;
  g->plan_destroy  = relax_plan_destroy_ref;
  g->plan_describe = relax_plan_describe_ref;
  g->smooth        = relax_smooth_ref;
}
