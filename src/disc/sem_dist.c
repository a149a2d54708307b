/* src/disc/sem_dist.c: the spectral-element operator spread over the ranks ("mpisem"; paper 003's operator as Neko
 * runs it on many processes), still matrix-free. The elements are cut into contiguous ranges, one a rank (or, with
 * the partitioner "metis", by METIS on the graph of the elements that share a corner, rank 0 cutting it: what follows
 * holds for any cut); a global point belongs to the rank of its first element (the lowest-numbered element that holds it), and the rows are
 * renumbered rank after rank, each rank's points in the space's order (the renumbering travels with the matrix, so
 * vector files stay in the space's numbering). A rank keeps every element that holds one of its points, its own and
 * those of other ranks along the cut (one layer of elements computed twice: an element of the cut costs each rank that
 * needs it its local product), as a share of the space: a sem matrix whose elements also reach the other ranks' points
 * of those elements (ghosts); the share's elements whose points are all the rank's come first (inner elements). A
 * product
 *   gathers the values the neighbours need and starts their exchange (src/mat/halo.c, the matrix's halo plan),
 *   runs the inner elements' D^T G D while the messages travel (the sem kernel group's elements phase),
 *   then, the ghosts received, the other elements', and the sum at each of the rank's points over all its elements,
 *   in the order of the whole space's gather-scatter (the assemble phase).
 * So the product and the diagonal are the one-rank operator's, bit for bit, on any number of ranks: every point's sum
 * runs over the same elements in the same order. The exchange carries one value a ghost point; no values travel back
 * (a shared point's sum is made whole on its rank, from the duplicated elements, instead of being summed across ranks
 * as a gather-scatter of element faces would). The rank's diagonal is complete for its rows: semjacobi and jacobi
 * need no communication, and bjacobi hands the share to its local preconditioner (semjacobi: the same iteration).
 *
 * Byte model of a product on the rank: the share's sem kernels (src/backend/cuda/cuda_sem.cu: about 21 bytes a local
 * point for affine elements, 69 deformed, + 12 + 13 nglob / nloc a point), the gather of the sent values (16 a value)
 * and the messages (8 bytes a ghost each way). The duplicated elements add their local points to the rank's. */
#include <stdlib.h>

#include "../graph/graph.h"
#include "../mat/dist_impl.h"
#include "sem_impl.h"

struct sem_cut {
  pds_int  *owner;      /* [nglob] the rank of each point */
  pds_int  *old_of_new; /* [nglob] global row -> the space's point */
  pds_size *first;      /* [P + 1] rank r's rows first[r] .. first[r + 1] - 1 */
};

static void cut_free(pds_ctx ctx, struct sem_cut *c) {
  pds_free(ctx, PDS_MEM_HOST, &c->owner), pds_free(ctx, PDS_MEM_HOST, &c->old_of_new);
  pds_free(ctx, PDS_MEM_HOST, &c->first);
}

/* the first element of rank r's range (E r / P, exact in 64 bits) */
static pds_int elem_first(pds_int E, int P, int r) { return (pds_int)((long long)E * r / P); }

/* the graph of the elements that share a corner (each element's 8 corner points' lists), for METIS */
static int elem_graph(pds_ctx ctx, const struct pds_sem_s *S, pds_size **ptr, pds_int **adj) {
  const int      n = S->n;
  const pds_size n3 = (pds_size)n * n * n;
  pds_int       *mark = NULL;
  int            ierr;

  *ptr = NULL, *adj = NULL;
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)S->E + 1, &mark));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)S->E + 1, ptr));
  for (int pass = 0; pass < 2; pass++) {
    for (pds_int e = 0; e < S->E; e++) mark[e] = -1;
    for (pds_int e = 0; e < S->E; e++) {
      pds_size m = pass ? (*ptr)[e] : 0;

      mark[e] = e;
      for (int c = 0; c < 8; c++) {
        const pds_size q = (c & 1 ? n - 1 : 0) + (pds_size)n * ((c & 2 ? n - 1 : 0) + (pds_size)n * (c & 4 ? n - 1 : 0));
        const pds_int  g = S->gid[n3 * e + q];

        for (pds_int k = S->gsptr[g]; k < S->gsptr[g + 1]; k++) {
          const pds_int f = (pds_int)(S->gsidx[k] / n3);

          if (mark[f] == e) continue;
          mark[f] = e;
          if (pass) (*adj)[m] = f;
          m++;
        }
      }
      if (!pass) (*ptr)[e + 1] = (*ptr)[e] + m;
    }
    if (!pass) PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (*ptr)[S->E] + 1, adj));
  }
  ierr = PDS_OK;
done:
  pds_free(ctx, PDS_MEM_HOST, &mark);
  if (ierr) pds_free(ctx, PDS_MEM_HOST, ptr), pds_free(ctx, PDS_MEM_HOST, adj);
  return ierr;
}

/* part[e]: the rank of each element (the same on every rank; collective, agreed): contiguous ranges, or METIS on the
   elements' graph (rank 0 cuts it and broadcasts the parts; *cut: the graph's edges cut) */
static int elem_parts(pds_ctx ctx, const struct pds_sem_s *S, int metis, pds_int *part, long *cut) {
  const int P = ctx->size;
  int       ierr = PDS_OK;

  *cut = -1;
  if (!metis || P == 1) {
    for (int r = 0; r < P; r++)
      for (pds_int e = elem_first(S->E, P, r); e < elem_first(S->E, P, r + 1); e++) part[e] = r;
    return PDS_OK;
  }
  if (ctx->rank == 0) {
    pds_size *ptr = NULL;
    pds_int  *adj = NULL;

    ierr = elem_graph(ctx, S, &ptr, &adj);
    if (!ierr) ierr = pds_graph_partition(ctx, S->E, ptr, adj, P, part, cut);
    pds_free(ctx, PDS_MEM_HOST, &ptr), pds_free(ctx, PDS_MEM_HOST, &adj);
  }
  ierr = pds_comm_agree(ctx, ierr);
  if (!ierr) ierr = pds_comm_bcast(ctx, part, (size_t)S->E * sizeof *part, 0);
  if (!ierr) ierr = pds_comm_bcast(ctx, cut, sizeof *cut, 0);
  return ierr;
}

/* who owns which point (the rank of its first element), and the renumbering (the same on every rank) */
static int sem_cut(pds_ctx ctx, const struct pds_sem_s *S, const pds_int *part, int P, struct sem_cut *c) {
  const pds_size n3 = (pds_size)S->n * S->n * S->n;
  pds_size      *next = NULL;

  PDS_CALL(PDS_NEW(ctx, (size_t)S->nglob + 1, &c->owner));
  PDS_CALL(PDS_NEW(ctx, (size_t)S->nglob + 1, &c->old_of_new));
  PDS_CALL(PDS_NEW(ctx, (size_t)P + 1, &c->first));
  PDS_CALL(PDS_NEW(ctx, (size_t)P + 1, &next));
  for (pds_int g = 0; g < S->nglob; g++) {
    const int r = (int)part[S->gsidx[S->gsptr[g]] / n3]; /* the first element's: gsidx ascends */

    c->owner[g] = r;
    c->first[r + 1]++;
  }
  for (int r = 0; r < P; r++) c->first[r + 1] += c->first[r], next[r] = c->first[r];
  for (pds_int g = 0; g < S->nglob; g++) c->old_of_new[next[c->owner[g]]++] = g;
  pds_free(ctx, PDS_MEM_HOST, &next);
  return PDS_OK;
}

/* the rank's share of S: the elements that hold one of its points, its rows 0 .. nown-1 in global-row order, then its
   ghosts (*ghost: their global rows, ascending, nghost of them) */
static int sem_share(pds_ctx ctx, const struct pds_sem_s *S, const struct sem_cut *c, int rank,
                     struct pds_sem_s **out, pds_int **ghost) {
  const pds_size    n3 = (pds_size)S->n * S->n * S->n;
  const pds_int     lo = (pds_int)c->first[rank], nown = (pds_int)(c->first[rank + 1] - c->first[rank]);
  pds_int          *lel = NULL, *loc = NULL, *gh = NULL, El = 0, Ei = 0, ng = 0;
  struct pds_sem_s *T = NULL;
  int               ierr;

  *out = NULL, *ghost = NULL;
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)S->E + 1, &lel)); /* element -> its place in the share, or -1 */
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)S->nglob + 1, &loc)); /* point -> its place in the share, or -1 */
  for (pds_int e = 0; e < S->E; e++) lel[e] = -1;
  for (pds_int g = 0; g < S->nglob; g++) loc[g] = -1;
  for (pds_int i = 0; i < nown; i++) { /* the elements of the rank's points */
    const pds_int g = c->old_of_new[lo + i];

    loc[g] = i;
    for (pds_int k = S->gsptr[g]; k < S->gsptr[g + 1]; k++) lel[S->gsidx[k] / n3] = -2;
  }
  /* the share's elements: first those whose points are all the rank's (their products need no ghost and overlap the
     exchange), then the others, each part in the space's order */
  for (pds_int e = 0; e < S->E; e++) {
    int inner = lel[e] == -2;

    for (pds_size q = 0; q < n3 && inner; q++) inner = c->owner[S->gid[n3 * e + q]] == rank;
    if (inner) lel[e] = El++;
  }
  Ei = El;
  for (pds_int e = 0; e < S->E; e++)
    if (lel[e] == -2) lel[e] = El++;
  /* the ghosts: the share's points of other ranks, by global row */
  for (pds_int e = 0; e < S->E; e++)
    if (lel[e] >= 0)
      for (pds_size q = 0; q < n3; q++) {
        const pds_int g = S->gid[n3 * e + q];

        if (loc[g] < 0) loc[g] = -2, ng++;
      }
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)ng + 1, &gh));
  ng = 0;
  for (pds_int k = 0; k < S->nglob; k++) { /* global rows ascending */
    const pds_int g = c->old_of_new[k];

    if (loc[g] == -2) loc[g] = nown + ng, gh[ng++] = k;
  }
  /* the share: what the operator reads (gid, G or K, mask, the lists; its coordinates and mass stay unset) */
  PDS_CALL_GOTO(ierr, done, pds_sem_alloc(ctx, S->n - 1, (double)El, &T));
  T->deform = S->deform, T->from_mesh = 1, T->nglob = nown, T->nghost = ng, T->einner = Ei;
  snprintf(T->mesh_note, sizeof T->mesh_note, "%s", S->mesh_note);
  if (S->K) PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, 6 * (size_t)El + 1, &T->K));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nown + ng + 1, &T->mask));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)nown + 1, &T->gsptr));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, T->nloc + 1, &T->gsidx));
  for (pds_int e = 0; e < S->E; e++) {
    const pds_int l = lel[e];

    if (l < 0) continue;
    for (pds_size q = 0; q < n3; q++) {
      const pds_int g = S->gid[n3 * e + q];

      T->gid[n3 * l + q] = loc[g];
      T->mask[loc[g]]    = S->mask[g];
    }
    memcpy(T->G + 6 * n3 * l, S->G + 6 * n3 * e, 6 * n3 * sizeof *T->G);
    if (S->K) memcpy(T->K + 6 * l, S->K + 6 * e, 6 * sizeof *T->K);
  }
  T->gsptr[0] = 0;
  for (pds_int i = 0; i < nown; i++) { /* the whole space's lists in their order (the elements' global order) */
    const pds_int g = c->old_of_new[lo + i];
    pds_int       m = T->gsptr[i];

    for (pds_int k = S->gsptr[g]; k < S->gsptr[g + 1]; k++)
      T->gsidx[m++] = (pds_int)(lel[S->gsidx[k] / n3] * n3 + S->gsidx[k] % n3);
    T->gsptr[i + 1] = m;
    T->nmask += T->mask[i];
  }
  *out = T, T = NULL, *ghost = gh, gh = NULL;
done:
  pds_sem_free(T);
  pds_free(ctx, PDS_MEM_HOST, &lel), pds_free(ctx, PDS_MEM_HOST, &loc), pds_free(ctx, PDS_MEM_HOST, &gh);
  return ierr;
}

/* y = alpha A x + beta y: the exchange started, the inner elements' products while it travels, then the others' with
   the ghosts received, then the sum at the rank's points */
static int semd_apply(pds_mat A, pds_real alpha, pds_vec x, pds_real beta, pds_vec y) {
  struct mat_dist *D = DIST(A);
  pds_vec          out = y;

  PDS_CALL(pds_dist_halo_begin(A, x));
  PDS_CALL(pds_mat_sem_elements(D->Ad, x, NULL, 0)); /* overlaps the messages */
  if (pds_dist_halo_posted_late(A)) PDS_CALL(pds_dist_halo_post(A)); /* a device: the products are queued, now send */
  PDS_CALL(pds_dist_halo_end(A));
  PDS_CALL(pds_mat_sem_elements(D->Ad, x, D->nghost ? D->g : NULL, 1));
  if (alpha != 1 || beta != 0) {
    if (!D->t) PDS_CALL(pds_mat_row_vec(A, &D->t));
    out = D->t;
  }
  PDS_CALL(pds_mat_sem_assemble(D->Ad, x, out));
  return out == y ? PDS_OK : pds_vec_axpby(y, alpha, out, beta);
}

int pds_mat_create_sem_dist(pds_sem sem, const char *partitioner, pds_mat *A) {
  pds_ctx           ctx;
  struct sem_cut    c;
  struct pds_sem_s *T = NULL;
  struct pds_order *o = NULL;
  pds_mat           Ad = NULL, M = NULL;
  pds_int          *ghost = NULL, *orig = NULL, *part = NULL, nghost = 0, nown = 0;
  long              cut = -1;
  int               metis, ierr;

  PDS_CHECK(sem && sem->hdr.classid == PDS_CLASSID_SEM, NULL, PDS_ERR_ARG,
            "sem is NULL or not a valid sem object (pds_sem_create_box)");
  ctx = sem->hdr.ctx;
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  metis = partitioner && !strcmp(partitioner, "metis");
  memset(&c, 0, sizeof c);
  pds_comm_begin(ctx);
  ierr = pds_comm_agree(ctx, !partitioner || metis || !strcmp(partitioner, "contiguous") ? PDS_OK :
                             PDS_ERROR(ctx, PDS_ERR_ARG, "mpisem: partitioner '%s' (contiguous or metis)", partitioner));
  if (ierr) return ierr;
  /* every rank must pass the same space and partitioner: the maxima of v and -v over the ranks differ otherwise (a
     mismatch fails on every rank) */
  {
    const pds_real shape[5] = {sem->n, sem->E, sem->nglob, sem->nghost, metis};
    pds_real       v[10];

    for (int k = 0; k < 5; k++) v[k] = shape[k], v[5 + k] = -shape[k];
    ierr = pds_comm_max(ctx, 10, v);
    if (!ierr && (v[3] != 0 || v[0] != -v[5] || v[1] != -v[6] || v[2] != -v[7]))
      ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "mpisem: the ranks pass different spaces (here %.0f elements of %.0f points a "
                       "direction, %.0f global points%s): every rank passes the same whole space", shape[1], shape[0],
                       shape[2], v[3] != 0 ? "; some rank a share" : "");
    else if (!ierr && v[4] != -v[9])
      ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "mpisem: the ranks ask for different partitioners (here %s)",
                       metis ? "metis" : "contiguous");
    if (ierr) return ierr; /* the same on every rank */
  }
  ierr = pds_comm_agree(ctx, PDS_NEW(ctx, (size_t)sem->E + 1, &part));
  if (!ierr) ierr = elem_parts(ctx, sem, metis, part, &cut); /* collective, agreed */
  if (!ierr) ierr = sem_cut(ctx, sem, part, ctx->size, &c);
  if (!ierr) ierr = sem_share(ctx, sem, &c, ctx->rank, &T, &ghost);
  if (!ierr) nown = T->nglob, nghost = T->nghost, ierr = pds_mat_create_sem(T, &Ad);
  if (!ierr) ierr = PDS_NEW(ctx, (size_t)nown + 1, &orig); /* the rank's points in the space's numbering */
  if (!ierr) memcpy(orig, c.old_of_new + c.first[ctx->rank], (size_t)nown * sizeof *orig);
  if (!ierr) ierr = PDS_NEW(ctx, 1, &o); /* the renumbering (on rank 0), for vector files in the space's numbering */
  if (!ierr) {
    o->bs = 1, o->nb = (pds_size)sem->nglob;
    if (ctx->rank == 0) o->old_of_new = c.old_of_new, c.old_of_new = NULL;
  }
  /* collective, agrees; takes Ad and ghost */
  ierr = pds_dist_create_ghosts(ctx, ierr, "mpisem", nown, Ad, ghost, nghost, &M);
  Ad = NULL, ghost = NULL;
  if (!ierr) {
    if (o) o->refct = 1;
    pds_mat_dist_set_partition(M, metis ? "whole elements per rank, cut by METIS (k-way, the elements' graph), a point "
                                          "on its first element's rank" : "whole elements per rank (contiguous "
                                          "ranges), a point on its first element's rank", cut, o);
    o = NULL;
    DIST(M)->orig = orig, orig = NULL;
    M->ops.apply = semd_apply;
    M->ops.apply_transpose = semd_apply; /* symmetric */
    *A = M;
  }
  if (o) {
    o->refct = 1;
    pds_order_release(ctx, &o);
  }
  pds_free(ctx, PDS_MEM_HOST, &orig), pds_free(ctx, PDS_MEM_HOST, &part);
  pds_sem_free(T);
  cut_free(ctx, &c);
  return ierr;
}

int pds_mat_sem_dist_get_points(pds_mat A, pds_int *points) {
  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  PDS_CHECK(!strcmp(A->type, "mpisem"), A->hdr.ctx, PDS_ERR_ARG, "the matrix is %s, not mpisem", A->type);
  PDS_CHECK(points || !A->nrows, A->hdr.ctx, PDS_ERR_ARG, "points is NULL");
  if (A->nrows) memcpy(points, DIST(A)->orig, (size_t)A->nrows * sizeof *points);
  return PDS_OK;
}
