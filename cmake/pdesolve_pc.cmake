# cmake/pdesolve_pc.cmake (included by the top CMakeLists.txt): writes pdesolve.pc from cmake/pdesolve.pc.in and
# installs it into <libdir>/pkgconfig. Its prefix is ${pcfiledir} (the folder pkg-config found the file in) and one
# ".." per component of CMAKE_INSTALL_LIBDIR and one for pkgconfig/, so the file is right under any install prefix
# (cmake --install build --prefix P) and after the installed tree is moved. An absolute CMAKE_INSTALL_LIBDIR or
# CMAKE_INSTALL_INCLUDEDIR is written as it is; with an absolute libdir the file's folder says nothing about the
# prefix, so the prefix is the one of the install itself, filled in when installing.
set(_pds_pc_libdir "${CMAKE_INSTALL_LIBDIR}")
cmake_path(NORMAL_PATH _pds_pc_libdir)                       # a/./b/../c/ -> a/c/
string(REGEX REPLACE "/+$" "" _pds_pc_libdir "${_pds_pc_libdir}")
set(_pds_pc_at_install OFF)
if(IS_ABSOLUTE "${_pds_pc_libdir}")
  set(PDS_PC_LIBDIR "${_pds_pc_libdir}")
  set(_pds_pc_at_install ON)
elseif(_pds_pc_libdir MATCHES "^\\.\\.(/|$)")
  message(FATAL_ERROR "CMAKE_INSTALL_LIBDIR '${CMAKE_INSTALL_LIBDIR}' is not a folder inside the install prefix")
else()
  set(PDS_PC_LIBDIR "\${prefix}/${_pds_pc_libdir}")
endif()
if(_pds_pc_at_install)
  set(PDS_PC_PREFIX "@PDS_PC_INSTALL_PREFIX@")                # replaced by the install step below
else()
  set(PDS_PC_PREFIX "\${pcfiledir}/..")                      # out of pkgconfig/
  string(REPLACE "/" ";" _pds_pc_parts "${_pds_pc_libdir}")
  foreach(_part IN LISTS _pds_pc_parts)
    string(APPEND PDS_PC_PREFIX "/..")
  endforeach()
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(PDS_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(PDS_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()

# Libs.private: what a static link (pkg-config --static) adds to -lpdesolve. The shared library carries these itself.
set(PDS_PC_LIBS_PRIVATE "-lm")
if(PDS_HAVE_METIS)
  string(APPEND PDS_PC_LIBS_PRIVATE " -lmetis")
endif()
if(PDS_HAVE_OPENMP)
  string(APPEND PDS_PC_LIBS_PRIVATE " ${OpenMP_C_FLAGS}")
endif()
if(PDS_HAVE_CUDA) # CUDA::cudart_static and what it needs
  string(APPEND PDS_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static"
                " -Wl,-rpath,${CUDAToolkit_LIBRARY_DIR} -lstdc++ -ldl -lrt -lpthread")
endif()

# MPI (pdesolve_mpi.h includes mpi.h): its include folders for Cflags, its libraries for every link
set(PDS_PC_CFLAGS_MPI "")
set(PDS_PC_LIBS_MPI "")
if(PDS_HAVE_MPI)
  foreach(_d IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND PDS_PC_CFLAGS_MPI " -I${_d}")
  endforeach()
  foreach(_l IN LISTS MPI_C_LIBRARIES)
    string(APPEND PDS_PC_LIBS_MPI " ${_l}")
  endforeach()
endif()

configure_file(${PROJECT_SOURCE_DIR}/cmake/pdesolve.pc.in ${PROJECT_BINARY_DIR}/pdesolve.pc @ONLY)
if(_pds_pc_at_install)
  install(CODE "set(PDS_PC_INSTALL_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
configure_file(\"${PROJECT_BINARY_DIR}/pdesolve.pc\" \"${PROJECT_BINARY_DIR}/pdesolve-installed.pc\" @ONLY)")
  install(FILES ${PROJECT_BINARY_DIR}/pdesolve-installed.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          RENAME pdesolve.pc)
else()
  install(FILES ${PROJECT_BINARY_DIR}/pdesolve.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
