/* summarize --compare A B (gpu_tracker's compare): two runs side by side, per metric and per
 * phase name: A, B, the change B - A and in percent of A; null ("-") where either side is
 * unmeasured. The metrics are the sweep row's numeric columns and phase.NAME.* columns
 * (report.h sum_report_figures), so a compared figure is the one the rows show, in --units. */
#ifndef SUM_COMPARE_H
#define SUM_COMPARE_H

#include <stdbool.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "summary.h"
#include "units.h"

/* A JSON document (schema hwrun.compare/1, see summarize.1), ending in '\n'. */
void sum_compare_json(const struct sum_run *a, const struct sum_run *b, const struct sum_units *u,
                      struct hw_buf *out);
/* A table for a terminal; metrics unmeasured on both sides are left out. */
/* Text: what differs first (the runs' status, the params that differ, the time and energy per
 * phase name, the verdicts one run got), then the largest changes by |change %|, in at most
 * SUM_COMPARE_LINES lines; all: every figure, the row's then each phase name's. */
#define SUM_COMPARE_LINES 40
void sum_compare_text(const struct sum_run *a, const struct sum_run *b, const struct sum_units *u,
                      bool all, struct hw_buf *out);

#endif
