/* src/backend/backend_list.h: the backends of pdesolve, as PDS_BACKEND(name, init, compiled, how_to_enable). */
PDS_BACKEND("/cpu/ref", pds_backend_init_ref, 1, "")
#if PDS_HAVE_OPENMP
PDS_BACKEND("/cpu/omp", pds_backend_init_omp, 1, "")
#else
PDS_BACKEND("/cpu/omp", NULL, 0, "configure with a compiler that supports OpenMP and -DPDS_ENABLE_OPENMP=ON")
#endif
#if PDS_HAVE_CUDA
PDS_BACKEND("/gpu/cuda", pds_backend_init_cuda, 1, "")
#else
PDS_BACKEND("/gpu/cuda", NULL, 0, "configure on a machine with the CUDA toolkit (nvcc) and -DPDS_ENABLE_CUDA=ON")
#endif
