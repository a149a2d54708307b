# tests/disc/gmsh_meshes.cmake: mesh tests/disc/data/{square,hole}.geo with Gmsh at LEVELS sizes (default 5: -clscale 1
# .. 1/16, h halved each time; one thread) into OUT/{square,hole}_{0..LEVELS-1}.msh (MSH 2.2 ASCII), once for all
# backend variants of td05_convergence (ctest fixture disc_gmsh), which reads that many levels.
# cmake -DGMSH=... -DSRC=... -DOUT=... [-DLEVELS=n] -P gmsh_meshes.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../tools/gmsh.cmake)
if(NOT LEVELS)
  set(LEVELS 5)
endif()
file(MAKE_DIRECTORY "${OUT}")
foreach(dom square hole)
  set(_k 0)
  foreach(s 1 0.5 0.25 0.125 0.0625)
    if(_k EQUAL LEVELS)
      break()
    endif()
    pds_gmsh("${SRC}/${dom}.geo" "${OUT}/${dom}_${_k}.msh" -2 -nt 1 -clscale ${s} -format msh22)
    math(EXPR _k "${_k} + 1")
  endforeach()
endforeach()
