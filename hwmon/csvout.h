/* The lines of cpu_metrics.csv and proc_metrics.csv (columns: FORMAT.md). Each function appends
 * one whole line, '\n' included, to a struct hw_buf; the caller writes it with one write(2). */
#ifndef HWMON_CSVOUT_H
#define HWMON_CSVOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "machine.h"
#include "proctree.h"

void mon_csv_cpu_header(struct hw_buf *b, bool cgroup);
void mon_csv_proc_header(struct hw_buf *b, bool pss);
/* iso: the sample's timestamp (hw_iso_utc). Cells not measured stay empty. edge: an edge
 * sample's row (HW_COL_EDGE 1), else the cadence's (empty). */
void mon_csv_cpu_line(struct hw_buf *b, const char *iso, const struct mon_sys_sample *s,
                      bool cgroup, bool edge);
void mon_csv_proc_line(struct hw_buf *b, const char *iso, const struct mon_tree_sample *s,
                       bool pss, bool edge);
/* Append x with one decimal, rounded half away from zero ("12.3", "-0.5", "100.0"); nothing for
 * NaN or infinities. */
void mon_buf_fixed1(struct hw_buf *b, double x);

#endif
