// src/backend/cuda/cuda_relax.cu: (in progress) the relax kernels.
#include "cuda_common.h"
