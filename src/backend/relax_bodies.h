/* src/backend/relax_bodies.h: the per-block arithmetic of block relaxation (src/precond/relax_kernels.h) as pure
 * functions of plain arrays, shared by the CPU backends (ref/ref_relax.c, omp/omp_relax.c) so that any traversal
 * order and any grouping of blocks gives the same bits:
 *   rb_residual  R_b = (f - A u)_b through pb_sum (patches_bodies.h: pb_row_sum, the patches' own row sum, with
 *                its short path for cells off the patch faces, the same bits);
 *   rb_product   E_b = A_b^-1 R_b for one block, each E_i = sum over k ascending of inv[k m + i] R_k from 0;
 *   rb_gemm      the same for nb blocks of one type at once (E = A^-1 [R_1 .. R_nb], an m x m times m x nb dense
 *                product), tiled 4 rows x 4 blocks on the inverse packed in 4-row panels (rb_pack), each panel
 *                read contiguously and kept in L1 over the whole group; every E_i still adds its m products in k
 *                order from 0, so the bits are rb_product's;
 *   rb_update    u_b = u_b + omega E_b.
 * Models per cell of a block with m cells: residual 13 flops, 16 bytes from memory (f, u; neighbours in cache) and
 * 8 written (R); product 2 m flops (m multiplies, m additions), the inverse's 8 m^2 bytes per block read from the
 * cache level that holds it (8 m bytes per cell; rb_gemm: once per group of blocks), R read and E written (16
 * bytes); update 2 flops, 24 bytes (E read, u read and written). No product is contracted into a
 * multiply-add (the library is built as ISO C, where GCC and Clang do not contract), so the backends agree bitwise. */
#ifndef PDS_RELAX_BODIES_H
#define PDS_RELAX_BODIES_H

#include <string.h>

#include "../precond/relax_kernels.h"
#include "patches_bodies.h"

/* R[l] = f_p - (A u)_p for the cells p of block b (shape s), l = (lk s1 + lj) s0 + li; zero: u = 0, R[l] = f_p (the
   same value: f_p - 0) without reading u */
PDS_INLINE void rb_residual(const struct pds_patches *P, const struct pds_relax_block *b, const pds_int *s,
                            const pds_real *restrict f, const pds_real *u, int zero, pds_real *restrict R) {
  const struct pds_patch_geom *g = &P->geom[b->patch];
  pds_int                      l = 0;

  for (pds_int k = b->o[2]; k < b->o[2] + s[2]; k++)
    for (pds_int j = b->o[1]; j < b->o[1] + s[1]; j++) {
      const pds_size p0    = g->first + ((pds_size)k * g->n[1] + j) * g->n[0];
      const int      inner = j > 0 && j + 1 < g->n[1] && k > 0 && k + 1 < g->n[2]; /* pb_sum's short path */

      if (zero)
        for (pds_int i = b->o[0]; i < b->o[0] + s[0]; i++) R[l++] = f[p0 + i];
      else
        for (pds_int i = b->o[0]; i < b->o[0] + s[0]; i++)
          R[l++] = f[p0 + i] - pb_sum(P->c, g, P->ghost, u, i, j, k, inner);
    }
}

/* u_p = u_p + omega E[l] for the cells of block b (shape s) */
PDS_INLINE void rb_update(const struct pds_patches *P, const struct pds_relax_block *b, const pds_int *s,
                          pds_real omega, const pds_real *restrict E, pds_real *u) {
  const struct pds_patch_geom *g = &P->geom[b->patch];
  pds_int                      l = 0;

  for (pds_int k = b->o[2]; k < b->o[2] + s[2]; k++)
    for (pds_int j = b->o[1]; j < b->o[1] + s[1]; j++) {
      pds_real *up = u + g->first + ((pds_size)k * g->n[1] + j) * g->n[0] + b->o[0];

      for (pds_int i = 0; i < s[0]; i++, l++) up[i] = up[i] + omega * E[l];
    }
}

/* E[i] = sum_{k = 0 .. m-1} A[k m + i] R[k], from 0, k ascending (A: the column-major inverse) */
PDS_INLINE void rb_product(pds_int m, const pds_real *restrict A, const pds_real *restrict R, pds_real *restrict E) {
  for (pds_int i = 0; i < m; i++) E[i] = 0;
  for (pds_int k = 0; k < m; k++) {
    const pds_real  r = R[k];
    const pds_real *a = A + (pds_size)k * m;

    for (pds_int i = 0; i < m; i++) E[i] = E[i] + a[i] * r;
  }
}

#if PDS_V2D
/* two-lane vectors (pds_v2d, kernel_bodies.h: one SSE2 register), moved by memcpy (the inverse's panels have no
   alignment); a 4-row tile is two of them */
#define RB_LOAD2(v, p) __builtin_memcpy(&(v), (p), sizeof(pds_v2d))
#define RB_STORE2(p, v) __builtin_memcpy((p), &(v), sizeof(pds_v2d))
#endif

/* rows [i0, m) of the nc (1..4) columns R_c = R + c m: E_c[i] = sum_k A[k m + i] R_c[k] (scalar rows) */
PDS_INLINE void rb_gemm_rows(pds_int m, pds_int i0, const pds_real *restrict A, const pds_real *restrict R,
                             pds_real *restrict E, int nc) {
  for (pds_int i = i0; i < m; i++)
    for (int c = 0; c < nc; c++) {
      const pds_real *r = R + (pds_size)c * m;
      pds_real        e = 0;

      for (pds_int k = 0; k < m; k++) e = e + A[(pds_size)k * m + i] * r[k];
      E[(pds_size)c * m + i] = e;
    }
}

/* the inverse A (column-major m x m) in panels of 4 rows: Ap[(i / 4) 4 m + 4 k + (i % 4)] = A[k m + i] for the rows
   i < m - m % 4, so that a 4-row tile reads its part of A contiguously (a column-major walk along a row strides
   m doubles: for m = 512 every step lands in the same L1 set, and the panel never stays in cache) */
PDS_INLINE void rb_pack(pds_int m, const pds_real *restrict A, pds_real *restrict Ap) {
  for (pds_int i = 0; i + 4 <= m; i += 4)
    for (pds_int k = 0; k < m; k++)
      for (int l = 0; l < 4; l++) Ap[(pds_size)i * m + 4 * k + l] = A[(pds_size)k * m + i + l];
}

/* E_j = A R_j for the nb blocks j of one type whose residuals are consecutive (R_j = R + j m, E_j = E + j m):
   rb_product's sums, tiled. Ap: A packed by rb_pack (the rows of whole 4-row panels), A itself for the m % 4 last
   rows. Per tile of 4 rows and 4 blocks: 8 accumulators of 2 lanes (SSE2 registers), each lane one entry E_j[i]
   adding A[k m + i] R_j[k] for k ascending from 0; the 4 x m panel (32 m bytes, contiguous) stays in L1 while the
   group's blocks pass. */
PDS_INLINE void rb_gemm(pds_int m, const pds_real *restrict A, const pds_real *restrict Ap, const pds_real *restrict R,
                        pds_real *restrict E, pds_int nb) {
#if PDS_V2D
  const pds_int m4 = m & ~3;

  for (pds_int i = 0; i < m4; i += 4) {
    const pds_real *ap = Ap + (pds_size)i * m;
    pds_int         j  = 0;

    for (; j + 4 <= nb; j += 4) { /* 4 rows x 4 blocks: 8 accumulators, every one a register */
      const pds_real *r0 = R + (pds_size)j * m, *r1 = r0 + m, *r2 = r1 + m, *r3 = r2 + m;
      pds_v2d         e0l = {0, 0}, e0h = e0l, e1l = e0l, e1h = e0l, e2l = e0l, e2h = e0l, e3l = e0l, e3h = e0l;

      for (pds_int k = 0; k < m; k++) {
        pds_v2d al, ah, b;

        RB_LOAD2(al, ap + 4 * k);
        RB_LOAD2(ah, ap + 4 * k + 2);
        b   = (pds_v2d){r0[k], r0[k]};
        e0l = e0l + al * b, e0h = e0h + ah * b;
        b   = (pds_v2d){r1[k], r1[k]};
        e1l = e1l + al * b, e1h = e1h + ah * b;
        b   = (pds_v2d){r2[k], r2[k]};
        e2l = e2l + al * b, e2h = e2h + ah * b;
        b   = (pds_v2d){r3[k], r3[k]};
        e3l = e3l + al * b, e3h = e3h + ah * b;
      }
      RB_STORE2(E + (pds_size)j * m + i, e0l), RB_STORE2(E + (pds_size)j * m + i + 2, e0h);
      RB_STORE2(E + (pds_size)(j + 1) * m + i, e1l), RB_STORE2(E + (pds_size)(j + 1) * m + i + 2, e1h);
      RB_STORE2(E + (pds_size)(j + 2) * m + i, e2l), RB_STORE2(E + (pds_size)(j + 2) * m + i + 2, e2h);
      RB_STORE2(E + (pds_size)(j + 3) * m + i, e3l), RB_STORE2(E + (pds_size)(j + 3) * m + i + 2, e3h);
    }
    for (; j < nb; j++) {
      const pds_real *r0 = R + (pds_size)j * m;
      pds_v2d         el = {0, 0}, eh = el;

      for (pds_int k = 0; k < m; k++) {
        pds_v2d al, ah;

        RB_LOAD2(al, ap + 4 * k);
        RB_LOAD2(ah, ap + 4 * k + 2);
        el = el + al * (pds_v2d){r0[k], r0[k]}, eh = eh + ah * (pds_v2d){r0[k], r0[k]};
      }
      RB_STORE2(E + (pds_size)j * m + i, el), RB_STORE2(E + (pds_size)j * m + i + 2, eh);
    }
  }
  for (pds_int j = 0; j < nb; j += 4)
    rb_gemm_rows(m, m4, A, R + (pds_size)j * m, E + (pds_size)j * m, nb - j < 4 ? (int)(nb - j) : 4);
#else
  (void)Ap;
  for (pds_int j = 0; j < nb; j += 4)
    rb_gemm_rows(m, 0, A, R + (pds_size)j * m, E + (pds_size)j * m, nb - j < 4 ? (int)(nb - j) : 4);
#endif
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* rb_gemm with four-lane vectors, for a caller compiled for AVX2 (omp_relax.c picks it at run time), where each
   rb_v4d is one register: tiles of 4 rows x 8 blocks (8 accumulators), then 4 x 4, then 4 x 1; the same products
   and sums per entry in the same order (AVX2 has no multiply-add: nothing is contracted), so the same bits */
#define RB_HAVE_V4 1
typedef double rb_v4d __attribute__((vector_size(32)));
#define RB_LOAD4(v, p) __builtin_memcpy(&(v), (p), sizeof(rb_v4d))
#define RB_STORE4(p, v) __builtin_memcpy((p), &(v), sizeof(rb_v4d))
/* nc (1, 4 or 8) blocks from column j of rows [i, i + 4) */
#define RB_TILE4(nc)                                                                                                \
  do {                                                                                                            \
    const pds_real *r_ = R + (pds_size)j * m;                                                                     \
    rb_v4d          e_[nc];                                                                                       \
                                                                                                                  \
    for (int c_ = 0; c_ < (nc); c_++) e_[c_] = (rb_v4d){0, 0, 0, 0};                                              \
    for (pds_int k = 0; k < m; k++) {                                                                             \
      rb_v4d a_;                                                                                                  \
                                                                                                                  \
      RB_LOAD4(a_, ap + 4 * k);                                                                                   \
      for (int c_ = 0; c_ < (nc); c_++) e_[c_] = e_[c_] + a_ * r_[(pds_size)c_ * m + k];                          \
    }                                                                                                             \
    for (int c_ = 0; c_ < (nc); c_++) RB_STORE4(E + (pds_size)(j + c_) * m + i, e_[c_]);                          \
  } while (0)
PDS_INLINE void rb_gemm_v4(pds_int m, const pds_real *restrict A, const pds_real *restrict Ap,
                           const pds_real *restrict R, pds_real *restrict E, pds_int nb) {
  const pds_int m4 = m & ~3;

  for (pds_int i = 0; i < m4; i += 4) {
    const pds_real *ap = Ap + (pds_size)i * m;
    pds_int         j  = 0;

    for (; j + 8 <= nb; j += 8) RB_TILE4(8);
    for (; j + 4 <= nb; j += 4) RB_TILE4(4);
    for (; j < nb; j++) RB_TILE4(1);
  }
  for (pds_int j = 0; j < nb; j += 4)
    rb_gemm_rows(m, m4, A, R + (pds_size)j * m, E + (pds_size)j * m, nb - j < 4 ? (int)(nb - j) : 4);
}
#endif

/* the blocks of colour c: layout blocks [*b0, *b1) */
PDS_INLINE void rb_color_blocks(const struct pds_relax_layout *L, int c, pds_int *b0, pds_int *b1) {
  const pds_int s0 = L->hcolor[c], s1 = L->hcolor[c + 1];

  *b0 = s0 < s1 ? L->hseg[s0].b0 : 0;
  *b1 = s0 < s1 ? L->hseg[s1 - 1].b1 : 0;
}

/* the colour of step t of a multicolour sweep (nsteps: ncolors, or 2 ncolors when symmetric: forward then back) */
PDS_INLINE int rb_color_step(int ncolors, int t) { return t < ncolors ? t : 2 * ncolors - 1 - t; }

#endif
