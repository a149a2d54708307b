/* src/disc/disc_kernels.h: the P1 assembly maps as kernels see them and the fem2d kernel group (struct pds_kernels'
 * member fem2d, src/backend/backend.h). Every backend runs the element and gather functions of
 * src/backend/fem2d_kernels.h, so all give the same bits; each fills the group in its own file (ref/ref_fem2d.c,
 * omp/omp_fem2d.c, cuda/cuda_fem2d.c with the kernels of cuda/cuda_fem2d.cu); src/disc/fem2d.c calls it as
 * ctx->k->fem2d.<slot>. */
#ifndef PDS_DISC_KERNELS_H
#define PDS_DISC_KERNELS_H

#include "pdesolve.h"

/* P1 assembly maps as kernels see them (src/disc/disc_impl.h describes them): pattern and gather maps. */
struct pds_fem2d_maps {
  pds_int   n, ntri;
  pds_size  nnz;
  pds_size *rowptr; /* [n+1] */
  pds_int  *colidx; /* [nnz] */
  pds_size *gptr;   /* [nnz+1]: entry p sums Ke[gidx[q]], q in [gptr[p], gptr[p+1]) */
  pds_int  *gidx;   /* [9 ntri] */
  pds_size *nptr;   /* [n+1]: b_i sums fe[nidx[q]], q in [nptr[i], nptr[i+1]) */
  pds_int  *nidx;   /* [3 ntri] */
  pds_int  *tri;    /* [3 ntri] */
};

struct pds_fem2d_kernels {
  /* P1 assembly (src/disc/fem2d.c drives it; every backend runs the functions of src/backend/fem2d_kernels.h, so
     all give the same bits). Arrays in backend memory.
     element:       fem2d_element() for every triangle: Ke [6 ntri], fe [3 ntri] from xy [2 n]; kv (per-triangle
                    k) and fm (source at the edge midpoints, 3 per triangle) may be NULL (then the constants k, f).
                    *bad (host) = the smallest triangle fem2d_element() rejects, or -1.
     gather:        fem2d_gather_row() for every row: vals [nnz], b [n]; isd [n] marks Dirichlet nodes, g [n] their
                    values (NULL: gc for all); symmetric: PDS_DIRICHLET_SYMMETRIC. */
  int (*element)(pds_ctx, const struct pds_fem2d_maps *m, const pds_real *xy, pds_real k, const pds_real *kv,
                       pds_real f, const pds_real *fm, pds_real *Ke, pds_real *fe, pds_int *bad);
  int (*gather)(pds_ctx, const struct pds_fem2d_maps *m, const pds_real *Ke, const pds_real *fe,
                      const unsigned char *isd, const pds_real *g, pds_real gc, int symmetric, pds_real *vals,
                      pds_real *b);
};

#endif
