# fuzz_runlog: librunlog's escaping and JSON-text handling. Seeds: fuzz/seeds/runlog/.
add_executable(fuzz_runlog ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_runlog.c)
target_compile_options(fuzz_runlog PRIVATE -fsanitize=fuzzer)
target_link_options(fuzz_runlog PRIVATE -fsanitize=fuzzer)
target_link_libraries(fuzz_runlog PRIVATE runlog::runlog)
