/* tests/cuda/tc03_fem2d.c: P1 assembly on /gpu/cuda (src/backend/cuda/cuda_fem2d.cu): A and b bitwise equal to
 * /cpu/ref's for a variable conductivity and source (the callbacks' values are uploaded) in both Dirichlet modes,
 * also with lane counts that split rows (a node of 60 triangles); the values stay on the device (one small
 * device-to-host copy per assembly: the bad-triangle flag; the host copy of the matrix is made only when asked
 * for); the maps are uploaded once (t_upload); the device-assembled system solves as ref's does; an allocation
 * that fails anywhere in a device assembly is PDS_ERR_MEM, leaves no device memory behind, and the object
 * recovers. */
#include <math.h>

#include "test.h"
#include "backend/cuda/cuda_common.h" /* pds_cuda_counters */

static pds_real k_var(void *u, pds_real x, pds_real y) {
  (void)u;
  return 1.0 + x * x + 0.5 * sin(3.0 * y);
}
static pds_real f_var(void *u, pds_real x, pds_real y) {
  (void)u;
  return exp(x) * cos(y);
}
static pds_real g_var(void *u, pds_real x, pds_real y) {
  (void)u;
  return x - 2.0 * y;
}

/* A and b of fem on its context, host copies (vals, b malloc'ed) */
static void system_of(pds_fem2d fem, pds_dirichlet_mode dm, pds_real **v, pds_real **b, pds_size *nnz, pds_int *n) {
  pds_mat         A;
  pds_vec         bv;
  const pds_real *av;

  TEST_CALL(pds_fem2d_assemble(fem, dm, &A, &bv));
  TEST_CALL(pds_mat_get_nnz(A, nnz));
  TEST_CALL(pds_mat_get_size(A, n, NULL));
  TEST_CALL(pds_mat_csr_get_arrays(A, NULL, NULL, &av));
  *v = malloc(sizeof(pds_real) * (size_t)*nnz), *b = malloc(sizeof(pds_real) * (size_t)*n);
  memcpy(*v, av, sizeof(pds_real) * (size_t)*nnz);
  TEST_CALL(pds_vec_get_values(bv, *b, PDS_MEM_HOST));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&bv));
}

int main(int argc, char **argv) {
  pds_ctx           ctx = test_init(argc, argv), ref;
  pds_fem2d_problem pv = {0};
  pds_mesh          meshes[2];

  TEST_ASSERT(!strcmp(pds_ctx_get_backend(ctx), "/gpu/cuda"));
  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  pv.kfn = k_var, pv.ffn = f_var, pv.gfn = g_var;
  TEST_CALL(pds_mesh_generate(ref, "hole", 20000, 3, &meshes[0]));
  meshes[1] = test_mesh_fan(ref, 60);
  for (int mi = 0; mi < 2; mi++)
    for (int pb = 0; pb < 3; pb++)
      for (int mode = 0; mode < 2; mode++) {
        pds_dirichlet_mode dm = (pds_dirichlet_mode)mode;
        pds_fem2d          fg, fr;
        pds_real          *vg, *bg, *vr, *br, *vg2, *bg2;
        pds_size           zg, zr;
        pds_int            ng, nr;
        pds_fem2d_info     in;

        TEST_CALL(pds_fem2d_create(ctx, meshes[mi], &fg));
        TEST_CALL(pds_fem2d_create(ref, meshes[mi], &fr));
        if (pb == 2) {
          TEST_CALL(pds_fem2d_set_problem_user(fg, &pv));
          TEST_CALL(pds_fem2d_set_problem_user(fr, &pv));
        } else {
          TEST_CALL(pds_fem2d_set_problem(fg, pb ? "manufactured" : "paper"));
          TEST_CALL(pds_fem2d_set_problem(fr, pb ? "manufactured" : "paper"));
        }
        system_of(fg, dm, &vg, &bg, &zg, &ng);
        TEST_CALL(pds_fem2d_get_info(fg, &in));
        TEST_ASSERT(in.t_upload > 0.0 && in.t_upload <= in.t_assemble);
        system_of(fg, dm, &vg2, &bg2, &zg, &ng);
        system_of(fr, dm, &vr, &br, &zr, &nr);
        TEST_ASSERT(zg == zr && ng == nr);
        if (memcmp(vg, vr, sizeof(pds_real) * (size_t)zr) || memcmp(bg, br, sizeof(pds_real) * (size_t)nr))
          TEST_FAIL("mesh %d problem %d mode %d: the cuda assembly differs from ref's", mi, pb, mode);
        if (memcmp(vg, vg2, sizeof(pds_real) * (size_t)zr) || memcmp(bg, bg2, sizeof(pds_real) * (size_t)nr))
          TEST_FAIL("mesh %d problem %d mode %d: two cuda assemblies differ", mi, pb, mode);
        free(vg), free(bg), free(vr), free(br), free(vg2), free(bg2);
        TEST_CALL(pds_fem2d_destroy(&fg));
        TEST_CALL(pds_fem2d_destroy(&fr));
      }

  /* residency: one small device-to-host copy per assembly; the matrix's host copy only when asked for; the
     device-assembled system solves like ref's */
  {
    pds_fem2d         fg, fr;
    pds_mat           A, Ar;
    pds_vec           b, br, x, xr;
    pds_solver        s, sr;
    pds_solver_result r, rr;
    long long         d0, d1;
    size_t            m0;
    pds_int           n;
    pds_real         *xh, *xrh, dmax = 0.0, err, errr;

    TEST_CALL(pds_fem2d_create(ctx, meshes[0], &fg));
    TEST_CALL(pds_fem2d_create(ref, meshes[0], &fr));
    TEST_CALL(pds_fem2d_set_problem(fg, "manufactured"));
    TEST_CALL(pds_fem2d_set_problem(fr, "manufactured"));
    TEST_CALL(pds_cuda_counters(ctx, &d0, &m0, NULL));
    TEST_CALL(pds_fem2d_assemble(fg, PDS_DIRICHLET_SYMMETRIC, &A, &b));
    TEST_CALL(pds_cuda_counters(ctx, &d1, &m0, NULL));
    if (d1 - d0 != 1) TEST_FAIL("assembly made %lld device-to-host copies, expected 1 (the bad-triangle flag)", d1 - d0);
    TEST_CALL(pds_fem2d_assemble(fr, PDS_DIRICHLET_SYMMETRIC, &Ar, &br));
    TEST_CALL(pds_mat_get_size(A, &n, NULL));
    TEST_CALL(pds_vec_create(ctx, n, &x));
    TEST_CALL(pds_vec_create(ref, n, &xr));
    TEST_CALL(pds_vec_set(x, 0.0));
    TEST_CALL(pds_vec_set(xr, 0.0));
    TEST_CALL(pds_solver_create(ctx, "cg", &s));
    TEST_CALL(pds_solver_create(ref, "cg", &sr));
    TEST_CALL(pds_solver_set_operator(s, A));
    TEST_CALL(pds_solver_set_operator(sr, Ar));
    TEST_CALL(pds_solver_set_tolerances(s, 1e-12, 0.0, 5000));
    TEST_CALL(pds_solver_set_tolerances(sr, 1e-12, 0.0, 5000));
    TEST_CALL(pds_solver_solve(s, b, x));
    TEST_CALL(pds_solver_solve(sr, br, xr));
    TEST_CALL(pds_solver_get_result(s, &r));
    TEST_CALL(pds_solver_get_result(sr, &rr));
    TEST_ASSERT(r.reason > 0 && rr.reason > 0);
    TEST_ASSERT(abs(r.iterations - rr.iterations) <= 3);
    xh = malloc(sizeof(pds_real) * (size_t)n), xrh = malloc(sizeof(pds_real) * (size_t)n);
    TEST_CALL(pds_vec_get_values(x, xh, PDS_MEM_HOST));
    TEST_CALL(pds_vec_get_values(xr, xrh, PDS_MEM_HOST));
    for (pds_int i = 0; i < n; i++) dmax = fmax(dmax, fabs(xh[i] - xrh[i]));
    TEST_ASSERT(dmax < 1e-9);
    TEST_CALL(pds_fem2d_l2_error(fg, x, &err));
    TEST_CALL(pds_fem2d_l2_error(fr, xr, &errr));
    TEST_ASSERT_NEAR(err, errr, 1e-6, 0.0);
    TEST_ASSERT(err < 1e-3);
    free(xh), free(xrh);
    TEST_CALL(pds_solver_destroy(&s));
    TEST_CALL(pds_solver_destroy(&sr));
    TEST_CALL(pds_vec_destroy(&x));
    TEST_CALL(pds_vec_destroy(&xr));
    TEST_CALL(pds_mat_destroy(&A));
    TEST_CALL(pds_mat_destroy(&Ar));
    TEST_CALL(pds_vec_destroy(&b));
    TEST_CALL(pds_vec_destroy(&br));
    TEST_CALL(pds_fem2d_destroy(&fg));
    TEST_CALL(pds_fem2d_destroy(&fr));
  }
  /* allocation failures in the device assembly (the maps' upload, the uploads of each call, the element workspace,
     the matrix and b): each is PDS_ERR_MEM, the next call starts over, and no device memory stays allocated */
  {
    size_t used0, used1;
    long   k;

    TEST_CALL(pds_cuda_counters(ctx, NULL, NULL, &used0));
    for (k = 0; k < 1000; k++) {
      pds_fem2d fg;
      pds_mat   A = NULL;
      pds_vec   b = NULL;
      int       ierr;

      TEST_CALL(pds_fem2d_create(ctx, meshes[0], &fg));
      TEST_CALL(pds_fem2d_set_problem(fg, k % 2 ? "manufactured" : "paper"));
      pds_ctx_set_alloc_fail(ctx, k);
      ierr = pds_fem2d_assemble(fg, PDS_DIRICHLET_SYMMETRIC, &A, &b);
      pds_ctx_set_alloc_fail(ctx, -1);
      if (ierr == PDS_OK) {
        /* a failed first attempt leaves nothing half-uploaded: assemble again on the same object */
        TEST_CALL(pds_mat_destroy(&A));
        TEST_CALL(pds_vec_destroy(&b));
        TEST_CALL(pds_fem2d_destroy(&fg));
        break;
      }
      if (ierr != PDS_ERR_MEM) TEST_FAIL("allocation failure %ld gave %s", k, pds_error_name(ierr));
      TEST_ASSERT(A == NULL && b == NULL);
      pds_ctx_clear_error(ctx);
      TEST_CALL(pds_fem2d_assemble(fg, PDS_DIRICHLET_SYMMETRIC, &A, &b)); /* the same object recovers */
      TEST_CALL(pds_mat_destroy(&A));
      TEST_CALL(pds_vec_destroy(&b));
      TEST_CALL(pds_fem2d_destroy(&fg));
      TEST_CALL(pds_cuda_counters(ctx, NULL, NULL, &used1));
      if (used1 != used0) TEST_FAIL("allocation failure %ld: %zu device bytes in use, %zu before", k, used1, used0);
    }
    TEST_ASSERT(k > 5 && k < 1000);
  }
  TEST_CALL(pds_mesh_destroy(&meshes[0]));
  TEST_CALL(pds_mesh_destroy(&meshes[1]));
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
