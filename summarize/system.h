/* The machine and the container over a run and over each phase, from cpu_metrics.csv
 * (hwmon/FORMAT.md): disk and network traffic (totals and the busiest interval's rate), the
 * least free space, and the container's memory peak and limit. One accumulator per run and per
 * phase; the summary pass feeds it and every output prints what it holds. */
#ifndef SUM_SYSTEM_H
#define SUM_SYSTEM_H

#include <math.h>
#include <stdbool.h>

enum { SUM_IO_DISK_READ, SUM_IO_DISK_WRITE, SUM_IO_NET_RX, SUM_IO_NET_TX, SUM_IO_COUNT };
/* The node's disk and network counters, one entry each (system.c): every output iterates it,
 * and test_summarize.system.io_table requires every member of every entry. */
struct sum_io_def {
    const char *mib_key;     /* summary.json's and the sweep rows' name: "disk_read_mib" */
    const char *peak_key;    /* "disk_read_peak_mib_s" */
    const char *mib_what;    /* what they mean (--columns) */
    const char *peak_what;
    const char *mib_words;   /* their labels for people: "node disk read" */
    const char *peak_words;  /* "node disk read peak" */
    const char *text_run;    /* the text report's run line: "  node I/O: disks read " */
    const char *text_system; /* its phase lines: "disks: read " */
};
extern const struct sum_io_def sum_io_defs[SUM_IO_COUNT];

struct sum_system {
    double bytes[SUM_IO_COUNT];      /* total; NAN until a row measured it */
    double peak_mib_s[SUM_IO_COUNT]; /* the highest rate of one interval, MiB/s; NAN unknown */
    double fs_free_min_mib;          /* NAN: never measured */
    double mem_sampled_mib;          /* highest cgroup_mem_current_mib */
    double mem_kernel_mib;           /* highest cgroup_mem_peak_mib reached within the span */
    double mem_limit_mib;            /* cgroup_mem_max_mib of the last row that had one */
};

void sum_system_init(struct sum_system *s);

/* An interval's rate in MiB/s from its bytes and its length: the one rule of the summary's
 * peaks and the HTML report's charts. NAN when unmeasured or the length is not known. */
static inline double sum_io_rate_mib_s(double bytes, double dt)
{
    return dt > 0 && bytes >= 0 ? bytes / dt / 1048576.0 : (double)NAN;
}

/* A row's traffic: bytes[i] (NAN unmeasured) over the interval of dt seconds before it (NAN
 * when not known: then no rate), share = the part of that interval inside the span (1 for the
 * run). */
void sum_system_traffic(struct sum_system *s, const double bytes[SUM_IO_COUNT], double dt,
                        double share);
/* A row's point figures: free space, cgroup memory now, the kernel's peak when it rose at this
 * row (NAN otherwise: a peak reached before the span is not the span's), the limit. */
void sum_system_point(struct sum_system *s, double fs_free_mib, double mem_cur_mib,
                      double kernel_peak_mib, double limit_mib);

/* Total in MiB, and the peak rate in MiB/s (NAN when not measured). */
double sum_system_mib(const struct sum_system *s, int io);
double sum_system_peak_mib_s(const struct sum_system *s, int io);
/* The container's memory peak: max(the kernel's peak reached in the span, the highest sampled
 * usage); *source (if source) is "kernel" when the kernel's counter saw more than any sample,
 * "sampled" otherwise, NULL when never measured. NAN when never measured. */
double sum_system_mem_peak(const struct sum_system *s, const char **source);

#endif
