/* tests/disc/td06_fail.c: bad input to fem2d gives a clear error and changes nothing: boundary nodes without a
 * marker (no Dirichlet data), an edge of three triangles, sizes that do not match, unknown names and modes, bad
 * user problems, an exact solution asked where none is known, a mesh changed after create, destroyed handles; and
 * an allocation-failure sweep over create, assemble, exact and the L2 error (every failure is PDS_ERR_MEM, leaves
 * the outputs NULL and leaks nothing: the sanitizer build checks). */
#include <stdbool.h>

#include "test.h"

/* The unit square cut into 2 n^2 right triangles; tagged: boundary edges with tags 1..4, else untagged, or
   only the bottom side tagged (tagged = 2). */
static pds_mesh square_mesh(pds_ctx ctx, int n, int tagged) {
  int       nn = (n + 1) * (n + 1), nt = 2 * n * n, nb = 0, e = 0;
  pds_real *xy = malloc(sizeof(pds_real) * 2 * (size_t)nn);
  pds_int  *tri = malloc(sizeof(pds_int) * 3 * (size_t)nt), *be = malloc(sizeof(pds_int) * 8 * (size_t)n);
  pds_int  *bt = malloc(sizeof(pds_int) * 4 * (size_t)n);
  pds_mesh  m;

  for (int j = 0; j <= n; j++)
    for (int i = 0; i <= n; i++) {
      xy[2 * (j * (n + 1) + i)]     = (double)i / n;
      xy[2 * (j * (n + 1) + i) + 1] = (double)j / n;
    }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      int a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;

      tri[3 * e] = a, tri[3 * e + 1] = b, tri[3 * e + 2] = d, e++;
      tri[3 * e] = a, tri[3 * e + 1] = d, tri[3 * e + 2] = c, e++;
    }
  if (tagged)
    for (int i = 0; i < n; i++) {
      be[2 * nb] = i, be[2 * nb + 1] = i + 1, bt[nb++] = 1;
      if (tagged == 2) continue;
      be[2 * nb] = i * (n + 1) + n, be[2 * nb + 1] = (i + 1) * (n + 1) + n, bt[nb++] = 2;
      be[2 * nb] = n * (n + 1) + i + 1, be[2 * nb + 1] = n * (n + 1) + i, bt[nb++] = 3;
      be[2 * nb] = (i + 1) * (n + 1), be[2 * nb + 1] = i * (n + 1), bt[nb++] = 4;
    }
  TEST_CALL(pds_mesh_create_tri(ctx, nn, xy, nt, tri, nb, be, bt, &m));
  free(xy), free(tri), free(be), free(bt);
  return m;
}

static pds_real nan_f(void *user, pds_real x, pds_real y) { return x > 0.5 && y > 0.5 ? NAN : 1.0; }

/* One full pass: create, set problem, assemble (both modes), exact, L2 error. */
static int pipeline(pds_ctx ctx, pds_mesh m, const char *problem) {
  pds_fem2d fem = NULL;
  pds_mat   A   = NULL;
  pds_vec   b = NULL, u = NULL;
  pds_real  err;
  int       ierr;

  ierr = pds_fem2d_create(ctx, m, &fem);
  if (ierr) {
    TEST_ASSERT(fem == NULL);
    return ierr;
  }
  if (!(ierr = pds_fem2d_set_problem(fem, problem)))
    for (int mode = 0; mode < 2 && !ierr; mode++) {
      ierr = pds_fem2d_assemble(fem, (pds_dirichlet_mode)mode, &A, &b);
      if (ierr) TEST_ASSERT(A == NULL && b == NULL);
      pds_mat_destroy(&A);
      pds_vec_destroy(&b);
    }
  if (!ierr) {
    ierr = pds_fem2d_exact(fem, &u);
    if (ierr) TEST_ASSERT(u == NULL);
  }
  if (!ierr) ierr = pds_fem2d_l2_error(fem, u, &err); /* the interpolation error */
  if (!ierr) TEST_ASSERT(err > 0 && err < 0.1);
  pds_vec_destroy(&u);
  pds_fem2d_destroy(&fem);
  return ierr;
}

int main(int argc, char **argv) {
  pds_ctx           ctx = test_init(argc, argv);
  pds_mesh          m, mu, mh;
  pds_fem2d         fem, fem2;
  pds_mat           A = NULL;
  pds_vec           b = NULL, v, u;
  pds_real          err;
  pds_fem2d_problem pr;

  m  = square_mesh(ctx, 6, 1);
  mu = square_mesh(ctx, 6, 0);
  /* no markers at all, or one side only: the boundary nodes have no Dirichlet value */
  TEST_CALL(pds_fem2d_create(ctx, mu, &fem));
  TEST_ASSERT_ERR(ctx, pds_fem2d_assemble(fem, PDS_DIRICHLET_ROW, &A, &b), PDS_ERR_ARG, "has no boundary marker");
  TEST_ASSERT(A == NULL && b == NULL);
  TEST_CALL(pds_fem2d_destroy(&fem));
  TEST_CALL(pds_mesh_destroy(&mu));
  mu = square_mesh(ctx, 6, 2);
  TEST_CALL(pds_fem2d_create(ctx, mu, &fem));
  TEST_ASSERT_ERR(ctx, pds_fem2d_assemble(fem, PDS_DIRICHLET_SYMMETRIC, &A, &b), PDS_ERR_ARG, "node 7 at (0, 0.1666");
  TEST_CALL(pds_fem2d_destroy(&fem));
  TEST_CALL(pds_mesh_destroy(&mu));

  /* three triangles on one edge: no triangulation */
  {
    const pds_real xy[]  = {0, 0, 1, 0, 0.5, 1, 0.5, -1, 0.5, 2};
    const pds_int  tri[] = {0, 1, 2, 1, 0, 3, 0, 1, 4}, be[] = {1, 2, 2, 0, 0, 3, 3, 1}, bt[] = {1, 1, 1, 1};

    TEST_CALL(pds_mesh_create_tri(ctx, 5, xy, 3, tri, 4, be, bt, &mu));
    TEST_ASSERT_ERR(ctx, pds_fem2d_create(ctx, mu, &fem), PDS_ERR_ARG, "edge 0-1 belongs to 3 triangles");
    TEST_ASSERT(fem == NULL);
    TEST_CALL(pds_mesh_destroy(&mu));
  }

  /* arguments */
  TEST_ASSERT_ERR(ctx, pds_fem2d_create(ctx, NULL, &fem), PDS_ERR_ARG, "mesh is NULL");
  TEST_ASSERT_ERR(NULL, pds_fem2d_create(NULL, m, &fem), PDS_ERR_ARG, "");
  TEST_ASSERT_ERR(ctx, pds_fem2d_create(ctx, m, NULL), PDS_ERR_ARG, "output handle");
  TEST_CALL(pds_fem2d_create(ctx, m, &fem));
  TEST_ASSERT_ERR(ctx, pds_fem2d_set_problem(fem, "nosuch"), PDS_ERR_ARG, "unknown fem2d problem 'nosuch'");
  TEST_ASSERT(!strcmp(pds_fem2d_get_problem(fem), "paper")); /* unchanged */
  TEST_ASSERT_ERR(ctx, pds_fem2d_assemble(fem, (pds_dirichlet_mode)7, &A, &b), PDS_ERR_ARG, "Dirichlet mode 7");
  TEST_ASSERT_ERR(ctx, pds_fem2d_assemble(fem, PDS_DIRICHLET_ROW, NULL, &b), PDS_ERR_ARG, "NULL");
  /* sizes: a vector of another length */
  TEST_CALL(pds_vec_create(ctx, 10, &v));
  TEST_CALL(pds_vec_set(v, 1.0));
  TEST_ASSERT_ERR(ctx, pds_fem2d_l2_error(fem, v, &err), PDS_ERR_SIZE, "10 entries but the mesh has 49 nodes");
  TEST_CALL(pds_vec_destroy(&v));
  /* user problems: bad k, no exact solution, a source that is NaN somewhere */
  memset(&pr, 0, sizeof pr);
  pr.k = -1;
  TEST_ASSERT_ERR(ctx, pds_fem2d_set_problem_user(fem, &pr), PDS_ERR_ARG, "conductivity");
  pr.k = 1, pr.ffn = nan_f;
  TEST_CALL(pds_fem2d_set_problem_user(fem, &pr));
  TEST_ASSERT(!strcmp(pds_fem2d_get_problem(fem), "user"));
  TEST_ASSERT_ERR(ctx, pds_fem2d_assemble(fem, PDS_DIRICHLET_ROW, &A, &b), PDS_ERR_ARG, "non-finite");
  TEST_ASSERT_ERR(ctx, pds_fem2d_exact(fem, &u), PDS_ERR_UNSUPPORTED, "no exact solution");
  TEST_CALL(pds_fem2d_destroy(&fem));
  /* the paper's exact solution needs the unit square */
  TEST_CALL(pds_mesh_generate(ctx, "hole", 300, 1, &mh));
  TEST_CALL(pds_fem2d_create(ctx, mh, &fem));
  TEST_CALL(pds_fem2d_assemble(fem, PDS_DIRICHLET_ROW, &A, &b)); /* the equation itself is fine anywhere */
  TEST_ASSERT_ERR(ctx, pds_fem2d_exact(fem, &u), PDS_ERR_UNSUPPORTED, "unit square");
  TEST_CALL(pds_fem2d_set_problem(fem, "manufactured"));
  TEST_CALL(pds_fem2d_exact(fem, &u));
  TEST_CALL(pds_vec_destroy(&u));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
  /* the mesh renumbered after create */
  TEST_CALL(pds_fem2d_create(ctx, mh, &fem2));
  TEST_CALL(pds_mesh_reorder_rcm(mh));
  TEST_ASSERT_ERR(ctx, pds_fem2d_assemble(fem2, PDS_DIRICHLET_ROW, &A, &b), PDS_ERR_STATE, "changed");
  TEST_CALL(pds_fem2d_destroy(&fem2));
  TEST_CALL(pds_fem2d_destroy(&fem));
  TEST_CALL(pds_mesh_destroy(&mh));
  /* destroyed handles */
  TEST_CALL(pds_fem2d_destroy(&fem)); /* NULL: fine */
  TEST_ASSERT_ERR(NULL, pds_fem2d_set_problem(NULL, "paper"), PDS_ERR_ARG, "");
  TEST_ASSERT(pds_fem2d_get_problem(NULL) == NULL);

  /* allocation failures: every k until the whole pipeline succeeds */
  {
    long k;

    for (k = 0; k < 100000; k++) {
      int ierr;

      pds_ctx_set_alloc_fail(ctx, k);
      ierr = pipeline(ctx, m, k % 2 ? "paper" : "manufactured");
      pds_ctx_set_alloc_fail(ctx, -1);
      if (ierr == PDS_OK) break;
      if (ierr != PDS_ERR_MEM) TEST_FAIL("allocation failure %ld gave %s, not PDS_ERR_MEM", k, pds_error_name(ierr));
      pds_ctx_clear_error(ctx);
    }
    TEST_ASSERT(k > 10);
    if (getenv("PDS_TEST_VERBOSE")) printf("allocation sweep: %ld injected failures, each PDS_ERR_MEM\n", k);
  }
  TEST_CALL(pds_mesh_destroy(&m));
  test_finalize(&ctx);
  return 0;
}
