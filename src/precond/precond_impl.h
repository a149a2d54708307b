/* src/precond/precond_impl.h: preconditioner internals: ops table each type fills, and the common object. */
#ifndef PDS_PRECOND_IMPL_H
#define PDS_PRECOND_IMPL_H

#include <stdio.h>

#include "../mat/mat_impl.h"

struct pds_precond_ops {
  int (*setup)(pds_precond pc);                       /* numeric setup from pc->A */
  int (*apply)(pds_precond pc, pds_vec x, pds_vec y); /* y = M^-1 x; sizes checked by the caller */
  int (*view)(pds_precond pc, FILE *f);
  int (*destroy)(pds_precond pc);
};

struct pds_precond_s {
  struct pds_header      hdr;
  const char            *type;
  struct pds_precond_ops ops;
  pds_mat                A;
  int                    bs;         /* requested block size (pbjacobi), 0 = the operator's */
  int                    setup_done;
  int                    host_sync;  /* its apply runs on or waits for the host (shell's callback, gmg's coarse CG, which
                                        reads norms): no device loop records it */
  int                    same_pattern; /* set while pds_precond_update_values runs the setup */
  int                    distributed; /* the type works on a distributed operator (its rank's rows, or over the
                                          ranks); set by its create hook */
  unsigned long          state;      /* new at every setup (never reused): what a recorded device loop keys on */
  void                  *user;       /* shell */
  pds_shell_pc_setup     user_setup;
  pds_shell_pc_apply     user_apply;
  void                  *data;       /* private to one type */
};

/* relax (relax.c): clip = 1 makes a block larger than a patch shrink to the patch instead of being an error (the
   multigrid's coarse levels, src/precond/gmg.c) */
PDS_INTERN int pds_precond_relax_set_clip(pds_precond pc, int clip);
/* pc's private data after checking that pc is a valid preconditioner of the given type (PDS_ERR_ARG naming both
   types otherwise): what the type-specific setters (pds_precond_bilu0_set_variant, ...) start from */
PDS_INTERN int pds_precond_data(pds_precond pc, const char *type, void **data);

#define PDS_PRECOND(name, create) PDS_INTERN int create(pds_precond pc);
#include "precond_list.h"
#undef PDS_PRECOND

#endif
