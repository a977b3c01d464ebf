# Installs jet from JET_BUILD_DIR into SCRATCH/prefix, then configures, builds and runs the consumer.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}")
  endif()
endfunction()
file(REMOVE_RECURSE ${SCRATCH})
run(${CMAKE_COMMAND} --install ${JET_BUILD_DIR} --prefix ${SCRATCH}/prefix)
# A jet built with sanitizers (JET_SANITIZERS) links only into a program built with them too, and
# --as-needed, as the top-level CMakeLists.txt explains.
set(flags "")
set(link_flags "")
if(SANITIZERS)
  set(flags "-fsanitize=${SANITIZERS}")
  set(link_flags "-Wl,--as-needed")
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${SCRATCH}/build -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${SCRATCH}/prefix
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${link_flags}")
run(${CMAKE_COMMAND} --build ${SCRATCH}/build)
run(${SCRATCH}/build/consumer)
