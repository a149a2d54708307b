/* src/sys/error.c: error messages stored on the context, and names of error codes and solver reasons. */
#include <stdio.h>
#include <stdlib.h>

#include "sys_impl.h"

int pds_error(pds_ctx ctx, const char *file, int line, const char *func, int code, const char *fmt, ...) {
  char    msg[PDS_ERR_MSG_LEN - 200];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (ctx) {
    const char *base = strrchr(file, '/');

    ctx->err_code = code;
    snprintf(ctx->err_msg, sizeof ctx->err_msg, "%s: %s [%s() at %s:%d]", pds_error_name(code), msg, func,
             base ? base + 1 : file, line);
  } else if (getenv("PDS_ERROR_VERBOSE")) {
    fprintf(stderr, "pdesolve: %s: %s [%s()]\n", pds_error_name(code), msg, func);
  }
  return code;
}

const char *pds_ctx_get_error(pds_ctx ctx) { return ctx ? ctx->err_msg : "no context"; }
int         pds_ctx_get_error_code(pds_ctx ctx) { return ctx ? ctx->err_code : PDS_ERR_ARG; }
void        pds_ctx_clear_error(pds_ctx ctx) {
  if (ctx) {
    ctx->err_code  = PDS_OK;
    ctx->err_msg[0] = '\0';
  }
}

const char *pds_error_name(int code) {
  switch (code) {
  case PDS_OK: return "PDS_OK";
  case PDS_ERR_ARG: return "PDS_ERR_ARG";
  case PDS_ERR_SIZE: return "PDS_ERR_SIZE";
  case PDS_ERR_MEM: return "PDS_ERR_MEM";
  case PDS_ERR_UNSUPPORTED: return "PDS_ERR_UNSUPPORTED";
  case PDS_ERR_BACKEND: return "PDS_ERR_BACKEND";
  case PDS_ERR_MPI: return "PDS_ERR_MPI";
  case PDS_ERR_ZERO_PIVOT: return "PDS_ERR_ZERO_PIVOT";
  case PDS_ERR_STATE: return "PDS_ERR_STATE";
  case PDS_ERR_IO: return "PDS_ERR_IO";
  case PDS_ERR_FORMAT: return "PDS_ERR_FORMAT";
  default: return "PDS_ERR_UNKNOWN";
  }
}

const char *pds_reason_name(int reason) {
  switch (reason) {
  case PDS_ITERATING: return "iterating";
  case PDS_CONVERGED_RTOL: return "converged_rtol";
  case PDS_CONVERGED_ATOL: return "converged_atol";
  case PDS_CONVERGED_INF: return "converged_inf";
  case PDS_CONVERGED_ITS: return "converged_its";
  case PDS_DIVERGED_MAXIT: return "diverged_maxit";
  case PDS_DIVERGED_BREAKDOWN: return "diverged_breakdown";
  case PDS_DIVERGED_NAN: return "diverged_nan";
  case PDS_DIVERGED_DTOL: return "diverged_dtol";
  case PDS_DIVERGED_INDEFINITE: return "diverged_indefinite";
  default: return "unknown";
  }
}

/* "unknown <kind> '<name>'; known: a, b, c" from a registry table whose entries begin with a const char *name,
   entry i at (const char *)table + i * stride. */
int pds_error_unknown_name(pds_ctx ctx, const char *func, const char *kind, const char *name, const void *table,
                           size_t n, size_t stride) {
  char   known[256] = "";
  size_t len        = 0;

  for (size_t i = 0; i < n && len < sizeof known; i++)
    len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                            *(const char *const *)((const char *)table + i * stride));
  return pds_error(ctx, __FILE__, __LINE__, func, PDS_ERR_ARG, "unknown %s '%s'; known: %s", kind, name, known);
}
