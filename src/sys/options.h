/* src/sys/options.h: a tiny PETSc-style named-flag parser (internal; used by the driver, apps/pdesolve/, and bench/).
 *
 * argv is split into flags ("-name", or "--name") each followed by zero or more values (a token is a value
 * when it does not start with '-' followed by a letter, so "-1e-3" is a value). A flag given twice keeps its
 * last values. The typed getters read one flag each, check its values and mark it used; they also record
 * the flag, its default and a one-line description, so that the help text lists exactly the flags a
 * command reads. pds_options_check_unused() then rejects any flag nobody read, which catches misspelled and
 * unknown flags generically.
 *
 * Every function returns PDS_OK or PDS_ERR_ARG / PDS_ERR_MEM (create: only MEM; a stray value before
 * the first flag is reported by pds_options_check_unused()) with a message, naming the flag, that
 * pds_options_get_error() returns. There is no context here: options are read before a context exists.
 * While -help (or -h) is present the getters never fail: they give the default and only record the flag. */
#ifndef PDS_SYS_OPTIONS_H
#define PDS_SYS_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "sys_impl.h"

typedef struct pds_options_s *pds_options;

/* Parse argv[0..argc) (pass argv without the program and command names). opts points into argv, which must
   outlive it (main's argv does). */
PDS_INTERN int  pds_options_create(int argc, char **argv, pds_options *opts);
PDS_INTERN int  pds_options_destroy(pds_options *opts);
PDS_INTERN const char *pds_options_get_error(pds_options opts);

/* True when -help or -h was given. */
PDS_INTERN bool pds_options_help(pds_options opts);
/* True when the flag was given (and marks nothing). */
PDS_INTERN bool pds_options_has(pds_options opts, const char *name);

/* Section headings for the help text (the flags recorded after it belong to it). */
PDS_INTERN int pds_options_begin_section(pds_options opts, const char *title);

/* Typed getters. name includes the dash ("-maxit"). *set (may be NULL) says whether the flag was given.
   Each expects exactly one value except where said. */
PDS_INTERN int pds_options_get_int(pds_options opts, const char *name, int def, int lo, int hi, const char *desc,
                                   int *val, bool *set);
PDS_INTERN int pds_options_get_real(pds_options opts, const char *name, double def, double lo, double hi,
                                    const char *desc, double *val, bool *set);
/* A string value; def may be NULL (shown as "none"). The pointer is argv's or def. */
PDS_INTERN int pds_options_get_string(pds_options opts, const char *name, const char *def, const char *desc,
                                      const char **val, bool *set);
/* A string that must be one of choices[0..nchoices) (the error lists them). */
PDS_INTERN int pds_options_get_choice(pds_options opts, const char *name, const char *def, const char *const *choices,
                                      int nchoices, const char *desc, const char **val, bool *set);
/* A switch: "-monitor" alone is true; an explicit value may be 1/0, true/false, yes/no, on/off. */
PDS_INTERN int pds_options_get_bool(pds_options opts, const char *name, bool def, const char *desc, bool *val,
                                    bool *set);
/* 1..maxn integers in [lo, hi] (e.g. "-n 32 32 16"); *n is their count (ndef and def[] when absent). */
PDS_INTERN int pds_options_get_int_list(pds_options opts, const char *name, int ndef, const int *def, int maxn,
                                        int lo, int hi, const char *desc, int *vals, int *n, bool *set);

/* PDS_ERR_ARG naming the first flag no getter read (or that had values where none was expected). */
PDS_INTERN int pds_options_check_unused(pds_options opts);

/* Print the recorded flags: "  -name <value>   description (default: d)", one per line. */
PDS_INTERN int pds_options_print_help(pds_options opts, FILE *f);

#endif
