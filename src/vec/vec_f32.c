/* src/vec/vec_f32.c: vector operations on single-precision vectors (vec_impl.h says which): each takes the float
 * arrays and calls the f32 kernel group (src/backend/kernels_f32.h); vec.c has checked sizes, contexts and
 * aliasing before it calls here. The scalar vector S of the fused steps stays double. */
#include "vec_f32.h"

#define CTX(v) ((v)->hdr.ctx)
#define K32(v) (CTX(v)->k->f32)

int pds_vec_f32_set(pds_vec v, double a) {
  float *y;

  PDS_KERNEL(CTX(v), f32.vec_set);
  PDS_CALL(pds_vec_dev_write_f32(v, &y));
  return K32(v).vec_set(CTX(v), v->n, a, y);
}

int pds_vec_f32_copy(pds_vec x, pds_vec y) {
  pds_ctx ctx = CTX(x);

  if (x->f32 && y->f32) {
    const float *a;
    float       *b;

    PDS_KERNEL(ctx, f32.vec_copy);
    PDS_CALL(pds_vec_dev_read_f32(x, &a));
    PDS_CALL(pds_vec_dev_write_f32(y, &b));
    return K32(x).vec_copy(ctx, x->n, a, b);
  }
  if (y->f32) { /* double -> single, rounded to nearest */
    const pds_real *a;
    float          *b;

    PDS_KERNEL(ctx, f32.to_f32);
    PDS_CALL(pds_vec_dev_read(x, &a));
    PDS_CALL(pds_vec_dev_write_f32(y, &b));
    return K32(x).to_f32(ctx, x->n, a, b);
  }
  { /* single -> double, exact */
    const float *a;
    pds_real    *b;

    PDS_KERNEL(ctx, f32.to_f64);
    PDS_CALL(pds_vec_dev_read_f32(x, &a));
    PDS_CALL(pds_vec_dev_write(y, &b));
    return K32(x).to_f64(ctx, x->n, a, b);
  }
}

int pds_vec_f32_axpby(pds_vec y, double a, pds_vec x, double b) {
  const float *xa;
  float       *ya;

  PDS_KERNEL(CTX(x), f32.vec_axpby);
  PDS_CALL(pds_vec_dev_read_f32(x, &xa));
  PDS_CALL(pds_vec_dev_write_f32(y, &ya));
  return K32(x).vec_axpby(CTX(x), x->n, a, xa, b, ya);
}

int pds_vec_f32_axpbypcz(pds_vec z, double a, pds_vec x, double b, pds_vec y, double c) {
  const float *xa, *ya;
  float       *za;

  PDS_KERNEL(CTX(x), f32.vec_axpbypcz);
  PDS_CALL(pds_vec_dev_read_f32(x, &xa));
  PDS_CALL(pds_vec_dev_read_f32(y, &ya));
  PDS_CALL(pds_vec_dev_write_f32(z, &za));
  return K32(x).vec_axpbypcz(CTX(x), x->n, a, xa, b, ya, c, za);
}

int pds_vec_f32_pdiv(pds_vec w, pds_vec x, pds_vec d) {
  const float    *xa;
  const pds_real *da;
  float          *wa;

  PDS_KERNEL(CTX(x), f32.vec_pdiv);
  PDS_CALL(pds_vec_dev_read_f32(x, &xa));
  PDS_CALL(pds_vec_dev_read(d, &da));
  PDS_CALL(pds_vec_dev_write_f32(w, &wa));
  return K32(x).vec_pdiv(CTX(x), x->n, xa, da, wa);
}

int pds_vec_f32_dot2(pds_vec x, pds_vec y, pds_vec z, double *d) {
  const float *xa, *ya, *za = NULL;

  PDS_KERNEL(CTX(x), f32.vec_dot2);
  PDS_CALL(pds_vec_dev_read_f32(x, &xa));
  PDS_CALL(pds_vec_dev_read_f32(y, &ya));
  if (z) PDS_CALL(pds_vec_dev_read_f32(z, &za));
  return K32(x).vec_dot2(CTX(x), x->n, xa, ya, za, d);
}

int pds_vec_f32_dot_into(pds_vec x, pds_vec y, pds_vec s, int i) {
  const float *xa, *ya;
  pds_real    *sa;

  PDS_KERNEL(CTX(x), f32.vec_dot_into);
  PDS_CALL(pds_vec_dev_read_f32(x, &xa));
  PDS_CALL(pds_vec_dev_read_f32(y, &ya));
  PDS_CALL(pds_vec_dev_write(s, &sa));
  return K32(x).vec_dot_into(CTX(x), x->n, xa, ya, sa + i);
}

int pds_vec_f32_cg_r(pds_vec r, pds_vec q, pds_vec S, int step) {
  const float *qa;
  float       *ra;
  pds_real    *sa;

  PDS_KERNEL(CTX(r), f32.cg_update_r);
  PDS_CALL(pds_vec_dev_read_f32(q, &qa));
  PDS_CALL(pds_vec_dev_write_f32(r, &ra));
  PDS_CALL(pds_vec_dev_write(S, &sa));
  return K32(r).cg_update_r(CTX(r), r->n, qa, ra, sa, step);
}

int pds_vec_f32_cg_xp(pds_vec x, pds_vec p, pds_vec z, pds_vec S) {
  const float    *za;
  const pds_real *sa;
  float          *xa, *pa;

  PDS_KERNEL(CTX(x), f32.cg_update_xp);
  PDS_CALL(pds_vec_dev_read_f32(z, &za));
  PDS_CALL(pds_vec_dev_write_f32(x, &xa));
  PDS_CALL(pds_vec_dev_write_f32(p, &pa));
  PDS_CALL(pds_vec_dev_read(S, &sa));
  return K32(x).cg_update_xp(CTX(x), x->n, za, xa, pa, sa);
}

int pds_vec_f32_bicgstab_s(pds_vec w, pds_vec r, pds_vec v, pds_vec S) {
  const float *ra, *va;
  float       *wa;
  pds_real    *sa;

  PDS_KERNEL(CTX(w), f32.bicg_update_s);
  PDS_CALL(pds_vec_dev_read_f32(r, &ra));
  PDS_CALL(pds_vec_dev_read_f32(v, &va));
  PDS_CALL(pds_vec_dev_write_f32(w, &wa));
  PDS_CALL(pds_vec_dev_write(S, &sa));
  return K32(w).bicg_update_s(CTX(w), w->n, ra, va, wa, sa);
}

int pds_vec_f32_bicgstab_r(pds_vec r, pds_vec w, pds_vec t, pds_vec rhat, pds_vec S, int step) {
  const float *wa, *ta, *ha;
  float       *ra;
  pds_real    *sa;

  PDS_KERNEL(CTX(r), f32.bicg_update_r);
  PDS_CALL(pds_vec_dev_read_f32(w, &wa));
  PDS_CALL(pds_vec_dev_read_f32(t, &ta));
  PDS_CALL(pds_vec_dev_read_f32(rhat, &ha));
  PDS_CALL(pds_vec_dev_write_f32(r, &ra));
  PDS_CALL(pds_vec_dev_write(S, &sa));
  return K32(r).bicg_update_r(CTX(r), r->n, wa, ta, ha, ra, sa, step);
}

int pds_vec_f32_bicgstab_xp(pds_vec x, pds_vec p, pds_vec ph, pds_vec sh, pds_vec r, pds_vec v, pds_vec S) {
  const float    *pha, *sha, *ra, *va;
  const pds_real *sa;
  float          *xa, *pa;

  PDS_KERNEL(CTX(x), f32.bicg_update_xp);
  PDS_CALL(pds_vec_dev_read_f32(ph, &pha));
  PDS_CALL(pds_vec_dev_read_f32(sh, &sha));
  PDS_CALL(pds_vec_dev_read_f32(r, &ra));
  PDS_CALL(pds_vec_dev_read_f32(v, &va));
  PDS_CALL(pds_vec_dev_write_f32(x, &xa));
  PDS_CALL(pds_vec_dev_write_f32(p, &pa));
  PDS_CALL(pds_vec_dev_read(S, &sa));
  return K32(x).bicg_update_xp(CTX(x), x->n, pha, sha, ra, va, xa, pa, sa);
}
