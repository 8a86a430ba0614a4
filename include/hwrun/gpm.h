/* GPM (GPU Performance Monitoring, Hopper and newer) activity metrics: the one definition of
 * the file hwmon writes them to, the metric ids it asks `nvidia-smi dmon --gpm-metrics` for and
 * the column labels dmon prints for them. hwmon (the child's command line, the probe) and
 * summarize (the reader, the report's keys) both use these; see hwmon/FORMAT.md "hw_gpm.csv". */
#ifndef HWRUN_GPM_H
#define HWRUN_GPM_H

#define HW_GPM_FILE "hw_gpm.csv"

/* `dmon -s u --gpm-metrics <ids> -o DT -d N`: utilization next to GPM activity, with a date and
 * time per row so that summarize can place the rows in phases. */
#define HW_GPM_SELECT "u"
#define HW_GPM_METRIC_IDS "1,2,3,5,10,11,12,13"

/* The labels dmon prints for those ids, in id order (dmon_gpm-metrics_h800 capture):
 * graphics activity, SM activity, SM occupancy, tensor activity, DRAM activity, FP64, FP32,
 * FP16 activity; all in percent (unit row "GPM:%"). */
#define HW_GPM_COLUMNS "gract", "smutil", "smocc", "mmaact", "dram", "fp64", "fp32", "fp16"
#define HW_GPM_NCOLS 8

/* The names summarize gives them in summary.json, in the same order. */
#define HW_GPM_KEYS                                                                                \
    "gr_active_pct", "sm_active_pct", "sm_occupancy_pct", "tensor_active_pct", "dram_active_pct", \
        "fp64_active_pct", "fp32_active_pct", "fp16_active_pct"

/* The probe asks for SM activity alone; this is its label. */
#define HW_GPM_PROBE_ID "2"
#define HW_GPM_PROBE_COLUMN "smutil"

#endif
