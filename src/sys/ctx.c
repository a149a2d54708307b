/* src/sys/ctx.c: the context: backend selection from a resource string, error state, work memory. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../backend/backend.h"
#include "comm.h"

struct backend_entry {
  const char      *name;
  pds_backend_init init;
  int              compiled;
  const char      *how;
};

#define PDS_BACKEND(name, init, compiled, how) {name, init, compiled, how},
static const struct backend_entry backends[] = {
#include "../backend/backend_list.h"
};
#undef PDS_BACKEND
#define NBACKENDS ((int)(sizeof backends / sizeof backends[0]))

int         pds_backend_count(void) { return NBACKENDS; }
const char *pds_backend_name(int i) { return i >= 0 && i < NBACKENDS ? backends[i].name : NULL; }
int         pds_backend_compiled(int i) { return i >= 0 && i < NBACKENDS ? backends[i].compiled : 0; }
const char *pds_version(void) { return PDS_VERSION_STRING; }

double pds_wtime(void) {
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The entry whose name is the resource or a prefix of it followed by ':' (options such as device=1). */
static const struct backend_entry *find_backend(const char *resource) {
  for (int i = 0; i < NBACKENDS; i++) {
    size_t len = strlen(backends[i].name);

    if (!strncmp(resource, backends[i].name, len) && (resource[len] == '\0' || resource[len] == ':'))
      return &backends[i];
  }
  return NULL;
}

static const char *resolve_auto(void) {
#if PDS_HAVE_CUDA
  if (pds_backend_available_cuda()) return "/gpu/cuda";
#endif
#if PDS_HAVE_OPENMP
  return "/cpu/omp";
#else
  return "/cpu/ref";
#endif
}

int pds_ctx_create(const char *resource, pds_ctx *ctx) {
  const struct backend_entry *be;
  pds_ctx                     c;
  const char                 *fail;
  int                         ierr;

  if (!ctx) return PDS_ERR_ARG;
  *ctx = NULL;
  if (!resource || !*resource) resource = "auto";
  if (!strcmp(resource, "auto")) resource = resolve_auto();
  be = find_backend(resource);
  if (!be || !be->compiled) {
    /* No context exists to hold the message, so it goes to stderr (libCEED does the same). */
    if (!be) {
      fprintf(stderr, "pdesolve: PDS_ERR_ARG: unknown backend '%s'; known:", resource);
      for (int i = 0; i < NBACKENDS; i++) fprintf(stderr, " %s", backends[i].name);
      fprintf(stderr, " auto\n");
      return PDS_ERR_ARG;
    }
    fprintf(stderr, "pdesolve: PDS_ERR_UNSUPPORTED: backend %s is not compiled into this build; %s\n", be->name,
            be->how);
    return PDS_ERR_UNSUPPORTED;
  }
  c = calloc(1, sizeof *c);
  if (!c) return PDS_ERR_MEM;
  c->k = calloc(1, sizeof *c->k);
  if (!c->k) {
    free(c);
    return PDS_ERR_MEM;
  }
  snprintf(c->resource, sizeof c->resource, "%s", resource);
  snprintf(c->backend, sizeof c->backend, "%s", be->name);
  c->nthreads = 1;
  c->size     = 1;
  fail = getenv("PDS_ALLOC_FAIL");
  c->alloc_fail_after = fail && *fail ? atol(fail) : -1;
  ierr = be->init(c, resource, c->k);
  if (ierr) {
    fprintf(stderr, "pdesolve: %s\n", c->err_msg);
    free(c->k);
    free(c);
    return ierr;
  }
  *ctx = c;
  return PDS_OK;
}

int pds_ctx_destroy(pds_ctx *ctx) {
  pds_ctx c;
  int     ierr = PDS_OK;

  if (!ctx || !*ctx) return PDS_OK;
  c = *ctx;
  pds_free(c, PDS_MEM_DEVICE, &c->work);
  if (c->k->destroy) ierr = c->k->destroy(c);
  pds_comm_free(c);
  free(c->k);
  free(c);
  *ctx = NULL;
  return ierr;
}

const char *pds_ctx_get_backend(pds_ctx ctx) { return ctx ? ctx->backend : NULL; }
int         pds_ctx_get_num_threads(pds_ctx ctx) { return ctx ? ctx->nthreads : 0; }

int pds_host_threads(pds_ctx ctx) {
  if (!strcmp(ctx->backend, "/cpu/ref")) return 1;
  if (!strcmp(ctx->backend, "/cpu/omp")) return ctx->nthreads > 0 ? ctx->nthreads : 1;
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int pds_host_thread_id(void) {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}
