/* tests/t204_patches.c: (in progress) */
#include "test.h"

int main(int argc, char **argv) {
  (void)argc, (void)argv;
  return 0;
}
