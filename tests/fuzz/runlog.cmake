# fuzz_runlog: librunlog's escaping and JSON-text handling. Seeds: tests/fuzz/seeds/runlog/.
hwrun_add_fuzzer(fuzz_runlog SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_runlog.c
                 LIBS runlog::runlog)
