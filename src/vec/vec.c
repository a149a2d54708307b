/* src/vec/vec.c: vectors: creation, host/backend validity, get/restore access, and the BLAS-1 operations. */
#include <math.h>
#include <stdlib.h>

#include "vec_f32.h"
#include "../sys/comm.h"

/* element size of v's arrays */
#define VEC_ESZ(v) ((v)->f32 ? sizeof(float) : sizeof(pds_real))

/* A vector's header (context, length, precision, whether host memory is the backend's), no arrays yet. */
static int vec_new(pds_ctx ctx, pds_size n, int f32, pds_vec *v) {
  pds_vec w;

  PDS_CHECK(v, ctx, PDS_ERR_ARG, "output handle is NULL");
  *v = NULL;
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(n >= 0, ctx, PDS_ERR_SIZE, "vector length %" PDS_SIZE_FMT " is negative", n);
  PDS_CALL(PDS_NEW(ctx, 1, &w));
  w->hdr.ctx     = ctx;
  w->hdr.classid = PDS_CLASSID_VEC;
  w->hdr.refct   = 1;
  w->n           = n;
  w->f32         = f32;
  w->unified     = ctx->k->mem_alloc == NULL;
  w->N           = n;
  *v             = w;
  return PDS_OK;
}

static int vec_create(pds_ctx ctx, pds_size n, int f32, pds_vec *v) {
  pds_vec w;
  int     ierr;

  PDS_CALL(vec_new(ctx, n, f32, &w));
  ierr = pds_calloc(ctx, PDS_MEM_DEVICE, (size_t)n * VEC_ESZ(w), &w->d);
  if (ierr) {
    free(w);
    return ierr;
  }
  if (w->unified) w->h = w->d;
  w->valid = PDS_VALID_HOST | PDS_VALID_DEVICE; /* contents undefined but nothing to sync */
  *v       = w;
  return PDS_OK;
}

int pds_vec_create(pds_ctx ctx, pds_size n, pds_vec *v) { return vec_create(ctx, n, 0, v); }
int pds_vec_create_f32(pds_ctx ctx, pds_size n, pds_vec *v) { return vec_create(ctx, n, 1, v); }

/* The caller's array a (n doubles, 16-byte aligned: the device kernels load pairs) becomes the vector's copy in
   memory type mt; the other copy, where the backend has one, is allocated by the library. */
int pds_vec_create_with_array(pds_ctx ctx, pds_size n, pds_memtype mt, pds_real *a, pds_vec *v) {
  pds_vec w;
  int     ierr = PDS_OK;

  PDS_CHECK(v, ctx, PDS_ERR_ARG, "output handle is NULL");
  *v = NULL;
  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(mt == PDS_MEM_HOST || mt == PDS_MEM_DEVICE, ctx, PDS_ERR_ARG, "unknown memory type %d", (int)mt);
  PDS_CHECK(a || n <= 0, ctx, PDS_ERR_ARG, "array is NULL");
  PDS_CHECK(((uintptr_t)a & 15) == 0, ctx, PDS_ERR_ARG,
            "array %p is not 16-byte aligned (the kernels load pairs of values); pass an aligned copy", (void *)a);
  PDS_CHECK(mt == PDS_MEM_HOST || ctx->k->mem_alloc, ctx, PDS_ERR_ARG,
            "backend %s has no device memory; pass a host array", ctx->backend);
  PDS_CALL(vec_new(ctx, n, 0, &w));
  if (w->unified) /* host memory is the backend's: one array serves both */
    w->h = w->d = a, w->borrowed = PDS_VALID_HOST | PDS_VALID_DEVICE;
  else if (mt == PDS_MEM_DEVICE) /* the host copy comes when a host access asks */
    w->d = a, w->borrowed = PDS_VALID_DEVICE;
  else /* the library keeps the device copy */
    w->h = a, w->borrowed = PDS_VALID_HOST, ierr = pds_calloc(ctx, PDS_MEM_DEVICE, (size_t)n * sizeof(pds_real), &w->d);
  if (ierr) {
    free(w);
    return ierr;
  }
  w->valid = w->unified ? PDS_VALID_HOST | PDS_VALID_DEVICE : mt == PDS_MEM_HOST ? PDS_VALID_HOST : PDS_VALID_DEVICE;
  *v       = w;
  return PDS_OK;
}

int pds_vec_duplicate(pds_vec v, pds_vec *w) {
  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  PDS_CALL(pds_vec_create(VEC_CTX(v), v->n, w));
  pds_vec_set_layout(*w, v->dist, v->N, v->lo, v->order); /* the same layout: no communication */
  return PDS_OK;
}

int pds_vec_destroy(pds_vec *v) {
  pds_vec w;
  pds_ctx ctx;

  if (!v || !*v) return PDS_OK;
  w = *v;
  PDS_VALID(w, PDS_CLASSID_VEC, "vector");
  ctx = VEC_CTX(w);
  PDS_CHECK(!w->nread && !w->writing, ctx, PDS_ERR_STATE,
            "vector destroyed while an array access is open; restore the array first");
  if (--w->hdr.refct > 0) {
    *v = NULL;
    return PDS_OK;
  }
  if (!w->unified && !(w->borrowed & PDS_VALID_HOST)) pds_free(ctx, PDS_MEM_HOST, &w->h);
  if (!(w->borrowed & PDS_VALID_DEVICE)) pds_free(ctx, PDS_MEM_DEVICE, &w->d);
  pds_order_release(ctx, &w->order);
  w->hdr.classid = PDS_CLASSID_FREED;
  free(w);
  *v = NULL;
  return PDS_OK;
}

int pds_vec_get_size(pds_vec v, pds_size *n) {
  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  *n = v->n;
  return PDS_OK;
}

pds_ctx pds_vec_get_ctx(pds_vec v) { return v && v->hdr.classid == PDS_CLASSID_VEC ? v->hdr.ctx : NULL; }

/* Make the copy in memory type mt valid. */
static int vec_sync(pds_vec v, pds_memtype mt) {
  pds_ctx ctx = VEC_CTX(v);

  if (v->unified) return PDS_OK;
  if (mt == PDS_MEM_HOST) {
    if (!v->h) PDS_CALL(pds_calloc(ctx, PDS_MEM_HOST, (size_t)v->n * VEC_ESZ(v), &v->h));
    if (!(v->valid & PDS_VALID_HOST)) {
      PDS_CALL(pds_memcpy(ctx, v->h, PDS_MEM_HOST, v->d, PDS_MEM_DEVICE, (size_t)v->n * VEC_ESZ(v)));
      v->valid |= PDS_VALID_HOST;
    }
  } else if (!(v->valid & PDS_VALID_DEVICE)) {
    PDS_CALL(pds_memcpy(ctx, v->d, PDS_MEM_DEVICE, v->h, PDS_MEM_HOST, (size_t)v->n * VEC_ESZ(v)));
    v->valid |= PDS_VALID_DEVICE;
  }
  return PDS_OK;
}

static int vec_check_free(pds_vec v, bool for_write) {
  PDS_CHECK(!v->writing, VEC_CTX(v), PDS_ERR_STATE, "vector has an open write access; restore it first");
  PDS_CHECK(!for_write || !v->nread, VEC_CTX(v), PDS_ERR_STATE,
            "vector has %d open read access(es); restore them before writing", v->nread);
  return PDS_OK;
}

/* v's backend array made current for a kernel, after the precision check: double vectors for the double kernels,
   float ones for the f32 group (the accessors below return it typed) */
static int vec_dev(pds_vec v, int f32, int write) {
  PDS_CHECK(v->f32 == f32, VEC_CTX(v), PDS_ERR_ARG, "a %s-precision vector where a %s-precision one is needed",
            v->f32 ? "single" : "double", f32 ? "single" : "double");
  PDS_CALL(vec_check_free(v, write));
  PDS_CALL(vec_sync(v, PDS_MEM_DEVICE));
  if (write) v->valid = PDS_VALID_DEVICE | (v->unified ? PDS_VALID_HOST : 0);
  return PDS_OK;
}

int pds_vec_dev_read(pds_vec v, const pds_real **a) {
  PDS_CALL(vec_dev(v, 0, 0));
  *a = v->d;
  return PDS_OK;
}
int pds_vec_dev_write(pds_vec v, pds_real **a) {
  PDS_CALL(vec_dev(v, 0, 1));
  *a = v->d;
  return PDS_OK;
}
int pds_vec_dev_read_f32(pds_vec v, const float **a) {
  PDS_CALL(vec_dev(v, 1, 0));
  *a = (const float *)(void *)v->d;
  return PDS_OK;
}
int pds_vec_dev_write_f32(pds_vec v, float **a) {
  PDS_CALL(vec_dev(v, 1, 1));
  *a = (float *)(void *)v->d;
  return PDS_OK;
}

int pds_vec_get_array_read(pds_vec v, pds_memtype mt, const pds_real **a) {
  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  PDS_CHECK(a, VEC_CTX(v), PDS_ERR_ARG, "array pointer is NULL");
  PDS_CHECK(!v->f32, VEC_CTX(v), PDS_ERR_ARG, "a single-precision solver vector has no double array");
  PDS_CALL(vec_check_free(v, false));
  PDS_CALL(vec_sync(v, mt));
  *a = mt == PDS_MEM_HOST ? v->h : v->d;
  v->nread++;
  return PDS_OK;
}

int pds_vec_restore_array_read(pds_vec v, const pds_real **a) {
  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  PDS_CHECK(v->nread > 0, VEC_CTX(v), PDS_ERR_STATE, "no read access of this vector is open");
  v->nread--;
  if (a) *a = NULL;
  return PDS_OK;
}

int pds_vec_get_array_write(pds_vec v, pds_memtype mt, pds_real **a) {
  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  PDS_CHECK(a, VEC_CTX(v), PDS_ERR_ARG, "array pointer is NULL");
  PDS_CHECK(!v->f32, VEC_CTX(v), PDS_ERR_ARG, "a single-precision solver vector has no double array");
  PDS_CALL(vec_check_free(v, true));
  PDS_CALL(vec_sync(v, mt)); /* the caller may update only part of it */
  v->valid = v->unified ? (PDS_VALID_HOST | PDS_VALID_DEVICE) : mt == PDS_MEM_HOST ? PDS_VALID_HOST : PDS_VALID_DEVICE;
  v->writing = 1;
  *a         = mt == PDS_MEM_HOST ? v->h : v->d;
  return PDS_OK;
}

int pds_vec_restore_array_write(pds_vec v, pds_real **a) {
  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  PDS_CHECK(v->writing, VEC_CTX(v), PDS_ERR_STATE, "no write access of this vector is open");
  v->writing = 0;
  if (a) *a = NULL;
  return PDS_OK;
}

int pds_vec_set_values(pds_vec v, const pds_real *x, pds_memtype mt) {
  pds_real *a;

  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  PDS_CHECK(x || !v->n, VEC_CTX(v), PDS_ERR_ARG, "source array is NULL");
  PDS_CALL(pds_vec_dev_write(v, &a));
  return pds_memcpy(VEC_CTX(v), a, PDS_MEM_DEVICE, x, mt, (size_t)v->n * sizeof(pds_real));
}

int pds_vec_get_values(pds_vec v, pds_real *x, pds_memtype mt) {
  const pds_real *a;

  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  PDS_CHECK(x || !v->n, VEC_CTX(v), PDS_ERR_ARG, "destination array is NULL");
  PDS_CALL(pds_vec_dev_read(v, &a));
  return pds_memcpy(VEC_CTX(v), x, mt, a, PDS_MEM_DEVICE, (size_t)v->n * sizeof(pds_real));
}

/* splitmix64: a reproducible stream independent of the platform's rand() */
static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int pds_vec_set_random(pds_vec v, uint64_t seed) {
  pds_real *a;
  uint64_t  s;

  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  s = seed + (uint64_t)v->lo * 0x9e3779b97f4a7c15ull; /* a distributed vector: the rows' place in the global stream */
  PDS_CALL(pds_vec_get_array_write(v, PDS_MEM_HOST, &a));
  for (pds_size i = 0; i < v->n; i++) a[i] = 2.0 * ((double)(splitmix64(&s) >> 11) * 0x1.0p-53) - 1.0;
  return pds_vec_restore_array_write(v, &a);
}

int pds_vec_set(pds_vec v, pds_real alpha) {
  pds_real *a;

  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  if (v->f32) return pds_vec_f32_set(v, alpha);
  PDS_KERNEL(VEC_CTX(v), vec.set);
  PDS_CALL(pds_vec_dev_write(v, &a));
  return VEC_CTX(v)->k->vec.set(VEC_CTX(v), v->n, alpha, a);
}

int pds_vec_copy(pds_vec x, pds_vec y) {
  const pds_real *a;
  pds_real       *b;

  VEC_LIKE(x, y);
  if (x == y) return PDS_OK;
  if (x->f32 || y->f32) return pds_vec_f32_copy(x, y); /* converts where the precisions differ */
  PDS_KERNEL(VEC_CTX(x), vec.copy);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_write(y, &b));
  return VEC_CTX(x)->k->vec.copy(VEC_CTX(x), x->n, a, b);
}

int pds_vec_scale(pds_vec x, pds_real alpha) {
  pds_real *a;

  PDS_VALID(x, PDS_CLASSID_VEC, "vector");
  PDS_KERNEL(VEC_CTX(x), vec.scale);
  PDS_CALL(pds_vec_dev_write(x, &a));
  return VEC_CTX(x)->k->vec.scale(VEC_CTX(x), x->n, alpha, a);
}

int pds_vec_axpby(pds_vec y, pds_real alpha, pds_vec x, pds_real beta) {
  const pds_real *a;
  pds_real       *b;

  VEC_SAME(x, y);
  if (x->f32 && x != y) return pds_vec_f32_axpby(y, alpha, x, beta);
  PDS_KERNEL(VEC_CTX(x), vec.axpby);
  if (x == y) return pds_vec_scale(y, alpha + beta);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_write(y, &b));
  return VEC_CTX(x)->k->vec.axpby(VEC_CTX(x), x->n, alpha, a, beta, b);
}

int pds_vec_axpy(pds_vec y, pds_real alpha, pds_vec x) { return pds_vec_axpby(y, alpha, x, 1.0); }
int pds_vec_aypx(pds_vec y, pds_real beta, pds_vec x) { return pds_vec_axpby(y, 1.0, x, beta); }

int pds_vec_waxpy(pds_vec w, pds_real alpha, pds_vec x, pds_vec y) {
  const pds_real *a, *b;
  pds_real       *c;

  VEC_SAME(x, y);
  VEC_SAME(x, w);
  PDS_KERNEL(VEC_CTX(x), vec.waxpby);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_read(y, &b));
  PDS_CALL(pds_vec_dev_write(w, &c));
  return VEC_CTX(x)->k->vec.waxpby(VEC_CTX(x), x->n, alpha, a, 1.0, b, c);
}

/* w = x op y for pointwise multiply / divide */
static int vec_pointwise(pds_vec w, pds_vec x, pds_vec y, bool divide) {
  const pds_real *a, *b;
  pds_real       *c;
  pds_ctx         ctx;

  VEC_LIKE(x, y);
  VEC_SAME(x, w);
  if (x->f32 && !y->f32 && divide) return pds_vec_f32_pdiv(w, x, y); /* a single-precision solve's Jacobi */
  VEC_SAME(x, y);
  ctx = VEC_CTX(x);
  if (divide) PDS_KERNEL(ctx, vec.pdiv);
  else PDS_KERNEL(ctx, vec.pmult);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_read(y, &b));
  PDS_CALL(pds_vec_dev_write(w, &c));
  return divide ? ctx->k->vec.pdiv(ctx, x->n, a, b, c) : ctx->k->vec.pmult(ctx, x->n, a, b, c);
}

int pds_vec_pointwise_mult(pds_vec w, pds_vec x, pds_vec y) { return vec_pointwise(w, x, y, false); }
int pds_vec_pointwise_divide(pds_vec w, pds_vec x, pds_vec y) { return vec_pointwise(w, x, y, true); }

int pds_vec_dot(pds_vec x, pds_vec y, pds_real *d) {
  const pds_real *a, *b;

  VEC_SAME(x, y);
  PDS_CHECK(d, VEC_CTX(x), PDS_ERR_ARG, "result pointer is NULL");
  if (x->f32) return pds_vec_f32_dot2(x, y, NULL, d);
  PDS_KERNEL(VEC_CTX(x), vec.dot);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_read(y, &b));
  PDS_CALL(VEC_CTX(x)->k->vec.dot(VEC_CTX(x), x->n, a, b, d));
  return pds_vec_allsum(x, 1, d);
}

int pds_vec_norm2(pds_vec x, pds_real *nrm) {
  pds_real d;

  PDS_CALL(pds_vec_dot(x, x, &d));
  *nrm = sqrt(d);
  return PDS_OK;
}

int pds_vec_norm_inf(pds_vec x, pds_real *nrm) {
  const pds_real *a;

  PDS_VALID(x, PDS_CLASSID_VEC, "vector");
  PDS_CHECK(nrm, VEC_CTX(x), PDS_ERR_ARG, "result pointer is NULL");
  PDS_KERNEL(VEC_CTX(x), vec.norm_inf);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(VEC_CTX(x)->k->vec.norm_inf(VEC_CTX(x), x->n, a, nrm));
  return x->dist ? pds_comm_max(VEC_CTX(x), 1, nrm) : PDS_OK;
}

int pds_vec_axpbypcz(pds_vec z, pds_real alpha, pds_vec x, pds_real beta, pds_vec y, pds_real gamma) {
  const pds_real *a, *b;
  pds_real       *c;

  VEC_SAME(x, y);
  VEC_SAME(x, z);
  PDS_CHECK(z != x && z != y, VEC_CTX(x), PDS_ERR_ARG, "z must differ from x and y");
  if (x->f32) return pds_vec_f32_axpbypcz(z, alpha, x, beta, y, gamma);
  PDS_KERNEL(VEC_CTX(x), vec.axpbypcz);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_read(y, &b));
  PDS_CALL(pds_vec_dev_write(z, &c));
  return VEC_CTX(x)->k->vec.axpbypcz(VEC_CTX(x), x->n, alpha, a, beta, b, gamma, c);
}

int pds_vec_dot2(pds_vec x, pds_vec y, pds_vec z, pds_real *xy, pds_real *xz) {
  const pds_real *a, *b, *c;
  pds_real        d[2];

  VEC_SAME(x, y);
  VEC_SAME(x, z);
  PDS_CHECK(xy && xz, VEC_CTX(x), PDS_ERR_ARG, "result pointer is NULL");
  if (x->f32) {
    PDS_CALL(pds_vec_f32_dot2(x, y, z, d));
    *xy = d[0], *xz = d[1];
    return PDS_OK;
  }
  PDS_KERNEL(VEC_CTX(x), vec.dot2);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_read(y, &b));
  PDS_CALL(pds_vec_dev_read(z, &c));
  PDS_CALL(VEC_CTX(x)->k->vec.dot2(VEC_CTX(x), x->n, a, b, c, d));
  PDS_CALL(pds_vec_allsum(x, 2, d));
  *xy = d[0], *xz = d[1];
  return PDS_OK;
}

/* ---- reductions kept in backend memory, and the fused Krylov steps (semantics in backend.h) ---------------- */

int pds_vec_dot_into(pds_vec x, pds_vec y, pds_vec s, int i) {
  const pds_real *a, *b;
  pds_real       *c;

  VEC_SAME(x, y);
  PDS_CHECK(i >= 0, VEC_CTX(x), PDS_ERR_ARG, "scalar index %d is negative", i);
  VEC_SCALARS(x, s, i + 1);
  if (x->f32) return pds_vec_f32_dot_into(x, y, s, i);
  PDS_KERNEL(VEC_CTX(x), vec.dot_into);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_read(y, &b));
  PDS_CALL(pds_vec_dev_write(s, &c));
  PDS_CALL(VEC_CTX(x)->k->vec.dot_into(VEC_CTX(x), x->n, a, b, c + i));
  return pds_vec_allsum_dev(x, s, i, 1);
}

int pds_vec_dot2_into(pds_vec x, pds_vec y, pds_vec z, pds_vec s, int i) {
  const pds_real *a, *b, *c;
  pds_real       *d;

  VEC_SAME(x, y);
  VEC_SAME(x, z);
  PDS_CHECK(i >= 0, VEC_CTX(x), PDS_ERR_ARG, "scalar index %d is negative", i);
  VEC_SCALARS(x, s, i + 2);
  PDS_KERNEL(VEC_CTX(x), vec.dot2_into);
  PDS_CALL(pds_vec_dev_read(x, &a));
  PDS_CALL(pds_vec_dev_read(y, &b));
  PDS_CALL(pds_vec_dev_read(z, &c));
  PDS_CALL(pds_vec_dev_write(s, &d));
  PDS_CALL(VEC_CTX(x)->k->vec.dot2_into(VEC_CTX(x), x->n, a, b, c, d + i));
  return pds_vec_allsum_dev(x, s, i, 2);
}

/* Gather the device arrays of V[0..k) (each checked against w) into a host array of pointers: *P is buf when k
   fits, else a heap array the caller frees (P != buf). */
#define MV_STACK 64
static int vec_gather(pds_vec w, int k, const pds_vec *V, pds_vec other, const pds_real **buf, const pds_real ***P) {
  pds_ctx ctx = VEC_CTX(w);

  *P = buf;
  if (k > MV_STACK) PDS_CALL(PDS_NEW(ctx, (size_t)k, P));
  for (int i = 0; i < k; i++) {
    int ierr = PDS_OK;

    if (!V[i] || V[i]->hdr.classid != PDS_CLASSID_VEC || VEC_CTX(V[i]) != ctx || V[i]->n != w->n || V[i] == w ||
        V[i] == other)
      ierr = PDS_ERROR(ctx, V[i] && V[i]->hdr.classid == PDS_CLASSID_VEC && VEC_CTX(V[i]) == ctx && V[i]->n != w->n
                                ? PDS_ERR_SIZE : PDS_ERR_ARG,
                       "V[%d] is not a vector of w's context and length, distinct from w and the scalar vector", i);
    if (!ierr) ierr = pds_vec_dev_read(V[i], &(*P)[i]);
    if (ierr) {
      if (*P != buf) pds_free(ctx, PDS_MEM_HOST, P);
      return ierr;
    }
  }
  return PDS_OK;
}

/* The argument checks of the multi-vector operations: w valid, k and offset not negative, V given, the scalar
   vector s of w's context holding entries offset..offset+k and distinct from w. */
static int vec_multi_check(pds_vec w, int k, const pds_vec *V, pds_vec s, int offset) {
  pds_ctx ctx;

  PDS_VALID(w, PDS_CLASSID_VEC, "w");
  ctx = VEC_CTX(w);
  PDS_CHECK(k >= 0 && offset >= 0, ctx, PDS_ERR_ARG, "k = %d and offset = %d must not be negative", k, offset);
  PDS_CHECK(V || !k, ctx, PDS_ERR_ARG, "vector array V is NULL");
  VEC_SCALARS(w, s, (pds_size)offset + k);
  PDS_CHECK(s != w, ctx, PDS_ERR_ARG, "the scalar vector must differ from w");
  return PDS_OK;
}

int pds_vec_mdot_into(pds_vec w, int k, const pds_vec *V, pds_vec s, int offset) {
  const pds_real *buf[MV_STACK], **P, *a;
  pds_real       *c;
  pds_ctx         ctx;
  int             ierr;

  PDS_CALL(vec_multi_check(w, k, V, s, offset));
  ctx = VEC_CTX(w);
  if (!k) return PDS_OK;
  PDS_KERNEL(ctx, vec.mdot_into);
  PDS_CALL(vec_gather(w, k, V, s, buf, &P));
  ierr = pds_vec_dev_read(w, &a);
  if (!ierr) ierr = pds_vec_dev_write(s, &c);
  if (!ierr) ierr = ctx->k->vec.mdot_into(ctx, w->n, k, P, a, c + offset);
  if (P != buf) pds_free(ctx, PDS_MEM_HOST, &P);
  return ierr ? ierr : pds_vec_allsum_dev(w, s, offset, k); /* GMRES: still one global reduction per pass */
}

int pds_vec_maxpy_dev(pds_vec w, int k, const pds_vec *V, pds_vec c, int offset) {
  const pds_real *buf[MV_STACK], **P, *ca;
  pds_real       *a;
  pds_ctx         ctx;
  int             ierr;

  PDS_CALL(vec_multi_check(w, k, V, c, offset));
  ctx = VEC_CTX(w);
  if (!k) return PDS_OK;
  PDS_KERNEL(ctx, vec.maxpy_dev);
  PDS_CALL(vec_gather(w, k, V, c, buf, &P));
  ierr = pds_vec_dev_read(c, &ca);
  if (!ierr) ierr = pds_vec_dev_write(w, &a);
  if (!ierr) ierr = ctx->k->vec.maxpy_dev(ctx, w->n, k, P, ca + offset, a);
  if (P != buf) pds_free(ctx, PDS_MEM_HOST, &P);
  return ierr;
}

int pds_vec_fused_cg_r(pds_vec r, pds_vec q, pds_vec S, int step) {
  const pds_real *a;
  pds_real       *b, *c;

  VEC_SAME(r, q);
  VEC_SCALARS(r, S, PDS_KS_N);
  PDS_CHECK(r != q, VEC_CTX(r), PDS_ERR_ARG, "r and q must differ");
  if (r->f32) return pds_vec_f32_cg_r(r, q, S, step);
  PDS_KERNEL(VEC_CTX(r), krylov.cg_update_r);
  PDS_CALL(pds_vec_dev_read(q, &a));
  PDS_CALL(pds_vec_dev_write(r, &b));
  PDS_CALL(pds_vec_dev_write(S, &c));
  if (!pds_vec_spans_ranks(r)) return VEC_CTX(r)->k->krylov.cg_update_r(VEC_CTX(r), r->n, a, b, c, step);
  /* distributed: the local sum, the global one, then the step (the bits of the fused kernel on one rank) */
  PDS_CALL(VEC_CTX(r)->k->krylov.cg_update_r(VEC_CTX(r), r->n, a, b, c, -1));
  PDS_CALL(pds_vec_allsum_dev(r, S, 1, 1));
  return step >= 0 ? pds_vec_krylov_step(S, step) : PDS_OK;
}

int pds_vec_fused_cg_xp(pds_vec x, pds_vec p, pds_vec z, pds_vec S) {
  const pds_real *a, *d;
  pds_real       *b, *c;

  VEC_SAME(x, p);
  VEC_SAME(x, z);
  VEC_SCALARS(x, S, PDS_KS_N);
  PDS_CHECK(x != p && x != z && p != z, VEC_CTX(x), PDS_ERR_ARG, "x, p and z must be three different vectors");
  if (x->f32) return pds_vec_f32_cg_xp(x, p, z, S);
  PDS_KERNEL(VEC_CTX(x), krylov.cg_update_xp);
  PDS_CALL(pds_vec_dev_read(z, &a));
  PDS_CALL(pds_vec_dev_write(x, &b));
  PDS_CALL(pds_vec_dev_write(p, &c));
  PDS_CALL(pds_vec_dev_read(S, &d));
  return VEC_CTX(x)->k->krylov.cg_update_xp(VEC_CTX(x), x->n, a, b, c, d);
}

int pds_vec_fused_bicgstab_s(pds_vec w, pds_vec r, pds_vec v, pds_vec S) {
  const pds_real *a, *b;
  pds_real       *c, *d;

  VEC_SAME(w, r);
  VEC_SAME(w, v);
  VEC_SCALARS(w, S, PDS_KS_N);
  PDS_CHECK(w != r && w != v, VEC_CTX(w), PDS_ERR_ARG, "w must differ from r and v");
  if (w->f32) return pds_vec_f32_bicgstab_s(w, r, v, S);
  PDS_KERNEL(VEC_CTX(w), krylov.bicg_update_s);
  PDS_CALL(pds_vec_dev_read(r, &a));
  PDS_CALL(pds_vec_dev_read(v, &b));
  PDS_CALL(pds_vec_dev_write(w, &c));
  PDS_CALL(pds_vec_dev_write(S, &d));
  PDS_CALL(VEC_CTX(w)->k->krylov.bicg_update_s(VEC_CTX(w), w->n, a, b, c, d));
  return pds_vec_allsum_dev(w, S, 1, 1);
}

int pds_vec_fused_bicgstab_r(pds_vec r, pds_vec w, pds_vec t, pds_vec rhat, pds_vec S, int step) {
  const pds_real *a, *b, *c;
  pds_real       *d, *e;

  VEC_SAME(r, w);
  VEC_SAME(r, t);
  VEC_SAME(r, rhat);
  VEC_SCALARS(r, S, PDS_KS_N);
  PDS_CHECK(r != w && r != t && r != rhat, VEC_CTX(r), PDS_ERR_ARG, "r must differ from w, t and rhat");
  if (r->f32) return pds_vec_f32_bicgstab_r(r, w, t, rhat, S, step);
  PDS_KERNEL(VEC_CTX(r), krylov.bicg_update_r);
  PDS_CALL(pds_vec_dev_read(w, &a));
  PDS_CALL(pds_vec_dev_read(t, &b));
  PDS_CALL(pds_vec_dev_read(rhat, &c));
  PDS_CALL(pds_vec_dev_write(r, &d));
  PDS_CALL(pds_vec_dev_write(S, &e));
  if (!pds_vec_spans_ranks(r)) return VEC_CTX(r)->k->krylov.bicg_update_r(VEC_CTX(r), r->n, a, b, c, d, e, step);
  PDS_CALL(VEC_CTX(r)->k->krylov.bicg_update_r(VEC_CTX(r), r->n, a, b, c, d, e, -1)); /* as in pds_vec_fused_cg_r */
  PDS_CALL(pds_vec_allsum_dev(r, S, 4, 2));
  return step >= 0 ? pds_vec_krylov_step(S, step) : PDS_OK;
}

int pds_vec_fused_bicgstab_xp(pds_vec x, pds_vec p, pds_vec ph, pds_vec sh, pds_vec r, pds_vec v, pds_vec S) {
  const pds_real *a, *b, *c, *d, *g;
  pds_real       *e, *f;

  VEC_SAME(x, p);
  VEC_SAME(x, ph);
  VEC_SAME(x, sh);
  VEC_SAME(x, r);
  VEC_SAME(x, v);
  VEC_SCALARS(x, S, PDS_KS_N);
  PDS_CHECK(x != p && x != ph && x != sh && x != r && x != v && p != sh && p != r && p != v, VEC_CTX(x), PDS_ERR_ARG,
            "x and p must differ from each other and from the inputs (only ph may be p)");
  if (x->f32) return pds_vec_f32_bicgstab_xp(x, p, ph, sh, r, v, S);
  PDS_KERNEL(VEC_CTX(x), krylov.bicg_update_xp);
  PDS_CALL(pds_vec_dev_read(ph, &a));
  PDS_CALL(pds_vec_dev_read(sh, &b));
  PDS_CALL(pds_vec_dev_read(r, &c));
  PDS_CALL(pds_vec_dev_read(v, &d));
  PDS_CALL(pds_vec_dev_write(x, &e));
  PDS_CALL(pds_vec_dev_write(p, &f));
  PDS_CALL(pds_vec_dev_read(S, &g));
  return VEC_CTX(x)->k->krylov.bicg_update_xp(VEC_CTX(x), x->n, a, b, c, d, e, f, g);
}

int pds_vec_krylov_set(pds_vec S, const pds_real *v) {
  pds_real *a;

  PDS_VALID(S, PDS_CLASSID_VEC, "S");
  PDS_CHECK(S->n == PDS_KS_N, VEC_CTX(S), PDS_ERR_SIZE, "scalar vector S has length %" PDS_SIZE_FMT ", needs %d",
            S->n, (int)PDS_KS_N);
  PDS_KERNEL(VEC_CTX(S), krylov.set);
  PDS_CALL(pds_vec_dev_write(S, &a));
  return VEC_CTX(S)->k->krylov.set(VEC_CTX(S), a, v);
}

int pds_vec_krylov_step(pds_vec S, int method) {
  pds_real *a;

  PDS_VALID(S, PDS_CLASSID_VEC, "S");
  PDS_CHECK(S->n >= PDS_KS_N, VEC_CTX(S), PDS_ERR_SIZE, "scalar vector S has length %" PDS_SIZE_FMT
            ", needs at least %d", S->n, (int)PDS_KS_N);
  PDS_KERNEL(VEC_CTX(S), krylov.step);
  PDS_CALL(pds_vec_dev_write(S, &a));
  return VEC_CTX(S)->k->krylov.step(VEC_CTX(S), method, a);
}
