/* tests/equiv/equiv_mdot.c: the block Gram-Schmidt kernels of GMRES (pds_vec_mdot_into, pds_vec_maxpy_dev) on
 * the backend under test: mdot_into against separate pds_vec_dot calls (the same backend: the same bits on every
 * backend; /cpu/ref: bitwise on the CPU backends, else within c n eps) and maxpy_dev against successive
 * pds_vec_axpy calls (same backend and /cpu/ref, the same rule), for k = 1, 5, 30 and n = 0, 1, 3000, 20000,
 * 300001, 1e6, with a nonzero offset into the scalar vector; on /cpu/omp also with 1, 2 and 3 threads. */
#include "equiv.h"

static eq_env E;

#define KMAX 30
#define OFF  3

static pds_vec vec_from(pds_ctx c, pds_size n, const pds_real *h) {
  pds_vec v;

  TEST_CALL(pds_vec_create(c, n, &v));
  if (n) TEST_CALL(pds_vec_set_values(v, h, PDS_MEM_HOST));
  return v;
}

static void run(pds_size n) {
  pds_vec   Vb[KMAX], Vr[KMAX], wb, wr, sb, sr, tb, tr;
  pds_real *hw = eq_random(n), *hc = eq_xmalloc((KMAX + OFF) * sizeof(pds_real));
  pds_real *gotv = eq_xmalloc((size_t)(n ? n : 1) * sizeof(pds_real)), *wantv = eq_xmalloc((size_t)(n ? n : 1) * sizeof(pds_real));
  pds_real *mag = eq_xmalloc((size_t)(n ? n : 1) * sizeof(pds_real));
  pds_real  got[KMAX + OFF], want[KMAX + OFF], ref[KMAX + OFF], smag[KMAX];
  const int ks[] = {1, 5, KMAX};
  char      msg[160];

  for (int i = 0; i < KMAX; i++) {
    pds_real *h = eq_random(n);

    Vb[i] = vec_from(E.be, n, h);
    Vr[i] = vec_from(E.ref, n, h);
    free(h);
  }
  wb = vec_from(E.be, n, hw), wr = vec_from(E.ref, n, hw);
  for (int i = 0; i < KMAX + OFF; i++) hc[i] = eq_real();
  sb = vec_from(E.be, KMAX + OFF, hc), sr = vec_from(E.ref, KMAX + OFF, hc);
  TEST_CALL(pds_vec_create(E.be, n, &tb));
  TEST_CALL(pds_vec_create(E.ref, n, &tr));
  for (int q = 0; q < 3; q++) {
    int k = ks[q];

    /* s_{OFF+i} = V_i^T w */
    TEST_CALL(pds_vec_set_values(sb, hc, PDS_MEM_HOST));
    TEST_CALL(pds_vec_mdot_into(wb, k, Vb, sb, OFF));
    TEST_CALL(pds_vec_get_values(sb, got, PDS_MEM_HOST));
    for (int i = 0; i < OFF; i++) TEST_ASSERT(!memcmp(&got[i], &hc[i], sizeof *got)); /* nothing below the offset */
    for (int i = OFF + k; i < KMAX + OFF; i++)
      TEST_ASSERT(!memcmp(&got[i], &hc[i], sizeof *got)); /* nothing past the k entries */
    for (int i = 0; i < k; i++) {
      const pds_real *a, *b;

      TEST_CALL(pds_vec_dot(Vb[i], wb, &want[OFF + i]));
      TEST_CALL(pds_vec_dot(Vr[i], wr, &ref[OFF + i]));
      TEST_CALL(pds_vec_get_array_read(Vr[i], PDS_MEM_HOST, &a));
      TEST_CALL(pds_vec_get_array_read(wr, PDS_MEM_HOST, &b));
      smag[i] = 0;
      for (pds_size j = 0; j < n; j++) smag[i] += fabs(a[j] * b[j]);
      TEST_CALL(pds_vec_restore_array_read(wr, &b));
      TEST_CALL(pds_vec_restore_array_read(Vr[i], &a));
    }
    snprintf(msg, sizeof msg, "mdot_into vs vec_dot on the same backend, k = %d, n = %" PDS_SIZE_FMT, k, n);
    eq_compare(msg, got + OFF, want + OFF, NULL, k, 1, 1); /* same bits on every backend */
    snprintf(msg, sizeof msg, "mdot_into vs /cpu/ref's vec_dot, k = %d, n = %" PDS_SIZE_FMT, k, n);
    eq_compare(msg, got + OFF, ref + OFF, smag, k, (double)n + 1, E.exact);

    /* w - sum_i c_{OFF+i} V_i against successive axpys */
    TEST_CALL(pds_vec_maxpy_dev(wb, k, Vb, sb, OFF));
    TEST_CALL(pds_vec_get_values(wb, gotv, PDS_MEM_HOST));
    TEST_CALL(pds_vec_set_values(tb, hw, PDS_MEM_HOST));
    TEST_CALL(pds_vec_set_values(tr, hw, PDS_MEM_HOST));
    for (int i = 0; i < k; i++) {
      TEST_CALL(pds_vec_axpy(tb, -got[OFF + i], Vb[i]));
      TEST_CALL(pds_vec_axpy(tr, -got[OFF + i], Vr[i]));
    }
    TEST_CALL(pds_vec_get_values(tb, wantv, PDS_MEM_HOST));
    snprintf(msg, sizeof msg, "maxpy_dev vs axpys on the same backend, k = %d, n = %" PDS_SIZE_FMT, k, n);
    {
      double csum = 0; /* |V_ij| < 1, so sum_i |c_i V_ij| <= sum_i |c_i| */

      for (int i = 0; i < k; i++) csum += fabs(got[OFF + i]);
      for (pds_size j = 0; j < n; j++) mag[j] = fabs(hw[j]) + csum;
    }
    eq_compare(msg, gotv, wantv, mag, n, 2.0 * k, E.exact);
    TEST_CALL(pds_vec_get_values(tr, wantv, PDS_MEM_HOST));
    snprintf(msg, sizeof msg, "maxpy_dev vs /cpu/ref's axpys, k = %d, n = %" PDS_SIZE_FMT, k, n);
    eq_compare(msg, gotv, wantv, mag, n, 2.0 * k, E.exact);
    TEST_CALL(pds_vec_set_values(wb, hw, PDS_MEM_HOST)); /* w back for the next k */
  }
  for (int i = 0; i < KMAX; i++) {
    TEST_CALL(pds_vec_destroy(&Vb[i]));
    TEST_CALL(pds_vec_destroy(&Vr[i]));
  }
  TEST_CALL(pds_vec_destroy(&wb));
  TEST_CALL(pds_vec_destroy(&wr));
  TEST_CALL(pds_vec_destroy(&sb));
  TEST_CALL(pds_vec_destroy(&sr));
  TEST_CALL(pds_vec_destroy(&tb));
  TEST_CALL(pds_vec_destroy(&tr));
  free(hw), free(hc), free(gotv), free(wantv), free(mag);
}

int main(int argc, char **argv) {
  /* 20000 and 300001: just above /cpu/omp's threading threshold, and several chunk groups with a partial one */
  const pds_size sizes[] = {0, 1, 3000, 20000, 300001, 1000000};

  E = eq_init(argc, argv);
  eq_seed(7);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) run(sizes[s]);
  if (E.omp) { /* the same bits whatever the number of threads (each run compares with ref) */
    int t0 = eq_threads_get();

    for (int t = 1; t <= 3; t++) {
      eq_threads_set(t);
      run(300001);
    }
    eq_threads_set(t0);
  }
  eq_finalize(&E);
  return 0;
}
