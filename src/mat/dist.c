/* src/mat/dist.c: distributed matrices ("mpicsr", "mpibsr"): each rank holds its rows, split as PETSc's MPIAIJ does
 * into the diagonal block Ad (the columns this rank owns, local numbering) and the off-rank block Ao (the ghost columns,
 * numbered in ascending global order), each an ordinary csr or bsr matrix of the rank's backend. A product
 *   y = alpha A x + beta y:   gather the values other ranks need (vec.permute), start the exchange (src/mat/halo.c),
 *                              y = alpha Ad x + beta y while the messages travel, wait, y += alpha Ao g
 * so the exchange overlaps the diagonal block's product. Rows and columns share one layout: rank r owns the block
 * rows ranges[r] .. ranges[r+1]-1, in rank order (what pds_vec_create_dist gives for the same local sizes).
 *
 * Byte model of a product: Ad's bytes (12 nnz_d + 16 n for csr: values and column indices once, x and y once each),
 * plus the off-rank part (dist_apply_offrank: 12 nnz_o + 64 n_o + 8 ghosts over the n_o rows that have ghosts), plus
 * the gather of the sent rows (16 per value sent); the messages carry 8 bs bytes per ghost. */
#include <stdlib.h>

#include "dist_impl.h"

/* y += alpha Ao g on the rows that have off-rank entries: t = Ao g (Ao's rows are those rows), then through the
   gathered rows ysub = y[orow]: ysub += alpha t, y[orow] = ysub. Bytes: Ao's (12 nnz_o + 8 n_o + 8 ghosts) + 48 n_o,
   n_o the rows with ghosts (two planes of a slab's n^3 rows, not n^3: sweeping y again would cost 16 n) */
static int dist_apply_offrank(pds_mat A, pds_real alpha, pds_vec y) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);
  const pds_real  *ya, *sa;
  pds_real        *yw, *sw;

  if (!D->nrows_o) return PDS_OK;
  PDS_KERNEL(ctx, vec.permute);
  PDS_CALL(pds_mat_apply(D->Ao, D->g, D->t));
  PDS_CALL(pds_vec_dev_read(y, &ya));
  PDS_CALL(pds_vec_dev_write(D->ysub, &sw));
  PDS_CALL(ctx->k->vec.permute(ctx, D->nrows_o, D->bs, D->orow_d, 0, ya, sw));
  PDS_CALL(pds_vec_axpy(D->ysub, alpha, D->t));
  PDS_CALL(pds_vec_dev_read(D->ysub, &sa));
  PDS_CALL(pds_vec_dev_write(y, &yw));
  return ctx->k->vec.permute(ctx, D->nrows_o, D->bs, D->orow_d, 1, sa, yw);
}

static int dist_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  PDS_CALL(pds_dist_halo_begin(A, x));
  PDS_CALL(pds_mat_apply_add(DIST(A)->Ad, alpha, x, beta, y)); /* overlaps the messages */
  if (pds_dist_halo_posted_late(A)) PDS_CALL(pds_dist_halo_post(A)); /* a device: the product is queued, now send */
  PDS_CALL(pds_dist_halo_end(A));
  return dist_apply_offrank(A, alpha, y);
}

static int dist_get_diagonal(pds_mat A, pds_vec d) { return pds_mat_get_diagonal(DIST(A)->Ad, d); }
static int dist_get_block_diagonal(pds_mat A, int bs, pds_real *blocks) {
  return pds_mat_get_block_diagonal(DIST(A)->Ad, bs, blocks);
}

/* every rank's rows, stored entries of Ad and Ao, ghosts and neighbours, printed by rank 0 (collective) */
static int dist_view(pds_mat A, FILE *f) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);
  const int        P   = ctx->size;
  pds_real        *t;
  int              ierr;

  PDS_CALL(PDS_NEW(ctx, (size_t)5 * P, &t)); /* each rank fills its five entries; the sum gathers them */
  t[5 * ctx->rank + 0] = A->nrows, t[5 * ctx->rank + 1] = (pds_real)D->Ad->nnz;
  t[5 * ctx->rank + 2] = D->Ao ? (pds_real)D->Ao->nnz : 0, t[5 * ctx->rank + 3] = (pds_real)D->nghost * D->bs;
  t[5 * ctx->rank + 4] = D->halo.nrecv + D->halo.nsend;
  ierr = pds_comm_sum(ctx, 5 * P, t);
  if (!ierr && ctx->rank == 0) {
    double ghosts = 0;

    for (int r = 0; r < P; r++) ghosts += t[5 * r + 3];
    fprintf(f, "  distributed over %d rank%s: %" PDS_INT_FMT " x %" PDS_INT_FMT " global, block size %d; halo: %s\n",
            P, P == 1 ? "" : "s", A->N, A->N, D->bs, pds_dist_halo_mode(A));
    fprintf(f, "  rows: %s; halo volume %.0f values a product (all ranks' ghosts)", D->partition ? D->partition :
            "as given by each rank", ghosts);
    if (D->edgecut >= 0 && D->partition) fprintf(f, ", edge cut %ld", D->edgecut);
    fprintf(f, "\n");
    fprintf(f, "  %6s %12s %12s %12s %10s %10s\n", "rank", "rows", "nnz(diag)", "nnz(off)", "ghosts", "neighbours");
    for (int r = 0; r < P; r++)
      fprintf(f, "  %6d %12.0f %12.0f %12.0f %10.0f %10.0f\n", r, t[5 * r], t[5 * r + 1], t[5 * r + 2], t[5 * r + 3],
              t[5 * r + 4] / 2);
  }
  pds_free(ctx, PDS_MEM_HOST, &t);
  return ierr;
}

static int dist_destroy(pds_mat A) {
  struct mat_dist *D = DIST(A);

  if (!D) return PDS_OK;
  pds_mat_destroy(&D->Ad);
  pds_mat_destroy(&D->Ao);
  pds_mat_destroy(&D->Apc);
  pds_dist_halo_free(A);
  pds_free(MAT_CTX(A), PDS_MEM_DEVICE, &D->orow_d);
  pds_free(MAT_CTX(A), PDS_MEM_HOST, &D->orow_h);
  pds_vec_destroy(&D->t);
  pds_vec_destroy(&D->ysub);
  pds_free(MAT_CTX(A), PDS_MEM_HOST, &D->ranges);
  pds_free(MAT_CTX(A), PDS_MEM_HOST, &D->orig);
  pds_order_release(MAT_CTX(A), &A->order);
  free(D);
  A->data = NULL;
  return PDS_OK;
}

/* ---- assembly from the rank's rows ------------------------------------------------------------------------ */

static int cmp_int(const void *a, const void *b) {
  const pds_int x = *(const pds_int *)a, y = *(const pds_int *)b;

  return (x > y) - (x < y);
}

/* the index of global block column c among the sorted ghosts g[0..n) */
static pds_int ghost_index(const pds_int *g, pds_int n, pds_int c) {
  pds_int lo = 0, hi = n - 1;

  while (lo < hi) {
    const pds_int mid = lo + (hi - lo) / 2;

    if (g[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Split the rank's block rows (global block columns) into Ad and Ao (host arrays of the context allocator, handed to
   the local matrices) and list the ghosts. Local work only: every failure is agreed by the caller. */
static int dist_split(pds_mat A, pds_int nb, int bs, const pds_size *rp, const pds_int *cj, const pds_real *v) {
  struct mat_dist *D   = DIST(A);
  pds_ctx          ctx = MAT_CTX(A);
  const pds_int    lo = (pds_int)D->ranges[ctx->rank], hi = (pds_int)D->ranges[ctx->rank + 1];
  const pds_int    Nb  = (pds_int)D->ranges[ctx->size];
  const size_t     b2  = (size_t)bs * bs;
  pds_size        *rd = NULL, *ro = NULL, nd = 0, no = 0;
  pds_int         *cd = NULL, *co = NULL, *gh = NULL, ng = 0, *orow = NULL, nro = 0;
  pds_real        *vd = NULL, *vo = NULL;
  int              ierr;

  for (pds_int i = 0; i < nb; i++) {
    PDS_CHECK(rp[i + 1] >= rp[i], ctx, PDS_ERR_ARG, "row pointer decreases at local block row %" PDS_INT_FMT, i);
    for (pds_size q = rp[i]; q < rp[i + 1]; q++) {
      PDS_CHECK(cj[q] >= 0 && cj[q] < Nb, ctx, PDS_ERR_ARG, "global column %" PDS_INT_FMT " of local block row %"
                PDS_INT_FMT " (global %" PDS_INT_FMT ") is outside 0 .. %" PDS_INT_FMT, cj[q], i, lo + i, Nb - 1);
      if (cj[q] >= lo && cj[q] < hi) nd++;
      else no++;
    }
  }
  ierr = PDS_NEW(ctx, nb + 1, &rd);
  if (!ierr) ierr = PDS_NEW(ctx, nb + 1, &ro);
  if (!ierr) ierr = PDS_NEW(ctx, nd ? nd : 1, &cd);
  if (!ierr) ierr = PDS_NEW(ctx, no ? no : 1, &co);
  if (!ierr) ierr = PDS_NEW(ctx, (nd ? nd : 1) * b2, &vd);
  if (!ierr) ierr = PDS_NEW(ctx, (no ? no : 1) * b2, &vo);
  if (!ierr) ierr = PDS_NEW(ctx, no ? no : 1, &gh);
  if (!ierr) ierr = PDS_NEW(ctx, nb + 1, &orow);
  if (ierr) goto fail;
  /* the ghosts: sorted, unique */
  for (pds_int i = 0; i < nb; i++)
    for (pds_size q = rp[i]; q < rp[i + 1]; q++)
      if (cj[q] < lo || cj[q] >= hi) gh[ng++] = cj[q];
  qsort(gh, (size_t)ng, sizeof *gh, cmp_int);
  {
    pds_int u = 0;

    for (pds_int k = 0; k < ng; k++)
      if (!u || gh[k] != gh[u - 1]) gh[u++] = gh[k];
    ng = u;
  }
  /* Ad: every row; Ao: only the rows with off-rank entries (orow lists them; PETSc's compressed rows), so that its
     product does not sweep y again where it adds nothing */
  nd = no = 0;
  for (pds_int i = 0; i < nb; i++) {
    const pds_size o0 = no;

    for (pds_size q = rp[i]; q < rp[i + 1]; q++) {
      if (cj[q] >= lo && cj[q] < hi) {
        cd[nd] = cj[q] - lo;
        memcpy(vd + nd++ * b2, v + q * b2, b2 * sizeof *v);
      } else {
        co[no] = ghost_index(gh, ng, cj[q]);
        memcpy(vo + no++ * b2, v + q * b2, b2 * sizeof *v);
      }
    }
    rd[i + 1] = nd;
    if (no > o0) orow[nro] = i, ro[++nro] = no;
  }
  D->ghost = gh, D->nghost = ng, gh = NULL;
  D->nrows_o = nro;
  ierr = pds_dup_array(ctx, PDS_MEM_DEVICE, orow, PDS_MEM_HOST, (size_t)(nro + 1) * sizeof *orow, &D->orow_d);
  if (!ierr) ierr = pds_vec_create(ctx, (pds_size)nro * bs, &D->t);
  if (!ierr) ierr = pds_vec_create(ctx, (pds_size)nro * bs, &D->ysub);
  if (ierr) goto fail;
  /* each call takes its three arrays (and frees them when it fails) */
  ierr = bs == 1 ? pds_mat_csr_from_host_owned(ctx, nb, nb, rd, cd, vd, &D->Ad)
                 : pds_mat_bsr_from_host_owned(ctx, nb, nb, bs, rd, cd, vd, &D->Ad);
  rd = NULL, cd = NULL, vd = NULL;
  if (ierr) goto fail;
  ierr = bs == 1 ? pds_mat_csr_from_host_owned(ctx, nro, ng, ro, co, vo, &D->Ao)
                 : pds_mat_bsr_from_host_owned(ctx, nro, ng, bs, ro, co, vo, &D->Ao);
  ro = NULL, co = NULL, vo = NULL;
  if (!ierr) {
    D->orow_h = orow; /* kept: the overlap's rows (dist_overlap.c) */
    return PDS_OK;
  }
fail:
  pds_free(ctx, PDS_MEM_HOST, &rd);
  pds_free(ctx, PDS_MEM_HOST, &ro);
  pds_free(ctx, PDS_MEM_HOST, &cd);
  pds_free(ctx, PDS_MEM_HOST, &co);
  pds_free(ctx, PDS_MEM_HOST, &vd);
  pds_free(ctx, PDS_MEM_HOST, &vo);
  pds_free(ctx, PDS_MEM_HOST, &gh);
  pds_free(ctx, PDS_MEM_HOST, &orow);
  return ierr;
}

/* the matrix and its layout (collective: an all-gather of the local sizes, which also agrees on ierr); *A NULL on
   failure */
static int dist_layout(pds_ctx ctx, int ierr, const char *type, pds_int nb, int bs, pds_mat *A) {
  pds_mat          M = NULL;
  struct mat_dist *D = NULL;
  pds_size        *all = NULL;

  *A = NULL;
  if (!ierr) ierr = pds_mat_alloc(ctx, type, 0, 0, &M);
  if (!ierr) ierr = PDS_NEW(ctx, 1, &D);
  if (!ierr) M->data = D, M->ops.destroy = dist_destroy, D->edgecut = -1;
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)ctx->size + 1, &all);
  ierr = pds_comm_allgather_size(ctx, ierr, nb, all ? all : &(pds_size){0});
  if (!ierr) {
    D->ranges = all, all = NULL, D->bs = bs;
    for (int r = ctx->size; r > 0; r--) D->ranges[r] = D->ranges[r - 1];
    D->ranges[0] = 0;
    for (int r = 0; r < ctx->size; r++) D->ranges[r + 1] += D->ranges[r];
    if (D->ranges[ctx->size] * bs > 0x7fffffff) /* the same on every rank */
      ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "%" PDS_SIZE_FMT " global rows: beyond 32-bit indices",
                       D->ranges[ctx->size] * bs);
  }
  pds_free(ctx, PDS_MEM_HOST, &all);
  if (ierr) pds_mat_destroy(&M);
  *A = M;
  return ierr;
}

/* what every distributed matrix sets once its rows and halo are made */
static void dist_finish(pds_ctx ctx, pds_mat M, pds_int nb, int bs) {
  struct mat_dist *D = DIST(M);

  M->nrows = M->ncols = nb * bs;
  M->bs               = bs;
  M->nnz              = D->Ad->nnz + (D->Ao ? D->Ao->nnz : 0);
  M->dist             = 1;
  M->N                = (pds_int)(D->ranges[ctx->size] * bs);
  M->lo               = (pds_int)(D->ranges[ctx->rank] * bs);
  M->ops.get_diagonal       = dist_get_diagonal;
  M->ops.get_block_diagonal = dist_get_block_diagonal;
  M->ops.view               = dist_view;
}

int pds_dist_create(pds_ctx ctx, int ierr, pds_int nb, int bs, const pds_size *rp, const pds_int *cj,
                    const pds_real *v, pds_mat *A) {
  pds_mat M = NULL;

  ierr = dist_layout(ctx, ierr, bs == 1 ? "mpicsr" : "mpibsr", nb, bs, &M);
  if (ierr) return ierr;
  ierr = pds_comm_agree(ctx, dist_split(M, nb, bs, rp, cj, v));
  if (!ierr) ierr = pds_dist_halo_setup(M); /* collective, agrees on its own failures */
  if (ierr) {
    pds_mat_destroy(&M);
    return ierr;
  }
  dist_finish(ctx, M, nb, bs);
  M->ops.apply = dist_apply;
  *A           = M;
  return PDS_OK;
}

int pds_dist_create_ghosts(pds_ctx ctx, int ierr, const char *type, pds_int nb, pds_mat Ad, pds_int *ghost,
                           pds_int nghost, pds_mat *A) {
  pds_mat M = NULL;

  *A   = NULL;
  ierr = dist_layout(ctx, ierr, type, nb, 1, &M);
  if (!ierr) {
    struct mat_dist *D  = DIST(M);
    const pds_int    lo = (pds_int)D->ranges[ctx->rank], hi = (pds_int)D->ranges[ctx->rank + 1];

    D->Ad = Ad, Ad = NULL, D->ghost = ghost, ghost = NULL, D->nghost = nghost;
    for (pds_int k = 0; k < nghost && !ierr; k++)
      if (D->ghost[k] < 0 || D->ghost[k] >= (pds_int)D->ranges[ctx->size] || (D->ghost[k] >= lo && D->ghost[k] < hi) ||
          (k && D->ghost[k] <= D->ghost[k - 1]))
        ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "ghost %" PDS_INT_FMT " (global row %" PDS_INT_FMT ") is owned by this "
                         "rank, outside the rows or out of ascending order", k, D->ghost[k]);
    ierr = pds_comm_agree(ctx, ierr);
    if (!ierr) ierr = pds_dist_halo_setup(M);
  }
  pds_mat_destroy(&Ad);
  pds_free(ctx, PDS_MEM_HOST, &ghost);
  if (ierr) {
    pds_mat_destroy(&M);
    return ierr;
  }
  dist_finish(ctx, M, nb, 1);
  *A = M;
  return PDS_OK;
}

static int dist_args(pds_ctx ctx, pds_int nb, int bs, const pds_size *rp, const pds_int *cj, const pds_real *v,
                     pds_mat *A) {
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(nb >= 0, ctx, PDS_ERR_SIZE, "local row count %" PDS_INT_FMT " is negative", nb);
  PDS_CHECK(bs >= 1 && bs <= 16, ctx, PDS_ERR_ARG, "block size %d is outside 1 .. 16", bs);
  PDS_CHECK(rp && (rp[nb] == 0 || (cj && v)), ctx, PDS_ERR_ARG, "rowptr, colidx or vals is NULL");
  PDS_CHECK(rp[0] == 0, ctx, PDS_ERR_ARG, "rowptr[0] is %" PDS_SIZE_FMT ", not 0", rp[0]);
  return PDS_OK;
}

int pds_mat_create_csr_dist(pds_ctx ctx, pds_int nlocal, const pds_size *rowptr, const pds_int *colidx,
                            const pds_real *vals, pds_mat *A) {
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  pds_comm_begin(ctx);
  return pds_dist_create(ctx, dist_args(ctx, nlocal, 1, rowptr, colidx, vals, A), nlocal, 1, rowptr, colidx, vals, A);
}

int pds_mat_create_bsr_dist(pds_ctx ctx, pds_int nblocal, int bs, const pds_size *browptr, const pds_int *bcolidx,
                            const pds_real *vals, pds_mat *A) {
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  pds_comm_begin(ctx);
  return pds_dist_create(ctx, dist_args(ctx, nblocal, bs, browptr, bcolidx, vals, A), nblocal, bs, browptr, bcolidx, vals,
                     A);
}

/* ---- queries ---------------------------------------------------------------------------------------------- */

int pds_mat_get_global_size(pds_mat A, pds_int *N) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(N, MAT_CTX(A), PDS_ERR_ARG, "result pointer is NULL");
  *N = A->dist ? A->N : A->nrows;
  return PDS_OK;
}

int pds_mat_get_ownership_range(pds_mat A, pds_int *lo, pds_int *hi) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  if (lo) *lo = A->dist ? A->lo : 0;
  if (hi) *hi = (A->dist ? A->lo : 0) + A->nrows;
  return PDS_OK;
}

int pds_mat_is_distributed(pds_mat A) { return A && A->hdr.classid == PDS_CLASSID_MAT && A->dist; }

int pds_mat_dist_get_local(pds_mat A, pds_mat *Ad, pds_mat *Ao) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(A->dist, MAT_CTX(A), PDS_ERR_ARG, "matrix is %s, not distributed", A->type);
  if (Ad) *Ad = DIST(A)->Ad;
  if (Ao) *Ao = DIST(A)->Ao;
  return PDS_OK;
}

int pds_mat_dist_get_ghost_count(pds_mat A, pds_int *n) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(n, MAT_CTX(A), PDS_ERR_ARG, "result pointer is NULL");
  *n = A->dist ? DIST(A)->nghost * DIST(A)->bs : 0;
  return PDS_OK;
}

pds_mat pds_mat_dist_local_pc(pds_mat A) { return DIST(A)->Apc ? DIST(A)->Apc : DIST(A)->Ad; }

void pds_mat_dist_set_partition(pds_mat A, const char *name, long edgecut, struct pds_order *order) {
  DIST(A)->partition = name;
  DIST(A)->edgecut   = edgecut;
  A->order           = order;
}

int pds_mat_row_vec(pds_mat A, pds_vec *v) {
  PDS_CALL(pds_vec_create(MAT_CTX(A), A->nrows, v));
  if (A->dist) pds_vec_set_layout(*v, 1, A->N, A->lo, A->order);
  return PDS_OK;
}

/* A's layout is known: the vectors need no all-gather, only (distributed) the agreement on an allocation failure */
int pds_mat_create_vecs(pds_mat A, pds_vec *x, pds_vec *b) {
  int ierr = PDS_OK;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  if (A->dist) pds_comm_begin(MAT_CTX(A));
  if (x) ierr = A->dist ? pds_mat_row_vec(A, x) /* square: the columns' layout is the rows' */
                        : pds_vec_create(MAT_CTX(A), A->ncols, x);
  if (!ierr && b) ierr = pds_mat_row_vec(A, b);
  if (A->dist) ierr = pds_comm_agree(MAT_CTX(A), ierr);
  if (ierr && x) pds_vec_destroy(x);
  if (ierr && b) pds_vec_destroy(b);
  return ierr;
}
