/* src/backend/fv_bodies.h: the per-face arithmetic of the finite-volume Euler operator (paper 001, issue 14) as pure
 * functions of plain values, shared by every backend (the CUDA one included: PDS_FV_HD), so that all of them give the
 * same bits: the conservative <-> primitive relations of a perfect gas, the physical flux through a face, Roe's
 * approximate Riemann flux with Harten's entropy fix, and the paper's wall flux.
 *
 * Q = (rho, rho u, rho v, rho w, E), p = (gamma - 1) (E - rho |u|^2 / 2), H = (E + p) / rho, c^2 = gamma p / rho.
 * A face has the area vector n (|n| its area, pointing from the left state's cell to the right one's). Every function
 * returns the flux F(Q) . n (through the whole face, out of the left cell); the cell's residual is minus the sum of
 * its faces' outward fluxes: dQ/dt V = R = - sum F (so Q^{n+1} = Q^n + tau R / V, the paper's Q + tau Phi / V).
 *
 * Bits: fixed sequences of IEEE +, -, *, / and sqrt (correctly rounded everywhere), no library call else, so any
 * backend that contracts nothing into FMAs (nvcc -fmad=false) gives the same bits. The stage bodies at the end (a
 * face's states, its flux, a cell's sum and update) are the fv kernel group's arithmetic (src/disc/fv_kernels.h). */
#ifndef PDS_FV_BODIES_H
#define PDS_FV_BODIES_H

#include <math.h>

#include "../disc/fv_kernels.h"

#if defined(__CUDACC__)
#define PDS_FV_HD static inline __host__ __device__
#else
#define PDS_FV_HD static inline
#endif

/* pressure of Q */
PDS_FV_HD pds_real fv_pressure(pds_real gamma, const pds_real Q[5]) {
  return (gamma - 1) * (Q[4] - 0.5 * (Q[1] * Q[1] + Q[2] * Q[2] + Q[3] * Q[3]) / Q[0]);
}

/* the physical flux F(Q) . n (n: area vector); 5 values into F. About 25 flops. */
PDS_FV_HD void fv_flux_phys(pds_real gamma, const pds_real Q[5], const pds_real n[3], pds_real F[5]) {
  const pds_real p = fv_pressure(gamma, Q);
  const pds_real Vn = (Q[1] * n[0] + Q[2] * n[1] + Q[3] * n[2]) / Q[0]; /* u . n */

  F[0] = Q[0] * Vn;
  F[1] = Q[1] * Vn + p * n[0];
  F[2] = Q[2] * Vn + p * n[1];
  F[3] = Q[3] * Vn + p * n[2];
  F[4] = (Q[4] + p) * Vn;
}

/* the wall flux of paper 001 (Section 2.2): no mass or energy through the face, the pressure of Q (the state at the
   face) on it: (0, p n, 0) */
PDS_FV_HD void fv_flux_wall(pds_real gamma, const pds_real Q[5], const pds_real n[3], pds_real F[5]) {
  const pds_real p = fv_pressure(gamma, Q);

  F[0] = 0, F[1] = p * n[0], F[2] = p * n[1], F[3] = p * n[2], F[4] = 0;
}

/* Harten's entropy fix of an eigenvalue's modulus: |l| where |l| >= d, (l^2 + d^2) / (2 d) below (d > 0; d = 0: |l|) */
PDS_FV_HD pds_real fv_harten(pds_real l, pds_real d) {
  const pds_real a = fabs(l);

  return a >= d ? a : (l * l + d * d) / (2 * d);
}

/* Roe's flux F_ROE(QL, QR, n) = (F(QL) + F(QR)) . n / 2 - |A~| (QR - QL) |n| / 2 with A~ the Jacobian at Roe's
   average of QL and QR (Roe 1981; the wave decomposition as in Blazek, Computational Fluid Dynamics, Section 4.3.3):
     sqrt-density weights, u~, H~, c~^2 = (gamma - 1) (H~ - |u~|^2 / 2), V~ = u~ . n^ (n^ = n / |n|);
     the acoustic waves (V~ -/+ c~) carry (dp -/+ rho~ c~ dV) / (2 c~^2), the entropy and shear waves (V~) the rest;
   efix: Harten's fix on the two acoustic eigenvalues with d = efix c~ (0: none; 0.1 is the usual choice: it keeps
   expansion shocks out of sonic points without smearing contacts). F_ROE(Q, Q, n) = F(Q) . n to round-off (the jump
   term is exactly 0); about 160 flops and 3 square roots. */
PDS_FV_HD void fv_flux_roe(pds_real gamma, pds_real efix, const pds_real QL[5], const pds_real QR[5],
                           const pds_real n[3], pds_real F[5]) {
  const pds_real S  = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  const pds_real nx = n[0] / S, ny = n[1] / S, nz = n[2] / S;
  const pds_real rL = QL[0], uL = QL[1] / rL, vL = QL[2] / rL, wL = QL[3] / rL, pL = fv_pressure(gamma, QL);
  const pds_real rR = QR[0], uR = QR[1] / rR, vR = QR[2] / rR, wR = QR[3] / rR, pR = fv_pressure(gamma, QR);
  const pds_real HL = (QL[4] + pL) / rL, HR = (QR[4] + pR) / rR;
  const pds_real VL = uL * nx + vL * ny + wL * nz, VR = uR * nx + vR * ny + wR * nz;
  const pds_real sL = sqrt(rL), sR = sqrt(rR), ws = sL + sR;
  const pds_real r = sL * sR, u = (sL * uL + sR * uR) / ws, v = (sL * vL + sR * vR) / ws, w = (sL * wL + sR * wR) / ws;
  const pds_real H = (sL * HL + sR * HR) / ws, q2 = u * u + v * v + w * w;
  const pds_real c2 = (gamma - 1) * (H - 0.5 * q2), c = sqrt(c2), V = u * nx + v * ny + w * nz;
  const pds_real dr = rR - rL, dp = pR - pL, dV = VR - VL, du = uR - uL, dv = vR - vL, dw = wR - wL;
  const pds_real l1 = fv_harten(V - c, efix * c), l2 = fabs(V), l3 = fv_harten(V + c, efix * c);
  const pds_real a1 = l1 * (dp - r * c * dV) / (2 * c2), a3 = l3 * (dp + r * c * dV) / (2 * c2);
  const pds_real a2 = l2 * (dr - dp / c2), a4 = l2 * r; /* entropy wave; shear waves (times the tangential jumps) */
  const pds_real du_t = du - dV * nx, dv_t = dv - dV * ny, dw_t = dw - dV * nz;
  pds_real       D[5], FL[5], FR[5];
  const pds_real un[3] = {nx, ny, nz};

  D[0] = a1 + a2 + a3;
  D[1] = a1 * (u - c * nx) + a2 * u + a4 * du_t + a3 * (u + c * nx);
  D[2] = a1 * (v - c * ny) + a2 * v + a4 * dv_t + a3 * (v + c * ny);
  D[3] = a1 * (w - c * nz) + a2 * w + a4 * dw_t + a3 * (w + c * nz);
  D[4] = a1 * (H - c * V) + a2 * 0.5 * q2 + a4 * (u * du + v * dv + w * dw - V * dV) + a3 * (H + c * V);
  fv_flux_phys(gamma, QL, un, FL);
  fv_flux_phys(gamma, QR, un, FR);
  for (int k = 0; k < 5; k++) F[k] = 0.5 * (FL[k] + FR[k] - D[k]) * S;
}

/* stage (i), first order: face f's left and right states into QF[10 f ..] */
PDS_FV_HD void fv_face_states1(const struct pds_fv_dev *D, pds_int f, const pds_real *Q, pds_real *QF) {
  const pds_int   l = D->face_cell[2 * f], r = D->face_cell[2 * f + 1];
  const pds_real *R = r >= 0 ? Q + 5 * (size_t)r : D->face_kind[f] == PDS_FV_FREESTREAM ? D->qinf : Q + 5 * (size_t)l;
  pds_real       *o = QF + 10 * (size_t)f;

  for (int k = 0; k < 5; k++) o[k] = Q[5 * (size_t)l + k], o[5 + k] = R[k];
}

/* order 2: cell c's 9 coefficients of variable v, PC[45 c + 9 v + h] = sum_g A_c[h][g] (Q_G[v] - Q_c[v]), the stencil's
   columns in order (2 flops per matrix entry: 18 NG + NG a variable) */
PDS_FV_HD void fv_recon_cell_var(const struct pds_fv_dev *D, pds_int c, int v, const pds_real *Q, pds_real *PC) {
  const pds_int   b = D->ste[c], e = D->ste[c + 1];
  const pds_real  qc = Q[5 * (size_t)c + v];
  pds_real        s[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};

  for (pds_int g = b; g < e; g++) {
    const pds_real  d = Q[5 * (size_t)D->sta[g] + v] - qc;
    const pds_real *a = D->mat + 9 * (size_t)g;

    for (int h = 0; h < 9; h++) s[h] = s[h] + a[h] * d;
  }
  for (int h = 0; h < 9; h++) PC[45 * (size_t)c + 9 * v + h] = s[h];
}

/* order 2: the value of cell c's 5 polynomials at the point x (Section 2.2's P), into o[5] */
PDS_FV_HD void fv_poly_eval(const struct pds_fv_dev *D, pds_int c, const pds_real *Q, const pds_real *PC,
                            const pds_real x[3], pds_real o[5]) {
  const pds_real *ap = D->ap + 9 * (size_t)c;
  const pds_real  dx = x[0] - ap[6], dy = x[1] - ap[7], dz = x[2] - ap[8];
  const pds_real  m[9] = {dx * dx - ap[0], dy * dy - ap[1], dz * dz - ap[2], dx * dy - ap[3], dx * dz - ap[4],
                          dy * dz - ap[5], dx, dy, dz};

  for (int v = 0; v < 5; v++) {
    const pds_real *C = PC + 45 * (size_t)c + 9 * v;
    pds_real        s = 0;

    for (int h = 0; h < 9; h++) s = s + C[h] * m[h];
    o[v] = Q[5 * (size_t)c + v] + s;
  }
}

/* stage (i), order 2: face f's left and right states at its barycentre into QF[10 f ..] */
PDS_FV_HD void fv_face_states2(const struct pds_fv_dev *D, pds_int f, const pds_real *Q, const pds_real *PC,
                               pds_real *QF) {
  const pds_int   l = D->face_cell[2 * f], r = D->face_cell[2 * f + 1];
  const pds_real *x = D->face_centre + 3 * (size_t)f;
  pds_real       *o = QF + 10 * (size_t)f;

  fv_poly_eval(D, l, Q, PC, x, o);
  if (r >= 0) fv_poly_eval(D, r, Q, PC, x, o + 5);
  else if (D->face_kind[f] == PDS_FV_FREESTREAM)
    for (int k = 0; k < 5; k++) o[5 + k] = D->qinf[k];
  else
    for (int k = 0; k < 5; k++) o[5 + k] = o[k];
}

/* face f's flux for the states qL (its first cell's side) and qR (the other side: unused on a wall) into g[5]: the
   wall flux of qL on a wall face, else Roe's flux; every flux the fv and fvjac groups compute goes through here */
PDS_FV_HD void fv_face_flux_lr(const struct pds_fv_dev *D, pds_int f, const pds_real qL[5], const pds_real qR[5],
                               pds_real g[5]) {
  const pds_real *a = D->face_area + 3 * (size_t)f;

  if (D->face_kind[f] == PDS_FV_WALL) fv_flux_wall(D->gamma, qL, a, g);
  else fv_flux_roe(D->gamma, D->efix, qL, qR, a, g);
}

/* stage (ii): face f's flux into F[5 f ..] */
PDS_FV_HD void fv_face_flux(const struct pds_fv_dev *D, pds_int f, const pds_real *QF, pds_real *F) {
  const pds_real *q = QF + 10 * (size_t)f;

  fv_face_flux_lr(D, f, q, q + 5, F + 5 * (size_t)f);
}

/* stages (i) and (ii) fused: face f's flux from the cells' values (PC NULL: order 1) or their polynomials at the
   face barycentre (order 2) into g[5]: the values fv_face_states1 / fv_face_states2 and then fv_face_flux give */
PDS_FV_HD void fv_face_flux_q(const struct pds_fv_dev *D, pds_int f, const pds_real *Q, const pds_real *PC,
                              pds_real g[5]) {
  const pds_int l = D->face_cell[2 * f], r = D->face_cell[2 * f + 1];

  if (PC) {
    const pds_real *x = D->face_centre + 3 * (size_t)f;
    pds_real        q[10];

    fv_poly_eval(D, l, Q, PC, x, q);
    if (r >= 0) fv_poly_eval(D, r, Q, PC, x, q + 5);
    else /* a wall's flux does not read the right state: the left one again, as fv_face_states2 has it */
      for (int k = 0; k < 5; k++) q[5 + k] = D->face_kind[f] == PDS_FV_WALL ? q[k] : D->qinf[k];
    fv_face_flux_lr(D, f, q, q + 5, g);
  } else
    fv_face_flux_lr(D, f, Q + 5 * (size_t)l, r >= 0 ? Q + 5 * (size_t)r : D->qinf, g);
}

/* the colour summation's step for face f (and the atomic one's on /cpu/ref): its flux g, then R_left -= g and
   R_right += g */
PDS_FV_HD void fv_face_add(const struct pds_fv_dev *D, pds_int f, const pds_real *Q, const pds_real *PC, pds_real *R) {
  const pds_int l = D->face_cell[2 * f], r = D->face_cell[2 * f + 1];
  pds_real      g[5];

  fv_face_flux_q(D, f, Q, PC, g);
  for (int v = 0; v < 5; v++) R[5 * (size_t)l + v] = R[5 * (size_t)l + v] - g[v];
  if (r >= 0)
    for (int v = 0; v < 5; v++) R[5 * (size_t)r + v] = R[5 * (size_t)r + v] + g[v];
}

/* the cell summation: cell c's residual from its faces' fluxes computed here (fv_face_flux_q, the face's first cell
   on the left) in cell_face order: fv_cell_sum's sums of the same values, so its bits */
PDS_FV_HD void fv_cell_fluxes(const struct pds_fv_dev *D, pds_int c, const pds_real *Q, const pds_real *PC,
                              pds_real *R) {
  pds_real s[5] = {0, 0, 0, 0, 0};

  for (pds_int k = D->cell_ptr[c]; k < D->cell_ptr[c + 1]; k++) {
    const pds_int e = D->cell_face[k], f = e >= 0 ? e : -1 - e;
    pds_real      g[5];

    fv_face_flux_q(D, f, Q, PC, g);
    for (int v = 0; v < 5; v++) s[v] = e >= 0 ? s[v] - g[v] : s[v] + g[v];
  }
  for (int v = 0; v < 5; v++) R[5 * (size_t)c + v] = s[v];
}

/* stage (iii): cell c's residual R[5 c ..] = - the signed sum of its faces' fluxes in cell_face order */
PDS_FV_HD void fv_cell_sum(const struct pds_fv_dev *D, pds_int c, const pds_real *F, pds_real *R) {
  pds_real s[5] = {0, 0, 0, 0, 0};

  for (pds_int k = D->cell_ptr[c]; k < D->cell_ptr[c + 1]; k++) {
    const pds_int   e = D->cell_face[k], f = e >= 0 ? e : -1 - e;
    const pds_real *g = F + 5 * (size_t)f;

    for (int v = 0; v < 5; v++) s[v] = e >= 0 ? s[v] - g[v] : s[v] + g[v];
  }
  for (int v = 0; v < 5; v++) R[5 * (size_t)c + v] = s[v];
}

/* lambda_c = sum over cell c's faces of |u . a| + c |a| (u, c of the cell's state Q[5 c ..], a a face's area vector):
   V / tau of the local time step at CFL 1 (the explicit step's, and the implicit Jacobian's diagonal term) */
PDS_FV_HD pds_real fv_cell_lambda(const struct pds_fv_dev *D, pds_int c, const pds_real *Q) {
  const pds_real *q = Q + 5 * (size_t)c;
  const pds_real  u = q[1] / q[0], v = q[2] / q[0], w = q[3] / q[0];
  const pds_real  cs = sqrt(D->gamma * fv_pressure(D->gamma, q) / q[0]);
  pds_real        lam = 0;

  for (pds_int k = D->cell_ptr[c]; k < D->cell_ptr[c + 1]; k++) {
    const pds_int   e = D->cell_face[k], f = e >= 0 ? e : -1 - e;
    const pds_real *a = D->face_area + 3 * (size_t)f;

    lam += fabs(u * a[0] + v * a[1] + w * a[2]) + cs * sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  }
  return lam;
}

/* the explicit step of cell c: tau = cfl V / lambda_c, Q += tau R / V; returns tau */
PDS_FV_HD pds_real fv_cell_update(const struct pds_fv_dev *D, pds_int c, pds_real cfl, const pds_real *R, pds_real *Q) {
  pds_real      *q = Q + 5 * (size_t)c;
  const pds_real V = D->cell_volume[c], tau = cfl * V / fv_cell_lambda(D, c, Q);

  for (int k = 0; k < 5; k++) q[k] += tau * R[5 * (size_t)c + k] / V;
  return tau;
}

#endif
