/* src/mat/dist_overlap.c: what additive Schwarz (src/precond/asm.c) needs of a distributed matrix:
 *   - its rows extended by overlap 1: the rank's block rows and the rows of its ghosts (sent by their owners along the
 *     halo's plan: the rows a neighbour needs as ghosts are the rows whose rows it needs), restricted to the columns of
 *     that extended set, as an ordinary csr/bsr matrix of n + nghost block rows (own rows first, then the ghosts in
 *     ascending global order: the ghost vector's order), columns ascending in each row;
 *   - the ghost values of a vector (the product's halo exchange alone). */
#include <stdlib.h>

#include "dist_impl.h"

struct rows { /* a matrix's host block rows, csr or bsr alike */
  const pds_size *rp;
  const pds_int  *cj;
  const pds_real *v;
};

static int host_rows(pds_mat M, struct rows *r) {
  return strcmp(M->type, "bsr") ? pds_mat_csr_get_arrays(M, &r->rp, &r->cj, &r->v)
                                 : pds_mat_bsr_get_arrays(M, &r->rp, &r->cj, &r->v);
}

/* the extended index of global block column c (own: c - lo; a ghost: n + its place; else -1) */
static pds_int ext_index(const struct mat_dist *D, pds_int lo, pds_int n, pds_int c) {
  pds_int a = 0, b = D->nghost - 1;

  if (c >= lo && c < lo + n) return c - lo;
  while (a <= b) {
    const pds_int m = a + (b - a) / 2;

    if (D->ghost[m] == c) return n + m;
    if (D->ghost[m] < c) a = m + 1;
    else b = m - 1;
  }
  return -1;
}

/* sort the entries [a, e) of a row by column (insertion sort: rows are short), blocks of b2 values along */
static void sort_row(pds_int *cj, pds_real *v, size_t b2, pds_size a, pds_size e) {
  for (pds_size i = a + 1; i < e; i++)
    for (pds_size j = i; j > a && cj[j - 1] > cj[j]; j--) {
      pds_int t = cj[j];

      cj[j] = cj[j - 1], cj[j - 1] = t;
      for (size_t q = 0; q < b2; q++) {
        pds_real s = v[j * b2 + q];

        v[j * b2 + q] = v[(j - 1) * b2 + q], v[(j - 1) * b2 + q] = s;
      }
    }
}

int pds_mat_dist_overlap(pds_mat A, pds_mat *Aext) {
  struct mat_dist *D;
  pds_ctx          ctx;
  struct rows      d, o;
  pds_int          nb, ng, lo, *aorow = NULL, *cj = NULL;
  size_t           b2;
  pds_real        *slen = NULL, *rlen = NULL, *scol = NULL, *rcol = NULL, *sval = NULL, *rval = NULL, *v = NULL;
  pds_size         ns_e = 0, nr_e = 0, *rp = NULL, nnz = 0;
  struct pds_halo  h2;
  pds_mat          Ab = NULL; /* Ad, or its bsr copy when it is stencil7 */
  int              ierr;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(A->dist, MAT_CTX(A), PDS_ERR_ARG, "matrix is %s, not distributed", A->type);
  D = DIST(A), ctx = MAT_CTX(A), b2 = (size_t)D->bs * D->bs;
  PDS_CHECK(D->Ao, ctx, PDS_ERR_UNSUPPORTED, "the overlap needs the matrix's rows, and %s is applied matrix-free: "
            "bjacobi takes its local part (the same on every rank)", A->type);
  nb = A->nrows / D->bs, ng = D->nghost, lo = A->lo / D->bs;
  memset(&h2, 0, sizeof h2);
  /* the local rows on the host; which of Ao's compressed rows each local row is */
  if (!strcmp(D->Ad->type, "stencil7")) ierr = pds_mat_stencil7_to_bsr(D->Ad, &Ab); /* its rows, as bsr */
  else ierr = pds_mat_reference(Ab = D->Ad);
  if (!ierr) ierr = host_rows(Ab, &d);
  if (!ierr) ierr = host_rows(D->Ao, &o);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)nb + 1, &aorow);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)D->nsend + 1, &slen);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)ng + 1, &rlen);
  if (!ierr) {
    for (pds_int i = 0; i < nb; i++) aorow[i] = -1;
    for (pds_int k = 0; k < D->nrows_o; k++) aorow[D->orow_h[k]] = k;
    for (pds_int k = 0; k < D->nsend; k++) { /* the lengths of the rows sent */
      const pds_int i = D->send_h[k];

      slen[k] = (pds_real)(d.rp[i + 1] - d.rp[i]) + (aorow[i] >= 0 ? (pds_real)(o.rp[aorow[i] + 1] - o.rp[aorow[i]]) : 0);
      ns_e += (pds_size)slen[k];
    }
  }
  PDS_CALL_GOTO(ierr, done, pds_comm_agree(ctx, ierr)); /* no rank may stay behind in the exchanges below */
  ierr = pds_comm_halo_start(ctx, &D->halo, 1, slen, rlen);
  if (!ierr) ierr = pds_comm_halo_wait(ctx, &D->halo);
  /* the rows themselves: a second plan with the same neighbours, offsets counted in entries */
  if (!ierr) {
    h2.nsend = D->halo.nsend, h2.nrecv = D->halo.nrecv;
    h2.send_rank = D->halo.send_rank, h2.recv_rank = D->halo.recv_rank;
    ierr = PDS_NEW(ctx, (size_t)h2.nsend + 1, &h2.send_off);
    if (!ierr) ierr = PDS_NEW(ctx, (size_t)h2.nrecv + 1, &h2.recv_off);
    if (!ierr) ierr = pds_comm_halo_alloc(ctx, &h2);
  }
  if (!ierr) {
    for (int q = 0; q < h2.nsend; q++) {
      h2.send_off[q + 1] = h2.send_off[q];
      for (pds_size k = D->halo.send_off[q]; k < D->halo.send_off[q + 1]; k++) h2.send_off[q + 1] += (pds_size)slen[k];
    }
    for (int q = 0; q < h2.nrecv; q++) {
      h2.recv_off[q + 1] = h2.recv_off[q];
      for (pds_size k = D->halo.recv_off[q]; k < D->halo.recv_off[q + 1]; k++) h2.recv_off[q + 1] += (pds_size)rlen[k];
    }
    for (pds_int k = 0; k < ng; k++) nr_e += (pds_size)rlen[k];
    ierr = PDS_NEW(ctx, ns_e + 1, &scol);
    if (!ierr) ierr = PDS_NEW(ctx, nr_e + 1, &rcol);
    if (!ierr) ierr = PDS_NEW(ctx, (ns_e + 1) * b2, &sval);
    if (!ierr) ierr = PDS_NEW(ctx, (nr_e + 1) * b2, &rval);
  }
  if (!ierr) { /* each sent row: its entries with global block columns (exact as doubles up to 2^53) */
    pds_size e = 0;

    for (pds_int k = 0; k < D->nsend; k++) {
      const pds_int i = D->send_h[k];

      for (pds_size q = d.rp[i]; q < d.rp[i + 1]; q++, e++) {
        scol[e] = (pds_real)(lo + d.cj[q]);
        memcpy(sval + e * b2, d.v + q * b2, b2 * sizeof *sval);
      }
      if (aorow[i] >= 0)
        for (pds_size q = o.rp[aorow[i]]; q < o.rp[aorow[i] + 1]; q++, e++) {
          scol[e] = (pds_real)D->ghost[o.cj[q]];
          memcpy(sval + e * b2, o.v + q * b2, b2 * sizeof *sval);
        }
    }
  }
  PDS_CALL_GOTO(ierr, done, pds_comm_agree(ctx, ierr));
  ierr = pds_comm_halo_start(ctx, &h2, 1, scol, rcol);
  if (!ierr) ierr = pds_comm_halo_wait(ctx, &h2);
  if (!ierr) ierr = pds_comm_halo_start(ctx, &h2, (int)b2, sval, rval);
  if (!ierr) ierr = pds_comm_halo_wait(ctx, &h2);
  /* the extended matrix: own rows (Ad's columns, then Ao's as n + ghost), then the ghost rows restricted */
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)(nb + ng) + 1, &rp);
  if (!ierr) {
    nnz = d.rp[nb] + (D->nrows_o ? o.rp[D->nrows_o] : 0) + nr_e;
    ierr = PDS_NEW(ctx, nnz + 1, &cj);
    if (!ierr) ierr = PDS_NEW(ctx, (nnz + 1) * b2, &v);
  }
  if (!ierr) {
    pds_size e = 0, r = 0;

    for (pds_int i = 0; i < nb; i++) {
      for (pds_size q = d.rp[i]; q < d.rp[i + 1]; q++, e++) cj[e] = d.cj[q], memcpy(v + e * b2, d.v + q * b2, b2 * sizeof *v);
      if (aorow[i] >= 0)
        for (pds_size q = o.rp[aorow[i]]; q < o.rp[aorow[i] + 1]; q++, e++)
          cj[e] = nb + o.cj[q], memcpy(v + e * b2, o.v + q * b2, b2 * sizeof *v);
      sort_row(cj, v, b2, rp[i], e);
      rp[i + 1] = e;
    }
    for (pds_int k = 0; k < ng; k++) {
      const pds_size len = (pds_size)rlen[k];

      for (pds_size q = 0; q < len; q++, r++) {
        const pds_int c = ext_index(D, lo, nb, (pds_int)rcol[r]);

        if (c < 0) continue; /* a column beyond the overlap */
        cj[e] = c, memcpy(v + e * b2, rval + r * b2, b2 * sizeof *v), e++;
      }
      sort_row(cj, v, b2, rp[nb + k], e);
      rp[nb + k + 1] = e;
    }
    ierr = D->bs == 1 ? pds_mat_csr_from_host_owned(ctx, nb + ng, nb + ng, rp, cj, v, Aext)
                      : pds_mat_bsr_from_host_owned(ctx, nb + ng, nb + ng, D->bs, rp, cj, v, Aext);
    rp = NULL, cj = NULL, v = NULL; /* taken (freed on failure) */
  }
done:
  if (h2.req) pds_comm_halo_free(ctx, &h2);
  pds_free(ctx, PDS_MEM_HOST, &h2.send_off);
  pds_free(ctx, PDS_MEM_HOST, &h2.recv_off);
  pds_free(ctx, PDS_MEM_HOST, &aorow);
  pds_mat_destroy(&Ab);
  pds_free(ctx, PDS_MEM_HOST, &slen);
  pds_free(ctx, PDS_MEM_HOST, &rlen);
  pds_free(ctx, PDS_MEM_HOST, &scol);
  pds_free(ctx, PDS_MEM_HOST, &rcol);
  pds_free(ctx, PDS_MEM_HOST, &sval);
  pds_free(ctx, PDS_MEM_HOST, &rval);
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &cj);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

int pds_mat_dist_ghosts(pds_mat A, pds_vec x, pds_vec *g) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(A->dist, MAT_CTX(A), PDS_ERR_ARG, "matrix is %s, not distributed", A->type);
  PDS_CALL(pds_dist_halo_begin(A, x));
  if (pds_dist_halo_posted_late(A)) PDS_CALL(pds_dist_halo_post(A));
  PDS_CALL(pds_dist_halo_end(A));
  *g = DIST(A)->g;
  return PDS_OK;
}
