# tests/disc/gmsh_meshes.cmake: mesh tests/disc/data/{square,hole}.geo with Gmsh at 5 sizes (-clscale 1 .. 1/16, h
# halved each time; one thread) into OUT/{square,hole}_{0..4}.msh (MSH 2.2 ASCII), once for all backend variants of
# td05_convergence (ctest fixture disc_gmsh). cmake -DGMSH=... -DSRC=... -DOUT=... -P gmsh_meshes.cmake
if(NOT GMSH)
  message(FATAL_ERROR "gmsh was not found at configure time: install it (apt-get install -y gmsh) and reconfigure")
endif()
file(MAKE_DIRECTORY "${OUT}")
set(_scales 1 0.5 0.25 0.125 0.0625)
foreach(dom square hole)
  set(_k 0)
  foreach(s ${_scales})
    set(_msh "${OUT}/${dom}_${_k}.msh")
    execute_process(COMMAND "${GMSH}" -2 -nt 1 -clscale ${s} -format msh22 "${SRC}/${dom}.geo" -o "${_msh}"
                    RESULT_VARIABLE _rc OUTPUT_FILE "${_msh}.log" ERROR_FILE "${_msh}.log")
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "gmsh failed on ${dom}.geo at -clscale ${s} (exit ${_rc}); see ${_msh}.log")
    endif()
    math(EXPR _k "${_k} + 1")
  endforeach()
endforeach()
