/* tests/t204_patches.c: patch sets (paper 002): y = A x, r = b - A x, A^T x and the diagonal against an independent
 * host loop and against the CSR conversion applied as a csr matrix; a 2 x 2 x 2 set against one patch of the same
 * box (the bits of A x, and every ghost of get_ghosted: faces, edges, corners, reflections); mixed sizes
 * (tile_box), an L shape, coarsening, the multigrid transfers (restriction of a constant, prolongation of constants
 * and of a linear function), the generated problem's second-order convergence, /cpu/omp and /gpu/cuda against a
 * /cpu/ref context, and bad input. */
#include "test.h"

#include "mat/mat_impl.h" /* pds_mat_patches_view, pds_mat_patches_coarsen, and the kernel table for the transfers */

/* an unsymmetric stencil, so that transposes and boundary faces tell the directions apart */
static const pds_real C7[7] = {7.25, -1.125, -0.875, -1.3, -0.7, -1.05, -0.95};

/* ---- an independent view of a set: the owner of each cell of the bounding box (one layer beyond it) ---------- */
typedef struct {
  int  lo[3], n[3];
  int *own; /* unknown at a cell, -1 where no patch is */
} owners;

static owners owners_build(int np, const pds_patch *pt) {
  owners m;
  int    u = 0, hi[3];

  for (int d = 0; d < 3; d++) m.lo[d] = pt[0].lo[d], hi[d] = pt[0].lo[d] + pt[0].n[d];
  for (int q = 1; q < np; q++)
    for (int d = 0; d < 3; d++) {
      if (pt[q].lo[d] < m.lo[d]) m.lo[d] = pt[q].lo[d];
      if (pt[q].lo[d] + pt[q].n[d] > hi[d]) hi[d] = pt[q].lo[d] + pt[q].n[d];
    }
  for (int d = 0; d < 3; d++) m.lo[d] -= 1, m.n[d] = hi[d] + 1 - m.lo[d];
  m.own = malloc(sizeof(int) * (size_t)m.n[0] * m.n[1] * m.n[2]);
  if (!m.own) TEST_FAIL("out of host memory");
  for (size_t e = 0; e < (size_t)m.n[0] * m.n[1] * m.n[2]; e++) m.own[e] = -1;
  for (int q = 0; q < np; q++)
    for (int k = 0; k < pt[q].n[2]; k++)
      for (int j = 0; j < pt[q].n[1]; j++)
        for (int i = 0; i < pt[q].n[0]; i++) {
          const int x = pt[q].lo[0] + i - m.lo[0], y = pt[q].lo[1] + j - m.lo[1], z = pt[q].lo[2] + k - m.lo[2];

          m.own[((size_t)z * m.n[1] + y) * m.n[0] + x] = u++;
        }
  return m;
}

static int owner_at(const owners *m, int x, int y, int z) {
  x -= m->lo[0], y -= m->lo[1], z -= m->lo[2];
  if (x < 0 || y < 0 || z < 0 || x >= m->n[0] || y >= m->n[1] || z >= m->n[2]) return -1;
  return m->own[((size_t)z * m->n[1] + y) * m->n[0] + x];
}

static const int STEP[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};

/* y = A x, the diagonal and A^T x, cell by cell from the owners (A^T: the neighbour couples back with the opposite
   coefficient; a boundary face keeps its own on the diagonal) */
static void host_ops(int np, const pds_patch *pt, const owners *m, const pds_real c[7], const double *x, double *y,
                     double *dg, double *yt) {
  int u = 0;

  for (int q = 0; q < np; q++)
    for (int k = 0; k < pt[q].n[2]; k++)
      for (int j = 0; j < pt[q].n[1]; j++)
        for (int i = 0; i < pt[q].n[0]; i++, u++) {
          const int G[3] = {pt[q].lo[0] + i, pt[q].lo[1] + j, pt[q].lo[2] + k};
          double    s = c[0] * x[u], d = c[0], t = c[0] * x[u];

          for (int f = 0; f < 6; f++) {
            const int v = owner_at(m, G[0] + STEP[f][0], G[1] + STEP[f][1], G[2] + STEP[f][2]);

            s += c[1 + f] * (v >= 0 ? x[v] : -x[u]);
            t += v >= 0 ? c[1 + (f ^ 1)] * x[v] : -c[1 + f] * x[u];
            if (v < 0) d -= c[1 + f];
          }
          y[u] = s, dg[u] = d, yt[u] = t;
        }
}

/* max |a - b| <= rtol max |b| */
static void check_close(const char *what, pds_size n, const double *a, const double *b, double rtol) {
  double e = 0, s = 0;

  for (pds_size i = 0; i < n; i++) {
    if (fabs(a[i] - b[i]) > e) e = fabs(a[i] - b[i]);
    if (fabs(b[i]) > s) s = fabs(b[i]);
  }
  if (!(e <= rtol * s)) TEST_FAIL("%s: max difference %.3g, max value %.3g (relative tolerance %.1g)", what, e, s, rtol);
}

static double *host_values(pds_vec v, pds_size n) {
  double *a = malloc(sizeof(double) * (size_t)n);

  if (!a) TEST_FAIL("out of host memory");
  TEST_CALL(pds_vec_get_values(v, a, PDS_MEM_HOST));
  return a;
}

/* the transfers of the context's kernel table on the vectors' backend arrays: mode < 0 restriction out = 0.5 (sum
   of the 8 children of in), else prolongation out += P in (mode 1: trilinear) */
static void transfer(pds_ctx ctx, pds_mat Af, pds_mat Ac, int mode, pds_vec in, pds_vec out) {
  const struct pds_patches *Pf = pds_mat_patches_view(Af), *Pc = pds_mat_patches_view(Ac);
  const pds_real           *ia;
  pds_real                 *oa;

  TEST_ASSERT(Pf && Pc && ctx->k->patches.restrict_sum && ctx->k->patches.prolong);
  TEST_CALL(pds_vec_get_array_read(in, PDS_MEM_DEVICE, &ia));
  TEST_CALL(pds_vec_get_array_write(out, PDS_MEM_DEVICE, &oa));
  if (mode < 0) TEST_CALL(ctx->k->patches.restrict_sum(ctx, Pf, Pc, 0.5, ia, oa));
  else TEST_CALL(ctx->k->patches.prolong(ctx, Pc, Pf, mode, ia, oa));
  TEST_CALL(pds_vec_restore_array_write(out, &oa));
  TEST_CALL(pds_vec_restore_array_read(in, &ia));
}

/* Everything a matrix of the set must agree on: getters, products, residual, diagonal and transpose against the
   host loop, the CSR conversion (pattern, nnz, values) applied as a csr matrix. */
static void check_set(pds_ctx ctx, int np, const pds_patch *pt, const pds_real c[7]) {
  owners    m = owners_build(np, pt);
  pds_mat   A, C;
  pds_vec   x, y, b, r, dv;
  pds_size  n = 0, nnz, first;
  pds_int   nr;
  pds_real  cs[7];
  pds_patch p;
  int       cnt;
  double   *xh, *bh, *yh, *dh, *th, *ya, *ra;
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *cv;

  for (int q = 0; q < np; q++) n += (pds_size)pt[q].n[0] * pt[q].n[1] * pt[q].n[2];
  TEST_CALL(pds_mat_create_patches(ctx, np, pt, c, &A));
  TEST_ASSERT(!strcmp(pds_mat_get_type(A), "patches"));
  TEST_CALL(pds_mat_get_size(A, &nr, NULL));
  TEST_ASSERT(nr == n);
  TEST_CALL(pds_mat_patches_get_count(A, &cnt));
  TEST_ASSERT(cnt == np);
  TEST_CALL(pds_mat_patches_get_patch(A, np - 1, &p, &first));
  TEST_ASSERT(!memcmp(&p, &pt[np - 1], sizeof p) && first == n - (pds_size)p.n[0] * p.n[1] * p.n[2]);
  TEST_CALL(pds_mat_patches_get_stencil(A, cs));
  TEST_ASSERT(!memcmp(cs, c, sizeof cs));
  TEST_CALL(pds_vec_create(ctx, n, &x));
  TEST_CALL(pds_vec_create(ctx, n, &y));
  TEST_CALL(pds_vec_create(ctx, n, &b));
  TEST_CALL(pds_vec_create(ctx, n, &r));
  TEST_CALL(pds_vec_create(ctx, n, &dv));
  TEST_CALL(pds_vec_set_random(x, 3));
  TEST_CALL(pds_vec_set_random(b, 4));
  xh = host_values(x, n), bh = host_values(b, n);
  yh = malloc(sizeof(double) * n), dh = malloc(sizeof(double) * n), th = malloc(sizeof(double) * n);
  if (!yh || !dh || !th) TEST_FAIL("out of host memory");
  host_ops(np, pt, &m, c, xh, yh, dh, th);

  TEST_CALL(pds_mat_apply(A, x, y)); /* y = A x */
  ya = host_values(y, n);
  check_close("A x against the host loop", n, ya, yh, 1e-14);
  TEST_CALL(pds_mat_apply_add(A, 2.0, x, -1.0, y)); /* y = 2 A x - A x */
  free(ya), ya = host_values(y, n);
  check_close("2 A x - y", n, ya, yh, 1e-14);
  TEST_CALL(pds_mat_residual(A, b, x, r));
  ra = host_values(r, n);
  for (pds_size i = 0; i < n; i++) bh[i] -= yh[i];
  check_close("b - A x", n, ra, bh, 1e-14);
  TEST_CALL(pds_mat_get_diagonal(A, dv));
  free(ra), ra = host_values(dv, n);
  check_close("the diagonal (c0 - the boundary faces' c_d)", n, ra, dh, 1e-15);
  TEST_CALL(pds_mat_apply_transpose(A, x, y));
  free(ya), ya = host_values(y, n);
  check_close("A^T x against the host loop", n, ya, th, 1e-14);

  /* the CSR: nnz, ascending columns, its diagonal, its products (A and A^T) */
  TEST_CALL(pds_mat_convert_to_csr(A, &C));
  TEST_ASSERT(!strcmp(pds_mat_get_type(C), "csr"));
  TEST_CALL(pds_mat_get_nnz(A, &nnz));
  TEST_CALL(pds_mat_csr_get_arrays(C, &rp, &ci, &cv));
  TEST_ASSERT(rp[n] == nnz);
  for (pds_size i = 0; i < n; i++) {
    int diag = 0;

    for (pds_size e = rp[i]; e < rp[i + 1]; e++) {
      TEST_ASSERT(e == rp[i] || ci[e - 1] < ci[e]);
      if (ci[e] != i) continue;
      diag = 1;
      TEST_ASSERT(cv[e] == ra[i]);
    }
    TEST_ASSERT(diag);
  }
  TEST_CALL(pds_mat_apply(C, x, y));
  free(ya), ya = host_values(y, n);
  check_close("the CSR's A x", n, ya, yh, 1e-14);
  TEST_CALL(pds_mat_residual(C, b, x, r));
  free(ya), ya = host_values(r, n);
  TEST_CALL(pds_mat_residual(A, b, x, y));
  free(xh), xh = host_values(y, n);
  check_close("b - A x against the CSR's", n, xh, ya, 1e-14);
  TEST_CALL(pds_mat_apply_transpose(C, x, b));
  free(ra), ra = host_values(b, n);
  TEST_CALL(pds_mat_apply_transpose(A, x, y));
  free(ya), ya = host_values(y, n);
  check_close("A^T x against the CSR's transpose", n, ya, ra, 1e-14);
  {
    FILE *f = tmpfile();

    TEST_ASSERT(f);
    TEST_CALL(pds_mat_view(A, f));
    fclose(f);
  }
  free(xh), free(bh), free(yh), free(dh), free(th), free(ya), free(ra), free(m.own);
  TEST_CALL(pds_mat_destroy(&C));
  TEST_CALL(pds_mat_destroy(&A));
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&b), pds_vec_destroy(&r), pds_vec_destroy(&dv);
}

/* 2 x 2 x 2 patches (in a scrambled order) against one patch of the same box at an offset origin: the bits of A x
   at every cell, and get_ghosted of every patch against the big patch's values at the same global positions
   (negated once for each direction leaving the box). */
static void check_split(pds_ctx ctx) {
  enum { NS = 8 };
  const int    o[3] = {-3, 2, 10}, N[3] = {9, 8, 7}, cut[3] = {4, 3, 5}, order[NS] = {5, 2, 7, 0, 3, 6, 1, 4};
  pds_patch    big = {{o[0], o[1], o[2]}, {N[0], N[1], N[2]}}, sm[NS];
  pds_mat      A1, A8;
  pds_vec      x1, x8, y1, y8;
  const size_t n = (size_t)N[0] * N[1] * N[2];
  double      *xb, *xs = malloc(sizeof(double) * n), *yb, *ys, *g = malloc(sizeof(double) * 11 * 10 * 9);
  owners       m;

  if (!xs || !g) TEST_FAIL("out of host memory");
  for (int e = 0; e < NS; e++) {
    const int s = order[e], a[3] = {s & 1, s >> 1 & 1, s >> 2 & 1};

    for (int d = 0; d < 3; d++) sm[e].lo[d] = o[d] + (a[d] ? cut[d] : 0), sm[e].n[d] = a[d] ? N[d] - cut[d] : cut[d];
  }
  m = owners_build(NS, sm);
  TEST_CALL(pds_mat_create_patches(ctx, 1, &big, C7, &A1));
  TEST_CALL(pds_mat_create_patches(ctx, NS, sm, C7, &A8));
  TEST_CALL(pds_vec_create(ctx, n, &x1));
  TEST_CALL(pds_vec_create(ctx, n, &x8));
  TEST_CALL(pds_vec_create(ctx, n, &y1));
  TEST_CALL(pds_vec_create(ctx, n, &y8));
  TEST_CALL(pds_vec_set_random(x1, 11));
  xb = host_values(x1, n);
  for (int z = 0; z < N[2]; z++) /* the same values at the same global cells */
    for (int y = 0; y < N[1]; y++)
      for (int x = 0; x < N[0]; x++) xs[owner_at(&m, o[0] + x, o[1] + y, o[2] + z)] = xb[((size_t)z * N[1] + y) * N[0] + x];
  TEST_CALL(pds_vec_set_values(x8, xs, PDS_MEM_HOST));
  TEST_CALL(pds_mat_apply(A1, x1, y1));
  TEST_CALL(pds_mat_apply(A8, x8, y8));
  yb = host_values(y1, n), ys = host_values(y8, n);
  for (int z = 0; z < N[2]; z++)
    for (int y = 0; y < N[1]; y++)
      for (int x = 0; x < N[0]; x++) {
        const double a = yb[((size_t)z * N[1] + y) * N[0] + x], b = ys[owner_at(&m, o[0] + x, o[1] + y, o[2] + z)];

        if (memcmp(&a, &b, sizeof a)) TEST_FAIL("A x at cell (%d, %d, %d): one patch %.17g, 8 patches %.17g", x, y, z, a, b);
      }
  for (int e = 0; e <= NS; e++) { /* the 8 patches, then the big one */
    const pds_patch *P = e < NS ? &sm[e] : &big;

    TEST_CALL(pds_mat_patches_get_ghosted(e < NS ? A8 : A1, e < NS ? x8 : x1, e < NS ? e : 0, g));
    for (int k = -1; k <= P->n[2]; k++)
      for (int j = -1; j <= P->n[1]; j++)
        for (int i = -1; i <= P->n[0]; i++) {
          const int L[3] = {i, j, k};
          int       G[3], neg = 0;
          double    want, got = g[((size_t)(k + 1) * (P->n[1] + 2) + j + 1) * (P->n[0] + 2) + i + 1];

          for (int d = 0; d < 3; d++) {
            G[d] = P->lo[d] + L[d] - o[d];
            if (G[d] < 0 || G[d] >= N[d]) G[d] = G[d] < 0 ? 0 : N[d] - 1, neg = !neg;
          }
          want = xb[((size_t)G[2] * N[1] + G[1]) * N[0] + G[0]];
          if (neg) want = -want;
          if (memcmp(&want, &got, sizeof got))
            TEST_FAIL("get_ghosted of patch %d at (%d, %d, %d): %.17g, expected %.17g", e, i, j, k, got, want);
        }
  }
  free(xb), free(xs), free(yb), free(ys), free(g), free(m.own);
  TEST_CALL(pds_mat_destroy(&A1));
  TEST_CALL(pds_mat_destroy(&A8));
  pds_vec_destroy(&x1), pds_vec_destroy(&x8), pds_vec_destroy(&y1), pds_vec_destroy(&y8);
}

/* tile_box with sizes {5, 7, 3} on 17 x 13 x 9 cells: x 5 7 3 2, y 5 7 1, z 5 4 */
static void check_tiles(pds_ctx ctx) {
  const pds_int n[3] = {17, 13, 9}, sz[3] = {5, 7, 3};
  pds_patch     pt[24];
  int           np;

  TEST_CALL(pds_patches_tile_box(n, 3, sz, &np, NULL));
  TEST_ASSERT(np == 24);
  np = 23;
  TEST_ASSERT(pds_patches_tile_box(n, 3, sz, &np, pt) == PDS_ERR_SIZE);
  np = 24;
  TEST_CALL(pds_patches_tile_box(n, 3, sz, &np, pt));
  TEST_ASSERT(np == 24);
  TEST_ASSERT(pt[3].lo[0] == 15 && pt[3].n[0] == 2 && pt[3].n[1] == 5 && pt[3].n[2] == 5);
  TEST_ASSERT(pt[11].lo[1] == 12 && pt[11].n[1] == 1 && pt[11].n[0] == 2);
  TEST_ASSERT(pt[23].lo[0] == 15 && pt[23].lo[1] == 12 && pt[23].lo[2] == 5 && pt[23].n[2] == 4);
  TEST_ASSERT(pds_patches_tile_box(n, 0, sz, &np, NULL) == PDS_ERR_ARG);
  check_set(ctx, np, pt, C7);
}

/* coarsening: geometry halved, stencil rediscretized; odd sizes, odd origins and one-cell patches refused */
static void check_coarsen(pds_ctx ctx) {
  const pds_patch pt[3] = {{{-4, 0, 2}, {4, 6, 2}}, {{0, 0, 2}, {8, 6, 2}}, {{-4, 6, 2}, {12, 2, 4}}};
  pds_patch       bad[2] = {{{0, 0, 0}, {4, 4, 4}}, {{4, 0, 0}, {4, 4, 4}}}, pc;
  pds_mat         A, Ac;
  pds_real        c[7], sum = 0;
  int             np;

  TEST_CALL(pds_mat_create_patches(ctx, 3, pt, C7, &A));
  TEST_CALL(pds_mat_patches_coarsen(A, &Ac));
  TEST_CALL(pds_mat_patches_get_count(Ac, &np));
  TEST_ASSERT(np == 3);
  for (int q = 0; q < 3; q++) {
    TEST_CALL(pds_mat_patches_get_patch(Ac, q, &pc, NULL));
    for (int d = 0; d < 3; d++) TEST_ASSERT(pc.lo[d] * 2 == pt[q].lo[d] && pc.n[d] * 2 == pt[q].n[d]);
  }
  TEST_CALL(pds_mat_patches_get_stencil(Ac, c));
  for (int e = 1; e < 7; e++) {
    TEST_ASSERT(c[e] == C7[e]);
    sum += C7[e];
  }
  TEST_ASSERT_NEAR(c[0], C7[0] + 3 * (C7[0] + sum), 1e-15, 0);
  TEST_CALL(pds_mat_destroy(&Ac));
  TEST_CALL(pds_mat_destroy(&A));
  bad[1].n[1] = 3; /* odd size */
  TEST_CALL(pds_mat_create_patches(ctx, 2, bad, C7, &A));
  TEST_ASSERT_ERR(ctx, pds_mat_patches_coarsen(A, &Ac), PDS_ERR_UNSUPPORTED, "patch 1 (origin (4, 0, 0), size 4 x 3 x 4) has an odd size");
  TEST_ASSERT(Ac == NULL);
  TEST_CALL(pds_mat_destroy(&A));
  bad[1].n[1] = 4, bad[1].lo[2] = 1; /* odd origin */
  TEST_CALL(pds_mat_create_patches(ctx, 2, bad, C7, &A));
  TEST_ASSERT_ERR(ctx, pds_mat_patches_coarsen(A, &Ac), PDS_ERR_UNSUPPORTED, "has an odd origin");
  TEST_CALL(pds_mat_destroy(&A));
  bad[1].lo[2] = 0, bad[0].n[0] = 1, bad[0].lo[0] = 3; /* one cell thick */
  TEST_CALL(pds_mat_create_patches(ctx, 2, bad, C7, &A));
  TEST_ASSERT_ERR(ctx, pds_mat_patches_coarsen(A, &Ac), PDS_ERR_UNSUPPORTED, "patch 0 (origin (3, 0, 0), size 1 x 4 x 4) is one cell thick");
  TEST_CALL(pds_mat_destroy(&A));
}

/* the linear function the trilinear prolongation must reproduce, at a cell centre given in fine cells */
static double lin(double x, double y, double z) { return 0.3 + 0.7 * x - 0.2 * y + 0.45 * z; }

/* Restriction and prolongation on 7 of the 8 patches of 4^3 tiling an 8^3 box (a missing octant: re-entrant
   edges and corners): restriction of a constant is exact, and of random values is the scaled sum of the 8 children;
   constant prolongation adds the parent exactly; trilinear prolongation of a linear function is exact at every fine
   cell whose 7 coarse neighbours exist, and at the box's corner the reflections give e/8. */
static void check_transfers(pds_ctx ctx) {
  const pds_int   box[3] = {8, 8, 8}, four = 4;
  pds_patch       pt[8], ptc[7];
  int             np = 8, nf = 0, nc = 0, tested = 0;
  pds_mat         Af, Ac;
  pds_vec         uf, ec;
  owners          mf, mc;
  double         *fh, *ch, *oh;
  const struct pds_patches *Pc;

  TEST_CALL(pds_patches_tile_box(box, 1, &four, &np, pt));
  np = 7;
  for (int q = 0; q < np; q++) {
    nf += 64, nc += 8;
    for (int d = 0; d < 3; d++) ptc[q].lo[d] = pt[q].lo[d] / 2, ptc[q].n[d] = 2;
  }
  mf = owners_build(np, pt), mc = owners_build(np, ptc);
  TEST_CALL(pds_mat_create_patches(ctx, np, pt, C7, &Af));
  TEST_CALL(pds_mat_patches_coarsen(Af, &Ac));
  Pc = pds_mat_patches_view(Ac);
  TEST_ASSERT(Pc && Pc->ncells == nc && pds_mat_patches_view(NULL) == NULL);
  TEST_CALL(pds_vec_create(ctx, nf, &uf));
  TEST_CALL(pds_vec_create(ctx, nc, &ec));

  /* restriction of a constant: 0.5 * 8 * 1.5 = 6 exactly; of random values: 0.5 times the children's sum */
  TEST_CALL(pds_vec_set(uf, 1.5));
  transfer(ctx, Af, Ac, -1, uf, ec);
  ch = host_values(ec, nc);
  for (int i = 0; i < nc; i++) TEST_ASSERT(ch[i] == 6.0);
  free(ch);
  TEST_CALL(pds_vec_set_random(uf, 21));
  fh = host_values(uf, nf);
  transfer(ctx, Af, Ac, -1, uf, ec);
  ch = host_values(ec, nc);
  for (int q = 0; q < np; q++)
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
          const int X = ptc[q].lo[0] + i, Y = ptc[q].lo[1] + j, Z = ptc[q].lo[2] + k;
          double    s = 0;

          for (int c = 0; c < 8; c++) s += fh[owner_at(&mf, 2 * X + (c & 1), 2 * Y + (c >> 1 & 1), 2 * Z + (c >> 2))];
          TEST_ASSERT_NEAR(ch[owner_at(&mc, X, Y, Z)], 0.5 * s, 1e-15, 1e-15);
        }
  free(ch);

  /* constant prolongation: uf + the parent's value, exactly */
  TEST_CALL(pds_vec_set_random(ec, 22));
  ch = host_values(ec, nc), oh = fh;
  transfer(ctx, Af, Ac, 0, ec, uf);
  fh = host_values(uf, nf);
  for (int q = 0; q < np; q++)
    for (int k = 0; k < 4; k++)
      for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
          const int X = pt[q].lo[0] + i, Y = pt[q].lo[1] + j, Z = pt[q].lo[2] + k, u = owner_at(&mf, X, Y, Z);

          TEST_ASSERT(fh[u] == oh[u] + ch[owner_at(&mc, X / 2, Y / 2, Z / 2)]);
        }
  free(fh), free(oh), free(ch);

  /* trilinear prolongation of a linear function from 0 */
  ch = malloc(sizeof(double) * nc);
  if (!ch) TEST_FAIL("out of host memory");
  for (int q = 0; q < np; q++)
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
          const int X = ptc[q].lo[0] + i, Y = ptc[q].lo[1] + j, Z = ptc[q].lo[2] + k;

          ch[owner_at(&mc, X, Y, Z)] = lin(2 * X + 1, 2 * Y + 1, 2 * Z + 1);
        }
  TEST_CALL(pds_vec_set_values(ec, ch, PDS_MEM_HOST));
  TEST_CALL(pds_vec_set(uf, 0));
  transfer(ctx, Af, Ac, 1, ec, uf);
  fh = host_values(uf, nf);
  for (int q = 0; q < np; q++)
    for (int k = 0; k < 4; k++)
      for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
          const int X = pt[q].lo[0] + i, Y = pt[q].lo[1] + j, Z = pt[q].lo[2] + k;
          const int s[3] = {X & 1 ? 1 : -1, Y & 1 ? 1 : -1, Z & 1 ? 1 : -1};
          int       inside = 1;

          for (int c = 1; c < 8; c++)
            inside &= owner_at(&mc, X / 2 + (c & 1 ? s[0] : 0), Y / 2 + (c & 2 ? s[1] : 0), Z / 2 + (c & 4 ? s[2] : 0)) >= 0;
          if (!inside) continue;
          tested++;
          TEST_ASSERT_NEAR(fh[owner_at(&mf, X, Y, Z)], lin(X + 0.5, Y + 0.5, Z + 0.5), 1e-14, 1e-14);
        }
  TEST_ASSERT(tested >= 100); /* 7 x 64 fine cells, all but those next to the boundary */
  {
    const double e0 = ch[owner_at(&mc, 0, 0, 0)]; /* fine cell (0, 0, 0): every step reflects */

    TEST_ASSERT_NEAR(fh[owner_at(&mf, 0, 0, 0)], e0 / 8, 1e-14, 1e-15);
  }
  free(fh), free(ch), free(mf.own), free(mc.own);
  pds_vec_destroy(&uf), pds_vec_destroy(&ec);
  TEST_CALL(pds_mat_destroy(&Ac));
  TEST_CALL(pds_mat_destroy(&Af));
}

/* the generated problem: CG + Jacobi to 1e-10, max |x - u_exact| falls by ~4 per halving of h */
static void check_convergence(pds_ctx ctx) {
  const pds_int sizes[2] = {4, 6};
  double        err[3];

  for (int t = 0; t < 3; t++) {
    const pds_int n[3] = {8 << t, 8 << t, 8 << t};
    pds_problem   p;

    TEST_CALL(pds_problem_patches(ctx, n, 2, sizes, &p));
    TEST_ASSERT(p.A && p.b && p.u_exact && !p.x_exact && p.description[0]);
    err[t] = test_problem_cg_error(ctx, &p, 1e-10, 5000, NULL);
    pds_problem_destroy(&p);
  }
  for (int t = 0; t < 2; t++)
    if (!(err[t] / err[t + 1] > 3.5 && err[t] / err[t + 1] < 4.5))
      TEST_FAIL("discretization errors %.3e %.3e %.3e: ratio %.3f is not second order", err[0], err[1], err[2],
                err[t] / err[t + 1]);
  {
    const pds_int dims[1] = {40};
    pds_problem   p;
    int           np;

    TEST_CALL(pds_problem_generate(ctx, "patches", dims, 1, &p));
    TEST_CALL(pds_mat_patches_get_count(p.A, &np));
    TEST_ASSERT(np == 8 && p.u_exact);
    pds_problem_destroy(&p);
  }
}

/* /cpu/omp (bits) and /gpu/cuda (1e-13) against /cpu/ref: products, residual, transpose, transfers, on sets big
   enough for omp's threads (fine 64 x 64 x 40 in patches of 8 and 12, coarse 20480 cells) */
static void check_backends(pds_ctx ctx) {
  const char   *be  = pds_ctx_get_backend(ctx);
  const int     omp = !strcmp(be, "/cpu/omp");
  const pds_int box[3] = {64, 64, 40}, sz[2] = {8, 12};
  pds_ctx       cr;
  pds_patch    *pt;
  int           np;
  pds_mat       A[2], Ac[2];
  double       *out[2][8];
  pds_size      nf, nc;

  if (!strcmp(be, "/cpu/ref")) return;
  TEST_CALL(pds_ctx_create("/cpu/ref", &cr));
  TEST_CALL(pds_patches_tile_box(box, 2, sz, &np, NULL));
  pt = malloc(sizeof *pt * np);
  if (!pt) TEST_FAIL("out of host memory");
  TEST_CALL(pds_patches_tile_box(box, 2, sz, &np, pt));
  nf = (pds_size)box[0] * box[1] * box[2], nc = nf / 8;
  for (int b = 0; b < 2; b++) {
    pds_ctx         c = b ? ctx : cr;
    pds_vec         x, y, r, xc, yc;
    int             o = 0;

    TEST_CALL(pds_mat_create_patches(c, np, pt, C7, &A[b]));
    TEST_CALL(pds_mat_patches_coarsen(A[b], &Ac[b]));
    TEST_CALL(pds_vec_create(c, nf, &x));
    TEST_CALL(pds_vec_create(c, nf, &y));
    TEST_CALL(pds_vec_create(c, nf, &r));
    TEST_CALL(pds_vec_create(c, nc, &xc));
    TEST_CALL(pds_vec_create(c, nc, &yc));
    TEST_CALL(pds_vec_set_random(x, 31));
    TEST_CALL(pds_vec_set_random(y, 32));
    TEST_CALL(pds_vec_set_random(xc, 33));
    TEST_CALL(pds_mat_apply_add(A[b], 1.5, x, -0.5, y));
    out[b][o++] = host_values(y, nf);
    TEST_CALL(pds_mat_residual(A[b], y, x, r));
    out[b][o++] = host_values(r, nf);
    TEST_CALL(pds_mat_apply_transpose(A[b], x, y));
    out[b][o++] = host_values(y, nf);
    TEST_CALL(pds_mat_apply(Ac[b], xc, yc));
    out[b][o++] = host_values(yc, nc);
    transfer(c, A[b], Ac[b], -1, x, yc);
    out[b][o++] = host_values(yc, nc);
    for (int tri = 0; tri < 2; tri++) {
      TEST_CALL(pds_vec_copy(x, y));
      transfer(c, A[b], Ac[b], tri, xc, y);
      out[b][o++] = host_values(y, nf);
    }
    pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&r), pds_vec_destroy(&xc), pds_vec_destroy(&yc);
  }
  {
    static const char *const what[7] = {"1.5 A x - 0.5 y", "b - A x", "A^T x", "coarse A x", "restriction",
                                        "constant prolongation", "trilinear prolongation"};

    for (int o = 0; o < 7; o++) {
      const pds_size n = o == 3 || o == 4 ? nc : nf;

      if (omp) {
        for (pds_size i = 0; i < n; i++)
          if (memcmp(&out[0][o][i], &out[1][o][i], sizeof(double)))
            TEST_FAIL("%s on %s differs from /cpu/ref at %" PDS_SIZE_FMT ": %.17g vs %.17g", what[o], be, i,
                      out[1][o][i], out[0][o][i]);
      } else {
        check_close(what[o], n, out[1][o], out[0][o], 1e-13);
      }
      free(out[0][o]), free(out[1][o]);
    }
  }
  for (int b = 0; b < 2; b++) pds_mat_destroy(&A[b]), pds_mat_destroy(&Ac[b]);
  free(pt);
  TEST_CALL(pds_ctx_destroy(&cr));
}

/* bad input: the code and a message naming the problem, no matrix */
static void check_errors(pds_ctx ctx) {
  pds_patch pt[126];
  pds_real  c[7];
  pds_mat   A = NULL;
  int       np = 125;
  const pds_int box[3] = {20, 20, 20}, four = 4;

  pt[0] = (pds_patch){{0, 0, 0}, {4, 4, 4}}, pt[1] = (pds_patch){{2, 2, 2}, {4, 4, 4}};
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 2, pt, C7, &A), PDS_ERR_ARG,
                  "patches 0 (origin (0, 0, 0), size 4 x 4 x 4) and 1 (origin (2, 2, 2), size 4 x 4 x 4) overlap");
  TEST_ASSERT(A == NULL);
  /* one cell of patch 93 of a 5^3 tiling claimed again by a patch after them (the hierarchy finds it) */
  TEST_CALL(pds_patches_tile_box(box, 1, &four, &np, pt));
  pt[125] = (pds_patch){{13, 13, 13}, {1, 1, 1}};
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 126, pt, C7, &A), PDS_ERR_ARG,
                  "patches 93 (origin (12, 12, 12), size 4 x 4 x 4) and 125 (origin (13, 13, 13), size 1 x 1 x 1) overlap");
  pt[125] = (pds_patch){{20, 0, 0}, {1, 1, 1}}; /* touching is fine */
  TEST_CALL(pds_mat_create_patches(ctx, 126, pt, C7, &A));
  TEST_CALL(pds_mat_destroy(&A));
  pt[1] = (pds_patch){{4, 0, 0}, {4, 0, 4}};
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 2, pt, C7, &A), PDS_ERR_ARG,
                  "patch 1 (origin (4, 0, 0), size 4 x 0 x 4) has an empty or negative size");
  pt[1] = (pds_patch){{4, 0, 0}, {4, 4, -2}};
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 2, pt, C7, &A), PDS_ERR_ARG, "size 4 x 4 x -2) has an empty");
  pt[1] = (pds_patch){{4, 0, 0}, {4, 4, 4}};
  memcpy(c, C7, sizeof c), c[3] = NAN;
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 2, pt, c, &A), PDS_ERR_ARG, "stencil value c_y- = nan is not finite");
  c[3] = INFINITY;
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 2, pt, c, &A), PDS_ERR_ARG, "c_y- = inf is not finite");
  memcpy(c, C7, sizeof c), c[0] = 0;
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 2, pt, c, &A), PDS_ERR_ARG, "centre c0 is 0");
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 0, pt, C7, &A), PDS_ERR_ARG, "0 patches (at least 1)");
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, -1, pt, C7, &A), PDS_ERR_ARG, "-1 patches");
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 1, NULL, C7, &A), PDS_ERR_ARG, "patches array is NULL");
  pt[0] = (pds_patch){{0, 0, 0}, {1024, 1024, 1024}}, pt[1] = (pds_patch){{1024, 0, 0}, {1024, 1024, 1024}};
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 2, pt, C7, &A), PDS_ERR_SIZE,
                  "2147483648 cells in 2 patches exceed the 32-bit local index range");
  pt[0] = (pds_patch){{2147483640, 0, 0}, {8, 1, 1}};
  TEST_ASSERT_ERR(ctx, pds_mat_create_patches(ctx, 1, pt, C7, &A), PDS_ERR_ARG, "reaches past the 32-bit cell grid");
  TEST_ASSERT(A == NULL);
  /* getters on another type, a patch out of range */
  pt[0] = (pds_patch){{0, 0, 0}, {2, 2, 2}};
  TEST_CALL(pds_mat_create_patches(ctx, 1, pt, C7, &A));
  TEST_ASSERT_ERR(ctx, pds_mat_patches_get_patch(A, 1, NULL, NULL), PDS_ERR_ARG, "patch 1 of a set of 1");
  TEST_CALL(pds_mat_destroy(&A));
}

int main(int argc, char **argv) {
  pds_ctx ctx = test_init(argc, argv);
  /* an L shape: boundary faces in the re-entrant corner too */
  const pds_patch L[3] = {{{0, 0, 0}, {4, 3, 5}}, {{4, 0, 0}, {3, 3, 5}}, {{0, 3, 0}, {4, 4, 5}}};

  check_set(ctx, 3, L, C7);
  check_split(ctx);
  check_tiles(ctx);
  check_coarsen(ctx);
  check_transfers(ctx);
  check_convergence(ctx);
  check_backends(ctx);
  check_errors(ctx);
  test_finalize(&ctx);
  return 0;
}
