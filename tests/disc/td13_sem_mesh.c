/* tests/disc/td13_sem_mesh.c: the spectral-element space on hexahedral meshes (src/disc/sem_mesh.c) on the backend of
 * argv[1]:
 * - a box mesh (pds_mesh3d_generate_box) gives pds_sem_create_box's space: the same counts, affine, the same values of
 *   A u (as a sorted list: the numberings differ) and the same solution error;
 * - the same box with its nodes renumbered, its cells shuffled and each cell's vertices rotated by one of the 24
 *   rotations of the cube (so that neighbours see their shared faces in every orientation): the same counts,
 *   values and error again, A symmetric, /cpu/ref's bits, and a Gmsh file round trip giving the same bits;
 * - an unstructured all-hexahedral mesh (the shared hybrid_3d_cube.msh, tetrahedra and prisms cut into hexahedra by
 *   pds_mesh3d_subdivide_hex, scaled into the unit cube): the manufactured solution's error falls with the order
 *   (spectrally, orders 1 to 4: printed) and at order 1 by 2.8 when the mesh is cut once more (algebraically: h^2
 *   asymptotically, the cut cells are not there yet);
 * - bad input: a mesh with tetrahedra, an order out of range, NULL.
 * PDS_TEST_SMALL=1 (under compute-sanitizer): the unstructured mesh at orders 1 and 2 only, not cut again. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <unistd.h>

#include "disc/sem_impl.h"
#include "test.h"

static uint64_t rs = 99;
static uint64_t rnd(void) {
  rs = rs * 6364136223846793005ull + 1442695040888963407ull;
  return rs >> 33;
}

static int cmp_dbl(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

/* the max error of CG + jacobi (rtol 1e-12) on pds_problem_sem_mesh (mesh non-NULL) or pds_problem_sem(el) */
static double solve_err(pds_ctx ctx, pds_mesh3d mesh, const pds_int *el, int order, int *its) {
  pds_problem p;
  double      e;

  if (mesh) TEST_CALL(pds_problem_sem_mesh(ctx, mesh, order, &p));
  else TEST_CALL(pds_problem_sem(ctx, el, order, 0.0, &p));
  e = test_problem_cg_error(ctx, &p, 1e-12, 5000, its);
  pds_problem_destroy(&p);
  return e;
}

/* A u for u = the manufactured solution at the global points, sorted (host, nglob values) */
static double *sorted_Au(pds_ctx ctx, pds_sem S) {
  pds_sem_info info;
  pds_mat      A;
  pds_vec      u, y;
  double      *xyz, *h;

  TEST_CALL(pds_sem_get_info(S, &info));
  xyz = malloc(3 * sizeof *xyz * (size_t)info.nglobal), h = malloc(sizeof *h * (size_t)info.nglobal);
  TEST_ASSERT(xyz && h);
  TEST_CALL(pds_sem_get_coordinates(S, xyz));
  for (pds_int g = 0; g < info.nglobal; g++)
    h[g] = sin(3 * xyz[3 * g]) * cos(2 * xyz[3 * g + 1]) + xyz[3 * g + 2] * xyz[3 * g + 2];
  TEST_CALL(pds_mat_create_sem(S, &A));
  TEST_CALL(pds_vec_create(ctx, info.nglobal, &u));
  TEST_CALL(pds_vec_create(ctx, info.nglobal, &y));
  TEST_CALL(pds_vec_set_values(u, h, PDS_MEM_HOST));
  TEST_CALL(pds_mat_apply(A, u, y));
  TEST_CALL(pds_vec_get_values(y, h, PDS_MEM_HOST));
  qsort(h, (size_t)info.nglobal, sizeof *h, cmp_dbl);
  free(xyz), pds_vec_destroy(&u), pds_vec_destroy(&y), pds_mat_destroy(&A);
  return h;
}

/* the 24 rotations of the cube as permutations of its corners in Gmsh's order: rot[r][c] = the corner that goes to c */
static int rotations(int rot[24][8]) {
  static const int co[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  int              nr = 1;

  for (int c = 0; c < 8; c++) rot[0][c] = c;
  for (int a = 0; a < nr && nr < 24; a++) /* close under two quarter turns (about z and about x) */
    for (int g = 0; g < 2; g++) {
      int r[8], dup = 0;

      for (int c = 0; c < 8; c++) {
        const int *x = co[rot[a][c]];
        int        y[3];

        if (g == 0) y[0] = 1 - x[1], y[1] = x[0], y[2] = x[2];
        else y[0] = x[0], y[1] = 1 - x[2], y[2] = x[1];
        for (int d = 0; d < 8; d++)
          if (co[d][0] == y[0] && co[d][1] == y[1] && co[d][2] == y[2]) r[c] = d;
      }
      for (int b = 0; b < nr && !dup; b++) dup = !memcmp(rot[b], r, sizeof r);
      if (!dup && nr < 24) memcpy(rot[nr++], r, sizeof r);
    }
  return nr;
}

/* the box mesh with nodes renumbered, cells shuffled and each cell's vertices rotated */
static pds_mesh3d scramble(pds_ctx ctx, pds_mesh3d m, int *orients_used) {
  pds_int              nn, nc, nb, *perm, *cn, *order, *bn;
  const pds_real      *X;
  const unsigned char *ct, *bt;
  const pds_size      *cp, *bp;
  const pds_int       *cells, *btag, *bnodes;
  double              *Y;
  int                  rot[24][8], used[24] = {0};
  pds_mesh3d           out;

  TEST_ASSERT(rotations(rot) == 24);
  TEST_CALL(pds_mesh3d_get_sizes(m, &nn, &nc, &nb));
  TEST_CALL(pds_mesh3d_get_arrays(m, &X, &ct, &cp, &cells, NULL, &bt, &bp, &bnodes, &btag));
  perm = malloc(sizeof *perm * nn), cn = malloc(sizeof *cn * 8 * nc), order = malloc(sizeof *order * nc);
  Y = malloc(sizeof *Y * 3 * nn), bn = malloc(sizeof *bn * (size_t)bp[nb]);
  TEST_ASSERT(perm && cn && order && Y && bn);
  for (pds_int i = 0; i < nn; i++) perm[i] = i;
  for (pds_int i = nn - 1; i > 0; i--) { /* node i -> perm[i] */
    const pds_int j = (pds_int)(rnd() % (uint64_t)(i + 1)), t = perm[i];

    perm[i] = perm[j], perm[j] = t;
  }
  for (pds_int i = 0; i < nn; i++)
    for (int d = 0; d < 3; d++) Y[3 * perm[i] + d] = X[3 * i + d];
  for (pds_int c = 0; c < nc; c++) order[c] = c;
  for (pds_int c = nc - 1; c > 0; c--) {
    const pds_int j = (pds_int)(rnd() % (uint64_t)(c + 1)), t = order[c];

    order[c] = order[j], order[j] = t;
  }
  for (pds_int c = 0; c < nc; c++) {
    const int r = (int)(rnd() % 24);

    used[r] = 1;
    for (int v = 0; v < 8; v++) cn[8 * c + v] = perm[cells[cp[order[c]] + rot[r][v]]];
  }
  for (pds_size k = 0; k < bp[nb]; k++) bn[k] = perm[bnodes[k]];
  *orients_used = 0;
  for (int r = 0; r < 24; r++) *orients_used += used[r];
  TEST_CALL(pds_mesh3d_create(ctx, nn, Y, nc, ct, cn, NULL, nb, bt, bn, btag, &out));
  free(perm), free(cn), free(order), free(Y), free(bn);
  return out;
}

int main(int argc, char **argv) {
  pds_ctx       ctx = test_init(argc, argv), ref;
  const pds_int el[3] = {3, 2, 4};
  const int     order = 4;
  pds_mesh3d    box, mix, hy = NULL, hex = NULL, hex2 = NULL;
  pds_sem       Sb, Sm, Sx, Sr;
  pds_sem_info  ib, im, ix;
  double       *yb, *ym, *yx, eb, em, ex;
  char          buf[4096], path[512];
  int           nrot = 0;
  const int     small = getenv("PDS_TEST_SMALL") && !strcmp(getenv("PDS_TEST_SMALL"), "1");

  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  { /* the box mesh and the box */
    const pds_real lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};

    TEST_CALL(pds_mesh3d_generate_box(ctx, el, lo, hi, &box));
  }
  TEST_CALL(pds_sem_create_box(ctx, el, order, 0.0, &Sb));
  TEST_CALL(pds_sem_create_mesh(ctx, box, order, &Sm));
  TEST_CALL(pds_sem_get_info(Sb, &ib));
  TEST_CALL(pds_sem_get_info(Sm, &im));
  TEST_ASSERT(im.nglobal == ib.nglobal && im.nmasked == ib.nmasked && im.nlocal == ib.nlocal && im.affine == 1);
  TEST_ASSERT(im.elements[0] == 0 && im.nelem == 24);
  yb = sorted_Au(ctx, Sb), ym = sorted_Au(ctx, Sm);
  for (pds_int g = 0; g < ib.nglobal; g++) TEST_ASSERT_NEAR(ym[g], yb[g], 1e-12, 1e-12);
  eb = solve_err(ctx, NULL, el, order, NULL), em = solve_err(ctx, box, NULL, order, NULL);
  printf("3 x 2 x 4 box, order %d: max error %.3e (box), %.3e (box mesh)\n", order, eb, em);
  TEST_ASSERT_NEAR(em, eb, 1e-6, 1e-13);
  TEST_ASSERT(eb < 1e-3);

  /* renumbered, shuffled, rotated */
  mix = scramble(ctx, box, &nrot);
  TEST_ASSERT(nrot >= 16); /* 24 cells, most of the 24 orientations */
  TEST_CALL(pds_sem_create_mesh(ctx, mix, order, &Sx));
  TEST_CALL(pds_sem_get_info(Sx, &ix));
  TEST_ASSERT(ix.nglobal == ib.nglobal && ix.nmasked == ib.nmasked && ix.affine == 1);
  yx = sorted_Au(ctx, Sx);
  for (pds_int g = 0; g < ib.nglobal; g++) TEST_ASSERT_NEAR(yx[g], yb[g], 1e-12, 1e-12);
  ex = solve_err(ctx, mix, NULL, order, NULL);
  printf("the same, nodes renumbered, cells shuffled and rotated (%d orientations): max error %.3e\n", nrot, ex);
  TEST_ASSERT_NEAR(ex, eb, 1e-6, 1e-13);
  { /* symmetric; /cpu/ref's bits; a Gmsh round trip gives the same bits */
    pds_mat    A, Ar, Af;
    pds_vec    x, y, z, w, xr, yr, yf;
    pds_mesh3d back;
    pds_sem    Sf;
    double     xAy, yAx, *a, *b, *c;
    const size_t N = (size_t)ix.nglobal;

    TEST_CALL(pds_mat_create_sem(Sx, &A));
    TEST_CALL(pds_vec_create(ctx, ix.nglobal, &x));
    TEST_CALL(pds_vec_create(ctx, ix.nglobal, &y));
    TEST_CALL(pds_vec_create(ctx, ix.nglobal, &z));
    TEST_CALL(pds_vec_create(ctx, ix.nglobal, &w));
    TEST_CALL(pds_vec_set_random(x, 1));
    TEST_CALL(pds_vec_set_random(y, 2));
    TEST_CALL(pds_mat_apply(A, x, z));
    TEST_CALL(pds_mat_apply(A, y, w));
    TEST_CALL(pds_vec_dot(y, z, &yAx));
    TEST_CALL(pds_vec_dot(x, w, &xAy));
    TEST_ASSERT_NEAR(yAx, xAy, 1e-12, 0);
    TEST_CALL(pds_sem_create_mesh(ref, mix, order, &Sr));
    TEST_CALL(pds_mat_create_sem(Sr, &Ar));
    TEST_CALL(pds_vec_create(ref, ix.nglobal, &xr));
    TEST_CALL(pds_vec_create(ref, ix.nglobal, &yr));
    a = malloc(N * sizeof *a), b = malloc(N * sizeof *b), c = malloc(N * sizeof *c);
    TEST_ASSERT(a && b && c);
    TEST_CALL(pds_vec_get_values(x, a, PDS_MEM_HOST));
    TEST_CALL(pds_vec_set_values(xr, a, PDS_MEM_HOST));
    TEST_CALL(pds_mat_apply(Ar, xr, yr));
    TEST_CALL(pds_vec_get_values(z, a, PDS_MEM_HOST));
    TEST_CALL(pds_vec_get_values(yr, b, PDS_MEM_HOST));
    TEST_ASSERT(!memcmp(a, b, N * sizeof *a));
    snprintf(path, sizeof path, "td13_%d.msh", (int)getpid());
    TEST_CALL(pds_mesh3d_write_gmsh(mix, path));
    TEST_CALL(pds_mesh3d_read_gmsh(ctx, path, &back));
    remove(path);
    TEST_CALL(pds_sem_create_mesh(ctx, back, order, &Sf));
    TEST_CALL(pds_mat_create_sem(Sf, &Af));
    TEST_CALL(pds_vec_create(ctx, ix.nglobal, &yf));
    TEST_CALL(pds_mat_apply(Af, x, yf));
    TEST_CALL(pds_vec_get_values(yf, c, PDS_MEM_HOST));
    TEST_ASSERT(!memcmp(a, c, N * sizeof *a));
    free(a), free(b), free(c);
    pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&z), pds_vec_destroy(&w), pds_vec_destroy(&xr);
    pds_vec_destroy(&yr), pds_vec_destroy(&yf), pds_mat_destroy(&A), pds_mat_destroy(&Ar), pds_mat_destroy(&Af);
    pds_sem_destroy(&Sr), pds_sem_destroy(&Sf), pds_mesh3d_destroy(&back);
  }
  free(yb), free(ym), free(yx);
  pds_sem_destroy(&Sb), pds_sem_destroy(&Sm), pds_sem_destroy(&Sx);

  /* an unstructured hexahedral mesh: the shared hybrid mesh cut into hexahedra */
  if (!test_shared_path("meshes/hybrid_3d_cube.msh", buf, sizeof buf))
    TEST_FAIL("the shared mesh meshes/hybrid_3d_cube.msh is missing (PDS_SHARED_DIR)");
  TEST_CALL(pds_mesh3d_read_gmsh(ctx, buf, &hy));
  TEST_ASSERT_ERR(ctx, pds_sem_create_mesh(ctx, hy, 3, &Sx), PDS_ERR_ARG, "not hexahedral");
  { /* into hexahedra, scaled from its 15 x 13 x 6 box to within the unit cube (the solution's scale) */
    pds_mesh3d           cut;
    pds_int              nn, nc, nb;
    const pds_real      *X;
    const unsigned char *ct, *bt;
    const pds_size      *cp, *bp;
    const pds_int       *cn, *bn, *btag;
    double               lo[3] = {1e300, 1e300, 1e300}, ext = 0, *Y;

    TEST_CALL(pds_mesh3d_subdivide_hex(hy, &cut));
    TEST_CALL(pds_mesh3d_get_sizes(cut, &nn, &nc, &nb));
    TEST_CALL(pds_mesh3d_get_arrays(cut, &X, &ct, &cp, &cn, NULL, &bt, &bp, &bn, &btag));
    for (pds_int i = 0; i < nn; i++)
      for (int d = 0; d < 3; d++) lo[d] = fmin(lo[d], X[3 * i + d]);
    for (pds_int i = 0; i < nn; i++)
      for (int d = 0; d < 3; d++) ext = fmax(ext, X[3 * i + d] - lo[d]);
    Y = malloc(3 * sizeof *Y * (size_t)nn);
    TEST_ASSERT(Y);
    for (pds_int i = 0; i < nn; i++)
      for (int d = 0; d < 3; d++) Y[3 * i + d] = (X[3 * i + d] - lo[d]) / ext;
    TEST_CALL(pds_mesh3d_create(ctx, nn, Y, nc, ct, cn, NULL, nb, bt, bn, btag, &hex));
    free(Y), pds_mesh3d_destroy(&cut);
  }
  {
    double  e[7] = {0};
    int     its[7] = {0};
    pds_int nc;

    TEST_CALL(pds_mesh3d_get_sizes(hex, NULL, &nc, NULL));
    printf("hybrid_3d_cube.msh cut into %d hexahedra: order, CG iterations, max error\n", (int)nc);
    for (int o = 1; o <= (small ? 2 : 4); o++) {
      e[o] = solve_err(ctx, hex, NULL, o, &its[o]);
      printf("  %d  %4d  %.3e\n", o, its[o], e[o]);
      if (o > 1) TEST_ASSERT(e[o] < e[o - 1]);
    }
    if (!small) {
      double e2;

      TEST_ASSERT(e[4] < 1e-3 * e[1]);
      TEST_CALL(pds_mesh3d_subdivide_hex(hex, &hex2)); /* h / 2 */
      e2 = solve_err(ctx, hex2, NULL, 1, NULL);

      printf("order 1 on the mesh cut once more: max error %.3e, ratio %.2f (h^2: 4)\n", e2, e[1] / e2);
      TEST_ASSERT(e[1] / e2 > 2.5 && e[1] / e2 < 7); /* 2.82 measured (deterministic: every backend's bits) */
    }
  }
  /* bad input */
  TEST_ASSERT_ERR(ctx, pds_sem_create_mesh(ctx, box, 0, &Sx), PDS_ERR_ARG, "order");
  TEST_ASSERT_ERR(ctx, pds_sem_create_mesh(ctx, box, 14, &Sx), PDS_ERR_ARG, "order");
  TEST_ASSERT_ERR(ctx, pds_sem_create_mesh(ctx, NULL, 3, &Sx), PDS_ERR_ARG, "mesh is NULL");
  TEST_ASSERT_ERR(ctx, pds_sem_create_mesh(ctx, box, 3, NULL), PDS_ERR_ARG, "output");
  pds_mesh3d_destroy(&box), pds_mesh3d_destroy(&mix), pds_mesh3d_destroy(&hy), pds_mesh3d_destroy(&hex);
  pds_mesh3d_destroy(&hex2);
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
