# fuzz_smi: the parsers of nvidia-smi's answers to hwmon's start questions (smiprobe.h).
# Seeds: the real captures (tests/fuzz/seeds/smi.dirs).
if(TARGET hwmon_core)
  hwrun_add_fuzzer(fuzz_smi SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_smi.c
                   LIBS hwmon_core PkgConfig::JSONC)
endif()
