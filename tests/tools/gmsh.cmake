# tests/tools/gmsh.cmake: included by the cmake -P scripts that mesh .geo files with the gmsh program at test time
# (tests/mesh/gmsh_files.cmake, tests/disc/gmsh_meshes.cmake); GMSH is the program (-DGMSH=${PDS_GMSH}). The tests
# read files written by Gmsh itself, so without gmsh they fail, they do not skip.
if(NOT GMSH)
  message(FATAL_ERROR "no gmsh program: run make test, which takes gmsh from PATH or else installs it from PyPI into "
                      "build/venv; or install gmsh (Debian/Ubuntu: apt-get install gmsh) and "
                      "configure with -DPDS_GMSH=/path/to/gmsh")
endif()

# pds_gmsh(GEO OUT ARGS...): runs gmsh GEO ARGS... -o OUT; fails with gmsh's output unless gmsh wrote OUT.
function(pds_gmsh geo out)
  file(REMOVE "${out}")
  execute_process(COMMAND "${GMSH}" "${geo}" ${ARGN} -o "${out}" RESULT_VARIABLE rc OUTPUT_VARIABLE log
                  ERROR_VARIABLE log)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${out}")
    message(FATAL_ERROR "${GMSH} ${geo} ${ARGN} -o ${out} failed (${rc}):\n${log}")
  endif()
endfunction()
