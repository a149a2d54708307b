/* tests/t305_gmg.c: (in progress) */
#include "test.h"

int main(int argc, char **argv) {
  (void)argc, (void)argv;
  return 0;
}
