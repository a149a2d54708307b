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
  int                    same_pattern; /* set while pds_precond_update_values runs the setup */
  unsigned long          state;      /* new at every setup (never reused): what a recorded device loop keys on */
  void                  *user;       /* shell */
  pds_shell_pc_setup     user_setup;
  pds_shell_pc_apply     user_apply;
  void                  *data;       /* private to one type */
};

#define PDS_PRECOND(name, create) PDS_INTERN int create(pds_precond pc);
#include "precond_list.h"
#undef PDS_PRECOND

#endif
