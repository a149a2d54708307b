/* tests/disc/td15_fv.c: the finite-volume Euler operator (src/disc/fv.c, the fv kernel group; paper 001) on the
 * backend of argv[1]:
 * - free-stream preservation: a uniform flow's residual is zero to round-off, and 20 explicit steps leave it uniform,
 *   on a box of hexahedra, the shared box_tet.msh (tetrahedra), hybrid_3d_cube.msh (tetrahedra and prisms) and that
 *   mesh cut into hexahedra; also with a wall along the flow;
 * - conservation: for a non-uniform state the cells' residuals sum to minus the boundary faces' fluxes (computed here
 *   from the face geometry with fv_bodies.h's fluxes);
 * - the same bits as /cpu/ref, and on repeated runs; every summation ("stages", "color", "atomic", "cells": the
 *   atomic one within 1e-13 of max |R| off /cpu/ref, "cells" the bits of "stages"); free stream and conservation too;
 * - a density bump carried by the free stream out of a box: the residual norm falls, the state stays positive;
 * - bad input: NULL mesh, gamma, Mach number, direction, entropy fix, wall tags, vector sizes. */
#include "fv_test.h"

/* a smooth state: the free stream with a density and energy bump around c (radius w) */
static void bump_state(pds_mesh3d m, const pds_fv_info *in, const double c[3], double w, pds_vec Q) {
  pds_int         nc;
  const pds_real *X;
  double         *h;

  TEST_CALL(pds_mesh3d_get_sizes(m, NULL, &nc, NULL));
  TEST_CALL(pds_mesh3d_get_geometry(m, NULL, &X, NULL, NULL));
  h = malloc(sizeof *h * 5 * (size_t)nc);
  TEST_ASSERT(h);
  for (pds_int i = 0; i < nc; i++) {
    const double d2 = (X[3 * i] - c[0]) * (X[3 * i] - c[0]) + (X[3 * i + 1] - c[1]) * (X[3 * i + 1] - c[1]) +
                      (X[3 * i + 2] - c[2]) * (X[3 * i + 2] - c[2]);
    const double b  = 0.2 * exp(-d2 / (w * w));

    for (int k = 0; k < 5; k++) h[5 * i + k] = in->qinf[k] * (1 + (k == 0 || k == 4 ? b : 0));
  }
  TEST_CALL(pds_vec_set_values(Q, h, PDS_MEM_HOST));
  free(h);
}

/* free-stream preservation on m (walls: the tags of wall_tags), the flow along dir at Mach 0.3 */
static void check_uniform(pds_ctx ctx, pds_mesh3d m, const char *name, int nwall, const pds_int *wall_tags,
                          const double dir[3]) {
  pds_fv_params p;

  pds_fv_params_default(&p);
  p.mach = 0.3, p.dir[0] = dir[0], p.dir[1] = dir[1], p.dir[2] = dir[2], p.nwall = nwall, p.wall_tags = wall_tags;
  fv_test_uniform(ctx, m, &p, name);
}

/* order 1: a boundary face's state is its cell's (q: the states) */
static void cell_state(pds_int c, pds_int f, double QL[5], const void *q) {
  (void)f;
  for (int k = 0; k < 5; k++) QL[k] = ((const double *)q)[5 * c + k];
}

/* the bump of check_conservation, on a state of fv */
typedef struct {
  pds_mesh3d m;
  double     c[3];
} bump_data;

static pds_vec bump_make(pds_fv fv, const void *user) {
  const bump_data *B = user;
  pds_fv_info      in;
  pds_vec          Q;

  TEST_CALL(pds_fv_get_info(fv, &in));
  TEST_CALL(pds_fv_create_state(fv, &Q));
  bump_state(B->m, &in, B->c, 0.4, Q);
  return Q;
}

/* conservation of a residual r of the bump */
static void bump_conservation(pds_fv fv, const pds_fv_params *p, const pds_fv_info *in, pds_vec Q, const double *r,
                              const void *user) {
  const bump_data *B = user;
  double          *q = test_vec_values(Q);
  char             label[64];

  (void)fv;
  snprintf(label, sizeof label, "  summation %s", p->summation);
  fv_test_conservation(B->m, p, in, r, cell_state, q, label);
  free(q);
}

/* conservation, ref's bits and repeatability on m with a bump, walls on the tags given, every summation */
static void check_conservation(pds_ctx ctx, pds_ctx ref, pds_mesh3d m, const char *name, int nwall,
                               const pds_int *wall_tags) {
  pds_fv_params   p;
  const bump_data B = {m, {0.3, 0.2, 0.1}};

  pds_fv_params_default(&p);
  p.mach = 0.4, p.dir[1] = 0.3, p.nwall = nwall, p.wall_tags = wall_tags;
  fv_test_summations(ctx, ref, m, &p, bump_make, bump_conservation, &B, name);
}

int main(int argc, char **argv) {
  pds_ctx        ctx = test_init(argc, argv), ref;
  pds_mesh3d     box, tet = NULL, hy = NULL, hex = NULL;
  const pds_int  n[3] = {6, 4, 5}, xwall[1] = {1}, walls[2] = {3, 4};
  const pds_real lo[3] = {0, 0, 0}, hi[3] = {1.5, 1, 1.2};
  const double   d1[3] = {1, 0.5, 0.2}, dy[3] = {0, 1, 0.3};
  char           buf[4096];

  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  TEST_CALL(pds_mesh3d_generate_box(ctx, n, lo, hi, &box));
  check_uniform(ctx, box, "box 6 x 4 x 5 hexahedra", 0, NULL, d1);
  check_uniform(ctx, box, "the same, wall x = 0 along the flow", 1, xwall, dy);
  if (!test_shared_path("meshes/box_tet.msh", buf, sizeof buf)) TEST_FAIL("the shared meshes/box_tet.msh is missing");
  TEST_CALL(pds_mesh3d_read_gmsh(ctx, buf, &tet));
  check_uniform(ctx, tet, "box_tet.msh (tetrahedra)", 0, NULL, d1);
  if (!test_shared_path("meshes/hybrid_3d_cube.msh", buf, sizeof buf))
    TEST_FAIL("the shared meshes/hybrid_3d_cube.msh is missing");
  TEST_CALL(pds_mesh3d_read_gmsh(ctx, buf, &hy));
  check_uniform(ctx, hy, "hybrid_3d_cube.msh (tetrahedra, prisms)", 0, NULL, d1);
  TEST_CALL(pds_mesh3d_subdivide_hex(hy, &hex));
  check_uniform(ctx, hex, "hybrid_3d_cube.msh cut into hexahedra", 0, NULL, d1);
  check_conservation(ctx, ref, box, "box, walls y = 0 and y = 1", 2, walls);
  check_conservation(ctx, ref, tet, "box_tet.msh", 0, NULL);
  check_conservation(ctx, ref, hex, "hybrid cut into hexahedra", 0, NULL);
  { /* a bump carried out of the box by the free stream: the residual falls, the state stays physical */
    pds_fv_params p;
    pds_fv        fv;
    pds_fv_info   in;
    pds_vec       Q, R;
    double        r0 = 0, r = 0, *q;
    const double  c[3] = {0.5, 0.5, 0.6};

    pds_fv_params_default(&p);
    p.mach = 0.5;
    TEST_CALL(pds_fv_create(ctx, box, &p, &fv));
    TEST_CALL(pds_fv_get_info(fv, &in));
    TEST_ASSERT_NEAR(in.volume, 1.5 * 1.2, 1e-14, 0);
    TEST_CALL(pds_fv_create_state(fv, &Q));
    TEST_CALL(pds_vec_duplicate(Q, &R));
    bump_state(box, &in, c, 0.2, Q);
    for (int s = 0; s < 400; s++) TEST_CALL(pds_fv_step(fv, 0.8, Q, R, s ? &r : &r0));
    q = test_vec_values(Q);
    for (pds_int i = 0; i < in.ncells; i++) TEST_ASSERT(q[5 * i] > 0 && fv_pressure(p.gamma, q + 5 * i) > 0);
    printf("a density bump in Mach 0.5 flow on the box: ||R|| %.3e at step 0, %.3e at step 400\n", r0, r);
    TEST_ASSERT(r < 0.05 * r0);
    free(q), pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_fv_destroy(&fv);
  }
  { /* bad input */
    pds_fv_params p;
    pds_fv        fv = NULL;
    pds_vec       Q, R;

    pds_fv_params_default(&p);
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, NULL, &p, &fv), PDS_ERR_ARG, "mesh is NULL");
    p.gamma = 1.0;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "gamma");
    pds_fv_params_default(&p), p.mach = -1;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "Mach");
    pds_fv_params_default(&p), p.dir[0] = 0;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "direction");
    pds_fv_params_default(&p), p.efix = 2;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "entropy fix");
    pds_fv_params_default(&p), p.nwall = 2;
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "wall tags");
    pds_fv_params_default(&p), p.summation = "colour";
    TEST_ASSERT_ERR(ctx, pds_fv_create(ctx, box, &p, &fv), PDS_ERR_ARG, "summation 'colour'; one of stages, color");
    TEST_ASSERT(fv == NULL);
    TEST_CALL(pds_fv_create(ctx, box, NULL, &fv));
    TEST_CALL(pds_fv_create_state(fv, &Q));
    TEST_CALL(pds_vec_create(ctx, 7, &R));
    TEST_ASSERT_ERR(ctx, pds_fv_residual(fv, Q, R), PDS_ERR_SIZE, "5 a cell");
    TEST_ASSERT_ERR(ctx, pds_fv_residual(fv, Q, Q), PDS_ERR_ARG, "different");
    TEST_ASSERT_ERR(ctx, pds_fv_step(fv, -1, Q, Q, NULL), PDS_ERR_ARG, "CFL");
    pds_vec_destroy(&Q), pds_vec_destroy(&R), pds_fv_destroy(&fv);
  }
  pds_mesh3d_destroy(&box), pds_mesh3d_destroy(&tet), pds_mesh3d_destroy(&hy), pds_mesh3d_destroy(&hex);
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
