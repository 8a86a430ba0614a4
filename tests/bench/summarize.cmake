# bench_summarize: summarize's throughput on a generated hw_metrics.csv (default 1 GB) against a
# bare libcsv parse and the pytyche oracle, and its peak RSS. A program, not a test:
#   cmake --build build --target bench_summarize summarize
#   build/tests/bench/bench_summarize --size 1G --oracle-size 64M
add_executable(bench_summarize ${CMAKE_CURRENT_SOURCE_DIR}/bench_summarize.c)
target_link_libraries(bench_summarize PRIVATE summarize_core)
target_compile_definitions(bench_summarize PRIVATE
    SUMMARIZE_BIN="$<TARGET_FILE:summarize>"
    ORACLE_PY="${HWRUN_SHARED_DIR}/oracle/pytyche_summary.py")

# bench_phases: summarize on a run of 100 000 repeated phases (issue 10), time and peak RSS
# against a --baseline binary:
#   cmake --build build --target bench_phases summarize
#   build/tests/bench/bench_phases --baseline /path/to/old/summarize
add_executable(bench_phases ${CMAKE_CURRENT_SOURCE_DIR}/bench_phases.c)
target_link_libraries(bench_phases PRIVATE hwrun_flags m)
target_compile_definitions(bench_phases PRIVATE SUMMARIZE_BIN="$<TARGET_FILE:summarize>")

# bench_html: `summarize --html` on a long generated run against `--format json` (the summary's
# one pass), time and peak RSS; --summarize PATH (repeatable) compares other builds:
#   cmake --build build --target bench_html summarize
#   build/tests/bench/bench_html --hours 6 --summarize build/summarize/summarize --summarize OLD
if(TARGET summarize_core)
  add_executable(bench_html ${CMAKE_CURRENT_SOURCE_DIR}/bench_html.c)
  target_link_libraries(bench_html PRIVATE html_gen)
  target_compile_definitions(bench_html PRIVATE SUMMARIZE_BIN="$<TARGET_FILE:summarize>")
endif()

# bench_job: `summarize JOBDIR` on a generated job of many nodes (default 64 x 8 GPUs x 2 h at
# 1 s, 3.7 million GPU rows) against the sum of single-node summaries and a sweep of the nodes,
# time and peak RSS:
#   cmake --build build --target bench_job summarize
#   build/tests/bench/bench_job --nodes 64 --gpus 8 --hours 2 -j 2
add_executable(bench_job ${CMAKE_CURRENT_SOURCE_DIR}/bench_job.c)
target_link_libraries(bench_job PRIVATE hwrun_flags m)
target_compile_definitions(bench_job PRIVATE SUMMARIZE_BIN="$<TARGET_FILE:summarize>")

# bench_live: `summarize --live` refreshed once per second while 8 GPUs at 10 Hz are written
# (issue 32): CPU per refresh, share of a core, RSS over the run, against a whole summary:
#   cmake --build build --target bench_live summarize
#   build/tests/bench/bench_live --minutes 60 --gpus 8
if(TARGET summarize_core)
  add_executable(bench_live ${CMAKE_CURRENT_SOURCE_DIR}/bench_live.c)
  target_link_libraries(bench_live PRIVATE summarize_core)
  target_compile_definitions(bench_live PRIVATE SUMMARIZE_BIN="$<TARGET_FILE:summarize>")
endif()

# bench_steps: summarize on a run of a phase per step, back to back (issue 54; default a million
# of 1 ms): time, peak RSS of the summarize child and output size of the default JSON,
# --phases all and the --html page, at N and N/1000 steps:
#   cmake --build build --target bench_steps summarize
#   build/tests/bench/bench_steps --steps 1000000
if(TARGET html_gen)
  add_executable(bench_steps ${CMAKE_CURRENT_SOURCE_DIR}/bench_steps.c)
  target_link_libraries(bench_steps PRIVATE html_gen)
  target_compile_definitions(bench_steps PRIVATE SUMMARIZE_BIN="$<TARGET_FILE:summarize>")
endif()
