/* src/vec/vec_dist.c: distributed vectors: a rank's rows of a global vector (rows lo .. lo + n - 1 of N, ranks in
 * order), created collectively; the reductions of vec.c span the ranks through the helpers here. */
#include <stdlib.h>

#include "vec_impl.h"
#include "../sys/comm.h"

int pds_vec_create_dist(pds_ctx ctx, pds_size nlocal, pds_vec *v) {
  pds_size *all = NULL;
  pds_vec   w   = NULL;
  int       ierr;

  PDS_CHECK(v, ctx, PDS_ERR_ARG, "output handle is NULL");
  *v = NULL;
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  pds_comm_begin(ctx);
  ierr = pds_vec_create(ctx, nlocal, &w);
  if (!ierr) ierr = PDS_NEW(ctx, ctx->size, &all);
  ierr = pds_comm_allgather_size(ctx, ierr, nlocal, all ? all : &nlocal); /* every rank learns of a failure */
  if (!ierr) {
    w->dist = 1, w->N = 0;
    for (int r = 0; r < ctx->size; r++) {
      if (r == ctx->rank) w->lo = w->N;
      w->N += all[r];
    }
  }
  pds_free(ctx, PDS_MEM_HOST, &all);
  if (ierr) {
    pds_vec_destroy(&w);
    return ierr;
  }
  *v = w;
  return PDS_OK;
}

void pds_order_release(pds_ctx ctx, struct pds_order **o) {
  if (!*o) return;
  if (--(*o)->refct <= 0) {
    pds_free(ctx, PDS_MEM_HOST, &(*o)->old_of_new);
    pds_free(ctx, PDS_MEM_HOST, o);
  }
  *o = NULL;
}

int pds_vec_get_ownership_range(pds_vec v, pds_size *lo, pds_size *hi) {
  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  if (lo) *lo = v->lo;
  if (hi) *hi = v->lo + v->n;
  return PDS_OK;
}

int pds_vec_get_global_size(pds_vec v, pds_size *N) {
  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  PDS_CHECK(N, VEC_CTX(v), PDS_ERR_ARG, "result pointer is NULL");
  *N = v->N;
  return PDS_OK;
}

void pds_vec_set_layout(pds_vec v, int dist, pds_size N, pds_size lo, struct pds_order *order) {
  v->dist = dist, v->N = N, v->lo = lo;
  if ((v->order = order)) order->refct++;
}

int pds_vec_is_distributed(pds_vec v) { return v && v->hdr.classid == PDS_CLASSID_VEC && v->dist; }

int pds_vec_spans_ranks(pds_vec v) { return v->dist && pds_comm_parallel(VEC_CTX(v)); }

int pds_vec_allsum(pds_vec v, int k, pds_real *d) { return pds_vec_spans_ranks(v) ? pds_comm_sum(VEC_CTX(v), k, d) : PDS_OK; }

int pds_vec_allsum_dev(pds_vec v, pds_vec s, int i, int k) {
  pds_ctx  ctx = VEC_CTX(v);
  pds_real buf[64], *h = buf;
  int      ierr;

  if (!pds_vec_spans_ranks(v) || k <= 0) return PDS_OK;
  if (k > 64) PDS_CALL(PDS_NEW(ctx, (size_t)k, &h));
  /* the sums come to the host and go back (one small copy each way on a GPU; a device-side sum through NCCL is the
     remedy where that latency matters, docs/mpi.md) */
  ierr = pds_memcpy(ctx, h, PDS_MEM_HOST, s->d + i, PDS_MEM_DEVICE, (size_t)k * sizeof *h);
  if (!ierr) ierr = pds_comm_sum(ctx, k, h);
  if (!ierr) ierr = pds_memcpy(ctx, s->d + i, PDS_MEM_DEVICE, h, PDS_MEM_HOST, (size_t)k * sizeof *h);
  if (h != buf) pds_free(ctx, PDS_MEM_HOST, &h);
  return ierr;
}
