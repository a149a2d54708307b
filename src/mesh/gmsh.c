/* src/mesh/gmsh.c: Gmsh files: reader of MSH 2.2 and 4.1, ASCII and binary, 4.1 partitioned or not, which collects
   the elements by type (gmsh_impl.h); the 2D mesh built from its triangles and tagged lines; MSH 2.2 writer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "gmsh_impl.h"

#define GM_SHOW 40 /* characters of a bad token quoted in a message */

/* Element types of the MSH format (1..31, 92, 93): nodes and dimension; 0 nodes = unknown type. */
static const struct {
  unsigned char nodes, dim;
} gm_types[] = {
  {0, 0},  {2, 1},  {3, 2},  {4, 2},  {4, 3},  {8, 3},  {6, 3},  {5, 3},  {3, 1},  {6, 2},  {9, 2},
  {10, 3}, {27, 3}, {18, 3}, {14, 3}, {1, 0},  {8, 2},  {20, 3}, {15, 3}, {13, 3}, {9, 2},  {10, 2},
  {12, 2}, {15, 2}, {15, 2}, {21, 2}, {4, 1},  {5, 1},  {6, 1},  {20, 3}, {35, 3}, {56, 3},
};

static int gm_type_info(long type, int *nodes, int *dim) {
  if (type > 0 && type < (long)(sizeof gm_types / sizeof *gm_types)) {
    *nodes = gm_types[type].nodes, *dim = gm_types[type].dim;
    return 1;
  }
  if (type == 92 || type == 93) {
    *nodes = type == 92 ? 64 : 125, *dim = 3;
    return 1;
  }
  return 0;
}

/* ---- errors --------------------------------------------------------------------------------------------- */

/* Raise "'path', line N: message" (ASCII files) or "'path', byte offset N: message" (binary files). */
static int gm_fail_code(const gm_reader *r, int code, size_t pos, int src_line, const char *func, const char *fmt, ...)
    PDS_PRINTF(6, 7);
static int gm_fail_code(const gm_reader *r, int code, size_t pos, int src_line, const char *func, const char *fmt, ...) {
  char    msg[640];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (r->binary)
    return pds_error(r->ctx, __FILE__, src_line, func, code, "'%s', byte offset %zu: %s", r->path, pos, msg);
  return pds_error(r->ctx, __FILE__, src_line, func, code, "'%s', line %" PDS_SIZE_FMT ": %s", r->path, r->line, msg);
}
#define gm_fail_at(r, pos, src_line, func, ...) gm_fail_code((r), PDS_ERR_FORMAT, (pos), (src_line), (func), __VA_ARGS__)
#define GM_FAIL(r, ...)                         gm_fail_at((r), (r)->pos, __LINE__, __func__, __VA_ARGS__)

/* ---- ASCII tokens ---------------------------------------------------------------------------------------- */

static inline int gm_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

static void gm_skip_space(gm_reader *r) {
  while (r->pos < r->len && gm_space(r->buf[r->pos])) {
    if (r->buf[r->pos] == '\n') r->line++;
    r->pos++;
  }
}

/* The next token [*s, *s + *n); what says what was expected, for the end-of-file message. */
static int gm_token(gm_reader *r, const char *what, const char **s, size_t *n) {
  size_t b;

  *s = NULL, *n = 0;
  gm_skip_space(r);
  if (r->pos >= r->len) return GM_FAIL(r, "unexpected end of file: expected %s (the file is truncated)", what);
  b = r->pos;
  while (r->pos < r->len && !gm_space(r->buf[r->pos])) r->pos++;
  *s = r->buf + b, *n = r->pos - b;
  return PDS_OK;
}

static int gm_show(size_t n) { return n > GM_SHOW ? GM_SHOW : (int)n; }

/* An integer token in [lo, hi]. */
static int gm_int(gm_reader *r, const char *what, int64_t lo, int64_t hi, int64_t *out) {
  const char *s = NULL;
  size_t      n = 0, i = 0;
  uint64_t    v = 0;
  int         neg = 0, big = 0;

  PDS_CALL(gm_token(r, what, &s, &n));
  if (s[0] == '-' || s[0] == '+') neg = s[0] == '-', i = 1;
  if (i == n) return GM_FAIL(r, "%s '%.*s' is not an integer", what, gm_show(n), s);
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return GM_FAIL(r, "%s '%.*s' is not an integer", what, gm_show(n), s);
    if (v > UINT64_C(100000000000000000)) big = 1;
    else v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (big || (int64_t)v < 0 || (neg ? -(int64_t)v : (int64_t)v) < lo || (neg ? -(int64_t)v : (int64_t)v) > hi)
    return GM_FAIL(r, "%s %.*s is out of range [%" PRId64 ", %" PRId64 "]", what, gm_show(n), s, lo, hi);
  *out = neg ? -(int64_t)v : (int64_t)v;
  return PDS_OK;
}

/* A finite real token (strtod stops at the blank or the '\0' after the buffer). */
static int gm_real(gm_reader *r, const char *what, double *out) {
  const char *s = NULL;
  char       *e;
  size_t      n = 0;

  PDS_CALL(gm_token(r, what, &s, &n));
  *out = strtod(s, &e);
  if (e != s + n) return GM_FAIL(r, "%s '%.*s' is not a number", what, gm_show(n), s);
  if (!isfinite(*out)) return GM_FAIL(r, "%s '%.*s' is not finite", what, gm_show(n), s);
  return PDS_OK;
}

/* The token must be the keyword kw (a section marker). */
static int gm_expect(gm_reader *r, const char *kw, const char *after) {
  const char *s = NULL;
  size_t      n = 0;

  PDS_CALL(gm_token(r, kw, &s, &n));
  if (n != strlen(kw) || memcmp(s, kw, n))
    return GM_FAIL(r, "expected '%s' %s, found '%.*s' (a count in the section may be wrong)", kw, after, gm_show(n), s);
  return PDS_OK;
}

/* Nothing but blanks may follow on this line (ASCII element and node lines). */
static int gm_end_line(gm_reader *r, const char *what) {
  while (r->pos < r->len && gm_space(r->buf[r->pos]) && r->buf[r->pos] != '\n') r->pos++;
  if (r->pos < r->len && r->buf[r->pos] != '\n') {
    const char *s = r->buf + r->pos;
    size_t      n = 0;

    while (r->pos + n < r->len && !gm_space(s[n])) n++;
    return GM_FAIL(r, "unexpected '%.*s' at the end of %s", gm_show(n), s, what);
  }
  return PDS_OK;
}

/* Binary data starts after the '\n' that ends the current line. */
static int gm_binary_start(gm_reader *r) {
  while (r->pos < r->len && (r->buf[r->pos] == ' ' || r->buf[r->pos] == '\t' || r->buf[r->pos] == '\r')) r->pos++;
  if (r->pos >= r->len || r->buf[r->pos] != '\n') return GM_FAIL(r, "expected the end of the line before binary data");
  r->pos++;
  r->line++;
  return PDS_OK;
}

/* ---- binary values ---------------------------------------------------------------------------------------- */

static int gm_need(gm_reader *r, size_t n, const char *what) {
  if (r->len - r->pos < n)
    return GM_FAIL(r, "truncated: %s needs %zu bytes, %zu left in the file", what, n, r->len - r->pos);
  return PDS_OK;
}

static void gm_swap(void *p, size_t n) {
  unsigned char *b = p;

  for (size_t i = 0; i < n / 2; i++) {
    unsigned char t = b[i];

    b[i] = b[n - 1 - i], b[n - 1 - i] = t;
  }
}

/* Unchecked reads (after gm_need). */
static int32_t gm_i32(gm_reader *r) {
  int32_t v;

  memcpy(&v, r->buf + r->pos, 4);
  r->pos += 4;
  if (r->swap) gm_swap(&v, 4);
  return v;
}

static uint64_t gm_u64(gm_reader *r) {
  uint64_t v;

  memcpy(&v, r->buf + r->pos, 8);
  r->pos += 8;
  if (r->swap) gm_swap(&v, 8);
  return v;
}

static double gm_f64(gm_reader *r) {
  double v;

  memcpy(&v, r->buf + r->pos, 8);
  r->pos += 8;
  if (r->swap) gm_swap(&v, 8);
  return v;
}

/* A size_t count of a binary 4.1 file, at most hi. */
static int gm_bcount(gm_reader *r, const char *what, uint64_t hi, uint64_t *out) {
  size_t at = r->pos;

  PDS_CALL(gm_need(r, 8, what));
  *out = gm_u64(r);
  if (*out > hi) return gm_fail_at(r, at, __LINE__, __func__, "%s %" PRIu64 " is out of range [0, %" PRIu64 "]", what,
                                   *out, hi);
  return PDS_OK;
}

/* ---- arrays ------------------------------------------------------------------------------------------------ */

/* Resize *p from n used to cap elements of size sz. */
static int gm_resize(pds_ctx ctx, void *p, size_t n, size_t cap, size_t sz) {
  void **pp = (void **)p, *q = NULL;

  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, cap * sz, &q));
  if (n) memcpy(q, *pp, n * sz);
  pds_free(ctx, PDS_MEM_HOST, pp);
  *pp = q;
  return PDS_OK;
}

void pds_gmsh_free(gm_reader *r, gm_mesh *g) {
  pds_ctx ctx = r->ctx;

  pds_free(ctx, PDS_MEM_HOST, &g->ntag), pds_free(ctx, PDS_MEM_HOST, &g->xyz), pds_free(ctx, PDS_MEM_HOST, &g->map);
  pds_free(ctx, PDS_MEM_HOST, &g->sorted);
  for (int t = 0; t < GM_NKEPT; t++) {
    pds_free(ctx, PDS_MEM_HOST, &g->el[t].tag), pds_free(ctx, PDS_MEM_HOST, &g->el[t].node);
    pds_free(ctx, PDS_MEM_HOST, &g->el[t].phys);
  }
  for (int d = 0; d < 4; d++) pds_free(ctx, PDS_MEM_HOST, &g->ent_phys[d]), pds_free(ctx, PDS_MEM_HOST, &g->pent_phys[d]);
  pds_free(ctx, PDS_MEM_HOST, &r->buf);
}

/* Room for more elements of a kept type (capacities double). */
static int gm_reserve(pds_ctx ctx, gm_mesh *g, long type, size_t more) {
  gm_elems *e = &g->el[type];

  if (e->n + more > e->cap) {
    size_t c = e->cap ? 2 * e->cap : 1024, nv = gm_types[type].nodes;

    if (c < e->n + more) c = e->n + more;
    PDS_CALL(gm_resize(ctx, &e->tag, e->n, c, sizeof *e->tag));
    PDS_CALL(gm_resize(ctx, &e->node, nv * e->n, nv * c, sizeof *e->node));
    PDS_CALL(gm_resize(ctx, &e->phys, e->n, c, sizeof *e->phys));
    e->cap = c;
  }
  return PDS_OK;
}

static int gm_tagidx_cmp(const void *a, const void *b) {
  const struct gm_tagidx *x = a, *y = b;

  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The tag -> index map of the nodes: a direct array when the tags are dense enough, else sorted pairs. A tag
   given twice is an error. */
static int gm_build_node_map(gm_reader *r, gm_mesh *g) {
  uint64_t maxtag = 0;

  for (size_t i = 0; i < g->nn; i++)
    if (g->ntag[i] > maxtag) maxtag = g->ntag[i];
  g->maxtag = maxtag;
  if (maxtag <= 2 * (uint64_t)g->nn + 1024) {
    PDS_CALL(pds_malloc(r->ctx, PDS_MEM_HOST, (size_t)(maxtag + 1) * sizeof *g->map, &g->map));
    memset(g->map, 0xff, (size_t)(maxtag + 1) * sizeof *g->map);
    for (size_t i = 0; i < g->nn; i++) {
      if (g->map[g->ntag[i]] >= 0) return GM_FAIL(r, "node tag %" PRIu64 " is given twice in $Nodes", g->ntag[i]);
      g->map[g->ntag[i]] = (int32_t)i;
    }
    return PDS_OK;
  }
  PDS_CALL(pds_malloc(r->ctx, PDS_MEM_HOST, g->nn * sizeof *g->sorted, &g->sorted));
  for (size_t i = 0; i < g->nn; i++) g->sorted[i].tag = g->ntag[i], g->sorted[i].idx = (int64_t)i;
  qsort(g->sorted, g->nn, sizeof *g->sorted, gm_tagidx_cmp);
  for (size_t i = 1; i < g->nn; i++)
    if (g->sorted[i].tag == g->sorted[i - 1].tag)
      return GM_FAIL(r, "node tag %" PRIu64 " is given twice in $Nodes", g->sorted[i].tag);
  return PDS_OK;
}

static int64_t gm_lookup(const struct gm_tagidx *a, size_t n, uint64_t tag) {
  size_t lo = 0, hi = n;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;

    if (a[mid].tag < tag) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && a[lo].tag == tag ? a[lo].idx : -1;
}

/* The node index of a tag, or an error that names the element. */
static int gm_node(gm_reader *r, const gm_mesh *g, uint64_t tag, uint64_t etag, size_t at, int32_t *idx) {
  *idx = g->map ? (tag <= g->maxtag ? g->map[tag] : -1) : (int32_t)gm_lookup(g->sorted, g->nn, tag);
  if (*idx < 0)
    return gm_fail_at(r, at, __LINE__, __func__, "element %" PRIu64 " refers to node %" PRIu64
                      ", which is not in $Nodes", etag, tag);
  return PDS_OK;
}

/* Keep element etag of a kept type with its node tags and physical tag (> 0, or 0 for none). */
static int gm_keep(gm_reader *r, gm_mesh *g, uint64_t etag, long type, const uint64_t *nodes, int64_t phys, size_t at) {
  gm_elems *e  = &g->el[type];
  int       nv = gm_types[type].nodes;

  PDS_CALL(gm_reserve(r->ctx, g, type, 1));
  e->tag[e->n]  = etag;
  e->phys[e->n] = (pds_int)phys;
  for (int k = 0; k < nv; k++) PDS_CALL(gm_node(r, g, nodes[k], etag, at, &e->node[(size_t)nv * e->n + k]));
  e->n++;
  return PDS_OK;
}

static const char *gm_type_name(long type) {
  switch (type) {
  case 3: return "4-node quadrangle";
  case 4: return "tetrahedron";
  case 5: return "hexahedron";
  case 6: return "prism";
  case 7: return "pyramid";
  case 9: return "6-node triangle";
  case 10: return "9-node quadrangle";
  case 11: return "10-node tetrahedron";
  case 12: return "27-node hexahedron";
  case 13: return "18-node prism";
  case 14: return "14-node pyramid";
  case 16: return "8-node quadrangle";
  case 17: return "20-node hexahedron";
  case 18: return "15-node prism";
  case 19: return "13-node pyramid";
  default: return "higher-order element";
  }
}

/* Whether elements of this type and dimension, with this physical tag, are kept (what gm_add_element keeps). */
static int gm_kept(const gm_reader *r, long type, int dim, int64_t phys) {
  if (r->dim == 3) return (type >= 4 && type <= 7) || ((type == 2 || type == 3) && phys > 0);
  return type == 2 || (type == 1 && phys > 0);
}

/* 3D: keep a linear cell (with its physical tag, 0 for none) or a triangle or quadrangle of a physical group (others
   are counted); lines and points are ignored; curved (second-order and higher) elements are refused. */
static int gm_add_element3(gm_reader *r, gm_mesh *g, uint64_t etag, long type, int dim, const uint64_t *nodes,
                           int64_t phys, size_t at) {
  if (dim < 2) return PDS_OK;
  if (!gm_kept(r, type, dim, 1))
    return gm_fail_code(r, PDS_ERR_UNSUPPORTED, at, __LINE__, __func__, "element %" PRIu64 " is a %s (Gmsh type %ld): "
                        "curved (second-order or higher) elements are not supported; this reader supports linear "
                        "tetrahedra, hexahedra, prisms and pyramids with 3-node triangles and 4-node quadrangles on the "
                        "boundary", etag, gm_type_name(type), type);
  if (phys > PDS_INT_MAX)
    return gm_fail_at(r, at, __LINE__, __func__, "element %" PRIu64 ": physical tag %" PRId64 " is too large", etag,
                      phys);
  if (dim == 2 && phys <= 0) {
    g->nuntagged++;
    return PDS_OK;
  }
  return gm_keep(r, g, etag, type, nodes, phys < 0 ? 0 : phys, at);
}

/* Keep one element: a triangle, or a line with its physical tag (> 0; lines in no physical group are counted,
   points ignored). Volume elements and surface elements other than 3-node triangles are refused. nodes: the
   node tags; at: where the element is, for messages. */
static int gm_add_element(gm_reader *r, gm_mesh *g, uint64_t etag, long type, int dim, const uint64_t *nodes,
                          int64_t phys, size_t at) {
  if (r->dim == 3) return gm_add_element3(r, g, etag, type, dim, nodes, phys, at);
  if (dim == 3)
    return gm_fail_code(r, PDS_ERR_UNSUPPORTED, at, __LINE__, __func__, "this is a 3D mesh (element %" PRIu64
                        " is a %s, type %ld): no 2D triangles to read; this reader supports 2D triangle meshes", etag,
                        gm_type_name(type), type);
  if (dim == 2 && type != 2)
    return gm_fail_code(r, PDS_ERR_UNSUPPORTED, at, __LINE__, __func__, "element %" PRIu64 " is a %s (type %ld): "
                        "this reader supports 2D triangle meshes of 3-node triangles only", etag, gm_type_name(type),
                        type);
  if (type == 2) {
    PDS_CALL(gm_keep(r, g, etag, type, nodes, 0, at));
  } else if (type == 1 && phys <= 0) {
    g->nuntagged++;
  } else if (type == 1) {
    if (phys > PDS_INT_MAX)
      return gm_fail_at(r, at, __LINE__, __func__, "line %" PRIu64 ": physical tag %" PRId64 " is too large", etag,
                        phys);
    PDS_CALL(gm_keep(r, g, etag, type, nodes, phys, at));
  }
  return PDS_OK;
}

/* 1 if the next token begins a section marker ('$'): a count said more than the section holds. */
static int gm_at_marker(gm_reader *r) {
  gm_skip_space(r);
  return r->pos < r->len && r->buf[r->pos] == '$';
}

/* ---- sections ---------------------------------------------------------------------------------------------- */

#define GM_MAXCOUNT ((int64_t)PDS_INT_MAX)

static int gm_alloc_nodes(gm_reader *r, gm_mesh *g, uint64_t n) {
  PDS_CHECK(!g->have_nodes, r->ctx, PDS_ERR_FORMAT, "'%s': more than one $Nodes section", r->path);
  g->have_nodes = 1;
  PDS_CALL(pds_malloc(r->ctx, PDS_MEM_HOST, (size_t)n * sizeof *g->ntag, &g->ntag));
  return pds_malloc(r->ctx, PDS_MEM_HOST, (size_t)n * 3 * sizeof *g->xyz, &g->xyz);
}

/* One node's coordinates (ASCII: x y z and extra parametric values; binary: doubles). */
static int gm_coords(gm_reader *r, gm_mesh *g, size_t i, int extra) {
  if (r->binary) {
    size_t at = r->pos;

    for (int k = 0; k < 3; k++) g->xyz[3 * i + k] = gm_f64(r);
    r->pos += 8 * (size_t)extra;
    for (int k = 0; k < 3; k++)
      if (!isfinite(g->xyz[3 * i + k]))
        return gm_fail_at(r, at, __LINE__, __func__, "node %" PRIu64 " has a coordinate that is not finite", g->ntag[i]);
    return PDS_OK;
  }
  for (int k = 0; k < 3; k++) PDS_CALL(gm_real(r, "a node coordinate", &g->xyz[3 * i + k]));
  for (int k = 0; k < extra; k++) {
    double u;

    PDS_CALL(gm_real(r, "a parametric coordinate", &u));
  }
  return gm_end_line(r, "a node line");
}

/* $Nodes of MSH 2: count, then "tag x y z" lines (binary: int tag, 3 doubles). */
static int gm_nodes_v2(gm_reader *r, gm_mesh *g) {
  int64_t n, tag;

  PDS_CALL(gm_int(r, "the number of nodes", 0, GM_MAXCOUNT, &n));
  PDS_CALL(gm_alloc_nodes(r, g, (uint64_t)n));
  if (r->binary) {
    PDS_CALL(gm_binary_start(r));
    PDS_CALL(gm_need(r, (size_t)n * 28, "the $Nodes data"));
  }
  for (g->nn = 0; g->nn < (size_t)n; g->nn++) {
    if (r->binary) {
      size_t at = r->pos;

      if ((tag = gm_i32(r)) <= 0) return gm_fail_at(r, at, __LINE__, __func__, "node tag %" PRId64 " is not > 0", tag);
    } else {
      if (gm_at_marker(r))
        return GM_FAIL(r, "$Nodes declares %" PRId64 " nodes but holds %zu (wrong count)", n, g->nn);
      PDS_CALL(gm_int(r, "node tag", 1, INT64_MAX, &tag));
    }
    g->ntag[g->nn] = (uint64_t)tag;
    PDS_CALL(gm_coords(r, g, g->nn, 0));
  }
  return gm_expect(r, "$EndNodes", "after the nodes");
}

/* $Nodes of MSH 4.1: blocks of node tags then coordinates, one block per entity. */
static int gm_nodes_v4(gm_reader *r, gm_mesh *g) {
  uint64_t nblocks, n, u;

  if (r->binary) {
    PDS_CALL(gm_binary_start(r));
    PDS_CALL(gm_bcount(r, "the number of node blocks", UINT32_MAX, &nblocks));
    PDS_CALL(gm_bcount(r, "the number of nodes", GM_MAXCOUNT, &n));
    PDS_CALL(gm_need(r, 16, "the node tag range"));
    r->pos += 16;
  } else {
    int64_t v;

    PDS_CALL(gm_int(r, "the number of node blocks", 0, UINT32_MAX, &v));
    nblocks = (uint64_t)v;
    PDS_CALL(gm_int(r, "the number of nodes", 0, GM_MAXCOUNT, &v));
    n = (uint64_t)v;
    PDS_CALL(gm_int(r, "the smallest node tag", 0, INT64_MAX, &v));
    PDS_CALL(gm_int(r, "the largest node tag", 0, INT64_MAX, &v));
  }
  PDS_CALL(gm_alloc_nodes(r, g, n));
  g->nn = 0;
  for (uint64_t b = 0; b < nblocks; b++) {
    int64_t dim, par, v;
    size_t  at = r->pos, first = g->nn;

    if (r->binary) {
      PDS_CALL(gm_need(r, 12, "a node block header"));
      dim = gm_i32(r), (void)gm_i32(r), par = gm_i32(r);
      PDS_CALL(gm_bcount(r, "the number of nodes in a block", GM_MAXCOUNT, &u));
      if (dim < 0 || dim > 3 || par < 0 || par > 1)
        return gm_fail_at(r, at, __LINE__, __func__, "bad node block header (entity dimension %" PRId64
                          ", parametric %" PRId64 ")", dim, par);
    } else {
      if (gm_at_marker(r))
        return GM_FAIL(r, "$Nodes declares %" PRIu64 " node blocks but holds %" PRIu64 " (wrong count)", nblocks, b);
      PDS_CALL(gm_int(r, "the entity dimension of a node block", 0, 3, &dim));
      PDS_CALL(gm_int(r, "the entity tag of a node block", INT32_MIN, INT32_MAX, &v));
      PDS_CALL(gm_int(r, "the parametric flag of a node block", 0, 1, &par));
      PDS_CALL(gm_int(r, "the number of nodes in a block", 0, GM_MAXCOUNT, &v));
      u = (uint64_t)v;
    }
    if (u > n - g->nn)
      return gm_fail_at(r, at, __LINE__, __func__, "the node blocks hold more nodes than the %" PRIu64 " declared", n);
    if (r->binary) {
      PDS_CALL(gm_need(r, (size_t)u * 8, "the node tags of a block"));
      for (uint64_t i = 0; i < u; i++) g->ntag[g->nn + i] = gm_u64(r);
    } else
      for (uint64_t i = 0; i < u; i++) {
        if (gm_at_marker(r)) return GM_FAIL(r, "a node block declares %" PRIu64 " nodes but holds %" PRIu64, u, i);
        PDS_CALL(gm_int(r, "node tag", 1, INT64_MAX, &v));
        PDS_CALL(gm_end_line(r, "a node tag line"));
        g->ntag[g->nn + i] = (uint64_t)v;
      }
    if (r->binary)
      PDS_CALL(gm_need(r, (size_t)u * 8 * (3 + (size_t)(par ? dim : 0)), "the node coordinates of a block"));
    for (uint64_t i = 0; i < u; i++) {
      if (!r->binary && gm_at_marker(r))
        return GM_FAIL(r, "a node block declares %" PRIu64 " nodes but holds coordinates for %" PRIu64, u, i);
      PDS_CALL(gm_coords(r, g, first + i, par ? (int)dim : 0));
    }
    for (uint64_t i = 0; i < u; i++)
      if (!g->ntag[first + i]) return gm_fail_at(r, at, __LINE__, __func__, "node tag 0 in a node block (tags are > 0)");
    g->nn += u;
  }
  if (g->nn != n) return GM_FAIL(r, "the node blocks hold %zu nodes, the header declares %" PRIu64, g->nn, n);
  return gm_expect(r, "$EndNodes", "after the node blocks");
}

/* $Entities of MSH 4.1: the first physical tag of each curve (for its lines). $PartitionedEntities (partitioned
   files, part = 1): the ghost entities and partition lists are skipped; a partitioned curve whose parent is a curve
   takes its own first physical tag, or else its parent's from $Entities; a curve between partitions (its parent a
   surface) takes none, though Gmsh lists the surface's group on it: its lines are interior, not boundary. */
static int gm_entities(gm_reader *r, gm_mesh *g, int part) {
  const char        *sec = part ? "$PartitionedEntities" : "$Entities";
  struct gm_tagidx **map = part ? g->pent_phys : g->ent_phys;
  uint64_t           cnt[4];
  size_t            *nc = part ? g->npent : g->nent;

  PDS_CHECK(!g->have_ent[part], r->ctx, PDS_ERR_FORMAT, "'%s': more than one %s section", r->path, sec);
  g->have_ent[part] = 1;
  if (r->binary) PDS_CALL(gm_binary_start(r));
  if (part) { /* the number of partitions, then the ghost entities (tag, partition) */
    uint64_t nghost;

    if (r->binary) {
      PDS_CALL(gm_bcount(r, "the number of partitions", UINT32_MAX, &nghost));
      PDS_CALL(gm_bcount(r, "the number of ghost entities", 1u << 24, &nghost));
      PDS_CALL(gm_need(r, (size_t)nghost * 8, "the ghost entities"));
      r->pos += 8 * (size_t)nghost;
    } else {
      int64_t v;

      PDS_CALL(gm_int(r, "the number of partitions", 0, UINT32_MAX, &v));
      PDS_CALL(gm_int(r, "the number of ghost entities", 0, 1 << 24, &v));
      for (int64_t k = 0; k < 2 * v; k++) PDS_CALL(gm_int(r, "a ghost entity", INT32_MIN, INT32_MAX, &v));
    }
  }
  for (int d = 0; d < 4; d++) {
    if (r->binary) PDS_CALL(gm_bcount(r, "an entity count", UINT32_MAX, &cnt[d]));
    else {
      int64_t v;

      PDS_CALL(gm_int(r, "an entity count", 0, UINT32_MAX, &v));
      cnt[d] = (uint64_t)v;
    }
  }
  for (int d = 1; d < 4; d++)
    PDS_CALL(pds_malloc(r->ctx, PDS_MEM_HOST, (size_t)(cnt[d] ? cnt[d] : 1) * sizeof *map[d], &map[d]));
  for (int d = 0; d < 4; d++)
    for (uint64_t e = 0; e < cnt[d]; e++) {
      int64_t  tag, phys = 0, pdim = -1, ptag = 0, v;
      uint64_t np, nbnd = 0, npart;

      if (r->binary) {
        PDS_CALL(gm_need(r, part ? 12 : 4, "an entity"));
        tag = gm_i32(r);
        if (part) {
          pdim = gm_i32(r), ptag = gm_i32(r);
          PDS_CALL(gm_bcount(r, "the number of partitions of an entity", 1u << 24, &npart));
          PDS_CALL(gm_need(r, (size_t)npart * 4, "the partitions of an entity"));
          r->pos += 4 * (size_t)npart;
        }
        PDS_CALL(gm_need(r, d ? 48 : 24, "the coordinates of an entity"));
        r->pos += d ? 48 : 24;
        PDS_CALL(gm_bcount(r, "the number of physical tags of an entity", 1u << 20, &np));
        PDS_CALL(gm_need(r, (size_t)np * 4, "the physical tags of an entity"));
        for (uint64_t k = 0; k < np; k++) {
          int32_t p = gm_i32(r);

          if (!k) phys = p;
        }
        if (d) {
          PDS_CALL(gm_bcount(r, "the number of bounding entities", 1u << 24, &nbnd));
          PDS_CALL(gm_need(r, (size_t)nbnd * 4, "the bounding entities of an entity"));
          r->pos += 4 * (size_t)nbnd;
        }
      } else {
        double x;

        if (gm_at_marker(r)) return GM_FAIL(r, "%s declares more entities than it holds (wrong count)", sec);
        PDS_CALL(gm_int(r, "an entity tag", INT32_MIN, INT32_MAX, &tag));
        if (part) {
          PDS_CALL(gm_int(r, "the parent dimension of an entity", -1, 3, &pdim));
          PDS_CALL(gm_int(r, "the parent tag of an entity", INT32_MIN, INT32_MAX, &ptag));
          PDS_CALL(gm_int(r, "the number of partitions of an entity", 0, 1 << 24, &v));
          npart = (uint64_t)v;
          for (uint64_t k = 0; k < npart; k++) PDS_CALL(gm_int(r, "a partition tag", INT32_MIN, INT32_MAX, &v));
        }
        for (int k = 0; k < (d ? 6 : 3); k++) PDS_CALL(gm_real(r, "an entity coordinate", &x));
        PDS_CALL(gm_int(r, "the number of physical tags of an entity", 0, 1 << 20, &v));
        np = (uint64_t)v;
        for (uint64_t k = 0; k < np; k++) {
          PDS_CALL(gm_int(r, "a physical tag", INT32_MIN, INT32_MAX, &v));
          if (!k) phys = v;
        }
        if (d) {
          PDS_CALL(gm_int(r, "the number of bounding entities", 0, 1 << 24, &v));
          nbnd = (uint64_t)v;
          for (uint64_t k = 0; k < nbnd; k++) PDS_CALL(gm_int(r, "a bounding entity tag", INT32_MIN, INT32_MAX, &v));
        }
        PDS_CALL(gm_end_line(r, "an entity line"));
      }
      if (d && part && pdim != d) phys = 0; /* between partitions: Gmsh gives it the group of the entity around */
      if (d && part && !np && pdim == d) {  /* the parent entity's group */
        int64_t q = gm_lookup(g->ent_phys[d], g->nent[d], (uint64_t)(uint32_t)(ptag < 0 ? -ptag : ptag));

        phys = q < 0 ? 0 : q;
      }
      if (d) map[d][nc[d]].tag = (uint64_t)(uint32_t)tag, map[d][nc[d]++].idx = phys;
    }
  for (int d = 1; d < 4; d++) qsort(map[d], nc[d], sizeof *map[d], gm_tagidx_cmp);
  return gm_expect(r, part ? "$EndPartitionedEntities" : "$EndEntities", "after the entities");
}

/* One element's tag and node tags: ASCII tokens or binary ints (MSH 2) / size_t (MSH 4). */
static int gm_element_nodes(gm_reader *r, int nn, uint64_t *etag, uint64_t *nodes, int with_tag) {
  if (r->binary) {
    if (with_tag) *etag = r->major == 2 ? (uint64_t)(uint32_t)gm_i32(r) : gm_u64(r);
    for (int k = 0; k < nn; k++) nodes[k] = r->major == 2 ? (uint64_t)(uint32_t)gm_i32(r) : gm_u64(r);
    return PDS_OK;
  }
  for (int k = 0; k < nn; k++) {
    int64_t v;

    PDS_CALL(gm_int(r, "node tag", 1, INT64_MAX, &v));
    nodes[k] = (uint64_t)v;
  }
  return PDS_OK;
}

/* $Elements of MSH 2: "tag type ntags tags... nodes..." lines (binary: blocks of one type with a header). */
static int gm_elements_v2(gm_reader *r, gm_mesh *g) {
  int64_t  n, v;
  uint64_t nodes[125];

  PDS_CALL(gm_int(r, "the number of elements", 0, INT64_MAX, &n));
  if (r->binary) {
    PDS_CALL(gm_binary_start(r));
    for (int64_t done = 0; done < n;) {
      size_t  at = r->pos;
      int32_t type, nfollow, ntags;
      int     nn, dim;

      PDS_CALL(gm_need(r, 12, "an element block header"));
      type = gm_i32(r), nfollow = gm_i32(r), ntags = gm_i32(r);
      if (!gm_type_info(type, &nn, &dim))
        return gm_fail_at(r, at, __LINE__, __func__, "unknown element type %d", (int)type);
      if (nfollow <= 0 || nfollow > n - done || ntags < 0 || ntags > 1000)
        return gm_fail_at(r, at, __LINE__, __func__, "bad element block header (type %d, %d elements, %d tags; %" PRId64
                          " of %" PRId64 " elements read)", (int)type, (int)nfollow, (int)ntags, done, n);
      PDS_CALL(gm_need(r, (size_t)nfollow * 4 * (size_t)(1 + ntags + nn), "an element block"));
      for (int32_t e = 0; e < nfollow; e++) {
        uint64_t etag;
        int64_t  phys = 0;

        at   = r->pos;
        etag = (uint64_t)(uint32_t)gm_i32(r);
        for (int32_t k = 0; k < ntags; k++) {
          int32_t t = gm_i32(r);

          if (!k) phys = t;
        }
        PDS_CALL(gm_element_nodes(r, nn, NULL, nodes, 0));
        PDS_CALL(gm_add_element(r, g, etag, type, dim, nodes, phys, at));
      }
      done += nfollow;
    }
  } else
    for (int64_t e = 0; e < n; e++) {
      int64_t etag, type, ntags, phys = 0;
      int     nn, dim;

      if (gm_at_marker(r))
        return GM_FAIL(r, "$Elements declares %" PRId64 " elements but holds %" PRId64 " (wrong count)", n, e);
      PDS_CALL(gm_int(r, "element tag", 1, INT64_MAX, &etag));
      PDS_CALL(gm_int(r, "element type", 1, 1000, &type));
      if (!gm_type_info((long)type, &nn, &dim)) return GM_FAIL(r, "unknown element type %" PRId64, type);
      PDS_CALL(gm_int(r, "the number of tags", 0, 1000, &ntags));
      for (int64_t k = 0; k < ntags; k++) {
        PDS_CALL(gm_int(r, "an element tag value", INT32_MIN, INT32_MAX, &v));
        if (!k) phys = v;
      }
      PDS_CALL(gm_element_nodes(r, nn, NULL, nodes, 0));
      PDS_CALL(gm_end_line(r, "an element line (too many node tags for its type?)"));
      PDS_CALL(gm_add_element(r, g, (uint64_t)etag, (long)type, dim, nodes, phys, r->pos));
    }
  g->have_elements = 1;
  return gm_expect(r, "$EndElements", "after the elements");
}

/* $Elements of MSH 4.1: blocks of one entity and type, "tag nodes..." per element. */
static int gm_elements_v4(gm_reader *r, gm_mesh *g) {
  uint64_t nblocks, n, done = 0, u, nodes[125];

  if (r->binary) {
    PDS_CALL(gm_binary_start(r));
    PDS_CALL(gm_bcount(r, "the number of element blocks", UINT32_MAX, &nblocks));
    PDS_CALL(gm_bcount(r, "the number of elements", INT64_MAX, &n));
    PDS_CALL(gm_need(r, 16, "the element tag range"));
    r->pos += 16;
  } else {
    int64_t v;

    PDS_CALL(gm_int(r, "the number of element blocks", 0, UINT32_MAX, &v));
    nblocks = (uint64_t)v;
    PDS_CALL(gm_int(r, "the number of elements", 0, INT64_MAX, &v));
    n = (uint64_t)v;
    PDS_CALL(gm_int(r, "the smallest element tag", 0, INT64_MAX, &v));
    PDS_CALL(gm_int(r, "the largest element tag", 0, INT64_MAX, &v));
  }
  for (uint64_t b = 0; b < nblocks; b++) {
    int64_t dim, etag_, type, phys = 0;
    int     nn, tdim;
    size_t  at = r->pos;

    if (r->binary) {
      PDS_CALL(gm_need(r, 12, "an element block header"));
      dim = gm_i32(r), etag_ = gm_i32(r), type = gm_i32(r);
      PDS_CALL(gm_bcount(r, "the number of elements in a block", INT64_MAX, &u));
    } else {
      int64_t v;

      if (gm_at_marker(r))
        return GM_FAIL(r, "$Elements declares %" PRIu64 " element blocks but holds %" PRIu64 " (wrong count)", nblocks,
                       b);
      PDS_CALL(gm_int(r, "the entity dimension of an element block", 0, 3, &dim));
      PDS_CALL(gm_int(r, "the entity tag of an element block", INT32_MIN, INT32_MAX, &etag_));
      PDS_CALL(gm_int(r, "the element type of a block", 1, 1000, &type));
      PDS_CALL(gm_int(r, "the number of elements in a block", 0, INT64_MAX, &v));
      u = (uint64_t)v;
    }
    if (!gm_type_info((long)type, &nn, &tdim))
      return gm_fail_at(r, at, __LINE__, __func__, "unknown element type %" PRId64, type);
    if (tdim != dim)
      return gm_fail_at(r, at, __LINE__, __func__, "an element block of dimension %" PRId64 " holds elements of type %"
                        PRId64 " (dimension %d)", dim, type, tdim);
    if (u > n - done)
      return gm_fail_at(r, at, __LINE__, __func__, "the element blocks hold more elements than the %" PRIu64
                        " declared", n);
    if (dim) { /* a partitioned file's elements lie on partitioned entities */
      uint64_t ent = (uint64_t)(uint32_t)(etag_ < 0 ? -etag_ : etag_);
      int64_t  q   = g->have_ent[1] ? gm_lookup(g->pent_phys[dim], g->npent[dim], ent)
                                    : gm_lookup(g->ent_phys[dim], g->nent[dim], ent);

      phys = q < 0 ? 0 : q;
    }
    if (gm_kept(r, type, tdim, phys)) PDS_CALL(gm_reserve(r->ctx, g, type, (size_t)u));
    if (r->binary) PDS_CALL(gm_need(r, (size_t)u * 8 * (size_t)(1 + nn), "an element block"));
    for (uint64_t e = 0; e < u; e++) {
      uint64_t etag = 0;

      at = r->pos;
      if (!r->binary) {
        int64_t v;

        if (gm_at_marker(r))
          return GM_FAIL(r, "an element block declares %" PRIu64 " elements but holds %" PRIu64, u, e);
        PDS_CALL(gm_int(r, "element tag", 1, INT64_MAX, &v));
        etag = (uint64_t)v;
      }
      PDS_CALL(gm_element_nodes(r, nn, &etag, nodes, 1));
      if (!r->binary) PDS_CALL(gm_end_line(r, "an element line (too many node tags for its type?)"));
      PDS_CALL(gm_add_element(r, g, etag, (long)type, tdim, nodes, phys, at));
    }
    done += u;
  }
  if (done != n)
    return GM_FAIL(r, "the element blocks hold %" PRIu64 " elements, the header declares %" PRIu64, done, n);
  g->have_elements = 1;
  return gm_expect(r, "$EndElements", "after the element blocks");
}

/* Skip a section this reader does not use, up to the line that begins with $End<name>. */
static int gm_skip_section(gm_reader *r, const char *name, size_t n) {
  size_t start = r->pos;
  pds_size line0 = r->line;

  while (r->pos < r->len) {
    char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);

    if (!nl) break;
    r->pos = (size_t)(nl - r->buf) + 1;
    r->line++;
    if (r->len - r->pos >= n + 4 && !memcmp(r->buf + r->pos, "$End", 4) && !memcmp(r->buf + r->pos + 4, name, n)) {
      r->pos += n + 4;
      return PDS_OK;
    }
  }
  r->pos = start, r->line = line0;
  return GM_FAIL(r, "section $%.*s is not closed by $End%.*s (truncated file?)", gm_show(n), name, gm_show(n), name);
}

/* ---- the reader ------------------------------------------------------------------------------------------- */

static int gm_load(pds_ctx ctx, const char *path, gm_reader *r) {
  FILE  *f = fopen(path, "rb");
  long   sz;
  size_t got;
  int    err;

  if (!f) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot open '%s' for reading: %s", path, strerror(errno));
  if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
    err = errno;
    fclose(f);
    return PDS_ERROR(ctx, PDS_ERR_IO, "cannot read '%s' (not a regular file?): %s", path, strerror(err));
  }
  if ((err = pds_malloc(ctx, PDS_MEM_HOST, (size_t)sz + 1, &r->buf))) {
    fclose(f);
    return err;
  }
  got = fread(r->buf, 1, (size_t)sz, f);
  err = ferror(f) ? errno : 0;
  fclose(f);
  if (got != (size_t)sz)
    return PDS_ERROR(ctx, PDS_ERR_IO, "cannot read '%s' (%zu of %ld bytes read): %s", path, got, sz,
                     err ? strerror(err) : "short read");
  r->buf[sz] = '\0';
  r->len     = (size_t)sz;
  return PDS_OK;
}

static int gm_is(const char *s, size_t n, const char *kw) { return n == strlen(kw) && !memcmp(s, kw, n); }

/* $MeshFormat: version (2.x or 4.1), file type (0 ASCII, 1 binary, then the int 1 that tells the byte order) and
   data size (8). */
static int gm_header(gm_reader *r) {
  const char *s = NULL;
  char       *e;
  size_t      n = 0;
  double      version;
  int64_t     type, dsize;

  for (;;) { /* sections such as $Comments may come first */
    gm_skip_space(r);
    if (r->pos >= r->len) return GM_FAIL(r, "the file is empty: expected '$MeshFormat' (not a Gmsh .msh file)");
    PDS_CALL(gm_token(r, "$MeshFormat", &s, &n));
    if (gm_is(s, n, "$MeshFormat")) break;
    if (n < 2 || s[0] != '$' || !memcmp(s, "$End", n < 4 ? n : 4) || gm_is(s, n, "$Nodes") || gm_is(s, n, "$Elements"))
      return GM_FAIL(r, "expected '$MeshFormat', found '%.*s': not a Gmsh .msh file", gm_show(n), s);
    PDS_CALL(gm_skip_section(r, s + 1, n - 1));
  }
  PDS_CALL(gm_token(r, "the format version", &s, &n));
  version = strtod(s, &e);
  if (e != s + n) return GM_FAIL(r, "format version '%.*s' is not a number", gm_show(n), s);
  if (version >= 2 && version < 3) r->major = 2;
  else if (version == 4.1) r->major = 4;
  else
    return gm_fail_code(r, PDS_ERR_UNSUPPORTED, r->pos, __LINE__, __func__, "MSH format version %.*s is not supported "
                        "(2.2 and 4.1 are: save the mesh with gmsh -format msh41 or msh22)", gm_show(n), s);
  PDS_CALL(gm_int(r, "the file type (0 ASCII, 1 binary)", 0, 1, &type));
  PDS_CALL(gm_int(r, "the data size", 0, 64, &dsize));
  if (dsize != 8) return GM_FAIL(r, "data size %" PRId64 " is not supported (only 8: double precision)", dsize);
  if (type == 1) {
    uint32_t one;

    r->binary = 1;
    PDS_CALL(gm_binary_start(r));
    PDS_CALL(gm_need(r, 4, "the byte-order check (the int 1)"));
    memcpy(&one, r->buf + r->pos, 4);
    if (one != 1) {
      gm_swap(&one, 4);
      if (one != 1) return GM_FAIL(r, "the byte-order check after the format line is not the int 1");
      r->swap = 1;
    }
    r->pos += 4;
  }
  return gm_expect(r, "$EndMeshFormat", "after the format line");
}

/* Order of the triangles (or lines) by element tag: perm, stable. */
int pds_gmsh_tag_order(pds_ctx ctx, const uint64_t *tag, size_t n, struct gm_tagidx **perm) {
  PDS_CALL(pds_malloc(ctx, PDS_MEM_HOST, (n ? n : 1) * sizeof **perm, perm));
  for (size_t i = 0; i < n; i++) (*perm)[i].tag = tag[i], (*perm)[i].idx = (int64_t)i;
  for (size_t i = 1; i < n; i++)
    if (tag[i] < tag[i - 1]) {
      qsort(*perm, n, sizeof **perm, gm_tagidx_cmp);
      break;
    }
  return PDS_OK;
}

/* The mesh from what was read: the nodes of triangles, numbered by increasing tag; triangles and lines by
   increasing element tag (an element repeated with the same nodes, as MSH 2 does for an element of two physical
   groups, is kept once for triangles; lines keep each physical tag). */
static int gm_build(gm_reader *r, gm_mesh *g, pds_mesh *m) {
  pds_ctx           ctx  = r->ctx;
  int32_t          *newi = NULL;
  struct gm_tagidx *tp = NULL, *lp = NULL;
  pds_real         *xy = NULL;
  pds_int          *tri = NULL, *bedge = NULL, *btag = NULL, nused = 0, nt = 0, nl = 0;
  uint64_t         *tt = NULL, *lt = NULL;
  int64_t           zref = -1;
  pds_mesh_origin   org;
  const gm_elems   *T = &g->el[2], *L = &g->el[1];
  int               ierr;

  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (g->nn ? g->nn : 1) * sizeof *newi, &newi));
  for (size_t i = 0; i < g->nn; i++) newi[i] = -1;
  for (size_t k = 0; k < 3 * T->n; k++) newi[T->node[k]] = -2;
  for (size_t q = 0; q < pds_gmsh_node_slots(g); q++) { /* increasing tag */
    int64_t i = pds_gmsh_node_at(g, q);

    if (i < 0 || newi[i] != -2) continue;
    if (zref < 0) zref = i;
    if (g->xyz[3 * i + 2] != g->xyz[3 * zref + 2]) {
      ierr = PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "'%s': the triangles are not in a plane z = constant (node %" PRIu64
                       " has z = %g, node %" PRIu64 " has z = %g): this reader supports 2D triangle meshes", r->path,
                       g->ntag[zref], g->xyz[3 * zref + 2], g->ntag[i], g->xyz[3 * i + 2]);
      goto done;
    }
    if (nused == PDS_INT_MAX / 2) {
      ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "'%s': too many nodes for 32-bit indices", r->path);
      goto done;
    }
    newi[i] = nused++;
  }
  if (T->n > (size_t)(PDS_INT_MAX / 3) || L->n > (size_t)(PDS_INT_MAX / 2)) {
    ierr = PDS_ERROR(ctx, PDS_ERR_SIZE, "'%s': too many elements for 32-bit indices", r->path);
    goto done;
  }
  PDS_CALL_GOTO(ierr, done, pds_gmsh_tag_order(ctx, T->tag, T->n, &tp));
  PDS_CALL_GOTO(ierr, done, pds_gmsh_tag_order(ctx, L->tag, L->n, &lp));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nused * 2 * sizeof *xy, &xy));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (T->n ? T->n : 1) * 3 * sizeof *tri, &tri));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (T->n ? T->n : 1) * sizeof *tt, &tt));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (L->n ? L->n : 1) * 2 * sizeof *bedge, &bedge));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (L->n ? L->n : 1) * sizeof *btag, &btag));
  PDS_CALL_GOTO(ierr, done, pds_malloc(ctx, PDS_MEM_HOST, (L->n ? L->n : 1) * sizeof *lt, &lt));
  for (size_t i = 0; i < g->nn; i++)
    if (newi[i] >= 0) xy[2 * newi[i]] = g->xyz[3 * i], xy[2 * newi[i] + 1] = g->xyz[3 * i + 1];
  for (size_t q = 0; q < T->n; q++) {
    const int32_t *v = T->node + 3 * tp[q].idx;

    if (q && tp[q].tag == tp[q - 1].tag) {
      const int32_t *w = T->node + 3 * tp[q - 1].idx;

      if (v[0] == w[0] && v[1] == w[1] && v[2] == w[2]) continue;
      ierr = PDS_ERROR(ctx, PDS_ERR_FORMAT, "'%s': element tag %" PRIu64 " is given to two different triangles",
                       r->path, tp[q].tag);
      goto done;
    }
    for (int k = 0; k < 3; k++) tri[3 * nt + k] = newi[v[k]];
    tt[nt++] = tp[q].tag;
  }
  for (size_t q = 0; q < L->n; q++) {
    const int32_t *v = L->node + 2 * lp[q].idx;

    for (int k = 0; k < 2; k++)
      if (newi[v[k]] < 0) {
        ierr = PDS_ERROR(ctx, PDS_ERR_FORMAT, "'%s': line (element %" PRIu64 ") has node %" PRIu64 ", which belongs "
                         "to no triangle", r->path, lp[q].tag, g->ntag[v[k]]);
        goto done;
      }
    if (q && lp[q].tag == lp[q - 1].tag) {
      const int32_t *w = L->node + 2 * lp[q - 1].idx;

      if (v[0] != w[0] || v[1] != w[1]) {
        ierr = PDS_ERROR(ctx, PDS_ERR_FORMAT, "'%s': element tag %" PRIu64 " is given to two different lines", r->path,
                         lp[q].tag);
        goto done;
      }
      if (L->phys[lp[q].idx] == L->phys[lp[q - 1].idx]) continue;
    }
    bedge[2 * nl] = newi[v[0]], bedge[2 * nl + 1] = newi[v[1]];
    btag[nl]      = L->phys[lp[q].idx];
    lt[nl++]      = lp[q].tag;
  }
  org  = (pds_mesh_origin){r->path, tt, lt};
  ierr = pds_mesh_create_owned(ctx, nused, xy, nt, tri, nl, bedge, btag, &org, m);
  xy = NULL, tri = NULL, bedge = NULL, btag = NULL;
done:
  pds_free(ctx, PDS_MEM_HOST, &newi), pds_free(ctx, PDS_MEM_HOST, &tp), pds_free(ctx, PDS_MEM_HOST, &lp);
  pds_free(ctx, PDS_MEM_HOST, &xy), pds_free(ctx, PDS_MEM_HOST, &tri), pds_free(ctx, PDS_MEM_HOST, &tt);
  pds_free(ctx, PDS_MEM_HOST, &bedge), pds_free(ctx, PDS_MEM_HOST, &btag), pds_free(ctx, PDS_MEM_HOST, &lt);
  return ierr;
}

int pds_gmsh_collect(gm_reader *r, gm_mesh *g) {
  PDS_CALL(gm_load(r->ctx, r->path, r));
  PDS_CALL(gm_header(r));
  for (;;) {
    const char *s = NULL;
    size_t      n = 0;

    gm_skip_space(r);
    if (r->pos >= r->len) break;
    PDS_CALL(gm_token(r, "a section", &s, &n));
    if (s[0] != '$') return GM_FAIL(r, "expected a section ($Nodes, $Elements, ...), found '%.*s'", gm_show(n), s);
    if (gm_is(s, n, "$Nodes")) {
      PDS_CALL(r->major == 2 ? gm_nodes_v2(r, g) : gm_nodes_v4(r, g));
      PDS_CALL(gm_build_node_map(r, g));
    } else if (gm_is(s, n, "$Elements")) {
      if (!g->have_nodes) return GM_FAIL(r, "$Elements comes before $Nodes");
      if (g->have_elements) return GM_FAIL(r, "more than one $Elements section");
      PDS_CALL(r->major == 2 ? gm_elements_v2(r, g) : gm_elements_v4(r, g));
    } else if (gm_is(s, n, "$Entities") && r->major == 4) {
      PDS_CALL(gm_entities(r, g, 0));
    } else if (gm_is(s, n, "$PartitionedEntities") && r->major == 4) {
      if (g->have_elements) return GM_FAIL(r, "$PartitionedEntities comes after $Elements");
      PDS_CALL(gm_entities(r, g, 1));
    } else if (n >= 4 && !memcmp(s, "$End", 4)) {
      return GM_FAIL(r, "unexpected '%.*s' (no such section is open)", gm_show(n), s);
    } else {
      PDS_CALL(gm_skip_section(r, s + 1, n - 1));
    }
  }
  PDS_CHECK(g->have_nodes && g->have_elements, r->ctx, PDS_ERR_FORMAT, "'%s': no %s section (truncated file?)",
            r->path, g->have_nodes ? "$Elements" : "$Nodes");
  return PDS_OK;
}

static int gm_read(gm_reader *r, gm_mesh *g, pds_mesh *m) {
  const gm_elems *T = &g->el[2], *L = &g->el[1];

  PDS_CALL(pds_gmsh_collect(r, g));
  PDS_CHECK(T->n, r->ctx, PDS_ERR_UNSUPPORTED, "'%s': no triangles (%zu nodes, %zu tagged lines): this reader "
            "supports 2D triangle meshes", r->path, g->nn, L->n);
  return gm_build(r, g, m);
}

int pds_mesh_read_gmsh(pds_ctx ctx, const char *path, pds_mesh *m) {
  gm_reader r = {0};
  gm_mesh   g = {0};
  int       ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(m, ctx, PDS_ERR_ARG, "output mesh pointer is NULL");
  *m = NULL;
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  r.ctx = ctx, r.path = path, r.line = 1, r.dim = 2;
  ierr = gm_read(&r, &g, m);
  pds_gmsh_free(&r, &g);
  return ierr;
}

/* ---- the writer --------------------------------------------------------------------------------------------- */

int pds_gmsh_write_begin(pds_ctx ctx, const char *path, pds_int nnodes, FILE **f) {
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  *f = fopen(path, "w");
  if (!*f) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(errno));
  fprintf(*f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%" PDS_INT_FMT "\n", nnodes);
  return PDS_OK;
}

int pds_gmsh_write_end(pds_ctx ctx, const char *path, FILE *f) {
  int err = 0;

  fprintf(f, "$EndElements\n");
  errno = 0;
  if (ferror(f)) err = errno ? errno : -1;
  if (fclose(f) && !err) err = errno ? errno : -1;
  if (err) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot write '%s': %s", path, err > 0 ? strerror(err) : "write error");
  return PDS_OK;
}

/* MSH 2.2 ASCII: nodes 1..n (%.17g: coordinates read back bitwise), the boundary lines (physical and elementary
   tag = their tag) and the triangles (physical and elementary tag 1). */
int pds_mesh_write_gmsh(pds_mesh m, const char *path) {
  FILE *f;

  PDS_VALID(m, PDS_CLASSID_MESH, "mesh");
  PDS_CALL(pds_gmsh_write_begin(m->hdr.ctx, path, m->nnodes, &f));
  for (pds_int i = 0; i < m->nnodes && !ferror(f); i++)
    fprintf(f, "%" PDS_INT_FMT " %.17g %.17g 0\n", i + 1, m->xy[2 * i], m->xy[2 * i + 1]);
  fprintf(f, "$EndNodes\n$Elements\n%" PDS_SIZE_FMT "\n", (pds_size)m->nbedge + m->ntri);
  for (pds_int k = 0; k < m->nbedge && !ferror(f); k++)
    fprintf(f, "%" PDS_SIZE_FMT " 1 2 %" PDS_INT_FMT " %" PDS_INT_FMT " %" PDS_INT_FMT " %" PDS_INT_FMT "\n",
            (pds_size)k + 1, m->bedge_tag[k], m->bedge_tag[k], m->bedge[2 * k] + 1, m->bedge[2 * k + 1] + 1);
  for (pds_int e = 0; e < m->ntri && !ferror(f); e++)
    fprintf(f, "%" PDS_SIZE_FMT " 2 2 1 1 %" PDS_INT_FMT " %" PDS_INT_FMT " %" PDS_INT_FMT "\n",
            (pds_size)m->nbedge + e + 1, m->tri[3 * e] + 1, m->tri[3 * e + 1] + 1, m->tri[3 * e + 2] + 1);
  return pds_gmsh_write_end(m->hdr.ctx, path, f);
}
