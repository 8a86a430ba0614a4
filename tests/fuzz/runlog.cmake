# fuzz_runlog: librunlog's escaping and JSON-text handling. Seeds: tests/fuzz/seeds/runlog/.
hwrun_add_fuzzer(fuzz_runlog SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_runlog.c
                 LIBS runlog::runlog)
# fuzz_decimal: the one decimal parser (hwrun/parse.h) against strtod. Seeds: seeds/decimal/.
hwrun_add_fuzzer(fuzz_decimal SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_decimal.c LIBS hwrun_common)
