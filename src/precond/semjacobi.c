/* src/precond/semjacobi.c: paper 003's Jacobi preconditioner of the spectral-element operator (a sem matrix): the
 * diagonal of every element by the closed form of Eq. 9 (with a full G's cross terms), summed at the shared points
 * (J = QQ^T diag(A_L), Eq. 8), inverted once at setup (Algorithm 1), and applied as z = j .* r (Algorithm 2). The
 * diagonal kernel is selectable (pds_precond_semjacobi_set_variant: "extended", the default, "natural", "shared",
 * "wide": the paper's four designs, src/disc/sem_kernels.h; the same values). Not for other matrices: `jacobi`
 * takes any matrix's diagonal, a sem matrix's included (the same diagonal, divided instead of multiplied). */
#include <math.h>

#include "../disc/sem_impl.h"
#include "../disc/sem_kernels.h"
#include "precond_impl.h"

static const char *const variants[] = {"extended", "natural", "shared", "wide"}; /* PDS_SEM_DIAG_* order */

struct semjacobi {
  int     variant;
  pds_vec inv; /* 1 / the assembled diagonal */
  double  t_diag; /* seconds of the last diagonal assembly (with its device wait) */
};

static int sj_of(pds_precond pc, struct semjacobi **S) { return pds_precond_data(pc, "semjacobi", (void **)S); }

int pds_precond_semjacobi_set_variant(pds_precond pc, const char *variant) {
  struct semjacobi *S = NULL;

  PDS_CALL(sj_of(pc, &S));
  for (int v = 0; v < 4; v++)
    if (variant && !strcmp(variant, variants[v])) {
      if (S->variant != v) pc->setup_done = 0;
      S->variant = v;
      return PDS_OK;
    }
  return PDS_ERROR(pc->hdr.ctx, PDS_ERR_ARG, "semjacobi variant '%s': extended, natural, shared or wide",
                   variant ? variant : "(null)");
}

static int sj_setup(pds_precond pc) {
  struct semjacobi *S = pc->data;
  pds_ctx           ctx = pc->hdr.ctx;
  pds_real         *h = NULL;
  pds_int           bad = -1;
  double            t0;
  int               ierr;

  PDS_CHECK(!strcmp(pc->A->type, "sem") || !strcmp(pc->A->type, "mpisem"), ctx, PDS_ERR_ARG,
            "semjacobi needs a sem matrix (pds_mat_create_sem: the spectral-element operator, or mpisem), not %s; "
            "jacobi takes any matrix's diagonal", pc->A->type);
  if (!S->inv) PDS_CALL(pds_mat_row_vec(pc->A, &S->inv));
  t0 = pds_wtime();
  /* mpisem: the rank's share holds every element of its points, so its diagonal is complete (no communication) */
  PDS_CALL(pds_mat_sem_diagonal(pc->A->dist ? pds_mat_dist_local_pc(pc->A) : pc->A, S->variant, S->inv));
  PDS_CALL(PDS_NEW(ctx, (size_t)pc->A->nrows + 1, &h));
  PDS_CALL_GOTO(ierr, done, pds_vec_get_values(S->inv, h, PDS_MEM_HOST));
  S->t_diag = pds_wtime() - t0;
  for (pds_int i = 0; i < pc->A->nrows; i++) {
    if (!(h[i] > 0) || !isfinite(h[i])) {
      bad = i;
      break;
    }
    h[i] = 1.0 / h[i];
  }
  if (bad >= 0) {
    ierr = PDS_ERROR(ctx, PDS_ERR_ZERO_PIVOT, "semjacobi: the diagonal at point %" PDS_INT_FMT " is %g (the operator "
                     "is positive definite: a geometry error)", bad, h[bad]);
    goto done;
  }
  ierr = pds_vec_set_values(S->inv, h, PDS_MEM_HOST);
done:
  pds_free(ctx, PDS_MEM_HOST, &h);
  return ierr;
}

static int sj_apply(pds_precond pc, pds_vec x, pds_vec y) {
  return pds_vec_pointwise_mult(y, x, ((struct semjacobi *)pc->data)->inv); /* y = j .* x */
}

static int sj_view(pds_precond pc, FILE *f) {
  const struct semjacobi *S = pc->data;

  fprintf(f, "  z = j .* r, j = 1 / (QQ^T diag(A_L)) by paper 003 Eq. 9, the %s kernel (setup %.3g s)\n",
          variants[S->variant], S->t_diag);
  return PDS_OK;
}

static int sj_destroy(pds_precond pc) {
  struct semjacobi *S = pc->data;

  if (S) pds_vec_destroy(&S->inv);
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_create_semjacobi(pds_precond pc) {
  struct semjacobi *S;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &S));
  S->variant      = PDS_SEM_DIAG_EXTENDED;
  pc->data        = S;
  pc->ops.setup   = sj_setup;
  pc->ops.apply   = sj_apply;
  pc->ops.view    = sj_view;
  pc->ops.destroy = sj_destroy;
  pc->distributed = 1; /* mpisem: the rank's share holds its rows' whole diagonal */
  return PDS_OK;
}
