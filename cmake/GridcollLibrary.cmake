# gridcoll_library(NAME SOURCES file... [INCLUDE dir...] [LINK target...]): a static library of
# the project — public include directories, public links, the project's warnings.
function(gridcoll_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;INCLUDE;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  if(ARG_INCLUDE)
    target_include_directories(${name} PUBLIC ${ARG_INCLUDE})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
  target_compile_options(${name} PRIVATE ${GRIDCOLL_WARNINGS})
endfunction()
