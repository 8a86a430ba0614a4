/* Printing a summary: summary.json (pretty JSON), a text report, and one flat row per run
 * (CSV or JSON Lines) for sweep tables. Everything is appended to a struct hw_buf. */
#ifndef SUM_REPORT_H
#define SUM_REPORT_H

#include "hwrun/io.h"
#include "summary.h"
#include "units.h"

/* The full summary (schema in summarize.1), pretty-printed, ending in '\n'. */
void sum_report_json(const struct sum_run *run, struct hw_buf *out);
/* A readable report for a terminal; _u in --units u (NULL: the defaults). */
void sum_report_text(const struct sum_run *run, struct hw_buf *out);
void sum_report_text_u(const struct sum_run *run, const struct sum_units *u, struct hw_buf *out);
/* The CSV header line of sum_report_csv_row. */
void sum_report_csv_header(struct hw_buf *out);
/* One CSV row (RFC 4180 quoting; empty cell = not measured). */
void sum_report_csv_row(const struct sum_run *run, struct hw_buf *out);
/* One JSON object per line with the same keys as the CSV columns (null = not measured), then
 * the run's parameters as "param.KEY" keys. */
void sum_report_jsonl_row(const struct sum_run *run, struct hw_buf *out);
/* The CSV column name of a parameter ("param.KEY"), and its value as one CSV cell (quoted as
 * needed; empty for null): the sweep table's extra columns, which the caller lines up by name
 * across runs since runs have different parameters. */
void sum_report_param_name(const struct sum_param *p, struct hw_buf *out);
void sum_report_param_csv_cell(const struct sum_param *p, struct hw_buf *out);

#endif
