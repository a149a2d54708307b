/* src/io/json.c: a streaming JSON writer (objects, arrays, escaped strings, round-trip reals; see json.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "json.h"

#define JSON_FAIL(j, code, ...) ((j)->err ? (j)->err : ((j)->err = PDS_ERROR((j)->ctx, (code), __VA_ARGS__)))

int pds_json_init(pds_json *j, pds_ctx ctx, FILE *f, int indent) {
  PDS_CHECK(j && f, ctx, PDS_ERR_ARG, "json writer or file is NULL");
  memset(j, 0, sizeof *j);
  j->ctx    = ctx;
  j->f      = f;
  j->indent = indent < 0 ? 0 : indent;
  return PDS_OK;
}

int pds_json_open(pds_ctx ctx, const char *path, int indent, pds_json *j) {
  FILE *f;

  PDS_CHECK(j && path, ctx, PDS_ERR_ARG, "json writer or path is NULL");
  f = fopen(path, "w");
  PDS_CHECK(f, ctx, PDS_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(errno));
  PDS_CALL(pds_json_init(j, ctx, f, indent));
  j->own = true;
  return PDS_OK;
}

static void newline(pds_json *j) {
  if (!j->indent) return;
  fputc('\n', j->f);
  for (int i = 0; i < j->depth * j->indent; i++) fputc(' ', j->f);
}

static void put_string(pds_json *j, const char *s) {
  fputc('"', j->f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", j->f); break;
    case '\\': fputs("\\\\", j->f); break;
    case '\n': fputs("\\n", j->f); break;
    case '\r': fputs("\\r", j->f); break;
    case '\t': fputs("\\t", j->f); break;
    case '\b': fputs("\\b", j->f); break;
    case '\f': fputs("\\f", j->f); break;
    default:
      if (*p < 0x20) fprintf(j->f, "\\u%04x", *p);
      else fputc(*p, j->f); /* UTF-8 bytes pass through */
    }
  }
  fputc('"', j->f);
}

/* Separator, indentation and key before a value; checks that a key is given exactly inside objects. */
static int begin_value(pds_json *j, const char *key) {
  if (j->err) return j->err;
  if (j->depth == 0) {
    if (key) return JSON_FAIL(j, PDS_ERR_STATE, "json: key '%s' given outside an object", key);
    if (j->count[0]) return JSON_FAIL(j, PDS_ERR_STATE, "json: a second top-level value");
  } else if (j->kind[j->depth] == 'o' && !key) {
    return JSON_FAIL(j, PDS_ERR_STATE, "json: value inside an object needs a key");
  } else if (j->kind[j->depth] == 'a' && key) {
    return JSON_FAIL(j, PDS_ERR_STATE, "json: key '%s' given inside an array", key);
  }
  if (j->depth > 0) {
    if (j->count[j->depth]) fputc(',', j->f);
    if (j->indent) newline(j);
    else if (j->count[j->depth]) fputc(' ', j->f);
  }
  j->count[j->depth]++;
  if (key) {
    put_string(j, key);
    fputs(": ", j->f);
  }
  return PDS_OK;
}

static int begin(pds_json *j, const char *key, char kind) {
  PDS_CALL(begin_value(j, key));
  if (j->depth == PDS_JSON_MAX_DEPTH)
    return JSON_FAIL(j, PDS_ERR_STATE, "json: nesting deeper than %d", PDS_JSON_MAX_DEPTH);
  fputc(kind == 'o' ? '{' : '[', j->f);
  j->depth++;
  j->kind[j->depth]  = kind;
  j->count[j->depth] = 0;
  return PDS_OK;
}

static int end(pds_json *j, char kind) {
  if (j->err) return j->err;
  if (j->depth == 0 || j->kind[j->depth] != kind)
    return JSON_FAIL(j, PDS_ERR_STATE, "json: end of %s without its begin", kind == 'o' ? "object" : "array");
  j->depth--;
  if (j->count[j->depth + 1] && j->indent) newline(j);
  fputc(kind == 'o' ? '}' : ']', j->f);
  return PDS_OK;
}

int pds_json_begin_object(pds_json *j, const char *key) { return begin(j, key, 'o'); }
int pds_json_end_object(pds_json *j) { return end(j, 'o'); }
int pds_json_begin_array(pds_json *j, const char *key) { return begin(j, key, 'a'); }
int pds_json_end_array(pds_json *j) { return end(j, 'a'); }

int pds_json_string(pds_json *j, const char *key, const char *s) {
  PDS_CALL(begin_value(j, key));
  if (s) put_string(j, s);
  else fputs("null", j->f);
  return PDS_OK;
}

int pds_json_int(pds_json *j, const char *key, long long v) {
  PDS_CALL(begin_value(j, key));
  fprintf(j->f, "%lld", v);
  return PDS_OK;
}

int pds_json_real(pds_json *j, const char *key, double v) {
  PDS_CALL(begin_value(j, key));
  if (isfinite(v)) fprintf(j->f, "%.17g", v);
  else fputs("null", j->f);
  return PDS_OK;
}

int pds_json_bool(pds_json *j, const char *key, bool v) {
  PDS_CALL(begin_value(j, key));
  fputs(v ? "true" : "false", j->f);
  return PDS_OK;
}

int pds_json_null(pds_json *j, const char *key) {
  PDS_CALL(begin_value(j, key));
  fputs("null", j->f);
  return PDS_OK;
}

int pds_json_real_array(pds_json *j, const char *key, const double *v, int n) {
  int indent = j->indent;

  PDS_CALL(pds_json_begin_array(j, key));
  j->indent = 0; /* numbers of one array on one line */
  for (int i = 0; i < n; i++) pds_json_real(j, NULL, v[i]);
  j->indent = indent;
  j->count[j->depth] = 0; /* no newline before ']' */
  return pds_json_end_array(j);
}

int pds_json_close(pds_json *j) {
  int ierr;

  if (!j || !j->f) return PDS_OK;
  ierr = j->err;
  if (!ierr && j->depth) ierr = JSON_FAIL(j, PDS_ERR_STATE, "json: %d object(s) or array(s) not ended", j->depth);
  fputc('\n', j->f);
  if (fflush(j->f) || ferror(j->f))
    ierr = ierr ? ierr : PDS_ERROR(j->ctx, PDS_ERR_IO, "json: write failed: %s", strerror(errno));
  if (j->own && fclose(j->f) && !ierr) ierr = PDS_ERROR(j->ctx, PDS_ERR_IO, "json: close failed: %s", strerror(errno));
  j->f = NULL;
  return ierr;
}
