# tests/install/install_test.cmake: ctest ti01_install (tests/install/CMakeLists.txt passes the -D values). Installs
# the build tree BUILD into a fresh prefix WORK/prefix, then builds and runs consumer/consumer.c against it the two
# ways the README gives: (a) a CMake project with find_package(pdesolve) (shared and static targets), (b) cc with
# `pkg-config --cflags --libs pdesolve`; then (c) copies the installed tree, less the shared library, elsewhere and
# links statically with `pkg-config --static`. Checks that the .pc's prefix, libdir and includedir are the folders
# of the tree it was found in (not those of the configure-time CMAKE_INSTALL_PREFIX), and that find_package found the
# package in the prefix. CFLAGS: the flags the library's users need (the sanitizers of a PDS_SANITIZE build).
foreach(v BUILD SRC WORK LIBDIR INCLUDEDIR CC GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install test: -D${v}=... missing")
  endif()
endforeach()
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "install test: no pkg-config program. Run make test, which takes pkg-config or pkgconf from "
                      "PATH or else installs pkgconf from PyPI into build/venv; or install pkg-config (Debian/Ubuntu: "
                      "apt-get install pkgconf) and configure with -DPDS_PKG_CONFIG=/path/to/pkg-config")
endif()
if(IS_ABSOLUTE "${LIBDIR}" OR IS_ABSOLUTE "${INCLUDEDIR}")
  message(FATAL_ERROR "install test: CMAKE_INSTALL_LIBDIR (${LIBDIR}) or CMAKE_INSTALL_INCLUDEDIR (${INCLUDEDIR}) is "
                      "absolute; this test installs into a folder of its own and needs both relative to the prefix")
endif()
separate_arguments(cflags UNIX_COMMAND "${CFLAGS}")

# run(WHAT COMMAND...): runs the command; fails with its output unless it exits 0.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "install test: ${what} failed (${rc}):\n${cmd}\n${out}")
  endif()
endfunction()

# same_dir(WHAT A B): fails unless the paths A and B name the same folder.
function(same_dir what a b)
  file(REAL_PATH "${a}" ra)
  file(REAL_PATH "${b}" rb)
  if(NOT ra STREQUAL rb)
    message(FATAL_ERROR "install test: ${what} is ${a} (${ra}), not ${rb}")
  endif()
endfunction()

# pc_check(ROOT OUT_FLAGS PKG_CONFIG_ARGS...): with PKG_CONFIG_PATH=ROOT/LIBDIR/pkgconfig, checks that the .pc's
# folders are ROOT's, and sets OUT_FLAGS to `pkg-config PKG_CONFIG_ARGS --cflags --libs pdesolve` as a list.
function(pc_check root out_flags)
  set(ENV{PKG_CONFIG_PATH} "${root}/${LIBDIR}/pkgconfig")
  foreach(var prefix libdir includedir)
    execute_process(COMMAND ${PKG_CONFIG} --variable=${var} pdesolve RESULT_VARIABLE rc OUTPUT_VARIABLE val
                    ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0 OR val STREQUAL "")
      message(FATAL_ERROR "install test: ${PKG_CONFIG} --variable=${var} pdesolve failed (${rc}): ${err}")
    endif()
    set(${var} "${val}")
  endforeach()
  same_dir("the .pc's prefix" "${prefix}" "${root}")
  same_dir("the .pc's libdir" "${libdir}" "${root}/${LIBDIR}")
  same_dir("the .pc's includedir" "${includedir}" "${root}/${INCLUDEDIR}")
  execute_process(COMMAND ${PKG_CONFIG} ${ARGN} --cflags --libs pdesolve RESULT_VARIABLE rc OUTPUT_VARIABLE flags
                  ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${PKG_CONFIG} ${ARGN} --cflags --libs pdesolve failed (${rc}): ${err}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(${out_flags} "${flags}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK}/prefix")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/pc")
run("installing the build tree" "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${prefix}")
set(libpath "${prefix}/${LIBDIR}")
if(DEFINED ENV{LD_LIBRARY_PATH} AND NOT "$ENV{LD_LIBRARY_PATH}" STREQUAL "")
  string(APPEND libpath ":$ENV{LD_LIBRARY_PATH}")
endif()

# (a) CMake: find_package(pdesolve) with CMAKE_PREFIX_PATH; CMake's build rpath finds the shared library.
set(gen -G "${GENERATOR}")
if(MAKE_PROGRAM)
  list(APPEND gen "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
run("configuring the CMake consumer" "${CMAKE_COMMAND}" -S "${SRC}/consumer" -B "${WORK}/cmake" ${gen}
    "-DCMAKE_C_COMPILER=${CC}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "-DCMAKE_C_FLAGS=${CFLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CFLAGS}")
file(STRINGS "${WORK}/cmake/CMakeCache.txt" dir REGEX "^pdesolve_DIR:")
string(REGEX REPLACE "^[^=]*=" "" dir "${dir}")
same_dir("find_package(pdesolve)'s pdesolve_DIR" "${dir}" "${prefix}/${LIBDIR}/cmake/pdesolve")
run("building the CMake consumer" "${CMAKE_COMMAND}" --build "${WORK}/cmake")
run("the CMake consumer (shared library)" "${WORK}/cmake/consumer")
run("the CMake consumer (static library)" "${WORK}/cmake/consumer_static")

# (b) pkg-config, shared library found through LD_LIBRARY_PATH.
pc_check("${prefix}" flags)
run("compiling with pkg-config" "${CC}" ${cflags} -std=c11 -Wall -Wextra -Werror "${SRC}/consumer/consumer.c" ${flags}
    -o "${WORK}/pc/consumer")
run("the pkg-config consumer" "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${libpath}" "${WORK}/pc/consumer")

# (c) pkg-config --static, in a copy of the installed tree without the shared library: the .pc follows the tree, and
# Libs.private must hold everything libpdesolve.a needs.
file(COPY "${prefix}/" DESTINATION "${WORK}/moved" PATTERN "libpdesolve.so*" EXCLUDE)
pc_check("${WORK}/moved" flags --static)
run("compiling with pkg-config --static" "${CC}" ${cflags} -std=c11 -Wall -Wextra -Werror
    "${SRC}/consumer/consumer.c" ${flags} -o "${WORK}/pc/consumer_static")
run("the pkg-config --static consumer" "${WORK}/pc/consumer_static")
