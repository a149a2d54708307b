/* src/solver/gmres.c: restarted GMRES(m) with right preconditioning, and flexible FGMRES(m) (Saad 1993).
 *   Arnoldi on A M^-1 with classical Gram-Schmidt and one reorthogonalization (CGS2; pds_solver_set_orthogonalization
 *   "cgs" leaves the second pass out, as PETSc's default does): w = A M^-1 v_k (FGMRES
 *   keeps z_k = M^-1 v_k); s = V^T w; w -= V s; s2 = V^T w; w -= V s2; ww = w^T w, all reductions kept in the
 *   backend scalar vector S = [s (k+1) | s2 (k+1) | ww] and read with ONE pds_vec_get_values per iteration (one
 *   small device-to-host copy on a GPU); then h_i = s_i + s2_i, h_{k+1} = sqrt(ww). Traffic of iteration k
 *   (n-vectors, 8n bytes each, beside the product and the preconditioner): two mdots (k+2 vectors each), two
 *   maxpys (k+3 each), one dot (1) and the scale (2): about 4k + 13 vector passes, against 3(k+1) + 3 for MGS,
 *   but 4 kernel sequences whose reductions stay on the device instead of k+2 host round trips.
 *   Givens rotations keep the least-squares residual |g_{j+1}| = ||b - A x_j||_2 without forming x.
 *   At the end of a cycle: y = H^-1 g; x += M^-1 V y (GMRES) or x += Z y (FGMRES, M may change per iteration).
 * h_{j+1,j} = 0 is a lucky breakdown: the Krylov space holds the solution; the cycle ends there.
 * The infinity-norm test (if on) runs when x is formed: at the end of each cycle. */
#include <math.h>
#include <stdlib.h>

#include "solver_impl.h"

struct gmres {
  int       flexible;
  int       m;          /* restart length the work space was made for */
  pds_vec  *V, *Z;      /* m+1 Krylov vectors; m preconditioned vectors (FGMRES) */
  pds_vec   S;          /* 2m+3 backend scalars: the Gram-Schmidt coefficients and w^T w of one iteration */
  pds_real *H, *cs, *sn, *g, *y; /* H is (m+1) x m, column-major */
  pds_real *sh;         /* host copy of S */
};

static int gmres_free(pds_solver s) {
  struct gmres *G = s->data;
  pds_ctx       ctx = s->hdr.ctx;

  if (G->V)
    for (int i = 0; i <= G->m; i++) pds_vec_destroy(&G->V[i]);
  if (G->Z)
    for (int i = 0; i < G->m; i++) pds_vec_destroy(&G->Z[i]);
  pds_free(ctx, PDS_MEM_HOST, &G->V);
  pds_free(ctx, PDS_MEM_HOST, &G->Z);
  pds_free(ctx, PDS_MEM_HOST, &G->H);
  pds_free(ctx, PDS_MEM_HOST, &G->cs);
  pds_free(ctx, PDS_MEM_HOST, &G->sn);
  pds_free(ctx, PDS_MEM_HOST, &G->g);
  pds_free(ctx, PDS_MEM_HOST, &G->y);
  pds_free(ctx, PDS_MEM_HOST, &G->sh);
  pds_vec_destroy(&G->S);
  G->m = 0;
  return PDS_OK;
}

static int gmres_setup(pds_solver s) {
  struct gmres *G = s->data;
  pds_ctx       ctx = s->hdr.ctx;
  int           m   = s->restart;

  if (G->m == m && G->V) return PDS_OK;
  gmres_free(s);
  PDS_CALL(PDS_NEW(ctx, m + 1, &G->V));
  G->m = m; /* from here on gmres_free releases what exists */
  for (int i = 0; i <= m; i++) PDS_CALL(pds_mat_row_vec(s->A, &G->V[i]));
  if (G->flexible) {
    PDS_CALL(PDS_NEW(ctx, m, &G->Z));
    for (int i = 0; i < m; i++) PDS_CALL(pds_mat_row_vec(s->A, &G->Z[i]));
  }
  PDS_CALL(PDS_NEW(ctx, (size_t)(m + 1) * m, &G->H));
  PDS_CALL(PDS_NEW(ctx, m, &G->cs));
  PDS_CALL(PDS_NEW(ctx, m, &G->sn));
  PDS_CALL(PDS_NEW(ctx, m + 1, &G->g));
  PDS_CALL(PDS_NEW(ctx, m, &G->y));
  PDS_CALL(PDS_NEW(ctx, 2 * m + 3, &G->sh));
  PDS_CALL(pds_vec_create(ctx, 2 * m + 3, &G->S));
  return pds_solver_work(s, 2);
}

/* x += M^-1 V y (GMRES) or Z y (FGMRES) for the first k columns: y = H^-1 g by back substitution */
static int gmres_update(pds_solver s, int k, pds_vec x) {
  struct gmres *G = s->data;
  int           m1 = G->m + 1;
  pds_vec       u = s->work[0], w = s->work[1];

  for (int i = k - 1; i >= 0; i--) {
    pds_real t = G->g[i];

    for (int j = i + 1; j < k; j++) t -= G->H[j * m1 + i] * G->y[j];
    G->y[i] = t / G->H[i * m1 + i];
  }
  /* one multi-vector update (k + 2 vector passes, not 3k): w - sum_j (-y_j) V_j has the bits of the axpys
     w += y_j V_j in turn; the coefficients go to the scalar vector S */
  for (int j = 0; j < 2 * G->m + 3; j++) G->sh[j] = j < k ? -G->y[j] : 0;
  PDS_CALL(pds_vec_set_values(G->S, G->sh, PDS_MEM_HOST));
  if (G->flexible) return pds_vec_maxpy_dev(x, k, G->Z, G->S, 0); /* x += Z y */
  PDS_CALL(pds_vec_set(u, 0.0));
  PDS_CALL(pds_vec_maxpy_dev(u, k, G->V, G->S, 0)); /* u = V y */
  PDS_CALL(pds_solver_pc_apply(s, u, w));           /* w = M^-1 V y */
  return pds_vec_axpy(x, 1.0, w);
}

static int gmres_solve(pds_solver s, pds_vec b, pds_vec x) {
  struct gmres *G  = s->data;
  int           m  = G->m, m1 = m + 1, it = 0, cgs2 = s->orthog_passes == 2;
  pds_real      beta;

  for (;;) {
    int k;

    /* v_0 = r / ||r||, g = ||r|| e_1 */
    PDS_CALL(pds_mat_residual(s->A, b, x, G->V[0]));
    PDS_CALL(pds_vec_norm2(G->V[0], &beta));
    if (it == 0) {
      PDS_CALL(pds_solver_test(s, 0, beta, b, x));
      if (s->res.reason) return PDS_OK;
    } else if (!isfinite(beta) || beta <= fmax(s->atol, s->rtol * s->res.bnorm)) {
      /* a restart: the true residual may already pass where the estimate did not; iteration it was reported */
      s->res.rnorm  = beta;
      s->res.reason = !isfinite(beta) ? PDS_DIVERGED_NAN : beta <= s->atol ? PDS_CONVERGED_ATOL : PDS_CONVERGED_RTOL;
      return PDS_OK;
    }
    PDS_CALL(pds_vec_scale(G->V[0], 1.0 / beta));
    memset(G->g, 0, (size_t)m1 * sizeof *G->g);
    G->g[0] = beta;
    for (k = 0; k < m; k++) {
      pds_vec   w = G->V[k + 1], z = G->flexible ? G->Z[k] : s->work[0];
      pds_real *h = G->H + (size_t)k * m1, hn, den;

      PDS_CALL(pds_solver_pc_apply(s, G->V[k], z)); /* z = M^-1 v_k */
      PDS_CALL(pds_mat_apply(s->A, z, w));          /* w = A z */
      /* CGS2: s = V^T w, w -= V s, s2 = V^T w, w -= V s2, ww = w^T w; one copy of S to the host (CGS: one pass) */
      PDS_CALL(pds_vec_mdot_into(w, k + 1, G->V, G->S, 0));
      PDS_CALL(pds_vec_maxpy_dev(w, k + 1, G->V, G->S, 0));
      if (cgs2) {
        PDS_CALL(pds_vec_mdot_into(w, k + 1, G->V, G->S, k + 1));
        PDS_CALL(pds_vec_maxpy_dev(w, k + 1, G->V, G->S, k + 1));
      }
      PDS_CALL(pds_vec_dot_into(w, w, G->S, 2 * k + 2));
      PDS_CALL(pds_vec_get_values(G->S, G->sh, PDS_MEM_HOST));
      for (int i = 0; i <= k; i++) h[i] = cgs2 ? G->sh[i] + G->sh[k + 1 + i] : G->sh[i];
      hn       = sqrt(G->sh[2 * k + 2]);
      h[k + 1] = hn;
      /* apply the previous rotations to the new column, then make and apply the k-th */
      for (int i = 0; i < k; i++) {
        pds_real t = G->cs[i] * h[i] + G->sn[i] * h[i + 1];

        h[i + 1] = -G->sn[i] * h[i] + G->cs[i] * h[i + 1];
        h[i]     = t;
      }
      den = hypot(h[k], h[k + 1]);
      if (den == 0 || !isfinite(den)) {
        /* A M^-1 v_k = 0 or NaN: no progress possible */
        if (k > 0 && isfinite(den)) PDS_CALL(gmres_update(s, k, x));
        pds_solver_diverged(s, it, isfinite(den) ? PDS_DIVERGED_BREAKDOWN : PDS_DIVERGED_NAN);
        return PDS_OK;
      }
      G->cs[k]    = h[k] / den;
      G->sn[k]    = h[k + 1] / den;
      h[k]        = den;
      h[k + 1]    = 0;
      G->g[k + 1] = -G->sn[k] * G->g[k];
      G->g[k]     = G->cs[k] * G->g[k];
      it++;
      PDS_CALL(pds_solver_test(s, it, fabs(G->g[k + 1]), b, NULL)); /* |g_{k+1}| = ||b - A x_k||_2 */
      if (s->res.reason || hn == 0) {
        k++;
        break;
      }
      PDS_CALL(pds_vec_scale(w, 1.0 / hn));
    }
    PDS_CALL(gmres_update(s, k, x));
    PDS_CALL(pds_solver_test_inf(s, b, x)); /* x is formed: the infinity-norm test, if on */
    if (s->res.reason) return PDS_OK;
  }
}

static int gmres_view(pds_solver s, FILE *f) {
  fprintf(f, "  restart %d, classical Gram-Schmidt %s, right preconditioning%s\n", s->restart,
          s->orthog_passes == 2 ? "with reorthogonalization (CGS2)" : "in one pass (CGS)",
          ((struct gmres *)s->data)->flexible ? " (flexible)" : "");
  return PDS_OK;
}

static int gmres_destroy(pds_solver s) {
  gmres_free(s);
  return pds_free(s->hdr.ctx, PDS_MEM_HOST, &s->data);
}

static int gmres_create(pds_solver s, int flexible) {
  struct gmres *G;

  PDS_CALL(PDS_NEW(s->hdr.ctx, 1, &G));
  G->flexible    = flexible;
  s->data        = G;
  s->ops.setup   = gmres_setup;
  s->ops.solve   = gmres_solve;
  s->ops.view    = gmres_view;
  s->ops.destroy = gmres_destroy;
  return PDS_OK;
}

int pds_solver_create_gmres(pds_solver s) { return gmres_create(s, 0); }
int pds_solver_create_fgmres(pds_solver s) { return gmres_create(s, 1); }
