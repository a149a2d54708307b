/* bench/bench_fem2d.c: P1 assembly (src/disc/fem2d.c) on /cpu/ref and /cpu/omp, same mesh, same run, against a
 * STREAM-like copy: the pattern and gather maps (pds_fem2d_create) and the values (pds_fem2d_assemble, the
 * workspace warm: re-assembly) of paper 004's problem (constant source) and of the manufactured one (f with sin
 * and cos at 3 edge midpoints per triangle), on generated unit-square meshes of paper 004's grid 5 and 6 sizes.
 * One JSON line per case; the omp matrix and right-hand side are checked bitwise equal to ref's first.
 *
 *   bench_fem2d [-nodes 424129,1694081] [-domain square] [-reps 5] [-warmup 1] [-copy_n N] [-help]
 *
 * Byte model of one assembly (n nodes, t triangles, nnz entries; 8-byte reals and offsets, 4-byte indices):
 *   element phase  t (12 tri + 48 xy + 72 Ke/fe written)
 *   gather phase   n (8 rowptr + 16 nptr + 1 isd + 8 b) + nnz (4 colidx + 8 gptr + 8 vals)
 *                  + 9 t (4 gidx + 8 Ke) + 3 t (4 nidx + 8 fe)
 *   the objects    n 16 + nnz 8 (the matrix's copy of rowptr, colidx) + n 16 (b set from the host array)
 * Flops: 30 per triangle (element) + 12 per triangle (the gather's additions); the manufactured load adds 6 sin/cos
 * per triangle, not counted. create: its byte model is not stated (sorting, searches): only times. */
#include "bench_common.h"

typedef struct {
  pds_ctx   ctx;
  pds_mesh  m;
  pds_fem2d fem;
  int       mms;
} fem_arg;

static int k_create(void *a) {
  fem_arg  *f = a;
  pds_fem2d fem;
  int       ierr = pds_fem2d_create(f->ctx, f->m, &fem);

  if (ierr) return ierr;
  return pds_fem2d_destroy(&fem);
}

static int k_assemble(void *a) {
  fem_arg *f = a;
  pds_mat  A;
  pds_vec  b;
  int      ierr = pds_fem2d_assemble(f->fem, PDS_DIRICHLET_ROW, &A, &b);

  if (ierr) return ierr;
  pds_mat_destroy(&A);
  return pds_vec_destroy(&b);
}

/* A and b of one context, host copies. */
static void get_system(pds_fem2d fem, double **v, double **b, long long *nnz, long long *n) {
  pds_mat         A;
  pds_vec         bv;
  const pds_size *rp;
  const pds_int  *ci;
  const pds_real *vals;
  pds_size        z;
  pds_int         nr;

  BENCH_CALL(pds_fem2d_assemble(fem, PDS_DIRICHLET_ROW, &A, &bv));
  BENCH_CALL(pds_mat_csr_get_arrays(A, &rp, &ci, &vals));
  BENCH_CALL(pds_mat_get_nnz(A, &z));
  BENCH_CALL(pds_mat_get_size(A, &nr, NULL));
  *nnz = z, *n = nr;
  *v = malloc(sizeof(double) * (size_t)z), *b = malloc(sizeof(double) * (size_t)nr);
  if (!*v || !*b) exit(3);
  memcpy(*v, vals, sizeof(double) * (size_t)z);
  BENCH_CALL(pds_vec_get_values(bv, *b, PDS_MEM_HOST));
  pds_mat_destroy(&A);
  pds_vec_destroy(&bv);
}

int main(int argc, char **argv) {
  static const char *const known[] = {"-nodes", "-domain", "-reps", "-warmup", "-copy_n", "-help", NULL};
  static const int         takes[] = {1, 1, 1, 1, 1, 0};
  const char              *nodes_s = bench_str(argc, argv, "-nodes", "424129,1694081");
  const char              *domain  = bench_str(argc, argv, "-domain", "square");
  int                      reps   = (int)bench_int(argc, argv, "-reps", 5);
  int                      warmup = (int)bench_int(argc, argv, "-warmup", 1);
  long                     copy_n = bench_int(argc, argv, "-copy_n", 1L << 26);
  pds_ctx                  ctx[2];
  int                      nb;
  bench_copy               cp;
  char                     list[256];

  if (bench_flag(argc, argv, "-help")) {
    printf("usage: bench_fem2d [-nodes 424129,1694081] [-domain square|hole] [-reps 5] [-warmup 1] [-copy_n %ld]\n",
           1L << 26);
    return 0;
  }
  bench_check_options(argc, argv, known, takes);
  nb = bench_contexts(ctx);
  bench_copy_init(&cp, (size_t)copy_n);
  snprintf(list, sizeof list, "%s", nodes_s);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    long      target = strtol(tok, NULL, 10);
    pds_mesh  m;
    pds_int   n, t, nbe;
    fem_arg   fa[2][2];
    double    tm[5], tg = pds_wtime();
    long long nnz = 0, nn = 0;

    BENCH_CALL(pds_mesh_generate(ctx[0], domain, (pds_int)target, 1, &m));
    tg = pds_wtime() - tg;
    BENCH_CALL(pds_mesh_get_sizes(m, &n, &t, &nbe));
    for (int mms = 0; mms < 2; mms++)
      for (int b = 0; b < nb; b++) {
        fa[mms][b] = (fem_arg){ctx[b], m, NULL, mms};
        BENCH_CALL(pds_fem2d_create(ctx[b], m, &fa[mms][b].fem));
        BENCH_CALL(pds_fem2d_set_problem(fa[mms][b].fem, mms ? "manufactured" : "paper"));
      }
    /* validation: omp = ref bitwise, and nnz = n + 2 edges with edges = n + t - 1 (Euler, no hole) */
    for (int mms = 0; mms < 2; mms++) {
      double *v0, *b0, *v1, *b1;

      get_system(fa[mms][0].fem, &v0, &b0, &nnz, &nn);
      if (!strcmp(domain, "square") && nnz != 3LL * n + 2LL * t - 2) {
        fprintf(stderr, "VALIDATION FAILED: nnz %lld is not n + 2 (n + t - 1) = %lld\n", nnz, 3LL * n + 2LL * t - 2);
        return 1;
      }
      if (nb > 1) {
        get_system(fa[mms][1].fem, &v1, &b1, &nnz, &nn);
        if (memcmp(v0, v1, sizeof(double) * (size_t)nnz) || memcmp(b0, b1, sizeof(double) * (size_t)nn)) {
          fprintf(stderr, "VALIDATION FAILED: /cpu/omp's assembly differs from /cpu/ref's\n");
          return 1;
        }
        free(v1), free(b1);
      }
      free(v0), free(b0);
    }
    {
      double bytes = (double)t * (12 + 48 + 72) + (double)n * (8 + 16 + 1 + 8) + (double)nnz * (4 + 8 + 8) +
                     9.0 * t * (4 + 8) + 3.0 * t * (4 + 8) + (double)n * 16 + (double)nnz * 8 + (double)n * 16;
      double flops = 42.0 * t;
      char   extra[256];

      for (int kind = 0; kind < 3; kind++) { /* create, assemble paper, assemble manufactured */
        bench_fn    k      = kind ? k_assemble : k_create;
        bench_fn    fn[3]  = {bench_copy_run, k, nb > 1 ? k : NULL};
        void       *arg[3] = {&cp, &fa[kind == 2][0], &fa[kind == 2][nb > 1]};
        const char *kernel = kind == 0 ? "fem2d_create" : kind == 1 ? "fem2d_assemble_paper" : "fem2d_assemble_mms";

        bench_run(3, fn, arg, warmup, reps, tm);
        snprintf(extra, sizeof extra, "\"domain\":\"%s\",\"triangles\":%d,\"t_mesh_generate_s\":%.3f", domain,
                 (int)t, tg);
        for (int b = 0; b < nb; b++) {
          bench_result r = {"fem2d", pds_ctx_get_backend(ctx[b]), kernel, nn, nnz, 1, pds_ctx_get_num_threads(ctx[b]),
                            tm[1 + b], kind ? bytes : 0, kind ? flops : 0, bench_copy_bytes(&cp) / tm[0] * 1e-9,
                            tm[1], extra, 0, 0, 0};

          bench_print(&r);
        }
      }
    }
    for (int mms = 0; mms < 2; mms++)
      for (int b = 0; b < nb; b++) BENCH_CALL(pds_fem2d_destroy(&fa[mms][b].fem));
    BENCH_CALL(pds_mesh_destroy(&m));
  }
  bench_copy_free(&cp);
  for (int b = 0; b < nb; b++) pds_ctx_destroy(&ctx[b]);
  return 0;
}
