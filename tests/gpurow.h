/* hw_metrics.csv rows for the tests, built from the GPU figures' table (hwrun/rundir.h's
 * hw_gpu_figs) and a field list, not typed out: a figure that joins the default list gets its
 * cell in every fixture, which keeps the width the reader expects. */
#ifndef HWRUN_TESTS_GPUROW_H
#define HWRUN_TESTS_GPUROW_H

#include "hwrun/buf.h"
#include "hwrun/rundir.h"

/* A GPU's figures at one time, by figure (hw_gpu_figs' order, hwrun/rundir.h's enum
 * hw_gpu_metric): set with designated initializers; NAN writes nvidia-smi's "[N/A]". */
struct th_gpu_vals {
    double v[HW_GPU_FIG_COUNT];
};
/* The values the fixtures of an H100 at work start from (the fake nvidia-smi's board): util 50,
 * mem util 30, 2048 of 81559 MiB, 300 W, 50 C, SM 1980 and memory 2619 MHz, graphics 1980, no
 * fan (NAN: a figure that may be N/A); a figure outside them (one that joins the table later) 1. */
struct th_gpu_vals th_gpu_vals_h100(void);

/* Append to b one row as nvidia-smi writes the field list fields (NULL: hwmon's default,
 * hw_gpu_fields_default()) with csv,noheader,nounits: cells joined by ", ", the timestamp ts,
 * index, uuid (NULL: "[N/A]"), each figure's value (watts with 2 decimals as nvidia-smi prints
 * them, the others as %.15g), "[N/A]" for a field of no figure; then "\n". */
void th_gpu_row(struct hw_buf *b, const char *fields, const char *ts, int index, const char *uuid,
                const struct th_gpu_vals *v);

#endif
