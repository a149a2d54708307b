/* src/backend/cuda/cuda_graph.c: a sequence of launches (a level or plane schedule: bilu0's planes, ilu0's levels)
 * captured once into a CUDA graph and replayed while the arrays it was captured with stay (the key), instead of one
 * host launch per step: one graph launch per call. Inside a device loop's recording (the stream capturing) the
 * launches go straight into that recording. A changed key records again and updates the executable graph in place
 * (cudaGraphExecUpdate), or instantiates it anew. */
#include <string.h>

#include "cuda_impl.h"

int pds_cuda_graph_run(pds_ctx ctx, struct cuda_be *be, struct pds_cuda_graph *g, const void *const key[PDS_CUDA_GRAPH_KEY],
                       cudaError_t (*launch)(void *arg), void *arg, const char *what) {
  enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  cudaGraph_t                  gr = NULL;
  cudaError_t                  e;

  PDS_CUDA_CALL(ctx, cudaStreamIsCapturing(be->stream, &cs));
  if (cs != cudaStreamCaptureStatusNone) { /* a device loop is being recorded: the launches go into it */
    PDS_CUDA_CALL(ctx, launch(arg));
    return PDS_OK;
  }
  if (!g->exec || memcmp(g->key, key, sizeof g->key)) {
    cudaGraphExecUpdateResultInfo info;

    PDS_CUDA_CALL(ctx, cudaStreamBeginCapture(be->stream, cudaStreamCaptureModeThreadLocal));
    e = launch(arg);
    {
      const cudaError_t e2 = cudaStreamEndCapture(be->stream, &gr);

      if (e == cudaSuccess) e = e2;
    }
    if (e != cudaSuccess) {
      if (gr) cudaGraphDestroy(gr);
      return pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, what);
    }
    if (g->exec && cudaGraphExecUpdate(g->exec, gr, &info) != cudaSuccess) {
      (void)cudaGetLastError();
      cudaGraphExecDestroy(g->exec);
      g->exec = NULL;
    }
    if (!g->exec && (e = cudaGraphInstantiate(&g->exec, gr, 0)) != cudaSuccess) {
      g->exec = NULL;
      cudaGraphDestroy(gr);
      return pds_cuda_error(ctx, __FILE__, __LINE__, __func__, e, "cudaGraphInstantiate");
    }
    cudaGraphDestroy(gr);
    memcpy(g->key, key, sizeof g->key);
  }
  PDS_CUDA_CALL(ctx, cudaGraphLaunch(g->exec, be->stream));
  return PDS_OK;
}

void pds_cuda_graph_destroy(struct pds_cuda_graph *g) {
  if (g->exec) cudaGraphExecDestroy(g->exec);
  memset(g, 0, sizeof *g);
}
