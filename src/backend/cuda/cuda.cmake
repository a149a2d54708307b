# src/backend/cuda/cuda.cmake: detection of the CUDA toolkit for the /gpu/cuda backend (included by the top
# CMakeLists.txt before pds_config.h is written). PDS_ENABLE_CUDA: AUTO builds it whenever nvcc is found, ON requires
# it, OFF skips it. PDS_CUDA_ARCHS: the architectures (default 90, Hopper). Sets PDS_HAVE_CUDA, PDS_CUDA_SOURCES
# (added to the library), PDS_CUDA_LIBS (cudart, static) and PDS_CUDA_FLAGS (nvcc warnings). The library links only
# the CUDA runtime (and uses CUB's headers); relax's gemm variant loads cuBLAS at run time (cuda_cublas.c: linked, it
# added about 0.1 s to every program's start); cuSPARSE is used by bench/gpu and tests/cuda alone, as the peer.
set(PDS_HAVE_CUDA 0)
set(PDS_CUDA_SOURCES)
set(PDS_CUDA_LIBS)
set(PDS_CUDA_FLAGS)
string(TOUPPER "${PDS_ENABLE_CUDA}" _pds_cuda_mode)
if(_pds_cuda_mode STREQUAL "OFF" OR _pds_cuda_mode STREQUAL "FALSE" OR _pds_cuda_mode STREQUAL "0")
  return()
endif()
if(NOT _pds_cuda_mode MATCHES "^(AUTO|ON|TRUE|1)$")
  message(FATAL_ERROR "PDS_ENABLE_CUDA is '${PDS_ENABLE_CUDA}'; use AUTO, ON or OFF")
endif()

include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  if(_pds_cuda_mode STREQUAL "AUTO")
    message(STATUS "pdesolve: no CUDA compiler (nvcc) found; /gpu/cuda is not built")
    return()
  endif()
  message(FATAL_ERROR "PDS_ENABLE_CUDA=ON but no CUDA compiler (nvcc) was found; put nvcc on the PATH or set "
                      "CMAKE_CUDA_COMPILER, or configure with -DPDS_ENABLE_CUDA=OFF")
endif()
if(NOT CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES ${PDS_CUDA_ARCHS})
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)

set(PDS_HAVE_CUDA 1)
set(PDS_CUDA_SOURCES
  src/backend/cuda/cuda.c src/backend/cuda/cuda_vec.c src/backend/cuda/cuda_mat.c src/backend/cuda/cuda_krylov.c
  src/backend/cuda/cuda_blocks.c src/backend/cuda/cuda_fem2d.c src/backend/cuda/cuda_f32.c
  src/backend/cuda/cuda_stencil7.c src/backend/cuda/cuda_bilu0.c src/backend/cuda/cuda_graph.c
  src/backend/cuda/cuda_ilu0.c src/backend/cuda/cuda_patches.c src/backend/cuda/cuda_relax.c
  src/backend/cuda/cuda_relax_stream.c src/backend/cuda/cuda_sem.c src/backend/cuda/cuda_fv.c
  src/backend/cuda/cuda_fvjac.c src/backend/cuda/cuda_nccl.c src/backend/cuda/cuda_cublas.c
  src/backend/cuda/cuda_vec.cu src/backend/cuda/cuda_csr.cu src/backend/cuda/cuda_bsr.cu
  src/backend/cuda/cuda_transpose.cu src/backend/cuda/cuda_fem2d.cu src/backend/cuda/cuda_krylov.cu
  src/backend/cuda/cuda_f32.cu src/backend/cuda/cuda_small.cu src/backend/cuda/cuda_coop.cu
  src/backend/cuda/cuda_stencil7.cu src/backend/cuda/cuda_bilu0.cu src/backend/cuda/cuda_bilu0_pipe.cu
  src/backend/cuda/cuda_ilu0.cu
  src/backend/cuda/cuda_patches.cu src/backend/cuda/cuda_relax.cu
  src/backend/cuda/cuda_sem.cu src/backend/cuda/cuda_fv.cu src/backend/cuda/cuda_fvjac.cu)
# the assembly kernels must round as ref does: no multiply-add contraction (cuda_fem2d.cu says why)
# and the Krylov steps must take the host's decisions on the host's numbers (cuda_krylov.cu), and the single-precision
# kernels must give /cpu/ref's float bits (cuda_f32.cu), and the stencil7 product and block ILU(0) /cpu/ref's bits
# (cuda_stencil7.cuh), and the spectral-element operator /cpu/ref's bits (cuda_sem.cu), and the finite-volume fluxes
# (cuda_fv.cu) and their Jacobian (cuda_fvjac.cu)
set_source_files_properties(src/backend/cuda/cuda_fem2d.cu src/backend/cuda/cuda_krylov.cu src/backend/cuda/cuda_f32.cu
                            src/backend/cuda/cuda_stencil7.cu src/backend/cuda/cuda_bilu0.cu src/backend/cuda/cuda_bilu0_pipe.cu
                            src/backend/cuda/cuda_ilu0.cu src/backend/cuda/cuda_sem.cu src/backend/cuda/cuda_fv.cu
                            src/backend/cuda/cuda_fvjac.cu PROPERTIES COMPILE_OPTIONS -fmad=false)
# cuBLAS (the dense products of relax's gemm variant): its headers at build time, libcublas.so by dlopen at run time,
# first where the loader looks, then in this toolkit's library folder
set(PDS_CUDA_LIBS CUDA::cudart_static ${CMAKE_DL_LIBS})
set_source_files_properties(src/backend/cuda/cuda_cublas.c PROPERTIES
                            COMPILE_DEFINITIONS "PDS_CUDA_LIBDIR=\"${CUDAToolkit_LIBRARY_DIR}\"")
set(PDS_CUDA_FLAGS -Xcompiler=-Wall -Xcompiler=-Wextra -Xcompiler=-Wno-unused-parameter)
if(PDS_WERROR)
  list(APPEND PDS_CUDA_FLAGS -Werror=all-warnings -Xcompiler=-Werror)
endif()
message(STATUS "pdesolve: /gpu/cuda is built for CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} "
               "(nvcc ${CMAKE_CUDA_COMPILER_VERSION})")
