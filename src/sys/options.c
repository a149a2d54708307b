/* src/sys/options.c: named flags from argv ("-name v1 v2 ..."), typed getters with range checks, a used mark
 * per flag, and help text recorded from the getters themselves (see options.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "options.h"

struct opt_entry {
  const char *name;   /* "-name" as typed, without a second dash */
  char      **vals;   /* argv pointers */
  int         nvals;
  bool        used;
};

struct opt_help {
  char  section[80];  /* non-empty: a heading, not a flag */
  char  name[40];
  char  meta[96];
  char  def[64];
  char  desc[256];
};

struct pds_options_s {
  struct opt_entry *e;
  int               ne;
  struct opt_help  *h;
  int               nh, caph;
  bool              help;
  const char       *stray; /* first value with no flag before it */
  char              err[512];
};

#define OPT_FAIL(o, ...) (snprintf((o)->err, sizeof (o)->err, __VA_ARGS__), PDS_ERR_ARG)

/* A token is a flag when it is '-' or "--" followed by a letter. */
static const char *flag_name(const char *tok) {
  if (tok[0] != '-') return NULL;
  if (isalpha((unsigned char)tok[1])) return tok;
  if (tok[1] == '-' && isalpha((unsigned char)tok[2])) return tok + 1;
  return NULL;
}

static struct opt_entry *find(pds_options o, const char *name) {
  for (int i = 0; i < o->ne; i++)
    if (!strcmp(o->e[i].name, name)) return &o->e[i];
  return NULL;
}

int pds_options_create(int argc, char **argv, pds_options *opts) {
  pds_options o;
  int         ierr;

  if (!opts) return PDS_ERR_ARG;
  *opts = NULL;
  PDS_CALL(PDS_NEW(NULL, 1, &o));
  ierr = PDS_NEW(NULL, argc > 0 ? argc : 1, &o->e);
  if (ierr) {
    pds_free(NULL, PDS_MEM_HOST, &o);
    return ierr;
  }
  for (int i = 0; i < argc; i++) {
    const char       *name = flag_name(argv[i]);
    struct opt_entry *e;

    if (!name) {
      if (o->ne == 0 && !o->stray) o->stray = argv[i]; /* reported by pds_options_check_unused() */
      continue;                                       /* else a value of the flag before it, counted below */
    }
    e = find(o, name);
    if (!e) e = &o->e[o->ne++];
    e->name  = name;
    e->vals  = argv + i + 1;
    e->nvals = 0;
    while (i + 1 + e->nvals < argc && !flag_name(argv[i + 1 + e->nvals])) e->nvals++;
    if (!strcmp(name, "-help") || !strcmp(name, "-h")) {
      o->help = true;
      e->used = true;
    }
  }
  *opts = o;
  return PDS_OK;
}

int pds_options_destroy(pds_options *opts) {
  if (!opts || !*opts) return PDS_OK;
  pds_free(NULL, PDS_MEM_HOST, &(*opts)->e);
  pds_free(NULL, PDS_MEM_HOST, &(*opts)->h);
  pds_free(NULL, PDS_MEM_HOST, opts);
  return PDS_OK;
}

const char *pds_options_get_error(pds_options opts) { return opts ? opts->err : "out of memory"; }
bool        pds_options_help(pds_options opts) { return opts && opts->help; }
bool        pds_options_has(pds_options opts, const char *name) { return opts && find(opts, name); }

static int add_help(pds_options o, struct opt_help **hp) {
  if (o->nh == o->caph) {
    struct opt_help *nh;
    int              cap = o->caph ? 2 * o->caph : 32;

    PDS_CALL(PDS_NEW(NULL, cap, &nh));
    if (o->nh) memcpy(nh, o->h, (size_t)o->nh * sizeof *nh);
    pds_free(NULL, PDS_MEM_HOST, &o->h);
    o->h    = nh;
    o->caph = cap;
  }
  *hp = &o->h[o->nh++];
  memset(*hp, 0, sizeof **hp);
  return PDS_OK;
}

int pds_options_begin_section(pds_options o, const char *title) {
  struct opt_help *h;

  PDS_CALL(add_help(o, &h));
  snprintf(h->section, sizeof h->section, "%s", title);
  return PDS_OK;
}

/* Record a flag for the help text. A description may start with its own value placeholder, "<file> ...". */
static int record(pds_options o, const char *name, const char *meta, const char *def, const char *desc) {
  struct opt_help *h;

  for (int i = 0; i < o->nh; i++)
    if (!strcmp(o->h[i].name, name)) return PDS_OK; /* read twice: listed once */
  PDS_CALL(add_help(o, &h));
  snprintf(h->name, sizeof h->name, "%s", name);
  if (desc[0] == '<' && strchr(desc, '>')) {
    const char *end = strchr(desc, '>') + 1;

    snprintf(h->meta, sizeof h->meta, "%.*s", (int)(end - desc), desc);
    while (*end == ' ') end++;
    desc = end;
  } else {
    snprintf(h->meta, sizeof h->meta, "%s", meta);
  }
  snprintf(h->def, sizeof h->def, "%s", def);
  snprintf(h->desc, sizeof h->desc, "%s", desc);
  return PDS_OK;
}

/* The entry of a flag that takes exactly one value, or NULL when absent (then *ierr = 0). */
static struct opt_entry *one_value(pds_options o, const char *name, const char *what, int *ierr) {
  struct opt_entry *e = find(o, name);

  *ierr = PDS_OK;
  if (!e) return NULL;
  e->used = true;
  if (o->help) return NULL;
  if (e->nvals == 0) *ierr = OPT_FAIL(o, "flag %s is missing its value (%s)", name, what);
  else if (e->nvals > 1)
    *ierr = OPT_FAIL(o, "flag %s takes one value but got %d ('%s' ... '%s')", name, e->nvals, e->vals[0],
                     e->vals[e->nvals - 1]);
  return *ierr ? NULL : e;
}

static int parse_int(pds_options o, const char *name, const char *s, int lo, int hi, int *v) {
  char *end;
  long  x;

  errno = 0;
  x     = strtol(s, &end, 10);
  if (end == s || *end || errno == ERANGE)
    return OPT_FAIL(o, "flag %s: '%s' is not an integer%s", name, s, errno == ERANGE ? " in range" : "");
  if (x < lo || x > hi) return OPT_FAIL(o, "flag %s: %ld is out of range [%d, %d]", name, x, lo, hi);
  *v = (int)x;
  return PDS_OK;
}

int pds_options_get_int(pds_options o, const char *name, int def, int lo, int hi, const char *desc, int *val,
                        bool *set) {
  struct opt_entry *e;
  char              d[64];
  int               ierr;

  snprintf(d, sizeof d, "%d", def);
  PDS_CALL(record(o, name, "<int>", d, desc));
  *val = def;
  if (set) *set = false;
  e = one_value(o, name, "an integer", &ierr);
  if (!e) return ierr;
  PDS_CALL(parse_int(o, name, e->vals[0], lo, hi, val));
  if (set) *set = true;
  return PDS_OK;
}

int pds_options_get_real(pds_options o, const char *name, double def, double lo, double hi, const char *desc,
                         double *val, bool *set) {
  struct opt_entry *e;
  char              d[64], *end;
  double            x;
  int               ierr;

  snprintf(d, sizeof d, "%g", def);
  PDS_CALL(record(o, name, "<real>", d, desc));
  *val = def;
  if (set) *set = false;
  e = one_value(o, name, "a number", &ierr);
  if (!e) return ierr;
  errno = 0;
  x     = strtod(e->vals[0], &end);
  if (end == e->vals[0] || *end || !isfinite(x))
    return OPT_FAIL(o, "flag %s: '%s' is not a finite number", name, e->vals[0]);
  if (errno == ERANGE && x != 0) return OPT_FAIL(o, "flag %s: '%s' overflows", name, e->vals[0]);
  if (x < lo || x > hi) return OPT_FAIL(o, "flag %s: %g is out of range [%g, %g]", name, x, lo, hi);
  *val = x;
  if (set) *set = true;
  return PDS_OK;
}

int pds_options_get_string(pds_options o, const char *name, const char *def, const char *desc, const char **val,
                           bool *set) {
  struct opt_entry *e;
  int               ierr;

  PDS_CALL(record(o, name, "<string>", def ? def : "none", desc));
  *val = def;
  if (set) *set = false;
  e = one_value(o, name, "a string", &ierr);
  if (!e) return ierr;
  if (!e->vals[0][0]) return OPT_FAIL(o, "flag %s: the value is empty", name);
  *val = e->vals[0];
  if (set) *set = true;
  return PDS_OK;
}

int pds_options_get_choice(pds_options o, const char *name, const char *def, const char *const *choices, int nchoices,
                           const char *desc, const char **val, bool *set) {
  struct opt_entry *e;
  char              meta[96] = "<", list[256] = "";
  int               ierr;

  for (int i = 0; i < nchoices; i++) {
    size_t m = strlen(meta), l = strlen(list);

    snprintf(meta + m, sizeof meta - m, "%s%s", i ? "|" : "", choices[i]);
    snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", choices[i]);
  }
  strncat(meta, ">", sizeof meta - strlen(meta) - 1);
  PDS_CALL(record(o, name, meta, def ? def : "none", desc));
  *val = def;
  if (set) *set = false;
  e = one_value(o, name, list, &ierr);
  if (!e) return ierr;
  for (int i = 0; i < nchoices; i++)
    if (!strcmp(e->vals[0], choices[i])) {
      *val = choices[i];
      if (set) *set = true;
      return PDS_OK;
    }
  return OPT_FAIL(o, "flag %s: unknown value '%s' (choose from %s)", name, e->vals[0], list);
}

int pds_options_get_bool(pds_options o, const char *name, bool def, const char *desc, bool *val, bool *set) {
  static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
  struct opt_entry        *e;

  PDS_CALL(record(o, name, "", def ? "on" : "off", desc));
  *val = def;
  if (set) *set = false;
  e = find(o, name);
  if (!e) return PDS_OK;
  e->used = true;
  if (o->help) return PDS_OK;
  if (e->nvals > 1) return OPT_FAIL(o, "flag %s takes no value but got %d", name, e->nvals);
  if (set) *set = true;
  if (e->nvals == 0) {
    *val = true;
    return PDS_OK;
  }
  for (int i = 0; i < 4; i++) {
    if (!strcmp(e->vals[0], yes[i]) || !strcmp(e->vals[0], no[i])) {
      *val = !strcmp(e->vals[0], yes[i]);
      return PDS_OK;
    }
  }
  return OPT_FAIL(o, "flag %s is a switch: '%s' is not one of 1/0, true/false, yes/no, on/off", name, e->vals[0]);
}

int pds_options_get_int_list(pds_options o, const char *name, int ndef, const int *def, int maxn, int lo, int hi,
                             const char *desc, int *vals, int *n, bool *set) {
  struct opt_entry *e;
  char              d[64] = "", meta[64] = "<int>";

  if (ndef == 0) snprintf(d, sizeof d, "none");
  for (int i = 0; i < ndef; i++) {
    size_t l = strlen(d);

    snprintf(d + l, sizeof d - l, "%s%d", i ? " " : "", def[i]);
    vals[i] = def[i];
  }
  if (maxn > 1) snprintf(meta, sizeof meta, "<int> [... up to %d]", maxn);
  PDS_CALL(record(o, name, meta, d, desc));
  *n = ndef;
  if (set) *set = false;
  e = find(o, name);
  if (!e) return PDS_OK;
  e->used = true;
  if (o->help) return PDS_OK;
  if (e->nvals == 0) return OPT_FAIL(o, "flag %s is missing its value (1 to %d integers)", name, maxn);
  if (e->nvals > maxn) return OPT_FAIL(o, "flag %s takes at most %d values but got %d", name, maxn, e->nvals);
  for (int i = 0; i < e->nvals; i++) PDS_CALL(parse_int(o, name, e->vals[i], lo, hi, &vals[i]));
  *n = e->nvals;
  if (set) *set = true;
  return PDS_OK;
}

int pds_options_check_unused(pds_options o) {
  if (o->help) return PDS_OK;
  if (o->stray) return OPT_FAIL(o, "unexpected argument '%s' (flags start with '-')", o->stray);
  for (int i = 0; i < o->ne; i++)
    if (!o->e[i].used) return OPT_FAIL(o, "unknown flag %s", o->e[i].name);
  return PDS_OK;
}

/* Print text word-wrapped to width, continuation lines indented by indent; '\x01' is a space that never breaks. */
static void wrap(FILE *f, const char *text, int col, int indent, int width) {
  const char *p = text;

  while (*p) {
    const char *w = p;
    int         len;

    while (*w == ' ') w++;
    len = 0;
    while (w[len] && w[len] != ' ') len++;
    if (!len) break;
    if (col > indent && col + 1 + len > width) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    } else if (col > indent) {
      fputc(' ', f);
      col++;
    }
    for (int k = 0; k < len; k++) fputc(w[k] == '\x01' ? ' ' : w[k], f); /* \x01: a space that never breaks */
    col += len;
    p = w + len;
  }
  fputc('\n', f);
}

int pds_options_print_help(pds_options o, FILE *f) {
  enum { NAMECOL = 30, WIDTH = 110 };

  for (int i = 0; i < o->nh; i++) {
    const struct opt_help *h = &o->h[i];
    char                   lhs[160], text[400];

    if (h->section[0]) {
      fprintf(f, "%s\n", h->section);
      continue;
    }
    snprintf(lhs, sizeof lhs, "%s%s%s", h->name, h->meta[0] ? " " : "", h->meta);
    /* a description that states its own default (or that the flag is required) gets no "(default: ...)" */
    if (strstr(h->desc, "default") || strstr(h->desc, "required")) snprintf(text, sizeof text, "%s", h->desc);
    else snprintf(text, sizeof text, "%s (default:\x01%s)", h->desc, h->def);
    if ((int)strlen(lhs) < NAMECOL - 3) {
      fprintf(f, "  %-*s ", NAMECOL - 3, lhs);
    } else {
      fprintf(f, "  %s\n%*s", lhs, NAMECOL, "");
    }
    wrap(f, text, NAMECOL, NAMECOL, WIDTH);
  }
  return PDS_OK;
}
