/* src/disc/fv_jac.c: implicit steps of the finite-volume Euler operator (issue 14): the Jacobian of the first-order
 * residual as a bsr matrix with 5 x 5 blocks, and the backward-Euler pseudo-time step (V / tau + J) dQ = R solved by
 * any of pdesolve's Krylov methods and preconditioners. The pattern (a cell's own block and one per face neighbour,
 * columns ascending) is made once on the host from the object's faces and kept, with where each face's derivatives
 * go (jdiag, jpos); the values are computed by the fvjac kernel group (src/disc/fv_jac_kernels.h) on the backend and
 * become a matrix born there (pds_mat_bsr_from_device_owned: on a GPU nothing goes through the host). */
#include <math.h>

#include "../backend/backend.h"
#include "../mat/mat_impl.h"
#include "../solver/solver_impl.h"
#include "../vec/vec_impl.h"
#include "fv_impl.h"
#include "fv_jac_kernels.h"

struct pds_fv_jac {
  pds_int              nblocks;            /* block rows (cells) */
  pds_size             nnzb;               /* blocks */
  pds_size            *h_browptr;          /* host pattern (copied into each matrix) */
  pds_int             *h_bcolidx;
  pds_size            *d_browptr;          /* backend pattern (copied into each matrix; NULL on host backends) */
  pds_int             *d_bcolidx;
  pds_int             *jdiag, *jpos;       /* backend */
  pds_real            *JF;                 /* backend [50 nfaces + 1]: the faces' derivatives */
  struct pds_fvjac_dev dev;
  pds_vec              dQ;                 /* the implicit step's update */
};

void pds_fv_jac_free(pds_ctx ctx, struct pds_fv_jac **Jp) {
  struct pds_fv_jac *J = *Jp;

  if (!J) return;
  pds_free(ctx, PDS_MEM_HOST, &J->h_browptr), pds_free(ctx, PDS_MEM_HOST, &J->h_bcolidx);
  pds_free(ctx, PDS_MEM_DEVICE, &J->d_browptr), pds_free(ctx, PDS_MEM_DEVICE, &J->d_bcolidx);
  pds_free(ctx, PDS_MEM_DEVICE, &J->jdiag), pds_free(ctx, PDS_MEM_DEVICE, &J->jpos);
  pds_free(ctx, PDS_MEM_DEVICE, &J->JF);
  pds_vec_destroy(&J->dQ);
  pds_free(ctx, PDS_MEM_HOST, Jp);
}

/* the pattern from the object's faces (downloaded once), and the positions of each face's blocks */
static int jac_build(pds_ctx ctx, pds_fv fv, struct pds_fv_jac *J) {
  const struct pds_fv_dev *D = pds_fv_dev_of(fv);
  const pds_int            nc = D->ncells, nf = D->nfaces;
  pds_int                 *fc = NULL, *cp = NULL, *cf = NULL, *jd = NULL, *jp = NULL, *row = NULL;
  size_t                   ncf;
  int                      ierr;

  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 2 * (size_t)nf + 1, &fc));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nc + 1, &cp));
  PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, fc, PDS_MEM_HOST, D->face_cell, PDS_MEM_DEVICE, 2 * (size_t)nf * sizeof *fc));
  PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, cp, PDS_MEM_HOST, D->cell_ptr, PDS_MEM_DEVICE, ((size_t)nc + 1) * sizeof *cp));
  ncf = (size_t)cp[nc];
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, ncf + 1, &cf));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, ncf + 1, &jp));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nc + 1, &jd));
  PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, cf, PDS_MEM_HOST, D->cell_face, PDS_MEM_DEVICE, ncf * sizeof *cf));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nc + 1, &J->h_browptr));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, ncf + (size_t)nc + 1, &J->h_bcolidx));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, ncf + 1, &row));
  /* row c: c and the other cells of its interior faces, ascending, each once (two faces to one neighbour: one block) */
  J->nnzb = 0;
  for (pds_int c = 0; c < nc; c++) {
    pds_int n = 0;

    J->h_browptr[c] = J->nnzb;
    row[n++]        = c;
    for (pds_int k = cp[c]; k < cp[c + 1]; k++) {
      const pds_int e = cf[k], f = e >= 0 ? e : -1 - e, o = fc[2 * f] == c ? fc[2 * f + 1] : fc[2 * f];

      if (o >= 0) row[n++] = o;
    }
    for (pds_int a = 1; a < n; a++) /* insertion sort: a few entries */
      for (pds_int b = a; b > 0 && row[b] < row[b - 1]; b--) {
        const pds_int t = row[b];

        row[b] = row[b - 1], row[b - 1] = t;
      }
    for (pds_int a = 0; a < n; a++)
      if (a == 0 || row[a] != row[a - 1]) J->h_bcolidx[J->nnzb++] = row[a];
    for (pds_size b = J->h_browptr[c]; b < J->nnzb; b++)
      if (J->h_bcolidx[b] == c) jd[c] = (pds_int)b;
    for (pds_int k = cp[c]; k < cp[c + 1]; k++) {
      const pds_int e = cf[k], f = e >= 0 ? e : -1 - e, o = fc[2 * f] == c ? fc[2 * f + 1] : fc[2 * f];

      jp[k] = -1;
      for (pds_size b = J->h_browptr[c]; o >= 0 && b < J->nnzb; b++)
        if (J->h_bcolidx[b] == o) jp[k] = (pds_int)b;
    }
  }
  J->h_browptr[nc] = J->nnzb;
  if (J->nnzb > (pds_size)PDS_INT_MAX) {
    ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "fv: the Jacobian has %" PDS_SIZE_FMT " blocks; at most %d", J->nnzb,
                     PDS_INT_MAX);
    goto done;
  }
  J->nblocks = nc;
  if (!pds_fv_unified(fv)) {
    PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, J->h_browptr, PDS_MEM_HOST,
                                            ((size_t)nc + 1) * sizeof *J->h_browptr, &J->d_browptr));
    PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, J->h_bcolidx, PDS_MEM_HOST,
                                            (size_t)J->nnzb * sizeof *J->h_bcolidx, &J->d_bcolidx));
  }
  PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, jd, PDS_MEM_HOST, (size_t)nc * sizeof *jd, &J->jdiag));
  PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, jp, PDS_MEM_HOST, (ncf + 1) * sizeof *jp, &J->jpos));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_DEVICE, (50 * (size_t)nf + 1) * sizeof(pds_real), &J->JF));
  J->dev = (struct pds_fvjac_dev){J->d_browptr ? J->d_browptr : J->h_browptr, J->jdiag, J->jpos};
done:
  pds_free(ctx, PDS_MEM_HOST, &fc), pds_free(ctx, PDS_MEM_HOST, &cp), pds_free(ctx, PDS_MEM_HOST, &cf);
  pds_free(ctx, PDS_MEM_HOST, &jd), pds_free(ctx, PDS_MEM_HOST, &jp), pds_free(ctx, PDS_MEM_HOST, &row);
  return ierr;
}

/* the object's implicit data, made on first use */
static int jac_get(pds_fv fv, struct pds_fv_jac **out) {
  struct pds_fv_jac **slot = pds_fv_jac_slot(fv);
  pds_ctx             ctx  = pds_fv_ctx(fv);
  int                 ierr;

  if (!*slot) {
    struct pds_fv_jac *J = NULL;

    PDS_CALL(PDS_NEW(ctx, 1, &J));
    ierr = jac_build(ctx, fv, J);
    if (!ierr) ierr = pds_vec_create(ctx, 5 * (pds_size)pds_fv_dev_of(fv)->ncells, &J->dQ);
    if (ierr) {
      pds_fv_jac_free(ctx, &J);
      return ierr;
    }
    *slot = J;
  }
  *out = *slot;
  return PDS_OK;
}

int pds_fv_jacobian(pds_fv fv, pds_vec Q, pds_real cfl, pds_mat *A) {
  const struct pds_fv_dev *D;
  struct pds_fv_jac       *J = NULL;
  pds_ctx                  ctx;
  const pds_real          *q;
  pds_size                *hp = NULL, *dp = NULL;
  pds_int                 *hc = NULL, *dc = NULL;
  pds_real                *vals = NULL;
  int                      ierr;

  PDS_CALL(pds_fv_check_state(fv, Q));
  ctx = pds_fv_ctx(fv);
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "fv: the output matrix handle is NULL");
  *A = NULL;
  PDS_CHECK(cfl >= 0 && isfinite(cfl), ctx, PDS_ERR_ARG, "fv: CFL number %g; it must be >= 0 (0: no pseudo-time term)",
            cfl);
  PDS_KERNEL(ctx, fvjac.face_jac);
  PDS_KERNEL(ctx, fvjac.assemble);
  PDS_CALL(jac_get(fv, &J));
  D = pds_fv_dev_of(fv);
  PDS_CALL(pds_vec_dev_read(Q, &q));
  /* the matrix's own arrays: the pattern copied, the values computed in place */
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, J->h_browptr, PDS_MEM_HOST,
                                          ((size_t)J->nblocks + 1) * sizeof *hp, &hp));
  PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_HOST, J->h_bcolidx, PDS_MEM_HOST, (size_t)J->nnzb * sizeof *hc,
                                          &hc));
  if (J->d_browptr) {
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_DEVICE, J->d_browptr, PDS_MEM_DEVICE,
                                            ((size_t)J->nblocks + 1) * sizeof *dp, &dp));
    PDS_CALL_GOTO(ierr, fail, pds_dup_array(ctx, PDS_MEM_DEVICE, J->d_bcolidx, PDS_MEM_DEVICE,
                                            (size_t)J->nnzb * sizeof *dc, &dc));
  }
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_DEVICE, (25 * (size_t)J->nnzb + 1) * sizeof *vals, &vals));
  PDS_CALL_GOTO(ierr, fail, ctx->k->fvjac.face_jac(ctx, D, q, J->JF));
  PDS_CALL_GOTO(ierr, fail, ctx->k->fvjac.assemble(ctx, D, &J->dev, cfl, q, J->JF, vals));
  return pds_mat_bsr_from_device_owned(ctx, J->nblocks, J->nblocks, 5, hp, hc, dp, dc, vals, A);
fail:
  pds_free(ctx, PDS_MEM_HOST, &hp), pds_free(ctx, PDS_MEM_HOST, &hc);
  pds_free(ctx, PDS_MEM_DEVICE, &dp), pds_free(ctx, PDS_MEM_DEVICE, &dc), pds_free(ctx, PDS_MEM_DEVICE, &vals);
  return ierr;
}

int pds_fv_step_implicit(pds_fv fv, pds_solver s, pds_real cfl, pds_vec Q, pds_vec R, pds_real *rnorm,
                         pds_solver_result *lin) {
  struct pds_fv_jac *J = NULL;
  pds_ctx            ctx;
  pds_mat            A = NULL;
  pds_solver_result  res;
  pds_real           rn;
  int                ierr;

  PDS_CALL(pds_fv_residual(fv, Q, R)); /* checks fv, Q and R */
  ctx = pds_fv_ctx(fv);
  PDS_VALID(s, PDS_CLASSID_SOLVER, "solver");
  PDS_CHECK(s->hdr.ctx == ctx, ctx, PDS_ERR_ARG, "fv: the solver must live on the fv object's context");
  PDS_CHECK(cfl > 0 && !isnan(cfl), ctx, PDS_ERR_ARG, "fv: CFL number %g; it must be > 0 (inf: Newton's method)",
            cfl);
  PDS_CALL(pds_vec_norm2(R, &rn));
  if (rnorm) *rnorm = rn;
  PDS_CHECK(isfinite(rn), ctx, PDS_ERR_ARG, "fv: the residual's norm is %g (a state with negative density or "
            "pressure?); lower the CFL number", rn);
  PDS_CALL(jac_get(fv, &J));
  PDS_CALL(pds_fv_jacobian(fv, Q, isinf(cfl) ? 0 : cfl, &A));
  PDS_CALL_GOTO(ierr, done, pds_solver_set_operator(s, A));
  PDS_CALL_GOTO(ierr, done, pds_vec_set(J->dQ, 0));
  PDS_CALL_GOTO(ierr, done, pds_solver_solve(s, R, J->dQ));
  PDS_CALL_GOTO(ierr, done, pds_solver_get_result(s, &res));
  if (lin) *lin = res;
  /* an update from a solve that broke down into NaN is not taken */
  if (res.reason != PDS_DIVERGED_NAN) PDS_CALL_GOTO(ierr, done, pds_vec_axpy(Q, 1.0, J->dQ));
done:
  pds_mat_destroy(&A); /* the solver keeps its reference until its next operator */
  return ierr;
}
