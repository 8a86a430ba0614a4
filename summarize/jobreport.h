/* Printing a job of many nodes (jobsum.h): its JSON document, a text report, and one sweep row
 * per job (CSV or JSON Lines). Every figure is the one sum_job_build computed. */
#ifndef SUM_JOBREPORT_H
#define SUM_JOBREPORT_H

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "jobsum.h"
#include "units.h"

/* The job summary (schema hwrun.job_summary/1, summarize.1), pretty-printed, ending in '\n'. */
void sum_job_json(const struct sum_jobsum *j, struct hw_buf *out);
/* For a terminal, in --units u (NULL: the defaults). */
void sum_job_text(const struct sum_jobsum *j, const struct sum_units *u, struct hw_buf *out);
/* One row per job: the header, a CSV line, a JSON Lines object (same columns). After the job's
 * own columns come its param.KEY and metric.KEY ones (sum_job_param_node's, as a run's row has
 * them): in CSV the caller's pcols, the names lined up across the jobs of a sweep; in JSON
 * Lines each row's own. */
void sum_job_csv_header(const struct sum_units *u, const char *const *pcols, size_t npcols,
                        struct hw_buf *out);
void sum_job_csv_row(const struct sum_jobsum *j, const struct sum_units *u,
                     const char *const *pcols, size_t npcols, struct hw_buf *out);
void sum_job_jsonl_row(const struct sum_jobsum *j, const struct sum_units *u, struct hw_buf *out);
/* The job row's columns as its table says them (report.h's struct sum_row_def: key, type,
 * dimension, what it means), in order; *n their count. */
struct sum_row_def;
const struct sum_row_def *sum_job_row_defs(size_t *n);
/* The nodes whose run has no stop event, by label, joined with ", " ("" when none). */
void sum_job_incomplete_list(const struct sum_jobsum *j, struct hw_buf *out);

#endif
