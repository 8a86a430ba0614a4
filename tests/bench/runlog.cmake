add_executable(bench_runlog ${CMAKE_CURRENT_SOURCE_DIR}/bench_runlog.c)
target_link_libraries(bench_runlog PRIVATE runlog::runlog Threads::Threads)

# bench_decimal: ns per numeric cell of an nvidia-smi mix, hw_parse_decimal_padded and
# hw_parse_decimal against strtod in the same run (issue 10):
#   cmake --build build --target bench_decimal && build/tests/bench/bench_decimal
add_executable(bench_decimal ${CMAKE_CURRENT_SOURCE_DIR}/bench_decimal.c)
target_link_libraries(bench_decimal PRIVATE hwrun_common)
