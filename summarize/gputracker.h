/* `--format gpu-tracker`: a run as gpu_tracker's Tracker.to_json() lays out its resource usage
 * (max_ram, max_gpu_ram, cpu_utilization, gpu_utilization, compute_time: main process,
 * descendants and both combined; the system's; sums and "hardware" shares of the expected
 * cores or GPUs), every number one summarize computed for the summary (report.h's figures and
 * the run's stats), in --units (defaults as gpu_tracker's: gigabytes, hours). What hwmon does
 * not measure (the main process's private and shared RSS, GPU memory per process without
 * --gpu-procs) is null. */
#ifndef SUM_GPUTRACKER_H
#define SUM_GPUTRACKER_H

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "summary.h"
#include "units.h"

/* gpu_tracker's defaults where u names no unit: mem and gpumem GB, time h. */
void sum_gpu_tracker_units(struct sum_units *u);
/* The to_json() document, pretty, ending in '\n'. */
void sum_report_gpu_tracker(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *out);

#endif
