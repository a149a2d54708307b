/* bench/peers/peer_util.h: what the PETSc peers (petsc_krylov.c, petsc_ilu.c) share: the processor's name from
 * /proc/cpuinfo (Linux; "unknown" elsewhere), for their JSON lines. */
#ifndef PDS_BENCH_PEER_UTIL_H
#define PDS_BENCH_PEER_UTIL_H

#include <stdio.h>
#include <string.h>

static inline void cpu_name(char *s, size_t len) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char  line[256];

  snprintf(s, len, "unknown");
  if (!f) return;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10)) {
      char *c = strchr(line, ':');

      if (c) {
        c += 1 + (c[1] == ' ');
        c[strcspn(c, "\n\"\\")] = 0;
        snprintf(s, len, "%s", c);
      }
      break;
    }
  fclose(f);
}

#endif
