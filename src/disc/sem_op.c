/* src/disc/sem_op.c: the matrix type "sem": paper 003's Poisson operator on a spectral-element space, applied
 * matrix-free (Eq. 6: the local tensor-product operators D^T G^e D of the elements, then the gather-scatter) on
 * global vectors, the Dirichlet points masked: A = M Q^T A_L Q M + (I - M), symmetric positive definite, so that cg,
 * gmres and the others use it unchanged. The matrix keeps its own backend copies of the space's arrays (the space may
 * be destroyed after) and a work array of one value per local point; the arithmetic is the sem kernel group's
 * (src/disc/sem_kernels.h). Its diagonal (get_diagonal, so `jacobi` works on it) is Eq. 9's, assembled. */
#include "sem_impl.h"
#include "sem_kernels.h"

struct sem_mat {
  struct pds_sem_dev dev;     /* views of the arrays below */
  pds_real          *D, *w, *G, *K, *work;
  pds_int           *gid, *gsidx, *gsptr;
  unsigned char     *mask;
  int                unified; /* backend memory is host memory */
  pds_vec            tmp;     /* alpha A x + beta y with beta != 0 or alpha != 1 */
  pds_vec            zg;      /* a rank's share (nghost > 0): zeros for the ghosts of the plain product */
  pds_int            einner;  /* a rank's share: its first einner elements reach no ghost (else E) */
  int                order;
  pds_int            ne[3];
};

#define SEMMAT(A) ((struct sem_mat *)(A)->data)

static void sem_mat_free(pds_ctx ctx, struct sem_mat *M) {
  const pds_memtype mt = M->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE;

  pds_free(ctx, mt, &M->D), pds_free(ctx, mt, &M->w), pds_free(ctx, mt, &M->G), pds_free(ctx, mt, &M->K);
  pds_free(ctx, mt, &M->work);
  pds_free(ctx, mt, &M->gid), pds_free(ctx, mt, &M->gsidx), pds_free(ctx, mt, &M->mask), pds_free(ctx, mt, &M->gsptr);
  if (M->tmp) pds_vec_destroy(&M->tmp);
  if (M->zg) pds_vec_destroy(&M->zg);
}

/* y = A x (a share's ghosts: M->dev.xg, the zeros of zg) */
static int sem_kernel(pds_mat A, pds_vec x, pds_vec y) {
  struct sem_mat *M   = SEMMAT(A);
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  if (!M->dev.E) return PDS_OK; /* a rank's share without points */
  PDS_KERNEL(ctx, sem.apply);
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->sem.apply(ctx, &M->dev, xa, ya, M->work);
}

/* y = alpha A x + beta y */
static int sem_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  struct sem_mat *M = SEMMAT(A);

  if (alpha == 1 && beta == 0) return sem_kernel(A, x, y);
  if (!M->tmp) PDS_CALL(pds_vec_create(A->hdr.ctx, A->nrows, &M->tmp));
  PDS_CALL(sem_kernel(A, x, M->tmp));
  return pds_vec_axpby(y, alpha, M->tmp, beta); /* y = alpha A x + beta y */
}

int pds_mat_sem_elements(pds_mat A, pds_vec x, pds_vec g, int boundary) {
  struct sem_mat    *M   = SEMMAT(A);
  pds_ctx            ctx = A->hdr.ctx;
  struct pds_sem_dev dev = M->dev;
  const pds_int      e0 = boundary ? M->einner : 0, e1 = boundary ? dev.E : M->einner;
  const pds_real    *xa;

  if (e1 <= e0) return PDS_OK;
  PDS_KERNEL(ctx, sem.elements);
  if (boundary) {
    PDS_CHECK((g ? g->n : 0) == (M->zg ? M->zg->n : 0), ctx, PDS_ERR_SIZE, "sem share: %" PDS_SIZE_FMT " ghost values "
              "for %" PDS_SIZE_FMT " ghosts", g ? g->n : 0, M->zg ? M->zg->n : 0);
    if (g) PDS_CALL(pds_vec_dev_read(g, &dev.xg));
  }
  PDS_CALL(pds_vec_dev_read(x, &xa));
  return ctx->k->sem.elements(ctx, &dev, e0, e1, xa, M->work);
}

int pds_mat_sem_assemble(pds_mat A, pds_vec x, pds_vec y) {
  struct sem_mat *M   = SEMMAT(A);
  pds_ctx         ctx = A->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  if (!M->dev.nglob) return PDS_OK;
  PDS_KERNEL(ctx, sem.assemble);
  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  return ctx->k->sem.assemble(ctx, &M->dev, xa, ya, M->work);
}

int pds_mat_sem_diagonal(pds_mat A, int variant, pds_vec d) {
  struct sem_mat *M;
  pds_ctx         ctx;
  pds_real       *da;

  PDS_VALID(A, PDS_CLASSID_MAT, "A");
  PDS_VALID(d, PDS_CLASSID_VEC, "d");
  ctx = A->hdr.ctx;
  PDS_CHECK(!strcmp(A->type, "sem"), ctx, PDS_ERR_ARG, "the operator is a %s matrix, not sem (pds_mat_create_sem)",
            A->type);
  PDS_CHECK(d->n == (pds_size)A->nrows, ctx, PDS_ERR_SIZE, "d has %" PDS_SIZE_FMT " entries, A %" PDS_INT_FMT " rows",
            d->n, A->nrows);
  PDS_KERNEL(ctx, sem.diag);
  M = SEMMAT(A);
  if (!M->dev.E) return PDS_OK; /* a rank's share without points */
  PDS_CALL(pds_vec_dev_write(d, &da));
  return ctx->k->sem.diag(ctx, &M->dev, variant, da, M->work);
}

static int sem_get_diagonal(pds_mat A, pds_vec d) { return pds_mat_sem_diagonal(A, PDS_SEM_DIAG_EXTENDED, d); }

/* the operator as a csr matrix, for small cases (checks, jacobi on the assembled form, SciPy): each element's dense
   D^T G D entry by entry, A^e_pq = sum_r sum_ab (D_a)_rp G_ab(r) (D_b)_rq with (D_a)_rp = D[r_a n + p_a] when p and r
   differ only along direction a, summed at the shared points (pds_mat_create_csr_from_triplets: duplicates summed),
   the Dirichlet rows and columns the identity. The matrix-free product's values to round-off (another summation
   order). At most 2^25 element entries (E n^6): PDS_ERR_SIZE beyond. */
static int sem_to_csr(pds_mat A, pds_mat *B) {
  const struct sem_mat *M   = SEMMAT(A);
  pds_ctx               ctx = A->hdr.ctx;
  const int             n = M->dev.n, n3 = n * n * n;
  const pds_memtype     mt = M->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE;
  const double          nt = (double)M->dev.E * n3 * n3 + M->dev.nglob;
  pds_real             *D = NULL, *G = NULL, *Ae = NULL, *val = NULL;
  pds_int              *gid = NULL, *row = NULL, *col = NULL;
  unsigned char        *mask = NULL;
  pds_size              k = 0;
  int                   ierr;
  static const int      cidx[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};

  PDS_CHECK(!M->zg, ctx, PDS_ERR_UNSUPPORTED, "sem to csr: a rank's share of a distributed space (its rows reach "
            "other ranks' points) is not assembled");
  PDS_CHECK(nt <= (double)(1 << 25), ctx, PDS_ERR_SIZE, "sem to csr: %.0f element entries (E n^6); the assembled "
            "form is for small cases, at most 2^25", nt);
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n * n, &D));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 6 * M->dev.nloc, &G));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, M->dev.nloc, &gid));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)M->dev.nglob, &mask));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n3 * n3, &Ae));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nt, &row));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nt, &col));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nt, &val));
  PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, D, PDS_MEM_HOST, M->D, mt, (size_t)n * n * sizeof *D));
  PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, G, PDS_MEM_HOST, M->G, mt, 6 * M->dev.nloc * sizeof *G));
  PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, gid, PDS_MEM_HOST, M->gid, mt, M->dev.nloc * sizeof *gid));
  PDS_CALL_GOTO(ierr, done, pds_memcpy(ctx, mask, PDS_MEM_HOST, M->mask, mt, (size_t)M->dev.nglob));
  for (pds_int e = 0; e < M->dev.E; e++) {
    const pds_real *Ge = G + (size_t)6 * n3 * e;
    const pds_int  *ge = gid + (size_t)n3 * e;

    memset(Ae, 0, (size_t)n3 * n3 * sizeof *Ae);
    for (int r = 0; r < n3; r++) {
      const int rc[3] = {r % n, r / n % n, r / (n * n)};

      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          for (int m = 0; m < n; m++)
            for (int q = 0; q < n; q++) {
              int pc[3] = {rc[0], rc[1], rc[2]}, qc[3] = {rc[0], rc[1], rc[2]};

              pc[a] = m, qc[b] = q;
              Ae[(size_t)((pc[2] * n + pc[1]) * n + pc[0]) * n3 + (qc[2] * n + qc[1]) * n + qc[0]] +=
                  D[rc[a] * n + m] * Ge[(size_t)cidx[a][b] * n3 + r] * D[rc[b] * n + q];
            }
    }
    for (int p = 0; p < n3; p++)
      for (int q = 0; q < n3; q++)
        if (!mask[ge[p]] && !mask[ge[q]]) row[k] = ge[p], col[k] = ge[q], val[k++] = Ae[(size_t)p * n3 + q];
  }
  for (pds_int g = 0; g < M->dev.nglob; g++)
    if (mask[g]) row[k] = g, col[k] = g, val[k++] = 1.0;
  ierr = pds_mat_create_csr_from_triplets(ctx, M->dev.nglob, M->dev.nglob, k, row, col, val, B);
done:
  pds_free(ctx, PDS_MEM_HOST, &D), pds_free(ctx, PDS_MEM_HOST, &G), pds_free(ctx, PDS_MEM_HOST, &gid);
  pds_free(ctx, PDS_MEM_HOST, &mask), pds_free(ctx, PDS_MEM_HOST, &Ae), pds_free(ctx, PDS_MEM_HOST, &row);
  pds_free(ctx, PDS_MEM_HOST, &col), pds_free(ctx, PDS_MEM_HOST, &val);
  return ierr;
}

static int sem_view(pds_mat A, FILE *f) {
  const struct sem_mat *M = SEMMAT(A);
  char                  where[96];

  if (M->ne[0] > 0)
    snprintf(where, sizeof where, "%" PDS_INT_FMT " x %" PDS_INT_FMT " x %" PDS_INT_FMT " box", M->ne[0], M->ne[1],
             M->ne[2]);
  else snprintf(where, sizeof where, "mesh of %" PDS_INT_FMT, M->dev.E);
  fprintf(f, "  spectral elements (paper 003): %s hexahedra of order %d (%d GLL points a direction), %s; %" PDS_SIZE_FMT
          " local points, %" PDS_INT_FMT " global; matrix-free D^T G D per element, gather-scatter, Dirichlet points "
          "masked\n", where, M->order, M->order + 1,
          M->dev.K ? "affine (6 geometric values an element)" : "deformed (6 geometric values a point)", M->dev.nloc,
          M->dev.nglob);
  if (M->zg) fprintf(f, "  a rank's share: its elements also reach %" PDS_SIZE_FMT " other ranks' points\n", M->zg->n);
  return PDS_OK;
}

static int sem_destroy(pds_mat A) {
  if (A->data) sem_mat_free(A->hdr.ctx, SEMMAT(A));
  return pds_free(A->hdr.ctx, PDS_MEM_HOST, &A->data);
}

/* *dst: a backend copy of bytes bytes of host src (the host array itself on CPU backends' unified memory is not
   used: the space may be destroyed before the matrix) */
static int dup(pds_ctx ctx, const void *src, size_t bytes, int unified, void *dst) {
  return pds_dup_array(ctx, unified ? PDS_MEM_HOST : PDS_MEM_DEVICE, src, PDS_MEM_HOST, bytes, dst);
}

int pds_mat_create_sem(pds_sem sem, pds_mat *A) {
  pds_ctx         ctx;
  pds_mat         B = NULL;
  struct sem_mat *M = NULL;
  size_t          n3;
  int             ierr;

  PDS_CHECK(sem && sem->hdr.classid == PDS_CLASSID_SEM, NULL, PDS_ERR_ARG,
            "sem is NULL or not a valid sem object (pds_sem_create_box)");
  ctx = sem->hdr.ctx;
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  n3 = (size_t)sem->n * sem->n * sem->n;
  PDS_CALL(pds_mat_alloc(ctx, "sem", sem->nglob, sem->nglob, &B));
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, 1, &M));
  B->data        = M;
  B->ops.destroy = sem_destroy; /* from here on, destroying B frees what M holds */
  M->unified = ctx->k->mem_alloc == NULL;
  M->einner  = sem->nghost ? sem->einner : sem->E;
  M->order = sem->n - 1;
  for (int d = 0; d < 3; d++) M->ne[d] = sem->ne[d];
  PDS_CALL_GOTO(ierr, fail, dup(ctx, sem->D, (size_t)sem->n * sem->n * sizeof *sem->D, M->unified, &M->D));
  PDS_CALL_GOTO(ierr, fail, dup(ctx, sem->w, (size_t)sem->n * sizeof *sem->w, M->unified, &M->w));
  PDS_CALL_GOTO(ierr, fail, dup(ctx, sem->G, 6 * sem->nloc * sizeof *sem->G, M->unified, &M->G));
  if (sem->K) PDS_CALL_GOTO(ierr, fail, dup(ctx, sem->K, 6 * (size_t)sem->E * sizeof *sem->K, M->unified, &M->K));
  PDS_CALL_GOTO(ierr, fail, dup(ctx, sem->gid, sem->nloc * sizeof *sem->gid, M->unified, &M->gid));
  PDS_CALL_GOTO(ierr, fail, dup(ctx, sem->mask, (size_t)sem->nglob + sem->nghost, M->unified, &M->mask));
  PDS_CALL_GOTO(ierr, fail, dup(ctx, sem->gsptr, ((size_t)sem->nglob + 1) * sizeof *sem->gsptr, M->unified,
                                &M->gsptr));
  PDS_CALL_GOTO(ierr, fail, dup(ctx, sem->gsidx, sem->nloc * sizeof *sem->gsidx, M->unified, &M->gsidx));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, M->unified ? PDS_MEM_HOST : PDS_MEM_DEVICE,
                                       sem->nloc * sizeof(pds_real), &M->work));
  M->dev = (struct pds_sem_dev){sem->n,   sem->E,   sem->nglob, sem->nloc,  M->D,     M->w,
                                M->G,     M->K,     M->gid,     M->mask,    M->gsptr, M->gsidx, NULL};
  if (sem->nghost) { /* the plain product's ghosts: zeros */
    PDS_CALL_GOTO(ierr, fail, pds_vec_create(ctx, (pds_size)sem->nghost, &M->zg));
    PDS_CALL_GOTO(ierr, fail, pds_vec_set(M->zg, 0.0));
    PDS_CALL_GOTO(ierr, fail, pds_vec_dev_read(M->zg, &M->dev.xg));
  }
  B->nnz                 = (pds_size)(n3 * sem->E); /* local points: what the operator stores per value of x */
  B->ops.apply           = sem_apply;
  B->ops.apply_transpose = sem_apply; /* symmetric */
  B->ops.get_diagonal    = sem_get_diagonal;
  B->ops.view            = sem_view;
  B->ops.to_csr          = sem_to_csr;
  *A = B;
  return PDS_OK;
fail:
  pds_mat_destroy(&B);
  return ierr;
}
