/* Prometheus export (--prom-textfile): every few seconds, and once at stop, hwmon writes the
 * latest values of its run in the text exposition format into a file that node_exporter's
 * textfile collector serves. The values come from the files hwmon already writes: each export
 * reads only what was appended since the last one, through the run directory's streaming readers
 * (summarize/rundir/, the one parser of those files), so the sampler and the children pay
 * nothing, and memory stays constant. The file is replaced atomically (temp file + rename),
 * never seen half written.
 *
 * Runs on hwmon's main thread. Functions return 0 or a negative errno and never print. */
#ifndef HWMON_PROM_H
#define HWMON_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwrun/rundir.h"
#include "hwrun/io.h"
#include "readers.h"
#include "energy.h" /* struct sum_energy */

#define MON_PROM_MAX_GPUS 64
#define MON_PROM_DEFAULT_INTERVAL_S 10.0

/* The run's files the export follows. */
enum mon_prom_src { PROM_SRC_GPU, PROM_SRC_GPM, PROM_SRC_CPU, PROM_SRC_PROC, PROM_SRC_LOG,
                    PROM_SRC_COUNT };

struct mon_prom_gpu {
    bool seen;
    double v[SUM_GM_COUNT];  /* latest row; NAN = not measured */
    double gpm[HW_GPM_NCOLS]; /* latest GPM row, percent */
    bool gpm_seen;
    struct sum_energy energy; /* summarize's curve and rule (sum_energy_add) */
};

/* Counters hwmon itself keeps (sampler and children). */
struct mon_prom_counters {
    uint64_t samples, skipped_slots, child_restarts;
    bool running; /* false for the last write, at stop */
};

#define MON_PROM_MAX_OPEN 16

struct mon_prom {
    char path[4096];          /* the .prom file */
    char run[256], host[256], command[256]; /* label values (raw; escaped when written) */
    double interval_s;        /* hwmon's -i: the gap rule's interval for a GPU of one row */
    struct sum_read_opts opts;
    char gpu_fields[1024];
    struct {
        char path[4096];
        int fd;               /* -1 until the file exists */
        struct sum_reader *r;
        struct sum_quality q;
    } src[PROM_SRC_COUNT];
    struct sum_sink sink;
    int cur;                  /* the source being fed */
    struct mon_prom_gpu gpu[MON_PROM_MAX_GPUS];
    double cpu[SUM_CPU_COUNT];
    double io_total[4]; /* disk read/written, network received/sent bytes so far; NAN never */
    double proc[SUM_PROC_COUNT];
    bool cpu_seen, proc_seen;
    char phase[256];          /* last completed phase, "" before the first */
    uint64_t phases;
    /* phases begun and not ended, innermost last (the deepest MON_PROM_MAX_OPEN) */
    struct {
        char id[40];
        char name[256];
    } open[MON_PROM_MAX_OPEN];
    int nopen;
    char chunk[65536];
    struct hw_buf out;
    uint64_t writes;
};

/* Where the file goes: target itself, or, when target is a directory, target/hwrun_<run>.prom
 * (run = the run directory's name, with anything but [A-Za-z0-9_.-] made '_'). Fills p->path;
 * returns 0, -ENAMETOOLONG, or -errno of stat(2) other than ENOENT. */
int mon_prom_resolve(struct mon_prom *p, const char *target, const char *run_dir);

/* Set up an export of run_dir into p->path (mon_prom_resolve first). gpu_fields: the
 * --query-gpu list of hw_metrics.csv; command: the wrapped command's argv[0] or NULL. All
 * strings are copied. Returns 0 or -ENOMEM (p is then freed). */
int mon_prom_open(struct mon_prom *p, const char *run_dir, const char *gpu_fields,
                  double interval_s, const char *host, const char *command);

/* Read what the files gained since the last call and write the exposition file. Returns 0 or
 * -errno of the write (the previous file stays in place). */
int mon_prom_update(struct mon_prom *p, const struct mon_prom_counters *c);

/* Format the exposition text of the current values into out (for tests and the benchmark). */
void mon_prom_format(const struct mon_prom *p, const struct mon_prom_counters *c,
                     struct hw_buf *out);

/* Close the files and readers. Accepts a p that was never opened (zeroed). */
void mon_prom_close(struct mon_prom *p);

/* Append s as a Prometheus label value (without quotes): backslash, double quote and newline
 * escaped as \\, \" and \n. */
void mon_prom_label_value(struct hw_buf *b, const char *s);

#endif
