# tests/mesh/gmsh_files.cmake (cmake -DGMSH=... -DGEO=... -DOUT=... -P): the ctest fixture of t902_gmsh: meshes GEO
# with the gmsh program into OUT as MSH 2.2 and 4.1, ASCII and binary, and as MSH 4.1 cut into 3 partitions
# ($PartitionedEntities, elements on partitioned entities): OUT/square_{msh22,msh41,msh41_part}_{ascii,bin}.msh.
include(${CMAKE_CURRENT_LIST_DIR}/../tools/gmsh.cmake)
file(MAKE_DIRECTORY ${OUT})
foreach(kind msh22 msh41 msh41_part)
  string(REPLACE "_part" "" fmt ${kind})
  foreach(bin ascii bin)
    set(args -2 -format ${fmt} -nt 1)
    if(kind MATCHES "_part$")
      list(APPEND args -part 3)
    endif()
    if(bin STREQUAL "bin")
      list(APPEND args -bin)
    endif()
    pds_gmsh(${GEO} ${OUT}/square_${kind}_${bin}.msh ${args})
  endforeach()
endforeach()
