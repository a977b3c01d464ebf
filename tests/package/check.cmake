# Builds and runs the consumer in SCRATCH: with MODE find_package, against jet installed from
# JET_BUILD_DIR into SCRATCH/prefix; with MODE add_subdirectory, with jet's source tree JET_SOURCE
# as a subdirectory of the consumer's build.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}")
  endif()
endfunction()
file(REMOVE_RECURSE ${SCRATCH})
# A jet built with sanitizers (JET_SANITIZERS) links only into a program built with them too, and
# --as-needed, as the top-level CMakeLists.txt explains.
set(flags "")
set(link_flags "")
if(SANITIZERS)
  set(flags "-fsanitize=${SANITIZERS}")
  set(link_flags "-Wl,--as-needed")
endif()
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} --install ${JET_BUILD_DIR} --prefix ${SCRATCH}/prefix)
  set(how -DCMAKE_PREFIX_PATH=${SCRATCH}/prefix)
else()
  set(how -DJET_SOURCE=${JET_SOURCE} -DJET_SANITIZERS=${SANITIZERS})
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${SCRATCH}/build -G ${GENERATOR} ${how}
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${link_flags}")
run(${CMAKE_COMMAND} --build ${SCRATCH}/build)
run(${SCRATCH}/build/consumer)
