/* Phases by name: a training loop logs `step` 10 000 times and `eval` 40 times; these are
 * the figures of each name over all its entries (as gpu_tracker's sub-tracking analysis):
 * count, durations (total, mean, min, max, std) and the samples and energy of the union of its
 * windows. Every phase counts, also those beyond SUM_MAX_PHASES that get no entry of their
 * own. The windows are indexed once run.jsonl is read (ivindex.h), so a sample costs
 * O(log windows + windows it falls in), whatever the number of phases. */
#ifndef SUM_PHASENAMES_H
#define SUM_PHASENAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ecount.h"
#include "ivindex.h"
#include "stats.h"

#define SUM_NAME_MAX_GPUS 64 /* RD_MAX_GPUS */

/* One GPU's energy inside a name's windows, each reading apart (joules; seen: a step of it met
 * a window), so that the name's energy takes the reading a phase of it would. */
struct sum_name_energy {
    double j[RD_ER_COUNT];
    bool seen[RD_ER_COUNT];
};

#define SUM_MAX_PHASE_NAMES 1024         /* names beyond this are counted, not summarized */
/* Separate windows kept for sample figures (a name's entries that follow each other or overlap
 * are one window): about 140 bytes each with their index, so 150 MB at most (measured: 1 million
 * entries of 10 names taking turns, 145 MB; 1 million of one name back to back, 16 MB). */
#define SUM_MAX_PHASE_WINDOWS (1u << 20)
#define SUM_PHASE_TS_RES 0.002 /* ts and seconds are each rounded to the ms */

struct sum_name_acc {
    char *name;
    uint64_t count;       /* entries */
    uint64_t failed;      /* entries that failed (outcome.h) */
    uint64_t overlapping; /* entries that began before an earlier one of this name ended */
    uint64_t kept;        /* entries summarized one by one too (sum_run.phase) */
    uint64_t timed;       /* entries with a duration */
    double d_sum, d_mean, d_m2, d_min, d_max; /* durations in s (Welford's mean and M2) */
    double span_s;                            /* the length of the union of its windows */
    /* samples inside the union of its windows, each counted once however many entries
     * overlap there; GPU figures over every GPU's rows */
    struct sum_stat util, mem_used, power, cpu_usr, proc_cpu, proc_rss;
    /* [SUM_NAME_MAX_GPUS]: each GPU's energy over the union, made when a step first met a
     * window (NULL: none did); sum_name_energy_wh picks the reading */
    struct sum_name_energy *energy;
    size_t last_win;  /* its latest window in sum_names.win, + 1 (0: none) */
};

/* A stretch of one name's entries (those that follow each other or overlap): after
 * sum_names_index, sorted by name, then start, each name's windows apart (the HTML page draws
 * them: a name's band). */
struct sum_win {
    double t0, t1;
    uint32_t name; /* index in sum_names.v */
    uint32_t n;    /* the entries in it (UINT32_MAX: at least) */
};

struct sum_names {
    struct sum_name_acc *v; /* in first-seen order */
    size_t n, cap;
    uint32_t *slot; /* open-addressing table of index + 1 */
    size_t nslot;
    uint64_t names_dropped;   /* entries whose name found no room */
    uint64_t windows_dropped; /* entries beyond SUM_MAX_PHASE_WINDOWS: counted, no samples */
    struct sum_win *win;      /* every window; after sum_names_index the merged ones */
    size_t nwin, wcap;
    struct sum_ivx ivx; /* over the merged windows */
};

/* A phase entry of name over [t0, t1] (epoch seconds; NaN: unknown) that says it took seconds
 * (NaN: not said, then t1 - t0); its name's figures (NULL when the name found no room). */
struct sum_name_acc *sum_names_add(struct sum_names *s, const char *name, double t0, double t1,
                                   double seconds, bool failed);
/* After the last entry: merge each name's windows into their union and index them. */
void sum_names_index(struct sum_names *s);
/* A sample at time t: a GPU row's utilization, memory used and power; a cpu_metrics.csv
 * row's usr %; a proc_metrics.csv row's RSS and CPU. NaN values are not measured. */
void sum_names_gpu_at(struct sum_names *s, double t, double util, double mem_used, double power);
/* The CPU figures cover a row's interval (a, b]: each name's windows get them weighted by the
 * time they share with it (sum_stat_add_w), as a phase does. */
void sum_names_cpu_at(struct sum_names *s, double a, double b, double usr);
void sum_names_proc_at(struct sum_names *s, double t, double rss, double a, double b, double cpu);
/* A bridged step of GPU g's power (reading RD_ER_INSTANT or RD_ER_INTEGRATED) from (t1, p1)
 * to (t2, p2): its energy inside each name's windows, power interpolated linearly. */
void sum_names_energy_at(struct sum_names *s, int g, enum rd_ereading r, double t1, double p1,
                         double t2, double p2);
/* A step of GPU g's energy counter: its share inside each name's windows (sum_ecount_part). */
void sum_names_counter_at(struct sum_names *s, int g, const struct sum_ecount_step *step);

/* Whether any name has a window. Most runs have no phases: a caller on every sample tests
 * this first, and a sample then costs a test, not a call. */
static inline bool sum_names_any(const struct sum_names *s)
{
    return s->ivx.n != 0;
}
/* Phases open until the run's end have windows ending at INFINITY while the files are read;
 * once the end is known: a name's open entry took d seconds, and every such window ends at
 * t_end. */
void sum_names_end_open(struct sum_names *s, const char *name, double d);
void sum_names_end_windows(struct sum_names *s, double t_end);
/* The time within [a, b] inside any phase of any name (the union of every window). */
double sum_names_covered(const struct sum_names *s, double a, double b);
void sum_names_free(struct sum_names *s);
/* The figures of name; NULL when no entry had it (or it found no room). */
const struct sum_name_acc *sum_names_find(const struct sum_names *s, const char *name);

/* Figures of one name: seconds.std is the population standard deviation (0 for one entry);
 * NAN when unmeasured. */
double sum_name_mean_s(const struct sum_name_acc *a);
double sum_name_std_s(const struct sum_name_acc *a);
/* (A name's energy, by the phases' rule, is sum_name_energy_wh in summary.h: it needs the
 * run's counters.) */

#endif
