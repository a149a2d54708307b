/* src/mesh/mesh3d_faces.c: reference cells of the 3D mesh (Gmsh's tetrahedron, pyramid, prism, hexahedron) and the
   face topology: the unique faces of the cells, matched by sorted vertex sets, each with its one or two cells. */
#include <stdlib.h>

#include "mesh3d_impl.h"

static const pds_mesh3d_ref ref_tet = {
  "tetrahedron", 4, 4, 6, 4, {3, 3, 3, 3},
  {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {3, 1, 2}},
  {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}},
  {{1, 2, 3}, {2, 0, 3}, {0, 1, 3}, {0, 2, 1}},
};
static const pds_mesh3d_ref ref_pyramid = {
  "pyramid", 5, 5, 8, 4, {3, 3, 3, 3, 4},
  {{0, 1, 4}, {3, 0, 4}, {1, 2, 4}, {2, 3, 4}, {0, 3, 2, 1}},
  {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 4}, {2, 3}, {2, 4}, {3, 4}},
  {{1, 3, 4}, {2, 0, 4}, {3, 1, 4}, {0, 2, 4}},
};
static const pds_mesh3d_ref ref_prism = {
  "prism", 6, 5, 9, 6, {3, 3, 4, 4, 4},
  {{0, 2, 1}, {3, 4, 5}, {0, 1, 4, 3}, {0, 3, 5, 2}, {1, 2, 5, 4}},
  {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 4}, {2, 5}, {3, 4}, {3, 5}, {4, 5}},
  {{1, 2, 3}, {2, 0, 4}, {0, 1, 5}, {5, 4, 0}, {3, 5, 1}, {4, 3, 2}},
};
static const pds_mesh3d_ref ref_hex = {
  "hexahedron", 8, 6, 12, 8, {4, 4, 4, 4, 4, 4},
  {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3}, {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}},
  {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}},
  {{1, 3, 4}, {2, 0, 5}, {3, 1, 6}, {0, 2, 7}, {7, 5, 0}, {4, 6, 1}, {5, 7, 2}, {6, 4, 3}},
};

const pds_mesh3d_ref *pds_mesh3d_ref_cell(int type) {
  switch (type) {
  case PDS_CELL_TET: return &ref_tet;
  case PDS_CELL_PYRAMID: return &ref_pyramid;
  case PDS_CELL_PRISM: return &ref_prism;
  case PDS_CELL_HEX: return &ref_hex;
  default: return NULL;
  }
}

/* A face's key (sorted vertices, -1 first for a triangle) with where it was met: cell c, local face k. */
typedef struct {
  pds_mesh3d_fkey key;
  pds_int         cell;
  int             lface;
} face_rec;

static void key_set(pds_mesh3d_fkey *k, const pds_int *v, int nv) {
  k->v[0] = -1;
  for (int i = 0; i < nv; i++) k->v[4 - nv + i] = v[i];
  for (int i = 1; i < 4; i++) /* insertion sort of 4 */
    for (int j = i; j > 0 && k->v[j - 1] > k->v[j]; j--) {
      pds_int t = k->v[j];

      k->v[j] = k->v[j - 1], k->v[j - 1] = t;
    }
}

static int key_cmp(const void *x, const void *y) {
  const pds_mesh3d_fkey *a = x, *b = y;

  for (int i = 0; i < 4; i++)
    if (a->v[i] != b->v[i]) return a->v[i] < b->v[i] ? -1 : 1;
  return 0;
}

static int rec_cmp(const void *x, const void *y) {
  const face_rec *a = x, *b = y;
  int             c = key_cmp(&a->key, &b->key);

  if (c) return c;
  if (a->cell != b->cell) return a->cell < b->cell ? -1 : 1;
  return a->lface < b->lface ? -1 : a->lface > b->lface;
}

void pds_mesh3d_faces_free(pds_ctx ctx, pds_mesh3d_faces *f) {
  pds_free(ctx, PDS_MEM_HOST, &f->type), pds_free(ctx, PDS_MEM_HOST, &f->ptr), pds_free(ctx, PDS_MEM_HOST, &f->nodes);
  pds_free(ctx, PDS_MEM_HOST, &f->cells), pds_free(ctx, PDS_MEM_HOST, &f->cface_ptr);
  pds_free(ctx, PDS_MEM_HOST, &f->cface), pds_free(ctx, PDS_MEM_HOST, &f->keys);
  f->nfaces = f->nbound = 0;
}

/* Every cell face as a record, sorted so that equal faces are neighbours (ties by cell, local face); groups of equal
   keys are then the faces. Numbering: a second pass over the cells in order gives each group its number when its
   first cell face is met, so the output does not depend on the sort. */
int pds_mesh3d_faces_build(pds_ctx ctx, pds_int ncells, const unsigned char *cell_type, const pds_size *cell_ptr,
                           const pds_int *cell_nodes, int code, const pds_mesh3d_origin *org, pds_mesh3d_faces *f) {
  face_rec *rec = NULL;
  pds_int  *group = NULL, *num = NULL, ng = 0;
  pds_size  nrec = 0, nfv = 0;
  int       ierr = PDS_OK;

  memset(f, 0, sizeof *f);
  PDS_CALL(PDS_NEW(ctx, (size_t)ncells + 1, &f->cface_ptr));
  for (pds_int c = 0; c < ncells; c++) f->cface_ptr[c + 1] = f->cface_ptr[c] + pds_mesh3d_ref_cell(cell_type[c])->nfaces;
  nrec = f->cface_ptr[ncells];
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nrec ? nrec : 1) * sizeof *rec, &rec));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nrec ? nrec : 1) * sizeof *f->cface, &f->cface));
  for (pds_int c = 0; c < ncells; c++) {
    const pds_mesh3d_ref *R = pds_mesh3d_ref_cell(cell_type[c]);
    const pds_int        *cn = cell_nodes + cell_ptr[c];

    for (int k = 0; k < R->nfaces; k++) {
      face_rec *q = &rec[f->cface_ptr[c] + k];
      pds_int   v[4];

      for (int i = 0; i < R->face_nv[k]; i++) v[i] = cn[R->face[k][i]];
      key_set(&q->key, v, R->face_nv[k]);
      q->cell = c, q->lface = k;
    }
  }
  qsort(rec, (size_t)nrec, sizeof *rec, rec_cmp);
  /* group[r] for each cell face (by its position cface_ptr[c] + k), and the group's size check */
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nrec ? nrec : 1) * sizeof *group, &group));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nrec ? nrec : 1) * sizeof *f->keys, &f->keys));
  for (pds_size i = 0; i < nrec;) {
    pds_size j = i;

    while (j < nrec && !key_cmp(&rec[j].key, &rec[i].key)) j++;
    if (j - i > 2) {
      char b[3][200];

      for (int t = 0; t < 3; t++)
        pds_mesh3d_name_cell(org, rec[i + t].cell, cell_type[rec[i + t].cell], b[t], sizeof b[t]);
      ierr = PDS_ERROR(ctx, code, "the face with nodes (%" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT "%s%.0"
                       PDS_INT_FMT ") is shared by %" PDS_SIZE_FMT " cells (%s, %s, %s%s): a face has at most two cells "
                       "(overlapping or duplicate cells)", rec[i].key.v[rec[i].key.v[0] < 0],
                       rec[i].key.v[1 + (rec[i].key.v[0] < 0)], rec[i].key.v[2 + (rec[i].key.v[0] < 0)],
                       rec[i].key.v[0] < 0 ? "" : ", ", rec[i].key.v[0] < 0 ? 0 : rec[i].key.v[3], (pds_size)(j - i),
                       b[0], b[1], b[2], j - i > 3 ? ", ..." : "");
      goto done;
    }
    for (pds_size q = i; q < j; q++) group[f->cface_ptr[rec[q].cell] + rec[q].lface] = ng;
    f->keys[ng++] = rec[i].key; /* the groups come in key order */
    i = j;
  }
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(ng ? ng : 1) * sizeof *num, &num));
  for (pds_int g = 0; g < ng; g++) num[g] = -1;
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(ng ? ng : 1) * sizeof *f->type, &f->type));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)ng + 1, &f->ptr));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(ng ? ng : 1) * 2 * sizeof *f->cells, &f->cells));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)(nrec ? nrec : 1) * 4 * sizeof *f->nodes, &f->nodes));
  for (pds_int c = 0; c < ncells; c++) {
    const pds_mesh3d_ref *R = pds_mesh3d_ref_cell(cell_type[c]);
    const pds_int        *cn = cell_nodes + cell_ptr[c];

    for (int k = 0; k < R->nfaces; k++) {
      pds_int g = group[f->cface_ptr[c] + k], id = num[g];

      if (id < 0) { /* first met: a new face, oriented as this cell sees it */
        id = num[g] = f->nfaces++;
        f->type[id]          = R->face_nv[k];
        f->cells[2 * id]     = c, f->cells[2 * id + 1] = -1;
        f->ptr[id + 1]       = f->ptr[id] + R->face_nv[k];
        for (int i = 0; i < R->face_nv[k]; i++) f->nodes[nfv++] = cn[R->face[k][i]];
      } else
        f->cells[2 * id + 1] = c;
      f->cface[f->cface_ptr[c] + k] = id;
    }
  }
  for (pds_int g = 0; g < ng; g++) f->keys[g].face = num[g];
  for (pds_int q = 0; q < f->nfaces; q++) f->nbound += f->cells[2 * q + 1] < 0;
done:
  pds_free(ctx, PDS_MEM_HOST, &rec), pds_free(ctx, PDS_MEM_HOST, &group), pds_free(ctx, PDS_MEM_HOST, &num);
  return ierr;
}

pds_int pds_mesh3d_face_find(const pds_mesh3d_faces *f, const pds_int *v, int nv) {
  pds_mesh3d_fkey        k;
  const pds_mesh3d_fkey *hit;

  key_set(&k, v, nv);
  hit = bsearch(&k, f->keys, (size_t)f->nfaces, sizeof k, key_cmp);
  return hit ? hit->face : -1;
}
