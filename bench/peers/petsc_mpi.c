/* bench/peers/petsc_mpi.c: PETSc, the CPU peer, against pdesolve distributed over the same MPI ranks, in the same run,
 * on the same rows: the 7-point Laplacian of an n^3 grid (bench_poisson.h's stencil7 rows: 6 on the diagonal, -1 per
 * neighbour), PETSc's row ownership (PETSC_DECIDE: contiguous, balanced) given to pdesolve's mpicsr too.
 *
 *   mpiexec -n P petsc_mpi [-n 96] [-its 50] [-reps 5] [-calls 20] [-backend /cpu/omp]
 *
 * Cases, each rank one core (run with OMP_NUM_THREADS=1):
 *   matmult: y = A x (MatMult against pds_mat_apply), validated first: the same exact integers for x_i = 1 + i mod 7;
 *   cg:      CG + Jacobi, `its` iterations (rtol = atol = 0), PETSc left-preconditioned (its only side for CG),
 *            both stopping tests on the unpreconditioned residual norm;
 *   gmres:   GMRES(30) + block Jacobi over the ranks with ILU(0) on each rank's block (PETSc's PCBJACOBI with its
 *            default sub-solver, preonly + ILU(0); pdesolve's bjacobi with ilu0), right-preconditioned, classical
 *            Gram-Schmidt with one reorthogonalization in both (PETSc's refine_always, pdesolve's cgs2).
 * Each repetition times PETSc, then pdesolve (barriers around; the slowest rank's time); medians over the repetitions;
 * ratio = PETSc's time / pdesolve's (> 1: pdesolve faster). Each solve's final relative residual is printed for both:
 * the same arithmetic up to rounding. One JSON line per case ("bench":"petsc_mpi"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pdesolve before PETSc: PETSc includes <complex.h>, whose macro I would meet the field names I, J, K of
   pds_channel_opts */
#include "pdesolve_mpi.h"
#include "../bench_common.h"
#include "../bench_poisson.h"
#include "peer_util.h"

#include <petscksp.h>

static int rank_, size_;

#define PDS_DIE(x)                                                                                          \
  do {                                                                                                      \
    int e_ = (x);                                                                                           \
    if (e_) {                                                                                               \
      fprintf(stderr, "petsc_mpi: rank %d: %s: %s (%s)\n", rank_, #x, pds_error_name(e_),                   \
              pctx ? pds_ctx_get_error(pctx) : "");                                                         \
      MPI_Abort(PETSC_COMM_WORLD, 1);                                                                       \
    }                                                                                                       \
  } while (0)

static pds_ctx pctx;

static double slowest(double t) {
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  return t;
}

static PetscErrorCode petsc_solver(Mat A, int gmres, PetscInt its, KSP *ksp) {
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, gmres ? KSPGMRES : KSPCG));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, gmres ? PCBJACOBI : PCJACOBI)); /* bjacobi's default block solver: preonly + ILU(0) */
  if (gmres) {
    PetscCall(KSPSetPCSide(*ksp, PC_RIGHT));
    PetscCall(KSPGMRESSetRestart(*ksp, 30));
    PetscCall(KSPGMRESSetCGSRefinementType(*ksp, KSP_GMRES_CGS_REFINE_ALWAYS));
  }
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(*ksp, 0.0, 0.0, PETSC_DEFAULT, its)); /* exactly its iterations */
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(0);
}

static void pds_solver_of(pds_mat A, int gmres, int its, pds_solver *s) {
  pds_precond P;

  PDS_DIE(pds_solver_create(pctx, gmres ? "gmres" : "cg", s));
  PDS_DIE(pds_precond_create(pctx, gmres ? "bjacobi" : "jacobi", &P)); /* bjacobi's default local one: ilu0 */
  PDS_DIE(pds_solver_set_operator(*s, A));
  PDS_DIE(pds_solver_set_precond(*s, P));
  PDS_DIE(pds_precond_destroy(&P));
  PDS_DIE(pds_solver_set_tolerances(*s, 0.0, 0.0, its));
  if (gmres) PDS_DIE(pds_solver_set_restart(*s, 30));
  PDS_DIE(pds_solver_setup(*s));
}

int main(int argc, char **argv) {
  PetscInt    n = 96, its = 50, reps = 5, calls = 20, rstart, rend, N;
  char        backend[64] = "/cpu/omp", cpu[256];
  Mat         A;
  Vec         x, y;
  pds_mat     B;
  pds_vec     px, py;
  double      med[2];

  PetscCall(PetscInitialize(&argc, &argv, NULL, "PETSc against pdesolve on the same MPI ranks\n"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &its, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-calls", &calls, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-backend", backend, sizeof backend, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size_));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank_));
  PetscCheck(n >= 2 && its >= 1 && reps >= 1 && calls >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "need n >= 2, its >= 1, reps >= 1, calls >= 1");
  cpu_name(cpu, sizeof cpu);
  N = n * n * n;

  /* A: PETSc's rows; B: the same rows in pdesolve */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 7, NULL, 6, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  {
    pds_size *rp = malloc(sizeof *rp * (size_t)(rend - rstart + 1));
    pds_int  *ci = malloc(sizeof *ci * (size_t)(7 * (rend - rstart) + 1));
    pds_real *v  = malloc(sizeof *v * (size_t)(7 * (rend - rstart) + 1));

    PetscCheck(rp && ci && v, PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory");
    rp[0] = 0;
    for (PetscInt r = rstart; r < rend; r++) {
      long        nb[7];
      int         cnt = stencil7(n, r, nb);
      PetscInt    cols[7];
      PetscScalar vals[7];

      for (int e = 0; e < cnt; e++) {
        cols[e] = (PetscInt)nb[e], vals[e] = nb[e] == r ? 6.0 : -1.0;
        ci[rp[r - rstart] + e] = (pds_int)nb[e], v[rp[r - rstart] + e] = vals[e];
      }
      rp[r - rstart + 1] = rp[r - rstart] + cnt;
      PetscCall(MatSetValues(A, 1, &r, cnt, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PDS_DIE(pds_ctx_create_mpi(PETSC_COMM_WORLD, backend, &pctx));
    PDS_DIE(pds_mat_create_csr_dist(pctx, (pds_int)(rend - rstart), rp, ci, v, &B));
    free(rp), free(ci), free(v);
  }
  PetscCall(MatCreateVecs(A, &x, &y));
  PDS_DIE(pds_mat_create_vecs(B, &px, &py));
  { /* validation: x_i = 1 + i mod 7, both products the same exact integers */
    PetscScalar    *xa;
    const PetscScalar *ya;
    pds_real       *pa;
    const pds_real *pya;
    long            bad = 0;

    PetscCall(VecGetArray(x, &xa));
    PDS_DIE(pds_vec_get_array_write(px, PDS_MEM_HOST, &pa));
    for (PetscInt r = rstart; r < rend; r++) xa[r - rstart] = pa[r - rstart] = 1.0 + (double)(r % 7);
    PDS_DIE(pds_vec_restore_array_write(px, &pa));
    PetscCall(VecRestoreArray(x, &xa));
    PetscCall(MatMult(A, x, y));
    PDS_DIE(pds_mat_apply(B, px, py));
    PetscCall(VecGetArrayRead(y, &ya));
    PDS_DIE(pds_vec_get_array_read(py, PDS_MEM_HOST, &pya));
    for (PetscInt r = 0; r < rend - rstart; r++) bad += ya[r] != pya[r];
    PDS_DIE(pds_vec_restore_array_read(py, &pya));
    PetscCall(VecRestoreArrayRead(y, &ya));
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
    PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "validation: %ld rows of the products differ", bad);
  }

  /* matmult */
  {
    double *tp = malloc(sizeof *tp * (size_t)reps), *tq = malloc(sizeof *tq * (size_t)reps);

    for (PetscInt r = -1; r < reps; r++) { /* r = -1: warm-up */
      double t0;

      MPI_Barrier(PETSC_COMM_WORLD);
      t0 = MPI_Wtime();
      for (PetscInt c = 0; c < calls; c++) PetscCall(MatMult(A, x, y));
      if (r >= 0) tp[r] = slowest((MPI_Wtime() - t0) / calls);
      MPI_Barrier(PETSC_COMM_WORLD);
      t0 = MPI_Wtime();
      for (PetscInt c = 0; c < calls; c++) PDS_DIE(pds_mat_apply(B, px, py));
      if (r >= 0) tq[r] = slowest((MPI_Wtime() - t0) / calls);
    }
    med[0] = bench_median(tp, (int)reps), med[1] = bench_median(tq, (int)reps);
    if (!rank_)
      printf("{\"bench\":\"petsc_mpi\",\"cpu\":\"%s\",\"ranks\":%d,\"backend\":\"%s\",\"n\":%d,\"case\":\"matmult\","
             "\"t_petsc_us\":%.2f,\"t_pds_us\":%.2f,\"ratio\":%.3f}\n",
             cpu, size_, backend, (int)n, med[0] * 1e6, med[1] * 1e6, med[0] / med[1]);
    free(tp), free(tq);
  }

  /* cg + jacobi, gmres + bjacobi(ilu0): b = A 1, x0 = 0, its iterations */
  for (int gmres = 0; gmres < 2; gmres++) {
    KSP               ksp;
    pds_solver        s;
    Vec               b, xs;
    pds_vec           pb, pxs;
    double           *tp = malloc(sizeof *tp * (size_t)reps), *tq = malloc(sizeof *tq * (size_t)reps);
    PetscReal         rp_, bn;
    pds_solver_result res;

    PetscCall(petsc_solver(A, gmres, its, &ksp));
    pds_solver_of(B, gmres, (int)its, &s);
    PetscCall(MatCreateVecs(A, &xs, &b));
    PetscCall(VecSet(xs, 1.0));
    PetscCall(MatMult(A, xs, b));
    PDS_DIE(pds_mat_create_vecs(B, &pxs, &pb));
    PDS_DIE(pds_vec_set(pxs, 1.0));
    PDS_DIE(pds_mat_apply(B, pxs, pb));
    for (PetscInt r = -1; r < reps; r++) {
      double t0;

      PetscCall(VecSet(xs, 0.0));
      MPI_Barrier(PETSC_COMM_WORLD);
      t0 = MPI_Wtime();
      PetscCall(KSPSolve(ksp, b, xs));
      if (r >= 0) tp[r] = slowest(MPI_Wtime() - t0);
      PDS_DIE(pds_vec_set(pxs, 0.0));
      MPI_Barrier(PETSC_COMM_WORLD);
      t0 = MPI_Wtime();
      PDS_DIE(pds_solver_solve(s, pb, pxs));
      if (r >= 0) tq[r] = slowest(MPI_Wtime() - t0);
    }
    PetscCall(KSPGetResidualNorm(ksp, &rp_));
    PetscCall(VecNorm(b, NORM_2, &bn));
    PDS_DIE(pds_solver_get_result(s, &res));
    PetscCheck(res.iterations == its && res.rnorm < res.rnorm0 && rp_ < bn, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
               "validation: the solves did not run %d iterations reducing the residual", (int)its);
    med[0] = bench_median(tp, (int)reps), med[1] = bench_median(tq, (int)reps);
    if (!rank_)
      printf("{\"bench\":\"petsc_mpi\",\"cpu\":\"%s\",\"ranks\":%d,\"backend\":\"%s\",\"n\":%d,\"case\":\"%s\","
             "\"its\":%d,\"t_iter_petsc_us\":%.2f,\"t_iter_pds_us\":%.2f,\"ratio\":%.3f,\"rel_petsc\":%.3e,"
             "\"rel_pds\":%.3e}\n",
             cpu, size_, backend, (int)n, gmres ? "gmres+bjacobi(ilu0)" : "cg+jacobi", (int)its,
             med[0] / its * 1e6, med[1] / its * 1e6, med[0] / med[1], (double)(rp_ / bn), res.rnorm / res.rnorm0);
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&xs));
    pds_solver_destroy(&s), pds_vec_destroy(&pb), pds_vec_destroy(&pxs);
    free(tp), free(tq);
  }
  pds_vec_destroy(&px), pds_vec_destroy(&py), pds_mat_destroy(&B), pds_ctx_destroy(&pctx);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
