/* src/backend/cuda/cuda_cublas.c: cuBLAS loaded at run time (cuda_cublas.h says why). libcublas.so.<major of the
 * headers built against> is looked for where the dynamic loader looks (LD_LIBRARY_PATH, ld.so.cache), then in the
 * toolkit's library folder found at build time (PDS_CUDA_LIBDIR); libcublas finds libcublasLt beside itself. The
 * environment variable PDS_CUBLAS, when set, names the one file to load instead. Loaded once a process, never
 * unloaded (cuBLAS handles may live until the last context is destroyed). */
#define _POSIX_C_SOURCE 200809L /* pthread_once, dlopen under -std=c11 */
#include "cuda_cublas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_STR2(x) #x
#define CB_STR(x)  CB_STR2(x)
#define CB_SONAME  "libcublas.so." CB_STR(CUBLAS_VER_MAJOR)

static struct pds_cublas cb;
static int               cb_ok;
static char              cb_why[512];
static pthread_once_t    cb_once = PTHREAD_ONCE_INIT;

static void cb_load(void) {
  const char *tried[2] = {CB_SONAME, NULL}, *env = getenv("PDS_CUBLAS");
  void       *so       = NULL;
#ifdef PDS_CUDA_LIBDIR
  tried[1] = PDS_CUDA_LIBDIR "/" CB_SONAME;
#endif
  if (env && *env) tried[0] = env, tried[1] = NULL;

  for (int k = 0; k < 2 && !so; k++) {
    if (!tried[k]) continue;
    so = dlopen(tried[k], RTLD_NOW | RTLD_LOCAL);
    if (!so && k == 0) {
      const char *e = dlerror();

      snprintf(cb_why, sizeof cb_why, "%s", e ? e : "not found");
    }
  }
  if (!so) return;
#define CB_SYM(field, name) *(void **)&cb.field = dlsym(so, name)
  CB_SYM(create, "cublasCreate_v2");
  CB_SYM(destroy, "cublasDestroy_v2");
  CB_SYM(set_stream, "cublasSetStream_v2");
  CB_SYM(set_workspace, "cublasSetWorkspace_v2");
  CB_SYM(set_atomics_mode, "cublasSetAtomicsMode");
  CB_SYM(set_pointer_mode, "cublasSetPointerMode_v2");
  CB_SYM(dgemm, "cublasDgemm_v2");
  CB_SYM(status_string, "cublasGetStatusString");
#undef CB_SYM
  if (!cb.create || !cb.destroy || !cb.set_stream || !cb.set_workspace || !cb.set_atomics_mode ||
      !cb.set_pointer_mode || !cb.dgemm || !cb.status_string) {
    snprintf(cb_why, sizeof cb_why, "it lacks cublasSetWorkspace_v2 or another function relax's gemm calls (cuBLAS "
             "11.4 or newer has them)");
    dlclose(so);
    memset(&cb, 0, sizeof cb);
    return;
  }
  cb_ok = 1;
}

int pds_cublas_get(pds_ctx ctx, int report, const struct pds_cublas **out) {
  *out = NULL;
  if (pthread_once(&cb_once, cb_load) != 0)
    return report ? PDS_ERROR(ctx, PDS_ERR_BACKEND, "cuBLAS: pthread_once failed") : PDS_ERR_BACKEND;
  if (!cb_ok)
    return report ? PDS_ERROR(ctx, PDS_ERR_UNSUPPORTED, "relax's gemm variant needs cuBLAS (" CB_SONAME ") at run time: "
                              "%s; put its folder on LD_LIBRARY_PATH, or use -relax_variant mapc", cb_why)
                  : PDS_ERR_UNSUPPORTED;
  *out = &cb;
  return PDS_OK;
}
