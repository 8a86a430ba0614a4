add_executable(bench_runlog ${CMAKE_CURRENT_SOURCE_DIR}/bench_runlog.c)
target_link_libraries(bench_runlog PRIVATE runlog::runlog Threads::Threads)
