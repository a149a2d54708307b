/* tests/disc/td02_assembly.c: P1 assembly through the gather map: the pattern is the mesh graph with the
 * diagonal (nnz = nodes + 2 edges, sorted rows), the values are bitwise those of a serial triangle-by-triangle
 * scatter assembly, run after run, on this backend and on /cpu/ref; the interior rows of the stiffness sum to
 * zero; the same mesh written to Gmsh and read back assembles to the same bits; a node of 100 triangles; the
 * generic generator "fem2d" gives the fem2d API's matrix. */
#include "backend/fem2d_kernels.h"
#include <stdbool.h>

#include "test.h"

/* Host copies of A's arrays and b. */
typedef struct {
  pds_int   n;
  pds_size  nnz;
  pds_size *rp;
  pds_int  *ci;
  pds_real *v, *b;
} sys_t;

static sys_t get_sys(pds_mat A, pds_vec b) {
  sys_t           s;
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *v;

  TEST_CALL(pds_mat_get_size(A, &s.n, NULL));
  TEST_CALL(pds_mat_get_nnz(A, &s.nnz));
  TEST_CALL(pds_mat_csr_get_arrays(A, &rp, &ci, &v));
  s.rp = malloc(sizeof(pds_size) * (size_t)(s.n + 1)), s.ci = malloc(sizeof(pds_int) * (size_t)s.nnz);
  s.v = malloc(sizeof(pds_real) * (size_t)s.nnz), s.b = malloc(sizeof(pds_real) * (size_t)s.n);
  memcpy(s.rp, rp, sizeof(pds_size) * (size_t)(s.n + 1));
  memcpy(s.ci, ci, sizeof(pds_int) * (size_t)s.nnz);
  memcpy(s.v, v, sizeof(pds_real) * (size_t)s.nnz);
  TEST_CALL(pds_vec_get_values(b, s.b, PDS_MEM_HOST));
  return s;
}
static void free_sys(sys_t *s) { free(s->rp), free(s->ci), free(s->v), free(s->b); }
static int same_bits(const sys_t *a, const sys_t *b) {
  return a->n == b->n && a->nnz == b->nnz && !memcmp(a->rp, b->rp, sizeof(pds_size) * (size_t)(a->n + 1)) &&
         !memcmp(a->ci, b->ci, sizeof(pds_int) * (size_t)a->nnz) &&
         !memcmp(a->v, b->v, sizeof(pds_real) * (size_t)a->nnz) &&
         !memcmp(a->b, b->b, sizeof(pds_real) * (size_t)a->n);
}

static sys_t assemble(pds_ctx ctx, pds_mesh m, const char *problem, pds_dirichlet_mode mode) {
  pds_fem2d fem;
  pds_mat   A;
  pds_vec   b;
  sys_t     s;

  TEST_CALL(pds_fem2d_create(ctx, m, &fem));
  TEST_CALL(pds_fem2d_set_problem(fem, problem));
  TEST_CALL(pds_fem2d_assemble(fem, mode, &A, &b));
  s = get_sys(A, b);
  TEST_CALL(pds_mat_destroy(&A));
  TEST_CALL(pds_vec_destroy(&b));
  TEST_CALL(pds_fem2d_destroy(&fem));
  return s;
}

/* The serial scatter assembly with the same element kernel (paper problem: k = 1, f = 10, g = 10), on the pattern
   of s: A += Ke triangle by triangle, then Dirichlet rows. Must equal the gather bitwise. */
static void check_scatter(pds_mesh m, const sys_t *s) {
  pds_int         nn, nt, nb;
  const pds_real *xy;
  const pds_int  *tri, *be, *bt, *mk;
  pds_real       *v = calloc((size_t)s->nnz, sizeof(pds_real)), *b = calloc((size_t)s->n, sizeof(pds_real));

  TEST_CALL(pds_mesh_get_sizes(m, &nn, &nt, &nb));
  TEST_CALL(pds_mesh_get_arrays(m, &xy, &tri, &be, &bt, &mk));
  for (pds_int e = 0; e < nt; e++) {
    const pds_int *t = tri + 3 * e;
    pds_real       K[6], F[3];
    pds_real       twoA = fem2d_element_stiffness(xy[2 * t[0]], xy[2 * t[0] + 1], xy[2 * t[1]], xy[2 * t[1] + 1],
                                                  xy[2 * t[2]], xy[2 * t[2] + 1], 1.0, K);

    fem2d_element_load_const(twoA, 10.0, F);
    for (int li = 0; li < 3; li++) {
      b[t[li]] += F[li];
      for (int lj = 0; lj < 3; lj++) {
        pds_size p = s->rp[t[li]];

        while (s->ci[p] != t[lj]) p++;
        v[p] += K[fem2d_slot(li, lj)];
      }
    }
  }
  for (pds_int i = 0; i < nn; i++)
    if (mk[i] > 0) {
      for (pds_size p = s->rp[i]; p < s->rp[i + 1]; p++) v[p] = s->ci[p] == i ? 1.0 : 0.0;
      b[i] = 10.0;
    }
  TEST_ASSERT(!memcmp(v, s->v, sizeof(pds_real) * (size_t)s->nnz));
  TEST_ASSERT(!memcmp(b, s->b, sizeof(pds_real) * (size_t)s->n));
  free(v), free(b);
}

int main(int argc, char **argv) {
  pds_ctx     ctx = test_init(argc, argv), ref;
  pds_mesh    m, m2;
  pds_int     nn, nt, nb;
  const char *probs[2] = {"paper", "manufactured"};
  char        path[256];

  TEST_CALL(pds_ctx_create("/cpu/ref", &ref));
  for (int dom = 0; dom < 2; dom++) {
    TEST_CALL(pds_mesh_generate(ctx, dom ? "hole" : "square", 3000, 7, &m));
    TEST_CALL(pds_mesh_get_sizes(m, &nn, &nt, &nb));
    for (int pb = 0; pb < 2; pb++)
      for (int mode = 0; mode < 2; mode++) {
        pds_dirichlet_mode dm = (pds_dirichlet_mode)mode;
        sys_t              s1 = assemble(ctx, m, probs[pb], dm), s2 = assemble(ctx, m, probs[pb], dm);
        sys_t              s3 = assemble(ref, m, probs[pb], dm);
        pds_size nedge = 0;

        TEST_ASSERT(same_bits(&s1, &s2)); /* run to run */
        TEST_ASSERT(same_bits(&s1, &s3)); /* this backend = ref */
        /* pattern: sorted rows with the diagonal; nnz = n + 2 edges, edges = n + t - 1 + holes (Euler) */
        for (pds_int i = 0; i < nn; i++) {
          int diag = 0;

          for (pds_size p = s1.rp[i]; p < s1.rp[i + 1]; p++) {
            TEST_ASSERT(p == s1.rp[i] || s1.ci[p] > s1.ci[p - 1]);
            diag += s1.ci[p] == i;
            nedge += s1.ci[p] > i;
          }
          TEST_ASSERT(diag == 1);
        }
        TEST_ASSERT(s1.nnz == nn + 2 * nedge);
        TEST_ASSERT(nedge == (pds_size)nn + nt - 1 + dom); /* Euler: V - E + F = 1 - holes */
        if (pb == 0 && mode == 0) {
          check_scatter(m, &s1);
          /* stiffness rows of interior nodes sum to zero (constants are in the kernel) */
          {
            const pds_int *mk;
            const pds_real *xy;
            const pds_int  *tri, *be, *bt;

            TEST_CALL(pds_mesh_get_arrays(m, &xy, &tri, &be, &bt, &mk));
            for (pds_int i = 0; i < nn; i++) {
              double sum = 0, dg = 0;

              if (mk[i]) continue;
              for (pds_size p = s1.rp[i]; p < s1.rp[i + 1]; p++) {
                sum += s1.v[p];
                if (s1.ci[p] == i) dg = s1.v[p];
              }
              TEST_ASSERT(dg > 0 && fabs(sum) <= 1e-13 * dg);
            }
          }
        }
        /* the same mesh through a Gmsh file: the same bits */
        if (mode == 0) {
          sys_t s4;

          snprintf(path, sizeof path, "td02_%s_%d.msh", argc > 1 ? argv[1] + 5 : "ref", dom);
          TEST_CALL(pds_mesh_write_gmsh(m, path));
          TEST_CALL(pds_mesh_read_gmsh(ctx, path, &m2));
          s4 = assemble(ctx, m2, probs[pb], PDS_DIRICHLET_ROW);
          TEST_ASSERT(same_bits(&s1, &s4));
          free_sys(&s4);
          TEST_CALL(pds_mesh_destroy(&m2));
          remove(path);
        }
        free_sys(&s1), free_sys(&s2), free_sys(&s3);
      }
    TEST_CALL(pds_mesh_destroy(&m));
  }
  /* a fan of 100 triangles around one node (a row of 101 entries: the long-row path of the pattern build) */
  {
    enum { NF = 100 };
    sys_t s1;

    m = test_mesh_fan(ctx, NF);
    s1 = assemble(ctx, m, "paper", PDS_DIRICHLET_ROW);
    TEST_ASSERT(s1.rp[1] - s1.rp[0] == NF + 1 && s1.nnz == (NF + 1) + 2 * 2 * NF);
    check_scatter(m, &s1);
    free_sys(&s1);
    TEST_CALL(pds_mesh_destroy(&m));
  }
  /* the generic generator: paper problem, square, seed 1, Dirichlet rows */
  {
    pds_problem p;
    pds_int     d[1] = {500};
    sys_t       s1, s2;

    TEST_CALL(pds_problem_generate(ctx, "fem2d", d, 1, &p));
    TEST_ASSERT(p.A && p.b && p.u_exact && !p.x_exact && strstr(p.description, "fem2d"));
    s1 = get_sys(p.A, p.b);
    TEST_CALL(pds_mesh_generate(ctx, "square", 500, 1, &m));
    s2 = assemble(ctx, m, "paper", PDS_DIRICHLET_ROW);
    TEST_ASSERT(same_bits(&s1, &s2));
    free_sys(&s1), free_sys(&s2);
    TEST_CALL(pds_mesh_destroy(&m));
    TEST_CALL(pds_problem_destroy(&p));
  }
  TEST_CALL(pds_ctx_destroy(&ref));
  test_finalize(&ctx);
  return 0;
}
