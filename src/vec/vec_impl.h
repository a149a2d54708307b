/* src/vec/vec_impl.h: vector internals: a host copy and a backend copy with a validity mask. */
#ifndef PDS_VEC_IMPL_H
#define PDS_VEC_IMPL_H

#include "../backend/backend.h"

enum { PDS_VALID_HOST = 1, PDS_VALID_DEVICE = 2 };

struct pds_vec_s {
  struct pds_header hdr;
  pds_size          n;
  pds_real         *h;       /* host copy (NULL until needed on device backends) */
  pds_real         *d;       /* backend copy; == h on CPU backends */
  int               valid;   /* PDS_VALID_* mask */
  int               unified; /* host and backend memory are the same (CPU backends) */
  int               nread;   /* open read accesses */
  int               writing; /* an open write access */
};

/* Backend array for reading / for writing (marks the host copy stale). Used by kernels' callers. */
PDS_INTERN int pds_vec_dev_read(pds_vec v, const pds_real **a);
PDS_INTERN int pds_vec_dev_write(pds_vec v, pds_real **a);

#endif
