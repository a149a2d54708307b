/* include/pdesolve_mpi.h: pdesolve on an MPI communicator (a build with PDS_ENABLE_MPI; docs/mpi.md).
 *
 * A context made here spans the ranks of comm. Its distributed vectors (pds_vec_create_dist) and matrices
 * (pds_mat_create_csr_dist, pds_mat_create_bsr_dist, pds_mat_load_dist) hold each rank's rows; a solver or
 * preconditioner built on them runs on every rank, and every call that touches them is collective: all ranks make
 * it, in the same order. Everything else of pdesolve.h keeps working on such a context (a vector of
 * pds_vec_create is the rank's own, not distributed). */
#ifndef PDESOLVE_MPI_H
#define PDESOLVE_MPI_H

#include <mpi.h>

#include "pdesolve.h"

#if !PDS_HAVE_MPI
#error "this pdesolve was built without MPI (configure with -DPDS_ENABLE_MPI=ON and an MPI compiler found)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A context on comm (MPI_Init first; collective). The communicator is duplicated, so the library's messages never
   meet the application's. resource as pds_ctx_create's; "auto" and "/gpu/cuda" (no device named) give each rank the
   GPU of its node-local rank modulo the node's GPUs (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)). If any rank fails,
   every rank returns an error and no context. */
PDS_EXTERN int pds_ctx_create_mpi(MPI_Comm comm, const char *resource, pds_ctx *ctx);
/* the context's communicator (its duplicate; MPI_COMM_SELF for a context of pds_ctx_create) */
PDS_EXTERN int pds_ctx_get_comm(pds_ctx ctx, MPI_Comm *comm);

#ifdef __cplusplus
}
#endif
#endif
