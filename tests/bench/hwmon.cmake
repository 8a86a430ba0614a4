# bench_hwmon: hwmon's CPU per sample, peak RSS and sample counts under load (run by hand:
# `build/tests/bench/bench_hwmon -b build/hwmon/hwmon [-d 60] [-i 0.1]`).
if(TARGET hwmon)
  add_executable(bench_hwmon ${CMAKE_CURRENT_LIST_DIR}/bench_hwmon.c)
  target_link_libraries(bench_hwmon PRIVATE hwrun_flags)
  add_dependencies(bench_hwmon hwmon)
endif()

# bench_tree: hwmon's samplers vs a bare pread loop, and PSS cost for a 4 GiB process (issue 9;
# run by hand: `build/tests/bench/bench_tree [-n 20000] [-m 4096] [-k 3]`).
if(TARGET hwmon_core)
  add_executable(bench_tree ${CMAKE_CURRENT_LIST_DIR}/bench_tree.c)
  target_link_libraries(bench_tree PRIVATE hwmon_core)
endif()

# bench_prom: one Prometheus export's CPU (run by hand: `build/tests/bench/bench_prom RUN_DIR`).
if(TARGET hwmon_core)
  add_executable(bench_prom ${CMAKE_CURRENT_LIST_DIR}/bench_prom.c)
  target_link_libraries(bench_prom PRIVATE hwmon_core)
endif()

# bench_edges: hwmon's CPU while it follows run.jsonl for edge samples, 50 phase boundaries per
# second against none (issue 23; run by hand: `build/tests/bench/bench_edges -b build/hwmon/hwmon`).
if(TARGET hwmon)
  add_executable(bench_edges ${CMAKE_CURRENT_LIST_DIR}/bench_edges.c)
  target_link_libraries(bench_edges PRIVATE hwrun_flags runlog::runlog)
  add_dependencies(bench_edges hwmon)
endif()

# bench_amd: the AMD GPU source's rows per sample against bare preads of the same files, and the
# AMD SMI energy counter's read (run by hand: `build/tests/bench/bench_amd [-c 8] [-n 20000]
# [-l build/tests/fake/libfake-amd-smi.so]`).
if(TARGET hwmon_core)
  add_executable(bench_amd ${CMAKE_CURRENT_LIST_DIR}/bench_amd.c)
  target_link_libraries(bench_amd PRIVATE hwmon_core)
endif()
