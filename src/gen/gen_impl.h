/* src/gen/gen_impl.h: problem generator hooks (one file per generator, listed in gen_list.h). */
#ifndef PDS_GEN_IMPL_H
#define PDS_GEN_IMPL_H

#include "../mat/mat_impl.h"

/* Fill p (A, b, x_exact, u_exact, description) for grid dims[0..ndims); dims are checked by the caller. */
typedef int (*pds_problem_create)(pds_ctx ctx, const pds_int *dims, pds_problem *p);
#define PDS_PROBLEM(name, create, nd, desc) PDS_INTERN int create(pds_ctx ctx, const pds_int *dims, pds_problem *p);
#include "gen_list.h"
#undef PDS_PROBLEM

#endif
