/* The run's timeline for the HTML report: built in the same pass that computes the summary
 * (the sinks, sink.h, call sum_tl_* as they account each row; no file is read twice).
 *
 * Every series keeps, per time bucket, its first, last, minimum and maximum sample (so a
 * one-sample spike survives), the step from its source's previous sample to the bucket's first
 * (for the gap rule, decided at the end with the interval the summary settled on), and a sum and
 * count (means, for sparklines). The time range is not known until the end (a crashed run has
 * no stop event), so the buckets are anchored at the run's start (the start event, else the
 * first sample) and their width doubles, neighbours merging, whenever a sample falls beyond the
 * last one; a sample before the anchor shifts the buckets. Memory: 2 * cols buckets per series,
 * whatever the run's length.
 *
 * The energy series adds up the joules of every GPU's steps of the reading its energy is (the
 * counter, the instant power or the power field: rd_energy_pick), as the summary's energy_wh
 * does, and is drawn as energy so far. Events are kept as markers up
 * to SUM_TL_MAX_EVENTS (the summary keeps only counts and the error-like ones). */
#ifndef SUM_TIMELINE_H
#define SUM_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "energy.h"
#include "readers.h"

#define SUM_TL_MAX_GPUS 64
#define SUM_TL_MAX_EVENTS 4096 /* markers kept; the rest are counted */
#define SUM_TL_NAME 64         /* an event marker's name is cut (at a character) to this */

/* Per-GPU series. */
enum sum_tl_gser {
    SUM_TL_UTIL,
    SUM_TL_MEMUTIL,
    SUM_TL_MEMUSED,
    SUM_TL_MEMTOTAL,
    SUM_TL_POWER,
    SUM_TL_CLOCK,
    SUM_TL_SMACT,  /* GPM (hw_gpm.csv) */
    SUM_TL_TENSOR, /* GPM */
    SUM_TL_CAPPED, /* 1 while a power or thermal reason held the clocks (hw_health.csv), else 0 */
    SUM_TL_GCOUNT
};

/* Series of the whole run. */
enum sum_tl_oser {
    SUM_TL_ENERGY, /* Wh so far, every GPU */
    SUM_TL_USR,
    SUM_TL_SYS,
    SUM_TL_IOWAIT,
    SUM_TL_RSS,
    SUM_TL_PCPU,
    SUM_TL_CGMEM,
    SUM_TL_CGMAX,
    SUM_TL_DISKR, /* disk and network rates (MiB/s, sum_io_rate_mib_s) */
    SUM_TL_DISKW,
    SUM_TL_NETRX,
    SUM_TL_NETTX,
    SUM_TL_SPARK, /* GPU utilization of every GPU (the sweep's sparkline) */
    SUM_TL_OCOUNT
};

#define SUM_TL_BRK 1u       /* a not-measured sample came before the first of this bucket */
#define SUM_TL_MIN_FIRST 2u /* the minimum came before the maximum */

struct sum_tl_col {
    float first, last, min, max;
    float step; /* seconds from the source's previous sample to the first (NAN: none) */
    uint32_t n;
    double sum;
    uint8_t flags;
};

struct sum_tl_series {
    struct sum_tl_col *cols; /* nb buckets, allocated at the first sample */
    bool brk;                /* a not-measured sample: the next one starts a new segment */
    bool any;
    double vmin, vmax;
};

struct sum_tl_gpu {
    struct sum_tl_series s[SUM_TL_GCOUNT];
    enum hw_file from[SUM_TL_GCOUNT]; /* the file each series came from */
    double last_t[HW_FILE_COUNT];     /* this GPU's previous row in each file (NAN: none) */
    /* the joules of its steps of each energy reading, and each one's previous step */
    struct sum_tl_series ej[RD_ER_COUNT];
    double ej_last_t[RD_ER_COUNT];
};

struct sum_tl_event {
    double t;
    char name[SUM_TL_NAME];
    bool bad; /* error-like (sum_event_error_like) */
};

struct sum_timeline {
    int cols;            /* pixel columns asked for */
    int nb;              /* buckets: 2 * cols */
    bool spark_only;     /* only SUM_TL_SPARK (a sweep row) */
    double anchor;       /* time of bucket 0's start (NAN until the first time) */
    double width;        /* seconds per bucket */
    int hi;              /* highest bucket used (-1: none) */
    double t_lo, t_hi;   /* the times placed (NAN: none) */
    unsigned have_query; /* SUM_TL_* bits hw_metrics.csv measured (dmon stands in for others) */
    struct sum_tl_gpu *gpu[SUM_TL_MAX_GPUS];
    struct sum_tl_series os[SUM_TL_OCOUNT];
    double host_last_t[HW_FILE_COUNT];
    double io_last_t;     /* the disk and network series' previous row */
    struct sum_tl_event *ev;
    size_t nev, ev_cap;
    uint64_t ev_dropped;
    uint64_t out_of_range; /* samples far from the rest of the run (a bad clock): not placed */
    bool oom;
    char command[400]; /* the start event's data.command, joined by spaces */
};

/* A timeline of cols pixel columns (>= 1); NULL on ENOMEM. */
struct sum_timeline *sum_tl_new(int cols, bool spark_only);
void sum_tl_free(struct sum_timeline *tl); /* accepts NULL */

/* The hooks the sinks call while they account the rows, in file order. */
void sum_tl_event(struct sum_timeline *tl, const struct rd_event *e);
void sum_tl_gpu_row(struct sum_timeline *tl, const struct rd_gpu_row *r);
/* hw_dmon.csv (kind HW_FILE_DMON: stands in for what hw_metrics.csv never measured) or
 * hw_gpm.csv (HW_FILE_GPM: SM and tensor activity). */
void sum_tl_dmon_row(struct sum_timeline *tl, enum hw_file kind, const struct rd_dmon_row *r);
void sum_tl_cpu_row(struct sum_timeline *tl, const struct rd_cpu_row *r);
/* A hw_health.csv row of GPU gpu at t: capped 1 (a power or thermal reason was active), 0, or
 * NAN (not measured); the HTML shades the capped time. */
void sum_tl_health_row(struct sum_timeline *tl, int gpu, double t, double capped);
void sum_tl_proc_row(struct sum_timeline *tl, const struct rd_proc_row *r);
/* A cpu_metrics.csv row's disk and network bytes (SUM_IO_*, NAN unmeasured) over the dt seconds
 * before it, as the summary counts them (system.h): drawn as rates. */
void sum_tl_io(struct sum_timeline *tl, double t, const double bytes[4], double dt);
/* GPU gpu's step of one energy reading that ended at t, and the joules the energy rule counted
 * for it (0 when it did not bridge it). */
void sum_tl_energy(struct sum_timeline *tl, int gpu, enum rd_ereading r, double t, double joules);
/* After the last row: the energy series becomes the energy so far, in Wh, bucket by bucket: the
 * sum of each GPU's steps of the reading pick[gpu] (RD_ER_COUNT: none) up to each bucket. It
 * never falls, also while a GPU's first rows wait for its interval and are taken late. */
void sum_tl_finish(struct sum_timeline *tl, const enum rd_ereading pick[SUM_TL_MAX_GPUS]);

/* Bucket b's time span starts at sum_tl_bucket_t(tl, b); each lasts tl->width. */
static inline double sum_tl_bucket_t(const struct sum_timeline *tl, int b)
{
    return tl->anchor + b * tl->width;
}

/* Merge bucket src into dst (dst earlier in time, or empty). */
void sum_tl_col_merge(struct sum_tl_col *dst, const struct sum_tl_col *src);

#endif
