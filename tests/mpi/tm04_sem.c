/* tests/mpi/tm04_sem.c: the spectral-element operator over the ranks ("mpisem", pds_problem_sem_dist and
 * pds_problem_sem_mesh_dist) against the serial sem problem of the same space, run by ctest under mpirun -np 1, 2 and
 * 3 (argv[1]: the backend). Rows are renumbered rank after rank; pds_mat_sem_dist_get_points maps them back.
 *   - b, u_exact, the product and the diagonal are the serial ones' values at the same points, bit for bit (every
 *     point's sum runs over the same elements in the same order), on a box (affine and deformed) and on an
 *     unstructured hexahedral mesh (lower orders in the sanitizer build);
 *   - CG with semjacobi takes the serial iteration count (one more or less on more ranks: the dot products are summed
 *     in rank order) and converges to the serial solution; bjacobi with -sub_pc semjacobi is the same iteration, bit for
 *     bit; a second solve gives the same bits;
 *   - two elements on three ranks leave a rank without points, and the solve still converges;
 *   - the mesh's elements cut by METIS: the same bits, a smaller halo than contiguous ranges;
 *   - ranks passing different spaces or partitioners, an unknown partitioner, and asm (which needs rows): every rank
 *     returns an error. */
#include <mpi.h>

#include "pdesolve_mpi.h"
#include "test.h"
#include "mpi_test.h"

/* the largest |xd_i - xs_pts[i]| over all ranks (0: the same values everywhere) */
static double maxdiff_pts(pds_vec xd, pds_vec xs, const pds_int *pts) {
  const pds_real *a, *b;
  pds_size        n;
  double          m = 0;

  TEST_CALL(pds_vec_get_size(xd, &n));
  TEST_CALL(pds_vec_get_array_read(xd, PDS_MEM_HOST, &a));
  TEST_CALL(pds_vec_get_array_read(xs, PDS_MEM_HOST, &b));
  for (pds_size i = 0; i < n; i++)
    if (a[i] != b[pts[i]]) m = fmax(m, isnan(a[i]) || isnan(b[pts[i]]) ? HUGE_VAL : fabs(a[i] - b[pts[i]]));
  TEST_CALL(pds_vec_restore_array_read(xd, &a));
  TEST_CALL(pds_vec_restore_array_read(xs, &b));
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/* pd (distributed) against ps (serial) of the same space */
/* the ghosts of all ranks: the values a product's exchange moves */
static double halo_volume(pds_mat A) {
  pds_int n;
  double  v;

  TEST_CALL(pds_mat_dist_get_ghost_count(A, &n));
  v = n;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

static void check(pds_ctx ctx, pds_ctx serial, pds_problem *pd, pds_problem *ps, const char *what) {
  pds_vec  x, y, xs, ys, x2, xb;
  pds_int  nl, *pts, N;
  pds_real scale;
  int      its, itss;

  TEST_ASSERT(!strcmp(pds_mat_get_type(pd->A), "mpisem") && pds_mat_is_distributed(pd->A));
  TEST_CALL(pds_mat_get_size(pd->A, &nl, NULL));
  TEST_CALL(pds_mat_get_global_size(pd->A, &N));
  {
    pds_int ns;

    TEST_CALL(pds_mat_get_size(ps->A, &ns, NULL));
    TEST_ASSERT(N == ns);
  }
  pts = malloc(((size_t)nl + 1) * sizeof *pts);
  TEST_CALL(pds_mat_sem_dist_get_points(pd->A, pts));
  for (pds_int i = 1; i < nl; i++) TEST_ASSERT(pts[i] > pts[i - 1] && pts[i] < N);
  TEST_ASSERT(maxdiff_pts(pd->b, ps->b, pts) == 0 && maxdiff_pts(pd->u_exact, ps->u_exact, pts) == 0);
  /* the product and the diagonal, bit for bit: x the serial random vector at the rank's points */
  TEST_CALL(pds_mat_create_vecs(pd->A, &x, &y));
  TEST_CALL(pds_mat_create_vecs(ps->A, &xs, &ys));
  TEST_CALL(pds_vec_set_random(xs, 7));
  {
    const pds_real *a;
    pds_real       *v = malloc(((size_t)nl + 1) * sizeof *v);

    TEST_CALL(pds_vec_get_array_read(xs, PDS_MEM_HOST, &a));
    for (pds_int i = 0; i < nl; i++) v[i] = a[pts[i]];
    TEST_CALL(pds_vec_restore_array_read(xs, &a));
    TEST_CALL(pds_vec_set_values(x, v, PDS_MEM_HOST));
    free(v);
  }
  TEST_CALL(pds_mat_apply(pd->A, x, y));
  TEST_CALL(pds_mat_apply(ps->A, xs, ys));
  TEST_ASSERT(maxdiff_pts(y, ys, pts) == 0);
  TEST_CALL(pds_mat_apply_add(pd->A, 2.0, x, -1.0, y)); /* alpha A x + beta y: A x again */
  TEST_CALL(pds_vec_axpby(ys, 2.0, ys, -1.0));
  TEST_ASSERT(maxdiff_pts(y, ys, pts) == 0);
  TEST_CALL(pds_mat_get_diagonal(pd->A, y));
  TEST_CALL(pds_mat_get_diagonal(ps->A, ys));
  TEST_ASSERT(maxdiff_pts(y, ys, pts) == 0);
  pds_vec_destroy(&x), pds_vec_destroy(&y), pds_vec_destroy(&xs), pds_vec_destroy(&ys);
  /* CG + semjacobi; bjacobi(semjacobi) the same bits; twice the same bits */
  its  = cg_solve(ctx, pd, "semjacobi", NULL, 2000, &x);
  itss = cg_solve(serial, ps, "semjacobi", NULL, 2000, &xs);
  if (rank_ == 0)
    printf("%s: %lld points, cg + semjacobi %d iterations on %d rank%s, %d serial\n", what, (long long)N, its, size_,
           size_ > 1 ? "s" : "", itss);
  TEST_ASSERT(size_ == 1 ? its == itss : abs(its - itss) <= 1);
  TEST_CALL(pds_vec_norm_inf(xs, &scale));
  TEST_ASSERT(maxdiff_pts(x, xs, pts) <= 1e-8 * scale);
  TEST_ASSERT(cg_solve(ctx, pd, "semjacobi", NULL, 2000, &x2) == its && same_bits(x, x2));
  TEST_ASSERT(cg_solve(ctx, pd, "bjacobi", "semjacobi", 2000, &xb) == its && same_bits(x, xb));
  pds_vec_destroy(&x), pds_vec_destroy(&xs), pds_vec_destroy(&x2), pds_vec_destroy(&xb);
  TEST_ASSERT(cg_solve(ctx, pd, "jacobi", NULL, 2000, &x) == its); /* the same diagonal, divided: the same iterations */
  pds_vec_destroy(&x);
  free(pts);
}

/* the orders: lower in the sanitizer build (tests/mpi/CMakeLists.txt), where every iteration costs tens of times more */
#ifdef PDS_MPI_TEST_SMALL
enum { ORDER_BOX = 3, ORDER_DEFORMED = 2, ORDER_MESH = 1 };
#else
enum { ORDER_BOX = 5, ORDER_DEFORMED = 3, ORDER_MESH = 2 };
#endif

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : "/cpu/ref";
  pds_ctx     ctx, serial;
  pds_problem pd, ps;

  mpi_test_begin(&argc, &argv, backend, &ctx, &serial);
  {
    static const pds_int el[3] = {4, 3, 2};

    TEST_CALL(pds_problem_sem_dist(ctx, el, ORDER_BOX, 0.0, NULL, &pd)); /* affine */
    TEST_CALL(pds_problem_sem(serial, el, ORDER_BOX, 0.0, &ps));
    check(ctx, serial, &pd, &ps, "sem 4x3x2, affine");
    pds_problem_destroy(&pd), pds_problem_destroy(&ps);
    TEST_CALL(pds_problem_sem_dist(ctx, el, ORDER_DEFORMED, 0.15, "contiguous", &pd)); /* deformed: G at every point */
    TEST_CALL(pds_problem_sem(serial, el, ORDER_DEFORMED, 0.15, &ps));
    check(ctx, serial, &pd, &ps, "sem 4x3x2, deformed");
    pds_problem_destroy(&pd), pds_problem_destroy(&ps);
  }
  { /* an unstructured hexahedral mesh: the shared hybrid mesh (argv[3], else the shared folder's) cut into hexahedra */
    pds_mesh3d m, h;
    char       buf[4096];
    double     ghosts_c, ghosts_m;

    if (argc > 3) snprintf(buf, sizeof buf, "%s", argv[3]);
    else if (!test_shared_path("meshes/hybrid_3d_cube.msh", buf, sizeof buf))
      TEST_FAIL("the shared mesh meshes/hybrid_3d_cube.msh is missing (PDS_SHARED_DIR)");
    TEST_CALL(pds_mesh3d_read_gmsh(serial, buf, &m));
    TEST_CALL(pds_mesh3d_subdivide_hex(m, &h));
    TEST_CALL(pds_problem_sem_mesh_dist(ctx, h, ORDER_MESH, NULL, &pd));
    TEST_CALL(pds_problem_sem_mesh(serial, h, ORDER_MESH, &ps));
    check(ctx, serial, &pd, &ps, "sem on the hybrid mesh cut into hexahedra");
    ghosts_c = halo_volume(pd.A);
    pds_problem_destroy(&pd);
#if PDS_HAVE_METIS /* the elements cut by METIS: the same bits, a smaller halo than contiguous ranges */
    TEST_CALL(pds_problem_sem_mesh_dist(ctx, h, ORDER_MESH, "metis", &pd));
    check(ctx, serial, &pd, &ps, "the same, the elements cut by METIS");
    ghosts_m = halo_volume(pd.A);
    if (rank_ == 0) printf("halo: %.0f values a product with contiguous element ranges, %.0f with METIS\n", ghosts_c, ghosts_m);
    TEST_ASSERT(size_ == 1 ? ghosts_m == 0 : ghosts_m < ghosts_c);
    pds_problem_destroy(&pd);
#else /* a build without METIS: one rank needs no cut and takes the partitioner (as the csr path does, tm01); more
          ranks fail on every rank, rank 0 (which would cut) saying why, the others that it failed */
    (void)ghosts_c, (void)ghosts_m;
    if (size_ == 1) {
      TEST_CALL(pds_problem_sem_mesh_dist(ctx, h, ORDER_MESH, "metis", &pd));
      pds_problem_destroy(&pd);
    } else
      TEST_ASSERT_ERR(ctx, pds_problem_sem_mesh_dist(ctx, h, ORDER_MESH, "metis", &pd), PDS_ERR_UNSUPPORTED,
                      rank_ == 0 ? "METIS" : "failed");
#endif
    if (size_ > 1)
      expect_all_fail(pds_problem_sem_mesh_dist(ctx, h, ORDER_MESH, rank_ == 1 ? "metis" : "contiguous", &pd),
                      "different partitioners");
    expect_all_fail(pds_problem_sem_mesh_dist(ctx, h, ORDER_MESH, "scotch", &pd), "an unknown partitioner");
    pds_problem_destroy(&ps);
    pds_mesh3d_destroy(&h), pds_mesh3d_destroy(&m);
  }
  { /* two elements: on three ranks one rank has no points */
    static const pds_int el[3] = {2, 1, 1};
    pds_int              nl;
    pds_vec              x, xs;
    pds_real             scale;

    TEST_CALL(pds_problem_sem_dist(ctx, el, 4, 0.0, NULL, &pd));
    TEST_CALL(pds_problem_sem(serial, el, 4, 0.0, &ps));
    TEST_CALL(pds_mat_get_size(pd.A, &nl, NULL));
    if (size_ == 3 && rank_ == 0) TEST_ASSERT(nl == 0);
    cg_solve(ctx, &pd, "semjacobi", NULL, 2000, &x);
    cg_solve(serial, &ps, "semjacobi", NULL, 2000, &xs);
    TEST_CALL(pds_vec_norm_inf(xs, &scale));
    {
      pds_int *pts = malloc(((size_t)nl + 1) * sizeof *pts);

      TEST_CALL(pds_mat_sem_dist_get_points(pd.A, pts));
      TEST_ASSERT(maxdiff_pts(x, xs, pts) <= 1e-8 * scale);
      free(pts);
    }
    pds_vec_destroy(&x), pds_vec_destroy(&xs);
    pds_problem_destroy(&ps);
    /* asm needs rows: every rank refuses */
    {
      pds_solver  s;
      pds_precond P;
      pds_vec     y;

      TEST_CALL(pds_mat_create_vecs(pd.A, &y, NULL));
      TEST_CALL(pds_vec_set(y, 0.0));
      TEST_CALL(pds_solver_create(ctx, "cg", &s));
      TEST_CALL(pds_precond_create(ctx, "asm", &P));
      TEST_CALL(pds_solver_set_operator(s, pd.A));
      TEST_CALL(pds_solver_set_precond(s, P));
      expect_all_fail(pds_solver_solve(s, pd.b, y), "asm on mpisem");
      pds_solver_destroy(&s), pds_precond_destroy(&P), pds_vec_destroy(&y);
    }
    pds_problem_destroy(&pd);
  }
  if (size_ > 1) { /* rank 1 passes another space: every rank fails */
    static const pds_int el[3] = {2, 2, 2};
    pds_sem              S;
    pds_mat              A = NULL;

    TEST_CALL(pds_sem_create_box(ctx, el, rank_ == 1 ? 3 : 2, 0.0, &S));
    expect_all_fail(pds_mat_create_sem_dist(S, NULL, &A), "different spaces");
    TEST_ASSERT(A == NULL);
    pds_sem_destroy(&S);
  }
  mpi_test_end(&ctx, &serial, "tm04_sem");
  return 0;
}
