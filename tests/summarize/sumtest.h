/* Shared by summarize's test files: a sink that records what the readers hand over, and
 * helpers to feed bytes and to write run directories. */
#ifndef SUMTEST_H
#define SUMTEST_H

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "hwrun/buf.h"
#include "readers.h"
#include "summary.h"
#include "verdicts.h" /* sum_run_summarize */
#include "testutil.h"

/* Sums and counts of everything a reader produced. */
struct rec {
    size_t gpu_rows, dmon_rows, cpu_rows, proc_rows, gp_rows, phases, events, diags;
    double gsum[HW_GPU_FIG_COUNT];
    size_t gn[HW_GPU_FIG_COUNT];
    double dsum[RD_DM_COUNT];
    size_t dn[RD_DM_COUNT];
    double csum[HW_CPU_COL_COUNT];
    size_t cn[HW_CPU_COL_COUNT];
    double psum[HW_PROC_COL_COUNT];
    double gp_mem_sum;
    size_t gp_mem_n;
    int max_gpu;
    int gpus_seen[64];
    double first_t, last_t;
    char last_name[256];  /* last phase/event/gpu-proc name */
    char last_uuid[64];
    long last_pid;
};

void rec_sink(struct rd_sink *sink, struct rec *r);
/* Feed data to a new reader in pieces of `step` bytes (0: all at once). */
void feed_all(enum hw_file kind, const char *data, size_t len, size_t step,
              const struct rd_read_opts *opts, struct rec *r, struct rd_quality *q);
uint64_t token_count(const struct rd_quality *q, const char *token);
/* Write name in dir with content. */
void put_file(const char *dir, const char *name, const char *content);
/* A generated file of hwmon's (cpu_metrics.csv, proc_metrics.csv) in b. rows_begin: its header
 * from the product's column table, as hwmon writes it (HW_COL_TIMESTAMP, the first ncols names
 * of cols, HW_COL_EDGE with edge); rows_add: a row at epoch seconds t (th_iso_time), fmt its
 * cells after the timestamp; rows_put: the file as name in dir, b freed. */
void rows_begin(struct hw_buf *b, const char *const *cols, size_t ncols, bool edge);
void rows_add(struct hw_buf *b, double t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void rows_put(struct hw_buf *b, const char *dir, const char *name);
/* Run the built summarize with -q and args (NULL-terminated); its status and output. */
struct th_result run_summarize(char *const *args);
/* The text report's lines as written before it broke them at 100 columns (report_text.c's
 * wrap_lines: a line ending in ',' or ';' and the next one indented is one line): in place. */
char *unwrap_text(char *s);
/* Epoch seconds t as nvidia-smi writes a timestamp ("2026/01/01 00:00:00.000", UTC) and as hwmon
 * writes one ("2026-01-01T00:00:00.000+00:00"), to the millisecond: the generated runs' rows. */
void th_smi_time(char *buf, size_t cap, double t);
void th_iso_time(char *buf, size_t cap, double t);
/* Summarize dir with the library. */
struct sum_run *summarize_dir(const char *dir);

#define CHECK_NEAR(a, b, eps) CU_ASSERT(fabs((double)(a) - (double)(b)) <= (eps))

void add_readers_suite(void);
void add_captures_suite(void);
void add_stats_suite(void);
void add_energy_suites(void);
void add_pytyche_suite(void);
void add_cli_suite(void);
void add_gpm_suite(void);
void add_outcome_suite(void);
void add_outputs_suite(void);
void add_system_suite(void);
void add_jobsum_suite(void);
void add_health_suite(void);
void add_aggregates_suites(void);
void add_gputracker_suite(void);
void add_live_suite(void);
void add_verdicts_suite(void);
void add_page_span_suite(void);
void add_interval_suite(void);

#endif
