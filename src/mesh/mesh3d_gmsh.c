/* src/mesh/mesh3d_gmsh.c: Gmsh files of 3D meshes: the mesh built from what the reader (gmsh.c) collects (linear cells,
   tagged boundary triangles and quadrangles), and the MSH 2.2 ASCII writer. */
#include <stdio.h>
#include <stdlib.h>

#include "gmsh_impl.h"
#include "mesh3d_impl.h"

/* Gmsh element type of a cell type (vertex count) and back; boundary faces: 2 triangle, 3 quadrangle. */
static int gmsh_of_cell(int t) { return t == PDS_CELL_TET ? 4 : t == PDS_CELL_HEX ? 5 : t == PDS_CELL_PRISM ? 6 : 7; }
static const unsigned char cell_of_gmsh[GM_NKEPT] = {0, 0, 3, 4, PDS_CELL_TET, PDS_CELL_HEX, PDS_CELL_PRISM,
                                                     PDS_CELL_PYRAMID};

/* The elements of the types [t0, t1] merged in increasing element tag (type by type in file order for equal tags):
   tags[n] and where each is (type, index). */
typedef struct {
  size_t            n;
  uint64_t         *tag;
  unsigned char    *type;
  size_t           *idx;
  struct gm_tagidx *perm;
} el_merge;

static void merge_free(pds_ctx ctx, el_merge *e) {
  pds_free(ctx, PDS_MEM_HOST, &e->tag), pds_free(ctx, PDS_MEM_HOST, &e->type), pds_free(ctx, PDS_MEM_HOST, &e->idx);
  pds_free(ctx, PDS_MEM_HOST, &e->perm);
}

static int merge(pds_ctx ctx, const gm_mesh *g, int t0, int t1, el_merge *e) {
  size_t n = 0;

  for (int t = t0; t <= t1; t++) n += g->el[t].n;
  e->n = n;
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (n ? n : 1) * sizeof *e->tag, &e->tag));
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, n ? n : 1, &e->type));
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (n ? n : 1) * sizeof *e->idx, &e->idx));
  n = 0;
  for (int t = t0; t <= t1; t++)
    for (size_t i = 0; i < g->el[t].n; i++) e->tag[n] = g->el[t].tag[i], e->type[n] = (unsigned char)t, e->idx[n++] = i;
  return pds_gmsh_tag_order(ctx, e->tag, e->n, &e->perm);
}

/* The q-th element of a merge in tag order: its type, its nodes (file indices) and physical tag. */
static const int32_t *merged(const gm_mesh *g, const el_merge *e, size_t q, int *type, pds_int *phys) {
  size_t          k = (size_t)e->perm[q].idx;
  const gm_elems *E = &g->el[e->type[k]];
  int             nv = e->type[k] == 2 ? 3 : e->type[k] == 3 ? 4 : cell_of_gmsh[e->type[k]];

  *type = e->type[k];
  *phys = E->phys[e->idx[k]];
  return E->node + (size_t)nv * e->idx[k];
}

/* Nodes of cells numbered by increasing tag (newi[i] >= 0), cells and boundary faces by increasing element tag (an
   element repeated with the same nodes, as MSH 2 writes an element of two physical groups, is kept once for cells;
   boundary faces keep each physical tag), then pds_mesh3d_create_owned checks everything. */
static int build3d(gm_reader *r, gm_mesh *g, pds_mesh3d *m) {
  pds_ctx           ctx  = r->ctx;
  el_merge          C = {0}, B = {0};
  int32_t          *newi = NULL;
  pds_real         *xyz  = NULL;
  unsigned char    *ct = NULL, *bt = NULL;
  pds_size         *cp = NULL, *bp = NULL;
  pds_int          *cn = NULL, *ctag = NULL, *bn = NULL, *btag = NULL, nused = 0, nc = 0, nb = 0;
  uint64_t         *cet = NULL, *bet = NULL;
  pds_mesh3d_origin org;
  int               ierr;

  PDS_CALL_GOTO(ierr, done, merge(ctx, g, 4, 7, &C));
  PDS_CALL_GOTO(ierr, done, merge(ctx, g, 2, 3, &B));
  if (C.n > (size_t)(PDS_INT_MAX / 8) || B.n > (size_t)(PDS_INT_MAX / 8) || g->nn > (size_t)(PDS_INT_MAX / 3)) {
    ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "'%s': too many nodes or elements for 32-bit indices", r->path);
    goto done;
  }
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (g->nn ? g->nn : 1) * sizeof *newi, &newi));
  for (size_t i = 0; i < g->nn; i++) newi[i] = -1;
  for (int t = 4; t <= 7; t++)
    for (size_t k = 0; k < g->el[t].n * cell_of_gmsh[t]; k++) newi[g->el[t].node[k]] = -2;
  for (size_t q = 0; q < pds_gmsh_node_slots(g); q++) { /* increasing tag */
    int64_t i = pds_gmsh_node_at(g, q);

    if (i >= 0 && newi[i] == -2) newi[i] = nused++;
  }
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nused ? nused : 1) * 3 * sizeof *xyz, &xyz));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, C.n ? C.n : 1, &ct));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, C.n + 1, &cp));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (C.n ? C.n : 1) * 8 * sizeof *cn, &cn));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (C.n ? C.n : 1) * sizeof *ctag, &ctag));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (C.n ? C.n : 1) * sizeof *cet, &cet));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, B.n ? B.n : 1, &bt));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, B.n + 1, &bp));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (B.n ? B.n : 1) * 4 * sizeof *bn, &bn));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (B.n ? B.n : 1) * sizeof *btag, &btag));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (B.n ? B.n : 1) * sizeof *bet, &bet));
  for (size_t i = 0; i < g->nn; i++)
    if (newi[i] >= 0) memcpy(xyz + 3 * newi[i], g->xyz + 3 * i, 3 * sizeof *xyz);
  for (size_t q = 0; q < C.n; q++) {
    int            t, tp;
    pds_int        phys, php;
    const int32_t *v = merged(g, &C, q, &t, &phys);

    if (q && C.perm[q].tag == C.perm[q - 1].tag) {
      const int32_t *w = merged(g, &C, q - 1, &tp, &php);

      if (t == tp && !memcmp(v, w, cell_of_gmsh[t] * sizeof *v)) continue;
      ierr = PDS_ERROR(ctx, PDS_ERR_FORMAT, "'%s': element tag %" PRIu64 " is given to two different cells", r->path,
                       C.perm[q].tag);
      goto done;
    }
    ct[nc] = cell_of_gmsh[t], ctag[nc] = phys, cet[nc] = C.perm[q].tag;
    for (int k = 0; k < ct[nc]; k++) cn[cp[nc] + k] = newi[v[k]];
    cp[nc + 1] = cp[nc] + ct[nc];
    nc++;
  }
  for (size_t q = 0; q < B.n; q++) {
    int            t, tp;
    pds_int        phys, php;
    const int32_t *v = merged(g, &B, q, &t, &phys);

    for (int k = 0; k < cell_of_gmsh[t]; k++)
      if (newi[v[k]] < 0) {
        ierr = PDS_ERROR(ctx, PDS_ERR_FORMAT, "'%s': boundary %s (element %" PRIu64 ") has node %" PRIu64 ", which "
                         "belongs to no cell", r->path, t == 2 ? "triangle" : "quadrangle", B.perm[q].tag,
                         g->ntag[v[k]]);
        goto done;
      }
    if (q && B.perm[q].tag == B.perm[q - 1].tag) {
      const int32_t *w = merged(g, &B, q - 1, &tp, &php);

      if (t != tp || memcmp(v, w, cell_of_gmsh[t] * sizeof *v)) {
        ierr = PDS_ERROR(ctx, PDS_ERR_FORMAT, "'%s': element tag %" PRIu64 " is given to two different boundary faces",
                         r->path, B.perm[q].tag);
        goto done;
      }
      if (phys == php) continue;
    }
    bt[nb] = cell_of_gmsh[t], btag[nb] = phys, bet[nb] = B.perm[q].tag;
    for (int k = 0; k < bt[nb]; k++) bn[bp[nb] + k] = newi[v[k]];
    bp[nb + 1] = bp[nb] + bt[nb];
    nb++;
  }
  org  = (pds_mesh3d_origin){r->path, cet, bet};
  ierr = pds_mesh3d_create_owned(ctx, nused, xyz, nc, ct, cp, cn, ctag, nb, bt, bp, bn, btag, &org, m);
  xyz = NULL, ct = NULL, cp = NULL, cn = NULL, ctag = NULL, bt = NULL, bp = NULL, bn = NULL, btag = NULL;
done:
  merge_free(ctx, &C), merge_free(ctx, &B);
  pds_free(ctx, PDS_MEM_HOST, &newi), pds_free(ctx, PDS_MEM_HOST, &xyz);
  pds_free(ctx, PDS_MEM_HOST, &ct), pds_free(ctx, PDS_MEM_HOST, &cp), pds_free(ctx, PDS_MEM_HOST, &cn);
  pds_free(ctx, PDS_MEM_HOST, &ctag), pds_free(ctx, PDS_MEM_HOST, &cet), pds_free(ctx, PDS_MEM_HOST, &bt);
  pds_free(ctx, PDS_MEM_HOST, &bp), pds_free(ctx, PDS_MEM_HOST, &bn), pds_free(ctx, PDS_MEM_HOST, &btag);
  pds_free(ctx, PDS_MEM_HOST, &bet);
  return ierr;
}

int pds_mesh3d_read_gmsh(pds_ctx ctx, const char *path, pds_mesh3d *m) {
  gm_reader r = {0};
  gm_mesh   g = {0};
  size_t    ncells;
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(m, ctx, PDS_ERR_ARG, "output mesh pointer is NULL");
  *m = NULL;
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  r.ctx = ctx, r.path = path, r.line = 1, r.dim = 3;
  PDS_CALL_GOTO(ierr, done, pds_gmsh_collect(&r, &g));
  ncells = g.el[4].n + g.el[5].n + g.el[6].n + g.el[7].n;
  if (!ncells) {
    ierr = PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "'%s': no volume cells (%zu nodes, %zu tagged boundary triangles and "
                     "quadrangles): a 2D mesh is read with pds_mesh_read_gmsh", path, g.nn, g.el[2].n + g.el[3].n);
    goto done;
  }
  ierr = build3d(&r, &g, m);
done:
  pds_gmsh_free(&r, &g);
  return ierr;
}

/* MSH 2.2 ASCII: nodes 1..n (%.17g: coordinates read back bitwise), boundary faces (physical and elementary tag =
   their tag), then cells (physical and elementary tag = the cell tag). */
int pds_mesh3d_write_gmsh(pds_mesh3d m, const char *path) {
  FILE *f;

  PDS_VALID(m, PDS_CLASSID_MESH3D, "mesh3d");
  PDS_CALL(pds_gmsh_write_begin(m->hdr.ctx, path, m->nnodes, &f));
  for (pds_int i = 0; i < m->nnodes && !ferror(f); i++)
    fprintf(f, "%" PDS_INT_FMT " %.17g %.17g %.17g\n", i + 1, m->xyz[3 * i], m->xyz[3 * i + 1], m->xyz[3 * i + 2]);
  fprintf(f, "$EndNodes\n$Elements\n%" PDS_SIZE_FMT "\n", (pds_size)m->nbfaces + m->ncells);
  for (pds_int k = 0; k < m->nbfaces && !ferror(f); k++) {
    fprintf(f, "%" PDS_SIZE_FMT " %d 2 %" PDS_INT_FMT " %" PDS_INT_FMT, (pds_size)k + 1, m->bface_type[k] == 3 ? 2 : 3,
            m->bface_tag[k], m->bface_tag[k]);
    for (pds_size q = m->bface_ptr[k]; q < m->bface_ptr[k + 1]; q++) fprintf(f, " %" PDS_INT_FMT, m->bface_nodes[q] + 1);
    fputc('\n', f);
  }
  for (pds_int c = 0; c < m->ncells && !ferror(f); c++) {
    fprintf(f, "%" PDS_SIZE_FMT " %d 2 %" PDS_INT_FMT " %" PDS_INT_FMT, (pds_size)m->nbfaces + c + 1,
            gmsh_of_cell(m->cell_type[c]), m->cell_tag[c], m->cell_tag[c]);
    for (pds_size q = m->cell_ptr[c]; q < m->cell_ptr[c + 1]; q++) fprintf(f, " %" PDS_INT_FMT, m->cell_nodes[q] + 1);
    fputc('\n', f);
  }
  return pds_gmsh_write_end(m->hdr.ctx, path, f);
}
