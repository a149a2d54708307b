/* src/precond/ilu0.c: ILU(0) of a general sparse matrix: csr (scalar) or bsr (block ILU(0), the diagonal blocks
 * inverted by Gauss-Jordan and stored inverted, as in bilu0); a stencil7 operator is taken through its BSR copy.
 * IKJ form, no fill outside the pattern (src/precond/ilu0_kernels.h has the recurrence). Setup copies the pattern
 * into the factor's (A's with every diagonal block present, columns ascending), has the backend analyse it
 * (plan_create: level schedules, ...), loads A's values and factors in place. The analysis is kept while the
 * operator's pattern stays: a new matrix of the same pattern (pds_precond_set_operator then pds_precond_setup, or
 * pds_precond_update_values, which also checks that the pattern is the same) costs a pattern comparison, the copy
 * of the values and the factorization, no analysis. A zero (singular) pivot is PDS_ERR_ZERO_PIVOT naming the row;
 * pds_precond_ilu0_set_shift(pc, s) factors A + s I instead (a structurally missing diagonal counts as zero).
 * The approximate variants run here, from the group's row-independent steps (ilu0_kernels.h: jacobi, chow), so every
 * backend has them with the same bits: approx-jacobi factors exactly (the backend's own way, variant auto) and
 * applies each triangle by a fixed number of Jacobi sweeps; approx-chow also factors by a fixed number of Chow-Patel
 * sweeps, with no analysis of the pattern at all. */
#include <math.h>

#include "../graph/graph.h"
#include "precond_impl.h"

#define ILU0_MAX_BS 64 /* the largest block the kernels take (src/backend/ilu0_bodies.h: ILU0_MAXB) */
#define ILU0_SWEEPS_DEFAULT 3        /* Jacobi sweeps per triangle of the approximate variants */
#define ILU0_FACTOR_SWEEPS_DEFAULT 3 /* Chow-Patel sweeps of approx-chow */

enum { EXACT = 0, APPROX_JACOBI = 1, APPROX_CHOW = 2 };

struct ilu0 {
  char                   variant[16]; /* pds_precond_ilu0_set_variant's name */
  char                   ordering[16]; /* natural, rcm or multicolor */
  pds_real               shift;
  /* the operator's pattern the factor is for (host copies: a new operator is compared with them) */
  int                    have;        /* a pattern is analysed */
  unsigned long          id;          /* the id of the last matrix found to have it (its arrays never change) */
  pds_size               nnzb_a;      /* A's blocks (F's block rows and block size are A's too) */
  pds_size              *a_rowptr;
  pds_int               *a_colidx;
  pds_size              *fmap;        /* host [nnzb_a]: the factor position of A's block e; NULL: the same positions */
  struct pds_ilu0_factor F;           /* backend memory */
  pds_real              *stage;       /* host [F.nnzb bs^2]: the values scattered into the factor's pattern (fmap) */
  void                  *plan;
  pds_int               *perm;        /* host [nbrows]: the factor's block row i is A's perm[i] (NULL: natural) */
  pds_int               *perm_d;      /* backend copy of perm */
  pds_real              *work;        /* backend [nbrows bs]: the permuted vector of an application */
  pds_int                ncolors;     /* multicolor: the colours */
  int                    approx;      /* EXACT, APPROX_JACOBI, APPROX_CHOW (from variant) */
  int                    sweeps;      /* Jacobi sweeps per triangle (approximate variants) */
  int                    fsweeps;     /* Chow-Patel sweeps (approx-chow) */
  pds_real              *aval;        /* approx-chow, backend [F.nnzb bs^2]: A's values in the factor's pattern */
  pds_real              *gvals;       /* approx-chow, backend: the other iterate (F.vals and gvals alternate) */
  pds_real              *jw;          /* approximate variants, backend [3 nbrows bs]: the sweeps' iterates */
  pds_mat                bsr;         /* a stencil7 operator's BSR copy */
  unsigned long          bsr_of;      /* the id of the stencil7 matrix it was made from */
};

static int ilu0_of(pds_precond pc, struct ilu0 **P) { return pds_precond_data(pc, "ilu0", (void **)P); }

int pds_precond_ilu0_set_shift(pds_precond pc, pds_real shift) {
  struct ilu0 *P = NULL;

  PDS_CALL(ilu0_of(pc, &P));
  PDS_CHECK(isfinite(shift), pc->hdr.ctx, PDS_ERR_ARG, "ilu0 shift %g is not finite", shift);
  if (P->shift != shift) pc->setup_done = 0;
  P->shift = shift;
  return PDS_OK;
}

static void pattern_free(pds_ctx ctx, struct ilu0 *P) {
  if (P->plan) ctx->k->ilu0.plan_destroy(ctx, P->plan);
  P->plan = NULL, P->have = 0;
  pds_free(ctx, PDS_MEM_HOST, &P->a_rowptr), pds_free(ctx, PDS_MEM_HOST, &P->a_colidx);
  pds_free(ctx, PDS_MEM_HOST, &P->fmap), pds_free(ctx, PDS_MEM_HOST, &P->stage);
  pds_free(ctx, PDS_MEM_DEVICE, &P->F.rowptr), pds_free(ctx, PDS_MEM_DEVICE, &P->F.colidx);
  pds_free(ctx, PDS_MEM_DEVICE, &P->F.diag), pds_free(ctx, PDS_MEM_DEVICE, &P->F.vals);
  pds_free(ctx, PDS_MEM_HOST, &P->perm), pds_free(ctx, PDS_MEM_DEVICE, &P->perm_d);
  pds_free(ctx, PDS_MEM_DEVICE, &P->work);
  pds_free(ctx, PDS_MEM_DEVICE, &P->aval), pds_free(ctx, PDS_MEM_DEVICE, &P->gvals);
  pds_free(ctx, PDS_MEM_DEVICE, &P->jw);
  P->ncolors = 0;
}

int pds_precond_ilu0_set_variant(pds_precond pc, const char *variant) {
  struct ilu0 *P = NULL;

  PDS_CALL(ilu0_of(pc, &P));
  PDS_CHECK(variant && strlen(variant) < sizeof P->variant, pc->hdr.ctx, PDS_ERR_ARG,
            "ilu0 variant: a name of at most %zu characters", sizeof P->variant - 1);
  if (strcmp(P->variant, variant)) pattern_free(pc->hdr.ctx, P), pc->setup_done = 0; /* a new plan */
  snprintf(P->variant, sizeof P->variant, "%s", variant);
  P->approx = !strcmp(variant, "approx-jacobi") ? APPROX_JACOBI : !strcmp(variant, "approx-chow") ? APPROX_CHOW : EXACT;
  return PDS_OK;
}

int pds_precond_ilu0_set_sweeps(pds_precond pc, int sweeps, int factor_sweeps) {
  struct ilu0 *P = NULL;

  PDS_CALL(ilu0_of(pc, &P));
  if (sweeps < 0) sweeps = P->sweeps;
  if (factor_sweeps < 0) factor_sweeps = P->fsweeps;
  PDS_CHECK(sweeps <= 1000, pc->hdr.ctx, PDS_ERR_ARG,
            "ilu0: %d Jacobi sweeps per triangle; 0 (block Jacobi) to 1000", sweeps);
  PDS_CHECK(factor_sweeps >= 1 && factor_sweeps <= 1000, pc->hdr.ctx, PDS_ERR_ARG,
            "ilu0: %d Chow-Patel sweeps; 1 to 1000", factor_sweeps);
  if (P->fsweeps != factor_sweeps && P->approx == APPROX_CHOW) pc->setup_done = 0;
  P->sweeps = sweeps, P->fsweeps = factor_sweeps;
  return PDS_OK;
}

int pds_precond_ilu0_set_ordering(pds_precond pc, const char *ordering) {
  static const char *const names[] = {"natural", "rcm", "multicolor"};
  struct ilu0             *P       = NULL;
  int                      known   = 0;

  PDS_CALL(ilu0_of(pc, &P));
  for (int i = 0; i < 3; i++) known |= ordering && !strcmp(ordering, names[i]);
  PDS_CHECK(known, pc->hdr.ctx, PDS_ERR_ARG, "ilu0 ordering '%s': natural, rcm or multicolor",
            ordering ? ordering : "(null)");
  if (strcmp(P->ordering, ordering)) pattern_free(pc->hdr.ctx, P), pc->setup_done = 0; /* a new analysis */
  snprintf(P->ordering, sizeof P->ordering, "%s", ordering);
  return PDS_OK;
}

/* the operator as block CSR on the host: a csr matrix (bs 1), a bsr one, or a stencil7 one's BSR copy */
struct view {
  pds_int         nbrows;
  int             bs;
  pds_size        nnzb;
  const pds_size *rowptr;
  const pds_int  *colidx;
  const pds_real *vals;  /* NULL: a bsr matrix born on the device whose host values are not made yet (host_vals) */
  const pds_real *dvals; /* the same values in backend memory (NULL: none) */
  unsigned long   id;    /* the matrix's id */
  pds_mat         mat;   /* the matrix viewed */
};

/* v's host values: downloaded for a bsr matrix born on the device (only the reordering's staging needs them) */
static int host_vals(struct view *v) {
  if (v->vals) return PDS_OK;
  PDS_CALL(pds_mat_bsr_host_sync(v->mat));
  v->vals = pds_mat_host_bsr(v->mat)->vals;
  return PDS_OK;
}

static int operator_view(pds_precond pc, struct view *v) {
  struct ilu0 *P   = pc->data;
  pds_ctx      ctx = pc->hdr.ctx;
  pds_mat      A   = pc->A;
  int          nb  = 0;

  if (pds_mat_stencil7_grids(A, &nb)) {
    if (!P->bsr || P->bsr_of != A->id) { /* a matrix never changes: the copy of the same one stays valid */
      pds_mat_destroy(&P->bsr);
      PDS_CALL(pds_mat_stencil7_to_bsr(A, &P->bsr));
      P->bsr_of = A->id;
    }
    A = P->bsr;
  } else pds_mat_destroy(&P->bsr);
  if (!strcmp(A->type, "csr")) {
    const struct pds_csr *h;

    PDS_CALL(pds_mat_csr_host_sync(A));
    h         = pds_mat_host_csr(A);
    v->nbrows = h->nrows, v->bs = 1, v->nnzb = h->nnz, v->rowptr = h->rowptr, v->colidx = h->colidx;
    v->vals = h->vals, v->dvals = ((const struct pds_mat_csr *)A->data)->d.vals, v->id = A->id, v->mat = A;
    return PDS_OK;
  }
  if (!strcmp(A->type, "bsr")) {
    const struct pds_bsr *h = pds_mat_host_bsr(A);

    v->nbrows = h->nbrows, v->bs = h->bs, v->nnzb = h->nnzb, v->rowptr = h->browptr, v->colidx = h->bcolidx;
    v->vals = h->vals, v->dvals = ((const struct pds_mat_bsr *)A->data)->d.vals, v->id = A->id, v->mat = A;
    PDS_CHECK(v->bs <= ILU0_MAX_BS, ctx, PDS_ERR_UNSUPPORTED, "ilu0: blocks of %d x %d; at most %d x %d", v->bs,
              v->bs, ILU0_MAX_BS, ILU0_MAX_BS);
    return PDS_OK;
  }
  return PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "ilu0 needs a csr, bsr or stencil7 matrix, not %s", A->type);
}

/* whether v has the pattern the factor was built for: the matrix it was last seen in (a matrix never changes), or
   one whose arrays compare equal */
static int same_pattern(const struct ilu0 *P, const struct view *v) {
  if (P->have && v->id == P->id) return 1;
  return P->have && P->F.nbrows == v->nbrows && P->F.bs == v->bs && P->nnzb_a == v->nnzb &&
         !memcmp(P->a_rowptr, v->rowptr, ((size_t)v->nbrows + 1) * sizeof *v->rowptr) &&
         !memcmp(P->a_colidx, v->colidx, (size_t)v->nnzb * sizeof *v->colidx);
}

/* perm (new -> old) of the ordering, from the graph of v's pattern made symmetric (src/graph/pattern.c) */
static int ordering_perm(pds_ctx ctx, struct ilu0 *P, const struct view *v, pds_int *perm) {
  const pds_int n   = v->nbrows;
  pds_size     *ptr = NULL;
  pds_int      *adj = NULL, *col = NULL;
  int           ierr;

  PDS_CALL_GOTO(ierr, done, pds_graph_of_pattern(ctx, n, v->rowptr, v->colidx, &ptr, &adj));
  if (!strcmp(P->ordering, "rcm")) PDS_CALL_GOTO(ierr, done, pds_graph_rcm(ctx, n, ptr, adj, perm));
  else { /* multicolor: the rows by colour, ascending within one */
    pds_size *start = NULL;

    PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &col));
    PDS_CALL_GOTO(ierr, done, pds_graph_color(ctx, n, ptr, adj, col, &P->ncolors));
    PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)P->ncolors + 1, &start));
    for (pds_int i = 0; i < n; i++) start[col[i] + 1]++;
    for (pds_int c = 0; c < P->ncolors; c++) start[c + 1] += start[c];
    for (pds_int i = 0; i < n; i++) perm[start[col[i]]++] = i;
    pds_free(ctx, PDS_MEM_HOST, &start);
  }
  ierr = PDS_OK;
done:
  pds_free(ctx, PDS_MEM_HOST, &ptr), pds_free(ctx, PDS_MEM_HOST, &adj), pds_free(ctx, PDS_MEM_HOST, &col);
  return ierr;
}

/* the factor's pattern from v's (host): each row's columns ascending, its diagonal added where missing (fmap: where
   A's blocks go, unless they keep their positions); then the backend's analysis */
static int pattern_build(pds_precond pc, const struct view *v) {
  struct ilu0           *P   = pc->data;
  pds_ctx                ctx = pc->hdr.ctx;
  const pds_int          n   = v->nbrows;
  struct pds_ilu0_factor H   = {0};
  pds_size              *ord = NULL, m = 0;
  int                    ierr, ident = 1;
  char                   why[96];

  pds_int               *iperm = NULL;

  pattern_free(ctx, P);
  if (strcmp(P->ordering, "natural")) {
    PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &P->perm));
    PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &iperm));
    PDS_CALL_GOTO(ierr, done, ordering_perm(ctx, P, v, P->perm));
    for (pds_int i = 0; i < n; i++) iperm[P->perm[i]] = i;
  }
  H.nbrows = n, H.bs = v->bs;
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &H.rowptr));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)v->nnzb + (size_t)n + 1, &H.colidx));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &H.diag));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)v->nnzb + 1, &P->fmap));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)v->nnzb + 1, &ord));
#define MC(e) (iperm ? iperm[v->colidx[e]] : v->colidx[e]) /* A's entry e's column in the factor */
  for (pds_int i = 0; i < n; i++) {
    const pds_int  r  = P->perm ? P->perm[i] : i; /* A's row */
    const pds_size lo = v->rowptr[r], hi = v->rowptr[r + 1];
    int            sorted = 1, hasd = 0;

    H.rowptr[i] = m;
    for (pds_size e = lo; e < hi; e++) {
      ord[e - lo] = e;
      if (e > lo && MC(e) <= MC(e - 1)) sorted = 0;
      if (MC(e) == i) hasd = 1;
    }
    if (!sorted) { /* insertion sort of the row's entries by column (rows are short) */
      for (pds_size a = 1; a < hi - lo; a++)
        for (pds_size b = a; b > 0 && MC(ord[b]) < MC(ord[b - 1]); b--) {
          const pds_size t = ord[b];

          ord[b] = ord[b - 1], ord[b - 1] = t;
        }
      for (pds_size a = 1; a < hi - lo; a++)
        if (MC(ord[a]) == MC(ord[a - 1])) {
          snprintf(why, sizeof why, "block row %" PDS_INT_FMT " holds column %" PDS_INT_FMT " twice", r,
                   v->colidx[ord[a]]);
          ierr = PDS_ERROR(ctx, PDS_ERR_ARG, "ilu0: %s (sum duplicates first)", why);
          goto done;
        }
      ident = 0;
    }
    for (pds_size a = 0; a < hi - lo; a++) {
      const pds_int c = MC(ord[a]);

      if (!hasd && c > i) { /* the missing diagonal before the first column above it */
        H.diag[i] = m, H.colidx[m++] = i, hasd = 2;
        ident = 0;
      }
      if (c == i) H.diag[i] = m;
      P->fmap[ord[a]] = m, H.colidx[m++] = c;
    }
    if (!hasd) H.diag[i] = m, H.colidx[m++] = i, ident = 0;
  }
#undef MC
  H.rowptr[n] = m, H.nnzb = m;
  if (P->perm) {
    ident = 0;
    PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, P->perm, PDS_MEM_HOST, (size_t)n * sizeof *P->perm,
                                            &P->perm_d));
    PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_DEVICE, (size_t)n * v->bs * sizeof *P->work, &P->work));
  }
  if (ident) pds_free(ctx, PDS_MEM_HOST, &P->fmap);
  else PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)m * v->bs * v->bs, &P->stage));
  /* the backend's copies and analysis */
  P->F.nbrows = n, P->F.bs = v->bs, P->F.nnzb = m;
  PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, H.rowptr, PDS_MEM_HOST, ((size_t)n + 1) * sizeof *H.rowptr,
                                          &P->F.rowptr));
  PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, H.colidx, PDS_MEM_HOST, (size_t)m * sizeof *H.colidx,
                                          &P->F.colidx));
  PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, H.diag, PDS_MEM_HOST, (size_t)n * sizeof *H.diag,
                                          &P->F.diag));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_DEVICE, (size_t)m * v->bs * v->bs * sizeof(pds_real), &P->F.vals));
  if (P->approx == APPROX_CHOW) { /* no analysis: A's values and the second iterate instead */
    PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_DEVICE, (size_t)m * v->bs * v->bs * sizeof(pds_real), &P->aval));
    PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_DEVICE, (size_t)m * v->bs * v->bs * sizeof(pds_real), &P->gvals));
  } else
    PDS_CALL_GOTO(ierr, done, ctx->k->ilu0.plan_create(ctx, &H, P->approx ? "auto" : P->variant, !P->approx, &P->plan));
  if (P->approx)
    PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_DEVICE, 3 * (size_t)n * v->bs * sizeof(pds_real), &P->jw));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &P->a_rowptr));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)v->nnzb + 1, &P->a_colidx));
  memcpy(P->a_rowptr, v->rowptr, ((size_t)n + 1) * sizeof *v->rowptr);
  memcpy(P->a_colidx, v->colidx, (size_t)v->nnzb * sizeof *v->colidx);
  P->nnzb_a = v->nnzb, P->have = 1;
done:
  pds_free(ctx, PDS_MEM_HOST, &H.rowptr), pds_free(ctx, PDS_MEM_HOST, &H.colidx), pds_free(ctx, PDS_MEM_HOST, &H.diag);
  pds_free(ctx, PDS_MEM_HOST, &ord), pds_free(ctx, PDS_MEM_HOST, &iperm);
  if (ierr) pattern_free(ctx, P);
  return ierr;
}

/* approx-chow's factorization: the start (L = 0, U = A), then fsweeps Chow-Patel sweeps, F.vals and gvals taking
   turns as the iterate; the first singular pivot of any sweep is the one reported */
static int chow_factor(pds_ctx ctx, struct ilu0 *P, pds_size *bad) {
  struct pds_ilu0_factor O = P->F;

  O.vals = NULL;
  PDS_CALL(ctx->k->ilu0.chow(ctx, &O, P->aval, P->shift, P->F.vals, bad));
  for (int s = 0; s < P->fsweeps && *bad < 0; s++) {
    pds_real *next = P->gvals;

    PDS_CALL(ctx->k->ilu0.chow(ctx, &P->F, P->aval, P->shift, next, bad));
    P->gvals = P->F.vals, P->F.vals = next;
  }
  return PDS_OK;
}

/* the approximate application x = M^-1 b: forward y^0 = b, y^{s+1} = b - L y^s; backward x^0 = D^-1 y,
   x^{s+1} = D^-1 (y - U x^s), each `sweeps` times, through the three iterates of jw (x may be b's array: only the
   forward sweeps read b, and only the last backward one writes x) */
static int approx_solve(pds_ctx ctx, struct ilu0 *P, const pds_real *b, pds_real *x) {
  const size_t                   n = (size_t)P->F.nbrows * P->F.bs;
  const struct pds_ilu0_kernels *k = &ctx->k->ilu0;
  pds_real                      *w[3] = {P->jw, P->jw + n, P->jw + 2 * n};
  const pds_real                *y = b;
  int                            c = 0;

  for (int s = 0; s < P->sweeps; s++, c ^= 1) { /* y^{s+1} into w[c] */
    PDS_CALL(k->jacobi(ctx, &P->F, 0, b, y, w[c]));
    y = w[c];
  }
  { /* y is b or w[c ^ 1]; the backward iterates take the two others */
    pds_real *u = y == b ? w[0] : w[c], *v = w[2];

    PDS_CALL(k->jacobi(ctx, &P->F, 1, y, NULL, P->sweeps ? u : x));
    for (int s = 0; s < P->sweeps; s++) {
      pds_real *t = s == P->sweeps - 1 ? x : v;

      PDS_CALL(k->jacobi(ctx, &P->F, 1, y, u, t));
      v = u, u = t;
    }
  }
  return PDS_OK;
}

static int ilu0_setup(pds_precond pc) {
  struct ilu0 *P   = pc->data;
  pds_ctx      ctx = pc->hdr.ctx;
  struct view  v   = {0};
  pds_size     bad = -1;

  PDS_KERNEL(ctx, ilu0.plan_create);
  PDS_KERNEL(ctx, ilu0.factor);
  PDS_KERNEL(ctx, ilu0.solve);
  if (P->approx) PDS_KERNEL(ctx, ilu0.jacobi);
  if (P->approx == APPROX_CHOW) PDS_KERNEL(ctx, ilu0.chow);
  if (strcmp(P->ordering, "natural")) PDS_KERNEL(ctx, vec.permute);
  PDS_CALL(operator_view(pc, &v));
  if (!same_pattern(P, &v)) {
    PDS_CHECK(!pc->same_pattern || !P->have, ctx, PDS_ERR_ARG,
              "pds_precond_update_values: the matrix's pattern is not the one ilu0 was set up with (%" PDS_INT_FMT
              " block rows, %" PDS_SIZE_FMT " blocks); use pds_precond_set_operator and pds_precond_setup",
              P->F.nbrows, P->nnzb_a);
    PDS_CALL(pattern_build(pc, &v));
  }
  P->id = v.id;
  { /* A's values into the factor's pattern (approx-chow: kept apart, the sweeps read them) */
    const size_t b2  = (size_t)v.bs * v.bs;
    pds_real    *dst = P->approx == APPROX_CHOW ? P->aval : P->F.vals;

    if (P->fmap) {
      PDS_CALL(host_vals(&v));
      memset(P->stage, 0, (size_t)P->F.nnzb * b2 * sizeof *P->stage);
      for (pds_size e = 0; e < v.nnzb; e++) memcpy(P->stage + P->fmap[e] * b2, v.vals + e * b2, b2 * sizeof *v.vals);
      PDS_CALL(pds_memcpy(ctx, dst, PDS_MEM_DEVICE, P->stage, PDS_MEM_HOST, (size_t)P->F.nnzb * b2 * sizeof(pds_real)));
    } else if (v.dvals) /* backend to backend: no host round trip on a device */
      PDS_CALL(pds_memcpy(ctx, dst, PDS_MEM_DEVICE, v.dvals, PDS_MEM_DEVICE, (size_t)v.nnzb * b2 * sizeof(pds_real)));
    else
      PDS_CALL(pds_memcpy(ctx, dst, PDS_MEM_DEVICE, v.vals, PDS_MEM_HOST, (size_t)v.nnzb * b2 * sizeof(pds_real)));
  }
  if (P->approx == APPROX_CHOW) PDS_CALL(chow_factor(ctx, P, &bad));
  else PDS_CALL(ctx->k->ilu0.factor(ctx, P->plan, &P->F, P->shift, &bad));
  if (bad >= 0 && P->perm) bad = P->perm[bad]; /* A's row */
  if (bad >= 0)
    return PDS_ERROR(ctx, PDS_ERR_ZERO_PIVOT,
                     "ilu0: the factored diagonal %s of %srow %" PDS_SIZE_FMT " is %s%s: ILU(0) needs nonzero pivots "
                     "without pivoting; factor A + s I with a shift (pds_precond_ilu0_set_shift, -pc_ilu0_shift s, "
                     "s about 1e-3 to 1e-1 of the diagonal's size), reorder the matrix, or use a block size that keeps "
                     "each saddle-point pair in one block",
                     v.bs > 1 ? "block" : "entry", v.bs > 1 ? "block " : "", bad, v.bs > 1 ? "singular" : "zero",
                     P->F.nnzb > P->nnzb_a ? " (the matrix lacks some diagonal entries: they count as zero)" : "");
  return PDS_OK;
}

/* x = M'^-1 b with the factor's own rows (x may be b): the variant's sweeps */
static int factor_solve(pds_ctx ctx, struct ilu0 *P, const pds_real *b, pds_real *x) {
  return P->approx ? approx_solve(ctx, P, b, x) : ctx->k->ilu0.solve(ctx, P->plan, &P->F, b, x);
}

static int ilu0_apply(pds_precond pc, pds_vec x, pds_vec y) {
  struct ilu0    *P   = pc->data;
  pds_ctx         ctx = pc->hdr.ctx;
  const pds_real *xa;
  pds_real       *ya;

  PDS_CALL(pds_vec_dev_read(x, &xa));
  PDS_CALL(pds_vec_dev_write(y, &ya));
  if (!P->perm) return factor_solve(ctx, P, xa, ya); /* y = M^-1 x */
  /* M = P^T M' P with M' the ILU(0) of P A P^T: y = P^T M'^-1 P x */
  PDS_CALL(ctx->k->vec.permute(ctx, P->F.nbrows, P->F.bs, P->perm_d, 0, xa, P->work));
  PDS_CALL(factor_solve(ctx, P, P->work, P->work));
  return ctx->k->vec.permute(ctx, P->F.nbrows, P->F.bs, P->perm_d, 1, P->work, ya);
}

static int ilu0_view(pds_precond pc, FILE *f) {
  struct ilu0 *P   = pc->data;
  pds_ctx      ctx = pc->hdr.ctx;
  char         line[320];

  if (!P->have) {
    fprintf(f, "  ILU(0), not set up\n");
    return PDS_OK;
  }
  fprintf(f, "  ILU(0)%s: %" PDS_INT_FMT " %srows, %" PDS_SIZE_FMT " %s in the factor (%" PDS_SIZE_FMT
          " diagonal%s added), shift %g\n", P->F.bs > 1 ? " by blocks" : "", P->F.nbrows, P->F.bs > 1 ? "block " : "",
          P->F.nnzb, P->F.bs > 1 ? "blocks" : "entries", P->F.nnzb - P->nnzb_a, P->F.nnzb - P->nnzb_a == 1 ? "" : "s",
          P->shift);
  if (P->perm) {
    fprintf(f, "  ordering %s (the factor is of P A P^T)", P->ordering);
    if (P->ncolors) fprintf(f, ", %" PDS_INT_FMT " colour%s", P->ncolors, P->ncolors == 1 ? "" : "s");
    fprintf(f, "\n");
  }
  if (P->F.bs > 1) fprintf(f, "  blocks of %d x %d, the diagonal ones stored inverted\n", P->F.bs, P->F.bs);
  if (P->approx == APPROX_CHOW)
    fprintf(f, "  variant approx-chow (approximate): %d Chow-Patel sweeps of the factorization, no analysis\n",
            P->fsweeps);
  if (P->approx)
    fprintf(f, "  variant %s (approximate): each triangle applied by %d Jacobi sweep%s after the first\n", P->variant,
            P->sweeps, P->sweeps == 1 ? "" : "s");
  if (P->plan && ctx->k->ilu0.plan_describe && !ctx->k->ilu0.plan_describe(ctx, P->plan, line, sizeof line))
    fprintf(f, "  %s\n", line);
  return PDS_OK;
}

static int ilu0_destroy(pds_precond pc) {
  struct ilu0 *P = pc->data;

  if (P) pattern_free(pc->hdr.ctx, P), pds_mat_destroy(&P->bsr);
  return pds_free(pc->hdr.ctx, PDS_MEM_HOST, &pc->data);
}

int pds_precond_create_ilu0(pds_precond pc) {
  struct ilu0 *P = NULL;

  PDS_CALL(PDS_NEW(pc->hdr.ctx, 1, &P));
  snprintf(P->variant, sizeof P->variant, "auto");
  snprintf(P->ordering, sizeof P->ordering, "natural");
  P->sweeps = ILU0_SWEEPS_DEFAULT, P->fsweeps = ILU0_FACTOR_SWEEPS_DEFAULT;
  pc->data        = P;
  pc->ops.setup   = ilu0_setup;
  pc->ops.apply   = ilu0_apply;
  pc->ops.view    = ilu0_view;
  pc->ops.destroy = ilu0_destroy;
  return PDS_OK;
}
