/* src/mesh/mesh3d_gen.c: 3D meshes made here: structured hexahedra on a box, and the all-hexahedral subdivision of a
   tetrahedron/prism/hexahedron mesh (each cell cut at its edge midpoints, face and cell centroids into one hexahedron
   per vertex). */
#include <stdlib.h>

#include "mesh3d_impl.h"

#define GEN_MAX ((pds_size)(PDS_INT_MAX / 8))

/* The arrays a new mesh is made of (moved into pds_mesh3d_create_owned, which frees them). */
typedef struct {
  pds_real      *xyz;
  unsigned char *ct, *bt;
  pds_size      *cp, *bp;
  pds_int       *cn, *ctag, *bn, *btag;
} gen_arrays;

static int gen_alloc(pds_ctx ctx, pds_size nn, pds_size nc, pds_size ncn, pds_size nb, pds_size nbn, gen_arrays *a) {
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)nn * 3 * sizeof *a->xyz, &a->xyz));
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)nc, &a->ct));
  PDS_CALL(PDS_NEW(ctx, (size_t)nc + 1, &a->cp));
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)ncn * sizeof *a->cn, &a->cn));
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)nc * sizeof *a->ctag, &a->ctag));
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nb ? nb : 1), &a->bt));
  PDS_CALL(PDS_NEW(ctx, (size_t)nb + 1, &a->bp));
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nbn ? nbn : 1) * sizeof *a->bn, &a->bn));
  return pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nb ? nb : 1) * sizeof *a->btag, &a->btag);
}

static void gen_free(pds_ctx ctx, gen_arrays *a) {
  pds_free(ctx, PDS_MEM_HOST, &a->xyz), pds_free(ctx, PDS_MEM_HOST, &a->ct), pds_free(ctx, PDS_MEM_HOST, &a->bt);
  pds_free(ctx, PDS_MEM_HOST, &a->cp), pds_free(ctx, PDS_MEM_HOST, &a->bp), pds_free(ctx, PDS_MEM_HOST, &a->cn);
  pds_free(ctx, PDS_MEM_HOST, &a->ctag), pds_free(ctx, PDS_MEM_HOST, &a->bn), pds_free(ctx, PDS_MEM_HOST, &a->btag);
}

/* Hand the arrays to pds_mesh3d_create_owned (which checks the result and frees them on failure). */
static int gen_finish(pds_ctx ctx, pds_int nn, pds_int nc, pds_int nb, gen_arrays *a, pds_mesh3d *m) {
  int ierr = pds_mesh3d_create_owned(ctx, nn, a->xyz, nc, a->ct, a->cp, a->cn, a->ctag, nb, a->bt, a->bp, a->bn,
                                     a->btag, NULL, m);

  memset(a, 0, sizeof *a);
  return ierr;
}

/* Append cell c (type t, tag) or boundary face k with its vertices. */
static void put_cell(gen_arrays *a, pds_int c, int t, pds_int tag, const pds_int *v) {
  a->ct[c] = (unsigned char)t, a->ctag[c] = tag, a->cp[c + 1] = a->cp[c] + t;
  memcpy(a->cn + a->cp[c], v, (size_t)t * sizeof *v);
}

static void put_bface(gen_arrays *a, pds_int k, int t, pds_int tag, const pds_int *v) {
  a->bt[k] = (unsigned char)t, a->btag[k] = tag, a->bp[k + 1] = a->bp[k] + t;
  memcpy(a->bn + a->bp[k], v, (size_t)t * sizeof *v);
}

int pds_mesh3d_generate_box(pds_ctx ctx, const pds_int n[3], const pds_real lo[3], const pds_real hi[3],
                            pds_mesh3d *m) {
  const pds_mesh3d_ref *R = pds_mesh3d_ref_cell(PDS_CELL_HEX);
  /* the hexahedron's face on each side (x-, x+, y-, y+, z-, z+) */
  static const int side_face[6] = {2, 3, 1, 4, 0, 5};
  gen_arrays a = {0};
  pds_size   nn, nc, nb;
  pds_int    nx, ny, nz, c = 0, k = 0;
  int        ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(m, ctx, PDS_ERR_ARG, "output mesh pointer is NULL");
  *m = NULL;
  PDS_CHECK(n && lo && hi, ctx, PDS_ERR_ARG, "%s is NULL", !n ? "n" : !lo ? "lo" : "hi");
  for (int d = 0; d < 3; d++) {
    PDS_CHECK(n[d] >= 1 && n[d] <= 1 << 20, ctx, PDS_ERR_ARG, "n[%d] = %" PDS_INT_FMT " is out of range [1, 2^20]", d,
              n[d]);
    PDS_CHECK(isfinite(lo[d]) && isfinite(hi[d]) && lo[d] < hi[d], ctx, PDS_ERR_ARG,
              "the box is empty or not finite in direction %d: lo = %g, hi = %g (need lo < hi)", d, lo[d], hi[d]);
  }
  nx = n[0], ny = n[1], nz = n[2];
  nn = (pds_size)(nx + 1) * (ny + 1) * (nz + 1), nc = (pds_size)nx * ny * nz;
  nb = 2 * ((pds_size)ny * nz + (pds_size)nx * nz + (pds_size)nx * ny);
  PDS_CHECK(nn <= GEN_MAX && nc <= GEN_MAX && nb <= GEN_MAX, ctx, PDS_ERR_SIZE,
            "%" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT " cells are too many for 32-bit indices", nx, ny, nz);
  PDS_CALL_GOTO(ierr, fail, gen_alloc(ctx, nn, nc, 8 * nc, nb, 4 * nb, &a));
  for (pds_int q = 0; q <= nz; q++)
    for (pds_int j = 0; j <= ny; j++)
      for (pds_int i = 0; i <= nx; i++) {
        pds_real *x = a.xyz + 3 * (i + (nx + 1) * ((pds_size)j + (ny + 1) * (pds_size)q));
        pds_int   ijk[3] = {i, j, q};

        for (int d = 0; d < 3; d++)
          x[d] = ijk[d] == n[d] ? hi[d] : lo[d] + (hi[d] - lo[d]) * ((pds_real)ijk[d] / (pds_real)n[d]);
      }
  for (pds_int q = 0; q < nz; q++)
    for (pds_int j = 0; j < ny; j++)
      for (pds_int i = 0; i < nx; i++) {
        pds_int v[8], b = i + (nx + 1) * (j + (ny + 1) * q), sx = nx + 1, sxy = (nx + 1) * (ny + 1);

        v[0] = b, v[1] = b + 1, v[2] = b + 1 + sx, v[3] = b + sx;
        for (int t = 0; t < 4; t++) v[4 + t] = v[t] + sxy;
        put_cell(&a, c++, PDS_CELL_HEX, 1, v);
      }
  for (int s = 0; s < 6; s++) { /* the cells along side s, in cell order, and their face on it */
    int d = s / 2, at = s % 2 ? n[d] - 1 : 0;

    for (pds_int cc = 0; cc < (pds_int)nc; cc++) {
      pds_int ijk[3] = {cc % nx, cc / nx % ny, cc / nx / ny}, v[4];

      if (ijk[d] != at) continue;
      for (int t = 0; t < 4; t++) v[t] = a.cn[a.cp[cc] + R->face[side_face[s]][t]];
      put_bface(&a, k++, 4, s + 1, v);
    }
  }
  return gen_finish(ctx, (pds_int)nn, (pds_int)nc, (pds_int)nb, &a, m);
fail:
  gen_free(ctx, &a);
  return ierr;
}

static int u64_cmp(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

  return a < b ? -1 : a > b;
}

static uint64_t edge_key(pds_int a, pds_int b) {
  return a < b ? (uint64_t)a << 32 | (uint32_t)b : (uint64_t)b << 32 | (uint32_t)a;
}

/* The new node of edge (a, b) (one of the sorted unique edges). */
static pds_int edge_node(const uint64_t *edges, pds_size ne, pds_int base, pds_int a, pds_int b) {
  uint64_t        k = edge_key(a, b);
  const uint64_t *e = bsearch(&k, edges, (size_t)ne, sizeof k, u64_cmp);

  return base + (pds_int)(e - edges);
}

/* The local face of reference cell R holding its vertices x, y, z. */
static int local_face(const pds_mesh3d_ref *R, int x, int y, int z) {
  for (int k = 0; k < R->nfaces; k++) {
    int has = 0;

    for (int i = 0; i < R->face_nv[k]; i++) has += R->face[k][i] == x || R->face[k][i] == y || R->face[k][i] == z;
    if (has == 3) return k;
  }
  return -1; /* not reached for a corner's faces */
}

int pds_mesh3d_subdivide_hex(pds_mesh3d in, pds_mesh3d *out) {
  pds_ctx                 ctx;
  const pds_mesh3d_faces *F;
  gen_arrays              a = {0};
  uint64_t               *edges = NULL;
  pds_size                ne = 0, nn, nc = 0, nb = 0;
  pds_int                 eb, fb, cb, c2 = 0, k2 = 0;
  int                     ierr;

  PDS_VALID(in, PDS_CLASSID_MESH3D, "mesh3d");
  ctx = in->hdr.ctx;
  PDS_CHECK(out, ctx, PDS_ERR_ARG, "output mesh pointer is NULL");
  *out = NULL;
  F    = &in->faces;
  for (pds_int c = 0; c < in->ncells; c++) {
    PDS_CHECK(in->cell_type[c] != PDS_CELL_PYRAMID, ctx, PDS_ERR_UNSUPPORTED, "cell %" PDS_INT_FMT " is a pyramid: "
              "pds_mesh3d_subdivide_hex cuts tetrahedra, prisms and hexahedra only (a pyramid's apex has four edges, "
              "so its corner there is no hexahedron)", c);
    ne += pds_mesh3d_ref_cell(in->cell_type[c])->nedges;
    nc += in->cell_type[c]; /* one hexahedron per vertex */
  }
  for (pds_int k = 0; k < in->nbfaces; k++) nb += in->bface_type[k];
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)ne * sizeof *edges, &edges));
  ne = 0;
  for (pds_int c = 0; c < in->ncells; c++) {
    const pds_mesh3d_ref *R  = pds_mesh3d_ref_cell(in->cell_type[c]);
    const pds_int        *cn = in->cell_nodes + in->cell_ptr[c];

    for (int e = 0; e < R->nedges; e++) edges[ne++] = edge_key(cn[R->edge[e][0]], cn[R->edge[e][1]]);
  }
  qsort(edges, (size_t)ne, sizeof *edges, u64_cmp);
  {
    pds_size u = 0;

    for (pds_size i = 0; i < ne; i++)
      if (!u || edges[i] != edges[u - 1]) edges[u++] = edges[i];
    ne = u;
  }
  nn = (pds_size)in->nnodes + ne + (pds_size)F->nfaces + (pds_size)in->ncells;
  if (nn > GEN_MAX || nc > GEN_MAX || nb > GEN_MAX) {
    ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "the subdivided mesh (%" PDS_SIZE_FMT " nodes, %" PDS_SIZE_FMT " cells) is too "
                     "large for 32-bit indices", nn, nc);
    goto fail;
  }
  eb = in->nnodes, fb = eb + (pds_int)ne, cb = fb + F->nfaces;
  PDS_CALL_GOTO(ierr, fail, gen_alloc(ctx, nn, nc, 8 * nc, nb, 4 * nb, &a));
  memcpy(a.xyz, in->xyz, (size_t)in->nnodes * 3 * sizeof *a.xyz);
  for (pds_size e = 0; e < ne; e++) { /* edge midpoints */
    const pds_real *p = in->xyz + 3 * (edges[e] >> 32), *q = in->xyz + 3 * (edges[e] & 0xffffffffu);

    for (int d = 0; d < 3; d++) a.xyz[3 * (eb + e) + d] = 0.5 * (p[d] + q[d]);
  }
  for (pds_int f = 0; f < F->nfaces; f++) /* face centroids (the vertices' mean) */
    for (int d = 0; d < 3; d++) {
      pds_real s = 0;

      for (pds_size i = F->ptr[f]; i < F->ptr[f + 1]; i++) s += in->xyz[3 * F->nodes[i] + d];
      a.xyz[3 * ((pds_size)fb + f) + d] = s / F->type[f];
    }
  for (pds_int c = 0; c < in->ncells; c++) { /* cell centroids, then one hexahedron per vertex */
    const pds_mesh3d_ref *R  = pds_mesh3d_ref_cell(in->cell_type[c]);
    const pds_int        *cn = in->cell_nodes + in->cell_ptr[c], *cf = F->cface + F->cface_ptr[c];

    for (int d = 0; d < 3; d++) {
      pds_real s = 0;

      for (int i = 0; i < R->nv; i++) s += in->xyz[3 * cn[i] + d];
      a.xyz[3 * ((pds_size)cb + c) + d] = s / R->nv;
    }
    for (int v = 0; v < R->nv; v++) {
      const unsigned char *n = R->corner[v]; /* the corner's edges v-n0, v-n1, v-n2 are its hexahedron's axes */
      pds_int              h[8];

      h[0] = cn[v];
      h[1] = edge_node(edges, ne, eb, cn[v], cn[n[0]]);
      h[2] = fb + cf[local_face(R, v, n[0], n[1])];
      h[3] = edge_node(edges, ne, eb, cn[v], cn[n[1]]);
      h[4] = edge_node(edges, ne, eb, cn[v], cn[n[2]]);
      h[5] = fb + cf[local_face(R, v, n[0], n[2])];
      h[6] = cb + c;
      h[7] = fb + cf[local_face(R, v, n[1], n[2])];
      put_cell(&a, c2++, PDS_CELL_HEX, in->cell_tag[c], h);
    }
  }
  for (pds_int k = 0; k < in->nbfaces; k++) { /* at vertex i: v_i, mid(v_i, v_i+1), centre, mid(v_i-1, v_i) */
    const pds_int *v  = in->bface_nodes + in->bface_ptr[k];
    int            nv = in->bface_type[k];
    pds_int        ctr = fb + pds_mesh3d_face_find(F, v, nv);

    for (int i = 0; i < nv; i++) {
      pds_int q[4] = {v[i], edge_node(edges, ne, eb, v[i], v[(i + 1) % nv]), ctr,
                      edge_node(edges, ne, eb, v[(i + nv - 1) % nv], v[i])};

      put_bface(&a, k2++, 4, in->bface_tag[k], q);
    }
  }
  pds_free(ctx, PDS_MEM_HOST, &edges);
  return gen_finish(ctx, (pds_int)nn, (pds_int)nc, (pds_int)nb, &a, out);
fail:
  pds_free(ctx, PDS_MEM_HOST, &edges);
  gen_free(ctx, &a);
  return ierr;
}
