/* src/mat/patches.c: (in progress) patch sets with a constant 7-point stencil (paper 002). */
#include "mat_impl.h"
