/* src/disc/sem_impl.h: spectral elements on hexahedra (paper 003, issue 13): the Gauss-Lobatto-Legendre rule of
 * the reference interval (sem_gll.c) and the space on a box of elements (sem.c: coordinates, geometric factors,
 * mass, global numbering, gather-scatter, mask; host arrays). */
#ifndef PDS_SEM_IMPL_H
#define PDS_SEM_IMPL_H

#include "disc_impl.h"

#define PDS_SEM_NMIN 2  /* points per direction: polynomial degree 1 .. 13 */
#define PDS_SEM_NMAX 14

/* The n-point GLL rule on [-1, 1] (n in PDS_SEM_NMIN .. PDS_SEM_NMAX): x[n] ascending points, w[n] weights,
   D[n * n] row-major, D[i n + j] = l_j'(x_i) (any output may be NULL). Returns 0, or -1 for n out of range. */
PDS_INTERN int pds_sem_gll(int n, pds_real *x, pds_real *w, pds_real *D);

#define PDS_CLASSID_SEM 0x70645306u

/* The space (sem.c says how each array is made). n3 = n^3 points per element, nloc = E n3 local points. */
struct pds_sem_s {
  struct pds_header hdr;
  int               n;           /* points per direction (order + 1) */
  pds_int           ne[3], E;    /* elements per direction, in all */
  pds_real          deform;
  int               from_mesh;   /* 1: pds_sem_create_mesh (ne = 0), 0: the box */
  char              mesh_note[160]; /* what an inverted element's message adds: where the geometry came from */
  pds_size          nloc;
  pds_int           nglob, nmask;
  pds_int           nghost;      /* a rank's share of a distributed space (sem_dist.c): its elements also reach nghost
                                    other ranks' points, numbered nglob .. nglob + nghost - 1 (gid, mask), with no
                                    gather-scatter list; 0 for a whole space */
  pds_int           einner;      /* a share: its first einner elements reach no ghost */
  pds_real          x[PDS_SEM_NMAX], w[PDS_SEM_NMAX], D[PDS_SEM_NMAX * PDS_SEM_NMAX]; /* the GLL rule */
  pds_int          *gid;         /* [nloc] local point -> global point */
  pds_real         *xyz;         /* [3 nloc] coordinates, point by point */
  pds_real         *G;           /* [6 nloc] G11 G12 G13 G22 G23 G33 of element e at G + 6 n3 e + c n3 */
  pds_real         *K;           /* [6 E] when every element is affine (else NULL): G = ((w_i w_j) w_k) K_e, bitwise */
  pds_real         *jac, *B;     /* [nloc] Jacobian determinant, mass w_i w_j w_k jac */
  unsigned char    *mask;        /* [nglob + nghost] 1: on the cube's faces (Dirichlet) */
  pds_int          *gsptr;       /* [nglob + 1] gather-scatter: global g's local points are (nloc < 2^31) */
  pds_int          *gsidx;       /*   gsidx[gsptr[g] .. gsptr[g + 1]), ascending */
};

/* sem.c, for the spaces' constructors (sem.c's box, sem_mesh.c's mesh): pds_sem_alloc checks the order and the
   size and allocates the space of nelem elements with its per-point arrays (gid, xyz, G, jac, B; E, n, nloc and the
   GLL rule set); the constructor then fills xyz and gid, sets nglob and allocates and fills mask (nglob + 1 values);
   pds_sem_finish computes the geometry (PDS_ERR_ARG for an inverted element, its message ending in mesh_note) and
   the gather-scatter lists; pds_sem_free releases a space that is not finished (or any). */
PDS_INTERN int  pds_sem_alloc(pds_ctx ctx, int order, double nelem, struct pds_sem_s **S);
PDS_INTERN int  pds_sem_finish(struct pds_sem_s *S);
PDS_INTERN void pds_sem_free(struct pds_sem_s *S);

/* sem_op.c: the diagonal of a sem matrix by one of the diagonal kernels (sem_kernels.h: PDS_SEM_DIAG_*; the same
   values); PDS_ERR_ARG for another matrix type */
PDS_INTERN int pds_mat_sem_diagonal(pds_mat A, int variant, pds_vec d);
/* sem_op.c, a rank's share's product in its phases (sem_dist.c overlaps the exchange with the first): the local
   products of its inner elements (boundary 0: those that reach no ghost), or of the others (boundary 1: the ghosts'
   values from g, nghost of them), then y = the sum at its points (the plain product takes the ghosts as zero: the
   rank's diagonal block) */
PDS_INTERN int pds_mat_sem_elements(pds_mat A, pds_vec x, pds_vec g, int boundary);
PDS_INTERN int pds_mat_sem_assemble(pds_mat A, pds_vec x, pds_vec y);

#endif
