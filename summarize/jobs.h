/* summarize's work over its run directories: one job per DIR (or one for the file options),
 * summarized by a pool of -j threads, each into its own buffers; then the --html report over
 * all of them and the outputs joined, in the order given, into one document. main.c fills in
 * struct sum_jobs from the command line. */
#ifndef SUM_JOBS_H
#define SUM_JOBS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "readers.h"
#include "summary.h"
#include "units.h"

enum sum_fmt { SUM_FMT_JSON, SUM_FMT_TEXT, SUM_FMT_PYTYCHE, SUM_FMT_PYTYCHE_FIELDS, SUM_FMT_CSV,
               SUM_FMT_JSONL, SUM_FMT_GPU_TRACKER, SUM_FMT_COUNT };

/* What else than one run a format can print (sum_format.flags). */
enum sum_format_flag {
    SUM_FF_COMPARE = 1u << 0, /* --compare A B */
    SUM_FF_JOB = 1u << 1,     /* a multi-node job */
};
/* -f's formats: the option's names, its error message and the modes' checks read this table. */
struct sum_format {
    const char *name; /* -f NAME */
    unsigned flags;   /* enum sum_format_flag */
};
extern const struct sum_format sum_formats[SUM_FMT_COUNT];
/* The names of the formats with every flag of flags, ", "-separated, into buf. */
void sum_format_names(unsigned flags, char *buf, size_t cap);
/* The format named name, or -1. */
int sum_format_find(const char *name);

struct sum_jnode;
struct sum_sweep_row;

struct sum_job {
    const char *dir;              /* NULL: files given by options only */
    struct sum_jnode *node;       /* a multi-node job's node: its record (jobsum.h), kept */
    struct hw_buf out;
    struct sum_run *run;          /* --html of one run: its summary and timeline, kept */
    struct sum_sweep_row *row;    /* --html of several: the run's row of the sweep page */
    struct hw_buf pnames, pcells; /* csv: the run's param.KEY names and cells, NUL-separated */
    size_t nparams;
    int status;                   /* HW_EXIT_OK or HW_EXIT_FAIL */
    bool usable;
};

struct sum_jobs {
    enum sum_fmt fmt;
    bool write;                   /* -w: DIR/summary.json */
    bool quiet;
    bool print;                   /* print the --format output (off for --html alone) */
    bool stream;                  /* one run's JSON to standard output: written out as it is
                                   * made, in constant memory (hw_buf_spill), not kept whole */
    const char *html;             /* --html FILE */
    struct sum_units units;       /* --units: text and rows */
    struct sum_config cfg;
    const char *file_opt[HW_FILE_COUNT];
    struct sum_job *jobs;         /* zeroed, dir set */
    size_t njobs;
    atomic_size_t next;           /* the next job a thread takes */
    bool compare_all;             /* --compare --all: every figure, not the largest changes */
    bool nodes;                   /* the DIRs are nodes of multi-node jobs: keep node records */
};

/* Summarize dir (NULL: the file options alone) into a new run; NULL when dir is not a
 * directory (said; *rc is then -errno). *rc is sum_run_summarize's; *status becomes
 * HW_EXIT_FAIL on a problem, *usable whether something was summarized. */
struct sum_run *sum_jobs_summarize(const struct sum_jobs *c, const char *dir, int *rc,
                                   int *status, bool *usable);
/* --compare A B (compare.h) in c->fmt (text or JSON) into out. Returns HW_EXIT_OK, or
 * HW_EXIT_FAIL (out empty when a directory is missing). */
int sum_jobs_compare(const struct sum_jobs *c, const char *a, const char *b, struct hw_buf *out);
/* Run every job, on up to nthreads threads (the calling thread alone when 1, or when no thread
 * can be started). With --html the summary builds the page's timeline in its one pass: a run's
 * whole timeline for one job (kept for sum_jobs_html), a sweep row's sparkline for several
 * (the row is written at once and the summary freed). */
void sum_jobs_run(struct sum_jobs *c, size_t nthreads);
/* --html: the page of the one run, or the sweep page of the rows, into c->html; frees them.
 * Returns HW_EXIT_OK or HW_EXIT_FAIL. */
int sum_jobs_html(struct sum_jobs *c);
/* Append the jobs' outputs, in order, to all: csv rows under one header with the union of the
 * runs' param.KEY columns, several JSON summaries as one array. Frees the jobs' buffers (not
 * c->jobs). Returns HW_EXIT_FAIL if a job failed or none was usable, else HW_EXIT_OK. */
int sum_jobs_collect(struct sum_jobs *c, struct hw_buf *all);

/* Multi-node jobs (jobsum.h): each of dirs a job directory (one job each), or with one_job
 * the nodes of one job. Their nodes are summarized on nthreads threads, each job joined and
 * printed into all in c->fmt (json, text, csv, jsonl), and with c->html its page (one job).
 * Returns the exit status. */
int sum_jobs_multi(struct sum_jobs *c, char **dirs, size_t ndirs, bool one_job, size_t nthreads,
                   struct hw_buf *all);

#endif
