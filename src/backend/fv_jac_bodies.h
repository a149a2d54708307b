/* src/backend/fv_jac_bodies.h: the arithmetic of the fvjac kernel group (src/disc/fv_jac_kernels.h), shared by every
 * backend (PDS_FV_HD; nvcc -fmad=false: the same bits everywhere).
 *
 * A face's Jacobian is by central differences of fv_bodies.h's flux (Roe's with Harten's fix, or the wall's): for
 * component j of a state q, the step h = cbrt(eps) max(|q_j|, s_j) with the state's own scale s = (rho, rho c, rho c,
 * rho c, E) (c its sound speed), taken as (q_j + h) - (q_j - h) so the quotient divides by the step actually made.
 * The error is O(h^2) f''' plus O(eps / h) rounding: about 1e-10 of the entries' size where the flux is smooth
 * (Harten's fix is only once differentiable at |lambda| = d: there the one-sided slopes differ and the difference
 * averages them). 20 flux evaluations a face (10 for a boundary face): about 3300 flops. */
#ifndef PDS_FV_JAC_BODIES_H
#define PDS_FV_JAC_BODIES_H

#include "../disc/fv_jac_kernels.h"
#include "fv_bodies.h"

/* face f's two 5 x 5 blocks into JF[50 f ..] (side 0: dF/dQL, side 1: dF/dQR) */
PDS_FV_HD void fv_face_jac(const struct pds_fv_dev *D, pds_int f, const pds_real *Q, pds_real *JF) {
  const pds_real  e3 = 6.0554544523933395e-06; /* cbrt(2^-52) */
  const pds_int   l = D->face_cell[2 * f], r = D->face_cell[2 * f + 1];
  const pds_real *R = r >= 0 ? Q + 5 * (size_t)r : D->face_kind[f] == PDS_FV_FREESTREAM ? D->qinf : Q + 5 * (size_t)l;
  pds_real       *o = JF + 50 * (size_t)f;
  pds_real        q[2][5];

  for (int k = 0; k < 5; k++) q[0][k] = Q[5 * (size_t)l + k], q[1][k] = R[k];
  for (int side = 0; side < 2; side++) {
    pds_real *s = q[side];

    if (side == 1 && r < 0) {
      for (int e = 0; e < 25; e++) o[25 + e] = 0;
      break;
    }
    {
      const pds_real c  = sqrt(D->gamma * fv_pressure(D->gamma, s) / s[0]);
      const pds_real sc[5] = {fabs(s[0]), fabs(s[0]) * c, fabs(s[0]) * c, fabs(s[0]) * c, fabs(s[4])};

      for (int j = 0; j < 5; j++) {
        const pds_real q0 = s[j], h = e3 * (fabs(q0) > sc[j] ? fabs(q0) : sc[j]);
        const pds_real qp = q0 + h, qm = q0 - h, dh = qp - qm;
        pds_real       Fp[5], Fm[5];

        s[j] = qp;
        fv_face_flux_lr(D, f, q[0], q[1], Fp);
        s[j] = qm;
        fv_face_flux_lr(D, f, q[0], q[1], Fm);
        s[j] = q0;
        for (int i = 0; i < 5; i++) o[25 * side + 5 * i + j] = (Fp[i] - Fm[i]) / dh;
      }
    }
  }
}

/* entry e (0..24: row e / 5, column e % 5) of every block of cell c's block row: zeroed, then each face's
   derivative added in cell_face order; the diagonal block's entry summed apart from 0 and stored last (with
   lambda_c / cfl on its diagonal where cfl > 0). A thread owns (c, e): no two write one value. */
PDS_FV_HD void fv_jac_row_entry(const struct pds_fv_dev *D, const struct pds_fvjac_dev *J, pds_int c, int e,
                                pds_real cfl, const pds_real *Q, const pds_real *JF, pds_real *vals) {
  pds_real d = 0;

  for (pds_size b = J->browptr[c]; b < J->browptr[c + 1]; b++) vals[25 * b + e] = 0;
  for (pds_int k = D->cell_ptr[c]; k < D->cell_ptr[c + 1]; k++) {
    const pds_int   ef = D->cell_face[k], f = ef >= 0 ? ef : -1 - ef, p = J->jpos[k];
    const pds_real *jl = JF + 50 * (size_t)f, *jr = jl + 25;

    if (ef >= 0) { /* F leaves c: + dF/dQL on the diagonal, + dF/dQR at the neighbour */
      d = d + jl[e];
      if (p >= 0) vals[25 * (size_t)p + e] += jr[e];
    } else { /* F enters c: - dF/dQR on the diagonal, - dF/dQL at the neighbour */
      d = d - jr[e];
      if (p >= 0) vals[25 * (size_t)p + e] -= jl[e];
    }
  }
  if (cfl > 0 && e % 6 == 0) d = d + fv_cell_lambda(D, c, Q) / cfl;
  vals[25 * (size_t)J->jdiag[c] + e] = d;
}

#endif
