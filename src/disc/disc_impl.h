/* src/disc/disc_impl.h: discretization internals: the fem2d object (pattern, gather maps, problem) and the
 * built-in problems of src/disc/fem2d_problems.c. */
#ifndef PDS_DISC_IMPL_H
#define PDS_DISC_IMPL_H

#include "../backend/backend.h"
#include "../mat/mat_impl.h"

#define PDS_CLASSID_FEM2D 0x70644605u
#define PDS_PI 3.14159265358979323846

/* The fem2d object. Pattern (rowptr, colidx) and the two gather maps are built once by pds_fem2d_create:
 *   matrix map: the contributions to CSR entry p are Ke[gidx[q]] for q in [gptr[p], gptr[p+1]), gidx = 6 e + s
 *               (s = the element-matrix slot of the local pair, fem2d_slot), in ascending element order;
 *               row i's contributions start at gptr[rowptr[i]] = 3 nptr[i] (3 per incident triangle);
 *   load map:   the contributions to b_i are fe[nidx[q]] for q in [nptr[i], nptr[i+1]), nidx = 3 e + l
 *               (node i is local node l of triangle e), in ascending element order. */
struct pds_fem2d_s {
  struct pds_header hdr;
  pds_mesh          mesh;
  pds_int           nnodes, ntri;
  uint64_t          tri_hash;  /* fingerprint of the triangles at create (assemble checks it) */
  pds_size         *rowptr;    /* [nnodes + 1] */
  pds_int          *colidx;    /* [nnz], sorted within each row */
  pds_size          nnz;
  pds_size         *gptr;      /* [nnz + 1] */
  pds_int          *gidx;      /* [9 ntri] */
  pds_size         *nptr;      /* [nnodes + 1] */
  pds_int          *nidx;      /* [3 ntri] */
  unsigned char    *onbnd;     /* [nnodes] 1: the node is on an edge of one triangle (the mesh's boundary) */
  pds_int           maxdeg;    /* most triangles around one node */
  pds_real         *Ke, *fe;   /* assembly workspace in backend memory: element matrices [6 ntri] and loads
                                  [3 ntri] (first assembly on; kept, so that re-assembly takes no page faults) */
  struct pds_fem2d_maps dm;    /* device backends: the pattern, gather maps and triangles in device memory (uploaded
                                  by the first assembly, kept; freed with the object) */
  int               dm_ready;
  char              name[16];  /* "paper", "manufactured", "user" */
  pds_fem2d_problem prob;
  int               square;    /* the exact solution needs the unit square (paper) */
  double            t_create, t_assemble, t_upload;
};

/* w(x, y) with -lap w = 1 in the unit square, w = 0 on its boundary (paper 004's u = 10 + 10 w), by the single
 * Fourier series w = s(1-s)/2 - sum_{m odd} 4/(pi^3 m^3) sin(m pi s) cosh(m pi (t - 1/2)) / cosh(m pi / 2) with
 * (s, t) = (x, y) (orient 0) or (y, x) (orient 1; w is symmetric); orient < 0 picks the one whose t is farther
 * from the boundary (fastest decay). Summed until a rigorous bound on the tail is below 2^-52 (or 2^22 terms);
 * *nterms (may be NULL) gets the number of terms. 0 on and outside the boundary. */
PDS_INTERN double pds_fem2d_square_w(double x, double y, int orient, long *nterms);
/* The same w by the double series sum_{m,n odd <= nmax} 16/(pi^4 m n (m^2+n^2)) sin(m pi x) sin(n pi y)
   (slow: O(1/nmax) convergence; for checks only). */
PDS_INTERN double pds_fem2d_square_w_double(double x, double y, long nmax);
/* Fill a problem and its name for a built-in name; PDS_ERR_ARG naming the known ones otherwise. */
PDS_INTERN int pds_fem2d_builtin(pds_ctx ctx, const char *name, pds_fem2d_problem *prob, int *square);

#endif
