/* src/precond/relax_kernels.h: the block-relaxation kernel group (struct pds_kernels' member relax,
 * src/backend/backend.h; src/precond/relax.c builds the layout and drives it). Paper 002's smoothers on a patch set
 * (src/mat/patches_kernels.h): the patches are cut into spatial blocks, each block's matrix A_b (the stencil on the
 * block's cells, couplings leaving the block dropped, the Dirichlet extrapolation of its boundary cells kept) is
 * inverted once per distinct matrix (a "type"), and a sweep computes block residuals and multiplies them by the
 * inverses. Each backend fills the group in its own file (ref/ref_relax.c, omp/omp_relax.c, cuda/cuda_relax.c with
 * the kernels of cuda/cuda_relax.cu). */
#ifndef PDS_RELAX_KERNELS_H
#define PDS_RELAX_KERNELS_H

#include "pdesolve.h"

struct pds_patches;

/* a distinct block matrix: its shape b[0] x b[1] x b[2] (m = b0 b1 b2 cells, block cell (li, lj, lk) is local index
   (lk b1 + lj) b0 + li) and its inverse at inv + off, column-major: (A_b^-1)_(i,k) = inv[off + k m + i] */
struct pds_relax_btype {
  pds_int  b[3], m;
  pds_size off;
};
/* a spatial block: its patch, its first cell o in the patch, its type, and r: the first of its m entries in the
   block-ordered work arrays (entry r + local index) */
struct pds_relax_block {
  pds_int  patch, o[3], type;
  pds_size r;
};
/* a segment: blocks [b0, b1) of one type and one colour, consecutive in the work arrays from r (an m x (b1 - b0)
   column-major matrix: one dense product E = A_t^-1 R per segment) */
struct pds_relax_seg {
  pds_int  type, b0, b1;
  pds_size r;
};
/* The layout (host struct; arrays without h: backend memory, with h: host memory, the same arrays on CPU backends).
   Blocks are sorted by colour, then type, then patch, then block position (z, y, x); every cell lies in exactly one
   block, so the work arrays have P->ncells entries. Colour c owns segments hcolor[c] .. hcolor[c + 1) - 1 (one
   colour for jacobi and chaotic). hpblk lists the blocks patch by patch (patch q: hpblk[hpfirst[q] ..
   hpfirst[q + 1])), for backends that go patch-wise. */
struct pds_relax_layout {
  pds_int                       nblocks, ntypes, nsegs, ncolors;
  const struct pds_relax_btype  *type, *htype;
  const struct pds_relax_block *blk, *hblk;
  const struct pds_relax_seg   *seg, *hseg;
  const pds_int                *hcolor;  /* [ncolors + 1] */
  const pds_int                *pblk, *hpblk, *hpfirst;
  const pds_real               *inv;     /* backend memory, ninv values */
  pds_size                      ninv;
};

struct pds_relax_kernels {
  /* every backend: what it keeps for a layout (cuBLAS handle, launch tables, ...) and the variant (a name of
     pds_precond_relax_set_variant; the backend checks it: PDS_ERR_ARG naming the ones it knows) */
  int (*plan_create)(pds_ctx, const struct pds_patches *P, const struct pds_relax_layout *L, const char *variant,
                     void **plan);
  void (*plan_destroy)(pds_ctx, void *plan);
  /* optional: one line (no newline) saying what runs, for -view */
  int (*plan_describe)(pds_ctx, void *plan, char *buf, size_t len);
  /* `sweeps` sweeps on A u = f, u in place (zero = 1: u is 0 on entry, so the first residual is f). work: 2 ncells
     values of backend memory (R, E). method: a pds_relax_type. One sweep:
       jacobi:     R_b = (f - A u)_b for every block, E_b = A_b^-1 R_b, u_b += omega E_b;
       multicolor: the same colour by colour (0 .. ncolors - 1, then back from ncolors - 1 to 0 when symmetric),
                   each colour's residual reading the new values of the colours before it;
       chaotic:    block after block in place, u_b += omega A_b^-1 (f - A u)_b with u as it is at that moment.
     The residual of a block cell is the patches' residual (f_p - s, s as patches.apply sums it); E's entry i is
     sum over k = 0 .. m - 1 ascending of inv[k m + i] R_k (the CPU backends round each product and sum in that
     order, so ref and omp agree bitwise for jacobi and multicolor); u_p = u_p + omega E. */
  int (*smooth)(pds_ctx, void *plan, const struct pds_patches *P, const struct pds_relax_layout *L, int method,
                int symmetric, pds_real omega, int sweeps, int zero, const pds_real *f, pds_real *u, pds_real *work);
  /* optional (device backends; NULL on CPU backends, whose memory is host memory): `sweeps` sweeps on A u = f with f
     and u in host memory, the patches streamed through the device, pds_precond_relax_smooth_host's semantics: each
     sweep first takes every patch's ghost values from u, then sweeps each patch against them (its own blocks by
     method: jacobi as smooth does; multicolor colour by colour within the patch; chaotic in place), patches
     concurrently. order: 0 depth-first, 1 breadth-first; nslots: patches on the device at once (>= 1). */
  int (*smooth_host)(pds_ctx, void *plan, const struct pds_patches *P, const struct pds_relax_layout *L, int method,
                     int symmetric, pds_real omega, int sweeps, int order, int nslots, const pds_real *f, pds_real *u);
};

#endif
