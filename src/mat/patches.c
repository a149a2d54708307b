/* src/mat/patches.c: patch sets ("patches", paper 002): non-overlapping boxes of cells on one common cell grid with
 * a constant-coefficient 7-point stencil, (A u)_p = c0 u_p + sum_d c_d u_(p+d), where a neighbour that no patch owns
 * is a homogeneous Dirichlet face (ghost -u_p). Creation checks the set, numbers the cells patch after patch (x
 * fastest) and builds the ghost map (for every face cell of every patch the unknown across that face, or -1): each
 * face's neighbour patches come from a bounding-volume hierarchy of the boxes, and each of them fills the face cells
 * it covers, so the work is O(np log np + face cells) however many patches there are. Products run through the
 * patches kernel group (src/mat/patches_kernels.h); A^T is the same geometry with c_d- and c_d+ swapped plus, for an
 * unsymmetric stencil, the Dirichlet cells' diagonal difference. Conversion to CSR, the diagonal, a patch with its
 * ghost layer and the factor-2 coarsening of geometric multigrid are host work here. */
#include <math.h>
#include <stdlib.h>

#include "../backend/patches_bodies.h" /* pb_neighbour, pb_boundary_next, pb_step: the kernels' view of the set */
#include "mat_impl.h"

/* (bsr.c's pds_mat_convert_to_csr calls it; belongs in mat_impl.h) */

#define PS(A) ((struct pds_mat_patches *)(A)->data)

struct pds_mat_patches {
  struct pds_patches     P, PT;          /* kernel views of A and of A^T's swapped stencil (the same arrays) */
  pds_patch             *patches;        /* the boxes as given */
  struct pds_patch_geom *hgeom, *dgeom;  /* host and backend copies (the same array on CPU backends) */
  pds_int               *hghost, *dghost;
  pds_real              *tfix, *twork;   /* backend memory, made by the first A^T x of an unsymmetric stencil: A^T's
                                            diagonal minus PT's (nonzero on Dirichlet cells), and a work vector */
};

static const char *const coef_names[7] = {"c0", "c_x-", "c_x+", "c_y-", "c_y+", "c_z-", "c_z+"};

#define PATCHES_VALID(A)                                                                                    \
  do {                                                                                                      \
    PDS_VALID(A, PDS_CLASSID_MAT, "matrix");                                                                \
    PDS_CHECK(!strcmp((A)->type, "patches"), (A)->hdr.ctx, PDS_ERR_ARG, "matrix is %s, not patches", (A)->type); \
  } while (0)

/* ---- boxes and the bounding-volume hierarchy that finds the patches meeting a box --------------------------- */

struct pbox {
  pds_size lo[3], hi[3]; /* cells lo .. hi - 1 */
};

static int box_meet(const struct pbox *a, const struct pbox *b) {
  for (int d = 0; d < 3; d++)
    if (a->lo[d] >= b->hi[d] || b->lo[d] >= a->hi[d]) return 0;
  return 1;
}

#define BVH_LEAF 4
/* node: the boxes of perm[a .. b) and their bounding box; an inner node's children are node + 1 and right, a leaf
   has right < 0 */
struct bvh_node {
  struct pbox box;
  int         a, b, right;
};
struct bvh {
  const struct pbox *box;
  int               *perm;
  struct bvh_node   *node;
  int                nn;
};

/* perm[a .. b) reordered so that perm[m] has the key it would have sorted, smaller or equal keys before it, larger
   or equal after (Hoare partitions around the middle element); key: twice the box centre along axis */
static void bvh_select(const struct pbox *box, int *perm, int a, int b, int m, int axis) {
#define KEY(e) (box[perm[e]].lo[axis] + box[perm[e]].hi[axis])
  while (b - a > 1) {
    const pds_size pivot = KEY(a + (b - a) / 2);
    int            i = a, j = b - 1;

    while (i <= j) {
      while (KEY(i) < pivot) i++;
      while (KEY(j) > pivot) j--;
      if (i <= j) {
        const int t = perm[i];

        perm[i++] = perm[j], perm[j--] = t;
      }
    }
    if (m <= j) b = j + 1;
    else if (m >= i) a = i;
    else return;
  }
#undef KEY
}

/* the subtree of perm[a .. b): split at the median centre along the axis where the centres spread most */
static int bvh_build(struct bvh *t, int a, int b) {
  const int        id = t->nn++;
  struct bvh_node *nd = &t->node[id];
  pds_size         cmin[3], cmax[3];
  int              axis = 0;

  nd->box = t->box[t->perm[a]];
  for (int d = 0; d < 3; d++) cmin[d] = cmax[d] = nd->box.lo[d] + nd->box.hi[d];
  for (int e = a + 1; e < b; e++) {
    const struct pbox *x = &t->box[t->perm[e]];

    for (int d = 0; d < 3; d++) {
      const pds_size c = x->lo[d] + x->hi[d];

      if (x->lo[d] < nd->box.lo[d]) nd->box.lo[d] = x->lo[d];
      if (x->hi[d] > nd->box.hi[d]) nd->box.hi[d] = x->hi[d];
      if (c < cmin[d]) cmin[d] = c;
      if (c > cmax[d]) cmax[d] = c;
    }
  }
  nd->a = a, nd->b = b, nd->right = -1;
  if (b - a <= BVH_LEAF) return id;
  for (int d = 1; d < 3; d++)
    if (cmax[d] - cmin[d] > cmax[axis] - cmin[axis]) axis = d;
  bvh_select(t->box, t->perm, a, b, (a + b) / 2, axis);
  bvh_build(t, a, (a + b) / 2);
  t->node[id].right = bvh_build(t, (a + b) / 2, b);
  return id;
}

/* appends to hit[] the patches whose boxes meet q */
static void bvh_query(const struct bvh *t, int id, const struct pbox *q, int *hit, int *nhit) {
  const struct bvh_node *nd = &t->node[id];

  if (!box_meet(&nd->box, q)) return;
  if (nd->right < 0) {
    for (int e = nd->a; e < nd->b; e++)
      if (box_meet(&t->box[t->perm[e]], q)) hit[(*nhit)++] = t->perm[e];
    return;
  }
  bvh_query(t, id + 1, q, hit, nhit);
  bvh_query(t, nd->right, q, hit, nhit);
}

/* ---- creation ------------------------------------------------------------------------------------------------ */

#define BOX_FMT "(origin (%" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT "), size %" PDS_INT_FMT " x %" PDS_INT_FMT \
                " x %" PDS_INT_FMT ")"
#define BOX_ARGS(p) (p)->lo[0], (p)->lo[1], (p)->lo[2], (p)->n[0], (p)->n[1], (p)->n[2]

/* Overlaps (the lowest-numbered patch that meets another, with its lowest-numbered partner: PDS_ERR_ARG), then the
   ghost map (ghost[] holds -1 on entry) and *links, the couplings between distinct cells (the CSR's off-diagonal
   entries). */
static int patches_map(pds_ctx ctx, int np, const pds_patch *pt, const struct pds_patch_geom *geom, pds_int *ghost,
                       pds_size *links) {
  struct bvh   t   = {0};
  struct pbox *box = NULL;
  int         *hit = NULL, nhit, ierr;

  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, np, &box));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, np, &t.perm));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 2 * (size_t)np, &t.node));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, np, &hit));
  for (int q = 0; q < np; q++) {
    for (int d = 0; d < 3; d++) box[q].lo[d] = pt[q].lo[d], box[q].hi[d] = (pds_size)pt[q].lo[d] + pt[q].n[d];
    t.perm[q] = q;
  }
  t.box = box;
  bvh_build(&t, 0, np);
  for (int q = 0; q < np; q++) {
    int r = np;

    nhit = 0;
    bvh_query(&t, 0, &box[q], hit, &nhit);
    for (int e = 0; e < nhit; e++)
      if (hit[e] != q && hit[e] < r) r = hit[e];
    if (r < np) {
      ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "patches %d " BOX_FMT " and %d " BOX_FMT " overlap", q, BOX_ARGS(&pt[q]), r,
                       BOX_ARGS(&pt[r]));
      goto done;
    }
  }
  *links = 0;
  for (int q = 0; q < np; q++)
    for (int f = 0; f < 6; f++) {
      const struct pds_patch_geom *g = &geom[q];
      const int                    d = f >> 1, a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
      const pds_size               base = pb_ghost_entry(g, f, 0, 0, 0);
      struct pbox                  slab = box[q];

      *links += (pds_size)(g->n[d] - 1) * g->n[a] * g->n[b];
      slab.lo[d] = f & 1 ? box[q].hi[d] : box[q].lo[d] - 1;
      slab.hi[d] = slab.lo[d] + 1;
      nhit       = 0;
      bvh_query(&t, 0, &slab, hit, &nhit);
      for (int e = 0; e < nhit; e++) { /* the face cells that patch r covers: the unknowns across them */
        const struct pbox           *R  = &box[hit[e]];
        const struct pds_patch_geom *gr = &geom[hit[e]];
        const pds_size               sr[3] = {1, gr->n[0], (pds_size)gr->n[0] * gr->n[1]};
        const pds_size               a0 = slab.lo[a] > R->lo[a] ? slab.lo[a] : R->lo[a];
        const pds_size               a1 = slab.hi[a] < R->hi[a] ? slab.hi[a] : R->hi[a];
        const pds_size               b0 = slab.lo[b] > R->lo[b] ? slab.lo[b] : R->lo[b];
        const pds_size               b1 = slab.hi[b] < R->hi[b] ? slab.hi[b] : R->hi[b];

        for (pds_size cb = b0; cb < b1; cb++) {
          pds_size u = gr->first + (slab.lo[d] - R->lo[d]) * sr[d] + (cb - R->lo[b]) * sr[b] + (a0 - R->lo[a]) * sr[a];
          pds_int *o = ghost + base + (cb - box[q].lo[b]) * g->n[a] + (a0 - box[q].lo[a]);

          for (pds_size ca = a0; ca < a1; ca++, u += sr[a]) *o++ = (pds_int)u;
        }
        *links += (a1 - a0) * (b1 - b0);
      }
    }
done:
  pds_free(ctx, PDS_MEM_HOST, &box);
  pds_free(ctx, PDS_MEM_HOST, &t.perm);
  pds_free(ctx, PDS_MEM_HOST, &t.node);
  pds_free(ctx, PDS_MEM_HOST, &hit);
  return ierr;
}

static void patches_free(pds_ctx ctx, struct pds_mat_patches *s) {
  if (s->dgeom != s->hgeom) pds_free(ctx, PDS_MEM_DEVICE, &s->dgeom);
  if (s->dghost != s->hghost) pds_free(ctx, PDS_MEM_DEVICE, &s->dghost);
  pds_free(ctx, PDS_MEM_HOST, &s->hgeom);
  pds_free(ctx, PDS_MEM_HOST, &s->hghost);
  pds_free(ctx, PDS_MEM_HOST, &s->patches);
  pds_free(ctx, PDS_MEM_DEVICE, &s->tfix);
  pds_free(ctx, PDS_MEM_DEVICE, &s->twork);
  pds_free(ctx, PDS_MEM_HOST, &s);
}

/* d_p = c0 - c_f over the cell's Dirichlet faces f in ascending order (host memory) */
static void patches_diag(const struct pds_mat_patches *s, pds_real *dg) {
  struct pb_boundary e = {0};

  for (pds_size p = 0; p < s->P.ncells; p++) dg[p] = s->P.c[0];
  while (pb_boundary_next(&s->P, &e)) dg[e.p] -= s->P.c[1 + e.f];
}

static int patches_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  PDS_KERNEL(ctx, patches.apply);
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->patches.apply(ctx, &PS(A)->P, alpha, xa, beta, ya);
}

/* r = b - A x in one pass where the backend has the kernel, else r = b; r = -1 A x + 1 r */
static int patches_residual(pds_mat A, pds_vec b, pds_vec x, pds_vec r) {
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa, *ba;
  pds_real       *ra;

  if (!ctx->k->patches.residual) {
    PDS_CALL(pds_vec_copy(b, r));
    return patches_apply(A, -1.0, x, 1.0, r);
  }
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_read(b, &ba));
  PDS_CALL(pds_vec_dev_write(r, &ra));
  return ctx->k->patches.residual(ctx, &PS(A)->P, xa, ba, ra);
}

/* A^T couples p to its +d neighbour with c_d- (and to -d with c_d+): the swapped stencil PT. Its Dirichlet
   reflection takes c_(opposite f) where A^T's diagonal has c_f, so an unsymmetric stencil adds
   tfix_p = sum over the Dirichlet faces f of p of (c_(opposite f) - c_f) times x_p. */
static int patches_transpose_fix(pds_mat A) {
  struct pds_mat_patches *s   = PS(A);
  pds_ctx                 ctx = A->hdr.ctx;
  const pds_real         *c   = s->P.c;
  pds_real               *h   = NULL;
  struct pb_boundary      e   = {0};
  int                     ierr;

  PDS_CALL(PDS_NEW(ctx, s->P.ncells, &h));
  while (pb_boundary_next(&s->P, &e)) h[e.p] += c[1 + (e.f ^ 1)] - c[1 + e.f];
  ierr = pds_dup_array(ctx, PDS_MEM_DEVICE, h, PDS_MEM_HOST, (size_t)s->P.ncells * sizeof *h, &s->tfix);
  if (!ierr) ierr = pds_malloc(ctx, PDS_MEM_DEVICE, (size_t)s->P.ncells * sizeof *h, &s->twork);
  if (ierr) pds_free(ctx, PDS_MEM_DEVICE, &s->tfix);
  pds_free(ctx, PDS_MEM_HOST, &h);
  return ierr;
}

/* y = alpha A^T x + beta y: alpha PT x + beta y, then (unsymmetric stencil) y += alpha tfix .* x */
static int patches_apply_transpose(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  struct pds_mat_patches *s   = PS(A);
  pds_ctx                 ctx = A->hdr.ctx;
  const pds_real         *c   = s->P.c, *xa;
  const int               sym = c[1] == c[2] && c[3] == c[4] && c[5] == c[6];
  pds_real               *ya;

  PDS_KERNEL(ctx, patches.apply);
  if (!sym) {
    PDS_KERNEL(ctx, vec.pmult);
    PDS_KERNEL(ctx, vec.axpby);
    if (!s->tfix) PDS_CALL(patches_transpose_fix(A));
  }
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  PDS_CALL(ctx->k->patches.apply(ctx, &s->PT, alpha, xa, beta, ya));
  if (sym) return PDS_OK;
  PDS_CALL(ctx->k->vec.pmult(ctx, s->P.ncells, s->tfix, xa, s->twork));
  return ctx->k->vec.axpby(ctx, s->P.ncells, alpha, s->twork, 1.0, ya);
}

static int patches_get_diagonal(pds_mat A, pds_vec d) {
  pds_real *a;

  PDS_CALL(pds_vec_get_array_write(d, PDS_MEM_HOST, &a));
  patches_diag(PS(A), a);
  return pds_vec_restore_array_write(d, &a);
}

static int patches_view(pds_mat A, FILE *f) {
  const struct pds_mat_patches *s = PS(A);
  pds_int                       lo[3], hi[3];

  for (int d = 0; d < 3; d++) lo[d] = hi[d] = s->patches[0].n[d];
  for (int q = 1; q < s->P.np; q++)
    for (int d = 0; d < 3; d++) {
      if (s->patches[q].n[d] < lo[d]) lo[d] = s->patches[q].n[d];
      if (s->patches[q].n[d] > hi[d]) hi[d] = s->patches[q].n[d];
    }
  fprintf(f, "  patches: %d patches, %" PDS_SIZE_FMT " cells, sizes %" PDS_INT_FMT "..%" PDS_INT_FMT " x %" PDS_INT_FMT
          "..%" PDS_INT_FMT " x %" PDS_INT_FMT "..%" PDS_INT_FMT "\n", s->P.np, s->P.ncells, lo[0], hi[0], lo[1], hi[1],
          lo[2], hi[2]);
  fprintf(f, "  stencil:");
  for (int e = 0; e < 7; e++) fprintf(f, " %s %.6g", coef_names[e], s->P.c[e]);
  fprintf(f, "\n");
  return PDS_OK;
}

static int patches_destroy(pds_mat A) {
  if (A->data) patches_free(A->hdr.ctx, PS(A));
  A->data = NULL;
  return PDS_OK;
}

/* patch q's size and extent on the 32-bit grid, and its cell count (*cells: PDS_ERR_SIZE past 32-bit indices) */
static int patches_check_box(pds_ctx ctx, int q, const pds_patch *p, pds_size *cells) {
  PDS_CHECK(p->n[0] >= 1 && p->n[1] >= 1 && p->n[2] >= 1, ctx, PDS_ERR_ARG,
            "patches: patch %d " BOX_FMT " has an empty or negative size (every size must be at least 1)", q,
            BOX_ARGS(p));
  for (int d = 0; d < 3; d++)
    PDS_CHECK((pds_size)p->lo[d] + p->n[d] <= PDS_INT_MAX, ctx, PDS_ERR_ARG,
              "patches: patch %d " BOX_FMT " reaches past the 32-bit cell grid", q, BOX_ARGS(p));
  PDS_CHECK((pds_size)p->n[0] * p->n[1] <= PDS_INT_MAX && (pds_size)p->n[0] * p->n[1] * p->n[2] <= PDS_INT_MAX, ctx,
            PDS_ERR_SIZE, "patches: patch %d " BOX_FMT " has more cells than 32-bit indices allow", q, BOX_ARGS(p));
  *cells = (pds_size)p->n[0] * p->n[1] * p->n[2];
  return PDS_OK;
}

int pds_mat_create_patches(pds_ctx ctx, int np, const pds_patch *patches, const pds_real stencil[7], pds_mat *A) {
  struct pds_mat_patches *s = NULL;
  pds_mat                 M = NULL;
  pds_size                ncells = 0, nghost = 0, links = 0;
  int                     ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(np >= 1, ctx, PDS_ERR_ARG, "patches: %d patches (at least 1)", np);
  PDS_CHECK(patches && stencil, ctx, PDS_ERR_ARG, "patches: the %s array is NULL", patches ? "stencil" : "patches");
  for (int q = 0; q < np; q++) {
    pds_size cells = 0;

    PDS_CALL(patches_check_box(ctx, q, &patches[q], &cells));
    ncells += cells;
    nghost += 2 * ((pds_size)patches[q].n[1] * patches[q].n[2] + (pds_size)patches[q].n[0] * patches[q].n[2] +
                   (pds_size)patches[q].n[0] * patches[q].n[1]);
  }
  for (int e = 0; e < 7; e++)
    PDS_CHECK(isfinite(stencil[e]), ctx, PDS_ERR_ARG, "patches: stencil value %s = %g is not finite", coef_names[e],
              stencil[e]);
  PDS_CHECK(stencil[0] != 0, ctx, PDS_ERR_ARG,
            "patches: the stencil's centre c0 is 0 (the diagonal of every cell away from the boundary would vanish)");
  PDS_CHECK(ncells <= PDS_INT_MAX, ctx, PDS_ERR_SIZE,
            "patches: %" PDS_SIZE_FMT " cells in %d patches exceed the 32-bit local index range", ncells, np);

  PDS_CALL(PDS_NEW(ctx, 1, &s));
  ierr = pds_dup_array(ctx, PDS_MEM_HOST, patches, PDS_MEM_HOST, (size_t)np * sizeof *patches, &s->patches);
  if (!ierr) ierr = PDS_NEW(ctx, np, &s->hgeom);
  if (!ierr) ierr = pds_malloc(ctx, PDS_MEM_HOST, (size_t)nghost * sizeof *s->hghost, &s->hghost);
  if (!ierr) {
    pds_size first = 0, gfirst = 0;

    for (int q = 0; q < np; q++) {
      const pds_patch *p = &patches[q];

      s->hgeom[q] = (struct pds_patch_geom){{p->n[0], p->n[1], p->n[2]}, {p->lo[0], p->lo[1], p->lo[2]}, first, gfirst};
      first += (pds_size)p->n[0] * p->n[1] * p->n[2];
      gfirst += 2 * ((pds_size)p->n[1] * p->n[2] + (pds_size)p->n[0] * p->n[2] + (pds_size)p->n[0] * p->n[1]);
    }
    for (pds_size e = 0; e < nghost; e++) s->hghost[e] = -1;
    ierr = patches_map(ctx, np, patches, s->hgeom, s->hghost, &links);
  }
  s->dgeom = s->hgeom, s->dghost = s->hghost;
  if (!ierr && ctx->k->mem_alloc) { /* a device backend: its copies of the geometry and the ghost map */
    s->dgeom = NULL, s->dghost = NULL;
    ierr = pds_dup_array(ctx, PDS_MEM_DEVICE, s->hgeom, PDS_MEM_HOST, (size_t)np * sizeof *s->hgeom, &s->dgeom);
    if (!ierr)
      ierr = pds_dup_array(ctx, PDS_MEM_DEVICE, s->hghost, PDS_MEM_HOST, (size_t)nghost * sizeof *s->hghost,
                           &s->dghost);
  }
  if (!ierr) ierr = pds_mat_alloc(ctx, "patches", (pds_int)ncells, (pds_int)ncells, &M);
  if (ierr) {
    patches_free(ctx, s);
    return ierr;
  }
  s->P = (struct pds_patches){np, ncells, nghost, {0}, s->dgeom, s->hgeom, s->dghost, s->hghost};
  memcpy(s->P.c, stencil, sizeof s->P.c);
  s->PT = s->P;
  for (int d = 0; d < 3; d++) s->PT.c[1 + 2 * d] = stencil[2 + 2 * d], s->PT.c[2 + 2 * d] = stencil[1 + 2 * d];
  M->data                = s;
  M->nnz                 = ncells + links;
  M->ops.apply           = patches_apply;
  M->ops.apply_transpose = patches_apply_transpose;
  M->ops.residual        = patches_residual;
  M->ops.get_diagonal    = patches_get_diagonal;
  M->ops.view            = patches_view;
  M->ops.to_csr          = pds_mat_patches_to_csr;
  M->ops.destroy         = patches_destroy;
  *A                     = M;
  return PDS_OK;
}

/* ---- the set's geometry, its tiling of a box, its coarsening --------------------------------------------------- */

const struct pds_patches *pds_mat_patches_view(pds_mat A) {
  return A && A->hdr.classid == PDS_CLASSID_MAT && !strcmp(A->type, "patches") ? &PS(A)->P : NULL;
}

int pds_mat_patches_get_count(pds_mat A, int *np) {
  PATCHES_VALID(A);
  PDS_CHECK(np, A->hdr.ctx, PDS_ERR_ARG, "np is NULL");
  *np = PS(A)->P.np;
  return PDS_OK;
}

int pds_mat_patches_get_patch(pds_mat A, int q, pds_patch *patch, pds_size *first) {
  PATCHES_VALID(A);
  PDS_CHECK(q >= 0 && q < PS(A)->P.np, A->hdr.ctx, PDS_ERR_ARG, "patch %d of a set of %d", q, PS(A)->P.np);
  if (patch) *patch = PS(A)->patches[q];
  if (first) *first = PS(A)->hgeom[q].first;
  return PDS_OK;
}

int pds_mat_patches_get_stencil(pds_mat A, pds_real stencil[7]) {
  PATCHES_VALID(A);
  PDS_CHECK(stencil, A->hdr.ctx, PDS_ERR_ARG, "stencil is NULL");
  memcpy(stencil, PS(A)->P.c, sizeof PS(A)->P.c);
  return PDS_OK;
}

/* each ghost: from the nearest cell of the patch, a step in x (if i is outside), then y, then z, through the set's
   neighbours (pb_step, as the trilinear prolongation walks), each step out of the domain negating */
int pds_mat_patches_get_ghosted(pds_mat A, pds_vec x, int q, pds_real *g) {
  const struct pds_mat_patches *s;
  const struct pds_patch_geom  *G;
  const pds_real               *xa;

  PATCHES_VALID(A);
  s = PS(A);
  PDS_VALID(x, PDS_CLASSID_VEC, "x");
  PDS_CHECK(x->n == s->P.ncells, A->hdr.ctx, PDS_ERR_SIZE, "x has length %" PDS_SIZE_FMT " but the set has %"
            PDS_SIZE_FMT " cells", x->n, s->P.ncells);
  PDS_CHECK(q >= 0 && q < s->P.np, A->hdr.ctx, PDS_ERR_ARG, "patch %d of a set of %d", q, s->P.np);
  PDS_CHECK(g, A->hdr.ctx, PDS_ERR_ARG, "g is NULL");
  G = &s->hgeom[q];
  PDS_CALL(pds_vec_get_array_read(x, PDS_MEM_HOST, &xa));
  for (pds_int k = -1; k <= G->n[2]; k++)
    for (pds_int j = -1; j <= G->n[1]; j++)
      for (pds_int i = -1; i <= G->n[0]; i++) {
        const pds_int  l[3] = {i, j, k};
        struct pb_walk w    = {q, {0, 0, 0}, 0};

        for (int d = 0; d < 3; d++) w.l[d] = l[d] < 0 ? 0 : l[d] == G->n[d] ? G->n[d] - 1 : l[d];
        for (int d = 0; d < 3; d++)
          if (l[d] < 0 || l[d] == G->n[d]) pb_step(s->hgeom, s->P.np, s->hghost, &w, 2 * d + (l[d] >= 0));
        g[(((pds_size)k + 1) * (G->n[1] + 2) + j + 1) * (G->n[0] + 2) + i + 1] = pb_walk_value(s->hgeom, &w, xa);
      }
  return pds_vec_restore_array_read(x, &xa);
}

int pds_patches_tile_box(const pds_int n[3], int nsizes, const pds_int *sizes, int *np, pds_patch *patches) {
  pds_size seg[3], total = 1;
  int      q = 0;

  PDS_CHECK(n && sizes && np, NULL, PDS_ERR_ARG, "pds_patches_tile_box: n, sizes or np is NULL");
  PDS_CHECK(nsizes >= 1, NULL, PDS_ERR_ARG, "pds_patches_tile_box: %d sizes (at least 1)", nsizes);
  for (int e = 0; e < nsizes; e++)
    PDS_CHECK(sizes[e] >= 1, NULL, PDS_ERR_ARG, "pds_patches_tile_box: sizes[%d] = %" PDS_INT_FMT " (at least 1)", e,
              sizes[e]);
  for (int d = 0; d < 3; d++) {
    pds_size s = 0;

    PDS_CHECK(n[d] >= 1, NULL, PDS_ERR_ARG, "pds_patches_tile_box: box of %" PDS_INT_FMT " x %" PDS_INT_FMT " x %"
              PDS_INT_FMT " cells has an empty or negative side", n[0], n[1], n[2]);
    for (seg[d] = 0; s < n[d]; seg[d]++) s += sizes[seg[d] % nsizes];
    total *= seg[d];
    PDS_CHECK(total <= PDS_INT_MAX, NULL, PDS_ERR_SIZE, "pds_patches_tile_box: more patches than an int counts");
  }
  if (patches) {
    pds_int lo[3];

    PDS_CHECK(*np >= total, NULL, PDS_ERR_SIZE, "pds_patches_tile_box: room for %d patches, the tiling has %"
              PDS_SIZE_FMT, *np, total);
    lo[2] = 0;
    for (pds_size c = 0; c < seg[2]; c++) {
      const pds_int nz = sizes[c % nsizes] < n[2] - lo[2] ? sizes[c % nsizes] : n[2] - lo[2];

      lo[1] = 0;
      for (pds_size b = 0; b < seg[1]; b++) {
        const pds_int ny = sizes[b % nsizes] < n[1] - lo[1] ? sizes[b % nsizes] : n[1] - lo[1];

        lo[0] = 0;
        for (pds_size a = 0; a < seg[0]; a++) {
          const pds_int nx = sizes[a % nsizes] < n[0] - lo[0] ? sizes[a % nsizes] : n[0] - lo[0];

          patches[q++] = (pds_patch){{lo[0], lo[1], lo[2]}, {nx, ny, nz}};
          lo[0] += nx;
        }
        lo[1] += ny;
      }
      lo[2] += nz;
    }
  }
  *np = (int)total;
  return PDS_OK;
}

int pds_mat_patches_coarsen(pds_mat A, pds_mat *Ac) {
  const struct pds_mat_patches *s;
  pds_ctx                       ctx;
  pds_patch                    *pc = NULL;
  pds_real                      c[7], sum;
  int                           ierr;

  PATCHES_VALID(A);
  s   = PS(A);
  ctx = A->hdr.ctx;
  PDS_CHECK(Ac, ctx, PDS_ERR_ARG, "output handle is NULL");
  *Ac = NULL;
  for (int q = 0; q < s->P.np; q++) {
    const pds_patch *p = &s->patches[q];

    for (int d = 0; d < 3; d++) {
      PDS_CHECK(p->n[d] >= 2, ctx, PDS_ERR_UNSUPPORTED, "patches: patch %d " BOX_FMT " is one cell thick: the set "
                "cannot be coarsened by 2", q, BOX_ARGS(p));
      PDS_CHECK(p->n[d] % 2 == 0 && p->lo[d] % 2 == 0, ctx, PDS_ERR_UNSUPPORTED, "patches: patch %d " BOX_FMT
                " has an odd %s: the set cannot be coarsened by 2", q, BOX_ARGS(p), p->n[d] % 2 ? "size" : "origin");
    }
  }
  PDS_CALL(PDS_NEW(ctx, s->P.np, &pc));
  for (int q = 0; q < s->P.np; q++)
    for (int d = 0; d < 3; d++) pc[q].lo[d] = s->patches[q].lo[d] / 2, pc[q].n[d] = s->patches[q].n[d] / 2;
  /* off-diagonals kept (the coarse operator is 4 A_2h, as restriction sums 4 times the average), the zeroth-order
     part c0 + sum c_d times 4 */
  memcpy(c, s->P.c, sizeof c);
  sum  = c[1] + c[2] + c[3] + c[4] + c[5] + c[6];
  c[0] = c[0] + 3 * (c[0] + sum);
  ierr = pds_mat_create_patches(ctx, s->P.np, pc, c, Ac);
  pds_free(ctx, PDS_MEM_HOST, &pc);
  return ierr;
}

/* The CSR rows of patches q0 .. q1-1 (their cells, in unknown order from the first cell of q0; columns: every unknown
   of the set, ascending in each row), the diagonal c0 - the Dirichlet faces' c_d; the arrays new on ctx's allocator.
   pds_mat_patches_to_csr takes all of them; a distributed patch set (dist_patches.c) its rank's. */
int pds_mat_patches_rows(pds_mat A, int q0, int q1, pds_size **rp_out, pds_int **ci_out, pds_real **v_out) {
  const struct pds_mat_patches *s   = PS(A);
  pds_ctx                       ctx = A->hdr.ctx;
  const pds_size                r0  = q0 < s->P.np ? s->hgeom[q0].first : s->P.ncells;
  const pds_size                r1  = q1 < s->P.np ? s->hgeom[q1].first : s->P.ncells;
  pds_size                     *rp = NULL, pos = 0;
  pds_int                      *ci = NULL;
  pds_real                     *v = NULL, *dg = NULL;
  int                           ierr;

  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, r1 - r0 + 1, &rp));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 7 * (r1 - r0) + 1, &ci));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 7 * (r1 - r0) + 1, &v));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, s->P.ncells, &dg));
  patches_diag(s, dg);
  for (int q = q0; q < q1; q++) {
    const struct pds_patch_geom *g = &s->hgeom[q];
    pds_size                     p = g->first;

    for (pds_int k = 0; k < g->n[2]; k++)
      for (pds_int j = 0; j < g->n[1]; j++)
        for (pds_int i = 0; i < g->n[0]; i++, p++) {
          pds_size col[7];
          pds_real val[7];
          int      m = 1;

          col[0] = p, val[0] = dg[p];
          for (int f = 0; f < 6; f++) {
            const pds_size u = pb_neighbour(g, s->hghost, f, i, j, k);

            if (u >= 0) col[m] = u, val[m++] = s->P.c[1 + f];
          }
          for (int a = 1; a < m; a++) /* columns ascending */
            for (int b = a; b > 0 && col[b - 1] > col[b]; b--) {
              const pds_size tc = col[b];
              const pds_real tv = val[b];

              col[b] = col[b - 1], val[b] = val[b - 1], col[b - 1] = tc, val[b - 1] = tv;
            }
          for (int a = 0; a < m; a++) ci[pos] = (pds_int)col[a], v[pos++] = val[a];
          rp[p - r0 + 1] = pos;
        }
  }
  pds_free(ctx, PDS_MEM_HOST, &dg);
  *rp_out = rp, *ci_out = ci, *v_out = v;
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  pds_free(ctx, PDS_MEM_HOST, &dg);
  return ierr;
}

/* CSR of the operator: rows in unknown order, columns ascending, the diagonal c0 - the Dirichlet faces' c_d */
int pds_mat_patches_to_csr(pds_mat A, pds_mat *B) {
  pds_size *rp;
  pds_int  *ci;
  pds_real *v;

  PDS_CALL(pds_mat_patches_rows(A, 0, PS(A)->P.np, &rp, &ci, &v));
  return pds_mat_csr_from_host_owned(A->hdr.ctx, A->nrows, A->ncols, rp, ci, v, B);
}
