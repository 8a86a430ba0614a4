# hwmon's libFuzzer targets (configure with CC=clang -DHWRUN_FUZZ=ON -DHWRUN_ASAN=ON).
#
#   fuzz_mon_sys   the container and machine parsers: /proc/self/cgroup, mountinfo, cpu.max,
#                  cfs quota, counter files, meminfo, /proc/PID/io, /proc/diskstats,
#                  /proc/net/dev and /proc/self/mounts lines, a DRM client's fdinfo, amdgpu's
#                  pp_dpm_sclk and link speed, /proc/PID/smaps (shared memory once per path)
#   fuzz_smi       the parsers of nvidia-smi's answers to hwmon's start questions (smiprobe.h)
#
# Seeds: the directories in tests/fuzz/seeds/mon_sys.dirs (testdata/cgroup's fixture trees) and
# smi.dirs (the real nvidia-smi captures).
if(TARGET hwmon_core)
  hwrun_add_fuzzer(fuzz_mon_sys SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_mon_sys.c
                   LIBS hwmon_core)
  hwrun_add_fuzzer(fuzz_smi SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_smi.c
                   LIBS hwmon_core PkgConfig::JSONC)
endif()
