/* apps/pdesolve/app_mpi.c: the driver under mpirun (a build with MPI): MPI_Init and MPI_Finalize around a command,
 * one rank's output (ranks above 0 print only errors), and the context of every rank (pds_ctx_create_mpi) when there
 * is more than one. Without MPI, or on one rank, the driver is the serial one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve_app.h"

#if PDS_HAVE_MPI
#include <mpi.h>

#include "pdesolve_mpi.h"

static int app_size_ = 1, app_rank_ = 0, app_inited_ = 0;

/* Started by a launcher (mpirun, mpiexec, srun)? Their environments name the job's size; PDS_MPI=1 forces MPI on (a
   launcher this list misses), PDS_MPI=0 off. A plain start stays serial and skips MPI_Init (a fraction of a second
   with OpenMPI: the driver's allocation-failure test starts it hundreds of times). */
static int launched(void) {
  static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE",
                               "SLURM_STEP_NUM_TASKS"};
  const char        *force = getenv("PDS_MPI");

  if (force && *force) return strcmp(force, "0") != 0;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

void app_mpi_init(int *argc, char ***argv) {
  int init = 0;

  if (!launched()) return;
  MPI_Initialized(&init);
  if (!init && MPI_Init(argc, argv) == MPI_SUCCESS) app_inited_ = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &app_size_);
  MPI_Comm_rank(MPI_COMM_WORLD, &app_rank_);
  if (app_rank_ > 0 && !freopen("/dev/null", "w", stdout)) /* one copy of every table and result line */
    fprintf(stderr, "pdesolve: rank %d: cannot silence stdout\n", app_rank_);
}

void app_mpi_finalize(void) {
  if (app_inited_) MPI_Finalize();
}

int app_ranks(void) { return app_size_; }

void app_gather(double v, double *all) {
  if (app_size_ == 1) {
    all[0] = v;
    return;
  }
  if (MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) all[0] = v;
}

void app_bcast_int(int *v) {
  if (app_size_ > 1) MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

int app_make_ctx(const char *backend, pds_ctx *ctx) {
  int ierr;

  if (app_size_ == 1) return make_ctx(backend, ctx);
  ierr = pds_ctx_create_mpi(MPI_COMM_WORLD, backend, ctx);
  if (ierr) return fail("flag -backend: cannot use backend '%s' on %d ranks (%s)", backend, app_size_,
                        pds_error_name(ierr));
  return EXIT_DONE;
}

#else

void app_mpi_init(int *argc, char ***argv) { (void)argc, (void)argv; }
void app_mpi_finalize(void) {}
int  app_ranks(void) { return 1; }
void app_gather(double v, double *all) { all[0] = v; }
void app_bcast_int(int *v) { (void)v; }
int  app_make_ctx(const char *backend, pds_ctx *ctx) { return make_ctx(backend, ctx); }

#endif
