/* tests/disc/td11_sem_space.c: the spectral-element space on a box (src/disc/sem.c), host side: the counts; the
 * gather-scatter (every global point's local points share its coordinates; interior, face, edge and corner points
 * have 1, 2, 4 and 8 of them); the volume (sum of the mass) is 1, affine and deformed (the map keeps the cube); the
 * integral of x y z e^(x+y+z) by the mass converges spectrally; affine G is diagonal (to round-off) with the closed form
 * w_i w_j w_k (hy hz / hx, ...) / 2 and is exactly (w_i w_j) w_k K_e with the space's K (affine elements); deformed G is symmetric positive definite with nonzero off-diagonals; bad input
 * (order out of range, no elements, an inverted element, NULL handles) gives clear errors; the VTK output has the
 * global points, (order)^3 hexahedra a element whose corners are the element's GLL points, and the fields. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <unistd.h>

#include "disc/sem_impl.h"
#include "test.h"

static double integral_xyz(pds_sem S) { /* sum B f at the local points: f = x y z exp(x + y + z) */
  double s = 0;

  for (pds_size l = 0; l < S->nloc; l++) {
    const double *X = S->xyz + 3 * l;

    s += S->B[l] * X[0] * X[1] * X[2] * exp(X[0] + X[1] + X[2]);
  }
  return s;
}

int main(int argc, char **argv) {
  pds_ctx      ctx = test_init(argc, argv);
  const double exact = 1.0; /* (int_0^1 x e^x dx)^3 = 1 */
  pds_sem      S;
  pds_sem_info info;

  for (int deformed = 0; deformed < 2; deformed++) {
    const pds_int el[3] = {3, 2, 4};
    const int     order = 5, n = 6, p = 5;

    TEST_CALL(pds_sem_create_box(ctx, el, order, deformed ? 0.08 : 0.0, &S));
    TEST_CALL(pds_sem_get_info(S, &info));
    TEST_ASSERT(info.n == n && info.order == order && info.nelem == 24 && info.nlocal == (pds_size)24 * 216);
    TEST_ASSERT(info.affine == !deformed && (S->K != NULL) == !deformed);
    TEST_ASSERT(info.nglobal == (3 * p + 1) * (2 * p + 1) * (4 * p + 1));
    TEST_ASSERT(info.nmasked == info.nglobal - (3 * p - 1) * (2 * p - 1) * (4 * p - 1));
    { /* gather-scatter */
      double *xyz = malloc(3 * sizeof *xyz * (size_t)info.nglobal);
      int     hist[9] = {0};

      TEST_ASSERT(xyz);
      TEST_CALL(pds_sem_get_coordinates(S, xyz));
      for (pds_int g = 0; g < S->nglob; g++) {
        const pds_int c = S->gsptr[g + 1] - S->gsptr[g];

        TEST_ASSERT(c == 1 || c == 2 || c == 4 || c == 8);
        hist[c]++;
        for (pds_int q = S->gsptr[g]; q < S->gsptr[g + 1]; q++) {
          const pds_int l = S->gsidx[q];

          TEST_ASSERT(S->gid[l] == g && (q == S->gsptr[g] || l > S->gsidx[q - 1]));
          for (int d = 0; d < 3; d++) TEST_ASSERT_NEAR(S->xyz[3 * (size_t)l + d], xyz[3 * (size_t)g + d], 0, 1e-15);
        }
      }
      /* points shared by 8 elements: the interior element corners, (3-1)(2-1)(4-1) */
      TEST_ASSERT(hist[8] == 2 * 1 * 3);
      free(xyz);
    }
    { /* volume, G */
      double vol = 0, offmax = 0;

      for (pds_size l = 0; l < S->nloc; l++) vol += S->B[l];
      TEST_ASSERT_NEAR(vol, 1.0, 0, deformed ? 1e-6 : 1e-13);
      for (pds_int e = 0; e < S->E; e++)
        for (int k = 0, l = 0; k < n; k++)
          for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++, l++) {
              const double *G = S->G + (size_t)6 * n * n * n * e + l;
              const size_t  s = (size_t)n * n * n;
              const double  g11 = G[0], g12 = G[s], g13 = G[2 * s], g22 = G[3 * s], g23 = G[4 * s], g33 = G[5 * s];
              const double  wq = S->w[i] * S->w[j] * S->w[k];

              if (!deformed) { /* hx = 1/3, hy = 1/2, hz = 1/4 */
                const double hx = 1.0 / 3, hy = 0.5, hz = 0.25;

                TEST_ASSERT(fabs(g12) + fabs(g13) + fabs(g23) <= 1e-12 * g11); /* D's rows sum to round-off */
                TEST_ASSERT_NEAR(g11, wq * hy * hz / hx / 2, 1e-13, 0);
                TEST_ASSERT_NEAR(g22, wq * hx * hz / hy / 2, 1e-13, 0);
                TEST_ASSERT_NEAR(g33, wq * hx * hy / hz / 2, 1e-13, 0);
                for (int c = 0; c < 6; c++) /* affine: G is exactly (w_i w_j) w_k K_e (sem_kernels.h) */
                  TEST_ASSERT(G[c * s] == wq * S->K[6 * e + c]);
              } else { /* positive definite: leading minors */
                TEST_ASSERT(g11 > 0 && g11 * g22 - g12 * g12 > 0);
                TEST_ASSERT(g11 * (g22 * g33 - g23 * g23) - g12 * (g12 * g33 - g23 * g13) +
                                g13 * (g12 * g23 - g22 * g13) > 0);
                offmax = fmax(offmax, fmax(fabs(g12), fmax(fabs(g13), fabs(g23))));
              }
              TEST_ASSERT(S->jac[(size_t)n * n * n * e + l] > 0);
            }
      if (deformed) TEST_ASSERT(offmax > 1e-3);
    }
    TEST_CALL(pds_sem_destroy(&S));
    TEST_ASSERT(S == NULL);
  }
  { /* spectral convergence of the mass-weighted integral on 2^3 elements, affine and deformed */
    const pds_int el[3] = {2, 2, 2};
    double        last = 1;

    printf("int x y z e^(x+y+z) on 2^3 elements: order, error affine, error deformed (0.05)\n");
    for (int order = 2; order <= 10; order += 2) {
      double err[2];

      for (int d = 0; d < 2; d++) {
        TEST_CALL(pds_sem_create_box(ctx, el, order, d ? 0.05 : 0.0, &S));
        err[d] = fabs(integral_xyz(S) - exact);
        TEST_CALL(pds_sem_destroy(&S));
      }
      printf("  %2d  %.3e  %.3e\n", order, err[0], err[1]);
      TEST_ASSERT(err[0] < last || err[0] < 1e-13);
      last = err[0];
    }
    TEST_ASSERT(last < 1e-12);
  }
  { /* VTK: 2 x 1 x 1 elements of order 2: 5 x 3 x 3 points, 16 hexahedra */
    const pds_int   el[3] = {2, 1, 1};
    const char     *names[1] = {"x"};
    double          xv[45], *xyz = malloc(3 * 45 * sizeof *xyz);
    const pds_real *vals[1] = {xv};
    char            line[256], path[64];
    long            np = -1, nc = -1, first[8], v = 0;
    FILE           *f;

    TEST_ASSERT(xyz);
    snprintf(path, sizeof path, "td11_%d.vtu", (int)getpid());
    TEST_CALL(pds_sem_create_box(ctx, el, 2, 0.0, &S));
    TEST_CALL(pds_sem_get_coordinates(S, xyz));
    for (int g = 0; g < 45; g++) xv[g] = xyz[3 * g];
    TEST_CALL(pds_sem_write_vtk(S, path, 1, names, vals));
    f = fopen(path, "r");
    TEST_ASSERT(f);
    while (fgets(line, sizeof line, f)) {
      if (strstr(line, "NumberOfPoints")) TEST_ASSERT(sscanf(strstr(line, "NumberOfPoints"), "NumberOfPoints=\"%ld\" "
                                                             "NumberOfCells=\"%ld\"", &np, &nc) == 2);
      if (strstr(line, "Name=\"connectivity\"") && fgets(line, sizeof line, f))
        v = sscanf(line, "%ld %ld %ld %ld %ld %ld %ld %ld", &first[0], &first[1], &first[2], &first[3], &first[4],
                   &first[5], &first[6], &first[7]);
    }
    fclose(f);
    remove(path);
    TEST_ASSERT(np == 45 && nc == 16 && v == 8);
    /* the first hexahedron: points (0,0,0) (1,0,0) (1,1,0) (0,1,0), then z = 1, on the 5 x 3 x 3 grid */
    TEST_ASSERT(first[0] == 0 && first[1] == 1 && first[2] == 6 && first[3] == 5 && first[4] == 15 && first[5] == 16 &&
                first[6] == 21 && first[7] == 20);
    TEST_ASSERT_ERR(ctx, pds_sem_write_vtk(S, "/nonexistent/dir/x.vtu", 1, names, vals), PDS_ERR_IO, "cannot open");
    TEST_ASSERT_ERR(ctx, pds_sem_write_vtk(S, path, 1, NULL, vals), PDS_ERR_ARG, "NULL");
    TEST_CALL(pds_sem_destroy(&S));
    free(xyz);
  }
  { /* bad input */
    const pds_int el[3] = {2, 2, 2}, none[3] = {2, 0, 2};

    TEST_ASSERT_ERR(ctx, pds_sem_create_box(ctx, el, 0, 0, &S), PDS_ERR_ARG, "polynomial order 0");
    TEST_ASSERT_ERR(ctx, pds_sem_create_box(ctx, el, PDS_SEM_NMAX, 0, &S), PDS_ERR_ARG, "polynomial order");
    TEST_ASSERT_ERR(ctx, pds_sem_create_box(ctx, none, 3, 0, &S), PDS_ERR_ARG, "at least 1");
    TEST_ASSERT_ERR(ctx, pds_sem_create_box(ctx, el, 3, 0.5, &S), PDS_ERR_ARG, "inverted");
    TEST_ASSERT_ERR(ctx, pds_sem_create_box(ctx, el, 3, NAN, &S), PDS_ERR_ARG, "not finite");
    TEST_ASSERT(S == NULL);
    TEST_ASSERT(pds_sem_get_info(NULL, &info) == PDS_ERR_ARG);
    TEST_CALL(pds_sem_destroy(&S)); /* NULL: nothing to do */
  }
  test_finalize(&ctx);
  return 0;
}
