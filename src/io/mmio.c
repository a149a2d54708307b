/* src/io/mmio.c: Matrix Market I/O: coordinate/array files -> CSR (symmetry expanded) and vectors; writes %.17g text. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../mat/mat_impl.h"

#define MM_BLOCK   ((size_t)1 << 22)   /* bytes per fread; also the longest line accepted */
#define MM_GROW0   ((pds_size)1 << 16) /* first capacity of the entry arrays (they double up to the declared count) */
#define MM_SHOW    40                  /* characters of a bad token quoted in a message */
#define MM_BANNER  "%%MatrixMarket matrix coordinate|array real|integer|pattern general|symmetric|skew-symmetric"

enum mm_format { MM_COORDINATE, MM_ARRAY };
enum mm_field { MM_REAL, MM_INTEGER, MM_PATTERN };
enum mm_symmetry { MM_GENERAL, MM_SYMMETRIC, MM_SKEW };

static const char *const mm_symmetry_name[] = {"general", "symmetric", "skew-symmetric"};

/* A file being read through a block buffer: buf[pos, len) is not yet returned; line is the number of the
   last line returned (1-based). */
typedef struct {
  pds_ctx     ctx;
  const char *path;
  FILE       *f;
  char       *buf; /* MM_BLOCK + 1 bytes: room for the '\0' after a last line without '\n' */
  size_t      pos, len;
  int         eof;
  pds_size    line;
} mm_reader;

/* What the banner and the size line say. */
typedef struct {
  enum mm_format   format;
  enum mm_field    field;
  enum mm_symmetry symmetry;
  pds_int          nrows, ncols;
  pds_size         nentries;  /* data lines that must follow */
  pds_size         size_line; /* line number of the size line */
} mm_header;

/* Entries in file order, 0-based; cols is NULL when reading a vector. */
typedef struct {
  pds_int  *rows, *cols;
  pds_real *vals;
  pds_size  n, cap;
} mm_entries;

/* ---- errors ------------------------------------------------------------------------------------------- */

/* Raise "path, line N: message" on the context (file/func of the check that failed). */
static int mm_fail(const mm_reader *r, pds_size line, int code, int src_line, const char *func, const char *fmt, ...)
    PDS_PRINTF(6, 7);
static int mm_fail(const mm_reader *r, pds_size line, int code, int src_line, const char *func, const char *fmt, ...) {
  char    msg[640];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pds_error(r->ctx, __FILE__, src_line, func, code, "%s, line %" PDS_SIZE_FMT ": %s", r->path, line, msg);
}
#define MM_FAIL(r, ...)                MM_FAIL_AT((r), (r)->line, PDS_ERR_FORMAT, __VA_ARGS__)
#define MM_FAIL_AT(r, line, code, ...) mm_fail((r), (line), (code), __LINE__, __func__, __VA_ARGS__)

/* Length of [s, t) to quote in a message. */
static int mm_show(const char *s, const char *t) { return t - s > MM_SHOW ? MM_SHOW : (int)(t - s); }

/* ---- reading lines and tokens ------------------------------------------------------------------------- */

static int mm_open(pds_ctx ctx, const char *path, mm_reader *r) {
  memset(r, 0, sizeof *r);
  r->ctx  = ctx;
  r->path = path;
  r->f    = fopen(path, "rb");
  if (!r->f) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot open '%s' for reading: %s", path, strerror(errno));
  return pds_malloc(ctx, PDS_MEM_HOST, MM_BLOCK + 1, &r->buf);
}

static void mm_close(mm_reader *r) {
  if (r->f) fclose(r->f);
  r->f = NULL;
  pds_free(r->ctx, PDS_MEM_HOST, &r->buf);
}

/* The next line as [*s, *e), with *e == '\0' and the '\n' removed; *s = NULL at the end of the file. The file
   is read in blocks of MM_BLOCK bytes; the unfinished line at the end of a block moves to the front. */
static int mm_next_line(mm_reader *r, char **s, char **e) {
  for (;;) {
    char  *p  = r->buf + r->pos;
    char  *nl = memchr(p, '\n', r->len - r->pos);
    size_t rest, got;

    if (nl || (r->eof && r->pos < r->len)) {
      if (nl) r->pos = (size_t)(nl - r->buf) + 1;
      else nl = r->buf + r->len, r->pos = r->len; /* last line, no '\n' */
      *nl = '\0';
      *s = p, *e = nl;
      r->line++;
      return PDS_OK;
    }
    if (r->eof) {
      *s = *e = NULL;
      return PDS_OK;
    }
    rest = r->len - r->pos;
    if (rest == MM_BLOCK)
      return MM_FAIL_AT(r, r->line + 1, PDS_ERR_FORMAT, "line is longer than %zu characters", MM_BLOCK);
    memmove(r->buf, p, rest);
    errno  = 0;
    got    = fread(r->buf + rest, 1, MM_BLOCK - rest, r->f);
    r->pos = 0;
    r->len = rest + got;
    if (r->len < MM_BLOCK) {
      if (ferror(r->f))
        return PDS_ERROR(r->ctx, PDS_ERR_IO, "cannot read '%s' (%" PDS_SIZE_FMT " lines read): %s", r->path, r->line,
                         errno ? strerror(errno) : "read error");
      r->eof = 1;
    }
  }
}

static inline int mm_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static inline char *mm_skip(char *p, const char *e) {
  while (p < e && mm_blank(*p)) p++;
  return p;
}

static inline char *mm_token_end(char *p, const char *e) {
  while (p < e && !mm_blank(*p)) p++;
  return p;
}

/* A decimal integer in [lo, hi] at *p (blanks before it skipped); it must end at a blank or the end of the line.
   what names it in messages; expect is the layout of the line ("row column value"). */
static int mm_parse_int(const mm_reader *r, char **p, char *e, const char *what, const char *expect, int64_t lo,
                        int64_t hi, int64_t *out) {
  char    *s = mm_skip(*p, e), *q = s, *digits;
  int      neg = 0, big = 0;
  uint64_t v   = 0;
  int64_t  x;

  if (s == e) return MM_FAIL(r, "%s is missing (expected '%s')", what, expect);
  if (*q == '+' || *q == '-') neg = *q++ == '-';
  digits = q;
  for (; q < e && *q >= '0' && *q <= '9'; q++) {
    if (v > UINT64_C(100000000000000000)) big = 1; /* more than 18 digits: out of any range used here */
    else v = v * 10 + (uint64_t)(*q - '0');
  }
  if (q == digits || (q < e && !mm_blank(*q)))
    return MM_FAIL(r, "%s '%.*s' is not an integer", what, mm_show(s, mm_token_end(s, e)), s);
  x = neg ? -(int64_t)v : (int64_t)v;
  if (big || x < lo || x > hi)
    return MM_FAIL(r, "%s %.*s is out of range [%" PRId64 ", %" PRId64 "]", what, mm_show(s, q), s, lo, hi);
  *p   = q;
  *out = x;
  return PDS_OK;
}

/* Clinger's fast path: a plain decimal [+-]digits[.digits][(e|E)[+-]digits] whose digits form an integer
   M <= 2^53 and whose value is M * 10^E with |E| <= 22 is one correctly rounded IEEE multiplication or division
   of two exact doubles, so the result is bitwise what strtod gives. Returns the end of the token, or NULL when
   the token is anything else (more digits, larger exponent, hex, inf, nan, malformed): then strtod decides. */
static char *mm_fast_real(char *s, const char *e, double *out) {
#if FLT_EVAL_METHOD == 0
  static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  char    *q = s;
  uint64_t m = 0;
  int      neg = 0, ndig = 0, nsig = 0, exp10 = 0;

  if (*q == '+' || *q == '-') neg = *q++ == '-';
  for (; q < e && *q >= '0' && *q <= '9'; q++, ndig++)
    if ((m || *q != '0') && ++nsig <= 16) m = m * 10 + (uint64_t)(*q - '0');
  if (q < e && *q == '.')
    for (q++; q < e && *q >= '0' && *q <= '9'; q++, ndig++, exp10--)
      if ((m || *q != '0') && ++nsig <= 16) m = m * 10 + (uint64_t)(*q - '0');
  if (!ndig || nsig > 16 || m > (UINT64_C(1) << 53)) return NULL;
  if (q < e && (*q == 'e' || *q == 'E')) {
    int eneg = 0, ev = 0, edig = 0;

    q++;
    if (q < e && (*q == '+' || *q == '-')) eneg = *q++ == '-';
    for (; q < e && *q >= '0' && *q <= '9'; q++, edig++)
      if (ev < 1000) ev = ev * 10 + (*q - '0');
    if (!edig) return NULL;
    exp10 += eneg ? -ev : ev;
  }
  if (q < e && !mm_blank(*q)) return NULL;
  if (exp10 < -22 || exp10 > 22) return NULL;
  *out = exp10 >= 0 ? (double)m * p10[exp10] : (double)m / p10[-exp10];
  if (neg) *out = -*out;
  return q;
#else
  (void)s, (void)e, (void)out;
  return NULL;
#endif
}

/* A finite real number at *p (the fast path, else strtod on the in-memory line, which ends with '\0'). */
static int mm_parse_real(const mm_reader *r, char **p, char *e, const char *expect, pds_real *out) {
  char  *s = mm_skip(*p, e), *q;
  double x;

  if (s == e) return MM_FAIL(r, "value is missing (expected '%s')", expect);
  if ((q = mm_fast_real(s, e, &x))) {
    *p   = q;
    *out = x;
    return PDS_OK;
  }
  x = strtod(s, &q);
  if (q == s || (q < e && !mm_blank(*q)))
    return MM_FAIL(r, "value '%.*s' is not a number", mm_show(s, mm_token_end(s, e)), s);
  if (!isfinite(x))
    return MM_FAIL(r, "value '%.*s' is not finite (NaN, Inf or beyond the double range)", mm_show(s, q), s);
  *p   = q;
  *out = x;
  return PDS_OK;
}

/* Nothing but blanks may follow the last token. */
static int mm_parse_end(const mm_reader *r, char *p, char *e, const char *where, const char *expect) {
  p = mm_skip(p, e);
  if (p < e)
    return MM_FAIL(r, "trailing garbage '%.*s' %s (expected '%s')", mm_show(p, mm_token_end(p, e)), p, where, expect);
  return PDS_OK;
}

/* [s, t) equals kw, ignoring case. */
static int mm_keyword(const char *s, const char *t, const char *kw) {
  for (; s < t && *kw; s++, kw++)
    if (tolower((unsigned char)*s) != tolower((unsigned char)*kw)) return 0;
  return s == t && !*kw;
}

/* ---- header ------------------------------------------------------------------------------------------- */

static int mm_read_banner(mm_reader *r, mm_header *h) {
  static const char *const formats[] = {"coordinate", "array"}, *const fields[] = {"real", "integer", "pattern"};
  char *s, *e, *p, *tok[6], *end[6];
  int   ntok = 0, i;

  do { /* blank lines before the banner are tolerated */
    PDS_CALL(mm_next_line(r, &s, &e));
    if (!s) return MM_FAIL_AT(r, r->line + 1, PDS_ERR_FORMAT, "the file is empty: expected the banner '%s'", MM_BANNER);
    p = mm_skip(s, e);
  } while (p == e);
  for (; p < e && ntok < 6; p = mm_skip(p, e)) {
    tok[ntok] = p;
    p         = mm_token_end(p, e);
    end[ntok++] = p;
  }
  if (!mm_keyword(tok[0], end[0], "%%MatrixMarket"))
    return MM_FAIL(r, "missing Matrix Market banner: found '%.*s', expected '%s'", mm_show(tok[0], e), tok[0],
                   MM_BANNER);
  if (ntok < 5) return MM_FAIL(r, "incomplete banner: expected '%s'", MM_BANNER);
  if (ntok > 5)
    return MM_FAIL(r, "trailing garbage '%.*s' after the banner (expected '%s')", mm_show(tok[5], end[5]), tok[5],
                   MM_BANNER);
  if (!mm_keyword(tok[1], end[1], "matrix"))
    return MM_FAIL(r, "banner: object '%.*s' is not 'matrix'", mm_show(tok[1], end[1]), tok[1]);
  for (i = 0; i < 2 && !mm_keyword(tok[2], end[2], formats[i]); i++) {}
  if (i == 2)
    return MM_FAIL(r, "banner: unknown format '%.*s' (expected coordinate or array)", mm_show(tok[2], end[2]), tok[2]);
  h->format = (enum mm_format)i;
  for (i = 0; i < 3 && !mm_keyword(tok[3], end[3], fields[i]); i++) {}
  if (i == 3 && mm_keyword(tok[3], end[3], "complex"))
    return MM_FAIL_AT(r, r->line, PDS_ERR_UNSUPPORTED, "banner: field 'complex' is not supported: pdesolve reads "
                      "real-valued files (field real, integer or pattern)");
  if (i == 3)
    return MM_FAIL(r, "banner: unknown field '%.*s' (expected real, integer or pattern)", mm_show(tok[3], end[3]),
                   tok[3]);
  h->field = (enum mm_field)i;
  for (i = 0; i < 3 && !mm_keyword(tok[4], end[4], mm_symmetry_name[i]); i++) {}
  if (i == 3 && mm_keyword(tok[4], end[4], "hermitian"))
    return MM_FAIL_AT(r, r->line, PDS_ERR_UNSUPPORTED, "banner: symmetry 'hermitian' is not supported: pdesolve "
                      "reads real-valued files (general, symmetric or skew-symmetric)");
  if (i == 3)
    return MM_FAIL(r, "banner: unknown symmetry '%.*s' (expected general, symmetric or skew-symmetric)",
                   mm_show(tok[4], end[4]), tok[4]);
  h->symmetry = (enum mm_symmetry)i;
  if (h->format == MM_ARRAY && h->field == MM_PATTERN)
    return MM_FAIL(r, "banner: an array file cannot have field 'pattern' (every entry of an array has a value)");
  return PDS_OK;
}

/* Banner, comment lines, size line. A vector file must have one column. */
static int mm_read_header(mm_reader *r, int for_vec, mm_header *h) {
  const char *expect = NULL;
  char       *s, *e, *p;
  int64_t     m, n, nz = 0, cap;

  PDS_CALL(mm_read_banner(r, h));
  do { /* comments and blank lines up to the size line */
    PDS_CALL(mm_next_line(r, &s, &e));
    if (!s) return MM_FAIL_AT(r, r->line + 1, PDS_ERR_FORMAT, "missing size line: the file ends after the header");
    p = mm_skip(s, e);
  } while (p == e || *p == '%');
  h->size_line = r->line;
  expect       = h->format == MM_COORDINATE ? "rows columns entries" : "rows columns";
  PDS_CALL(mm_parse_int(r, &p, e, "bad size line: row count", expect, 0, PDS_INT_MAX, &m));
  PDS_CALL(mm_parse_int(r, &p, e, "bad size line: column count", expect, 0, PDS_INT_MAX, &n));
  if (h->format == MM_COORDINATE)
    PDS_CALL(mm_parse_int(r, &p, e, "bad size line: entry count", expect, 0, INT64_MAX, &nz));
  PDS_CALL(mm_parse_end(r, p, e, "on the size line", expect));
  if (h->symmetry != MM_GENERAL && m != n)
    return MM_FAIL(r, "bad size line: a %s matrix must be square, this one is %" PRId64 " x %" PRId64,
                   mm_symmetry_name[h->symmetry], m, n);
  cap = h->symmetry == MM_GENERAL ? m * n : h->symmetry == MM_SYMMETRIC ? n * (n + 1) / 2 : n * (n - 1) / 2;
  if (h->format == MM_ARRAY) nz = cap;
  else if (nz > cap)
    return MM_FAIL(r, "bad size line: %" PRId64 " entries do not fit in a %" PRId64 " x %" PRId64 " %s matrix "
                   "(at most %" PRId64 " expected)", nz, m, n, mm_symmetry_name[h->symmetry], cap);
  if (for_vec && n != 1)
    return MM_FAIL(r, "the file holds a %" PRId64 " x %" PRId64 " matrix, not a vector (one column expected)", m, n);
  h->nrows    = (pds_int)m;
  h->ncols    = (pds_int)n;
  h->nentries = nz;
  return PDS_OK;
}

/* ---- entries ------------------------------------------------------------------------------------------ */

static void mm_entries_free(pds_ctx ctx, mm_entries *t) {
  pds_free(ctx, PDS_MEM_HOST, &t->rows);
  pds_free(ctx, PDS_MEM_HOST, &t->cols);
  pds_free(ctx, PDS_MEM_HOST, &t->vals);
  t->n = t->cap = 0;
}

/* Double the capacity (at most limit, the declared count): a wrong count in a header costs no large allocation. */
static int mm_entries_grow(pds_ctx ctx, mm_entries *t, pds_size limit, int with_cols) {
  pds_size  cap  = t->cap ? (t->cap < limit / 2 ? 2 * t->cap : limit) : (limit < MM_GROW0 ? limit : MM_GROW0);
  pds_int  *rows = NULL, *cols = NULL;
  pds_real *vals = NULL;
  int       ierr;

  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)cap * sizeof *rows, &rows));
  if (with_cols) PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)cap * sizeof *cols, &cols));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)cap * sizeof *vals, &vals));
  if (t->n) {
    memcpy(rows, t->rows, (size_t)t->n * sizeof *rows);
    if (with_cols) memcpy(cols, t->cols, (size_t)t->n * sizeof *cols);
    memcpy(vals, t->vals, (size_t)t->n * sizeof *vals);
  }
  pds_free(ctx, PDS_MEM_HOST, &t->rows);
  pds_free(ctx, PDS_MEM_HOST, &t->cols);
  pds_free(ctx, PDS_MEM_HOST, &t->vals);
  t->rows = rows, t->cols = cols, t->vals = vals, t->cap = cap;
  return PDS_OK;
fail:
  pds_free(ctx, PDS_MEM_HOST, &rows);
  pds_free(ctx, PDS_MEM_HOST, &cols);
  pds_free(ctx, PDS_MEM_HOST, &vals);
  return ierr;
}

/* Read the h->nentries data lines (blank and '%' lines skipped), check them, and store them 0-based in t. In an
   array file the position follows column-major order over the stored part (lower triangle when symmetric,
   strictly lower when skew-symmetric). Lines after the last entry must be blank or comments. */
static int mm_read_entries(mm_reader *r, const mm_header *h, int with_cols, mm_entries *t) {
  const char *expect = h->format == MM_ARRAY ? "value" : h->field == MM_PATTERN ? "row column" : "row column value";
  pds_int     ai = h->symmetry == MM_SKEW ? 1 : 0, aj = 0; /* next array position */
  pds_size    k  = 0;

  for (;;) {
    char    *s, *e, *p;
    int64_t  i, j;
    pds_real x = 1.0;

    PDS_CALL(mm_next_line(r, &s, &e));
    if (!s) break;
    p = mm_skip(s, e);
    if (p == e || *p == '%') continue;
    if (k == h->nentries)
      return MM_FAIL(r, "too many entries: the size line (line %" PDS_SIZE_FMT ") declares %" PDS_SIZE_FMT,
                     h->size_line, h->nentries);
    if (k == t->cap) PDS_CALL(mm_entries_grow(r->ctx, t, h->nentries, with_cols));
    if (h->format == MM_COORDINATE) {
      PDS_CALL(mm_parse_int(r, &p, e, "row index", expect, 1, h->nrows, &i));
      PDS_CALL(mm_parse_int(r, &p, e, "column index", expect, 1, h->ncols, &j));
      if (h->symmetry == MM_SYMMETRIC && j > i)
        return MM_FAIL(r, "entry (%" PRId64 ", %" PRId64 ") is in the upper triangle, but a symmetric file stores "
                       "only the lower triangle", i, j);
      if (h->symmetry == MM_SKEW && j == i)
        return MM_FAIL(r, "diagonal entry (%" PRId64 ", %" PRId64 ") in a skew-symmetric file (its diagonal is zero "
                       "and is not stored)", i, j);
      if (h->symmetry == MM_SKEW && j > i)
        return MM_FAIL(r, "entry (%" PRId64 ", %" PRId64 ") is in the upper triangle, but a skew-symmetric file "
                       "stores only the strict lower triangle", i, j);
      i--, j--;
    } else {
      i = ai, j = aj;
      if (++ai == h->nrows) {
        aj++;
        ai = h->symmetry == MM_GENERAL ? 0 : h->symmetry == MM_SYMMETRIC ? aj : aj + 1;
      }
    }
    if (h->field == MM_REAL) PDS_CALL(mm_parse_real(r, &p, e, expect, &x));
    else if (h->field == MM_INTEGER) {
      int64_t iv;

      PDS_CALL(mm_parse_int(r, &p, e, "value", expect, INT64_MIN, INT64_MAX, &iv));
      x = (pds_real)iv;
    }
    PDS_CALL(mm_parse_end(r, p, e, "after the entry", expect));
    t->rows[k] = (pds_int)i;
    if (with_cols) t->cols[k] = (pds_int)j;
    t->vals[k++] = x;
    t->n         = k;
  }
  if (k < h->nentries)
    return MM_FAIL_AT(r, r->line + 1, PDS_ERR_FORMAT, "unexpected end of file (truncated?): expected %" PDS_SIZE_FMT
                      " entries, found %" PDS_SIZE_FMT, h->nentries, k);
  return PDS_OK;
}

/* Open, read the header and all entries, close. */
static int mm_read(pds_ctx ctx, const char *path, int for_vec, mm_header *h, mm_entries *t) {
  mm_reader r;
  int       ierr;

  PDS_CALL_GOTO(ierr, done, mm_open(ctx, path, &r));
  PDS_CALL_GOTO(ierr, done, mm_read_header(&r, for_vec, h));
  PDS_CALL_GOTO(ierr, done, mm_read_entries(&r, h, !for_vec, t));
done:
  mm_close(&r);
  return ierr;
}

/* Entries -> CSR in O(nnz + rows + cols): mirror symmetric entries, counting-sort by column (stable, file order)
   then by row, so each row comes out sorted by column; equal neighbours (duplicates) are summed. Frees t. */
static int mm_build_csr(pds_ctx ctx, const char *path, const mm_header *h, mm_entries *t, pds_mat *A) {
  const int      mirror = h->symmetry != MM_GENERAL;
  const pds_real sign   = h->symmetry == MM_SKEW ? -1.0 : 1.0;
  const pds_int  m = h->nrows, n = h->ncols;
  pds_size       nfull = t->n, *cp = NULL, *rp = NULL, out = 0;
  pds_int       *crow = NULL, *ci = NULL;
  pds_real      *cval = NULL, *v = NULL;
  int            ierr;

  if (mirror)
    for (pds_size k = 0; k < t->n; k++) nfull += t->rows[k] != t->cols[k];
  /* by column */
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)n + 1, &cp));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nfull * sizeof *crow, &crow));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nfull * sizeof *cval, &cval));
  for (pds_size k = 0; k < t->n; k++) {
    cp[t->cols[k] + 1]++;
    if (mirror && t->rows[k] != t->cols[k]) cp[t->rows[k] + 1]++;
  }
  for (pds_int j = 0; j < n; j++) cp[j + 1] += cp[j];
  for (pds_size k = 0; k < t->n; k++) {
    pds_int  i = t->rows[k], j = t->cols[k];
    pds_size p = cp[j]++;

    crow[p] = i, cval[p] = t->vals[k];
    if (mirror && i != j) p = cp[i]++, crow[p] = j, cval[p] = sign * t->vals[k];
  }
  for (pds_int j = n; j > 0; j--) cp[j] = cp[j - 1];
  cp[0] = 0;
  mm_entries_free(ctx, t);
  /* by row */
  PDS_CALL_GOTO(ierr, fail, PDS_NEW(ctx, (size_t)m + 1, &rp));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nfull * sizeof *ci, &ci));
  PDS_CALL_GOTO(ierr, fail, pds_malloc(ctx, PDS_MEM_HOST, (size_t)nfull * sizeof *v, &v));
  for (pds_size p = 0; p < nfull; p++) rp[crow[p] + 1]++;
  for (pds_int i = 0; i < m; i++) rp[i + 1] += rp[i];
  for (pds_int j = 0; j < n; j++)
    for (pds_size p = cp[j]; p < cp[j + 1]; p++) {
      pds_size q = rp[crow[p]]++;

      ci[q] = j, v[q] = cval[p];
    }
  for (pds_int i = m; i > 0; i--) rp[i] = rp[i - 1];
  rp[0] = 0;
  /* duplicates are neighbours now: sum them, compacting in place */
  for (pds_int i = 0; i < m; i++) {
    pds_size start = rp[i], end = rp[i + 1];

    rp[i] = out;
    for (pds_size p = start; p < end; p++) {
      if (out > rp[i] && ci[out - 1] == ci[p]) {
        v[out - 1] += v[p];
        if (!isfinite(v[out - 1])) {
          ierr = PDS_ERROR(ctx, PDS_ERR_FORMAT, "%s, line %" PDS_SIZE_FMT ": the duplicate entries of (%" PDS_INT_FMT
                           ", %" PDS_INT_FMT ") sum to a non-finite value", path, h->size_line + 1, i + 1, ci[p] + 1);
          goto fail;
        }
      } else ci[out] = ci[p], v[out] = v[p], out++;
    }
  }
  rp[m] = out;
  pds_free(ctx, PDS_MEM_HOST, &cp);
  pds_free(ctx, PDS_MEM_HOST, &crow);
  pds_free(ctx, PDS_MEM_HOST, &cval);
  return pds_mat_csr_from_host_owned(ctx, m, n, rp, ci, v, A); /* owns rp, ci, v from here on, also on failure */
fail:
  pds_free(ctx, PDS_MEM_HOST, &cp);
  pds_free(ctx, PDS_MEM_HOST, &crow);
  pds_free(ctx, PDS_MEM_HOST, &cval);
  pds_free(ctx, PDS_MEM_HOST, &rp);
  pds_free(ctx, PDS_MEM_HOST, &ci);
  pds_free(ctx, PDS_MEM_HOST, &v);
  return ierr;
}

/* Entries -> vector; rows not listed (coordinate files) are zero, duplicates are summed. */
static int mm_build_vec(pds_ctx ctx, const char *path, const mm_header *h, const mm_entries *t, pds_vec *v) {
  pds_vec   w = NULL;
  pds_real *a;
  int       ierr;

  PDS_CALL(pds_vec_create(ctx, h->nrows, &w));
  PDS_CALL_GOTO(ierr, fail, pds_vec_get_array_write(w, PDS_MEM_HOST, &a));
  /* NaN marks "no entry yet" (values are finite): a first entry is stored as is, so -0.0 survives */
  for (pds_int i = 0; i < h->nrows; i++) a[i] = NAN;
  for (pds_size k = 0; k < t->n; k++) {
    pds_int i = t->rows[k];

    a[i] = isnan(a[i]) ? t->vals[k] : a[i] + t->vals[k];
    if (!isfinite(a[i])) {
      pds_vec_restore_array_write(w, &a);
      ierr = PDS_ERROR(ctx, PDS_ERR_FORMAT, "%s, line %" PDS_SIZE_FMT ": the duplicate entries of row %" PDS_INT_FMT
                       " sum to a non-finite value", path, h->size_line + 1, i + 1);
      goto fail;
    }
  }
  for (pds_int i = 0; i < h->nrows; i++)
    if (isnan(a[i])) a[i] = 0.0;
  PDS_CALL_GOTO(ierr, fail, pds_vec_restore_array_write(w, &a));
  *v = w;
  return PDS_OK;
fail:
  pds_vec_destroy(&w);
  return ierr;
}

int pds_mm_read_mat(pds_ctx ctx, const char *path, pds_mat *A) {
  mm_header  h;
  mm_entries t = {0};
  int        ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(A, ctx, PDS_ERR_ARG, "output handle is NULL");
  *A = NULL;
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  ierr = mm_read(ctx, path, 0, &h, &t);
  if (!ierr) ierr = mm_build_csr(ctx, path, &h, &t, A);
  mm_entries_free(ctx, &t);
  return ierr;
}

int pds_mm_read_vec(pds_ctx ctx, const char *path, pds_vec *v) {
  mm_header  h;
  mm_entries t = {0};
  int        ierr;

  PDS_CHECK(ctx, NULL, PDS_ERR_ARG, "context is NULL");
  PDS_CHECK(v, ctx, PDS_ERR_ARG, "output handle is NULL");
  *v = NULL;
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  ierr = mm_read(ctx, path, 1, &h, &t);
  if (!ierr) ierr = mm_build_vec(ctx, path, &h, &t, v);
  mm_entries_free(ctx, &t);
  return ierr;
}

/* ---- writing ------------------------------------------------------------------------------------------ */

static int mm_write_open(pds_ctx ctx, const char *path, FILE **f) {
  *f = fopen(path, "w");
  if (!*f) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(errno));
  errno = 0;
  return PDS_OK;
}

/* Close f; a failed write, including the last flush in fclose, is PDS_ERR_IO. */
static int mm_write_close(pds_ctx ctx, const char *path, FILE *f) {
  int err = ferror(f) ? (errno ? errno : -1) : 0;

  if (fclose(f) && !err) err = errno ? errno : -1;
  if (err) return PDS_ERROR(ctx, PDS_ERR_IO, "cannot write '%s': %s", path, err > 0 ? strerror(err) : "write error");
  return PDS_OK;
}

int pds_mm_write_mat(pds_mat A, const char *path) {
  const struct pds_csr *c;
  const struct pds_bsr *b;
  pds_ctx               ctx;
  FILE                 *f;

  PDS_VALID(A, PDS_CLASSID_MAT, "matrix");
  ctx = A->hdr.ctx;
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  PDS_CALL(pds_mat_csr_host_sync(A));
  PDS_CALL(pds_mat_bsr_host_sync(A));
  c = pds_mat_host_csr(A);
  b = pds_mat_host_bsr(A);
  PDS_CHECK(c || b, ctx, PDS_ERR_UNSUPPORTED, "Matrix Market output takes csr and bsr matrices, not %s", A->type);
  PDS_CALL(mm_write_open(ctx, path, &f));
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%% written by pdesolve %s\n%" PDS_INT_FMT
          " %" PDS_INT_FMT " %" PDS_SIZE_FMT "\n", pds_version(), A->nrows, A->ncols, A->nnz);
  if (c) {
    for (pds_int i = 0; i < c->nrows && !ferror(f); i++)
      for (pds_size k = c->rowptr[i]; k < c->rowptr[i + 1]; k++)
        fprintf(f, "%" PDS_INT_FMT " %" PDS_INT_FMT " %.17g\n", i + 1, c->colidx[k] + 1, c->vals[k]);
  } else {
    const int bs = b->bs;

    for (pds_int ib = 0; ib < b->nbrows && !ferror(f); ib++)
      for (int r = 0; r < bs; r++)
        for (pds_size k = b->browptr[ib]; k < b->browptr[ib + 1]; k++)
          for (int cc = 0; cc < bs; cc++)
            fprintf(f, "%" PDS_INT_FMT " %" PDS_INT_FMT " %.17g\n", ib * bs + r + 1, b->bcolidx[k] * bs + cc + 1,
                    b->vals[(k * bs + r) * bs + cc]);
  }
  return mm_write_close(ctx, path, f);
}

int pds_mm_write_vec(pds_vec v, const char *path) {
  const pds_real *a;
  pds_ctx         ctx;
  FILE           *f;
  int             ierr;

  PDS_VALID(v, PDS_CLASSID_VEC, "vector");
  ctx = v->hdr.ctx;
  PDS_CHECK(path, ctx, PDS_ERR_ARG, "path is NULL");
  PDS_CALL(pds_vec_get_array_read(v, PDS_MEM_HOST, &a));
  ierr = mm_write_open(ctx, path, &f);
  if (!ierr) {
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%% written by pdesolve %s\n%" PDS_SIZE_FMT " 1\n",
            pds_version(), v->n);
    for (pds_size i = 0; i < v->n && !ferror(f); i++) fprintf(f, "%.17g\n", a[i]);
    ierr = mm_write_close(ctx, path, f);
  }
  pds_vec_restore_array_read(v, &a);
  return ierr;
}
