/* tests/mesh/mesh_table.c: the generator on the six grid sizes of paper 004 (107 ... 1,694,081 nodes), both domains:
 * nodes, triangles, nonzeros per row of the P1 matrix, minimum angle, maximum aspect ratio, generation time, and the
 * bandwidth before and after RCM. Manual run (not a ctest test): ./mesh_table [square|hole|all] [targets...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdesolve.h"

static long bandwidth(pds_mesh m) {
  const pds_int *tri;
  pds_int        nt;
  long           bw = 0;

  pds_mesh_get_sizes(m, NULL, &nt, NULL);
  pds_mesh_get_arrays(m, NULL, &tri, NULL, NULL, NULL);
  for (pds_int e = 0; e < nt; e++)
    for (int a = 0; a < 3; a++) {
      long d = labs((long)tri[3 * e + a] - tri[3 * e + (a + 1) % 3]);

      if (d > bw) bw = d;
    }
  return bw;
}

int main(int argc, char **argv) {
  static const int paper[] = {107, 452, 46068, 106377, 424129, 1694081};
  const char      *doms[]  = {"square", "hole"};
  int              d0 = 0, d1 = 2, ntarget = argc > 2 ? argc - 2 : 6;
  pds_ctx          ctx;

  if (argc > 1 && strcmp(argv[1], "all")) d0 = !strcmp(argv[1], "hole"), d1 = d0 + 1;
  if (pds_ctx_create("/cpu/ref", &ctx)) return 1;
  printf("| domain | target | nodes | triangles | nnz/row | min angle | max aspect | time (s) | bandwidth | after RCM "
         "| RCM (s) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int d = d0; d < d1; d++)
    for (int k = 0; k < ntarget; k++) {
      int      target = argc > 2 ? atoi(argv[k + 2]) : paper[k];
      pds_mesh m;
      pds_int  nn, nt, nb;
      double   t0 = pds_wtime(), t1, t2, amin, qmax;
      long     bw0, bw1;

      if (pds_mesh_generate(ctx, doms[d], target, 1, &m)) {
        fprintf(stderr, "%s\n", pds_ctx_get_error(ctx));
        return 1;
      }
      t1 = pds_wtime();
      pds_mesh_get_sizes(m, &nn, &nt, &nb);
      pds_mesh_quality(m, &amin, &qmax);
      bw0 = bandwidth(m);
      t2  = pds_wtime();
      pds_mesh_reorder_rcm(m);
      t2  = pds_wtime() - t2;
      bw1 = bandwidth(m);
      /* P1 nonzeros: nodes + 2 edges, edges = (3 triangles + boundary edges) / 2 */
      printf("| %s | %d | %d | %d | %.3f | %.2f | %.3f | %.3f | %ld | %ld | %.3f |\n", doms[d], target, nn, nt,
             (nn + (3.0 * nt + nb)) / nn, amin, qmax, t1 - t0, bw0, bw1, t2);
      fflush(stdout);
      pds_mesh_destroy(&m);
    }
  pds_ctx_destroy(&ctx);
  return 0;
}
