/* src/backend/krylov_step.h: the scalar work of one Krylov iteration, as pure functions of the method's scalar
 * vector S, shared by every backend's step kernels (cg_step, bicg_step, loop_step) and by the solver layer's host
 * convergence test (src/solver/solver.c), so the host and the device take the same decisions on the same bits.
 *
 * Why: with the scalars computed where the vectors live, an iteration needs no value from the host, so a GPU can
 * run iteration after iteration (a CUDA graph, src/backend/cuda/cuda_krylov.c) while the host reads each iteration's
 * record afterwards. The step after the iteration's reductions computes alpha, beta, omega, takes every decision
 * of the method (breakdown, the convergence test), and tells the update kernel that follows it what to do
 * (S[PDS_KS_XP]): nothing, x only, x and the next direction, or BiCGSTAB's half step.
 *
 * Bits: only IEEE *, / and sqrt and comparisons (no sum a compiler could contract into an FMA), the same
 * expressions, in the same order, as the host code they replaced: the decisions and scalars are bitwise those of
 * the host loop.
 *
 * Layout of S (PDS_KS_N reals, backend memory): [0, 8) the iteration's reductions (per method, below); then the
 * test's constants (set once per solve by the host), the method's carried scalars, and the record of the last
 * iteration (what the host reads). */
#ifndef PDS_KRYLOV_STEP_H
#define PDS_KRYLOV_STEP_H

#include <math.h>

#include "pdesolve.h"

#if defined(__CUDACC__)
#define PDS_KS_HD static inline __host__ __device__
#else
#define PDS_KS_HD static inline
#endif

enum {
  /* reductions: CG S_0 = (p,Ap), S_1 = (r,r), S_2 = (r,z); BiCGSTAB S_0 = (rhat,v), S_1 = (s,s), S_2 = (t,s),
     S_3 = (t,t), S_4 = (r,rhat), S_5 = (r,r); Richardson S_0 = (r,r) */
  PDS_KS_RED = 0,
  /* the test's constants */
  PDS_KS_TOL = 8, /* rtol ||b||_2 */
  PDS_KS_ATOL,
  PDS_KS_DTOL,
  PDS_KS_RNORM0,  /* ||r_0||_2 */
  PDS_KS_MAXIT,
  PDS_KS_NOPC,    /* 1: no preconditioner (CG: z is r) */
  /* carried scalars */
  PDS_KS_ALPHA,
  PDS_KS_BETA,
  PDS_KS_OMEGA,
  PDS_KS_RHO,     /* CG: (r,z); BiCGSTAB: (rhat,r) */
  PDS_KS_RHO_OLD,
  PDS_KS_PQ_OLD,  /* CG: the last (p,Ap), whose sign the next must have */
  PDS_KS_XP,      /* what the update after the step does: PDS_KS_XP_* bits (Richardson: the next x update) */
  /* the record of the last iteration */
  PDS_KS_IT,      /* its number */
  PDS_KS_TESTED,  /* 1: the convergence test ran (history and monitor get RNORM) */
  PDS_KS_RNORM,
  PDS_KS_REASON,  /* 0: go on; else the solve's reason */
  PDS_KS_ITS,     /* the iteration count that goes with REASON (it - 1 for a breakdown found before the update) */
  PDS_KS_N
};
enum { PDS_KS_XP_X = 1, PDS_KS_XP_P = 2, PDS_KS_XP_HALF = 4 };
/* the methods of the krylov.step kernel slot */
enum { PDS_KS_STEP_CG = 0, PDS_KS_STEP_BICG = 1, PDS_KS_STEP_NORM = 2 };
/* the record the host reads after each iteration: S[PDS_KS_IT .. PDS_KS_IT + PDS_KS_REC) */
#define PDS_KS_REC 5

/* The coefficient a fused update takes from S: S[num] / S[den], or 0 when S[den] is 0 or not finite (the step has
   then ended the solve, and the update must leave its vector as it is). CG's and BiCGSTAB's r and s updates:
   pds_ks_ratio(S, PDS_KS_RHO, 0); BiCGSTAB's omega: pds_ks_ratio(S, 2, 3). */
PDS_KS_HD pds_real pds_ks_ratio(const pds_real *S, int num, int den) {
  return S[den] != 0 && isfinite(S[den]) ? S[num] / S[den] : 0;
}

/* The convergence test on ||r||_2 after iteration it (the host's pds_solver_test and the device steps): NaN,
   atol, rtol (tol = rtol ||b||_2), dtol (rnorm > dtol ||r_0||_2, it > 0), then maxit; 0 = go on. */
PDS_KS_HD int pds_ks_conv(pds_real rnorm, int it, pds_real atol, pds_real tol, pds_real dtol, pds_real rnorm0,
                          int maxit) {
  if (!isfinite(rnorm)) return PDS_DIVERGED_NAN;
  if (rnorm <= atol) return PDS_CONVERGED_ATOL;
  if (rnorm <= tol) return PDS_CONVERGED_RTOL;
  if (it > 0 && rnorm > dtol * rnorm0) return PDS_DIVERGED_DTOL;
  if (it >= maxit) return PDS_DIVERGED_MAXIT;
  return PDS_ITERATING;
}

/* Record the test of iteration it on rnorm. */
PDS_KS_HD int pds_ks_test(pds_real *S, int it, pds_real rnorm) {
  int reason = pds_ks_conv(rnorm, it, S[PDS_KS_ATOL], S[PDS_KS_TOL], S[PDS_KS_DTOL], S[PDS_KS_RNORM0],
                           (int)S[PDS_KS_MAXIT]);

  S[PDS_KS_TESTED] = 1;
  S[PDS_KS_RNORM]  = rnorm;
  S[PDS_KS_REASON] = reason;
  S[PDS_KS_ITS]    = it;
  return reason;
}

/* Start of a step: the next iteration's number; nothing tested, nothing to update yet. */
PDS_KS_HD int pds_ks_begin(pds_real *S) {
  int it = (int)S[PDS_KS_IT] + 1;

  S[PDS_KS_IT]     = it;
  S[PDS_KS_TESTED] = 0;
  S[PDS_KS_REASON] = 0;
  S[PDS_KS_ITS]    = it;
  S[PDS_KS_XP]     = 0;
  return it;
}

/* End the solve at iteration its with a reason the test did not give. */
PDS_KS_HD void pds_ks_stop(pds_real *S, int its, int reason) {
  S[PDS_KS_REASON] = reason;
  S[PDS_KS_ITS]    = its;
}

/* CG (src/solver/cg.c) after q = A p, the r update and z = M^-1 r: the checks on (p,Ap) (zero, not finite, or of
   the other sign than last time: A indefinite, x as before the iteration), alpha = rz / (p,Ap), the test on
   sqrt((r,r)) (x += alpha p whatever it says), beta = rz_new / rz_old and the check on rz_new (M indefinite: the
   solve ends after this iteration's update, as the next iteration would find it). */
PDS_KS_HD void pds_ks_cg_step(pds_real *S) {
  const int      it = pds_ks_begin(S);
  const pds_real pq = S[PDS_KS_RED + 0], rr = S[PDS_KS_RED + 1];
  pds_real       rz = S[PDS_KS_RHO], rz_old, alpha;

  if (!isfinite(pq) || pq == 0 || (it > 1 && (pq < 0) != (S[PDS_KS_PQ_OLD] < 0))) {
    pds_ks_stop(S, it - 1, !isfinite(pq) ? PDS_DIVERGED_NAN : PDS_DIVERGED_INDEFINITE);
    return;
  }
  S[PDS_KS_PQ_OLD] = pq;
  alpha            = rz / pq;
  S[PDS_KS_ALPHA]  = alpha;
  rz_old           = rz;
  rz               = S[PDS_KS_NOPC] != 0 ? rr : S[PDS_KS_RED + 2];
  S[PDS_KS_XP]     = PDS_KS_XP_X;
  if (pds_ks_test(S, it, sqrt(rr))) return;
  S[PDS_KS_BETA]    = rz / rz_old;
  S[PDS_KS_RHO_OLD] = rz_old;
  S[PDS_KS_RHO]     = rz;
  S[PDS_KS_XP]      = PDS_KS_XP_X | PDS_KS_XP_P;
  if (!isfinite(rz) || rz == 0 || (rz < 0) != (rz_old < 0))
    pds_ks_stop(S, it, !isfinite(rz) ? PDS_DIVERGED_NAN : PDS_DIVERGED_INDEFINITE);
}

/* BiCGSTAB (src/solver/bicgstab.c) after the s and r updates: (rhat,v) zero or not finite is a breakdown (x as
   before); alpha = rho / (rhat,v); ||s|| small enough ends with the half step x += alpha ph; (t,t) zero or not
   finite is a breakdown; omega = (t,s)/(t,t), rho = (rhat,r), the test on sqrt((r,r)); x += alpha ph + omega sh
   whatever it says, and omega = 0 or rho = 0 end the solve there (breakdown); else beta, and the p update. */
PDS_KS_HD void pds_ks_bicg_step(pds_real *S) {
  const int it  = pds_ks_begin(S);
  pds_real  rv  = S[PDS_KS_RED + 0], rho = S[PDS_KS_RHO], tt = S[PDS_KS_RED + 3], alpha, omega, snorm, tol;

  if (rv == 0 || !isfinite(rv)) {
    pds_ks_stop(S, it - 1, isfinite(rv) ? PDS_DIVERGED_BREAKDOWN : PDS_DIVERGED_NAN);
    return;
  }
  alpha           = rho / rv;
  S[PDS_KS_ALPHA] = alpha;
  snorm           = sqrt(S[PDS_KS_RED + 1]);
  tol             = fmax(S[PDS_KS_ATOL], S[PDS_KS_TOL]);
  if (snorm <= tol) { /* the half step is enough */
    S[PDS_KS_XP] = PDS_KS_XP_HALF;
    pds_ks_test(S, it, snorm);
    return;
  }
  if (tt == 0 || !isfinite(tt)) {
    pds_ks_stop(S, it - 1, isfinite(tt) ? PDS_DIVERGED_BREAKDOWN : PDS_DIVERGED_NAN);
    return;
  }
  omega             = S[PDS_KS_RED + 2] / tt;
  S[PDS_KS_OMEGA]   = omega;
  S[PDS_KS_RHO_OLD] = rho;
  rho               = S[PDS_KS_RED + 4];
  S[PDS_KS_RHO]     = rho;
  S[PDS_KS_XP]      = PDS_KS_XP_X;
  if (pds_ks_test(S, it, sqrt(S[PDS_KS_RED + 5]))) return;
  if (omega == 0 || rho == 0) {
    pds_ks_stop(S, it, PDS_DIVERGED_BREAKDOWN);
    return;
  }
  S[PDS_KS_BETA] = (rho / S[PDS_KS_RHO_OLD]) * (alpha / omega);
  S[PDS_KS_XP]   = PDS_KS_XP_X | PDS_KS_XP_P;
}

/* A method whose only decision is the test on sqrt(S_0) (Richardson: S_0 = (r,r) of the new residual); the next
   iteration's x update (x += alpha z, before its step) runs while the solve goes on. */
PDS_KS_HD void pds_ks_norm_step(pds_real *S) {
  const int it = pds_ks_begin(S);

  if (!pds_ks_test(S, it, sqrt(S[PDS_KS_RED + 0]))) S[PDS_KS_XP] = PDS_KS_XP_X;
}

/* The step of method m (PDS_KS_STEP_*); 0, or -1 for an unknown method. After the solve ended (S[REASON] set by an
   earlier step) it changes nothing but S[XP] = 0: a device loop that runs a few iterations per round
   (cuda_krylov.c) may queue iterations past the last one, and those leave x and the record alone. */
PDS_KS_HD int pds_ks_step(int m, pds_real *S) {
  if (m < PDS_KS_STEP_CG || m > PDS_KS_STEP_NORM) return -1;
  if (S[PDS_KS_REASON] != 0) {
    S[PDS_KS_XP] = 0;
    return 0;
  }
  if (m == PDS_KS_STEP_CG) pds_ks_cg_step(S);
  else if (m == PDS_KS_STEP_BICG) pds_ks_bicg_step(S);
  else pds_ks_norm_step(S);
  return 0;
}

#endif
