/* tests/disc/td05_convergence.c: the L2 error of P1 for the manufactured solution u = sin(pi x) cos(pi y) + x^2 y
 * falls at order 2: over refinements with h halved each time (4x the nodes), the observed order of every step,
 * -2 log(e_k+1 / e_k) / log(n_k+1 / n_k), and of the least-squares fit lie in [1.9, 2.1]. On generated meshes of the
 * square and of the hole domain (four refinements, three in the sanitizer build), and on Gmsh meshes of both (three
 * refinements; tests/disc/data/{square,hole}.geo, meshed at test time by the fixture td05_gmsh_meshes with
 * `gmsh -2 -clscale s`, s = 1 .. 1/8; gmsh must be installed: apt-get install -y gmsh). Symmetric Dirichlet, CG
 * with Jacobi to rtol 1e-12 (the algebraic error is far below the discretization error). PDS_TEST_VERBOSE=1
 * prints the table. */
#include <stdbool.h>

#include "test.h"

/* levels of refinement of the generated meshes: 5 (up to 256000 nodes); the sanitizer build (PDS_SANITIZE) leaves out
   the largest, whose Debug + ASan run took about 3 minutes of CI's 20 (tests/disc/CMakeLists.txt). The Gmsh meshes:
   PDS_TD05_GMSH_LEVELS (4 in every build, up to about 64000 nodes: Gmsh took three quarters of its fixture's 45-60 s
   on the fifth, and the generated meshes check the largest sizes) */
#ifndef PDS_TD05_LEVELS
#define PDS_TD05_LEVELS 5
#endif
#ifndef PDS_TD05_GMSH_LEVELS
#define PDS_TD05_GMSH_LEVELS 4
#endif
#define NLEVEL (PDS_TD05_LEVELS > PDS_TD05_GMSH_LEVELS ? PDS_TD05_LEVELS : PDS_TD05_GMSH_LEVELS)

static double l2_error(pds_ctx ctx, pds_mesh m) {
  pds_fem2d         fem;
  pds_mat           A;
  pds_vec           b, x;
  pds_solver        s;
  pds_precond       pc;
  pds_solver_result r;
  double            err;

  TEST_CALL(pds_fem2d_create(ctx, m, &fem));
  TEST_CALL(pds_fem2d_set_problem(fem, "manufactured"));
  TEST_CALL(pds_fem2d_assemble(fem, PDS_DIRICHLET_SYMMETRIC, &A, &b));
  TEST_CALL(pds_vec_duplicate(b, &x));
  TEST_CALL(pds_vec_set(x, 0.0));
  TEST_CALL(pds_solver_create(ctx, "cg", &s));
  TEST_CALL(pds_precond_create(ctx, "jacobi", &pc));
  TEST_CALL(pds_solver_set_precond(s, pc));
  TEST_CALL(pds_solver_set_operator(s, A));
  TEST_CALL(pds_solver_set_tolerances(s, 1e-12, 0, 100000));
  TEST_CALL(pds_solver_solve(s, b, x));
  TEST_CALL(pds_solver_get_result(s, &r));
  TEST_ASSERT(r.reason > 0);
  TEST_CALL(pds_fem2d_l2_error(fem, x, &err));
  TEST_CALL(pds_solver_destroy(&s));
  TEST_CALL(pds_precond_destroy(&pc));
  TEST_CALL(pds_vec_destroy(&x));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_fem2d_destroy(&fem));
  return err;
}

/* Orders of a refinement sequence: every step and the least-squares slope of log e against log n^(-1/2). */
static void check_orders(const char *what, int nlevel, const pds_int *n, const double *e) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, fit;
  bool   verbose = getenv("PDS_TEST_VERBOSE") != NULL;

  for (int k = 0; k < nlevel; k++) {
    double lx = -0.5 * log((double)n[k]), ly = log(e[k]);

    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  fit = (nlevel * sxy - sx * sy) / (nlevel * sxx - sx * sx);
  for (int k = 0; k < nlevel; k++) {
    double order = k ? -2.0 * log(e[k] / e[k - 1]) / log((double)n[k] / n[k - 1]) : 0;

    if (verbose && k) printf("%-16s nodes^-1/2 %.5f nodes %7d  L2 %.4e  order %.3f\n", what, 1.0 / sqrt((double)n[k]),
                             (int)n[k], e[k], order);
    else if (verbose)
      printf("%-16s nodes^-1/2 %.5f nodes %7d  L2 %.4e\n", what, 1.0 / sqrt((double)n[k]), (int)n[k], e[k]);
    if (k && !(order >= 1.9 && order <= 2.1))
      TEST_FAIL("%s: order %.3f between %d and %d nodes is outside [1.9, 2.1]", what, order, (int)n[k - 1], (int)n[k]);
  }
  if (verbose) printf("%-16s least-squares order %.3f\n", what, fit);
  if (!(fit >= 1.9 && fit <= 2.1)) TEST_FAIL("%s: fitted order %.3f is outside [1.9, 2.1]", what, fit);
}

int main(int argc, char **argv) {
  pds_ctx      ctx = test_init(argc, argv);
  const char  *doms[2] = {"square", "hole"};
  char         path[700], what[64];
  pds_int      n[NLEVEL], nt, nb;
  double       e[NLEVEL];

  /* generated meshes: 1000 .. 256000 nodes */
  for (int d = 0; d < 2; d++) {
    for (int k = 0; k < PDS_TD05_LEVELS; k++) {
      pds_mesh m;

      TEST_CALL(pds_mesh_generate(ctx, doms[d], 1000 << (2 * k), 1, &m));
      TEST_CALL(pds_mesh_get_sizes(m, &n[k], &nt, &nb));
      e[k] = l2_error(ctx, m);
      TEST_CALL(pds_mesh_destroy(&m));
    }
    snprintf(what, sizeof what, "generated %s", doms[d]);
    check_orders(what, PDS_TD05_LEVELS, n, e);
  }
  /* Gmsh meshes, made by the fixture test td05_gmsh_meshes (gmsh_meshes.cmake) */
  for (int d = 0; d < 2; d++) {
    for (int k = 0; k < PDS_TD05_GMSH_LEVELS; k++) {
      pds_mesh m;

      snprintf(path, sizeof path, "%s/%s_%d.msh", PDS_DISC_GMSH_DIR, doms[d], k);
      TEST_CALL(pds_mesh_read_gmsh(ctx, path, &m));
      TEST_CALL(pds_mesh_get_sizes(m, &n[k], &nt, &nb));
      e[k] = l2_error(ctx, m);
      TEST_CALL(pds_mesh_destroy(&m));
    }
    snprintf(what, sizeof what, "gmsh %s", doms[d]);
    check_orders(what, PDS_TD05_GMSH_LEVELS, n, e);
  }
  test_finalize(&ctx);
  return 0;
}
