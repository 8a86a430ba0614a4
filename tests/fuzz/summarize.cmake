# summarize's libFuzzer targets (configure with CC=clang -DHWRUN_FUZZ=ON -DHWRUN_ASAN=ON).
#
#   fuzz_sum_gpu, fuzz_sum_dmon, fuzz_sum_cpu, fuzz_sum_proc, fuzz_sum_gpu_procs,
#   fuzz_sum_runlog, fuzz_sum_health, fuzz_sum_energy, fuzz_sum_pmon   one reader each (fuzz_sum_reader.c, the kind set at compile time)
#   fuzz_sum_pytyche  --format pytyche's reader, float() emulation and printer
#   fuzz_sum_split    differential: the fast CSV splitter against libcsv
#   fuzz_sum_run      a whole run directory: every reader, the summary and every output format
#
# Seeds: the directories listed in tests/fuzz/seeds/<name without fuzz_>.dirs (testdata/
# nvsmi-real, the real nvidia-smi captures, and testdata/fuzz-seeds/<kind>/).
#
# What CI runs (20 s each, ASan+UBSan, no crash, no leak, RSS under 512 MB):
#   CC=clang cmake -S . -B build-fuzz -DHWRUN_FUZZ=ON -DHWRUN_ASAN=ON
#   cmake --build build-fuzz --target fuzzers
#   tests/fuzz/run-fuzzers build-fuzz 20
# or one target by hand:
#   mkdir -p /tmp/corpus && build-fuzz/tests/fuzz/fuzz_sum_gpu -max_total_time=20 \
#       -rss_limit_mb=512 -timeout=10 -max_len=65536 /tmp/corpus testdata/nvsmi-real \
#       testdata/fuzz-seeds/gpu

function(_sum_fuzzer name source lib)
  hwrun_add_fuzzer(${name} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${source} LIBS ${lib})
endfunction()

# the readers alone are the rundir library; the rest needs summarize_core
foreach(kind GPU DMON CPU PROC GPU_PROCS RUNLOG HEALTH ENERGY PMON)
  string(TOLOWER ${kind} _k)
  _sum_fuzzer(fuzz_sum_${_k} fuzz_sum_reader.c rundir)
  target_compile_definitions(fuzz_sum_${_k} PRIVATE SUM_FUZZ_KIND=HW_FILE_${kind})
endforeach()
_sum_fuzzer(fuzz_sum_split fuzz_sum_split.c rundir)
_sum_fuzzer(fuzz_sum_pytyche fuzz_sum_pytyche.c summarize_core)
_sum_fuzzer(fuzz_sum_run fuzz_sum_run.c summarize_core)
