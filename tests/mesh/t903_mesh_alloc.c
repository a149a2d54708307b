/* tests/mesh/t903_mesh_alloc.c: allocation-failure sweeps (CSparse-style) over the mesh layer: the k-th allocation
 * of pds_mesh_generate (both domains), pds_mesh_read_gmsh (MSH 2.2 and 4.1, ASCII and binary), create_tri and RCM
 * fails for k = 0, 1, ...: every call returns PDS_ERR_MEM, leaves no mesh and releases what it made (the sanitizer
 * build checks for leaks), until the call succeeds. */
#include "test.h"

typedef int (*mesh_op)(pds_ctx ctx, const void *arg, pds_mesh *m);

static int op_generate(pds_ctx ctx, const void *arg, pds_mesh *m) { return pds_mesh_generate(ctx, arg, 452, 3, m); }
static int op_read(pds_ctx ctx, const void *arg, pds_mesh *m) { return pds_mesh_read_gmsh(ctx, arg, m); }

static int op_create_rcm(pds_ctx ctx, const void *arg, pds_mesh *m) {
  const pds_real xy[]  = {0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5};
  const pds_int  tri[] = {0, 1, 4, 1, 4, 2, 2, 3, 4, 3, 0, 4}, be[] = {0, 1, 1, 2}, tags[] = {1, 2};
  int            ierr  = pds_mesh_create_tri(ctx, 5, xy, 4, tri, 2, be, tags, m);

  (void)arg;
  if (!ierr && (ierr = pds_mesh_reorder_rcm(*m))) pds_mesh_destroy(m);
  return ierr;
}

TEST_DEFINE_ALLOC_SWEEP(sweep, pds_mesh, pds_mesh_destroy)

int main(int argc, char **argv) {
  pds_ctx     ctx = test_init(argc, argv);
  char        buf[512];
  const char *gm[] = {"square_msh22_ascii.msh", "square_msh22_bin.msh", "square_msh41_ascii.msh",
                      "square_msh41_bin.msh"};

  sweep(ctx, "generate square", op_generate, "square");
  sweep(ctx, "generate hole", op_generate, "hole");
  sweep(ctx, "create_tri + rcm", op_create_rcm, NULL);
  for (int k = 0; k < 4; k++) {
    snprintf(buf, sizeof buf, "%s/%s", PDS_GMSH_DIR, gm[k]);
    sweep(ctx, gm[k], op_read, buf);
  }
  if (test_shared_path("meshes/backward_facing_step_tri.msh", buf, sizeof buf))
    sweep(ctx, "backward_facing_step_tri.msh", op_read, buf);
  test_finalize(&ctx);
  return 0;
}
