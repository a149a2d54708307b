/* src/io/mmio_dist.c: a Matrix Market matrix or vector read by rank 0 and scattered by contiguous rows (or block rows of
 * bs) into a distributed matrix or vector: rank r gets block rows floor(nb r / P) .. floor(nb (r+1) / P) - 1, the same
 * layout for the matrix and for the vectors of pds_mat_create_vecs. Rank 0 holds the whole file once (a host copy on
 * /cpu/ref, never on its GPU); the others hold only their rows. */
#include <stdlib.h>

#include "../graph/graph.h"
#include "../mat/mat_impl.h"
#include "../sys/comm.h"

/* the contiguous partition of nb block rows: rank r's first block row */
static pds_int part_first(pds_int nb, int P, int r) { return (pds_int)((int64_t)nb * r / P); }

struct mm_whole { /* rank 0: the file as block rows (renumbered by a partitioner: the p* arrays, owned) */
  pds_ctx         host;
  pds_mat         A, B;
  const pds_size *rp;
  const pds_int  *cj;
  const pds_real *v;
  pds_int         nb;
  int             bs;
  pds_size       *prp;
  pds_int        *pcj;
  pds_real       *pv;
};

/* rank 0: the whole matrix M (square, any format csr conversion takes) as block rows of bs on the host; what: its name
   in messages */
static int whole_of(pds_ctx ctx, pds_mat M, const char *what, int bs, struct mm_whole *w) {
  pds_int nr, nc;

  w->bs = bs;
  PDS_CALL(pds_mat_get_size(M, &nr, &nc));
  PDS_CHECK(nr == nc, ctx, PDS_ERR_SIZE, "%s: a distributed matrix must be square, not %" PDS_INT_FMT " x %" PDS_INT_FMT,
            what, nr, nc);
  PDS_CHECK(nr % bs == 0, ctx, PDS_ERR_SIZE, "%s: block size %d does not divide its %" PDS_INT_FMT " rows", what, bs,
            nr);
  if (bs == 1) {
    w->nb = nr;
    if (!w->A) PDS_CALL(pds_mat_convert_to_csr(M, &w->A)); /* M itself when it is csr */
    return pds_mat_csr_get_arrays(w->A, &w->rp, &w->cj, &w->v);
  }
  PDS_CALL(pds_mat_convert_to_bsr(M, bs, &w->B));
  w->nb = nr / bs;
  return pds_mat_bsr_get_arrays(w->B, &w->rp, &w->cj, &w->v);
}

static int read_whole(pds_ctx ctx, const char *path, int bs, struct mm_whole *w) {
  PDS_CALL(pds_ctx_create("/cpu/ref", &w->host));
  PDS_CALL(pds_mm_read_mat(w->host, path, &w->A));
  return whole_of(ctx, w->A, path, bs, w);
}

static void free_whole(pds_ctx ctx, struct mm_whole *w) {
  pds_mat_destroy(&w->B);
  pds_mat_destroy(&w->A);
  pds_ctx_destroy(&w->host);
  pds_free(ctx, PDS_MEM_HOST, &w->prp);
  pds_free(ctx, PDS_MEM_HOST, &w->pcj);
  pds_free(ctx, PDS_MEM_HOST, &w->pv);
}

/* rank 0: the block rows cut into P parts by METIS, renumbered part after part (each part's rows in their file order):
   first[r] is rank r's first block row, o->old_of_new the renumbering, w's arrays the renumbered matrix (P A P^T) */
static int partition_whole(pds_ctx ctx, struct mm_whole *w, int P, pds_size *first, struct pds_order *o, long *cut) {
  const size_t b2 = (size_t)w->bs * w->bs;
  pds_size    *gp = NULL;
  pds_int     *adj = NULL, *part = NULL, *new_of_old = NULL;
  int          ierr;

  ierr = pds_graph_of_pattern(ctx, w->nb, w->rp, w->cj, &gp, &adj);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)w->nb + 1, &part);
  if (!ierr) ierr = pds_graph_partition(ctx, w->nb, gp, adj, P, part, cut);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)w->nb + 1, &new_of_old);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)w->nb + 1, &o->old_of_new);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)w->nb + 1, &w->prp);
  if (!ierr) ierr = PDS_NEW(ctx, w->rp[w->nb] + 1, &w->pcj);
  if (!ierr) ierr = PDS_NEW(ctx, (w->rp[w->nb] + 1) * b2, &w->pv);
  if (!ierr) {
    pds_int k = 0;

    for (int r = 0; r <= P; r++) first[r] = 0;
    for (pds_int i = 0; i < w->nb; i++) first[part[i] + 1]++;
    for (int r = 0; r < P; r++) first[r + 1] += first[r];
    for (int r = 0; r < P; r++)
      for (pds_int i = 0; i < w->nb; i++)
        if (part[i] == r) o->old_of_new[k] = i, new_of_old[i] = k++;
    for (pds_int i = 0; i < w->nb; i++) { /* row i of P A P^T: row old_of_new[i] of A, columns renumbered */
      const pds_int  r = o->old_of_new[i];
      const pds_size a = w->rp[r], e = w->rp[r + 1];

      w->prp[i + 1] = w->prp[i] + (e - a);
      for (pds_size q = a; q < e; q++) {
        const pds_size t = w->prp[i] + (q - a);

        w->pcj[t] = new_of_old[w->cj[q]];
        memcpy(w->pv + t * b2, w->v + q * b2, b2 * sizeof *w->pv);
      }
    }
    w->rp = w->prp, w->cj = w->pcj, w->v = w->pv;
  }
  pds_free(ctx, PDS_MEM_HOST, &gp);
  pds_free(ctx, PDS_MEM_HOST, &adj);
  pds_free(ctx, PDS_MEM_HOST, &part);
  pds_free(ctx, PDS_MEM_HOST, &new_of_old);
  return ierr;
}

int pds_mat_load_dist(pds_ctx ctx, const char *path, int bs, pds_mat *A) {
  return pds_mat_load_dist_partitioned(ctx, path, bs, "contiguous", A);
}

/* rank 0 holds the whole matrix in w (or failed: ierr); the others nothing: the partition (contiguous block rows, or METIS
   on rank 0 and the matrix renumbered), the rows scattered, the distributed matrix made (collective) */
static int scatter_whole(pds_ctx ctx, int ierr, struct mm_whole *w, int bs, const char *partitioner, pds_mat *A) {
  const int         P = ctx->size, me = ctx->rank, metis = !strcmp(partitioner, "metis") && P > 1;
  pds_size          nbh = 0, *first = NULL, *cnt = NULL, *dsp = NULL, *rp = NULL, nnz = 0;
  pds_int          *lens = NULL, *cj = NULL;
  pds_real         *v = NULL;
  struct pds_order *o = NULL;
  long              cut = -1;

  if (!ierr) ierr = PDS_NEW(ctx, (size_t)P + 1, &first);
  if (!ierr && metis) ierr = PDS_NEW(ctx, 1, &o);
  if (!ierr && me == 0) {
    if (metis) ierr = partition_whole(ctx, w, P, first, o, &cut);
    else
      for (int r = 0; r <= P; r++) first[r] = (pds_size)part_first(w->nb, P, r);
    if (!ierr) nbh = (pds_size)w->nb;
  }
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = pds_comm_bcast(ctx, first, ((size_t)P + 1) * sizeof *first, 0);
  if (!ierr) ierr = pds_comm_bcast(ctx, &nbh, sizeof nbh, 0);
  if (ierr) goto done;
  {
    const pds_int mine = (pds_int)(first[me + 1] - first[me]);

    /* the row lengths, then the columns and values, each rank's rows in one message */
    ierr = PDS_NEW(ctx, 2 * (size_t)P, &cnt);
    if (!ierr) dsp = cnt + P, ierr = PDS_NEW(ctx, (size_t)mine + 1, &lens);
    if (!ierr) ierr = PDS_NEW(ctx, (size_t)mine + 1, &rp);
    if (!ierr && me == 0) {
      for (int r = 0; r < P; r++) dsp[r] = first[r], cnt[r] = first[r + 1] - first[r];
      ierr = PDS_NEW(ctx, (size_t)w->nb + 1, &cj); /* the lengths of all rows (reused below as the send of lengths) */
      for (pds_int i = 0; !ierr && i < w->nb; i++) cj[i] = (pds_int)(w->rp[i + 1] - w->rp[i]);
    }
    ierr = pds_comm_agree(ctx, ierr);
    if (!ierr) ierr = pds_comm_scatterv(ctx, cj, cnt, dsp, sizeof *lens, lens, mine, 0);
    if (ierr) goto done;
    pds_free(ctx, PDS_MEM_HOST, &cj);
    for (pds_int i = 0; i < mine; i++) rp[i + 1] = rp[i] + (pds_size)lens[i];
    nnz = rp[mine];
    ierr = PDS_NEW(ctx, nnz ? nnz : 1, &cj);
    if (!ierr) ierr = PDS_NEW(ctx, (nnz ? nnz : 1) * (size_t)bs * bs, &v);
    if (!ierr && me == 0)
      for (int r = 0; r < P; r++) dsp[r] = w->rp[first[r]], cnt[r] = w->rp[first[r + 1]] - w->rp[first[r]];
    ierr = pds_comm_agree(ctx, ierr);
    if (!ierr) ierr = pds_comm_scatterv(ctx, w->cj, cnt, dsp, sizeof *cj, cj, nnz, 0);
    if (!ierr && me == 0)
      for (int r = 0; r < P; r++) dsp[r] *= (pds_size)bs * bs, cnt[r] *= (pds_size)bs * bs;
    if (!ierr) ierr = pds_comm_scatterv(ctx, w->v, cnt, dsp, sizeof *v, v, nnz * bs * bs, 0);
    if (me == 0) free_whole(ctx, w); /* rank 0 keeps only its rows from here on */
    if (ierr) goto done;
    ierr = bs == 1 ? pds_mat_create_csr_dist(ctx, mine, rp, cj, v, A) : pds_mat_create_bsr_dist(ctx, mine, bs, rp, cj, v, A);
    if (!ierr) {
      if (o) o->refct = 1, o->bs = bs, o->nb = nbh;
      pds_mat_dist_set_partition(*A, metis ? "cut by METIS (k-way), renumbered part after part" : "contiguous",
                                 cut, o);
      o = NULL;
    }
  }
done:
  if (me == 0) free_whole(ctx, w);
  if (o) o->refct = 1, pds_order_release(ctx, &o);
  pds_free(ctx, PDS_MEM_HOST, &first);
  pds_free(ctx, PDS_MEM_HOST, &cnt);
  pds_free(ctx, PDS_MEM_HOST, &lens);
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &cj);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

/* the arguments of a matrix spread from rank 0 */
static int dist_from_args(pds_ctx ctx, int bs, const char *partitioner, pds_mat *A) {
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(bs >= 1 && bs <= 16, ctx, PDS_ERR_ARG, "block size %d is outside 1 .. 16", bs);
  PDS_CHECK(partitioner && (!strcmp(partitioner, "contiguous") || !strcmp(partitioner, "metis")), ctx, PDS_ERR_ARG,
            "unknown partitioner '%s' (known: contiguous, metis)", partitioner ? partitioner : "(null)");
  return PDS_OK;
}

int pds_mat_load_dist_partitioned(pds_ctx ctx, const char *path, int bs, const char *partitioner, pds_mat *A) {
  struct mm_whole w = {0};
  int             ierr = PDS_OK;

  PDS_CALL(dist_from_args(ctx, bs, partitioner, A));
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  pds_comm_begin(ctx);
  if (ctx->rank == 0) {
    ierr = read_whole(ctx, path, bs, &w);
    if (ierr && w.host && pds_ctx_get_error_code(w.host)) /* the reader's message is on its own context */
      ierr = PDS_ERROR(ctx, ierr, "%s", pds_ctx_get_error(w.host));
  }
  return scatter_whole(ctx, ierr, &w, bs, partitioner, A);
}

int pds_mat_scatter_dist(pds_ctx ctx, pds_mat S, int bs, const char *partitioner, pds_mat *A) {
  struct mm_whole w = {0};
  int             ierr = PDS_OK;

  PDS_CALL(dist_from_args(ctx, bs, partitioner, A));
  pds_comm_begin(ctx);
  if (ctx->rank == 0) {
    if (!S || S->hdr.classid != PDS_CLASSID_MAT)
      ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "pds_mat_scatter_dist: rank 0 has no matrix to spread");
    else if (S->dist) ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "pds_mat_scatter_dist: the matrix is already distributed");
    else {
      ierr = whole_of(ctx, S, "the matrix of rank 0", bs, &w);
      if (ierr && pds_ctx_get_error_code(S->hdr.ctx) && S->hdr.ctx != ctx) /* a conversion's message on S's context */
        ierr = PDS_ERROR(ctx, ierr, "%s", pds_ctx_get_error(S->hdr.ctx));
    }
  }
  return scatter_whole(ctx, ierr, &w, bs, partitioner, A);
}

/* A vector file into v's rows (v distributed, or not: then the whole file), read by rank 0 and scattered by v's
   layout; the file's length must be v's global length. */
/* every rank's length all[r] and first row all[size + r] of the distributed v (*all: new; one all-gather, which also
   agrees on an allocation failure) */
static int vec_parts(pds_vec v, pds_size **all) {
  pds_ctx  ctx = VEC_CTX(v);
  pds_size n   = 0;
  int      ierr;

  ierr = PDS_NEW(ctx, 2 * (size_t)ctx->size, all);
  ierr = pds_comm_allgather_size(ctx, ierr, v->n, *all ? *all : &n);
  for (int r = 1; !ierr && r < ctx->size; r++) (*all)[ctx->size + r] = (*all)[ctx->size + r - 1] + (*all)[r - 1];
  return ierr;
}

/* rank 0, a vector made from a renumbered matrix: dst = src permuted between the file's numbering and the matrix's
   (to_matrix: dst[i] = src[old_of_new[i]], by blocks of bs; else the inverse); else NULL (src is used as it is) */
static int order_copy(pds_ctx ctx, const struct pds_order *o, const pds_real *src, int to_matrix, pds_real **dst) {
  *dst = NULL;
  if (!o || !o->old_of_new) return PDS_OK;
  PDS_CALL(PDS_NEW(ctx, o->nb * o->bs + 2, dst));
  for (pds_size i = 0; i < o->nb; i++)
    for (int u = 0; u < o->bs; u++) {
      const pds_size a = i * o->bs + u, b = (pds_size)o->old_of_new[i] * o->bs + u;

      if (to_matrix) (*dst)[a] = src[b];
      else (*dst)[b] = src[a];
    }
  return PDS_OK;
}

/* rank 0 holds the whole vector src of n entries, in the file's (the user's) numbering (or failed: ierr): v's rows of it
   (collective); what names it in messages */
static int scatter_values(pds_vec v, int ierr, const pds_real *src, pds_size n, const char *what) {
  pds_ctx   ctx = VEC_CTX(v);
  pds_size  N = 0, *all = NULL, *dsp;
  pds_real *h = NULL, *perm = NULL;

  if (!ierr) ierr = pds_vec_get_global_size(v, &N);
  if (!ierr && ctx->rank == 0 && n != N)
    ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "%s has %" PDS_SIZE_FMT " entries, the distributed vector %" PDS_SIZE_FMT, what,
                     n, N);
  if (!ierr && ctx->rank == 0) ierr = order_copy(ctx, v->order, src, 1, &perm); /* to the matrix's numbering */
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = vec_parts(v, &all);
  if (ierr) goto done;
  dsp  = all + ctx->size;
  ierr = PDS_NEW(ctx, v->n + 1, &h);
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = pds_comm_scatterv(ctx, perm ? perm : src, all, dsp, sizeof *h, h, v->n, 0);
  if (!ierr) ierr = pds_vec_set_values(v, h, PDS_MEM_HOST);
  ierr = pds_comm_agree(ctx, ierr);
done:
  pds_free(ctx, PDS_MEM_HOST, &h);
  pds_free(ctx, PDS_MEM_HOST, &perm);
  pds_free(ctx, PDS_MEM_HOST, &all);
  return ierr;
}

int pds_vec_load_dist(pds_vec v, const char *path) {
  pds_ctx         ctx;
  pds_vec         whole = NULL;
  pds_ctx         host  = NULL;
  pds_size        n = 0;
  const pds_real *src = NULL;
  int             ierr = PDS_OK;

  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  ctx = VEC_CTX(v);
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  pds_comm_begin(ctx);
  if (!v->dist) { /* an ordinary vector: every rank reads */
    PDS_CALL(pds_mm_read_vec(ctx, path, &whole));
    ierr = pds_vec_get_size(whole, &n);
    if (!ierr && n != v->n) ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "%s has %" PDS_SIZE_FMT " entries, the vector %"
                                             PDS_SIZE_FMT, path, n, v->n);
    if (!ierr) ierr = pds_vec_copy(whole, v);
    pds_vec_destroy(&whole);
    return ierr;
  }
  if (ctx->rank == 0) {
    ierr = pds_ctx_create("/cpu/ref", &host);
    if (!ierr) ierr = pds_mm_read_vec(host, path, &whole);
    if (ierr && host) ierr = PDS_ERROR(ctx, ierr, "%s", pds_ctx_get_error(host));
    if (!ierr) ierr = pds_vec_get_size(whole, &n);
    if (!ierr) ierr = pds_vec_get_array_read(whole, PDS_MEM_HOST, &src);
  }
  ierr = scatter_values(v, ierr, src, n, path);
  if (src) pds_vec_restore_array_read(whole, &src);
  pds_vec_destroy(&whole);
  pds_ctx_destroy(&host);
  return ierr;
}

int pds_vec_scatter_dist(pds_vec v, pds_vec s) {
  pds_ctx         ctx;
  pds_size        n = 0;
  const pds_real *src = NULL;
  int             ierr = PDS_OK;

  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  ctx = VEC_CTX(v);
  PDS_CHECK(v->dist, ctx, PDS_ERR_ARG, "pds_vec_scatter_dist: the target is not distributed");
  pds_comm_begin(ctx);
  if (ctx->rank == 0) {
    if (!s || s->hdr.classid != PDS_CLASSID_VEC || s->dist)
      ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "pds_vec_scatter_dist: rank 0 has no whole vector to spread");
    if (!ierr) ierr = pds_vec_get_size(s, &n);
    if (!ierr) ierr = pds_vec_get_array_read(s, PDS_MEM_HOST, &src);
  }
  ierr = scatter_values(v, ierr, src, n, "the vector of rank 0");
  if (src) pds_vec_restore_array_read(s, &src);
  return ierr;
}

/* A distributed vector gathered on rank 0 and written there as one Matrix Market array file (collective); a vector
   that is not distributed is written by rank 0 alone. Every rank returns rank 0's success or failure. */
int pds_vec_write_dist(pds_vec v, const char *path) {
  pds_ctx         ctx, host = NULL;
  pds_vec         whole = NULL;
  pds_size       *all = NULL, *dsp = NULL, N = 0;
  pds_real       *h   = NULL, *perm = NULL;
  const pds_real *mine = NULL;
  int             ierr = PDS_OK;

  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  ctx = VEC_CTX(v);
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  pds_comm_begin(ctx);
  if (!v->dist) return pds_comm_agree(ctx, ctx->rank == 0 ? pds_mm_write_vec(v, path) : PDS_OK);
  PDS_CALL_GOTO(ierr, done, vec_parts(v, &all));
  dsp = all + ctx->size;
  N = v->N;
  if (ctx->rank == 0) ierr = PDS_NEW(ctx, N + 2, &h); /* + 2: aligned and never empty */
  if (!ierr) ierr = pds_vec_get_array_read(v, PDS_MEM_HOST, &mine);
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = pds_comm_gatherv(ctx, mine, v->n, sizeof *h, h, all, dsp, 0);
  if (!ierr && ctx->rank == 0) {
    ierr = order_copy(ctx, v->order, h, 0, &perm); /* the matrix's numbering back to the file's */
    if (!ierr) ierr = pds_ctx_create("/cpu/ref", &host);
    if (!ierr) ierr = pds_vec_create_with_array(host, N, PDS_MEM_HOST, perm ? perm : h, &whole);
    if (!ierr) ierr = pds_mm_write_vec(whole, path);
    if (ierr && host && pds_ctx_get_error_code(host)) ierr = PDS_ERROR(ctx, ierr, "%s", pds_ctx_get_error(host));
  }
  ierr = pds_comm_agree(ctx, ierr);
done:
  if (mine) pds_vec_restore_array_read(v, &mine);
  pds_vec_destroy(&whole);
  pds_ctx_destroy(&host);
  pds_free(ctx, PDS_MEM_HOST, &h);
  pds_free(ctx, PDS_MEM_HOST, &perm);
  pds_free(ctx, PDS_MEM_HOST, &all);
  return ierr;
}
