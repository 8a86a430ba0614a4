# Run at build time, after a CUnit test program links (tests/CMakeLists.txt, hwrun_add_cunit):
# asks it for its suites (`PROG -l`: "SUITE TIMEOUT" lines) and writes OUT, which CTest includes:
# one test PROGNAME.SUITE per suite. A program that cannot list its suites writes a test that
# fails, so no suite goes missing in silence.
#   cmake -D PROG=path -D NAME=test_x -D OUT=file -D ENV_FILE=file -P discover.cmake
execute_process(COMMAND "${PROG}" -l OUTPUT_VARIABLE _out ERROR_VARIABLE _err
                RESULT_VARIABLE _rc)
set(_t "# Written by tests/discover.cmake from `${NAME} -l`: do not edit.\n")
string(APPEND _t "include(\"${ENV_FILE}\")\n")
if(NOT _rc EQUAL 0)
  string(APPEND _t "add_test(${NAME}.LIST_FAILED \"${CMAKE_COMMAND}\" -E false)\n")
else()
  string(REPLACE "\n" ";" _lines "${_out}")
  foreach(_l IN LISTS _lines)
    if(_l MATCHES "^([A-Za-z0-9_]+) ([0-9]+)$")
      set(_s ${CMAKE_MATCH_1})
      string(APPEND _t "add_test(${NAME}.${_s} \"${PROG}\" -s ${_s})\n"
             "set_tests_properties(${NAME}.${_s} PROPERTIES TIMEOUT ${CMAKE_MATCH_2} "
             "ENVIRONMENT \"\${HWRUN_TEST_ENV}\" SKIP_RETURN_CODE 77)\n")
    endif()
  endforeach()
endif()
file(WRITE "${OUT}.tmp" "${_t}")
file(RENAME "${OUT}.tmp" "${OUT}")
