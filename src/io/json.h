/* src/io/json.h: a tiny streaming JSON writer for run reports and benchmark lines (internal).
 *
 *   pds_json j;
 *   pds_json_open(ctx, "report.json", 2, &j);        (or pds_json_init(&j, ctx, stdout, 0): one line)
 *   pds_json_begin_object(&j, NULL);
 *   pds_json_string(&j, "solver", "cg");
 *   pds_json_int(&j, "iterations", 12);
 *   pds_json_begin_array(&j, "history"); pds_json_real(&j, NULL, 1.0); pds_json_end_array(&j);
 *   pds_json_end_object(&j);
 *   pds_json_close(&j);                              (reports any write error)
 *
 * Keys are given inside objects and NULL inside arrays and at the top. Strings are escaped; reals are
 * written with 17 significant digits (they read back bitwise), and NaN/Inf, which JSON lacks, as null.
 * Misuse (a key inside an array, a missing key, unbalanced end, nesting deeper than PDS_JSON_MAX_DEPTH)
 * is PDS_ERR_STATE; a failed write is PDS_ERR_IO. Messages go to ctx (may be NULL). */
#ifndef PDS_IO_JSON_H
#define PDS_IO_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "../sys/sys_impl.h"

#define PDS_JSON_MAX_DEPTH 32

typedef struct {
  pds_ctx ctx;
  FILE   *f;
  bool    own;                           /* opened by pds_json_open: closed by pds_json_close */
  int     indent;                        /* spaces per level; 0 = everything on one line */
  int     depth;
  char    kind[PDS_JSON_MAX_DEPTH + 1];  /* 'o' object or 'a' array, per level */
  int     count[PDS_JSON_MAX_DEPTH + 1]; /* values written at each level */
  int     err;                           /* first error (sticky) */
} pds_json;

PDS_INTERN int pds_json_init(pds_json *j, pds_ctx ctx, FILE *f, int indent);
PDS_INTERN int pds_json_open(pds_ctx ctx, const char *path, int indent, pds_json *j);
/* Checks that every object and array was ended, ends the line, flushes, and closes a file it opened. */
PDS_INTERN int pds_json_close(pds_json *j);

PDS_INTERN int pds_json_begin_object(pds_json *j, const char *key);
PDS_INTERN int pds_json_end_object(pds_json *j);
PDS_INTERN int pds_json_begin_array(pds_json *j, const char *key);
PDS_INTERN int pds_json_end_array(pds_json *j);
PDS_INTERN int pds_json_string(pds_json *j, const char *key, const char *s); /* s NULL: null */
PDS_INTERN int pds_json_int(pds_json *j, const char *key, long long v);
PDS_INTERN int pds_json_real(pds_json *j, const char *key, double v);
PDS_INTERN int pds_json_bool(pds_json *j, const char *key, bool v);
PDS_INTERN int pds_json_null(pds_json *j, const char *key);
/* An array of n reals under key. */
PDS_INTERN int pds_json_real_array(pds_json *j, const char *key, const double *v, int n);

#endif
