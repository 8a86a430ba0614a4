/* A run directory followed while it is written: the live state that hwmon's Prometheus export
 * (hwmon/prom.c) and summarize's live view (summarize/live.c) both print.
 *
 * Each rd_live_update reads what the run's files gained since the last one, through the same
 * streaming readers as the summary (readers.h), so every byte is read once and memory stays
 * the same over a 24-hour run: latest values, energy so far (energy.h's rule), the last
 * minute per GPU, and a bounded record of phases (open ones, the last few, the previous
 * durations of a bounded set of names). Files that do not exist yet are tried again at the
 * next update; a last line still being written waits for its '\n'; a directory that does not
 * exist yet is tried again too. Files are opened as a run's files must be (hw_open_file: no
 * link followed, never a FIFO).
 *
 * Not thread-safe: one thread updates and reads it. */
#ifndef RD_LIVE_H
#define RD_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "energy.h"
#include "idle.h"
#include "readers.h"

#define RD_LIVE_HIST 60      /* seconds of history per GPU: sparklines of the last minute */
#define RD_LIVE_MAX_OPEN 16  /* phases begun and not ended: the deepest kept */
#define RD_LIVE_RECENT 8     /* completed phases kept, newest last */
#define RD_LIVE_NAMES 64     /* phase names whose previous durations are kept (the first seen) */
#define RD_LIVE_PREV 5       /* durations kept per name, newest last */

/* The files followed, the log first: it says how the others are written (GPU fields, zone). */
enum rd_live_src {
    RD_LIVE_LOG, RD_LIVE_GPU, RD_LIVE_GPM, RD_LIVE_HEALTH, RD_LIVE_CPU, RD_LIVE_PROC,
    RD_LIVE_ENERGY, RD_LIVE_SRC_COUNT
};

struct rd_live_gpu {
    bool seen;
    double t;                     /* its latest row's time */
    double v[HW_GPU_FIG_COUNT];        /* latest row; NAN = not measured */
    bool measured[HW_GPU_FIG_COUNT];   /* a row had the figure: the views show a figure shown only
                                   * where measured (HW_GF_WHEN_SEEN) from then on */
    bool gpm_seen;
    double gpm[HW_GPM_NCOLS];     /* latest GPM row, percent */
    bool health_seen;
    double health[HW_HEALTH_COUNT]; /* latest hw_health.csv row (reasons bitmask, power limit) */
    double health_first[HW_HEALTH_COUNT]; /* its first row (ECC counts before the run) */
    bool power_seen;              /* a row had power: energy is measured */
    struct rd_energy energy;      /* summarize's curve and rule (rd_energy_add) */
    struct rd_ecount counter;     /* its energy counter (hw_energy.csv), as summarize counts it */
    struct rd_idle idle;          /* its idle stretches, as summarize's gpu_idle counts them */
    /* the last RD_LIVE_HIST whole seconds: sums and counts of utilization and power, by
     * second modulo RD_LIVE_HIST (hist_sec says which second a slot holds) */
    int64_t hist_sec[RD_LIVE_HIST];
    float util_sum[RD_LIVE_HIST], power_sum[RD_LIVE_HIST];
    uint16_t util_n[RD_LIVE_HIST], power_n[RD_LIVE_HIST];
};

struct rd_live_phase {
    char name[128];
    char id[40];
    double t_start;
    double seconds;  /* NAN while open */
    double steps;    /* its "steps" (NAN: not said) */
    bool failed;     /* rd_phase_failed: its steps were planned, not done */
};

struct rd_live_name {
    char name[128];
    uint64_t count;
    double prev[RD_LIVE_PREV]; /* the last durations, newest last */
    int nprev;
};

struct rd_live_opts {
    /* hw_metrics.csv's fields when the caller knows them (hwmon); NULL: the start event's */
    const char *gpu_fields;
    double interval_s;   /* the gap rule's interval for a GPU of one row; 0: the start event's */
    double idle_pct;     /* a row at or below this utilization is idle (summarize's gpu_idle) */
    size_t max_line;     /* longest line (0: 1 MiB) */
    /* sees every entry of run.jsonl and every diagnostic after the state took it (may be
     * NULL); for a phase, recent[nrecent - 1] is that phase */
    const struct rd_sink *tap;
};

struct rd_live {
    bool opened;
    char dir[4096];
    int dirfd;                    /* -1 until the directory exists */
    struct rd_live_opts opts;
    struct rd_read_opts ropts;    /* what the readers were made with */
    char gpu_fields[1024];
    struct {
        int fd;                   /* -1 until the file exists */
        struct rd_reader *r;      /* NULL until it can be read (GPU files: the start event) */
        struct rd_quality q;
    } src[RD_LIVE_SRC_COUNT];
    struct rd_sink sink;
    struct rd_run_info info;      /* what run.jsonl's hwmon events say */
    uint64_t updates;
    uint64_t bytes;               /* read so far, all files */
    double t_first, t_last;       /* the first and latest time of any row or entry (NAN) */

    struct rd_live_gpu gpu[RD_MAX_GPUS];
    int ngpus;                    /* 1 + the highest GPU number seen */

    bool cpu_seen, proc_seen;
    double cpu_t, proc_t;
    double cpu[HW_CPU_COL_COUNT];
    double proc[HW_PROC_COL_COUNT];
    /* disk read/written, network received/sent: bytes so far (NAN never) and per second over
     * the latest row's interval (NAN until two rows) */
    double io_total[4], io_rate[4];

    uint64_t phases;              /* completed */
    uint64_t entries, events;     /* run.jsonl's entries, and events among them */
    struct rd_live_phase open[RD_LIVE_MAX_OPEN]; /* innermost last */
    int nopen;
    struct rd_live_phase recent[RD_LIVE_RECENT]; /* newest last */
    int nrecent;
    struct rd_live_name names[RD_LIVE_NAMES];
    int nnames;
    double steps;                 /* steps of the completed phases that said them */
    double step_rate;             /* steps per second of the latest phase with steps (NAN) */
};

/* GPU g's energy so far in joules by the summary's rule (rd_energy_pick): its counter's growth
 * once read twice, else its power integrated once measured; NAN before either. */
double rd_live_gpu_energy_j(const struct rd_live_gpu *g);

/* The four I/O counters of cpu_metrics.csv, in io_total's order. */
extern const enum hw_cpu_col rd_live_io_cols[4];

/* Set up l to follow dir (copied). opts may be NULL. Returns 0 or -ENOMEM / -ENAMETOOLONG. */
int rd_live_open(struct rd_live *l, const char *dir, const struct rd_live_opts *opts);
/* Read what the files gained. Returns 0, or -errno of a failed read (the state so far stays). */
int rd_live_update(struct rd_live *l);
void rd_live_close(struct rd_live *l); /* accepts a zeroed l */

/* The current phase: the innermost open one, else NULL. */
const struct rd_live_phase *rd_live_current(const struct rd_live *l);
/* The durations name had before (newest last), NULL when none is kept. */
const struct rd_live_name *rd_live_name(const struct rd_live *l, const char *name);
/* GPU g's mean utilization (power when power) in each of the RD_LIVE_HIST seconds ending with
 * second `now` (oldest first; NAN where no row fell). */
void rd_live_history(const struct rd_live_gpu *g, bool power, int64_t now,
                     double out[RD_LIVE_HIST]);
/* Whether the run has files at all (its directory and any file with data). */
static inline bool rd_live_started(const struct rd_live *l)
{
    return l->bytes > 0;
}

#endif
