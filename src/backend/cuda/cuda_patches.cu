// src/backend/cuda/cuda_patches.cu: (in progress) the patches kernels.
#include "cuda_common.h"
