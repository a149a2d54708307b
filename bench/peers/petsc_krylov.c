/* bench/peers/petsc_krylov.c: the PETSc peer of bench_solve: KSPBCGS (and KSPCG) + PCJACOBI on the same
 * 7-point Laplacian (the rows of bench_poisson.h's stencil7: 6 on the diagonal, -1 per neighbour), b = A 1,
 * x0 = 0, a fixed number of iterations; reports the time per iteration as JSON lines, like bench_solve.
 *
^ *   petsc_krylov [-n 128] [-its 100] [-reps 3] [-warmup 1] [-solvers bcgs,cg] [-copy_n N] [-no_pdesolve]
 *   mpiexec -n 2 petsc_krylov ...            (then run with OMP_NUM_THREADS=1)
 *
 * Same run, same data: on one rank the pdesolve /cpu/omp solve of the same system runs in the same timing
 * rounds (its time per iteration is in "t_pdesolve_omp_s"), and a STREAM-like copy of copy_n entries split over
 * the ranks gives "frac_copy_bw". The byte model is bench_solve's (a model of the algorithm, charged to both
 * libraries alike): BiCGSTAB 2 products + 2 Jacobi + 21 vector passes, CG 1 + 1 + 13, product 12 nnz + 24 N.
 * Written against the public PETSc API only (KSP, PC, Mat, Vec). */
#include <math.h>
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve.h"
#include "bench_poisson.h"

typedef struct {
  KSP ksp;
  Vec b, x;
} petsc_case;

typedef struct {
  pds_solver s;
  pds_vec    b, x;
} pds_case;

/* sorts t: t[0] is then the minimum (the fastest round) */
static double median(double *t, int n) {
  for (int i = 1; i < n; i++) /* insertion sort: n is small */
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      double s = t[j];

      t[j] = t[j - 1], t[j - 1] = s;
    }
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* b = a over this rank's share of the copy arrays, all ranks at once; returns the wall time */
static double copy_once(double *a, double *b, size_t n) {
  double t0;

  MPI_Barrier(PETSC_COMM_WORLD);
  t0 = MPI_Wtime();
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) b[i] = a[i];
  MPI_Barrier(PETSC_COMM_WORLD);
  return MPI_Wtime() - t0;
}

static PetscErrorCode petsc_solve(petsc_case *c, double *t) {
  double t0;

  PetscFunctionBeginUser;
  PetscCall(VecSet(c->x, 0.0));
  MPI_Barrier(PETSC_COMM_WORLD);
  t0 = MPI_Wtime();
  PetscCall(KSPSolve(c->ksp, c->b, c->x));
  MPI_Barrier(PETSC_COMM_WORLD);
  *t = MPI_Wtime() - t0;
  PetscFunctionReturn(0);
}

static int pds_solve(pds_case *c, double *t) {
  double t0 = pds_wtime();
  int    ierr;

  ierr = pds_vec_set(c->x, 0.0);
  if (!ierr) ierr = pds_solver_solve(c->s, c->b, c->x);
  *t = pds_wtime() - t0;
  return ierr;
}

#define PDS_OK_OR_DIE(call)                                                                            \
  do {                                                                                                 \
    int e_ = (call);                                                                                   \
    if (e_) {                                                                                          \
      fprintf(stderr, "%s failed: %s\n", #call, pds_error_name(e_));                                   \
      MPI_Abort(PETSC_COMM_WORLD, 1);                                                                  \
    }                                                                                                  \
  } while (0)

int main(int argc, char **argv) {
  PetscInt    n = 128, its = 100, reps = 3, warmup = 1, copy_n = 1 << 25, rstart, rend, N;
  PetscBool   no_pds = PETSC_FALSE;
  char        solvers[64] = "bcgs,cg";
  PetscMPIInt size, rank;
  Mat         A;
  Vec         ones;
  double     *ca, *cb;
  size_t      cn;
  pds_ctx     pctx = NULL;
  pds_mat     pA   = NULL;
  pds_size   *rp   = NULL;
  pds_int    *ci   = NULL;
  pds_real   *pv   = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "PETSc peer of bench_solve\n"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &its, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-copy_n", &copy_n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-solvers", solvers, sizeof solvers, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-no_pdesolve", &no_pds));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCheck(n >= 2 && its >= 1 && reps >= 1 && warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "need n >= 2, its >= 1, reps >= 1, warmup >= 0");
  N = n * n * n;

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
  cn = (size_t)copy_n / (size_t)size;
  ca = malloc(cn * sizeof *ca), cb = malloc(cn * sizeof *cb);
  PetscCheck(ca && cb, PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for the copy arrays");
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < cn; i++) ca[i] = (double)(i % 7), cb[i] = 0;

  /* pdesolve on the same system, one rank only (it is not distributed) */
  if (size == 1 && !no_pds) {
    PDS_OK_OR_DIE(pds_ctx_create("/cpu/omp", &pctx));
    poisson7(n, &rp, &ci, &pv);
    PDS_OK_OR_DIE(pds_mat_create_csr(pctx, (pds_int)N, (pds_int)N, rp, ci, pv, PDS_MEM_HOST, PDS_USE_POINTER, &pA));
  }

  for (char *tok = strtok(solvers, ","); tok; tok = strtok(NULL, ",")) {
    int         cg = !strcmp(tok, "cg");
    petsc_case  pc;
    pds_case    dc = {NULL, NULL, NULL};
    PC          pre;
    PetscInt    done;
    KSPConvergedReason reason;
    double     *tp = malloc((size_t)reps * sizeof *tp), *tc = malloc((size_t)reps * sizeof *tc);
    double     *td = malloc((size_t)reps * sizeof *td), t, nnz = 7.0 * N - 6.0 * n * n, bytes, tpm, tcm, tdm = 0;
    double      tpmin, tcmin, tdmin = 0;
    PetscReal   bn, rn;
    Vec         r;
    char        tds[96];

    PetscCheck(cg || !strcmp(tok, "bcgs"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "solver %s: bcgs or cg", tok);
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &pc.ksp));
    PetscCall(KSPSetOperators(pc.ksp, A, A));
    PetscCall(KSPSetType(pc.ksp, cg ? KSPCG : KSPBCGS));
    PetscCall(KSPGetPC(pc.ksp, &pre));
    PetscCall(PCSetType(pre, PCJACOBI));
    PetscCall(KSPSetTolerances(pc.ksp, 0.0, 0.0, PETSC_DEFAULT, its)); /* exactly its iterations */
    PetscCall(KSPSetFromOptions(pc.ksp));
    PetscCall(KSPSetUp(pc.ksp));
    PetscCall(MatCreateVecs(A, &pc.x, &pc.b));
    PetscCall(MatMult(A, ones, pc.b)); /* b = A 1 */
    if (pA) {
      pds_precond jp;
      pds_vec     o;

      PDS_OK_OR_DIE(pds_solver_create(pctx, cg ? "cg" : "bicgstab", &dc.s));
      PDS_OK_OR_DIE(pds_precond_create(pctx, "jacobi", &jp));
      PDS_OK_OR_DIE(pds_solver_set_operator(dc.s, pA));
      PDS_OK_OR_DIE(pds_solver_set_precond(dc.s, jp));
      PDS_OK_OR_DIE(pds_precond_destroy(&jp));
      PDS_OK_OR_DIE(pds_solver_set_tolerances(dc.s, 0.0, 0.0, (int)its));
      PDS_OK_OR_DIE(pds_solver_setup(dc.s));
      PDS_OK_OR_DIE(pds_vec_create(pctx, N, &dc.b));
      PDS_OK_OR_DIE(pds_vec_create(pctx, N, &dc.x));
      PDS_OK_OR_DIE(pds_vec_create(pctx, N, &o));
      PDS_OK_OR_DIE(pds_vec_set(o, 1.0));
      PDS_OK_OR_DIE(pds_mat_apply(pA, o, dc.b));
      PDS_OK_OR_DIE(pds_vec_destroy(&o));
    }
    /* round-robin: copy, PETSc, pdesolve */
    for (PetscInt k = 0; k < warmup + reps; k++) {
      double t1 = copy_once(ca, cb, cn), t2, t3 = 0;

      PetscCall(petsc_solve(&pc, &t2));
      if (dc.s) PDS_OK_OR_DIE(pds_solve(&dc, &t3));
      if (k >= warmup) tc[k - warmup] = t1, tp[k - warmup] = t2, td[k - warmup] = t3;
    }
    /* validate: PETSc ran its iterations (or converged), and its iterate has the residual it should */
    PetscCall(KSPGetIterationNumber(pc.ksp, &done));
    PetscCall(KSPGetConvergedReason(pc.ksp, &reason));
    PetscCall(VecDuplicate(pc.b, &r));
    PetscCall(MatMult(A, pc.x, r));
    PetscCall(VecAYPX(r, -1.0, pc.b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(pc.b, NORM_2, &bn));
    PetscCall(VecDestroy(&r));
    if (done < 1 || (reason < 0 && reason != KSP_DIVERGED_ITS) || !(rn < bn)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "VALIDATION FAILED: PETSc %s: %" PetscInt_FMT " iterations, reason %s, "
                            "||b - A x|| / ||b|| = %g\n", tok, done, KSPConvergedReasons[reason], (double)(rn / bn)));
      PetscCall(PetscFinalize());
      return 1;
    }
    tpm   = median(tp, (int)reps) / (double)done;
    tpmin = tp[0] / (double)done;
    tcm   = median(tc, (int)reps);
    tcmin = tc[0];
    if (dc.s) {
      pds_solver_result res;

      PDS_OK_OR_DIE(pds_solver_get_result(dc.s, &res));
      tdm   = median(td, (int)reps) / res.iterations;
      tdmin = td[0] / res.iterations;
    }
    bytes = cg ? 12 * nnz + 24.0 * N + 24.0 * N + 13 * 8.0 * N : 2 * (12 * nnz + 24.0 * N) + 2 * 24.0 * N + 21 * 8.0 * N;
    t     = tpm;
    if (tdm > 0) snprintf(tds, sizeof tds, "%.6e,\"t_pdesolve_omp_min_s\":%.6e", tdm, tdmin);
    else snprintf(tds, sizeof tds, "null");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "{\"bench\":\"solve\",\"backend\":\"petsc-%d.%d mpi x%d\",\"kernel\":\"%s+jacobi\",\"n\":%" PetscInt_FMT
                          ",\"nnz\":%.0f,\"bs\":1,\"threads\":%d,\"t_median_s\":%.6e,\"gbs\":%.3f,\"gflops\":%.3f,"
                          "\"frac_copy_bw\":%.3f,\"speedup_vs_ref\":null,\"its\":%" PetscInt_FMT
                          ",\"rnorm_rel\":%.3e,\"t_pdesolve_omp_s\":%s,\"t_min_s\":%.6e,\"gbs_best\":%.3f,"
                          "\"copy_gbs_best\":%.3f,\"copy_gbs\":%.3f}\n",
                          PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, (int)size, cg ? "cg" : "bicgstab", N, nnz, (int)size,
                          t, bytes / t * 1e-9, (cg ? 2 * nnz + 11.0 * N : 4 * nnz + 22.0 * N) / t * 1e-9,
                          bytes / t * 1e-9 / (16.0 * (double)cn * size / tcm * 1e-9), done, (double)(rn / bn), tds,
                          tpmin, bytes / tpmin * 1e-9, 16.0 * (double)cn * size / tcmin * 1e-9,
                          16.0 * (double)cn * size / tcm * 1e-9));
    PetscCall(KSPDestroy(&pc.ksp));
    PetscCall(VecDestroy(&pc.x));
    PetscCall(VecDestroy(&pc.b));
    if (dc.s) {
      PDS_OK_OR_DIE(pds_solver_destroy(&dc.s));
      PDS_OK_OR_DIE(pds_vec_destroy(&dc.b));
      PDS_OK_OR_DIE(pds_vec_destroy(&dc.x));
    }
    free(tp), free(tc), free(td);
  }
  if (pA) {
    PDS_OK_OR_DIE(pds_mat_destroy(&pA));
    PDS_OK_OR_DIE(pds_ctx_destroy(&pctx));
    free(rp), free(ci), free(pv);
  }
  free(ca), free(cb);
  PetscCall(VecDestroy(&ones));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
