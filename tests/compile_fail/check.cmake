# Builds TARGET in BUILD_DIR, which must fail: the compiler's first error must be jet's MESSAGE
# (a static_assert), the output must hold each of the list NAMED (what the compiler names where
# the message cannot), and the whole build output be shorter than MAX_BYTES (one short message,
# not pages of instantiations).
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
string(APPEND output "${errors}")
string(LENGTH "${output}" bytes)
if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled; it must not")
endif()
# The line of the first "error:", found with string(FIND): a regular expression over megabytes of
# output (the type of an expression of 65,536 nodes) takes CMake minutes.
string(FIND "${output}" "error:" error_at)
string(SUBSTRING "${output}" 0 ${error_at} before_error)
string(FIND "${before_error}" "\n" line_start REVERSE)
math(EXPR line_start "${line_start} + 1")
string(SUBSTRING "${output}" ${line_start} 4096 first_error)
string(FIND "${first_error}" "\n" line_end)
string(SUBSTRING "${first_error}" 0 ${line_end} first_error)
string(FIND "${first_error}" "${MESSAGE}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "the first error is not \"${MESSAGE}\" but:\n${first_error}\n--- output ---\n${output}")
endif()
foreach(name IN LISTS NAMED)
  string(FIND "${output}" "${name}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "the output does not name \"${name}\":\n${output}")
  endif()
endforeach()
if(bytes GREATER MAX_BYTES)
  message(FATAL_ERROR "${bytes} bytes of output, more than ${MAX_BYTES}:\n${output}")
endif()
message(STATUS "refused with \"${MESSAGE}\" first, in ${bytes} bytes of output")
