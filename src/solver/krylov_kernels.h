/* src/solver/krylov_kernels.h: the Krylov kernel group (struct pds_kernels' member krylov, src/backend/backend.h):
 * the fused steps of CG and BiCGSTAB, the scalar step, whole iterations in one launch, and the device loop. Each
 * backend fills it in its own file (ref/ref_krylov.c, omp/omp_krylov.c, cuda/cuda_krylov.c with the kernels of
 * cuda/cuda_vec.cu, cuda_krylov.cu, cuda_small.cu, cuda_coop.cu); vec.c, mat_fused.c and loop.c call it as
 * ctx->k->krylov.<slot>. */
#ifndef PDS_KRYLOV_KERNELS_H
#define PDS_KRYLOV_KERNELS_H

#include "pdesolve.h"

struct pds_csr;

struct pds_krylov_kernels {
  /* fused Krylov steps (Ginkgo's cg step_1/step_2 idea): one pass instead of two or three. S is the method's
     scalar vector in backend memory, laid out as src/backend/krylov_step.h says (S[0..8): the reductions; the
     carried scalars PDS_KS_ALPHA, ...; PDS_KS_XP: what the update kernels do). Every scalar comes from S, never
     from the host, so an iteration can be queued (or captured in a graph) without waiting for the last one. Every
     expression is the one the unfused solver evaluates, so a backend that composes these from its own kernels
     (ref does) gives the unfused bits.
     cg_update_r:    a = S[RHO] / S[0] if S[0] is finite and nonzero, else 0;  r = -a q + 1 r;  S[1] = r . r;
                     then, when step >= 0, the scalar step `step` on S (krylov_step's work, in the same kernel on a
                     device: one launch less per iteration)
     cg_update_xp:   with m = S[XP]: m & X: x = S[ALPHA] p + 1 x; m & P: p = 1 z + S[BETA] p   (x first)
     bicg_update_s:  a = S[RHO] / S[0] if S[0] is finite and nonzero, else 0;  w = -a v + 1 r;  S[1] = w . w
     bicg_update_r:  o = S[2] / S[3] if S[3] is finite and nonzero, else 0;  r = -o t + 1 w;
                     S[4] = r . rhat;  S[5] = r . r;  then the scalar step `step` when step >= 0 (as cg_update_r)
     bicg_update_xp: with m = S[XP], alpha, omega, beta from S: m & X: x = alpha ph + omega sh + 1 x;
                     m & HALF: x = alpha ph + 1 x; m & P: p = 1 r + (-beta omega) v + beta p  (ph may alias p)
     step:           the scalar step of a method on S (krylov_step.h: PDS_KS_STEP_CG -> pds_ks_cg_step, ...): one
                     thread's work; a device backend runs it as a one-thread kernel
     set:            S[0 .. PDS_KS_N) = v (host values), queued without waiting for the device (a solve's start) */
  int (*cg_update_r)(pds_ctx, pds_size n, const pds_real *q, pds_real *r, pds_real *S, int step);
  int (*cg_update_xp)(pds_ctx, pds_size n, const pds_real *z, pds_real *x, pds_real *p, const pds_real *S);
  int (*bicg_update_s)(pds_ctx, pds_size n, const pds_real *r, const pds_real *v, pds_real *w, pds_real *S);
  int (*bicg_update_r)(pds_ctx, pds_size n, const pds_real *w, const pds_real *t, const pds_real *rhat, pds_real *r,
                       pds_real *S, int step);
  int (*bicg_update_xp)(pds_ctx, pds_size n, const pds_real *ph, const pds_real *sh, const pds_real *r,
                        const pds_real *v, pds_real *x, pds_real *p, const pds_real *S);
  /* optional (NULL, or *done = 0: the caller queues the steps one by one): one whole iteration of cg / bicgstab
     without a preconditioner on a csr operator in one launch, where the backend can (/gpu/cuda: one block up to
     2048 unknowns, cuda_small.cu; one cooperative grid up to 2^18, cuda_coop.cu), with the bits of the sequence it
     replaces:
       cg_iteration:   csr.spmv_dot(A, p -> q, w1 = p, d = S); cg_update_r(q, r, S, PDS_KS_STEP_CG);
                       cg_update_xp(z = r, x, p, S)
       bicg_iteration: csr.spmv_dot(A, p -> v, w1 = rhat, d = S); bicg_update_s(r, v -> s, S);
                       csr.spmv_dot(A, s -> t, w1 = s, w2 = t, d = S + 2); bicg_update_r(s, t, rhat -> r, S,
                       PDS_KS_STEP_BICG); bicg_update_xp(ph = p, sh = s, r, v, x, p, S) */
  int (*cg_iteration)(pds_ctx, const struct pds_csr *A, pds_real *x, pds_real *r, pds_real *p, pds_real *q,
                      pds_real *S, int *done);
  int (*bicg_iteration)(pds_ctx, const struct pds_csr *A, pds_real *x, pds_real *r, const pds_real *rhat,
                        pds_real *p, pds_real *v, pds_real *s, pds_real *t, pds_real *S, int *done);
  int (*step)(pds_ctx, int method, pds_real *S);
  int (*set)(pds_ctx, pds_real *S, const pds_real *v);
  /* optional (device backends; NULL: the solver's host loop): iterations run by the device, the host reading each
     one's record afterwards (src/solver/loop.c drives them; cuda.c says how /gpu/cuda does it).
     loop_begin:  start recording this context's launches as the body of a device-side loop over S whose first
                  iteration is number first, for vectors of length n (the solver then queues *copies iterations, each
                  ending in step and the update kernel: the backend picks copies from n); *loop: NULL the first
                  time, then the same handle again (the backend may keep what it made for the last recording);
                  PDS_ERR_UNSUPPORTED: no device loops here (the host loop goes on);
     loop_end:    end the recording and make the loop runnable;
     loop_restart: run the loop last recorded again, from iteration first (instead of loop_begin, body, loop_end:
                  the caller knows that nothing the body used has changed);
     loop_next:   the record of the next iteration, rec[0..5) = S[PDS_KS_IT .. PDS_KS_ITS], waiting for it (the
                  device runs ahead; it stops by itself after an iteration whose S[PDS_KS_REASON] is not 0);
     loop_finish: stop the device at the next iteration boundary if it still runs and wait (also after a failed
                  loop_begin / loop_end / loop_next: a recording still on is ended; loop may be NULL);
     loop_free:   release the handle (its owner, the solver, is destroyed). */
  int (*loop_begin)(pds_ctx, pds_real *S, int first, pds_int n, void **loop, int *copies);
  int (*loop_free)(pds_ctx, void *loop);
  int (*loop_end)(pds_ctx, void *loop);
  int (*loop_restart)(pds_ctx, void *loop, int first);
  int (*loop_next)(pds_ctx, void *loop, pds_real *rec);
  int (*loop_finish)(pds_ctx, void *loop);
};

#endif
