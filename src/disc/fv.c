/* src/disc/fv.c: the cell-centred finite-volume Euler operator of paper 001 (issue 14) on a 3D hybrid mesh: the
 * convective residual R = - sum over each cell's faces of the Roe flux (first order: the cells' values on both sides;
 * free-stream faces against the free stream state, wall faces the paper's (0, p n, 0)) in the paper's three stages
 * (Section 3.2: the states at the faces, the flux through each face, the sum into each cell, no atomics; the residual
 * runs the first two fused, the states computed in the flux kernel) or by another summation (pds_fv_params'
 * summation: face colours, atomic additions, a cell loop computing its faces' fluxes; fv_kernels.h), and the
 * explicit step Q += tau R / V with a local time step tau = CFL V / sum (|u . a| + c |a|). Order 2 (paper 001's
 * quadratic reconstruction, set up by fv_recon.c) runs the reconstruction PC = A (Q_G - Q) and the polynomials' values
 * at the face barycentres as stage 0 instead of the first-order face states. The object keeps backend
 * copies of the mesh's face topology and geometry (the mesh may be destroyed after) and its work arrays; the
 * arithmetic is the fv kernel group's (src/disc/fv_kernels.h, src/backend/fv_bodies.h). */
#include <math.h>

#include "../backend/backend.h"
#include "../vec/vec_impl.h"
#include "fv_impl.h"
#include "fv_kernels.h"

#define PDS_CLASSID_FV 0x70644607u

struct pds_fv_s {
  struct pds_header hdr;
  struct pds_fv_dev dev; /* views of the arrays below, in backend memory */
  pds_int          *face_cell, *cell_ptr, *cell_face;
  unsigned char    *face_kind;
  pds_real         *face_area, *cell_volume, *QF, *F, *tau;
  pds_int          *ste, *sta, *ste_host; /* order 2: STE, STA (backend), STE (host, for the histogram) */
  pds_real         *mat, *ap, *face_centre, *PC;
  pds_int          *color_ptr, *color_face, *color_ptr_h; /* the colour summation's colours (backend; offsets host) */
  int               unified; /* backend memory is host memory */
  int               sum;     /* PDS_FV_SUM_* */
  struct pds_fv_jac *jac;    /* the implicit step's (fv_jac.c), made by its first use */
  pds_fv_info       info;
};

#define FV_VALID(f)                                                                                         \
  do {                                                                                                      \
    if (!(f)) return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG, "fv object is NULL");       \
    if ((f)->hdr.classid != PDS_CLASSID_FV)                                                                 \
      return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG,                                     \
                       "fv object is not valid (destroyed, or another kind of handle)");                    \
  } while (0)

void pds_fv_params_default(pds_fv_params *p) {
  if (!p) return;
  memset(p, 0, sizeof *p);
  p->gamma = 1.4, p->mach = 0.1, p->dir[0] = 1, p->efix = 0.1;
  p->order = 1, p->recon_cond = 100, p->recon_min = 18, p->recon_levels = 4, p->recon_max = 120, p->recon_weight = 0;
}

static void fv_free(struct pds_fv_s *V) {
  pds_ctx           ctx = V->hdr.ctx;
  const pds_memtype mt  = V->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE;

  pds_free(ctx, mt, &V->face_cell), pds_free(ctx, mt, &V->cell_ptr), pds_free(ctx, mt, &V->cell_face);
  pds_free(ctx, mt, &V->face_kind), pds_free(ctx, mt, &V->face_area), pds_free(ctx, mt, &V->cell_volume);
  pds_free(ctx, mt, &V->QF), pds_free(ctx, mt, &V->F), pds_free(ctx, mt, &V->tau);
  pds_free(ctx, mt, &V->ste), pds_free(ctx, mt, &V->sta), pds_free(ctx, mt, &V->mat), pds_free(ctx, mt, &V->ap);
  pds_free(ctx, mt, &V->face_centre), pds_free(ctx, mt, &V->PC), pds_free(ctx, PDS_MEM_HOST, &V->ste_host);
  pds_free(ctx, mt, &V->color_ptr), pds_free(ctx, mt, &V->color_face), pds_free(ctx, PDS_MEM_HOST, &V->color_ptr_h);
  pds_fv_jac_free(ctx, &V->jac);
}

/* *dst: a backend copy of bytes bytes of host src */
static int fv_dup(struct pds_fv_s *V, const void *src, size_t bytes, void *dst) {
  return pds_dup_array(V->hdr.ctx, V->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE, src, PDS_MEM_HOST, bytes, dst);
}

/* the free stream: rho 1, sound speed 1 (p = 1 / gamma), velocity mach dir / |dir| */
static void fv_freestream(const pds_fv_params *p, pds_real q[5]) {
  const pds_real d = sqrt(p->dir[0] * p->dir[0] + p->dir[1] * p->dir[1] + p->dir[2] * p->dir[2]);
  const pds_real u[3] = {p->mach * p->dir[0] / d, p->mach * p->dir[1] / d, p->mach * p->dir[2] / d};

  q[0] = 1, q[1] = u[0], q[2] = u[1], q[3] = u[2];
  q[4] = 1 / p->gamma / (p->gamma - 1) + 0.5 * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
}

/* the host arrays of the mesh's faces for the kernels: kinds, signed cell-face lists */
static int fv_build(struct pds_fv_s *V, pds_mesh3d mesh, const pds_fv_params *p) {
  pds_ctx              ctx = V->hdr.ctx;
  pds_int              nc, nf, *cp = NULL, *cf = NULL;
  const pds_int       *fcells, *cfaces, *ftag;
  const pds_size      *cptr;
  const pds_real      *vol, *area;
  unsigned char       *kind = NULL;
  int                  ierr = PDS_OK;

  PDS_CALL(pds_mesh3d_get_sizes(mesh, NULL, &nc, NULL));
  PDS_CALL(pds_mesh3d_get_faces(mesh, &nf, NULL, NULL, NULL, NULL, &fcells, &cptr, &cfaces));
  PDS_CALL(pds_mesh3d_face_tags(mesh, &ftag));
  PDS_CALL(pds_mesh3d_get_geometry(mesh, &vol, NULL, &area, NULL));
  PDS_CHECK(cptr[nc] <= (pds_size)PDS_INT_MAX, ctx, PDS_ERR_SIZE, "fv: %" PDS_SIZE_FMT " cell faces; at most %d",
            cptr[nc], PDS_INT_MAX);
  V->info.ncells = nc, V->info.nfaces = nf;
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nf + 1, &kind));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nc + 1, &cp));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)cptr[nc] + 1, &cf));
  for (pds_int f = 0; f < nf; f++) {
    int wall = 0;

    for (int w = 0; w < p->nwall && ftag[f] > 0; w++) wall |= ftag[f] == p->wall_tags[w];
    kind[f] = fcells[2 * f + 1] >= 0 ? PDS_FV_INTERIOR : wall ? PDS_FV_WALL : PDS_FV_FREESTREAM;
    V->info.ninterior += kind[f] == PDS_FV_INTERIOR, V->info.nwall += kind[f] == PDS_FV_WALL;
    V->info.nfree += kind[f] == PDS_FV_FREESTREAM;
  }
  for (pds_int c = 0; c <= nc; c++) cp[c] = (pds_int)cptr[c];
  for (pds_int c = 0; c < nc; c++) {
    V->info.volume += vol[c];
    for (pds_size k = cptr[c]; k < cptr[c + 1]; k++) {
      const pds_int f = cfaces[k];

      cf[k] = fcells[2 * f] == c ? f : -1 - f;
    }
  }
  PDS_CALL_GOTO(ierr, done, fv_dup(V, fcells, 2 * (size_t)nf * sizeof *fcells, &V->face_cell));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, kind, (size_t)nf, &V->face_kind));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, area, 3 * (size_t)nf * sizeof *area, &V->face_area));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, vol, (size_t)nc * sizeof *vol, &V->cell_volume));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, cp, ((size_t)nc + 1) * sizeof *cp, &V->cell_ptr));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, cf, (size_t)cptr[nc] * sizeof *cf, &V->cell_face));
done:
  pds_free(ctx, PDS_MEM_HOST, &kind), pds_free(ctx, PDS_MEM_HOST, &cp), pds_free(ctx, PDS_MEM_HOST, &cf);
  return ierr;
}

/* the colour summation: the faces coloured greedily in face order (each takes the smallest colour no face of its
   cells has yet; at most 2 x 6 - 1 = 11 colours for the four cell types), listed colour by colour in face order */
static int fv_build_colors(struct pds_fv_s *V, pds_mesh3d mesh) {
  pds_ctx             ctx = V->hdr.ctx;
  const pds_int      *fcells;
  pds_int             nc = V->info.ncells, nf = V->info.nfaces, ncol = 0, *col = NULL, *ptr = NULL, *list = NULL;
  unsigned long long *used = NULL; /* used[c]: the colours of cell c's faces so far */
  int                 ierr = PDS_OK;

  PDS_CALL(pds_mesh3d_get_faces(mesh, NULL, NULL, NULL, NULL, NULL, &fcells, NULL, NULL));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nc, &used));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nf + 1, &col));
  for (pds_int f = 0; f < nf; f++) {
    const pds_int            l = fcells[2 * f], r = fcells[2 * f + 1];
    const unsigned long long u = used[l] | (r >= 0 ? used[r] : 0);
    int                      k = 0;

    while (k < 64 && (u >> k & 1)) k++;
    if (k == 64) {
      ierr = pds_error(ctx, __FILE__, __LINE__, __func__, PDS_ERR_UNSUPPORTED,
                       "fv: colouring the faces needs more than 64 colours (face %d, cells %d and %d)", (int)f, (int)l,
                       (int)r);
      goto done;
    }
    col[f] = k, used[l] |= 1ull << k;
    if (r >= 0) used[r] |= 1ull << k;
    if (k + 1 > ncol) ncol = k + 1;
  }
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)ncol + 1, &ptr));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nf + 1, &list));
  for (pds_int f = 0; f < nf; f++) ptr[col[f] + 1]++;
  for (pds_int k = 0; k < ncol; k++) ptr[k + 1] += ptr[k];
  for (pds_int f = 0; f < nf; f++) list[ptr[col[f]]++] = f;
  for (pds_int k = ncol; k > 0; k--) ptr[k] = ptr[k - 1];
  ptr[0] = 0;
  PDS_CALL_GOTO(ierr, done, fv_dup(V, ptr, ((size_t)ncol + 1) * sizeof *ptr, &V->color_ptr));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, list, ((size_t)nf + 1) * sizeof *list, &V->color_face));
  V->color_ptr_h = ptr, ptr = NULL, V->info.ncolors = ncol;
done:
  pds_free(ctx, PDS_MEM_HOST, &used), pds_free(ctx, PDS_MEM_HOST, &col), pds_free(ctx, PDS_MEM_HOST, &ptr);
  pds_free(ctx, PDS_MEM_HOST, &list);
  return ierr;
}

/* order 2: the stencils and operators (fv_recon.c) and the face barycentres in backend memory */
static int fv_build_recon(struct pds_fv_s *V, pds_mesh3d mesh, const pds_fv_params *p) {
  pds_ctx           ctx = V->hdr.ctx;
  pds_fv_recon_host h;
  const pds_real   *fc;
  const size_t      nc = (size_t)V->info.ncells;
  size_t            ne;
  int               ierr;

  PDS_CALL(pds_mesh3d_get_geometry(mesh, NULL, NULL, NULL, &fc));
  PDS_CALL(pds_fv_recon_build(ctx, mesh, p, &h, &V->info));
  ne = (size_t)h.ste[nc];
  PDS_CALL_GOTO(ierr, done, fv_dup(V, h.ste, (nc + 1) * sizeof *h.ste, &V->ste));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, h.sta, ne * sizeof *h.sta, &V->sta));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, h.mat, 9 * ne * sizeof *h.mat, &V->mat));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, h.ap, 9 * nc * sizeof *h.ap, &V->ap));
  PDS_CALL_GOTO(ierr, done, fv_dup(V, fc, 3 * (size_t)V->info.nfaces * sizeof *fc, &V->face_centre));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, V->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE, 45 * nc * sizeof(pds_real),
                                       &V->PC));
  V->ste_host = h.ste, h.ste = NULL;
done:
  pds_fv_recon_host_free(ctx, &h);
  return ierr;
}

static const char *const fv_sum_names[4] = {"stages", "color", "atomic", "cells"}; /* by PDS_FV_SUM_* */

int pds_fv_create(pds_ctx ctx, pds_mesh3d mesh, const pds_fv_params *params, pds_fv *out) {
  struct pds_fv_s *V = NULL;
  pds_fv_params    p;
  pds_int          nc = 0;
  int              ierr, sum = PDS_FV_SUM_STAGES;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(out, ctx, PDS_ERR_ARG, "output handle is NULL");
  *out = NULL;
  PDS_CHECK(mesh, ctx, PDS_ERR_ARG, "mesh is NULL");
  if (params) p = *params;
  else pds_fv_params_default(&p);
  PDS_CHECK(p.gamma > 1 && isfinite(p.gamma), ctx, PDS_ERR_ARG, "fv: gamma %g; it must be > 1", p.gamma);
  PDS_CHECK(p.mach >= 0 && isfinite(p.mach), ctx, PDS_ERR_ARG, "fv: Mach number %g; it must be >= 0", p.mach);
  PDS_CHECK(isfinite(p.dir[0]) && isfinite(p.dir[1]) && isfinite(p.dir[2]) &&
                p.dir[0] * p.dir[0] + p.dir[1] * p.dir[1] + p.dir[2] * p.dir[2] > 0,
            ctx, PDS_ERR_ARG, "fv: the free-stream direction (%g, %g, %g) is zero or not finite", p.dir[0], p.dir[1],
            p.dir[2]);
  PDS_CHECK(p.efix >= 0 && p.efix <= 1, ctx, PDS_ERR_ARG, "fv: entropy fix %g; 0 (none) to 1", p.efix);
  PDS_CHECK(p.nwall >= 0 && (p.nwall == 0 || p.wall_tags), ctx, PDS_ERR_ARG, "fv: %d wall tags and no list", p.nwall);
  PDS_CHECK(p.order == 1 || p.order == 2, ctx, PDS_ERR_ARG, "fv: order %d; 1 (first order) or 2 (quadratic "
            "reconstruction)", p.order);
  if (p.order == 2) {
    PDS_CHECK(p.recon_cond >= 1 && !isnan(p.recon_cond), ctx, PDS_ERR_ARG,
              "fv: recon_cond %g; the condition threshold must be >= 1", p.recon_cond);
    PDS_CHECK(p.recon_min >= 9 && p.recon_max >= p.recon_min && p.recon_max <= 4096, ctx, PDS_ERR_ARG,
              "fv: stencil sizes recon_min %d, recon_max %d; 9 <= recon_min <= recon_max <= 4096", p.recon_min,
              p.recon_max);
    PDS_CHECK(p.recon_levels >= 1 && p.recon_levels <= 16, ctx, PDS_ERR_ARG, "fv: recon_levels %d; 1 to 16",
              p.recon_levels);
    PDS_CHECK(p.recon_weight >= 0 && isfinite(p.recon_weight), ctx, PDS_ERR_ARG,
              "fv: recon_weight %g; the inverse-distance exponent must be >= 0", p.recon_weight);
  }
  if (p.summation) {
    for (sum = 0; sum < 4 && strcmp(p.summation, fv_sum_names[sum]); sum++) continue;
    PDS_CHECK(sum < 4, ctx, PDS_ERR_ARG, "fv: summation '%s'; one of stages, color, atomic (not deterministic), cells "
              "(NULL: the default, stages)", p.summation);
  }
  PDS_CALL(pds_mesh3d_get_sizes(mesh, NULL, &nc, NULL));
  PDS_CHECK(nc >= 1, ctx, PDS_ERR_ARG, "fv: the mesh has no cells");
  PDS_CALL(PDS_NEW(ctx, 1, &V));
  V->hdr     = (struct pds_header){ctx, PDS_CLASSID_FV, 1};
  V->unified = ctx->k->mem_alloc == NULL;
  fv_freestream(&p, V->info.qinf);
  V->info.gamma = p.gamma, V->info.mach = p.mach, V->info.order = p.order;
  V->sum = sum, V->info.summation = fv_sum_names[sum];
  PDS_CALL_GOTO(ierr, fail, fv_build(V, mesh, &p));
  if (p.order == 2) PDS_CALL_GOTO(ierr, fail, fv_build_recon(V, mesh, &p));
  if (sum == PDS_FV_SUM_COLOR) PDS_CALL_GOTO(ierr, fail, fv_build_colors(V, mesh));
  {
    const pds_memtype mt = V->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE;
    const size_t      nf = (size_t)V->info.nfaces;

    if (sum == PDS_FV_SUM_STAGES) /* the face fluxes (the face states only for pds_fv_stages, when it runs) */
      PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, mt, (5 * nf + 1) * sizeof(pds_real), &V->F));
    PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, mt, ((size_t)nc + 1) * sizeof(pds_real), &V->tau));
  }
  V->dev = (struct pds_fv_dev){nc,           V->info.nfaces, V->face_cell, V->face_kind, V->face_area,
                               V->cell_volume, V->cell_ptr,  V->cell_face, p.gamma,      p.efix,
                               {0, 0, 0, 0, 0}, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL};
  for (int k = 0; k < 5; k++) V->dev.qinf[k] = V->info.qinf[k];
  V->dev.order = p.order, V->dev.ste = V->ste, V->dev.sta = V->sta, V->dev.mat = V->mat, V->dev.ap = V->ap;
  V->dev.face_centre = V->face_centre;
  V->dev.ncolors = V->info.ncolors, V->dev.color_ptr = V->color_ptr, V->dev.color_face = V->color_face;
  V->dev.color_ptr_h = V->color_ptr_h;
  *out = V;
  return PDS_OK;
fail:
  fv_free(V);
  pds_free(ctx, PDS_MEM_HOST, &V);
  return ierr;
}

int pds_fv_set_summation(pds_fv fv, const char *name, pds_mesh3d mesh) {
  pds_ctx ctx;
  int     sum;

  FV_VALID(fv);
  ctx = fv->hdr.ctx;
  PDS_CHECK(name, ctx, PDS_ERR_ARG, "fv: the summation's name is NULL");
  for (sum = 0; sum < 4 && strcmp(name, fv_sum_names[sum]); sum++) continue;
  PDS_CHECK(sum < 4, ctx, PDS_ERR_ARG, "fv: summation '%s'; one of stages, color, atomic, cells", name);
  if (sum == PDS_FV_SUM_COLOR && !fv->color_ptr) {
    PDS_CHECK(mesh, ctx, PDS_ERR_ARG, "fv: the colour summation needs the mesh");
    PDS_CALL(fv_build_colors(fv, mesh));
    fv->dev.ncolors = fv->info.ncolors, fv->dev.color_ptr = fv->color_ptr, fv->dev.color_face = fv->color_face;
    fv->dev.color_ptr_h = fv->color_ptr_h;
  }
  if (sum == PDS_FV_SUM_STAGES && !fv->F)
    PDS_CALL(pds_malloc(ctx, fv->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE, (5 * (size_t)fv->info.nfaces + 1) *
                        sizeof(pds_real), &fv->F));
  fv->sum = sum, fv->info.summation = fv_sum_names[sum];
  return PDS_OK;
}

int pds_fv_destroy(pds_fv *fv) {
  pds_ctx ctx;

  if (!fv || !*fv) return PDS_OK;
  FV_VALID(*fv);
  ctx = (*fv)->hdr.ctx;
  fv_free(*fv);
  (*fv)->hdr.classid = PDS_CLASSID_FREED;
  return pds_free(ctx, PDS_MEM_HOST, fv);
}

int pds_fv_get_info(pds_fv fv, pds_fv_info *info) {
  FV_VALID(fv);
  PDS_CHECK(info, fv->hdr.ctx, PDS_ERR_ARG, "info is NULL");
  *info = fv->info;
  return PDS_OK;
}

int pds_fv_create_state(pds_fv fv, pds_vec *Q) {
  pds_real *h;
  pds_size  n;
  int       ierr;

  FV_VALID(fv);
  PDS_CHECK(Q, fv->hdr.ctx, PDS_ERR_ARG, "output vector is NULL");
  *Q = NULL;
  n  = 5 * (pds_size)fv->info.ncells;
  PDS_CALL(PDS_NEW(fv->hdr.ctx, (size_t)n, &h));
  for (pds_size i = 0; i < n; i++) h[i] = fv->info.qinf[i % 5];
  ierr = pds_vec_create(fv->hdr.ctx, n, Q);
  if (!ierr) ierr = pds_vec_set_values(*Q, h, PDS_MEM_HOST);
  if (ierr) pds_vec_destroy(Q);
  pds_free(fv->hdr.ctx, PDS_MEM_HOST, &h);
  return ierr;
}

/* Q and R: 5 values a cell, on fv's context */
static int fv_check_vecs(pds_fv fv, pds_vec Q, pds_vec R) {
  pds_size nq, nr;

  PDS_VALID(Q, PDS_CLASSID_VEC, "Q");
  PDS_VALID(R, PDS_CLASSID_VEC, "R");
  PDS_CHECK(Q->hdr.ctx == fv->hdr.ctx && R->hdr.ctx == fv->hdr.ctx, fv->hdr.ctx, PDS_ERR_ARG,
            "fv: Q and R must live on the fv object's context");
  PDS_CALL(pds_vec_get_size(Q, &nq));
  PDS_CALL(pds_vec_get_size(R, &nr));
  PDS_CHECK(nq == 5 * (pds_size)fv->info.ncells && nr == nq, fv->hdr.ctx, PDS_ERR_SIZE,
            "fv: Q has %" PDS_SIZE_FMT " and R %" PDS_SIZE_FMT " values; 5 a cell, %" PDS_SIZE_FMT, nq, nr,
            5 * (pds_size)fv->info.ncells);
  return PDS_OK;
}

int pds_fv_stages(pds_fv fv, int first, int last, pds_vec Q, pds_vec R) {
  pds_ctx         ctx;
  const pds_real *q;
  pds_real       *r;

  FV_VALID(fv);
  ctx = fv->hdr.ctx;
  PDS_CALL(fv_check_vecs(fv, Q, R));
  PDS_CHECK(Q != R, ctx, PDS_ERR_ARG, "fv: Q and R must be different vectors");
  PDS_CHECK(first >= 0 && first <= last && last <= 2, ctx, PDS_ERR_ARG, "fv: stages %d to %d of 0..2", first, last);
  {
    const pds_memtype mt = fv->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE;
    const size_t      nf = (size_t)fv->info.nfaces;

    if (!fv->QF) PDS_CALL(pds_malloc(ctx, mt, (10 * nf + 1) * sizeof(pds_real), &fv->QF));
    if (!fv->F) PDS_CALL(pds_malloc(ctx, mt, (5 * nf + 1) * sizeof(pds_real), &fv->F));
  }
  PDS_KERNEL(ctx, fv.face_states);
  PDS_KERNEL(ctx, fv.face_flux);
  PDS_KERNEL(ctx, fv.cell_sum);
  if (fv->dev.order == 2) {
    PDS_KERNEL(ctx, fv.recon);
    PDS_KERNEL(ctx, fv.face_states2);
  }
  PDS_CALL(pds_vec_dev_read(Q, &q));
  PDS_CALL(pds_vec_dev_write(R, &r));
  if (first <= 0 && fv->dev.order == 2) {
    PDS_CALL(ctx->k->fv.recon(ctx, &fv->dev, q, fv->PC));
    PDS_CALL(ctx->k->fv.face_states2(ctx, &fv->dev, q, fv->PC, fv->QF));
  } else if (first <= 0) PDS_CALL(ctx->k->fv.face_states(ctx, &fv->dev, q, fv->QF));
  if (first <= 1 && last >= 1) PDS_CALL(ctx->k->fv.face_flux(ctx, &fv->dev, fv->QF, fv->F));
  if (last >= 2) PDS_CALL(ctx->k->fv.cell_sum(ctx, &fv->dev, fv->F, r));
  return PDS_OK;
}

/* the residual by the object's summation: order 2 reconstructs first; then the face fluxes from Q (and PC) straight,
   stages (i) and (ii) in one kernel, and the summation (fv_kernels.h) */
int pds_fv_residual(pds_fv fv, pds_vec Q, pds_vec R) {
  pds_ctx         ctx;
  const pds_real *q, *pc = NULL;
  pds_real       *r;

  FV_VALID(fv);
  ctx = fv->hdr.ctx;
  PDS_CALL(fv_check_vecs(fv, Q, R));
  PDS_CHECK(Q != R, ctx, PDS_ERR_ARG, "fv: Q and R must be different vectors");
  if (fv->dev.order == 2) PDS_KERNEL(ctx, fv.recon);
  switch (fv->sum) {
  case PDS_FV_SUM_STAGES:
    PDS_KERNEL(ctx, fv.flux_q);
    PDS_KERNEL(ctx, fv.cell_sum);
    break;
  case PDS_FV_SUM_COLOR: PDS_KERNEL(ctx, fv.sum_color); break;
  case PDS_FV_SUM_ATOMIC: PDS_KERNEL(ctx, fv.sum_atomic); break;
  default: PDS_KERNEL(ctx, fv.sum_cells); break;
  }
  PDS_CALL(pds_vec_dev_read(Q, &q));
  PDS_CALL(pds_vec_dev_write(R, &r));
  if (fv->dev.order == 2) {
    PDS_CALL(ctx->k->fv.recon(ctx, &fv->dev, q, fv->PC));
    pc = fv->PC;
  }
  switch (fv->sum) {
  case PDS_FV_SUM_STAGES:
    PDS_CALL(ctx->k->fv.flux_q(ctx, &fv->dev, q, pc, fv->F));
    return ctx->k->fv.cell_sum(ctx, &fv->dev, fv->F, r);
  case PDS_FV_SUM_COLOR: return ctx->k->fv.sum_color(ctx, &fv->dev, q, pc, r);
  case PDS_FV_SUM_ATOMIC: return ctx->k->fv.sum_atomic(ctx, &fv->dev, q, pc, r);
  default: return ctx->k->fv.sum_cells(ctx, &fv->dev, q, pc, r);
  }
}

pds_ctx                  pds_fv_ctx(pds_fv fv) { return fv->hdr.ctx; }
const struct pds_fv_dev *pds_fv_dev_of(pds_fv fv) { return &fv->dev; }
int                      pds_fv_unified(pds_fv fv) { return fv->unified; }
struct pds_fv_jac      **pds_fv_jac_slot(pds_fv fv) { return &fv->jac; }

int pds_fv_check_state(pds_fv fv, pds_vec Q) {
  pds_size nq;

  FV_VALID(fv);
  PDS_VALID(Q, PDS_CLASSID_VEC, "Q");
  PDS_CHECK(Q->hdr.ctx == fv->hdr.ctx, fv->hdr.ctx, PDS_ERR_ARG, "fv: Q must live on the fv object's context");
  PDS_CALL(pds_vec_get_size(Q, &nq));
  PDS_CHECK(nq == 5 * (pds_size)fv->info.ncells, fv->hdr.ctx, PDS_ERR_SIZE, "fv: Q has %" PDS_SIZE_FMT
            " values; 5 a cell, %" PDS_SIZE_FMT, nq, 5 * (pds_size)fv->info.ncells);
  return PDS_OK;
}

int pds_fv_recon_only(pds_fv fv, pds_vec Q) {
  pds_ctx         ctx;
  const pds_real *q;

  PDS_CALL(pds_fv_check_state(fv, Q));
  ctx = fv->hdr.ctx;
  PDS_CHECK(fv->dev.order == 2, ctx, PDS_ERR_STATE, "fv: the reconstruction needs order 2 (this object has order 1)");
  PDS_KERNEL(ctx, fv.recon);
  PDS_CALL(pds_vec_dev_read(Q, &q));
  return ctx->k->fv.recon(ctx, &fv->dev, q, fv->PC);
}

int pds_fv_reconstruct(pds_fv fv, pds_vec Q, pds_real *pc) {
  PDS_CALL(pds_fv_recon_only(fv, Q));
  PDS_CHECK(pc, fv->hdr.ctx, PDS_ERR_ARG, "fv: the output array is NULL");
  return pds_memcpy(fv->hdr.ctx, pc, PDS_MEM_HOST, fv->PC, fv->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE,
                    45 * (size_t)fv->info.ncells * sizeof *pc);
}

int pds_fv_stencil_histogram(pds_fv fv, pds_int *counts, int nbins) {
  FV_VALID(fv);
  PDS_CHECK(counts && nbins >= 1, fv->hdr.ctx, PDS_ERR_ARG, "fv: histogram: %s", counts ? "nbins < 1" : "counts is NULL");
  for (int b = 0; b < nbins; b++) counts[b] = 0;
  if (!fv->ste_host) return PDS_OK;
  for (pds_int c = 0; c < fv->info.ncells; c++) {
    const pds_int ng = fv->ste_host[c + 1] - fv->ste_host[c];

    counts[ng < nbins ? ng : nbins - 1]++;
  }
  return PDS_OK;
}

int pds_fv_step(pds_fv fv, pds_real cfl, pds_vec Q, pds_vec R, pds_real *rnorm) {
  pds_ctx   ctx;
  pds_real *q;
  const pds_real *r;

  FV_VALID(fv);
  ctx = fv->hdr.ctx;
  PDS_CHECK(cfl > 0 && isfinite(cfl), ctx, PDS_ERR_ARG, "fv: CFL number %g; it must be > 0", cfl);
  PDS_CALL(pds_fv_residual(fv, Q, R));
  if (rnorm) PDS_CALL(pds_vec_norm2(R, rnorm));
  PDS_KERNEL(ctx, fv.update);
  PDS_CALL(pds_vec_dev_read(R, &r));
  PDS_CALL(pds_vec_dev_write(Q, &q));
  return ctx->k->fv.update(ctx, &fv->dev, cfl, r, q, fv->tau);
}
