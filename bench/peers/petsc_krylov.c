/* bench/peers/petsc_krylov.c: PETSc, the CPU peer, against pdesolve on the same cores, the same data and in the same
 * run: every Krylov method (cg, bicgstab, gmres, fgmres, richardson) with Jacobi on the 7-point Laplacian of an n^3
 * grid (bench_poisson.h's stencil7 rows: 6 on the diagonal, -1 per neighbour), b = A 1, x0 = 0, a fixed number of
 * iterations; and, one by one, the kernels such iterations are made of (product, dots, norms, vector updates,
 * Jacobi, GMRES's multi-vector dot and update).
 *
 *   petsc_krylov [-n 128] [-its 60] [-reps 5] [-warmup 1] [-solvers cg,bicgstab,gmres,gmres_cgs1,fgmres,richardson]
 *                [-kernels 1] [-calls 10] [-restart 30] [-copy_n 33554432] [-no_pin]
 *   mpiexec --bind-to none -n 2 petsc_krylov ...
 *
 * The same cores: with P ranks, pdesolve's /cpu/omp runs on rank 0 with P OpenMP threads (set here), while the other
 * ranks wait asleep; with one rank /cpu/ref runs too. Run the P-rank case unbound (OpenMPI binds each rank to a core
 * by default, which would put rank 0's threads on one core).
 * Rounds: each repetition times, one after the other, a STREAM-like copy (each rank copies its share with one
 * thread: the copy bandwidth of the P cores), PETSc's solve or kernel on all ranks, pdesolve /cpu/omp, then
 * /cpu/ref; each case's median over the repetitions is reported, and ratio = PETSc's time / pdesolve's.
 * Same methods: PETSc's KSP is set to what pdesolve computes: CG left-preconditioned (PETSc has no other side) and
 * the others right-preconditioned, every one stopping on the unpreconditioned residual norm; gmres uses classical
 * Gram-Schmidt with one reorthogonalization (PETSc's -ksp_gmres_cgs_refinement_type refine_always, pdesolve's
 * CGS2), gmres_cgs1 one CGS pass in both (PETSc's default, pdesolve's -orthog cgs: half the orthogonalization
 * traffic); richardson has damping 1. Validation first: both libraries ran the iterations, reduced the residual and,
 * doing the same arithmetic up to rounding, end at residual norms within 1e-6 of each other (printed); each kernel's
 * result matches PETSc's to rounding.
 * Output: one JSON object per line ("bench":"petsc_peer"); bench/scripts/petsc_table.py makes the ratio table.
 * Written against PETSc's public API (KSP, PC, Mat, Vec). */
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "bench_poisson.h"
#include "peers/peer_util.h"
#include "pdesolve.h" /* before PETSc's headers: their <complex.h> defines I, a parameter name of pdesolve.h */

#include <petscksp.h>

#define MAXV 64 /* GMRES's multi-vector kernels: at most this many vectors */

#define PDS_OK_OR_DIE(call)                                                                                    \
  do {                                                                                                         \
    int e_ = (call);                                                                                           \
    if (e_) {                                                                                                  \
      fprintf(stderr, "%s failed: %s\n", #call, pds_error_name(e_));                                           \
      MPI_Abort(PETSC_COMM_WORLD, 1);                                                                          \
    }                                                                                                          \
  } while (0)

static int rank_, size_;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}
static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* A barrier that sleeps instead of spinning, so a waiting rank leaves its core to rank 0's OpenMP threads: the
   polls back off from 20 us to 1 ms, so that a rank waiting through a long pdesolve turn wakes up at most 1000
   times a second (each wake-up preempts the pdesolve thread on that core). The delay this adds comes after rank
   0 has read its clock. */
static void idle_barrier(void) {
  MPI_Request     rq;
  int             done = 0;
  struct timespec ts   = {0, 20000};

  if (size_ == 1) return;
  MPI_Ibarrier(PETSC_COMM_WORLD, &rq);
  for (;;) {
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    if (done) break;
    nanosleep(&ts, NULL);
    if (ts.tv_nsec < 1000000) ts.tv_nsec *= 2;
  }
}

/* Pinning, as mpiexec --bind-to core and OMP_PROC_BIND=close do: rank r runs on the r-th CPU of the CPUs the process
   may use (taskset's), and rank 0's OpenMP thread t, which pdesolve uses, on the t-th; so neither library's work
   migrates between cores (Linux; elsewhere nothing is pinned). -no_pin leaves the scheduler free. */
#if defined(__linux__)
static int nth_cpu(const cpu_set_t *set, int k) {
  for (int c = 0, seen = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, set) && seen++ == k) return c;
  return -1;
}
static void pin_self(const cpu_set_t *set, int k) {
  int       c = nth_cpu(set, k);
  cpu_set_t one;

  if (c < 0) return;
  CPU_ZERO(&one);
  CPU_SET(c, &one);
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}
static void pin_all(void) {
  cpu_set_t set;

  if (sched_getaffinity(0, sizeof set, &set)) return;
  if (rank_ == 0) {
#pragma omp parallel num_threads(size_)
    {
#if defined(_OPENMP)
      pin_self(&set, omp_get_thread_num());
#else
      pin_self(&set, 0);
#endif
    }
  } else pin_self(&set, rank_);
}
#else
static void pin_all(void) {}
#endif

/* b = a over this rank's share of the copy arrays (one thread per rank), all ranks at once; the wall time */
static double copy_once(double *a, double *b, size_t n) {
  double t0;

  MPI_Barrier(PETSC_COMM_WORLD);
  t0 = MPI_Wtime();
  for (size_t i = 0; i < n; i++) b[i] = a[i];
  MPI_Barrier(PETSC_COMM_WORLD);
  return MPI_Wtime() - t0;
}

/* ---- the contenders ----------------------------------------------------------------------------------------- */
/* A case is timed for PETSc (all ranks) and for each pdesolve context (rank 0): t[0] PETSc, t[1] omp, t[2] ref. */
typedef struct {
  int (*petsc)(void *user);        /* collective */
  int (*pds)(void *user, int which); /* rank 0 only; which: 0 omp, 1 ref */
  void *user;
  int   ncontexts;                 /* 1: omp; 2: omp and ref */
} contest;

static double time_petsc(contest *c) {
  double t0;

  MPI_Barrier(PETSC_COMM_WORLD);
  t0 = MPI_Wtime();
  if (c->petsc(c->user)) MPI_Abort(PETSC_COMM_WORLD, 1);
  MPI_Barrier(PETSC_COMM_WORLD);
  return MPI_Wtime() - t0;
}
static double time_pds(contest *c, int which) {
  double t = 0;

  idle_barrier();
  if (rank_ == 0) {
    double t0 = MPI_Wtime();

    if (c->pds(c->user, which)) MPI_Abort(PETSC_COMM_WORLD, 1);
    t = MPI_Wtime() - t0;
  }
  idle_barrier();
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD);
  return t;
}

/* round-robin: copy, PETSc, pdesolve omp (and ref); med[0] copy, med[1] PETSc, med[2] omp, med[3] ref */
static void run_rounds(contest *c, int warmup, int reps, double *ca, double *cb, size_t cn, double *med) {
  double *t = malloc(sizeof(double) * 4 * (size_t)reps);

  for (int k = 0; k < warmup + reps; k++) {
    double t0 = copy_once(ca, cb, cn), t1 = time_petsc(c), t2 = time_pds(c, 0), t3 = 0;

    if (c->ncontexts > 1) t3 = time_pds(c, 1);
    if (k >= warmup) t[k - warmup] = t0, t[reps + k - warmup] = t1, t[2 * reps + k - warmup] = t2,
                     t[3 * reps + k - warmup] = t3;
  }
  for (int j = 0; j < 4; j++) med[j] = median(t + (size_t)j * reps, reps);
  free(t);
}

/* ---- solves ------------------------------------------------------------------------------------------------- */
typedef struct {
  KSP        ksp;
  Vec        b, x;
  pds_solver s[2];
  pds_vec    b_[2], x_[2];
} solve_case;

static int petsc_solve(void *u) {
  solve_case *c = u;

  PetscCall(VecSet(c->x, 0.0));
  PetscCall(KSPSolve(c->ksp, c->b, c->x));
  return 0;
}
static int pds_solve(void *u, int which) {
  solve_case *c = u;
  int         e = pds_vec_set(c->x_[which], 0.0);

  return e ? e : pds_solver_solve(c->s[which], c->b_[which], c->x_[which]);
}

/* ---- kernels ------------------------------------------------------------------------------------------------ */
typedef struct {
  const char *name;
  int         calls;
  /* PETSc */
  Mat A;
  PC  pc;
  Vec x, y, z, w, V[MAXV];
  PetscScalar vals[MAXV];
  /* pdesolve, per context */
  pds_mat     A_[2];
  pds_precond pc_[2];
  pds_vec     x_[2], y_[2], z_[2], w_[2], S_[2], V_[2][MAXV];
  pds_real    d;
  int         k; /* multi-vector kernels: how many vectors */
} kernel_case;

static int petsc_kernel(void *u) {
  kernel_case *c = u;
  PetscScalar  d;
  PetscReal    r;

  for (int i = 0; i < c->calls; i++) {
    if (!strcmp(c->name, "spmv")) PetscCall(MatMult(c->A, c->x, c->y));
    else if (!strcmp(c->name, "dot")) PetscCall(VecDot(c->x, c->y, &d));
    else if (!strcmp(c->name, "norm2")) { /* PETSc keeps the norm of an unchanged vector: a get/restore of the
                                             array (no data traffic) marks it changed */
      PetscScalar *a;

      PetscCall(VecGetArray(c->x, &a));
      PetscCall(VecRestoreArray(c->x, &a));
      PetscCall(VecNorm(c->x, NORM_2, &r));
    }
    else if (!strcmp(c->name, "dot_norm2")) PetscCall(VecDotNorm2(c->x, c->y, &d, &r));
    else if (!strcmp(c->name, "axpy")) PetscCall(VecAXPY(c->y, 1e-3, c->x));
    else if (!strcmp(c->name, "aypx")) PetscCall(VecAYPX(c->y, 0.5, c->x));
    else if (!strcmp(c->name, "waxpy")) PetscCall(VecWAXPY(c->w, 0.5, c->x, c->y));
    else if (!strcmp(c->name, "axpbypcz")) PetscCall(VecAXPBYPCZ(c->w, 0.5, 0.25, 0.125, c->x, c->y));
    else if (!strcmp(c->name, "jacobi")) PetscCall(PCApply(c->pc, c->x, c->y));
    else if (!strcmp(c->name, "mdot")) PetscCall(VecMDot(c->x, c->k, c->V, c->vals));
    else if (!strcmp(c->name, "maxpy")) PetscCall(VecMAXPY(c->y, c->k, c->vals, c->V));
    else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown kernel %s", c->name);
  }
  return 0;
}
static int pds_kernel(void *u, int j) {
  kernel_case *c = u;
  pds_real     d, e;
  int          ierr = 0;

  for (int i = 0; i < c->calls && !ierr; i++) {
    if (!strcmp(c->name, "spmv")) ierr = pds_mat_apply(c->A_[j], c->x_[j], c->y_[j]);
    else if (!strcmp(c->name, "dot")) ierr = pds_vec_dot(c->x_[j], c->y_[j], &c->d);
    else if (!strcmp(c->name, "norm2")) ierr = pds_vec_norm2(c->x_[j], &c->d);
    else if (!strcmp(c->name, "dot_norm2")) ierr = pds_vec_dot2(c->x_[j], c->y_[j], c->x_[j], &d, &e); /* (x,y), (x,x) */
    else if (!strcmp(c->name, "axpy")) ierr = pds_vec_axpy(c->y_[j], 1e-3, c->x_[j]);
    else if (!strcmp(c->name, "aypx")) ierr = pds_vec_aypx(c->y_[j], 0.5, c->x_[j]);
    else if (!strcmp(c->name, "waxpy")) ierr = pds_vec_waxpy(c->w_[j], 0.5, c->x_[j], c->y_[j]);
    else if (!strcmp(c->name, "axpbypcz")) ierr = pds_vec_axpbypcz(c->w_[j], 0.5, c->x_[j], 0.25, c->y_[j], 0.125);
    else if (!strcmp(c->name, "jacobi")) ierr = pds_precond_apply(c->pc_[j], c->x_[j], c->y_[j]);
    else if (!strcmp(c->name, "mdot")) ierr = pds_vec_mdot_into(c->x_[j], c->k, c->V_[j], c->S_[j], 0); /* host memory */
    else if (!strcmp(c->name, "maxpy")) ierr = pds_vec_maxpy_dev(c->y_[j], c->k, c->V_[j], c->S_[j], 0);
  }
  return ierr;
}

/* Byte models (8-byte reals, 4-byte PETSc indices; each array counted once, the write-allocate read of an output
   that is not an input not counted, as STREAM) and the kernels' names in the JSON lines. */
static double kernel_bytes(const char *name, double N, double nnz, int k) {
  if (!strcmp(name, "spmv")) return 12 * nnz + 4 * N + 16 * N; /* vals + colidx, row offsets, x, y */
  if (!strcmp(name, "dot") || !strcmp(name, "dot_norm2")) return 16 * N;
  if (!strcmp(name, "norm2")) return 8 * N;
  if (!strcmp(name, "axpy") || !strcmp(name, "aypx") || !strcmp(name, "waxpy") || !strcmp(name, "jacobi"))
    return 24 * N;
  if (!strcmp(name, "axpbypcz")) return 32 * N;
  if (!strcmp(name, "mdot")) return 8 * N * (k + 1);
  if (!strcmp(name, "maxpy")) return 8 * N * (k + 2);
  return 0;
}

/* deterministic test values, the same for both libraries: v_i = sin(seed + 0.37 i) */
static double fill_value(long i, int seed) { return sin(seed + 0.37 * (double)i); }

static PetscErrorCode petsc_fill(Vec v, int seed) {
  PetscInt     r0, r1;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(v, &r0, &r1));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt i = r0; i < r1; i++) a[i - r0] = fill_value((long)i, seed);
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(0);
}
static void pds_fill(pds_vec v, long N, int seed, double *buf) {
  for (long i = 0; i < N; i++) buf[i] = fill_value(i, seed);
  PDS_OK_OR_DIE(pds_vec_set_values(v, buf, PDS_MEM_HOST));
}

/* max |a - b| / max |b| between a PETSc vector (gathered to rank 0) and a pdesolve vector; on rank 0 */
static double vec_diff(Vec a, pds_vec b, double *buf) {
  VecScatter         sc;
  Vec                a0;
  const PetscScalar *pa;
  double             dm = 0, bm = 0;

  VecScatterCreateToZero(a, &sc, &a0);
  VecScatterBegin(sc, a, a0, INSERT_VALUES, SCATTER_FORWARD);
  VecScatterEnd(sc, a, a0, INSERT_VALUES, SCATTER_FORWARD);
  if (rank_ == 0) {
    pds_size n;

    PDS_OK_OR_DIE(pds_vec_get_size(b, &n));
    PDS_OK_OR_DIE(pds_vec_get_values(b, buf, PDS_MEM_HOST));
    VecGetArrayRead(a0, &pa);
    for (pds_size i = 0; i < n; i++) {
      double d = fabs(pa[i] - buf[i]);

      dm = d > dm || d != d ? d : dm;
      bm = fabs(pa[i]) > bm ? fabs(pa[i]) : bm;
    }
    VecRestoreArrayRead(a0, &pa);
  }
  VecScatterDestroy(&sc);
  VecDestroy(&a0);
  return bm > 0 ? dm / bm : dm;
}

/* one JSON line: med[1..3] PETSc, pdesolve omp, pdesolve ref (med[3] only with nctx > 1); copy_bw in bytes/s */
static void print_line(const char *what, const char *name, const char *cpu, long N, double nnz, int its,
                       const double *med, int nctx, double copy_bw, double bytes, const char *extra) {
  char ref[32] = "null", rr[32] = "null", fp[32] = "null", fo[32] = "null";

  if (nctx > 1) {
    snprintf(ref, sizeof ref, "%.6e", med[3]);
    snprintf(rr, sizeof rr, "%.4f", med[1] / med[3]);
  }
  if (bytes > 0) {
    snprintf(fp, sizeof fp, "%.3f", bytes / med[1] / copy_bw);
    snprintf(fo, sizeof fo, "%.3f", bytes / med[2] / copy_bw);
  }
  PetscPrintf(PETSC_COMM_WORLD,
              "{\"bench\":\"petsc_peer\",\"case\":\"%s\",\"kernel\":\"%s\",\"cpu\":\"%s\",\"ranks\":%d,"
              "\"threads\":%d,\"n\":%ld,\"nnz\":%.0f,\"its\":%d,\"petsc\":\"%d.%d.%d\",\"t_petsc_s\":%.6e,"
              "\"t_pds_omp_s\":%.6e,\"t_pds_ref_s\":%s,\"ratio_omp\":%.4f,\"ratio_ref\":%s,\"bytes\":%.6e,"
              "\"copy_gbs\":%.3f,\"frac_copy_petsc\":%s,\"frac_copy_pds_omp\":%s%s}\n",
              what, name, cpu, size_, size_, N, nnz, its, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR,
              PETSC_VERSION_SUBMINOR, med[1], med[2], ref, med[1] / med[2], rr, bytes, copy_bw * 1e-9, fp, fo, extra);
}

static const char *const kernel_names[] = {"spmv", "dot", "norm2", "dot_norm2", "axpy", "aypx", "waxpy",
                                           "axpbypcz", "jacobi", "mdot", "maxpy", NULL};

/* PETSc's KSP set to pdesolve's method (see the top of the file) */
static PetscErrorCode petsc_ksp(Mat A, const char *tok, PetscInt its, PetscInt restart, KSP *ksp) {
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  if (!strcmp(tok, "cg")) PetscCall(KSPSetType(*ksp, KSPCG));
  else if (!strcmp(tok, "bicgstab")) PetscCall(KSPSetType(*ksp, KSPBCGS));
  else if (!strcmp(tok, "gmres") || !strcmp(tok, "gmres_cgs1")) PetscCall(KSPSetType(*ksp, KSPGMRES));
  else if (!strcmp(tok, "fgmres")) PetscCall(KSPSetType(*ksp, KSPFGMRES));
  else if (!strcmp(tok, "richardson")) PetscCall(KSPSetType(*ksp, KSPRICHARDSON));
  else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "solver %s: cg, bicgstab, gmres, gmres_cgs1, fgmres or richardson",
               tok);
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  if (strcmp(tok, "cg") && strcmp(tok, "richardson")) PetscCall(KSPSetPCSide(*ksp, PC_RIGHT));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
  if (!strncmp(tok, "gmres", 5) || !strcmp(tok, "fgmres")) PetscCall(KSPGMRESSetRestart(*ksp, restart));
  if (!strcmp(tok, "gmres") || !strcmp(tok, "fgmres"))
    PetscCall(KSPGMRESSetCGSRefinementType(*ksp, KSP_GMRES_CGS_REFINE_ALWAYS));
  if (!strcmp(tok, "richardson")) PetscCall(KSPRichardsonSetScale(*ksp, 1.0));
  PetscCall(KSPSetTolerances(*ksp, 0.0, 0.0, PETSC_DEFAULT, its)); /* exactly its iterations */
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(0);
}

/* pdesolve's solver of the same method on context j */
static void pds_case(pds_ctx ctx, pds_mat A, const char *tok, int its, int restart, pds_solver *s) {
  pds_precond jp;

  PDS_OK_OR_DIE(pds_solver_create(ctx, !strcmp(tok, "gmres_cgs1") ? "gmres" : tok, s));
  PDS_OK_OR_DIE(pds_precond_create(ctx, "jacobi", &jp));
  PDS_OK_OR_DIE(pds_solver_set_operator(*s, A));
  PDS_OK_OR_DIE(pds_solver_set_precond(*s, jp));
  PDS_OK_OR_DIE(pds_precond_destroy(&jp));
  PDS_OK_OR_DIE(pds_solver_set_tolerances(*s, 0.0, 0.0, its));
  if (!strncmp(tok, "gmres", 5) || !strcmp(tok, "fgmres")) PDS_OK_OR_DIE(pds_solver_set_restart(*s, restart));
  if (!strcmp(tok, "gmres_cgs1")) PDS_OK_OR_DIE(pds_solver_set_orthogonalization(*s, "cgs"));
  PDS_OK_OR_DIE(pds_solver_setup(*s));
}

/* Byte model of one iteration, pdesolve's algorithm (charged to both libraries): P = one product, J = Jacobi */
static double solve_bytes(const char *tok, double N, double nnz, int restart) {
  double P = 12 * nnz + 8 * N + 16 * N, J = 24 * N, v = 8 * N;

  if (!strcmp(tok, "cg")) return P + J + 10 * v;            /* fused apply-dot, r update+dot, (r,z), x and p update */
  if (!strcmp(tok, "bicgstab")) return 2 * (P + J) + 15 * v; /* see src/solver/bicgstab.c */
  if (!strcmp(tok, "richardson")) return P + 16 * N + v + J + 3 * v; /* residual, norm, Jacobi, axpy */
  /* GMRES(m) / FGMRES(m), iteration k of a cycle: 4k + 13 passes with CGS2 (src/solver/gmres.c), 2k + 8 with one
     CGS pass, averaged over a cycle */
  if (!strcmp(tok, "gmres_cgs1")) return P + J + (2.0 * (restart - 1) / 2 + 8) * v;
  return P + J + (4.0 * (restart - 1) / 2 + 13) * v;
}

int main(int argc, char **argv) {
  PetscInt    n = 128, its = 60, reps = 5, warmup = 1, copy_n = 1 << 25, calls = 10, restart = 30, kmv = 30;
  PetscBool   kernels = PETSC_TRUE, no_pin = PETSC_FALSE;
  char        solvers[256] = "cg,bicgstab,gmres,gmres_cgs1,fgmres,richardson", cpu[128];
  PetscInt    rstart, rend, N;
  Mat         A;
  Vec         ones;
  double     *ca, *cb, *buf = NULL, copy_bw, nnz;
  size_t      cn;
  int         nctx = 0;
  pds_ctx     pctx[2] = {NULL, NULL};
  pds_mat     pA[2]   = {NULL, NULL};
  pds_size   *rp      = NULL;
  pds_int    *ci      = NULL;
  pds_real   *pv      = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "pdesolve against PETSc: Krylov methods and their kernels\n"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &its, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-copy_n", &copy_n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-calls", &calls, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-restart", &restart, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mdot_k", &kmv, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-kernels", &kernels, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-no_pin", &no_pin));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-solvers", solvers, sizeof solvers, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size_));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank_));
  PetscCheck(n >= 2 && its >= 1 && reps >= 1 && warmup >= 0 && calls >= 1 && restart >= 1 && kmv >= 1 && kmv <= MAXV,
             PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "need n >= 2, its >= 1, reps >= 1, warmup >= 0, calls >= 1, restart >= 1, 1 <= mdot_k <= %d", MAXV);
  N   = n * n * n;
  nnz = 7.0 * (double)N - 6.0 * (double)n * (double)n;
  cpu_name(cpu, sizeof cpu);

  /* A: the rows of this rank, each the stencil7 row of bench_poisson.h */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 7, NULL, 6, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    long        nb[7];
    int         cnt = stencil7(n, r, nb);
    PetscInt    cols[7];
    PetscScalar vals[7];

    for (int e = 0; e < cnt; e++) cols[e] = (PetscInt)nb[e], vals[e] = nb[e] == r ? 6.0 : -1.0;
    PetscCall(MatSetValues(A, 1, &r, cnt, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &ones, NULL));
  PetscCall(VecSet(ones, 1.0));

  /* the copy arrays: this rank's share */
  cn = (size_t)copy_n / (size_t)size_;
  ca = malloc(cn * sizeof *ca), cb = malloc(cn * sizeof *cb);
  PetscCheck(ca && cb, PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for the copy arrays");
  for (size_t i = 0; i < cn; i++) ca[i] = (double)(i % 7), cb[i] = 0;

  /* pdesolve on rank 0: /cpu/omp with as many threads as there are ranks, and /cpu/ref with one rank */
  if (rank_ == 0) {
#if defined(_OPENMP)
    omp_set_num_threads(size_);
#endif
  }
  if (!no_pin) pin_all();
  if (rank_ == 0) {
    buf = malloc(sizeof(double) * (size_t)N);
    PetscCheck(buf, PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory");
    poisson7(n, &rp, &ci, &pv);
    nctx = size_ == 1 ? 2 : 1;
    for (int j = 0; j < nctx; j++) {
      PDS_OK_OR_DIE(pds_ctx_create(j ? "/cpu/ref" : "/cpu/omp", &pctx[j]));
      PDS_OK_OR_DIE(pds_mat_create_csr(pctx[j], (pds_int)N, (pds_int)N, rp, ci, pv, PDS_MEM_HOST, PDS_USE_POINTER,
                                       &pA[j]));
    }
  }
  PetscCallMPI(MPI_Bcast(&nctx, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  {
    double t[8];

    for (int k = 0; k < 8; k++) t[k] = copy_once(ca, cb, cn);
    copy_bw = 16.0 * (double)cn * size_ / median(t + 2, 6);
  }

  /* ---- solves ---- */
  for (char *tok = strtok(solvers, ","); tok; tok = strtok(NULL, ",")) {
    solve_case        c;
    contest           ct = {petsc_solve, pds_solve, &c, nctx};
    PetscInt          done;
    KSPConvergedReason reason;
    PetscReal         rn_petsc, bn;
    double            med[4], rn_pds = 0, rel = 0;
    char              extra[256];
    int               pds_its = 0, bad = 0;

    memset(&c, 0, sizeof c);
    PetscCall(petsc_ksp(A, tok, its, restart, &c.ksp));
    PetscCall(MatCreateVecs(A, &c.x, &c.b));
    PetscCall(MatMult(A, ones, c.b)); /* b = A 1 */
    PetscCall(VecNorm(c.b, NORM_2, &bn));
    if (rank_ == 0)
      for (int j = 0; j < nctx; j++) {
        pds_vec o;

        pds_case(pctx[j], pA[j], tok, (int)its, (int)restart, &c.s[j]);
        PDS_OK_OR_DIE(pds_vec_create(pctx[j], N, &c.b_[j]));
        PDS_OK_OR_DIE(pds_vec_create(pctx[j], N, &c.x_[j]));
        PDS_OK_OR_DIE(pds_vec_create(pctx[j], N, &o));
        PDS_OK_OR_DIE(pds_vec_set(o, 1.0));
        PDS_OK_OR_DIE(pds_mat_apply(pA[j], o, c.b_[j]));
        PDS_OK_OR_DIE(pds_vec_destroy(&o));
      }
    run_rounds(&ct, (int)warmup, (int)reps, ca, cb, cn, med);
    /* validate: both ran the iterations (or stopped early on a breakdown they both saw), reduced the residual,
       and end where the same method in the same arithmetic ends, up to rounding */
    PetscCall(KSPGetIterationNumber(c.ksp, &done));
    PetscCall(KSPGetConvergedReason(c.ksp, &reason));
    PetscCall(KSPGetResidualNorm(c.ksp, &rn_petsc));
    if (rank_ == 0) {
      pds_solver_result res;

      PDS_OK_OR_DIE(pds_solver_get_result(c.s[0], &res));
      pds_its = res.iterations, rn_pds = res.rnorm;
      rel     = fabs(rn_pds - rn_petsc) / rn_petsc;
      bad     = done != its || pds_its != its || !(rn_petsc < bn) || !(rn_pds < bn) || !(rel <= 1e-4);
    }
    PetscCallMPI(MPI_Bcast(&bad, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    if (bad) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "VALIDATION FAILED: %s: PETSc %" PetscInt_FMT " iterations (%s), "
                            "||r||/||b|| = %g; pdesolve %d iterations, %g (relative difference %g)\n", tok, done,
                            KSPConvergedReasons[reason], (double)(rn_petsc / bn), pds_its, rn_pds / bn, rel));
      PetscCall(PetscFinalize());
      return 1;
    }
    for (int j = 1; j < 4; j++) med[j] /= (double)its;
    snprintf(extra, sizeof extra, ",\"rnorm_rel_petsc\":%.6e,\"rnorm_rel_pds\":%.6e,\"restart\":%d",
             (double)(rn_petsc / bn), rn_pds / bn, (int)restart);
    print_line("solve", tok, cpu, (long)N, nnz, (int)its, med, nctx, copy_bw, solve_bytes(tok, N, nnz, (int)restart),
               extra);
    PetscCall(KSPDestroy(&c.ksp));
    PetscCall(VecDestroy(&c.x));
    PetscCall(VecDestroy(&c.b));
    for (int j = 0; j < nctx && rank_ == 0; j++) {
      PDS_OK_OR_DIE(pds_solver_destroy(&c.s[j]));
      PDS_OK_OR_DIE(pds_vec_destroy(&c.b_[j]));
      PDS_OK_OR_DIE(pds_vec_destroy(&c.x_[j]));
    }
  }

  /* ---- kernels ---- */
  if (kernels) {
    kernel_case c;
    contest     ct = {petsc_kernel, pds_kernel, &c, nctx};
    KSP         jk;
    Vec        *V;

    memset(&c, 0, sizeof c);
    c.A = A, c.k = (int)kmv;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &jk)); /* PETSc's Jacobi set up on A */
    PetscCall(KSPSetOperators(jk, A, A));
    PetscCall(KSPGetPC(jk, &c.pc));
    PetscCall(PCSetType(c.pc, PCJACOBI));
    PetscCall(PCSetUp(c.pc));
    PetscCall(MatCreateVecs(A, &c.x, &c.y));
    PetscCall(VecDuplicate(c.x, &c.z));
    PetscCall(VecDuplicate(c.x, &c.w));
    PetscCall(VecDuplicateVecs(c.x, c.k, &V));
    for (int i = 0; i < c.k; i++) c.V[i] = V[i];
    if (rank_ == 0)
      for (int j = 0; j < nctx; j++) {
        c.A_[j] = pA[j];
        PDS_OK_OR_DIE(pds_precond_create(pctx[j], "jacobi", &c.pc_[j]));
        PDS_OK_OR_DIE(pds_precond_set_operator(c.pc_[j], pA[j]));
        PDS_OK_OR_DIE(pds_precond_setup(c.pc_[j]));
        PDS_OK_OR_DIE(pds_vec_create(pctx[j], N, &c.x_[j]));
        PDS_OK_OR_DIE(pds_vec_duplicate(c.x_[j], &c.y_[j]));
        PDS_OK_OR_DIE(pds_vec_duplicate(c.x_[j], &c.z_[j]));
        PDS_OK_OR_DIE(pds_vec_duplicate(c.x_[j], &c.w_[j]));
        PDS_OK_OR_DIE(pds_vec_create(pctx[j], c.k, &c.S_[j]));
        for (int i = 0; i < c.k; i++) PDS_OK_OR_DIE(pds_vec_duplicate(c.x_[j], &c.V_[j][i]));
      }
    for (int q = 0; kernel_names[q]; q++) {
      double med[4], diff = 0, tmp[MAXV];
      char   extra[128];
      int    bad = 0;

      c.name = kernel_names[q];
      /* fresh inputs in both libraries, one call each, compare the results */
      PetscCall(petsc_fill(c.x, 1));
      PetscCall(petsc_fill(c.y, 2));
      PetscCall(petsc_fill(c.w, 3));
      for (int i = 0; i < c.k; i++) {
        PetscCall(petsc_fill(c.V[i], 10 + i));
        c.vals[i] = -1e-3 / (i + 1); /* VecMAXPY adds, pds_vec_maxpy_dev subtracts */
      }
      if (rank_ == 0)
        for (int j = 0; j < nctx; j++) {
          pds_fill(c.x_[j], (long)N, 1, buf);
          pds_fill(c.y_[j], (long)N, 2, buf);
          pds_fill(c.w_[j], (long)N, 3, buf);
          for (int i = 0; i < c.k; i++) pds_fill(c.V_[j][i], (long)N, 10 + i, buf), tmp[i] = 1e-3 / (i + 1);
          PDS_OK_OR_DIE(pds_vec_set_values(c.S_[j], tmp, PDS_MEM_HOST));
        }
      c.calls = 1;
      if (petsc_kernel(&c)) MPI_Abort(PETSC_COMM_WORLD, 1);
      if (rank_ == 0)
        for (int j = 0; j < nctx; j++) PDS_OK_OR_DIE(pds_kernel(&c, j));
      for (int j = 0; j < nctx; j++) { /* vector results (vec_diff is collective: nctx is the same on all ranks) */
        int y = !strcmp(c.name, "spmv") || !strcmp(c.name, "axpy") || !strcmp(c.name, "aypx") ||
                !strcmp(c.name, "jacobi") || !strcmp(c.name, "maxpy");
        int w = !strcmp(c.name, "waxpy") || !strcmp(c.name, "axpbypcz");

        if (y) diff = fmax(diff, vec_diff(c.y, rank_ == 0 ? c.y_[j] : NULL, buf));
        if (w) diff = fmax(diff, vec_diff(c.w, rank_ == 0 ? c.w_[j] : NULL, buf));
      }
      if (!strcmp(c.name, "dot") || !strcmp(c.name, "norm2") || !strcmp(c.name, "dot_norm2") ||
          !strcmp(c.name, "mdot")) { /* scalar results */
        PetscScalar dp, mv[MAXV];
        PetscReal   np;

        PetscCall(VecDot(c.x, c.y, &dp));
        PetscCall(VecNorm(c.x, NORM_2, &np));
        PetscCall(VecMDot(c.x, c.k, c.V, mv));
        if (rank_ == 0)
          for (int j = 0; j < nctx; j++) {
            pds_real a, b, s[MAXV];

            PDS_OK_OR_DIE(pds_vec_dot2(c.x_[j], c.y_[j], c.x_[j], &a, &b));
            diff = fmax(diff, fmax(fabs(a - dp) / fabs(dp), fabs(sqrt(b) - np) / np));
            PDS_OK_OR_DIE(pds_vec_mdot_into(c.x_[j], c.k, c.V_[j], c.S_[j], 0));
            PDS_OK_OR_DIE(pds_vec_get_values(c.S_[j], s, PDS_MEM_HOST));
            for (int i = 0; i < c.k; i++) diff = fmax(diff, fabs(s[i] - mv[i]) / fabs(mv[i]));
            for (int i = 0; i < c.k; i++) tmp[i] = 1e-3 / (i + 1);
            PDS_OK_OR_DIE(pds_vec_set_values(c.S_[j], tmp, PDS_MEM_HOST));
          }
      }
      if (rank_ == 0) bad = !(diff <= 1e-12);
      PetscCallMPI(MPI_Bcast(&bad, 1, MPI_INT, 0, PETSC_COMM_WORLD));
      PetscCallMPI(MPI_Bcast(&diff, 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD));
      if (bad) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "VALIDATION FAILED: kernel %s: pdesolve and PETSc differ by %g\n",
                              c.name, diff));
        PetscCall(PetscFinalize());
        return 1;
      }
      c.calls = (int)calls;
      run_rounds(&ct, (int)warmup, (int)reps, ca, cb, cn, med);
      for (int j = 1; j < 4; j++) med[j] /= (double)calls;
      snprintf(extra, sizeof extra, ",\"max_rel_diff\":%.3e,\"k\":%d", diff, c.k);
      print_line("kernel", c.name, cpu, (long)N, nnz, 0, med, nctx, copy_bw, kernel_bytes(c.name, N, nnz, c.k), extra);
    }
    PetscCall(VecDestroyVecs(c.k, &V));
    PetscCall(VecDestroy(&c.x));
    PetscCall(VecDestroy(&c.y));
    PetscCall(VecDestroy(&c.z));
    PetscCall(VecDestroy(&c.w));
    PetscCall(KSPDestroy(&jk));
    if (rank_ == 0)
      for (int j = 0; j < nctx; j++) {
        PDS_OK_OR_DIE(pds_precond_destroy(&c.pc_[j]));
        PDS_OK_OR_DIE(pds_vec_destroy(&c.x_[j]));
        PDS_OK_OR_DIE(pds_vec_destroy(&c.y_[j]));
        PDS_OK_OR_DIE(pds_vec_destroy(&c.z_[j]));
        PDS_OK_OR_DIE(pds_vec_destroy(&c.w_[j]));
        PDS_OK_OR_DIE(pds_vec_destroy(&c.S_[j]));
        for (int i = 0; i < c.k; i++) PDS_OK_OR_DIE(pds_vec_destroy(&c.V_[j][i]));
      }
  }
  free(ca), free(cb), free(buf);
  for (int j = 0; j < nctx; j++) {
    PDS_OK_OR_DIE(pds_mat_destroy(&pA[j]));
    PDS_OK_OR_DIE(pds_ctx_destroy(&pctx[j]));
  }
  free(rp), free(ci), free(pv);
  PetscCall(VecDestroy(&ones));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
