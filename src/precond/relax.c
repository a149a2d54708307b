/* src/precond/relax.c: block relaxation on a patch set (paper 002): every patch is cut into spatial blocks of
 * bx x by x bz cells from its origin (the last block of a direction smaller when the patch size is not a multiple,
 * paper Section 4.3), each distinct block matrix A_b (a "type": its shape and which of its cells lie on the Dirichlet
 * boundary; A_b[p][p] = c0 - sum of c_d over p's Dirichlet faces, A_b[p][p+d] = c_d inside the block, couplings
 * leaving the block dropped) inverted once by Gauss-Jordan, and a sweep on A u = f is
 *   jacobi:     u_b += omega A_b^-1 (f - A u)_b for every block at once;
 *   multicolor: the same colour by colour (a greedy colouring of the blocks' adjacency, across patches too), each
 *               colour reading the new values of the colours before it; symmetric: then back;
 *   chaotic:    each block in place reading whatever its neighbours hold (paper 002's chaotic block Gauss-Seidel).
 * As a preconditioner y = M^-1 x is `sweeps` sweeps from y = 0. Setup builds the layout the kernels read
 * (src/precond/relax_kernels.h: types with their inverses, blocks sorted by colour, type, patch, position, segments
 * of one type and colour, per-patch block lists), uploads it, and has the backend make its plan; the sweeps are the
 * relax kernel group's. The layout is kept while the operator, the block, the clipping and the need for colours stay
 * the same; the plan while the layout and the variant do. */
#include <math.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../backend/patches_bodies.h"
#include "../graph/graph.h"
#include "precond_impl.h"

#define RELAX_MAXB 8           /* the largest block edge */
#define RELAX_MAXKEY (6 * 64)  /* the largest Dirichlet key: 6 faces of 8 x 8 cells */

struct relax {
  pds_relax_type type;
  int            bs[3], sweeps, symmetric, clip;
  pds_real       omega;       /* 0: the type's default */
  char           variant[16]; /* pds_precond_relax_set_variant's name */
  int            stream_order, nslots; /* pds_precond_relax_set_stream (smooth_host) */
  /* the layout and what it was built for */
  int                      have;
  unsigned long            of_id;
  int                      of_bs[3], of_clip, of_multi;
  const struct pds_patches *P;
  struct pds_relax_layout  L;
  int                      unified; /* backend memory is host memory: the h and d arrays are the same */
  struct pds_relax_btype   *htype, *dtype;
  struct pds_relax_block  *hblk, *dblk;
  struct pds_relax_seg    *hseg, *dseg;
  pds_int                 *hcolor, *hpblk, *dpblk, *hpfirst;
  pds_real                *inv;     /* backend memory */
  pds_real                *work;    /* backend memory, 2 ncells */
  pds_size                 nwork;
  void                    *plan;
  int                      have_plan;
  double                   t_setup; /* seconds of the last layout build (types, colours, inverses) */
};

static int relax_of(pds_precond pc, struct relax **R) { return pds_precond_data(pc, "relax", (void **)R); }

static pds_real relax_omega(const struct relax *R) {
  return R->omega != 0 ? R->omega : R->type == PDS_RELAX_JACOBI ? 0.8 : 1.0;
}

static const char *type_name(pds_relax_type t) {
  return t == PDS_RELAX_JACOBI ? "jacobi" : t == PDS_RELAX_MULTICOLOR ? "multicolor" : "chaotic";
}

static void plan_free(pds_ctx ctx, struct relax *R) {
  if (R->have_plan && ctx->k->relax.plan_destroy) ctx->k->relax.plan_destroy(ctx, R->plan);
  R->plan = NULL, R->have_plan = 0;
}

static void layout_free(pds_ctx ctx, struct relax *R) {
  plan_free(ctx, R);
  if (!R->unified) {
    pds_free(ctx, PDS_MEM_DEVICE, &R->dtype), pds_free(ctx, PDS_MEM_DEVICE, &R->dblk);
    pds_free(ctx, PDS_MEM_DEVICE, &R->dseg), pds_free(ctx, PDS_MEM_DEVICE, &R->dpblk);
  }
  R->dtype = NULL, R->dblk = NULL, R->dseg = NULL, R->dpblk = NULL;
  pds_free(ctx, PDS_MEM_HOST, &R->htype), pds_free(ctx, PDS_MEM_HOST, &R->hblk);
  pds_free(ctx, PDS_MEM_HOST, &R->hseg), pds_free(ctx, PDS_MEM_HOST, &R->hcolor);
  pds_free(ctx, PDS_MEM_HOST, &R->hpblk), pds_free(ctx, PDS_MEM_HOST, &R->hpfirst);
  pds_free(ctx, R->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE, &R->inv);
  memset(&R->L, 0, sizeof R->L);
  R->have = 0, R->P = NULL;
}

/* ---- setters ------------------------------------------------------------------------------------------ */

int pds_precond_relax_set_type(pds_precond pc, pds_relax_type type) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  PDS_CHECK(type == PDS_RELAX_JACOBI || type == PDS_RELAX_MULTICOLOR || type == PDS_RELAX_CHAOTIC, pc->hdr.ctx,
            PDS_ERR_ARG, "relax type %d: PDS_RELAX_JACOBI, PDS_RELAX_MULTICOLOR or PDS_RELAX_CHAOTIC", (int)type);
  if (R->type != type) pc->setup_done = 0;
  R->type = type;
  return PDS_OK;
}

int pds_precond_relax_set_block(pds_precond pc, int bx, int by, int bz) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  PDS_CHECK(bx >= 1 && bx <= RELAX_MAXB && by >= 1 && by <= RELAX_MAXB && bz >= 1 && bz <= RELAX_MAXB, pc->hdr.ctx,
            PDS_ERR_ARG, "relax block %d x %d x %d: each edge 1 to %d cells", bx, by, bz, RELAX_MAXB);
  if (R->bs[0] != bx || R->bs[1] != by || R->bs[2] != bz) pc->setup_done = 0;
  R->bs[0] = bx, R->bs[1] = by, R->bs[2] = bz;
  return PDS_OK;
}

int pds_precond_relax_set_omega(pds_precond pc, pds_real omega) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  PDS_CHECK(omega == 0 || (omega > 0 && omega < 2), pc->hdr.ctx, PDS_ERR_ARG,
            "relax omega %g: in (0, 2), or 0 for the type's default (0.8 for jacobi, 1 otherwise)", omega);
  R->omega = omega;
  return PDS_OK;
}

int pds_precond_relax_set_sweeps(pds_precond pc, int sweeps) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  PDS_CHECK(sweeps >= 1, pc->hdr.ctx, PDS_ERR_ARG, "relax sweeps %d: at least 1", sweeps);
  R->sweeps = sweeps;
  return PDS_OK;
}

int pds_precond_relax_set_symmetric(pds_precond pc, int symmetric) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  R->symmetric = symmetric != 0;
  return PDS_OK;
}

int pds_precond_relax_set_variant(pds_precond pc, const char *variant) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  PDS_CHECK(variant && variant[0] && strlen(variant) < sizeof R->variant, pc->hdr.ctx, PDS_ERR_ARG,
            "relax variant: a name of 1 to %zu characters", sizeof R->variant - 1);
  if (strcmp(R->variant, variant)) plan_free(pc->hdr.ctx, R), pc->setup_done = 0; /* a new plan at the next setup */
  snprintf(R->variant, sizeof R->variant, "%s", variant);
  return PDS_OK;
}

int pds_precond_relax_set_stream(pds_precond pc, pds_relax_stream order, int nslots) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  PDS_CHECK(order == PDS_RELAX_STREAM_DEPTH || order == PDS_RELAX_STREAM_BREADTH, pc->hdr.ctx, PDS_ERR_ARG,
            "relax stream order %d: PDS_RELAX_STREAM_DEPTH or PDS_RELAX_STREAM_BREADTH", (int)order);
  PDS_CHECK(nslots >= 1 && nslots <= 256, pc->hdr.ctx, PDS_ERR_ARG,
            "relax stream: %d slots; 1 to 256 patches on the device at once", nslots);
  R->stream_order = (int)order, R->nslots = nslots;
  return PDS_OK;
}

int pds_precond_relax_set_clip(pds_precond pc, int clip) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  if (R->clip != (clip != 0)) pc->setup_done = 0;
  R->clip = clip != 0;
  return PDS_OK;
}

/* ---- the layout ---------------------------------------------------------------------------------------- */

/* *pp (host, *cap elements of esz bytes) grown to hold need */
static int grow(pds_ctx ctx, void *pp, size_t *cap, size_t need, size_t esz) {
  void **p = pp, *q = NULL;
  size_t nc = *cap ? *cap : 16;

  if (need <= *cap) return PDS_OK;
  while (nc < need) nc *= 2;
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, nc * esz, &q));
  if (*p) memcpy(q, *p, *cap * esz);
  pds_free(ctx, PDS_MEM_HOST, p);
  *p = q, *cap = nc;
  return PDS_OK;
}

/* a patch's blocks: the block edge in each direction (clipped to the patch when asked), the count in each
   direction, and the first of them in generation order (patch, then z, y, x) */
struct pinfo {
  pds_int b[3], nb[3], first;
};

/* the cells of a block face f (0 x-, 1 x+, 2 y-, 3 y+, 4 z-, 5 z+) of a block of shape s, and where face f's
   entries start in the Dirichlet key (the faces in this order, each in the ghost map's order: x faces (k, j),
   y faces (k, i), z faces (j, i)) */
static pds_int face_cells(const pds_int s[3], int f) {
  return f < 2 ? s[1] * s[2] : f < 4 ? s[0] * s[2] : s[0] * s[1];
}
static pds_int face_start(const pds_int s[3], int f) {
  pds_int e = 0;

  for (int g = 0; g < f; g++) e += face_cells(s, g);
  return e;
}

/* the Dirichlet key of the block of patch g at o with shape s: key[e] = 1 where the face cell's neighbour across
   the block face is the domain's boundary (only faces on the patch's faces can be); returns its length */
static pds_int block_key(const struct pds_patch_geom *g, const pds_int *ghost, const pds_int o[3], const pds_int s[3],
                         unsigned char *key) {
  pds_int e = 0;

  for (int f = 0; f < 6; f++) {
    const int     d  = f / 2, hi = f % 2;
    const int     on = hi ? o[d] + s[d] == g->n[d] : o[d] == 0;
    const int     a  = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2; /* the face's two directions, a fastest */
    const pds_int c  = hi ? o[d] + s[d] - 1 : o[d];

    for (pds_int v = 0; v < s[b]; v++)
      for (pds_int w = 0; w < s[a]; w++, e++) {
        pds_int x[3];

        x[d] = c, x[a] = o[a] + w, x[b] = o[b] + v;
        key[e] = on && pb_neighbour(g, ghost, f, x[0], x[1], x[2]) < 0;
      }
  }
  return e;
}

/* A_b^T row-major (= A_b column-major: At[j m + i] = A_b[i][j]) of the type with shape s and key */
static void block_matrix_t(const pds_real c[7], const pds_int s[3], const unsigned char *key, pds_real *At) {
  const pds_int  m = s[0] * s[1] * s[2], sxy = s[0] * s[1];
  pds_int        fs[6];
  const pds_size mm = (pds_size)m;

  for (int f = 0; f < 6; f++) fs[f] = face_start(s, f);
  memset(At, 0, (size_t)m * m * sizeof *At);
  for (pds_int lk = 0, l = 0; lk < s[2]; lk++)
    for (pds_int lj = 0; lj < s[1]; lj++)
      for (pds_int li = 0; li < s[0]; li++, l++) {
        const int dir[6] = {li == 0 && key[fs[0] + lk * s[1] + lj], li == s[0] - 1 && key[fs[1] + lk * s[1] + lj],
                            lj == 0 && key[fs[2] + lk * s[0] + li], lj == s[1] - 1 && key[fs[3] + lk * s[0] + li],
                            lk == 0 && key[fs[4] + lj * s[0] + li], lk == s[2] - 1 && key[fs[5] + lj * s[0] + li]};
        pds_real  d      = c[0];

        for (int f = 0; f < 6; f++)
          if (dir[f]) d = d - c[1 + f];
        At[l * mm + l] = d;
        if (li > 0) At[(l - 1) * mm + l] = c[1];
        if (li + 1 < s[0]) At[(l + 1) * mm + l] = c[2];
        if (lj > 0) At[(l - s[0]) * mm + l] = c[3];
        if (lj + 1 < s[1]) At[(l + s[0]) * mm + l] = c[4];
        if (lk > 0) At[(l - sxy) * mm + l] = c[5];
        if (lk + 1 < s[2]) At[(l + sxy) * mm + l] = c[6];
      }
}

/* the distinct block matrices found so far: shape, key (in a pool), hash, and a block that has it (for messages) */
struct tinfo {
  pds_int  s[3], klen, q, o[3];
  size_t   key;
  uint64_t hash;
};
struct types {
  struct tinfo  *t;
  size_t         n, cap;
  unsigned char *pool;
  size_t         npool, cappool;
  pds_int       *table; /* open addressing: type + 1, 0 empty */
  size_t         tcap;  /* a power of two, at least twice n */
};

static uint64_t key_hash(const pds_int s[3], const unsigned char *key, pds_int klen) {
  uint64_t h = 1469598103934665603ull;

  for (int d = 0; d < 3; d++) h = (h ^ (uint64_t)s[d]) * 1099511628211ull;
  for (pds_int e = 0; e < klen; e++) h = (h ^ key[e]) * 1099511628211ull;
  return h;
}

static int table_rehash(pds_ctx ctx, struct types *T, size_t tcap) {
  pds_int *t = NULL;

  PDS_CALL(PDS_NEW(ctx, tcap, &t));
  for (size_t i = 0; i < T->n; i++) {
    size_t h = (size_t)T->t[i].hash & (tcap - 1);

    while (t[h]) h = (h + 1) & (tcap - 1);
    t[h] = (pds_int)i + 1;
  }
  pds_free(ctx, PDS_MEM_HOST, &T->table);
  T->table = t, T->tcap = tcap;
  return PDS_OK;
}

/* the type of the block (q, o, s) with this key: an existing one (hash, then shape and key compared) or a new one */
static int type_of(pds_ctx ctx, struct types *T, pds_int q, const pds_int o[3], const pds_int s[3],
                   const unsigned char *key, pds_int klen, pds_int *type) {
  const uint64_t h = key_hash(s, key, klen);
  size_t         i;

  if (2 * (T->n + 1) > T->tcap) PDS_CALL(table_rehash(ctx, T, T->tcap ? 2 * T->tcap : 64));
  for (i = (size_t)h & (T->tcap - 1); T->table[i]; i = (i + 1) & (T->tcap - 1)) {
    const struct tinfo *t = &T->t[T->table[i] - 1];

    if (t->hash == h && t->s[0] == s[0] && t->s[1] == s[1] && t->s[2] == s[2] &&
        !memcmp(T->pool + t->key, key, (size_t)klen)) {
      *type = T->table[i] - 1;
      return PDS_OK;
    }
  }
  PDS_CALL(grow(ctx, &T->t, &T->cap, T->n + 1, sizeof *T->t));
  PDS_CALL(grow(ctx, &T->pool, &T->cappool, T->npool + (size_t)klen + 1, 1));
  memcpy(T->pool + T->npool, key, (size_t)klen);
  T->t[T->n] = (struct tinfo){{s[0], s[1], s[2]}, klen, q, {o[0], o[1], o[2]}, T->npool, h};
  T->npool += (size_t)klen;
  T->table[i] = (pds_int)T->n + 1;
  *type = (pds_int)T->n++;
  return PDS_OK;
}

/* the generation-order block holding unknown p */
static pds_int block_of(const struct pds_patches *P, const struct pinfo *pi, pds_size p) {
  const int                    q = pb_patch_of(P->hgeom, P->np, p);
  const struct pds_patch_geom *g = &P->hgeom[q];
  const pds_size               l = p - g->first;
  const pds_int i = (pds_int)(l % g->n[0]), j = (pds_int)(l / g->n[0] % g->n[1]), k = (pds_int)(l / g->n[0] / g->n[1]);

  return pi[q].first + ((k / pi[q].b[2]) * pi[q].nb[1] + j / pi[q].b[1]) * pi[q].nb[0] + i / pi[q].b[0];
}

/* greedy colours of the blocks (generation order): two blocks touch when a cell of one has a 7-point neighbour in
   the other, inside a patch (face-adjacent blocks) or across patches (through the ghost map, both ways) */
static int block_colors(pds_ctx ctx, const struct pds_patches *P, const struct pinfo *pi,
                        const struct pds_relax_block *gb, const pds_int *gtype, const struct types *T, pds_int nblocks,
                        pds_int *color, pds_int *ncolors) {
  pds_int  *cross = NULL, *adj = NULL; /* cross: pairs (a, b) of blocks touching across patches */
  size_t    ncross = 0, capcross = 0;
  pds_size *ptr = NULL;
  int       ierr = PDS_OK;

  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nblocks + 1, &ptr));
  for (pds_int b = 0; b < nblocks; b++) {
    const struct pds_relax_block *B = &gb[b];
    const struct pds_patch_geom  *g = &P->hgeom[B->patch];
    const pds_int                *s = T->t[gtype[b]].s;
    pds_int                       deg = 0;

    for (int f = 0; f < 6; f++) {
      const int d = f / 2, hi = f % 2;
      const int on = hi ? B->o[d] + s[d] == g->n[d] : B->o[d] == 0;

      if (!on) {
        deg++;
        continue;
      }
      { /* across the patch face: every face cell's neighbour, consecutive repeats skipped */
        const int     a = d == 0 ? 1 : 0, bb = d == 2 ? 1 : 2;
        const pds_int c = hi ? B->o[d] + s[d] - 1 : B->o[d];
        pds_int       last = -1;

        for (pds_int v = 0; v < s[bb]; v++)
          for (pds_int w = 0; w < s[a]; w++) {
            pds_int        x[3];
            pds_size       p;
            pds_int        nb;

            x[d] = c, x[a] = B->o[a] + w, x[bb] = B->o[bb] + v;
            p = pb_neighbour(g, P->hghost, f, x[0], x[1], x[2]);
            if (p < 0 || (nb = block_of(P, pi, p)) == last) continue;
            last = nb;
            PDS_CALL_GOTO(ierr, done, grow(ctx, &cross, &capcross, ncross + 4, sizeof *cross));
            cross[ncross++] = b, cross[ncross++] = nb, cross[ncross++] = nb, cross[ncross++] = b;
          }
      }
    }
    ptr[b + 1] = deg; /* the neighbours inside the patch */
  }
  for (size_t e = 0; e < ncross; e += 2) ptr[cross[e] + 1]++;
  for (pds_int b = 0; b < nblocks; b++) ptr[b + 1] += ptr[b];
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)ptr[nblocks] + 1, &adj));
  {
    pds_size *fill = NULL;

    PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nblocks + 1, &fill));
    memcpy(fill, ptr, (size_t)nblocks * sizeof *fill);
    for (pds_int b = 0; b < nblocks; b++) { /* the face neighbours inside the patch, from the block grid */
      const struct pds_relax_block *B = &gb[b];
      const struct pinfo           *q = &pi[B->patch];
      const pds_int                 l = b - q->first, bi = l % q->nb[0], bj = l / q->nb[0] % q->nb[1],
                    bk = l / q->nb[0] / q->nb[1];

      if (bi > 0) adj[fill[b]++] = b - 1;
      if (bi + 1 < q->nb[0]) adj[fill[b]++] = b + 1;
      if (bj > 0) adj[fill[b]++] = b - q->nb[0];
      if (bj + 1 < q->nb[1]) adj[fill[b]++] = b + q->nb[0];
      if (bk > 0) adj[fill[b]++] = b - q->nb[0] * q->nb[1];
      if (bk + 1 < q->nb[2]) adj[fill[b]++] = b + q->nb[0] * q->nb[1];
    }
    for (size_t e = 0; e < ncross; e += 2) adj[fill[cross[e]]++] = cross[e + 1]; /* repeats do no harm */
    pds_free(ctx, PDS_MEM_HOST, &fill);
  }
  PDS_CALL_GOTO(ierr, done, pds_graph_color(ctx, nblocks, ptr, adj, color, ncolors));
done:
  pds_free(ctx, PDS_MEM_HOST, &cross), pds_free(ctx, PDS_MEM_HOST, &adj), pds_free(ctx, PDS_MEM_HOST, &ptr);
  return ierr;
}

/* the layout of R's blocks on patch set P (host arrays, then their backend copies) */
static int layout_build(pds_precond pc, const struct pds_patches *P) {
  struct relax           *R   = pc->data;
  pds_ctx                 ctx = pc->hdr.ctx;
  const int               multi = R->type == PDS_RELAX_MULTICOLOR;
  struct pinfo           *pi    = NULL;
  struct pds_relax_block *gb    = NULL;          /* the blocks in generation order (patch, z, y, x) */
  pds_int                *gtype = NULL, *gcol = NULL, *start = NULL, *order = NULL;
  struct types            T     = {0};
  pds_int                 nblocks = 0, ncolors = 1, nsegs = 0;
  pds_size                ninv = 0, r = 0, nb64 = 0;
  pds_real               *hinv  = NULL;          /* the inverses, host memory */
  int                    *bads  = NULL;          /* pds_block_invert's answer for each type */
  unsigned char           key[RELAX_MAXKEY];
  int                     ierr = PDS_OK;

  layout_free(ctx, R);
  R->unified = ctx->k->mem_alloc == NULL;
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)P->np + 1, &pi));
  for (int q = 0; q < P->np; q++) {
    const struct pds_patch_geom *g = &P->hgeom[q];

    for (int d = 0; d < 3; d++) {
      if (R->bs[d] > g->n[d] && !R->clip) {
        ierr = PDS_ERROR(ctx, PDS_ERR_ARG,
                         "relax: the block %d x %d x %d is larger than patch %d (%" PDS_INT_FMT " x %" PDS_INT_FMT
                         " x %" PDS_INT_FMT " cells at (%" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT
                         ")); choose a block that fits every patch (pds_precond_relax_set_block)",
                         R->bs[0], R->bs[1], R->bs[2], q, g->n[0], g->n[1], g->n[2], g->lo[0], g->lo[1], g->lo[2]);
        goto done;
      }
      pi[q].b[d]  = R->bs[d] < g->n[d] ? R->bs[d] : g->n[d];
      pi[q].nb[d] = (g->n[d] + pi[q].b[d] - 1) / pi[q].b[d];
    }
    pi[q].first = (pds_int)nb64;
    nb64 += (pds_size)pi[q].nb[0] * pi[q].nb[1] * pi[q].nb[2];
  }
  nblocks = (pds_int)nb64; /* at most the cells, which fit pds_int */
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nblocks + 1, &gb));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nblocks + 1, &gtype));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nblocks + 1, &gcol));
  /* the blocks and their types */
  for (int q = 0; q < P->np; q++) {
    const struct pds_patch_geom *g = &P->hgeom[q];
    pds_int                      b = pi[q].first;

    for (pds_int bk = 0; bk < pi[q].nb[2]; bk++)
      for (pds_int bj = 0; bj < pi[q].nb[1]; bj++)
        for (pds_int bi = 0; bi < pi[q].nb[0]; bi++, b++) {
          const pds_int o[3] = {bi * pi[q].b[0], bj * pi[q].b[1], bk * pi[q].b[2]};
          pds_int       s[3], klen;

          for (int d = 0; d < 3; d++) s[d] = g->n[d] - o[d] < pi[q].b[d] ? g->n[d] - o[d] : pi[q].b[d];
          klen = block_key(g, P->hghost, o, s, key);
          PDS_CALL_GOTO(ierr, done, type_of(ctx, &T, q, o, s, key, klen, &gtype[b]));
          gb[b] = (struct pds_relax_block){q, {o[0], o[1], o[2]}, gtype[b], 0};
        }
  }
  if (multi) PDS_CALL_GOTO(ierr, done, block_colors(ctx, P, pi, gb, gtype, &T, nblocks, gcol, &ncolors));
  /* the layout order: colour, type, then generation order (patch, position): a stable counting sort */
  {
    const size_t nk = (size_t)ncolors * T.n;

    PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, nk + 1, &start));
    PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nblocks + 1, &order));
    for (pds_int b = 0; b < nblocks; b++) start[(size_t)gcol[b] * T.n + (size_t)gtype[b] + 1]++;
    for (size_t k = 0; k < nk; k++) {
      nsegs += start[k + 1] > 0;
      start[k + 1] += start[k];
    }
    for (pds_int b = 0; b < nblocks; b++) order[start[(size_t)gcol[b] * T.n + (size_t)gtype[b]]++] = b;
  }
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, T.n + 1, &R->htype));
  for (size_t t = 0; t < T.n; t++) {
    const pds_int m = T.t[t].s[0] * T.t[t].s[1] * T.t[t].s[2];

    R->htype[t] = (struct pds_relax_btype){{T.t[t].s[0], T.t[t].s[1], T.t[t].s[2]}, m, ninv};
    ninv += (pds_size)m * m;
  }
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nblocks + 1, &R->hblk));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nsegs + 1, &R->hseg));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)ncolors + 1, &R->hcolor));
  {
    pds_int s = -1, cprev = -1;

    for (pds_int l = 0; l < nblocks; l++) {
      const pds_int b = order[l], t = gtype[b], c = gcol[b];

      R->hblk[l]   = gb[b];
      R->hblk[l].r = r;
      r += R->htype[t].m;
      if (s < 0 || R->hseg[s].type != t || c != cprev) {
        R->hseg[++s] = (struct pds_relax_seg){t, l, l, R->hblk[l].r};
        for (pds_int cc = cprev + 1; cc <= c; cc++) R->hcolor[cc] = s; /* colours rise; every one is used */
        cprev = c;
      }
      R->hseg[s].b1 = l + 1;
    }
    for (pds_int cc = cprev + 1; cc <= ncolors; cc++) R->hcolor[cc] = nsegs;
  }
  /* the blocks patch by patch, in layout order */
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)P->np + 1, &R->hpfirst));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nblocks + 1, &R->hpblk));
  for (pds_int l = 0; l < nblocks; l++) R->hpfirst[R->hblk[l].patch + 1]++;
  for (int q = 0; q < P->np; q++) R->hpfirst[q + 1] += R->hpfirst[q];
  memcpy(order, R->hpfirst, (size_t)P->np * sizeof *order); /* order: no longer needed, nblocks >= np entries */
  for (pds_int l = 0; l < nblocks; l++) R->hpblk[order[R->hblk[l].patch]++] = l;
  /* the inverses: A_b^T row-major, inverted in place, is A_b^-1 column-major */
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)ninv * sizeof(pds_real), &hinv));
  /* every type on its own (the same bits whatever the order): over the host's threads, except on /cpu/ref, which
     stays sequential (27 inverses of 512 x 512, 7 GFlop: about 1 s on one core) */
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, T.n + 1, &bads));
  {
    const long nt = (long)T.n;
#ifdef _OPENMP
    const int threads = strcmp(ctx->backend, "/cpu/ref") ? omp_get_max_threads() : 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && nt > 1)
#endif
    for (long t = 0; t < nt; t++) {
      pds_real *At = hinv + R->htype[t].off;

      block_matrix_t(P->c, T.t[t].s, T.pool + T.t[t].key, At);
      bads[t] = pds_block_invert(R->htype[t].m, At);
    }
  }
  for (size_t t = 0; t < T.n; t++) { /* the first failure, in type order */
    const struct tinfo *ti  = &T.t[t];
    const pds_int       m   = R->htype[t].m;
    const int           bad = bads[t];

    if (bad == -2) {
      ierr = PDS_ERROR(ctx, PDS_ERR_MEM, "relax: no memory for the pivots of a %" PDS_INT_FMT " x %" PDS_INT_FMT
                       " block matrix", m, m);
      goto done;
    }
    if (bad) {
      ierr = PDS_ERROR(ctx, PDS_ERR_ZERO_PIVOT,
                       "relax: the block matrix of the %" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT
                       " block at cell (%" PDS_INT_FMT ", %" PDS_INT_FMT ", %" PDS_INT_FMT ") of patch %" PDS_INT_FMT
                       " is singular (stencil c0 = %g, c_x = %g %g, c_y = %g %g, c_z = %g %g, its Dirichlet cells' "
                       "diagonals c0 - c_d); change the stencil or the block size",
                       ti->s[0], ti->s[1], ti->s[2], ti->o[0], ti->o[1], ti->o[2], ti->q, P->c[0], P->c[1], P->c[2],
                       P->c[3], P->c[4], P->c[5], P->c[6]);
      goto done;
    }
  }
  if (!R->unified) { /* the backend's copies */
    PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, hinv, PDS_MEM_HOST, (size_t)ninv * sizeof *hinv,
                                            &R->inv));
    PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, R->htype, PDS_MEM_HOST, T.n * sizeof *R->htype,
                                            &R->dtype));
    PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, R->hblk, PDS_MEM_HOST,
                                            (size_t)nblocks * sizeof *R->hblk, &R->dblk));
    PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, R->hseg, PDS_MEM_HOST,
                                            (size_t)nsegs * sizeof *R->hseg, &R->dseg));
    PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, R->hpblk, PDS_MEM_HOST,
                                            (size_t)nblocks * sizeof *R->hpblk, &R->dpblk));
  } else {
    R->dtype = R->htype, R->dblk = R->hblk, R->dseg = R->hseg, R->dpblk = R->hpblk;
    R->inv = hinv, hinv = NULL; /* the host array is the backend's */
  }
  R->L = (struct pds_relax_layout){nblocks, (pds_int)T.n, nsegs, ncolors, R->dtype, R->htype, R->dblk, R->hblk,
                                   R->dseg, R->hseg, R->hcolor, R->dpblk, R->hpblk, R->hpfirst, R->inv, ninv};
  R->have = 1, R->P = P;
done:
  pds_free(ctx, PDS_MEM_HOST, &pi), pds_free(ctx, PDS_MEM_HOST, &gb), pds_free(ctx, PDS_MEM_HOST, &gtype);
  pds_free(ctx, PDS_MEM_HOST, &gcol), pds_free(ctx, PDS_MEM_HOST, &start), pds_free(ctx, PDS_MEM_HOST, &order);
  pds_free(ctx, PDS_MEM_HOST, &T.t), pds_free(ctx, PDS_MEM_HOST, &T.pool), pds_free(ctx, PDS_MEM_HOST, &T.table);
  pds_free(ctx, PDS_MEM_HOST, &hinv), pds_free(ctx, PDS_MEM_HOST, &bads);
  if (ierr) layout_free(ctx, R);
  return ierr;
}

/* ---- the preconditioner --------------------------------------------------------------------------------- */

static int relax_setup(pds_precond pc) {
  struct relax             *R   = pc->data;
  pds_ctx                   ctx = pc->hdr.ctx;
  const struct pds_patches *P   = pds_mat_patches_view(pc->A);
  const int                 multi = R->type == PDS_RELAX_MULTICOLOR;

  PDS_CHECK(P, ctx, PDS_ERR_ARG,
            "relax needs a patches matrix (pds_mat_create_patches: a patch set with a 7-point stencil), not %s",
            pc->A->type);
  PDS_KERNEL(ctx, relax.plan_create);
  PDS_KERNEL(ctx, relax.plan_destroy);
  PDS_KERNEL(ctx, relax.smooth);
  if (!R->have || R->of_id != pc->A->id || R->P != P || memcmp(R->of_bs, R->bs, sizeof R->bs) ||
      R->of_clip != R->clip || R->of_multi != multi) {
    const double t0 = pds_wtime();

    PDS_CALL(layout_build(pc, P));
    R->of_id = pc->A->id, R->of_clip = R->clip, R->of_multi = multi;
    memcpy(R->of_bs, R->bs, sizeof R->bs);
    R->t_setup = pds_wtime() - t0;
  }
  if (!R->have_plan) {
    PDS_CALL(ctx->k->relax.plan_create(ctx, P, &R->L, R->variant, &R->plan));
    R->have_plan = 1;
  }
  if (R->nwork < 2 * P->ncells) {
    pds_free(ctx, PDS_MEM_DEVICE, &R->work), R->nwork = 0;
    PDS_CALL(pds_malloc(ctx, PDS_MEM_DEVICE, 2 * (size_t)P->ncells * sizeof(pds_real), &R->work));
    R->nwork = 2 * P->ncells;
  }
  return PDS_OK;
}

/* sweeps on A u = f (zero: u is 0 on entry) */
static int relax_run(pds_precond pc, pds_vec f, pds_vec u, int sweeps, int zero) {
  struct relax   *R   = pc->data;
  pds_ctx         ctx = pc->hdr.ctx;
  const pds_real *fa;
  pds_real       *ua;

  PDS_CALL(pds_vec_dev_read(f, &fa));
  PDS_CALL(pds_vec_dev_write(u, &ua));
  return ctx->k->relax.smooth(ctx, R->plan, R->P, &R->L, (int)R->type, R->symmetric, relax_omega(R), sweeps, zero, fa,
                              ua, R->work);
}

static int relax_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct relax *R = pc->data;

  PDS_CALL(pds_vec_set(y, 0));
  return relax_run(pc, x, y, R->sweeps, 1); /* y = M^-1 x: sweeps on A y = x from y = 0 */
}

int pds_precond_relax_smooth(pds_precond pc, pds_vec f, pds_vec u, int sweeps) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  PDS_VALID(f, PDS_CLASSID_VEC, "f");
  PDS_VALID(u, PDS_CLASSID_VEC, "u");
  PDS_CHECK(pc->setup_done, pc->hdr.ctx, PDS_ERR_STATE, "relax is not set up; call pds_precond_setup");
  PDS_CHECK(f->n == pc->A->nrows && u->n == pc->A->nrows, pc->hdr.ctx, PDS_ERR_SIZE,
            "relax smooth: f has %" PDS_SIZE_FMT " entries and u %" PDS_SIZE_FMT ", the operator %" PDS_INT_FMT
            " rows", f->n, u->n, pc->A->nrows);
  PDS_CHECK(f != u, pc->hdr.ctx, PDS_ERR_ARG, "relax smooth: f and u are the same vector");
  PDS_CHECK(sweeps >= 0, pc->hdr.ctx, PDS_ERR_ARG, "relax smooth: %d sweeps; 0 or more", sweeps);
  if (!sweeps) return PDS_OK;
  return relax_run(pc, f, u, sweeps, 0);
}

int pds_precond_relax_smooth_host(pds_precond pc, const pds_real *f, pds_real *u, int sweeps) {
  struct relax *R = NULL;
  pds_ctx       ctx;

  PDS_CALL(relax_of(pc, &R));
  ctx = pc->hdr.ctx;
  PDS_CHECK(pc->setup_done && R->have && R->have_plan, ctx, PDS_ERR_STATE, "relax is not set up; call pds_precond_setup");
  PDS_CHECK(f && u, ctx, PDS_ERR_ARG, "relax smooth_host: %s is NULL", f ? "u" : "f");
  PDS_CHECK(f != u, ctx, PDS_ERR_ARG, "relax smooth_host: f and u are the same array");
  PDS_CHECK(sweeps >= 0, ctx, PDS_ERR_ARG, "relax smooth_host: %d sweeps; 0 or more", sweeps);
  if (!sweeps) return PDS_OK;
  if (ctx->k->relax.smooth_host)
    return ctx->k->relax.smooth_host(ctx, R->plan, R->P, &R->L, (int)R->type, R->symmetric, relax_omega(R), sweeps,
                                     R->stream_order, R->nslots, f, u);
  PDS_CHECK(R->unified, ctx, PDS_ERR_UNSUPPORTED, "backend %s has no kernel 'relax.smooth_host' (host-resident patch "
            "sets)", ctx->backend);
  /* a CPU backend: the host arrays are its memory */
  return ctx->k->relax.smooth(ctx, R->plan, R->P, &R->L, (int)R->type, R->symmetric, relax_omega(R), sweeps, 0, f, u,
                              R->work);
}

int pds_precond_relax_get_info(pds_precond pc, int *ntypes, int *ncolors, pds_int *nblocks) {
  struct relax *R = NULL;

  PDS_CALL(relax_of(pc, &R));
  PDS_CHECK(pc->setup_done && R->have, pc->hdr.ctx, PDS_ERR_STATE, "relax is not set up; call pds_precond_setup");
  if (ntypes) *ntypes = R->L.ntypes;
  if (ncolors) *ncolors = R->L.ncolors;
  if (nblocks) *nblocks = R->L.nblocks;
  return PDS_OK;
}

static int relax_view(pds_precond pc, FILE *f) {
  struct relax *R   = pc->data;
  pds_ctx       ctx = pc->hdr.ctx;
  char          line[256];

  fprintf(f, "  block relaxation %s%s: blocks %d x %d x %d%s, omega %g, %d sweep%s\n", type_name(R->type),
          R->type == PDS_RELAX_MULTICOLOR && R->symmetric ? " (symmetric)" : "", R->bs[0], R->bs[1], R->bs[2],
          R->clip ? " (clipped to the patches)" : "", relax_omega(R), R->sweeps, R->sweeps == 1 ? "" : "s");
  if (R->have)
    fprintf(f, "  %" PDS_INT_FMT " blocks, %" PDS_INT_FMT " distinct block matrices (%" PDS_SIZE_FMT
            " inverse entries), %" PDS_INT_FMT " colour%s, setup %.3g s\n", R->L.nblocks, R->L.ntypes, R->L.ninv,
            R->L.ncolors, R->L.ncolors == 1 ? "" : "s", R->t_setup);
  if (R->have_plan && ctx->k->relax.plan_describe && !ctx->k->relax.plan_describe(ctx, R->plan, line, sizeof line))
    fprintf(f, "  %s\n", line);
  return PDS_OK;
}

static int relax_destroy(pds_precond pc) {
  struct relax *R = pc->data;

  if (R) {
    layout_free(pc->hdr.ctx, R);
    pds_free(pc->hdr.ctx, PDS_MEM_DEVICE, &R->work);
  }
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_create_relax(pds_precond pc) {
  struct relax *R = NULL;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &R));
  R->type = PDS_RELAX_JACOBI;
  R->bs[0] = R->bs[1] = R->bs[2] = 8;
  R->sweeps = 1, R->symmetric = 1;
  R->stream_order = PDS_RELAX_STREAM_DEPTH, R->nslots = 8;
  snprintf(R->variant, sizeof R->variant, "auto");
  pc->data        = R;
  pc->ops.setup   = relax_setup;
  pc->ops.apply   = relax_apply;
  pc->ops.view    = relax_view;
  pc->ops.destroy = relax_destroy;
  return PDS_OK;
}
