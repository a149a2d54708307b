/* src/gen/gen.c: problem generators by name: pds_problem_generate(ctx, "poisson7", dims, ndims, &p). */
#include "gen_impl.h"

struct problem_entry {
  const char        *name;
  pds_problem_create create;
  int                ndims;
  const char        *desc;
};
#define PDS_PROBLEM(name, create, nd, desc) {name, create, nd, desc},
static const struct problem_entry registry[] = {
#include "gen_list.h"
};
#undef PDS_PROBLEM
#define NPROBLEMS ((int)(sizeof registry / sizeof registry[0]))

int         pds_problem_count(void) { return NPROBLEMS; }
const char *pds_problem_name(int i) { return i >= 0 && i < NPROBLEMS ? registry[i].name : NULL; }

int pds_problem_generate(pds_ctx ctx, const char *name, const pds_int *dims, int ndims, pds_problem *p) {
  pds_int d[8];
  int     ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(p && name, ctx, PDS_ERR_ARG, "problem or name is NULL");
  memset(p, 0, sizeof *p);
  for (int i = 0; i < NPROBLEMS; i++) {
    const struct problem_entry *e = &registry[i];

    if (strcmp(name, e->name)) continue;
    PDS_CHECK(ndims >= 1 && ndims <= e->ndims && dims, ctx, PDS_ERR_ARG,
              "problem %s takes 1 to %d grid sizes, got %d", name, e->ndims, ndims);
    /* missing sizes repeat the last one given: -n 32 means 32 x 32 x 32 */
    for (int k = 0; k < e->ndims; k++) {
      d[k] = dims[k < ndims ? k : ndims - 1];
      PDS_CHECK(d[k] >= 1, ctx, PDS_ERR_ARG, "grid size %" PDS_INT_FMT " of problem %s must be at least 1", d[k], name);
    }
    ierr = e->create(ctx, d, p);
    if (ierr) pds_problem_destroy(p);
    return ierr;
  }
  return PDS_ERROR_UNKNOWN(ctx, "problem", name, registry);
}

int pds_problem_destroy(pds_problem *p) {
  if (!p) return PDS_OK;
  pds_mat_destroy(&p->A);
  pds_vec_destroy(&p->b);
  pds_vec_destroy(&p->x_exact);
  pds_vec_destroy(&p->u_exact);
  return PDS_OK;
}
