/* src/disc/fem2d.c: P1 finite elements on triangles for -div(k grad u) = f, u = g at marked nodes: CSR pattern
 * and gather maps (create), element-parallel values and row-parallel gather (assemble), nodal exact solution and
 * the L2 error by a degree-5 rule.
 *
 * Pattern (create, once): node -> triangle incidence (counting sort, ascending triangle in each list); row i =
 * the sorted distinct nodes of its triangles (so the diagonal is in). Gather maps: for each CSR entry p = (i, j)
 * the list of element-matrix values that sum to it, 6 e + slot(li, lj) for every triangle e holding both i and j,
 * ascending in e; for each node the list 3 e + l of its triangles (the load). Both lists are built row by row,
 * independently (row i's matrix contributions start at 3 nptr[i]), so create is row-parallel as well.
 *
 * Assembly (values), by the backend's kernels (ctx->k->fem2d.element, fem2d_gather; src/backend/fem2d_kernels.h):
 *   0. on the host: Dirichlet flags and the callbacks' values (k at centroids, f at edge midpoints, g at marked
 *      nodes), only for the callbacks the problem has (constants go to the kernels as scalars); on a device
 *      backend these, the coordinates, and on the first assembly the maps, are uploaded (info.t_upload);
 *   1. element kernel, one triangle at a time: Ke[6 e .. 6 e + 6) and fe[3 e .. 3 e + 3);
 *   2. gather, one row at a time: a_p = sum of Ke over p's list, b_i = sum of fe over i's list, in list order;
 *      Dirichlet rows (and in symmetric mode Dirichlet columns) as fem2d_gather_row says.
 * On /gpu/cuda the values stay on the device: the matrix is created from device arrays and its host copy is made
 * only if something asks for it (pds_mat_csr_get_arrays, Matrix Market output).
 * No value is written by two threads and every sum has one fixed order (ascending triangle, as a serial
 * triangle-by-triangle scatter assembly would add them), so the result is bitwise the same for any thread count
 * and on any device running the same kernels, with no atomics.
 *
 * Byte model of one assembly (n nodes, t ~ 2 n triangles, nnz ~ 7 n entries, 9 t ~ 18 n contributions; 8-byte
 * reals and offsets, 4-byte indices; bench/bench_fem2d.c uses the same):
 *   element phase: t (12 tri + 48 xy, gathered + 72 Ke and fe written)                          ~264 B/node
 *   gather phase:  n (8 rowptr + 16 nptr + 1 isd + 8 b) + nnz (4 colidx + 8 gptr + 8 vals)
 *                  + 9 t (4 gidx + 8 Ke) + 3 t (4 nidx + 8 fe)                                    ~461 B/node
 *   the objects:   the matrix's copies of rowptr and colidx (16 n + 8 nnz), b set (16 n)          ~88 B/node
 * about 810 B/node in all (1.4 GB for paper 004's 1.7M-node grid 6); flops: ~30 per triangle (element, one
 * division) and 12 additions per triangle (gather). The Ke/fe reads of the gather are gathers, but of nearby
 * triangles when the mesh is numbered with locality (generated meshes are; pds_mesh_reorder_rcm helps others).
 * Memory held: pattern 8 (n + 1) + 4 nnz, gather maps 8 (nnz + 1) + 36 t + 8 (n + 1) + 12 t, flags n: ~197 B/node;
 * the element workspace (72 B/triangle, ~144 B/node) from the first assembly on. */
#include <math.h>
#include <stdlib.h>
#include "../backend/fem2d_kernels.h"
#include "disc_impl.h"

/* An uninitialized array of n elements of *pp, in host or backend memory. */
#define PDS_NEW_HOST_ARRAY(ctx, n, pp) pds_malloc((ctx), PDS_MEM_HOST, (size_t)(n) * sizeof(**(pp)), (pp))
#define PDS_NEW_BACKEND_ARRAY(ctx, n, pp) pds_malloc((ctx), PDS_MEM_DEVICE, (size_t)(n) * sizeof(**(pp)), (pp))

#define FEM_L2_CHUNK 1024 /* triangles per partial sum of the L2 error (fixed: same bits for any thread count) */

/* Order-independent fingerprint of the triangles (XOR of a mix of each), so threads may combine it freely. */
static uint64_t tri_mix(pds_int e, const pds_int *t) {
  uint64_t h = (uint64_t)(uint32_t)e * 0x9e3779b97f4a7c15ull;

  for (int l = 0; l < 3; l++) {
    h ^= (uint64_t)(uint32_t)t[l] + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
  }
  return h ^ (h >> 31);
}
static uint64_t tri_hash(const pds_int *tri, pds_int ntri, int nt) {
  uint64_t h = 0;

#if defined(_OPENMP)
#pragma omp parallel for schedule(static) reduction(^ : h) num_threads(nt) if (nt > 1)
#endif
  for (pds_int e = 0; e < ntri; e++) h ^= tri_mix(e, tri + 3 * (size_t)e);
  (void)nt;
  return h;
}

#define FEM_VALID(fem)                                                                                       \
  do {                                                                                                       \
    if (!(fem)) return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG, "fem2d object is NULL");  \
    if ((fem)->hdr.classid != PDS_CLASSID_FEM2D)                                                             \
      return pds_error(NULL, __FILE__, __LINE__, __func__, PDS_ERR_ARG,                                      \
                       "fem2d object is not valid (destroyed, or another kind of handle)");                  \
  } while (0)

static int cmp_int(const void *x, const void *y) {
  pds_int a = *(const pds_int *)x, b = *(const pds_int *)y;

  return (a > b) - (a < b);
}

/* Sort a short array of node numbers and drop repeats; returns the count. Insertion sort for the usual ~18
   candidates of a row (6 triangles), qsort for the rare node with very many triangles. */
static pds_int sort_unique(pds_int *a, pds_int n) {
  pds_int m = 0;

  if (n > 64) qsort(a, (size_t)n, sizeof *a, cmp_int);
  else
    for (pds_int i = 1; i < n; i++) {
      pds_int v = a[i], k = i - 1;

      while (k >= 0 && a[k] > v) a[k + 1] = a[k], k--;
      a[k + 1] = v;
    }
  for (pds_int i = 0; i < n; i++)
    if (m == 0 || a[i] != a[m - 1]) a[m++] = a[i];
  return m;
}

/* Position of column j in the sorted row colidx[p0..p1) (it is there by construction). */
static pds_size find_col(const pds_int *colidx, pds_size p0, pds_size p1, pds_int j) {
  while (p1 - p0 > 1) {
    pds_size mid = p0 + (p1 - p0) / 2;

    if (colidx[mid] <= j) p0 = mid;
    else p1 = mid;
  }
  return p0;
}

/* The device copies of the maps (device backends only: elsewhere dm is never filled). */
static void fem_free_dev_maps(pds_fem2d fem) {
  pds_ctx                ctx = fem->hdr.ctx;
  struct pds_fem2d_maps *d   = &fem->dm;

  if (ctx->k->mem_alloc) {
    pds_free(ctx, PDS_MEM_DEVICE, &d->rowptr), pds_free(ctx, PDS_MEM_DEVICE, &d->colidx);
    pds_free(ctx, PDS_MEM_DEVICE, &d->gptr), pds_free(ctx, PDS_MEM_DEVICE, &d->gidx);
    pds_free(ctx, PDS_MEM_DEVICE, &d->nptr), pds_free(ctx, PDS_MEM_DEVICE, &d->nidx);
    pds_free(ctx, PDS_MEM_DEVICE, &d->tri);
  }
  fem->dm_ready = 0;
}

static void fem_free_maps(pds_fem2d fem) {
  pds_ctx ctx = fem->hdr.ctx;

  pds_free(ctx, PDS_MEM_HOST, &fem->rowptr);
  pds_free(ctx, PDS_MEM_HOST, &fem->colidx);
  pds_free(ctx, PDS_MEM_HOST, &fem->gptr);
  pds_free(ctx, PDS_MEM_HOST, &fem->gidx);
  pds_free(ctx, PDS_MEM_HOST, &fem->nptr);
  pds_free(ctx, PDS_MEM_HOST, &fem->nidx);
  pds_free(ctx, PDS_MEM_HOST, &fem->onbnd);
  pds_free(ctx, PDS_MEM_DEVICE, &fem->Ke);
  pds_free(ctx, PDS_MEM_DEVICE, &fem->fe);
  fem_free_dev_maps(fem);
}

/* Node -> triangle incidence, in ascending triangle order per node. */
static int build_incidence(pds_fem2d fem, const pds_int *tri) {
  pds_ctx   ctx = fem->hdr.ctx;
  pds_int   n = fem->nnodes, ntri = fem->ntri;
  pds_size *pos = NULL;
  int       ierr;

  PDS_CALL(PDS_NEW(ctx, (size_t)n + 1, &fem->nptr));
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, 3 * (size_t)ntri * sizeof(pds_int), &fem->nidx));
  for (size_t q = 0; q < 3 * (size_t)ntri; q++) {
    pds_int v = tri[q];

    PDS_CHECK(v >= 0 && v < n, ctx, PDS_ERR_ARG, "triangle %zu has node %" PDS_INT_FMT ", outside 0..%" PDS_INT_FMT,
              q / 3, v, n - 1);
    fem->nptr[v + 1]++;
  }
  fem->maxdeg = 0;
  for (pds_int i = 0; i < n; i++) {
    pds_size d = fem->nptr[i + 1];

    PDS_CHECK(d > 0, ctx, PDS_ERR_ARG, "node %" PDS_INT_FMT " belongs to no triangle: its row would be empty", i);
    if (d > fem->maxdeg) fem->maxdeg = (pds_int)d;
    fem->nptr[i + 1] += fem->nptr[i];
  }
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof(pds_size), &pos));
  for (pds_int i = 0; i < n; i++) pos[i] = fem->nptr[i + 1];
  /* backwards, so that each list comes out ascending */
  for (size_t q = 3 * (size_t)ntri; q-- > 0;) fem->nidx[--pos[tri[q]]] = (pds_int)q;
  ierr = pds_free(ctx, PDS_MEM_HOST, &pos);
  return ierr;
}

/* Rows (sorted distinct nodes of the node's triangles), then the matrix gather map and the boundary flags. */
static int build_pattern(pds_fem2d fem, const pds_int *tri) {
  pds_ctx   ctx = fem->hdr.ctx;
  pds_int   n = fem->nnodes, bad_row = PDS_INT_MAX;
  int       nt   = pds_host_threads(ctx);
  size_t    ws   = 3 * (size_t)fem->maxdeg; /* scratch per thread: the row's candidate columns, entry cursors */
  pds_int  *scr  = NULL;
  pds_size *cur  = NULL;
  int       ierr = PDS_OK;

  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)nt * ws * sizeof(pds_int), &scr));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nt * ws * sizeof(pds_size), &cur));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, (size_t)n + 1, &fem->rowptr));
  PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, n, &fem->onbnd));
  /* row lengths */
#if defined(_OPENMP)
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
  {
    pds_int *a = scr + (size_t)pds_host_thread_id() * ws;

#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
    for (pds_int i = 0; i < n; i++) {
      pds_int m = 0;

      for (pds_size q = fem->nptr[i]; q < fem->nptr[i + 1]; q++) {
        const pds_int *t = tri + 3 * (size_t)(fem->nidx[q] / 3);

        a[m++] = t[0], a[m++] = t[1], a[m++] = t[2];
      }
      fem->rowptr[i + 1] = sort_unique(a, m);
    }
  }
  for (pds_int i = 0; i < n; i++) fem->rowptr[i + 1] += fem->rowptr[i];
  fem->nnz = fem->rowptr[n];
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)fem->nnz * sizeof(pds_int), &fem->colidx));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, ((size_t)fem->nnz + 1) * sizeof(pds_size), &fem->gptr));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, 9 * (size_t)fem->ntri * sizeof(pds_int), &fem->gidx));
  fem->gptr[fem->nnz] = 9 * (pds_size)fem->ntri;
  /* columns, then the gather map of each row */
#if defined(_OPENMP)
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(min : bad_row)
#endif
  {
    pds_int  *a = scr + (size_t)pds_host_thread_id() * ws;
    pds_size *c = cur + (size_t)pds_host_thread_id() * ws;

#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
    for (pds_int i = 0; i < n; i++) {
      pds_int  m = 0;
      pds_size p0 = fem->rowptr[i], p1 = fem->rowptr[i + 1], q0 = fem->nptr[i], q1 = fem->nptr[i + 1];

      for (pds_size q = q0; q < q1; q++) {
        const pds_int *t = tri + 3 * (size_t)(fem->nidx[q] / 3);

        a[m++] = t[0], a[m++] = t[1], a[m++] = t[2];
      }
      sort_unique(a, m);
      for (pds_size p = p0; p < p1; p++) fem->colidx[p] = a[p - p0], c[p - p0] = 0;
      /* count the contributions of each entry, then offsets (row i's start at 3 nptr[i]) */
      for (pds_size q = q0; q < q1; q++) {
        const pds_int *t = tri + 3 * (size_t)(fem->nidx[q] / 3);

        for (int lj = 0; lj < 3; lj++) c[find_col(fem->colidx, p0, p1, t[lj]) - p0]++;
      }
      {
        pds_size off = 3 * q0;

        for (pds_size p = p0; p < p1; p++) {
          pds_size k = c[p - p0];

          /* an edge of one triangle is on the boundary; of more than two, the mesh is no triangulation */
          if (fem->colidx[p] != i && k == 1) fem->onbnd[i] = 1;
          if (fem->colidx[p] != i && k > 2 && i < bad_row) bad_row = i;
          fem->gptr[p] = off;
          c[p - p0]    = off;
          off += k;
        }
      }
      for (pds_size q = q0; q < q1; q++) {
        pds_int        e  = fem->nidx[q] / 3;
        int            li = fem->nidx[q] % 3;
        const pds_int *t  = tri + 3 * (size_t)e;

        for (int lj = 0; lj < 3; lj++) {
          pds_size p = find_col(fem->colidx, p0, p1, t[lj]);

          fem->gidx[c[p - p0]++] = 6 * e + fem2d_slot(li, lj);
        }
      }
    }
  }
  if (bad_row != PDS_INT_MAX) {
    pds_int i = bad_row;

    for (pds_size p = fem->rowptr[i]; p < fem->rowptr[i + 1]; p++)
      if (fem->colidx[p] != i && fem->gptr[p + 1] - fem->gptr[p] > 2) {
        ierr = PDS_ERROR(ctx, PDS_ERR_ARG,
                         "edge %" PDS_INT_FMT "-%" PDS_INT_FMT " belongs to %" PDS_SIZE_FMT " triangles: the mesh is "
                         "not a valid triangulation (overlapping or duplicate triangles)",
                         i, fem->colidx[p], fem->gptr[p + 1] - fem->gptr[p]);
        break;
      }
  }
done:
  pds_free(ctx, PDS_MEM_HOST, &scr);
  pds_free(ctx, PDS_MEM_HOST, &cur);
  return ierr;
}

int pds_fem2d_create(pds_ctx ctx, pds_mesh mesh, pds_fem2d *out) {
  pds_fem2d       fem = NULL;
  pds_int         nnodes, ntri, nbedge;
  const pds_real *xy;
  const pds_int  *tri, *bedge, *btag, *marker;
  double          t0 = pds_wtime();
  int             ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(out, ctx, PDS_ERR_ARG, "output handle is NULL");
  *out = NULL;
  PDS_CHECK(mesh, ctx, PDS_ERR_ARG, "mesh is NULL");
  PDS_CALL(pds_mesh_get_sizes(mesh, &nnodes, &ntri, &nbedge));
  PDS_CALL(pds_mesh_get_arrays(mesh, &xy, &tri, &bedge, &btag, &marker));
  PDS_CHECK(nnodes > 0 && ntri > 0, ctx, PDS_ERR_SIZE,
            "mesh has %" PDS_INT_FMT " nodes and %" PDS_INT_FMT " triangles; fem2d needs at least one triangle",
            nnodes, ntri);
  PDS_CHECK(ntri <= PDS_INT_MAX / 9, ctx, PDS_ERR_SIZE,
            "mesh has %" PDS_INT_FMT " triangles; the 32-bit gather map holds at most %d (9 entries each)", ntri,
            PDS_INT_MAX / 9);
  PDS_CALL(PDS_NEW(ctx, 1, &fem));
  fem->hdr     = (struct pds_header){ctx, PDS_CLASSID_FEM2D, 1};
  fem->mesh    = mesh;
  fem->nnodes  = nnodes;
  fem->ntri    = ntri;
  PDS_CALL_GOTO(ierr, fail, build_incidence(fem, tri));
  PDS_CALL_GOTO(ierr, fail, build_pattern(fem, tri));
  fem->tri_hash = tri_hash(tri, ntri, pds_host_threads(ctx));
  PDS_CALL_GOTO(ierr, fail, pds_fem2d_builtin(ctx, "paper", &fem->prob, &fem->square));
  snprintf(fem->name, sizeof fem->name, "paper");
  fem->t_create = pds_wtime() - t0;
  *out          = fem;
  return PDS_OK;
fail:
  fem_free_maps(fem);
  fem->hdr.classid = PDS_CLASSID_FREED;
  pds_free(ctx, PDS_MEM_HOST, &fem);
  return ierr;
}

int pds_fem2d_destroy(pds_fem2d *fem) {
  pds_ctx ctx;

  if (!fem || !*fem) return PDS_OK;
  FEM_VALID(*fem);
  ctx = (*fem)->hdr.ctx;
  fem_free_maps(*fem);
  (*fem)->hdr.classid = PDS_CLASSID_FREED;
  return pds_free(ctx, PDS_MEM_HOST, fem);
}

int pds_fem2d_set_problem(pds_fem2d fem, const char *name) {
  pds_fem2d_problem p;
  int               square;

  FEM_VALID(fem);
  PDS_CALL(pds_fem2d_builtin(fem->hdr.ctx, name, &p, &square));
  fem->prob   = p;
  fem->square = square;
  snprintf(fem->name, sizeof fem->name, "%s", name);
  return PDS_OK;
}

int pds_fem2d_set_problem_user(pds_fem2d fem, const pds_fem2d_problem *prob) {
  FEM_VALID(fem);
  PDS_CHECK(prob, fem->hdr.ctx, PDS_ERR_ARG, "problem is NULL");
  PDS_CHECK(prob->kfn || (prob->k > 0 && isfinite(prob->k)), fem->hdr.ctx, PDS_ERR_ARG,
            "conductivity k = %g must be positive and finite (or give kfn)", prob->k);
  PDS_CHECK(prob->ffn || isfinite(prob->f), fem->hdr.ctx, PDS_ERR_ARG, "source f = %g is not finite", prob->f);
  PDS_CHECK(prob->gfn || isfinite(prob->g), fem->hdr.ctx, PDS_ERR_ARG, "boundary value g = %g is not finite",
            prob->g);
  fem->prob   = *prob;
  fem->square = 0;
  snprintf(fem->name, sizeof fem->name, "user");
  return PDS_OK;
}

const char *pds_fem2d_get_problem(pds_fem2d fem) {
  return fem && fem->hdr.classid == PDS_CLASSID_FEM2D ? fem->name : NULL;
}

/* Current mesh arrays, checked against what create saw (same sizes, same triangles). */
static int fem_mesh_arrays(pds_fem2d fem, const pds_real **xy, const pds_int **tri, const pds_int **marker,
                           bool check_tri) {
  pds_ctx        ctx = fem->hdr.ctx;
  pds_int        nnodes, ntri, nbedge;
  const pds_int *bedge, *btag;

  PDS_CALL(pds_mesh_get_sizes(fem->mesh, &nnodes, &ntri, &nbedge));
  PDS_CALL(pds_mesh_get_arrays(fem->mesh, xy, tri, &bedge, &btag, marker));
  PDS_CHECK(nnodes == fem->nnodes && ntri == fem->ntri, ctx, PDS_ERR_STATE,
            "the mesh has changed since pds_fem2d_create (%" PDS_INT_FMT " nodes and %" PDS_INT_FMT
            " triangles, then %" PDS_INT_FMT " and %" PDS_INT_FMT "); create the fem2d object again",
            nnodes, ntri, fem->nnodes, fem->ntri);
  PDS_CHECK(!check_tri || tri_hash(*tri, ntri, pds_host_threads(ctx)) == fem->tri_hash, ctx, PDS_ERR_STATE,
            "the mesh's triangles have changed since pds_fem2d_create (reordered?); reorder the mesh first, then "
            "create the fem2d object");
  return PDS_OK;
}

/* A device copy of a host array (device backends only). */
static int fem_upload(pds_ctx ctx, const void *h, size_t bytes, void *d) {
  return pds_dup_array(ctx, PDS_MEM_DEVICE, h, PDS_MEM_HOST, bytes, d);
}

/* The maps as the kernels see them: the host arrays on CPU backends; device copies, made once, on a device. */
static int fem_backend_maps(pds_fem2d fem, const pds_int *tri, struct pds_fem2d_maps *m) {
  pds_ctx                ctx = fem->hdr.ctx;
  struct pds_fem2d_maps *d   = &fem->dm;
  size_t                 n1 = (size_t)fem->nnodes + 1, nz = (size_t)fem->nnz, t = (size_t)fem->ntri;

  if (!ctx->k->mem_alloc) {
    *m = (struct pds_fem2d_maps){fem->nnodes, fem->ntri, fem->nnz, fem->rowptr, fem->colidx, fem->gptr,
                                 fem->gidx, fem->nptr, fem->nidx, (pds_int *)tri};
    return PDS_OK;
  }
  if (!fem->dm_ready) {
    int ierr = PDS_OK;

    d->n = fem->nnodes, d->ntri = fem->ntri, d->nnz = fem->nnz;
    PDS_CALL_GOTO(ierr, fail, fem_upload(ctx, fem->rowptr, n1 * sizeof(pds_size), &d->rowptr));
    PDS_CALL_GOTO(ierr, fail, fem_upload(ctx, fem->colidx, nz * sizeof(pds_int), &d->colidx));
    PDS_CALL_GOTO(ierr, fail, fem_upload(ctx, fem->gptr, (nz + 1) * sizeof(pds_size), &d->gptr));
    PDS_CALL_GOTO(ierr, fail, fem_upload(ctx, fem->gidx, 9 * t * sizeof(pds_int), &d->gidx));
    PDS_CALL_GOTO(ierr, fail, fem_upload(ctx, fem->nptr, n1 * sizeof(pds_size), &d->nptr));
    PDS_CALL_GOTO(ierr, fail, fem_upload(ctx, fem->nidx, 3 * t * sizeof(pds_int), &d->nidx));
    PDS_CALL_GOTO(ierr, fail, fem_upload(ctx, tri, 3 * t * sizeof(pds_int), &d->tri));
    fem->dm_ready = 1;
  fail:
    if (ierr) { /* nothing half-uploaded stays: the next assembly starts over */
      fem_free_dev_maps(fem);
      return ierr;
    }
  }
  *m = *d;
  return PDS_OK;
}

int pds_fem2d_assemble(pds_fem2d fem, pds_dirichlet_mode mode, pds_mat *A, pds_vec *b) {
  pds_ctx                  ctx;
  const pds_real          *xy;
  const pds_int           *tri, *marker;
  const pds_fem2d_problem *pr;
  struct pds_fem2d_maps    m;
  pds_int                  n, ntri, bad_node = PDS_INT_MAX, bad_elem = -1, bad_g = PDS_INT_MAX;
  pds_real                *g = NULL, *kv = NULL, *fm = NULL, *vals = NULL, *ba;
  /* what the kernels read: the host arrays on CPU backends, device copies on a device backend */
  const pds_real          *xy_b, *g_b, *kv_b, *fm_b;
  const unsigned char     *isd_b;
  pds_real                *dxy = NULL, *dg = NULL, *dkv = NULL, *dfm = NULL;
  unsigned char           *disd = NULL;
  pds_size                *rp = NULL;
  pds_int                 *ci = NULL;
  unsigned char           *isd = NULL;
  int                      nt, sym, dev, ierr;
  double                   t0 = pds_wtime(), tu = 0.0;

  FEM_VALID(fem);
  ctx = fem->hdr.ctx;
  PDS_CHECK(A && b, ctx, PDS_ERR_ARG, "output matrix or vector handle is NULL");
  *A = NULL, *b = NULL;
  PDS_CHECK(mode == PDS_DIRICHLET_ROW || mode == PDS_DIRICHLET_SYMMETRIC, ctx, PDS_ERR_ARG,
            "Dirichlet mode %d is neither PDS_DIRICHLET_ROW nor PDS_DIRICHLET_SYMMETRIC", (int)mode);
  PDS_KERNEL(ctx, fem2d.element);
  PDS_KERNEL(ctx, fem2d.gather);
  PDS_CALL(fem_mesh_arrays(fem, &xy, &tri, &marker, true));
  n = fem->nnodes, ntri = fem->ntri, pr = &fem->prob, nt = pds_host_threads(ctx), sym = mode == PDS_DIRICHLET_SYMMETRIC;
  dev = ctx->k->mem_alloc != NULL;
  (void)nt; /* unused without OpenMP */

  /* 0. on the host: Dirichlet nodes (every marked node; a boundary node without a marker has no data) and the
        callbacks' values */
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)n, &isd));
  for (pds_int i = 0; i < n; i++) {
    isd[i] = marker[i] > 0;
    if (fem->onbnd[i] && !isd[i] && i < bad_node) bad_node = i;
  }
  if (bad_node != PDS_INT_MAX) {
    ierr = PDS_ERROR(ctx, PDS_ERR_ARG,
                     "node %" PDS_INT_FMT " at (%.17g, %.17g) is on the mesh's boundary (an edge of one triangle) "
                     "but has no boundary marker, so it has no Dirichlet value; tag every boundary curve (Gmsh: a "
                     "Physical Curve; pds_mesh_create_tri: a boundary edge with a tag > 0)",
                     bad_node, xy[2 * (size_t)bad_node], xy[2 * (size_t)bad_node + 1]);
    goto done;
  }
  if (pr->gfn) {
    PDS_CALL_GOTO(ierr, done, PDS_NEW(ctx, n, &g));
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1) reduction(min : bad_g)
#endif
    for (pds_int i = 0; i < n; i++)
      if (isd[i]) {
        g[i] = pr->gfn(pr->user, xy[2 * (size_t)i], xy[2 * (size_t)i + 1]);
        if (!isfinite(g[i]) && i < bad_g) bad_g = i;
      }
    if (bad_g != PDS_INT_MAX) {
      ierr = PDS_ERROR(ctx, PDS_ERR_ARG,
                       "boundary value g(%.17g, %.17g) = %g at node %" PDS_INT_FMT " is not finite",
                       xy[2 * (size_t)bad_g], xy[2 * (size_t)bad_g + 1], g[bad_g], bad_g);
      goto done;
    }
  }
  if (pr->kfn) PDS_CALL_GOTO(ierr, done, PDS_NEW_HOST_ARRAY(ctx, ntri, &kv));
  if (pr->ffn) PDS_CALL_GOTO(ierr, done, PDS_NEW_HOST_ARRAY(ctx, 3 * (size_t)ntri, &fm));
  if (kv || fm) {
    /* k at the centroid, f at the edge midpoints (each midpoint computed alike from both its triangles) */
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
#endif
    for (pds_int e = 0; e < ntri; e++) {
      const pds_int  *t  = tri + 3 * (size_t)e;
      const pds_real *p0 = xy + 2 * (size_t)t[0], *p1 = xy + 2 * (size_t)t[1], *p2 = xy + 2 * (size_t)t[2];

      if (kv) kv[e] = pr->kfn(pr->user, (p0[0] + p1[0] + p2[0]) / 3.0, (p0[1] + p1[1] + p2[1]) / 3.0);
      if (fm) {
        pds_real *F = fm + 3 * (size_t)e;

        F[0] = pr->ffn(pr->user, (p0[0] + p1[0]) * 0.5, (p0[1] + p1[1]) * 0.5);
        F[1] = pr->ffn(pr->user, (p1[0] + p2[0]) * 0.5, (p1[1] + p2[1]) * 0.5);
        F[2] = pr->ffn(pr->user, (p2[0] + p0[0]) * 0.5, (p2[1] + p0[1]) * 0.5);
      }
    }
  }

  /* the kernels' inputs in backend memory */
  {
    double tu0 = pds_wtime();

    PDS_CALL_GOTO(ierr, done, fem_backend_maps(fem, tri, &m));
    xy_b = xy, isd_b = isd, g_b = g, kv_b = kv, fm_b = fm;
    if (dev) {
      PDS_CALL_GOTO(ierr, done, fem_upload(ctx, xy, 2 * (size_t)n * sizeof *xy, &dxy));
      PDS_CALL_GOTO(ierr, done, fem_upload(ctx, isd, (size_t)n, &disd));
      if (g) PDS_CALL_GOTO(ierr, done, fem_upload(ctx, g, (size_t)n * sizeof *g, &dg));
      if (kv) PDS_CALL_GOTO(ierr, done, fem_upload(ctx, kv, (size_t)ntri * sizeof *kv, &dkv));
      if (fm) PDS_CALL_GOTO(ierr, done, fem_upload(ctx, fm, 3 * (size_t)ntri * sizeof *fm, &dfm));
      xy_b = dxy, isd_b = disd, g_b = dg, kv_b = dkv, fm_b = dfm;
      tu = pds_wtime() - tu0;
    }
  }

  /* 1. element values (into the object's workspace: kept for the next assembly, whose page faults it saves) */
  if (!fem->Ke) PDS_CALL_GOTO(ierr, done, PDS_NEW_BACKEND_ARRAY(ctx, 6 * (size_t)ntri, &fem->Ke));
  if (!fem->fe) PDS_CALL_GOTO(ierr, done, PDS_NEW_BACKEND_ARRAY(ctx, 3 * (size_t)ntri, &fem->fe));
  PDS_CALL_GOTO(ierr, done, ctx->k->fem2d.element(ctx, &m, xy_b, pr->k, kv_b, pr->f, fm_b, fem->Ke, fem->fe, &bad_elem));
  if (bad_elem >= 0) {
    const pds_int  *t  = tri + 3 * (size_t)bad_elem;
    const pds_real *p0 = xy + 2 * (size_t)t[0], *p1 = xy + 2 * (size_t)t[1], *p2 = xy + 2 * (size_t)t[2];

    ierr = PDS_ERROR(ctx, PDS_ERR_ARG,
                     "triangle %" PDS_INT_FMT " (nodes %" PDS_INT_FMT " %" PDS_INT_FMT " %" PDS_INT_FMT ") gives a "
                     "non-finite element matrix or load: degenerate or clockwise (2A = %g), or k, f not finite there",
                     bad_elem, t[0], t[1], t[2], (p1[0] - p0[0]) * (p2[1] - p0[1]) - (p2[0] - p0[0]) * (p1[1] - p0[1]));
    goto done;
  }

  /* 2. gather, row by row, into the matrix's values and b (backend memory) */
  PDS_CALL_GOTO(ierr, done, PDS_NEW_BACKEND_ARRAY(ctx, fem->nnz, &vals));
  PDS_CALL_GOTO(ierr, done, pds_vec_create(ctx, n, b));
  PDS_CALL_GOTO(ierr, done, pds_vec_dev_write(*b, &ba));
  PDS_CALL_GOTO(ierr, done,
                ctx->k->fem2d.gather(ctx, &m, fem->Ke, fem->fe, isd_b, g_b, pr->g, sym, vals, ba));

  /* the matrix owns copies of the pattern (in backend memory, copied there from the maps) */
  PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, m.rowptr, PDS_MEM_DEVICE,
                                          ((size_t)n + 1) * sizeof(pds_size), &rp));
  PDS_CALL_GOTO(ierr, done, pds_dup_array(ctx, PDS_MEM_DEVICE, m.colidx, PDS_MEM_DEVICE,
                                          (size_t)fem->nnz * sizeof(pds_int), &ci));
  ierr = pds_mat_csr_from_device_owned(ctx, n, n, fem->nnz, rp, ci, vals, A);
  rp = NULL, ci = NULL, vals = NULL; /* the matrix's now (or freed) */
  if (ierr) goto done;
  fem->t_assemble = pds_wtime() - t0;
  fem->t_upload   = tu;
done:
  if (ierr) {
    pds_mat_destroy(A);
    pds_vec_destroy(b);
  }
  pds_free(ctx, PDS_MEM_HOST, &isd);
  pds_free(ctx, PDS_MEM_HOST, &g);
  pds_free(ctx, PDS_MEM_HOST, &kv);
  pds_free(ctx, PDS_MEM_HOST, &fm);
  pds_free(ctx, PDS_MEM_DEVICE, &dxy);
  pds_free(ctx, PDS_MEM_DEVICE, &disd);
  pds_free(ctx, PDS_MEM_DEVICE, &dg);
  pds_free(ctx, PDS_MEM_DEVICE, &dkv);
  pds_free(ctx, PDS_MEM_DEVICE, &dfm);
  pds_free(ctx, PDS_MEM_DEVICE, &vals);
  pds_free(ctx, PDS_MEM_DEVICE, &rp);
  pds_free(ctx, PDS_MEM_DEVICE, &ci);
  return ierr;
}

/* The exact solution needs the unit square (paper): bounding box [0,1]^2 and total area 1. */
static int fem_check_exact(pds_fem2d fem, const pds_real *xy, const pds_int *tri) {
  pds_ctx ctx = fem->hdr.ctx;
  double  lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, area = 0.0;

  PDS_CHECK(fem->prob.u, ctx, PDS_ERR_UNSUPPORTED, "fem2d problem '%s' has no exact solution (set u)", fem->name);
  if (!fem->square) return PDS_OK;
  for (pds_int i = 0; i < fem->nnodes; i++)
    for (int d = 0; d < 2; d++) lo[d] = fmin(lo[d], xy[2 * (size_t)i + d]), hi[d] = fmax(hi[d], xy[2 * (size_t)i + d]);
  for (pds_int e = 0; e < fem->ntri; e++) {
    const pds_int  *t  = tri + 3 * (size_t)e;
    const pds_real *p0 = xy + 2 * (size_t)t[0], *p1 = xy + 2 * (size_t)t[1], *p2 = xy + 2 * (size_t)t[2];

    area += 0.5 * ((p1[0] - p0[0]) * (p2[1] - p0[1]) - (p2[0] - p0[0]) * (p1[1] - p0[1]));
  }
  PDS_CHECK(fabs(lo[0]) <= 1e-12 && fabs(lo[1]) <= 1e-12 && fabs(hi[0] - 1) <= 1e-12 && fabs(hi[1] - 1) <= 1e-12 &&
                fabs(area - 1.0) <= 1e-9,
            ctx, PDS_ERR_UNSUPPORTED,
            "the exact solution of fem2d problem '%s' (a Fourier series) is known on the unit square only; this mesh "
            "spans [%g, %g] x [%g, %g] with area %.12g", fem->name, lo[0], hi[0], lo[1], hi[1], area);
  return PDS_OK;
}

int pds_fem2d_exact(pds_fem2d fem, pds_vec *u) {
  pds_ctx         ctx;
  const pds_real *xy;
  const pds_int  *tri, *marker;
  pds_real       *uh = NULL;
  pds_int         n;
  int             nt, ierr;

  FEM_VALID(fem);
  ctx = fem->hdr.ctx;
  PDS_CHECK(u, ctx, PDS_ERR_ARG, "output vector handle is NULL");
  *u = NULL;
  PDS_CALL(fem_mesh_arrays(fem, &xy, &tri, &marker, false));
  PDS_CALL(fem_check_exact(fem, xy, tri));
  n = fem->nnodes, nt = pds_host_threads(ctx);
  (void)nt;
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (size_t)n * sizeof(pds_real), &uh));
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt) if (nt > 1)
#endif
  for (pds_int i = 0; i < n; i++) uh[i] = fem->prob.u(fem->prob.user, xy[2 * (size_t)i], xy[2 * (size_t)i + 1]);
  PDS_CALL_GOTO(ierr, done, pds_vec_create(ctx, n, u));
  PDS_CALL_GOTO(ierr, done, pds_vec_set_values(*u, uh, PDS_MEM_HOST));
done:
  if (ierr) pds_vec_destroy(u);
  pds_free(ctx, PDS_MEM_HOST, &uh);
  return ierr;
}

/* 7-point degree-5 rule on the triangle (Radon; Dunavant's degree 5): barycentric points and weights (sum 1). */
static void l2_rule(double lam[7][3], double w[7]) {
  double r = sqrt(15.0), a1 = (6.0 - r) / 21.0, a2 = (6.0 + r) / 21.0;
  double w1 = (155.0 - r) / 1200.0, w2 = (155.0 + r) / 1200.0;

  lam[0][0] = lam[0][1] = lam[0][2] = 1.0 / 3.0, w[0] = 9.0 / 40.0;
  for (int k = 0; k < 3; k++) {
    for (int l = 0; l < 3; l++) {
      lam[1 + k][l] = l == k ? 1.0 - 2.0 * a1 : a1;
      lam[4 + k][l] = l == k ? 1.0 - 2.0 * a2 : a2;
    }
    w[1 + k] = w1, w[4 + k] = w2;
  }
}

int pds_fem2d_l2_error(pds_fem2d fem, pds_vec x, pds_real *err) {
  pds_ctx         ctx;
  const pds_real *xy, *xv = NULL;
  const pds_int  *tri, *marker;
  pds_real       *part = NULL, *xh = NULL;
  pds_size        nx;
  pds_int         ntri;
  size_t          nchunk;
  double          lam[7][3], w[7], sum = 0.0;
  int             nt, ierr;

  FEM_VALID(fem);
  ctx = fem->hdr.ctx;
  PDS_CHECK(x && err, ctx, PDS_ERR_ARG, "vector or output is NULL");
  PDS_CALL(pds_vec_get_size(x, &nx));
  PDS_CHECK(nx == fem->nnodes, ctx, PDS_ERR_SIZE,
            "vector has %" PDS_SIZE_FMT " entries but the mesh has %" PDS_INT_FMT " nodes", nx, fem->nnodes);
  PDS_CALL(fem_mesh_arrays(fem, &xy, &tri, &marker, false));
  PDS_CALL(fem_check_exact(fem, xy, tri));
  ntri = fem->ntri, nt = pds_host_threads(ctx), nchunk = ((size_t)ntri + FEM_L2_CHUNK - 1) / FEM_L2_CHUNK;
  (void)nt;
  l2_rule(lam, w);
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, nchunk * sizeof(pds_real), &part));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nx * sizeof(pds_real), &xh));
  PDS_CALL_GOTO(ierr, done, pds_vec_get_values(x, xh, PDS_MEM_HOST));
  xv = xh;
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
#endif
  for (size_t c = 0; c < nchunk; c++) {
    pds_int e1 = (pds_int)((c + 1) * FEM_L2_CHUNK < (size_t)ntri ? (c + 1) * FEM_L2_CHUNK : (size_t)ntri);
    double  s  = 0.0;

    for (pds_int e = (pds_int)(c * FEM_L2_CHUNK); e < e1; e++) {
      const pds_int  *t  = tri + 3 * (size_t)e;
      const pds_real *p0 = xy + 2 * (size_t)t[0], *p1 = xy + 2 * (size_t)t[1], *p2 = xy + 2 * (size_t)t[2];
      double area = 0.5 * ((p1[0] - p0[0]) * (p2[1] - p0[1]) - (p2[0] - p0[0]) * (p1[1] - p0[1])), se = 0.0;

      for (int k = 0; k < 7; k++) {
        double px = lam[k][0] * p0[0] + lam[k][1] * p1[0] + lam[k][2] * p2[0];
        double py = lam[k][0] * p0[1] + lam[k][1] * p1[1] + lam[k][2] * p2[1];
        double uh = lam[k][0] * xv[t[0]] + lam[k][1] * xv[t[1]] + lam[k][2] * xv[t[2]];
        double d  = uh - fem->prob.u(fem->prob.user, px, py);

        se += w[k] * d * d;
      }
      s += se * area;
    }
    part[c] = s;
  }
  for (size_t c = 0; c < nchunk; c++) sum += part[c];
  *err = sqrt(sum);
  ierr = PDS_OK;
done:
  pds_free(ctx, PDS_MEM_HOST, &part);
  pds_free(ctx, PDS_MEM_HOST, &xh);
  return ierr;
}

int pds_fem2d_get_info(pds_fem2d fem, pds_fem2d_info *info) {
  pds_int nd = 0;
  const pds_real *xy;
  const pds_int  *tri, *marker;

  FEM_VALID(fem);
  PDS_CHECK(info, fem->hdr.ctx, PDS_ERR_ARG, "info is NULL");
  PDS_CALL(fem_mesh_arrays(fem, &xy, &tri, &marker, false));
  for (pds_int i = 0; i < fem->nnodes; i++) nd += marker[i] > 0;
  info->nnodes     = fem->nnodes;
  info->ntri       = fem->ntri;
  info->ndirichlet = nd;
  info->nnz        = fem->nnz;
  info->ncontrib   = 9 * (pds_size)fem->ntri;
  info->bytes      = ((size_t)fem->nnodes + 1) * sizeof(pds_size) * 2 + (size_t)fem->nnz * sizeof(pds_int) +
                ((size_t)fem->nnz + 1) * sizeof(pds_size) + 12 * (size_t)fem->ntri * sizeof(pds_int) +
                (size_t)fem->nnodes + (fem->Ke ? 9 * (size_t)fem->ntri * sizeof(pds_real) : 0);
  info->t_upload   = fem->t_upload;
  info->t_create   = fem->t_create;
  info->t_assemble = fem->t_assemble;
  return PDS_OK;
}

int pds_fem2d_view(pds_fem2d fem, FILE *f) {
  pds_fem2d_info in;

  FEM_VALID(fem);
  PDS_CHECK(f, fem->hdr.ctx, PDS_ERR_ARG, "FILE is NULL");
  PDS_CALL(pds_fem2d_get_info(fem, &in));
  fprintf(f, "fem2d: P1 triangles, problem %s, %" PDS_INT_FMT " nodes (%" PDS_INT_FMT " Dirichlet), %" PDS_INT_FMT
          " triangles\n", fem->name, in.nnodes, in.ndirichlet, in.ntri);
  fprintf(f, "  pattern: %" PDS_SIZE_FMT " entries (%.2f per row); gather map: %" PDS_SIZE_FMT
          " contributions; maps hold %.1f MB; create %.3f s, last assembly %.3f s\n",
          in.nnz, (double)in.nnz / in.nnodes, in.ncontrib, in.bytes / 1e6, in.t_create, in.t_assemble);
  return PDS_OK;
}
