/* src/solver/solver_impl.h: Krylov solver internals: the ops each method fills, the common object, and the
 * helpers every method uses (work vectors, preconditioner apply, convergence test). Methods see only pds_vec_*,
 * pds_mat_apply and pds_precond_apply, never a backend. */
#ifndef PDS_SOLVER_IMPL_H
#define PDS_SOLVER_IMPL_H

#include <stdio.h>

#include "../precond/precond_impl.h"

struct pds_solver_ops {
  int (*setup)(pds_solver s);                       /* allocate work (A is set) */
  int (*solve)(pds_solver s, pds_vec b, pds_vec x); /* iterate; result in s->res */
  int (*view)(pds_solver s, FILE *f);
  int (*destroy)(pds_solver s);
};

struct pds_solver_s {
  struct pds_header     hdr;
  const char           *type;
  struct pds_solver_ops ops;
  pds_mat               A;
  pds_precond           pc;        /* never NULL after setup: "none" if the user gave none */
  pds_real              rtol, atol, inftol, dtol, omega;
  int                   maxit, restart;
  int                   orthog_passes; /* gmres/fgmres: 2 = CGS2 (default), 1 = CGS */
  int                   device_loop;   /* 1: iterations may run as a device loop (src/solver/loop.c); 0: never */
  void                 *loop;          /* the backend's device loop, kept from one solve to the next */
  struct pds_loop_key {                /* what the recorded loop depends on (src/solver/loop.c) */
    const void   *ptr[8];
    unsigned long pc_state, mat_id;
    pds_real      omega;
    pds_int       n;
  } loop_key;
  pds_monitor_fn        monitor;
  void                 *monitor_user;
  int                   keep_history;
  pds_real             *hist;
  int                   hist_len, hist_cap;
  int                   setup_done;
  pds_vec              *work;      /* nwork vectors like the operator's columns */
  int                   nwork;
  pds_vec               rinf;      /* residual for the infinity-norm test */
  int                   precision; /* pds_precision (src/solver/precision.c) */
  pds_vec               bf, xf;    /* single and mixed: b (or the refinement's residual) and x in float */
  pds_vec               rd;        /* mixed: the true residual, in double */
  pds_solver            outer;     /* mixed: the double-precision FGMRES whose preconditioner is the float solve */
  int                   mixed_its; /* mixed: the inner iterations of this solve so far */
  pds_real              inner_scale; /* mixed: what an inner norm (relative to ||v|| = 1) is recorded times: the outer
                                        residual before the step */
  int                   keep_dir;  /* mixed cg: this solve continues the last one's search direction from a replaced
                                      residual (a reliable update, precision.c); only cg reads it */
  int                   inner;     /* mixed: an inner solve runs (its iteration 0 is not recorded; the monitor numbers
                                      its iterations on from mixed_its) */
  pds_solver_result     res;
  void                 *data;      /* private to one method */
};

/* Make sure s has n work vectors (created once, reused by every solve; single-precision ones when the solver's
   precision is not double). pds_solver_free_work releases them and every vector sized like the operator. */
PDS_INTERN int pds_solver_work(pds_solver s, int n);
PDS_INTERN void pds_solver_free_work(pds_solver s);
/* src/solver/precision.c: setup checks and vectors of a single or mixed precision solver (nothing in double), and
   its solve (after pds_solver_begin) */
PDS_INTERN int pds_solver_precision_setup(pds_solver s);
PDS_INTERN int pds_solver_solve_precision(pds_solver s, pds_vec b, pds_vec x);
/* y = M^-1 x with the solver's preconditioner. */
PDS_INTERN int pds_solver_pc_apply(pds_solver s, pds_vec x, pds_vec y);
/* Start a solve: record ||b||, clear history; *trivial = 1 when b = 0 (then x = 0 and the solve is done). */
PDS_INTERN int pds_solver_begin(pds_solver s, pds_vec b, pds_vec x, int *trivial);
/* The convergence test after iteration it with tracked residual 2-norm rnorm (it = 0: initial residual).
   x may be NULL when the iterate is not formed (then the infinity-norm test is skipped). Sets s->res.reason
   (0 = go on) and records history and monitor. */
PDS_INTERN int pds_solver_test(pds_solver s, int it, pds_real rnorm, pds_vec b, pds_vec x);
/* The infinity-norm test on a formed iterate x (no-op when inftol is 0): may set PDS_CONVERGED_INF. */
PDS_INTERN int pds_solver_test_inf(pds_solver s, pds_vec b, pds_vec x);
/* End with a breakdown or other divergence reason at iteration it. */
PDS_INTERN void pds_solver_diverged(pds_solver s, int it, int reason);
/* Record the residual norm of iteration it: result fields, history, monitor (no decision). */
PDS_INTERN int pds_solver_record(pds_solver s, int it, pds_real rnorm);

/* Methods whose iteration takes no value from the host (src/solver/loop.c): one call of body queues iteration k,
   ending in pds_vec_krylov_step on the scalar vector S and the update that follows it; everything the iteration
   decides is in S's record. pds_solver_loop_init sets S's test constants for a solve whose iteration 0 was tested
   (carry: the method's carried scalars, PDS_KS_ALPHA .. PDS_KS_XP, may be NULL); pds_solver_loop runs
   iterations 1, 2, ... until the record gives a reason: on the host (queue, read the record, repeat), or, where
   the backend has a device loop and everything the body calls can be recorded, iteration 1 on the host and the
   rest as a device loop whose records the host reads behind it. Either way the history, the monitor and the
   result see every iteration, in order, with the same numbers. */
typedef int (*pds_solver_body)(pds_solver s, void *data);
/* setup of such a method: nwork work vectors and S (s->data); destroy: S */
PDS_INTERN int pds_solver_loop_setup(pds_solver s, int nwork);
PDS_INTERN int pds_solver_loop_destroy(pds_solver s);
PDS_INTERN int pds_solver_loop_init(pds_solver s, pds_vec S, int nopc, const pds_real *carry);
PDS_INTERN int pds_solver_loop(pds_solver s, pds_vec S, pds_solver_body body, void *data, pds_vec b, pds_vec x);

#define PDS_SOLVER(name, create) PDS_INTERN int create(pds_solver s);
#include "solver_list.h"
#undef PDS_SOLVER

#endif
