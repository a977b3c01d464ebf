# README.md must show examples/quickstart.cpp's lines between "// [quickstart]" markers, verbatim,
# so the README's code is code CTest builds.
file(READ ${EXAMPLE} example)
string(REGEX MATCH "// \\[quickstart\\]\n(.*)// \\[quickstart\\]" _ "${example}")
set(snippet "${CMAKE_MATCH_1}")
# The example's body is indented by two spaces inside main(); README's block is not.
string(REGEX REPLACE "(^|\n)  " "\\1" snippet "${snippet}")
string(STRIP "${snippet}" snippet)
if(snippet STREQUAL "")
  message(FATAL_ERROR "${EXAMPLE} has no // [quickstart] block")
endif()
file(READ ${README} readme)
string(FIND "${readme}" "${snippet}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not contain the quickstart block of ${EXAMPLE}:\n${snippet}")
endif()
