/* src/disc/fv_recon.c: the setup of paper 001's quadratic reconstruction (Section 2.2, Eq. 5; Section 3.1's STE, STA,
 * MAT and AP arrays) on the host, at pds_fv_create with order 2:
 * - g_c: the cell means of the six centred second-degree monomials, exact for the mesh's decomposition of the cell
 *   (mesh3d_geom.c: each face as triangles, a quadrangle 4 around its vertex average, the cell as tetrahedra from its
 *   vertex average), by the closed form of a tetrahedron's second moments: int_T x_i x_j = V/20 (sum_k a_ki a_kj +
 *   S_i S_j), a_k its vertices, S their sum;
 * - the stencil: levels of the dual graph (face neighbours, their neighbours, ...), each level in cell index order,
 *   until NG >= recon_min and the condition estimate of the column-scaled least-squares matrix (max |R_jj| / min
 *   |R_jj| of its Householder QR) is below recon_cond, at most recon_levels levels and recon_max cells (a level that
 *   would pass recon_max keeps its cells nearest the barycentre, then by index);
 * - A_c = S R^-1 Q1^T W: the least-squares operator from the stencil's mean differences f_G - f_c to the coefficients,
 *   row G of the system being the cell means over G of the 9 basis functions of c (m_h(x) - g_c,h and x - xc), which
 *   makes the fit exact for quadratic fields (S: column scaling to unit norm, W: optional inverse-distance weights).
 * The cells' stencils and operators are made by the host's threads (pds_host_threads: one on /cpu/ref) in batches,
 * each cell by itself, each batch's kept in exactly sized arrays, joined in cell order at the end: the same arrays,
 * bit for bit, for any thread count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fv_impl.h"

/* the tetrahedra of cell c relative to the point o: for each, 6 x its signed volume and its 4 corners */
static void cell_moments(const pds_real *xyz, const unsigned char *ctype, const pds_size *cptr, const pds_int *cnodes,
                         const unsigned char *ftype, const pds_size *fptr, const pds_int *fnodes, const pds_int *fcells,
                         const pds_size *cfptr, const pds_int *cfaces, pds_int c, const pds_real o[3], double mom[10]) {
  const pds_int *cn = cnodes + cptr[c];
  const int      nv = ctype[c];
  double         xa[3] = {0, 0, 0}, V6 = 0, I[6] = {0, 0, 0, 0, 0, 0}, E[3] = {0, 0, 0};

  for (int k = 0; k < nv; k++)
    for (int d = 0; d < 3; d++) xa[d] += xyz[3 * cn[k] + d];
  for (int d = 0; d < 3; d++) xa[d] = xa[d] / nv - o[d];
  for (pds_size k = cfptr[c]; k < cfptr[c + 1]; k++) {
    const pds_int  f = cfaces[k], *v = fnodes + fptr[f];
    const int      n = ftype[f], s = fcells[2 * f] == c ? 1 : -1;
    double         tri[4][3][3];
    int            nt = n == 3 ? 1 : 4;

    if (n == 3) {
      for (int i = 0; i < 3; i++)
        for (int d = 0; d < 3; d++) tri[0][i][d] = xyz[3 * v[i] + d] - o[d];
    } else {
      double m[3];

      for (int d = 0; d < 3; d++)
        m[d] = (xyz[3 * v[0] + d] + xyz[3 * v[1] + d] + xyz[3 * v[2] + d] + xyz[3 * v[3] + d]) / 4 - o[d];
      for (int t = 0; t < 4; t++)
        for (int d = 0; d < 3; d++)
          tri[t][0][d] = m[d], tri[t][1][d] = xyz[3 * v[t] + d] - o[d], tri[t][2][d] = xyz[3 * v[(t + 1) % 4] + d] - o[d];
    }
    for (int t = 0; t < nt; t++) {
      const double *a = tri[t][0], *b = tri[t][1], *e = tri[t][2];
      double        p[3], q[3], r[3], v6, S[3];
      const double *P[4] = {xa, a, b, e};

      for (int d = 0; d < 3; d++) p[d] = a[d] - xa[d], q[d] = b[d] - xa[d], r[d] = e[d] - xa[d];
      v6 = s * (p[0] * (q[1] * r[2] - q[2] * r[1]) - p[1] * (q[0] * r[2] - q[2] * r[0]) +
                p[2] * (q[0] * r[1] - q[1] * r[0]));
      V6 += v6;
      for (int d = 0; d < 3; d++) S[d] = xa[d] + a[d] + b[d] + e[d], E[d] += v6 * S[d] / 4;
      {
        const int ii[6] = {0, 1, 2, 0, 0, 1}, jj[6] = {0, 1, 2, 1, 2, 2};

        for (int h = 0; h < 6; h++) {
          double sum = S[ii[h]] * S[jj[h]];

          for (int kk = 0; kk < 4; kk++) sum += P[kk][ii[h]] * P[kk][jj[h]];
          I[h] += v6 * sum / 20;
        }
      }
    }
  }
  /* means: int over the cell / volume (the 6's cancel) */
  for (int h = 0; h < 6; h++) mom[h] = V6 != 0 ? I[h] / V6 : 0;
  for (int d = 0; d < 3; d++) mom[6 + d] = V6 != 0 ? E[d] / V6 : 0;
  mom[9] = V6 / 6;
}

typedef struct {
  double  d;
  pds_int i;
} dist_idx;

static int cmp_dist(const void *a, const void *b) {
  const dist_idx *x = a, *y = b;

  return x->d < y->d ? -1 : x->d > y->d ? 1 : (x->i > y->i) - (x->i < y->i);
}

static int cmp_int(const void *a, const void *b) {
  const pds_int x = *(const pds_int *)a, y = *(const pds_int *)b;

  return (x > y) - (x < y);
}

/* Householder QR of the column-major n x 9 matrix M (in place: the reflectors below the diagonal, R above; Rd the
   diagonal, beta the reflectors' factors); returns the condition estimate max |Rd| / min |Rd| (inf: rank deficient) */
static double qr9(double *M, pds_int n, double Rd[9], double beta[9]) {
  double lo = INFINITY, hi = 0;

  for (int j = 0; j < 9; j++) {
    double *x = M + (size_t)j * n, nx = 0, alpha, vv;

    for (pds_int i = j; i < n; i++) nx += x[i] * x[i];
    nx = sqrt(nx);
    if (nx == 0) {
      Rd[j] = 0, beta[j] = 0;
      lo = 0;
      continue;
    }
    alpha = x[j] > 0 ? -nx : nx;
    x[j] -= alpha;
    vv = 0;
    for (pds_int i = j; i < n; i++) vv += x[i] * x[i];
    beta[j] = 2 / vv, Rd[j] = alpha;
    for (int k = j + 1; k < 9; k++) {
      double *y = M + (size_t)k * n, t = 0;

      for (pds_int i = j; i < n; i++) t += x[i] * y[i];
      t *= beta[j];
      for (pds_int i = j; i < n; i++) y[i] -= t * x[i];
    }
    lo = fmin(lo, fabs(alpha)), hi = fmax(hi, fabs(alpha));
  }
  return lo > 0 ? hi / lo : INFINITY;
}

/* A (9 x n, column by column) = S R^-1 Q1^T W from qr9's factors; q: n x 9 work */
static void qr9_operator(const double *M, pds_int n, const double Rd[9], const double beta[9], const double sc[9],
                         const double *w, double *q, pds_real *A) {
  for (int k = 0; k < 9; k++) { /* column k of Q1 = H_0 ... H_8 e_k */
    double *y = q + (size_t)k * n;

    for (pds_int i = 0; i < n; i++) y[i] = i == k;
    for (int j = 8; j >= 0; j--) {
      const double *x = M + (size_t)j * n;
      double        t = 0;

      if (beta[j] == 0) continue;
      for (pds_int i = j; i < n; i++) t += x[i] * y[i];
      t *= beta[j];
      for (pds_int i = j; i < n; i++) y[i] -= t * x[i];
    }
  }
  for (pds_int g = 0; g < n; g++) { /* R a = Q1[g, :]^T */
    double a[9];

    for (int i = 8; i >= 0; i--) {
      double s = q[(size_t)i * n + g];

      for (int j = i + 1; j < 9; j++) s -= M[(size_t)j * n + i] * a[j];
      a[i] = s / Rd[i];
    }
    for (int h = 0; h < 9; h++) A[9 * (size_t)g + h] = sc[h] * a[h] * w[g];
  }
}

/* what every cell's stencil and operator are made from (read only) */
typedef struct {
  const pds_real      *cen;
  const double        *mom, *ap;
  const pds_size      *dptr;
  const pds_int       *dadj;
  const pds_fv_params *p;
  pds_int              maxng;
} recon_in;

/* a thread's scratch: the growing stencil, a level's candidates, the set of the cells seen (open addressing, -1
   empty; hused its filled slots, cleared after each cell), the least-squares matrix and its work */
typedef struct {
  pds_int  *st, *hkey, *hused;
  dist_idx *cand;
  double   *M, *q, *w;
  size_t    hcap;
} recon_ws;

/* a cell's outcome: its stencil size, condition estimate, whether the stencil determines a quadratic */
typedef struct {
  pds_int ng;
  double  cond;
  int     ok;
} recon_cell;

/* adds cell b to the set of W; 1 if it was not there */
static int seen_add(recon_ws *W, pds_int b, size_t *nused) {
  size_t h = ((size_t)(uint32_t)b * 2654435761u) & (W->hcap - 1);

  while (W->hkey[h] >= 0) {
    if (W->hkey[h] == b) return 0;
    h = (h + 1) & (W->hcap - 1);
  }
  W->hkey[h] = b, W->hused[(*nused)++] = (pds_int)h;
  return 1;
}

/* cell c: its stencil into sta (out->ng cells), its operator A_c into A (9 per stencil cell), out's condition
   estimate and whether the stencil determines a quadratic. Uses only c's data and W: any thread, the same bits. */
static void recon_cell_build(const recon_in *in, recon_ws *W, pds_int c, recon_cell *out, pds_int *sta, pds_real *A) {
  const pds_fv_params *p = in->p;
  const pds_real      *cen = in->cen;
  const double        *xc = cen + 3 * (size_t)c;
  pds_int             *st = W->st;
  double              *M = W->M, *w = W->w;
  pds_int              ng = 0, lb = 0;
  double               cond = INFINITY, Rd[9], beta[9], sc[9];
  int                  ok = 0;
  size_t               nused = 0;

  seen_add(W, c, &nused);
  for (int lev = 1; lev <= p->recon_levels && ng < in->maxng; lev++) {
    pds_int nnew = 0, le = ng;

    for (pds_int k = lev == 1 ? -1 : lb; k < le; k++) { /* neighbours of the previous level (level 0: c) */
      const pds_int a = k < 0 ? c : st[k];

      for (pds_size j = in->dptr[a]; j < in->dptr[a + 1]; j++)
        if (seen_add(W, in->dadj[j], &nused)) {
          const pds_int b = in->dadj[j];
          double        d2 = 0;

          for (int d = 0; d < 3; d++) d2 += (cen[3 * b + d] - xc[d]) * (cen[3 * b + d] - xc[d]);
          W->cand[nnew].d = d2, W->cand[nnew].i = b, nnew++;
        }
    }
    if (nnew == 0) break;
    if (ng + nnew > in->maxng) { /* the nearest of the level */
      qsort(W->cand, (size_t)nnew, sizeof *W->cand, cmp_dist);
      nnew = in->maxng - ng;
    }
    lb = ng;
    for (pds_int k = 0; k < nnew; k++) st[ng + k] = W->cand[k].i;
    qsort(st + ng, (size_t)nnew, sizeof *st, cmp_int);
    ng += nnew;
    if (ng < 9) continue;
    /* the least-squares matrix, rows weighted, columns scaled to unit norm */
    for (pds_int g = 0; g < ng; g++) {
      const pds_int b  = st[g];
      const double *mb = in->mom + 10 * (size_t)b, *gc = in->ap + 9 * (size_t)c;
      double        e[3], d[3], r[9], d2 = 0;

      for (int k = 0; k < 3; k++) d[k] = cen[3 * b + k] - xc[k], e[k] = mb[6 + k], d2 += d[k] * d[k];
      r[0] = mb[0] + 2 * e[0] * d[0] + d[0] * d[0] - gc[0];
      r[1] = mb[1] + 2 * e[1] * d[1] + d[1] * d[1] - gc[1];
      r[2] = mb[2] + 2 * e[2] * d[2] + d[2] * d[2] - gc[2];
      r[3] = mb[3] + e[0] * d[1] + d[0] * e[1] + d[0] * d[1] - gc[3];
      r[4] = mb[4] + e[0] * d[2] + d[0] * e[2] + d[0] * d[2] - gc[4];
      r[5] = mb[5] + e[1] * d[2] + d[1] * e[2] + d[1] * d[2] - gc[5];
      r[6] = d[0] + e[0], r[7] = d[1] + e[1], r[8] = d[2] + e[2];
      w[g] = p->recon_weight != 0 ? pow(d2, -0.5 * p->recon_weight) : 1;
      for (int h = 0; h < 9; h++) M[(size_t)h * ng + g] = w[g] * r[h];
    }
    for (int h = 0; h < 9; h++) {
      double s = 0;

      for (pds_int g = 0; g < ng; g++) s += M[(size_t)h * ng + g] * M[(size_t)h * ng + g];
      sc[h] = s > 0 ? 1 / sqrt(s) : 0;
      for (pds_int g = 0; g < ng; g++) M[(size_t)h * ng + g] *= sc[h];
    }
    cond = qr9(M, ng, Rd, beta);
    ok = isfinite(cond) && cond < 1e12;
    if (ng >= p->recon_min && cond < p->recon_cond) break;
  }
  for (size_t k = 0; k < nused; k++) W->hkey[W->hused[k]] = -1;
  out->ng = ng, out->cond = cond, out->ok = ok;
  if (!ok) return;
  memcpy(sta, st, (size_t)ng * sizeof *st);
  qr9_operator(M, ng, Rd, beta, sc, w, W->q, A);
}

static void recon_ws_free(pds_ctx ctx, recon_ws *W) {
  pds_free(ctx, PDS_MEM_HOST, &W->st), pds_free(ctx, PDS_MEM_HOST, &W->hkey), pds_free(ctx, PDS_MEM_HOST, &W->hused);
  pds_free(ctx, PDS_MEM_HOST, &W->cand), pds_free(ctx, PDS_MEM_HOST, &W->M), pds_free(ctx, PDS_MEM_HOST, &W->q);
  pds_free(ctx, PDS_MEM_HOST, &W->w);
}

/* a thread's scratch for stencils of at most maxng cells on a dual graph of largest degree deg: a level has at most
   deg maxng candidates, a cell sees at most 1 + deg (1 + maxng) cells (the set at most half full) */
static int recon_ws_alloc(pds_ctx ctx, pds_int maxng, pds_int deg, recon_ws *W) {
  const size_t seen = 1 + (size_t)deg * (1 + (size_t)maxng);
  int          ierr;

  memset(W, 0, sizeof *W);
  W->hcap = 64;
  while (W->hcap < 2 * seen) W->hcap *= 2;
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)maxng, &W->st));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)deg * (size_t)maxng + 1, &W->cand));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, W->hcap, &W->hkey));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, W->hcap, &W->hused));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 9 * (size_t)maxng, &W->M));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 9 * (size_t)maxng, &W->q));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)maxng, &W->w));
  for (size_t h = 0; h < W->hcap; h++) W->hkey[h] = -1;
  return PDS_OK;
fail:
  recon_ws_free(ctx, W);
  return ierr;
}

/* The cells go in batches: the threads (pds_host_threads) make a batch's stencils and operators into its buffers,
   each cell by recon_cell_build alone (the same bits for any thread count); then, in cell order, the first bad cell
   and the statistics, and each cell's place in STA and MAT; then the threads copy the batch into them. */
int pds_fv_recon_build(pds_ctx ctx, pds_mesh3d mesh, const pds_fv_params *p, pds_fv_recon_host *out,
                       pds_fv_info *info) {
  pds_int              nc, nf, deg = 1;
  const pds_real      *xyz, *cen;
  const unsigned char *ctype, *ftype;
  const pds_size      *cptr, *fptr, *cfptr, *dptr;
  const pds_int       *cnodes, *fnodes, *fcells, *cfaces, *dadj;
  double              *mom = NULL;
  pds_int             *ste = NULL, *sta = NULL, *bsta = NULL, **ksta = NULL;
  pds_real            *ap = NULL, *mat = NULL, *bmat = NULL, **kmat = NULL;
  recon_cell          *bres = NULL;
  recon_ws            *ws = NULL;
  const pds_int        maxng = p->recon_max;
  const int            nt = pds_host_threads(ctx);
  pds_int              batch, nbatch = 0;
  int                  ierr = PDS_OK, nws = 0;
  const double         t0 = pds_wtime();

  memset(out, 0, sizeof *out);
  PDS_CALL(pds_mesh3d_get_arrays(mesh, &xyz, &ctype, &cptr, &cnodes, NULL, NULL, NULL, NULL, NULL));
  PDS_CALL(pds_mesh3d_get_faces(mesh, &nf, NULL, &ftype, &fptr, &fnodes, &fcells, &cfptr, &cfaces));
  PDS_CALL(pds_mesh3d_get_geometry(mesh, NULL, &cen, NULL, NULL));
  PDS_CALL(pds_mesh3d_get_dual(mesh, &dptr, &dadj));
  PDS_CALL(pds_mesh3d_get_sizes(mesh, NULL, &nc, NULL));
  for (pds_int c = 0; c < nc; c++) deg = (pds_int)(dptr[c + 1] - dptr[c]) > deg ? (pds_int)(dptr[c + 1] - dptr[c]) : deg;
  batch = (pds_int)((1 << 24) / (80 * (size_t)maxng)); /* about 16 MB of operators a batch */
  batch = batch < 64 ? 64 : batch > 4096 ? 4096 : batch;
  nbatch = (pds_int)(((size_t)nc + (size_t)batch - 1) / (size_t)batch);
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 10 * (size_t)nc, &mom));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 9 * (size_t)nc, &ap));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nc + 1, &ste));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)batch, &bres));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)batch * (size_t)maxng, &bsta));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 9 * (size_t)batch * (size_t)maxng, &bmat));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nt, &ws));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nbatch + 1, &ksta)); /* each batch's STA and MAT, exactly sized */
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nbatch + 1, &kmat));
  for (; nws < nt; nws++) PDS_CALL_GOTO(ierr, done, recon_ws_alloc(ctx, maxng, deg, ws + nws));
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
#endif
  for (pds_int c = 0; c < nc; c++) {
    cell_moments(xyz, ctype, cptr, cnodes, ftype, fptr, fnodes, fcells, cfptr, cfaces, c, cen + 3 * c, mom + 10 * c);
    for (int h = 0; h < 6; h++) ap[9 * c + h] = mom[10 * c + h];
    for (int d = 0; d < 3; d++) ap[9 * c + 6 + d] = cen[3 * c + d];
  }
  info->ng_min = PDS_INT_MAX, info->ng_max = 0, info->ncapped = 0, info->cond_max = 0;
  {
    const recon_in in = {cen, mom, ap, dptr, dadj, p, maxng};

    for (pds_int c0 = 0; c0 < nc; c0 += batch) {
      const pds_int c1 = nc - c0 > batch ? c0 + batch : nc, k = c0 / batch;

#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt) if (nt > 1)
#endif
      for (pds_int c = c0; c < c1; c++)
        recon_cell_build(&in, ws + pds_host_thread_id(), c, bres + (c - c0), bsta + (size_t)(c - c0) * maxng,
                         bmat + 9 * (size_t)(c - c0) * maxng);
      for (pds_int c = c0; c < c1; c++) { /* in cell order: the first bad cell, the statistics, each one's place */
        const recon_cell *r  = bres + (c - c0);
        const pds_int     ng = r->ng;

        if (!r->ok) {
          ierr = PDS_ERROR(ctx, PDS_ERR_ARG,
                           "fv: order 2: cell %d's stencil (%d cells, %d levels of the dual graph, at most %d cells) "
                           "does not determine a quadratic (condition estimate %g); the mesh is too small or too flat "
                           "for the reconstruction",
                           (int)c, (int)ng, p->recon_levels, (int)maxng, r->cond);
          goto done;
        }
        if (!(ng >= p->recon_min && r->cond < p->recon_cond)) info->ncapped++;
        info->cond_max = fmax(info->cond_max, r->cond);
        if ((size_t)ste[c] + (size_t)ng > (size_t)PDS_INT_MAX / 9) {
          ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "fv: order 2: more than %d stencil entries", PDS_INT_MAX / 9);
          goto done;
        }
        ste[c + 1] = ste[c] + ng;
        info->ng_min = ng < info->ng_min ? ng : info->ng_min, info->ng_max = ng > info->ng_max ? ng : info->ng_max;
      }
      PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)(ste[c1] - ste[c0]) + 1, &ksta[k]));
      PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 9 * (size_t)(ste[c1] - ste[c0]) + 1, &kmat[k]));
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
#endif
      for (pds_int c = c0; c < c1; c++) { /* the batch's stencils and operators into their places */
        const size_t ng = (size_t)(ste[c + 1] - ste[c]), o = (size_t)(ste[c] - ste[c0]);

        memcpy(ksta[k] + o, bsta + (size_t)(c - c0) * maxng, ng * sizeof *sta);
        memcpy(kmat[k] + 9 * o, bmat + 9 * (size_t)(c - c0) * maxng, 9 * ng * sizeof *mat);
      }
    }
  }
  /* STA and MAT: the batches' arrays joined, each batch copied by one thread */
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)ste[nc] + 1, &sta));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 9 * (size_t)ste[nc] + 1, &mat));
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
#endif
  for (pds_int k = 0; k < nbatch; k++) {
    const pds_int c0 = k * batch, c1 = nc - c0 > batch ? c0 + batch : nc;
    const size_t  n = (size_t)(ste[c1] - ste[c0]);

    memcpy(sta + ste[c0], ksta[k], n * sizeof *sta);
    memcpy(mat + 9 * (size_t)ste[c0], kmat[k], 9 * n * sizeof *mat);
  }
  info->ng_sum = ste[nc], info->ng_mean = (double)ste[nc] / nc;
  out->ste = ste, out->sta = sta, out->mat = mat, out->ap = ap;
  ste = NULL, sta = NULL, mat = NULL, ap = NULL;
  info->t_recon_setup = pds_wtime() - t0;
done:
  for (int t = 0; t < nws; t++) recon_ws_free(ctx, ws + t);
  for (pds_int k = 0; ksta && kmat && k < nbatch; k++)
    pds_free(ctx, PDS_MEM_HOST, &ksta[k]), pds_free(ctx, PDS_MEM_HOST, &kmat[k]);
  pds_free(ctx, PDS_MEM_HOST, &ksta), pds_free(ctx, PDS_MEM_HOST, &kmat);
  pds_free(ctx, PDS_MEM_HOST, &ws), pds_free(ctx, PDS_MEM_HOST, &bres), pds_free(ctx, PDS_MEM_HOST, &bsta);
  pds_free(ctx, PDS_MEM_HOST, &bmat), pds_free(ctx, PDS_MEM_HOST, &mom), pds_free(ctx, PDS_MEM_HOST, &ste);
  pds_free(ctx, PDS_MEM_HOST, &sta), pds_free(ctx, PDS_MEM_HOST, &mat), pds_free(ctx, PDS_MEM_HOST, &ap);
  return ierr;
}

void pds_fv_recon_host_free(pds_ctx ctx, pds_fv_recon_host *r) {
  pds_free(ctx, PDS_MEM_HOST, &r->ste), pds_free(ctx, PDS_MEM_HOST, &r->sta);
  pds_free(ctx, PDS_MEM_HOST, &r->mat), pds_free(ctx, PDS_MEM_HOST, &r->ap);
}
