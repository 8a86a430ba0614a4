/* Prometheus export (--prom-textfile): every few seconds hwmon writes the latest values of its
 * run in the text exposition format into a file of its own that node_exporter's textfile
 * collector serves, and removes it at stop; files of killed hwmons are swept. The values come
 * from the files hwmon already writes, followed by the run directory's live state
 * (runlog/rundir/live.h: each export reads only what was appended since the last one, through
 * the one parser of those files), so the sampler and the children pay nothing, and memory stays
 * constant. This file only formats that state. The file is replaced atomically (temp file + rename),
 * never seen half written.
 *
 * Runs on hwmon's main thread. Functions return 0 or a negative errno and never print. */
#ifndef HWMON_PROM_H
#define HWMON_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "context.h"
#include "hwrun/rundir.h"
#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "live.h"

#define MON_PROM_DEFAULT_INTERVAL_S 10.0

/* Counters hwmon itself keeps (sampler and children). */
struct mon_prom_counters {
    uint64_t samples, skipped_slots, child_restarts;
    /* rows not written (a full disk), by enum hw_file: the stop event's samples_lost; a series
     * for each file hwmon writes itself (HW_RUN_FILES' HWMON), labelled by its stem */
    uint64_t lost[HW_FILE_COUNT];
};

/* Who writes an export file: its first line, a comment the text format ignores
 * ("# hwrun-owner pid=P start=T boot=B pidns=N interval=S host=H"), lets the next hwmon on the
 * node tell a file of a live run from one a killed hwmon left behind. */
struct mon_prom_owner {
    pid_t pid;
    uint64_t start;      /* the process's start time (/proc/PID/stat), against pid reuse */
    char boot[40];       /* /proc/sys/kernel/random/boot_id: which boot of which kernel */
    uint64_t pidns;      /* the inode of /proc/self/ns/pid: where pid means something */
    double interval_s;   /* --prom-interval: how often the owner rewrites the file */
    char host[65];
};

/* A file not rewritten for MON_PROM_STALE_INTERVALS of its owner's intervals plus
 * MON_PROM_STALE_SLACK_S seconds is stale, whoever wrote it. */
#define MON_PROM_STALE_INTERVALS 3
#define MON_PROM_STALE_SLACK_S 30

struct mon_prom {
    char path[4096];          /* the .prom file */
    char run[256], host[256], command[256]; /* label values (raw; escaped when written); run
                                             * is on every series: one value per live run */
    char run_label[1024];     /* run escaped as a label value, once (mon_prom_open) */
    /* hwrun_run_info's labels of where the run runs (mon_prom_set_context), "" when not set */
    struct mon_context ctx;
    struct mon_prom_owner me; /* this hwmon, as its file's first line says (mon_prom_claim) */
    char owner_line[256];
    bool claimed;
    /* the run's files followed into latest values, energy and phases (the live state
     * summarize --live prints too) */
    struct rd_live live;
    struct hw_buf out;
    uint64_t writes;
};

/* Where the file goes: target itself, or, when target is a directory, target/hwrun_<run>.prom
 * (run = the run directory's name, with anything but [A-Za-z0-9_.-] made '_'). Fills p->path
 * and p->run; returns 0, -ENAMETOOLONG, or -errno of stat(2) other than ENOENT. */
int mon_prom_resolve(struct mon_prom *p, const char *target, const char *run_dir);

/* This process as an owner (pid, start time, boot, PID namespace, host). Returns 0 or -errno. */
int mon_prom_owner_self(struct mon_prom_owner *o, double interval_s);

/* Make p->path this run's own file: created exclusively (O_EXCL, no link followed, the umask
 * kept) with the owner line, after removing a stale file of that name (mon_prom_is_stale).
 * When a live run (or a file not ours to judge) has the name, the next free of <stem>-2.prom,
 * <stem>-3.prom, ... is taken, and the run label gets the same -N: two runs whose directories
 * share a name still have series of their own. Returns 0 or -errno. */
int mon_prom_claim(struct mon_prom *p, const struct mon_prom_owner *me);

/* Whether the export file of owner o, last modified at mtime (seconds, the file system's
 * clock), is stale as judged by me at now (seconds): the same kernel boot and PID namespace and
 * o's process gone (or its pid reused); another boot of the same host; or not rewritten for
 * MON_PROM_STALE_INTERVALS of o's intervals plus MON_PROM_STALE_SLACK_S. */
bool mon_prom_is_stale(const struct mon_prom_owner *o, double mtime, const struct mon_prom_owner *me,
                       double now);

/* Read the owner line at the start of text; false when there is none. */
bool mon_prom_owner_parse(const char *text, struct mon_prom_owner *o);

/* Remove the stale hwrun exports (files named hwrun_*.prom with an owner line) from the
 * directory of p->path, never p's own file. Returns how many were removed. */
int mon_prom_sweep(const struct mon_prom *p, double now);

/* At stop: remove p's file if it is still p's (another hwmon may have judged it stale and taken
 * the name). Returns 0 or -errno. */
int mon_prom_remove(struct mon_prom *p);

/* Set up an export of run_dir into p->path (mon_prom_resolve first). gpu_fields: the
 * --query-gpu list of hw_metrics.csv; command: the wrapped command's argv[0] or NULL. All
 * strings are copied. Returns 0 or -ENOMEM (p is then freed). */
int mon_prom_open(struct mon_prom *p, const char *run_dir, const char *gpu_fields,
                  double interval_s, const char *host, const char *command);
/* (mon_prom_resolve, mon_prom_claim, then mon_prom_open: the run label is the claimed one.) */

/* The run's context (context.h): hwrun_run_info gets the SLURM job
 * and array task, the pod and namespace and the rank as labels, to join a fleet's series with
 * the scheduler's (one value per run: bounded). */
void mon_prom_set_context(struct mon_prom *p, const struct mon_context *c);

/* Read what the files gained since the last call and write the exposition file (after the
 * owner line when claimed), with now (wall clock, seconds) as hwrun_export_timestamp_seconds.
 * Returns 0 or -errno of the write (the previous file stays in place). */
int mon_prom_update(struct mon_prom *p, const struct mon_prom_counters *c, double now);

/* Format the exposition text of the current values into out (for tests and the benchmark). */
void mon_prom_format(const struct mon_prom *p, const struct mon_prom_counters *c, double now,
                     struct hw_buf *out);

/* Close the files and readers. Accepts a p that was never opened (zeroed). */
void mon_prom_close(struct mon_prom *p);

/* Append s as a Prometheus label value (without quotes): backslash, double quote and newline
 * escaped as \\, \" and \n. */
void mon_prom_label_value(struct hw_buf *b, const char *s);

#endif
