/* tests/fail/t801_alloc.c: allocation-failure sweep (CSparse-style): the k-th allocation of a whole pipeline
 * (generate, convert, precondition (jacobi, pbjacobi, none, ilu0 in each ordering and approximate variant), solve with every method, in single
 * and mixed precision too; and a patch set: its CSR copy, CG with relax and gmg, richardson with chaotic relax) fails for
 * k = 0, 1, 2, ...; every call must return
 * PDS_ERR_MEM with a message and release what it made (the sanitizer build checks for leaks). Also: objects of
 * different contexts are refused. */
#include "test.h"

/* one pipeline: kind < 0: poisson7 (its bsr copy when use_bsr), solver + pc in precision prec; kind 0..3: a patch set
   (mixed sizes) and its CSR copy, solved with relax (0: cg + multicolor, 1: richardson + chaotic) or gmg (2: cg + gmg,
   direct coarse solve; 3: fgmres + gmg, CG coarse solve) */
struct run {
  const char   *solver, *pc;
  int           use_bsr, kind;
  pds_precision prec;
};

static int configure_pc(const struct run *r, pds_precond P) {
  int ierr = PDS_OK;

  if (r->kind >= 2) {
    if ((ierr = pds_precond_gmg_set_smoother(P, PDS_RELAX_JACOBI, 2, 2, 2, 0, 1, 1))) return ierr;
    return pds_precond_gmg_set_coarse(P, r->kind == 3 ? "cg" : "direct", 1000);
  }
  if (r->kind >= 0) {
    if ((ierr = pds_precond_relax_set_type(P, r->kind ? PDS_RELAX_CHAOTIC : PDS_RELAX_MULTICOLOR))) return ierr;
    return pds_precond_relax_set_block(P, 2, 2, 2);
  }
  if (!strncmp(r->pc, "ilu0-approx", 11)) { /* ilu0-approx-jacobi, ilu0-approx-chow */
    if ((ierr = pds_precond_ilu0_set_variant(P, r->pc + 5))) return ierr;
  } else if (!strncmp(r->pc, "ilu0-", 5) && (ierr = pds_precond_ilu0_set_ordering(P, r->pc + 5))) /* ilu0-rcm */
    return ierr;
  return pds_precond_set_block_size(P, r->use_bsr ? 0 : 2);
}

static int pipeline(pds_ctx ctx, const struct run *r) {
  pds_problem   p = {0};
  pds_mat       B = NULL;
  pds_solver    s = NULL;
  pds_precond   P = NULL;
  pds_vec       x = NULL;
  pds_int       dims[3] = {4, 4, 4};
  const pds_int n[3] = {8, 8, 8}, sizes[2] = {4, 2};
  const int     patches = r->kind >= 0;
  int           ierr;

  ierr = patches ? pds_problem_patches(ctx, n, 2, sizes, &p) : pds_problem_generate(ctx, "poisson7", dims, 3, &p);
  if (ierr) goto done;
  if (patches && (ierr = pds_mat_convert_to_csr(p.A, &B))) goto done;
  if (r->use_bsr && (ierr = pds_mat_convert_to_bsr(p.A, 2, &B))) goto done;
  if ((ierr = pds_vec_duplicate(p.b, &x))) goto done;
  if ((ierr = pds_vec_set(x, 0.0))) goto done;
  if ((ierr = pds_solver_create(ctx, r->solver, &s))) goto done;
  if ((ierr = pds_precond_create(ctx, strncmp(r->pc, "ilu0", 4) ? r->pc : "ilu0", &P))) goto done;
  if ((ierr = configure_pc(r, P))) goto done;
  if ((ierr = pds_solver_set_operator(s, B && !patches ? B : p.A))) goto done;
  if ((ierr = pds_solver_set_precond(s, P))) goto done;
  if (!patches) {
    if ((ierr = pds_solver_set_history(s, 1))) goto done;
    if (r->prec == PDS_PRECISION_DOUBLE && (ierr = pds_solver_set_inf_tolerance(s, 1e-30))) goto done;
    if ((ierr = pds_solver_set_precision(s, r->prec))) goto done;
  }
  if ((ierr = pds_solver_set_tolerances(s, 1e-8, 0, patches ? 300 : 200))) goto done;
  ierr = pds_solver_solve(s, p.b, x);
done:
  pds_precond_destroy(&P);
  pds_solver_destroy(&s);
  pds_vec_destroy(&x);
  pds_mat_destroy(&B);
  pds_problem_destroy(&p);
  return ierr;
}

/* the pipeline with its k-th allocation failing, k = 0, 1, ...: PDS_ERR_MEM with a message until it runs through;
   then it must succeed, after more than 5 failures */
static void sweep(pds_ctx ctx, const struct run *r) {
  int k, ierr = PDS_ERR_MEM;

  for (k = 0; k < 2000; k++) {
    pds_ctx_set_alloc_fail(ctx, k);
    ierr = pipeline(ctx, r);
    if (ierr != PDS_ERR_MEM) break;
    TEST_ASSERT(strstr(pds_ctx_get_error(ctx), "allocation"));
    pds_ctx_clear_error(ctx);
  }
  pds_ctx_set_alloc_fail(ctx, -1);
  if (ierr) TEST_FAIL("%s + %s (bsr %d, patches kind %d): allocation %d gave %s: %s", r->solver, r->pc, r->use_bsr,
                      r->kind, k, pds_error_name(ierr), pds_ctx_get_error(ctx));
  TEST_ASSERT(k > 5);
}

int main(int argc, char **argv) {
  pds_ctx     ctx = test_init(argc, argv), other;
  const char *solvers[] = {"cg", "bicgstab", "gmres", "fgmres", "richardson"};
  const char *pcs[]     = {"jacobi",          "pbjacobi",           "none",          "ilu0",
                           "ilu0-rcm",        "ilu0-multicolor",    "ilu0-approx-jacobi", "ilu0-approx-chow"};
  const struct run patch_runs[4] = {{"cg", "relax", 0, 0, PDS_PRECISION_DOUBLE},
                                    {"richardson", "relax", 0, 1, PDS_PRECISION_DOUBLE},
                                    {"cg", "gmg", 0, 2, PDS_PRECISION_DOUBLE},
                                    {"fgmres", "gmg", 0, 3, PDS_PRECISION_DOUBLE}};

  for (int si = 0; si < 5; si++)
    for (int pi = 0; pi < 8; pi++)
      for (int use_bsr = 0; use_bsr < 4; use_bsr++) {
        /* use_bsr 2 and 3: csr in single and mixed precision (cg, bicgstab, richardson with jacobi or none) */
        const struct run r = {solvers[si], pcs[pi], use_bsr == 1, -1,
                              use_bsr == 2 ? PDS_PRECISION_SINGLE : use_bsr == 3 ? PDS_PRECISION_MIXED
                                                                                 : PDS_PRECISION_DOUBLE};

        if (r.prec && (si == 2 || si == 3 || pi == 1 || pi >= 3)) continue;
        if (pi >= 4 && si != 1) continue; /* the orderings and variants: one method is enough */
        sweep(ctx, &r);
      }
  for (int kind = 0; kind < 4; kind++) sweep(ctx, &patch_runs[kind]);
  /* objects from different contexts do not mix */
  TEST_CALL(pds_ctx_create(pds_ctx_get_backend(ctx), &other));
  {
    pds_vec x, y;
    pds_mat A;
    pds_int r = 0, c = 0;
    double  v = 1;

    TEST_CALL(pds_vec_create(ctx, 1, &x));
    TEST_CALL(pds_vec_create(other, 1, &y));
    TEST_CALL(pds_mat_create_csr_from_triplets(ctx, 1, 1, 1, &r, &c, &v, &A));
    TEST_ASSERT_ERR(ctx, pds_vec_copy(x, y), PDS_ERR_ARG, "different contexts");
    TEST_ASSERT_ERR(ctx, pds_mat_apply(A, x, y), PDS_ERR_ARG, "different contexts");
    TEST_CALL(pds_vec_destroy(&x));
    TEST_CALL(pds_vec_destroy(&y));
    TEST_CALL(pds_mat_destroy(&A));
    /* a destroyed handle is caught, not used */
    TEST_ASSERT(A == NULL);
  }
  TEST_CALL(pds_ctx_destroy(&other));
  test_finalize(&ctx);
  return 0;
}
