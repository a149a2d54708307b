/* tests/disc/td03_dirichlet.c: the two Dirichlet forms. Symmetric: A is exactly symmetric (a_ij and a_ji the
 * same bits), Dirichlet rows and columns are e_i, and CG converges (SPD); row (paper 004's): BiCGSTAB converges to
 * the same solution within 1e-10. On the square and the hole, for both built-in problems. */
#include "test.h"

static void solve(pds_ctx ctx, pds_mat A, pds_vec b, const char *method, pds_vec x) {
  pds_solver        s;
  pds_precond       pc;
  pds_solver_result r;

  TEST_CALL(pds_solver_create(ctx, method, &s));
  TEST_CALL(pds_precond_create(ctx, "jacobi", &pc));
  TEST_CALL(pds_solver_set_precond(s, pc));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-14, 0, 20000));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  if (r.reason <= 0)
    TEST_FAIL("%s did not converge: %s after %d iterations", method, pds_reason_name(r.reason), r.iterations);
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_precond_destroy(&pc));
}

int main(int argc, char **argv) {
  pds_ctx     ctx = test_init(argc, argv);
  const char *probs[2] = {"paper", "manufactured"};

  for (int dom = 0; dom < 2; dom++)
    for (int pb = 0; pb < 2; pb++) {
      pds_mesh        m;
      pds_fem2d       fem;
      pds_mat         As, Ar;
      pds_vec         bs, br, xs, xr;
      pds_int         n, nt, nb;
      const pds_size *rp;
      const pds_int  *ci, *mk, *tri, *be, *bt;
      const pds_real *v, *xy;
      pds_real       *hs, *hr, xmax = 0, dmax = 0;

      if (dom == 1 && pb == 0) continue; /* the paper's problem is posed on the square */
      TEST_CALL(pds_mesh_generate(ctx, dom ? "hole" : "square", 4000, 3, &m));
      TEST_CALL(pds_mesh_get_sizes(m, &n, &nt, &nb));
      TEST_CALL(pds_mesh_get_arrays(m, &xy, &tri, &be, &bt, &mk));
      TEST_CALL(pds_fem2d_create(ctx, m, &fem));
      TEST_CALL(pds_fem2d_set_problem(fem, probs[pb]));
      TEST_CALL(pds_fem2d_assemble(fem, PDS_DIRICHLET_SYMMETRIC, &As, &bs));
      TEST_CALL(pds_fem2d_assemble(fem, PDS_DIRICHLET_ROW, &Ar, &br));
      /* exact symmetry; Dirichlet rows and columns are unit vectors */
      TEST_CALL(pds_mat_csr_get_arrays(As, &rp, &ci, &v));
      for (pds_int i = 0; i < n; i++)
        for (pds_size p = rp[i]; p < rp[i + 1]; p++) {
          pds_int  j = ci[p];
          pds_size q = rp[j];

          while (q < rp[j + 1] && ci[q] != i) q++;
          TEST_ASSERT(q < rp[j + 1] && !memcmp(&v[p], &v[q], sizeof(pds_real)));
          if (mk[i] > 0 || mk[j] > 0) TEST_ASSERT(v[p] == (i == j ? 1.0 : 0.0));
          if (i == j) TEST_ASSERT(v[p] > 0);
        }
      TEST_CALL(pds_vec_duplicate(bs, &xs));
      TEST_CALL(pds_vec_duplicate(br, &xr));
      solve(ctx, As, bs, "cg", xs);
      solve(ctx, Ar, br, "bicgstab", xr);
      hs = malloc(sizeof(pds_real) * (size_t)n), hr = malloc(sizeof(pds_real) * (size_t)n);
      TEST_CALL(pds_vec_get_values(xs, hs, PDS_MEM_HOST));
      TEST_CALL(pds_vec_get_values(xr, hr, PDS_MEM_HOST));
      for (pds_int i = 0; i < n; i++) xmax = fmax(xmax, fabs(hs[i])), dmax = fmax(dmax, fabs(hs[i] - hr[i]));
      if (!(dmax <= 1e-10 * xmax))
        TEST_FAIL("%s on %s: symmetric (cg) and row (bicgstab) solutions differ by %.3g (max |x| %.3g)", probs[pb],
                  dom ? "hole" : "square", dmax, xmax);
      free(hs), free(hr);
      TEST_CALL(pds_vec_destroy(&xs));
      TEST_CALL(pds_vec_destroy(&xr));
      TEST_CALL(pds_vec_destroy(&bs));
      TEST_CALL(pds_vec_destroy(&br));
      TEST_CALL(pds_mat_destroy(&As));
      TEST_CALL(pds_mat_destroy(&Ar));
      TEST_CALL(pds_fem2d_destroy(&fem));
      TEST_CALL(pds_mesh_destroy(&m));
    }
  test_finalize(&ctx);
  return 0;
}
