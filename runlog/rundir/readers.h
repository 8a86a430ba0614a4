/* Streaming readers for the files of a run directory (DESIGN.md "The run directory",
 * hwmon/FORMAT.md).
 *
 * Every reader takes bytes in chunks (from a file or from memory), splits them into lines, parses
 * each line and hands one typed row to a sink: a struct of callbacks plus a context pointer. A
 * reader keeps no rows: its memory is bounded by the longest line it accepts (opts.max_line)
 * whatever the file size. Two consumers use this: the summary (summarize/runread.c and its sinks, whose one
 * pass also builds the HTML report's timeline) and hwmon's Prometheus export (hwmon/prom.c),
 * which follows the files as they grow. The sources, one per layer, are listed in reader_int.h.
 *
 * Usage:
 *     struct rd_sink sink = { .ctx = me, .gpu = on_gpu, .diag = on_bad_line };
 *     struct rd_quality q;
 *     int rc = rd_read_file(HW_FILE_GPU, "run/hw_metrics.csv", &opts, &sink, &q);
 *
 * or push bytes yourself (tests, fuzzers):
 *     struct rd_reader *r = rd_reader_new(HW_FILE_DMON, "hw_dmon.csv", &opts, &sink, &q);
 *     rd_reader_feed(r, buf, n); ... rd_reader_finish(r); rd_reader_free(r);
 *
 * Conventions for every row type:
 * - times are seconds since the epoch, UTC (nvidia-smi's local times are converted with
 *   opts.tz); NAN when the file has no time column;
 * - a metric that was not measured (placeholder cell, `-`, empty cell, missing column) is NAN;
 *   one placeholder never drops the rest of its row;
 * - strings in rows are borrowed: valid only during the callback, not NUL-terminated unless said;
 * - `line` is the 1-based line number in the file.
 * Lines that cannot be used are skipped, counted in struct rd_quality by reason and reported
 * through sink->diag; nothing is fatal except failing to open or read the file. A last line
 * without '\n' is "not yet written": it is not parsed and is counted apart (quality.partial_*).
 */
#ifndef RD_READERS_H
#define RD_READERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwrun/rundir.h"

struct json_object;

/* ---- time zone of nvidia-smi timestamps (smi_time.c) ------------------------------------ */

enum rd_tz_kind {
    RD_TZ_UTC,
    RD_TZ_FIXED, /* a fixed offset east of UTC */
    RD_TZ_NAMED, /* a zone name, resolved with the process's TZ (set by the CLI, see below) */
};

struct rd_tz {
    enum rd_tz_kind kind;
    long offset_s;  /* RD_TZ_FIXED: seconds east of UTC */
    char name[64];  /* as given: "UTC", "+05:30", "Europe/Paris" */
};

/* Parse "UTC" (also "Z", "GMT", "utc"), a fixed offset ("+05:30", "-0800", "+05", "UTC+01:00")
 * or, when allow_named, a zone name that exists under /usr/share/zoneinfo. A named zone is
 * resolved through mktime(3), so the caller must setenv("TZ", name) and tzset() before reading
 * (the CLI does that once, before starting threads). Returns 0 or -EINVAL; *out untouched on
 * failure. */
int rd_tz_parse(const char *s, bool allow_named, struct rd_tz *out);

/* Convert a local civil time in tz to seconds since the epoch (UTC). */
double rd_tz_to_utc(const struct rd_tz *tz, int year, int mon, int day, int hour, int min,
                     double sec);

/* ---- what the readers produce ------------------------------------------------------------- */

/* A --query-gpu row's figures (hw_metrics.csv) are indexed by hwrun/rundir.h's enum
 * hw_gpu_metric (hw_gpu_figs[] says each one's field, unit and other names); loops go to
 * HW_GPU_FIG_COUNT. */
#define RD_MAX_GPUS 64 /* GPU numbers 0 to 63 are summarized; rows of others are counted */

/* The field hw_metrics.csv's power comes from, for a --query-gpu field list (NULL: hwmon's
 * default list): "power.draw", else "power.draw.instant", else "power.draw.average" (the
 * reader's preference); NULL when the list has none. */
const char *rd_gpu_power_field(const char *fields);

/* How a row's GPU number was found. */
enum rd_gpu_id {
    RD_GPU_ID_INDEX,    /* from the index column */
    RD_GPU_ID_UUID,     /* order of first appearance of its uuid */
    RD_GPU_ID_POSITION, /* position within the block of rows sharing one timestamp */
    RD_GPU_ID_NONE,     /* nothing to tell GPUs apart: always 0 */
};

struct rd_gpu_row {
    double t;                  /* NAN without a timestamp column */
    int gpu;                   /* GPU number, >= 0 (see id_from) */
    enum rd_gpu_id id_from;
    const char *uuid;          /* NUL-terminated, NULL without a uuid column or value */
    double v[HW_GPU_FIG_COUNT];    /* NAN = not measured */
    uint64_t line;
    /* a cell said a GPU fault in nvidia-smi's words (enum hw_gpu_fault, 0 none): every v[] is
     * then NAN (a GPU that requires a reset still reads memory.used 0 MiB; it measured none) */
    int fault;
};

/* Columns of `nvidia-smi dmon` that have a meaning for us; others are still in names/vals. */
enum rd_dmon_col {
    RD_DM_PWR, RD_DM_GTEMP, RD_DM_MTEMP, RD_DM_SM, RD_DM_MEM, RD_DM_ENC, RD_DM_DEC,
    RD_DM_JPG, RD_DM_OFA, RD_DM_MCLK, RD_DM_PCLK, RD_DM_FB, RD_DM_BAR1, RD_DM_CCPM,
    RD_DM_RXPCI, RD_DM_TXPCI,
    /* GPM activity (hw_gpm.csv; hwrun/rundir.h), in HW_GPM_COLUMNS order */
    RD_DM_GRACT, RD_DM_SMUTIL, RD_DM_SMOCC, RD_DM_MMAACT, RD_DM_DRAM, RD_DM_FP64,
    RD_DM_FP32, RD_DM_FP16,
    RD_DM_COUNT
};
#define RD_DM_GPM_FIRST RD_DM_GRACT
extern const char *const rd_dmon_col_names[RD_DM_COUNT]; /* dmon's labels: "pwr", "sm", ... */

struct rd_dmon_row {
    double t;                /* from -o D/T columns (Date+Time; Time alone has no date: NAN) */
    int gpu;                 /* the gpu/Idx column; -1 if absent */
    double v[RD_DM_COUNT];  /* NAN = absent column or `-` */
    size_t ncols;            /* every column of the current header, in order: */
    const char *const *names;/*   its label ("gpu", "pwr", "gract", ...) */
    const double *vals;      /*   its value, NAN for `-` or non-numeric */
    uint64_t line;
};

/* cpu_metrics.csv (FORMAT.md), columns by header name: v[] is indexed by enum hw_cpu_col, the
 * table hwmon writes the header from (hwrun/rundir.h's hw_cpu_cols[]). */
struct rd_cpu_row {
    double t;
    double v[HW_CPU_COL_COUNT];
    uint64_t line;
    bool edge; /* an edge sample's row (HW_COL_EDGE): not one of the cadence's */
};

/* proc_metrics.csv (FORMAT.md), columns by header name: v[] is indexed by enum hw_proc_col
 * (hwrun/rundir.h's hw_proc_cols[]). */
struct rd_proc_row {
    double t;
    double v[HW_PROC_COL_COUNT];
    uint64_t line;
    bool edge; /* as rd_cpu_row's */
};

/* gpu_procs.csv: --query-compute-apps rows. */
struct rd_gpu_proc_row {
    double t;              /* NAN without a timestamp column */
    const char *gpu_uuid;  /* NUL-terminated or NULL */
    long pid;              /* -1 if absent or unreadable */
    double used_mib;       /* NAN = not measured ([N/A] on Windows) */
    const char *name;      /* process name, NUL-terminated, may contain ", "; NULL if absent */
    uint64_t line;
};

/* tree_pids.csv (hwrun/rundir.h): pid joined (in_tree 1) or left (0) the process tree. */
/* A hw_health.csv row (hwrun/rundir.h's enum hw_health_col): numbers as read, pstate "P2" as
 * 2, the reasons bitmask as its value, Yes/No as 1/0; NAN where the column is absent or its
 * cell a placeholder. */
struct rd_health_row {
    double t;
    int gpu;
    double v[HW_HEALTH_COUNT];
    uint64_t line;
};

/* A hw_energy.csv row: GPU gpu's energy counter at t (NAN: not read), edge as in cpu rows. */
struct rd_energy_row {
    double t;
    int gpu; /* -1 if unreadable */
    double mj;
    bool edge;
    uint64_t line;
};

/* A hw_pmon.csv line: a process on GPU gpu at t (pid -1: the GPU's line of no process); its
 * SM and memory-controller shares in % and its framebuffer MiB, NAN where pmon printed "-". */
struct rd_pmon_row {
    double t;
    int gpu;
    long pid;
    double sm, mem, fb;
    uint64_t line;
};

struct rd_tree_pid_row {
    double t;
    long pid;    /* -1 if unreadable */
    int in_tree; /* 1, 0, or -1 if unreadable */
    uint64_t line;
};

/* run.jsonl: a completed phase, covering [t_start, t_end]. */
struct rd_phase {
    double t_end;                /* its "ts" (a begin entry: NAN) */
    double seconds;              /* its "seconds" (>= 0; a begin entry: NAN) */
    double t_start;              /* t_end - seconds (a begin entry: its "ts") */
    const char *name;            /* NUL-terminated */
    const char *id;              /* its "phase_id" (a string) pairing begin and end, or NULL */
    struct json_object *obj;     /* the whole line (borrowed: json_object_get to keep it) */
    uint64_t line;
};

/* run.jsonl: a point-in-time event. */
struct rd_event {
    double t;
    const char *name;            /* its "event", NUL-terminated */
    struct json_object *data;    /* its "data" or NULL (borrowed) */
    struct json_object *obj;     /* the whole line (borrowed) */
    uint64_t line;
};

/* Callbacks; any may be NULL. Called in file order. */
struct rd_sink {
    void *ctx;
    void (*gpu)(void *ctx, const struct rd_gpu_row *r);
    void (*dmon)(void *ctx, const struct rd_dmon_row *r);
    void (*cpu)(void *ctx, const struct rd_cpu_row *r);
    void (*proc)(void *ctx, const struct rd_proc_row *r);
    void (*gpu_proc)(void *ctx, const struct rd_gpu_proc_row *r);
    void (*phase)(void *ctx, const struct rd_phase *p);
    /* A phase's begin entry (runlog.h rl_phase_begin); its end is a phase with the same id. */
    void (*phase_begin)(void *ctx, const struct rd_phase *p);
    void (*event)(void *ctx, const struct rd_event *e);
    /* A line was skipped (or, line 0, a note about the file). name is the reader's file name. */
    void (*diag)(void *ctx, const char *name, uint64_t line, const char *reason);
    void (*tree_pid)(void *ctx, const struct rd_tree_pid_row *r);
    void (*health)(void *ctx, const struct rd_health_row *r);
    void (*energy)(void *ctx, const struct rd_energy_row *r);
    void (*pmon)(void *ctx, const struct rd_pmon_row *r);
};

/* Why a line was skipped. */
enum rd_skip {
    RD_SKIP_TOO_LONG,   /* longer than opts.max_line */
    RD_SKIP_CSV,        /* libcsv could not split it */
    RD_SKIP_CELLS,      /* cell count does not match the columns */
    RD_SKIP_LAYOUT,     /* no header, no field list, and a cell count that says nothing */
    RD_SKIP_TIMESTAMP,  /* its timestamp cell is not a timestamp */
    RD_SKIP_JSON,       /* not valid JSON */
    RD_SKIP_SHAPE,      /* valid JSON but not an entry (object with ts and type) */
    RD_SKIP_BINARY,     /* contains NUL bytes */
    RD_SKIP_COUNT
};
extern const char *const rd_skip_names[RD_SKIP_COUNT]; /* "too_long", "csv", ... */

#define RD_MAX_TOKENS 12
#define RD_MAX_RANGED 8 /* columns named in rd_quality.out_of_range; more are counted only */

/* What a GPU reading can mean. A number outside it is a driver's sentinel (0xFFFFFFFF, -1: the
 * "4294967295 %" of DCGM issue 199) or a glitch, never a figure: a bad cell. The bounds are what
 * no GPU reaches (16 TiB, 10 kW, 200 C, 100 GHz), not what a model's datasheet says. */
struct rd_range {
    double lo, hi;
};
#define RD_RANGE_PCT ((struct rd_range){0, 100})
#define RD_RANGE_MIB ((struct rd_range){0, 16777216})
#define RD_RANGE_W ((struct rd_range){0, 10000})
#define RD_RANGE_C ((struct rd_range){0, 200})
#define RD_RANGE_MHZ ((struct rd_range){0, 100000})
#define RD_RANGE_MBPS ((struct rd_range){0, 10000000})

/* What a reader saw in its file. Nothing is dropped without being counted here. */
struct rd_quality {
    bool present;               /* the file was read (set by rd_read_file) */
    uint64_t bytes;             /* bytes fed */
    uint64_t lines;             /* complete lines ('\n'-terminated; "\r\n" is one end) */
    uint64_t parsed;            /* lines that became a row/entry */
    uint64_t headers;           /* header and comment lines */
    uint64_t blank;             /* empty lines */
    uint64_t skipped[RD_SKIP_COUNT];
    uint64_t torn;              /* lines that began with a record a failed write cut short (a
                                 * full disk), with a whole one glued after it: the torn part is
                                 * lost, the whole record is read (and counted above as the line) */
    uint64_t bad_cells;         /* cells that should be numbers but are junk (not placeholders),
                                 * or numbers no reading can be (out_of_range) */
    struct {
        char column[24];        /* the figure's name ("util_pct", "sm", ...) */
        double value;           /* the first such number, and its line */
        uint64_t line, n;
    } out_of_range[RD_MAX_RANGED];
    size_t n_ranged;
    struct {
        char token[48];         /* "[N/A]", "[Not Supported]", "" (empty cell), nvidia-smi's
                                 * "[Requested functionality has been deprecated]" (45) */
        uint64_t n;
    } placeholders[RD_MAX_TOKENS];
    size_t n_tokens;
    uint64_t placeholders_other; /* tokens beyond RD_MAX_TOKENS distinct ones */
    uint64_t not_reported[HW_GPU_FIG_COUNT]; /* hw_metrics.csv: cells of a figure a board may not
                                  * have (HW_GF_MAY_NA: a fan) that said [N/A]: no placeholder */
    bool partial_last;           /* the file ends inside a line ("not yet written") */
    uint64_t partial_bytes;
    double mtime;                /* when it was last written (real time), set by rd_read_file */
    unsigned parts;              /* run.jsonl: earlier parts read first (a rotation, rotation.c);
                                  * the counts above are every part's together */
    bool oom;                    /* an allocation failed: lines may not have become rows
                                  * (rd_read_file then returns -ENOMEM) */
};
uint64_t rd_quality_skipped_total(const struct rd_quality *q);
uint64_t rd_quality_placeholders_total(const struct rd_quality *q);

/* ---- reading (dispatch.c, read_file.c; feeding: reader_core.c) -------------------------- */

/* A reader reads one kind of file: enum hw_file, named in hwrun/rundir.h's hw_file_names[]. */

/* HW_RUN_FILES's rules of kind k (hwrun/rundir.h). */
static inline bool rd_kind_placeholders_normal(enum hw_file k)
{
    return hw_run_files[k].placeholders_normal;
}
static inline bool rd_kind_optional(enum hw_file k)
{
    return hw_run_files[k].optional;
}

struct rd_read_opts {
    /* hw_metrics.csv without a header: its fields, comma-separated, as the start event's
     * gpu_query_fields (or the last gpu_fields_fallback's fields). NULL: a header line if the
     * file has one, else a row as wide as hwmon's default list or pytyche's is read as it. */
    const char *gpu_fields;
    /* gpu_procs.csv without a header: its fields; NULL: hwmon's
     * timestamp,gpu_uuid,pid,used_gpu_memory,process_name. */
    const char *gpu_procs_fields;
    struct rd_tz tz;  /* zone of nvidia-smi timestamps (zero-initialized: UTC) */
    size_t max_line;   /* longest line accepted; 0: 1 MiB */
    bool libcsv_only;  /* split every CSV line with libcsv, no fast path (the benchmark's
                        * baseline; the cells are the same) */
};

struct rd_reader;

/* A push reader for one file of the given kind. name is used in diagnostics (copied). opts and
 * sink may be NULL (defaults: UTC, 1 MiB lines; no callbacks); opts, sink and q must outlive the
 * reader; q is zeroed here. Returns NULL on ENOMEM. */
struct rd_reader *rd_reader_new(enum hw_file kind, const char *name,
                                  const struct rd_read_opts *opts, const struct rd_sink *sink,
                                  struct rd_quality *q);
/* Feed the next n bytes. Returns 0 or -ENOMEM. */
int rd_reader_feed(struct rd_reader *r, const void *buf, size_t n);
/* End of input: counts a partial last line (not parsed). Returns 0. */
int rd_reader_finish(struct rd_reader *r);
void rd_reader_free(struct rd_reader *r); /* accepts NULL */

/* What became of the run log a follower reads (fd, read up to its offset) under name in dirfd:
 * RD_LOG_SAME: the name reaches it still (or nothing yet: renamed or deleted, not made again);
 * RD_LOG_TRUNCATED: cut below the offset in place (copytruncate): fd is put back at 0;
 * RD_LOG_REPLACED: another regular file has the name: m->fd reads it from its start (the caller
 * reads the old one to its end first, then closes it). m->how (HW_LOG_HOW_*), m->previous (where
 * the old lines are: hw_fd_whereabouts) and m->bytes (the old offset) say what happened. */
enum { RD_LOG_SAME, RD_LOG_TRUNCATED, RD_LOG_REPLACED };
struct rd_log_move {
    const char *how, *previous;
    uint64_t bytes;
    int fd;
    char buf[4096];
};
int rd_log_moved(int dirfd, const char *name, int fd, struct rd_log_move *m);

/* run.jsonl's earlier parts, named at the head of the file open at fd (path's) by a
 * log_continued or log_rotated event, and at theirs: read into sink, oldest first, each under
 * its own name; their counts go into q, the lines they hold into *lines (the entries' line
 * numbers run on through the parts and into the file: rd_reader_set_line_base). Returns how
 * many. rd_read_file does this for run.jsonl. */
unsigned rd_log_read_parts(const char *path, int fd, const struct rd_read_opts *opts,
                           const struct rd_sink *sink, struct rd_quality *q, uint64_t *lines);
/* Entries' line numbers (rd_phase.line, rd_event.line) start after base: the log read as one,
 * its earlier parts first (`cat run.jsonl.1 run.jsonl`). Diagnostics keep the file's own. */
void rd_reader_set_line_base(struct rd_reader *r, uint64_t base);

/* Open path and feed it whole, in chunks. Returns 0, or -errno when it cannot be opened or read
 * (-ENOENT: absent, which callers usually treat as "no such data"). q->present is set when the
 * file was opened. */
int rd_read_file(enum hw_file kind, const char *path, const struct rd_read_opts *opts,
                  const struct rd_sink *sink, struct rd_quality *q);

/* ---- what run.jsonl says about the other files (runinfo.c) --------------------------------- */

#define RD_MAX_FS 32

struct rd_run_info {
    bool have_start;           /* hwmon's start event was seen */
    double t_start;            /* its ts (NAN if none) */
    double start_setup_s;      /* its data.setup_s: hwmon began that long before (NAN: not said) */
    double t_stop;             /* stop event's ts (NAN if none) */
    double stop_duration_s;    /* stop event's data.duration_s (NAN if none) */
    double main_peak_kernel_mib; /* stop event's main_peak_rss_kib in MiB (NAN if none) */
    double cpu_s;              /* stop event's cpu_s (NAN if none) */
    double interval_s;         /* start event's data.interval_s (NAN if none) */
    bool have_tz;              /* data.smi_tz was present and understood */
    struct rd_tz tz;
    char smi_tz_raw[64];       /* data.smi_tz as given (even when not understood) */
    bool have_fields;
    char gpu_fields[1024];     /* gpu_query_fields, or the last gpu_fields_fallback's fields */
    uint64_t child_restarts;   /* child_restart events */
    int64_t samples_lost;      /* the stop events' samples_lost, its files' added up: rows
                                * taken whose write failed (-1: no stop said it) */
    int64_t lost_rows[HW_FILE_COUNT]; /* the same by file (enum hw_file, the keys' stems) */
    uint64_t starts;           /* hwmon start events: more than one means several runs were
                                * written into one directory, and their figures are mixed */
    int pid_ns;                /* start event's pid_namespace: 0 not said, 1 init, 2 other */
    long pid;                  /* start event's pid: the tracked process (0: not said) */
    int descendants;           /* start event's descendants: -1 not said, 0 not tracked, 1 */
    double cpus_allowed;       /* start event's cpus_allowed (hwrun/rundir.h; NAN if none) */
    /* the machine, as the start event says: host ("" if none), online CPUs and GPUs (NAN) */
    char host[256];
    char mode[16]; /* the start event's mode: "wrap", "attach", "system" ("" if not said) */
    double cpus, gpus;
    /* each GPU's model and vendor ("nvidia", "amd") by index, as the start event's gpus say
     * ("" when not said; an entry without vendor is nvidia-smi's) */
    char gpu_name[RD_MAX_GPUS][64], gpu_vendor[RD_MAX_GPUS][8];
    /* the start event's gpu_source: the tool that wrote hw_metrics.csv ("nvidia-smi",
     * "amdgpu"; "" when not said: before hwmon wrote it, or without GPUs) */
    char gpu_source[32];
    /* the file systems the job could write, as the start and stop events say (NAN: not said) */
    struct rd_fs {
        char mount[256], type[32];
        double total_mib, used_start_mib, free_start_mib, used_end_mib, free_end_mib;
    } fs[RD_MAX_FS];
    int nfs;
    char ctx[HW_CTX_COUNT][256]; /* the start event's context (hw_ctx_defs), "" when not said */
    /* the start event's gpu_sampler: role "" (none said), "primary" or "secondary", the hwmon
     * that sampled the node's GPUs (pid 0: not said) and its run directory */
    char sampler_role[16], sampler_dir[4096];
    long sampler_pid;
    /* a gpu_sampler event (a takeover): role is then "primary", sampler_pid and sampler_dir this
     * run's hwmon, t_sampler the event's time (the run's GPU rows begin there; NAN: no
     * takeover), and the sampler before it (pid 0, dir "": not known) */
    double t_sampler;
    double sampler_probe_s; /* the takeover's probe_s (NAN: not said) */
    long sampler_prev_pid;
    char sampler_prev_dir[4096];
    long hwmon_pid; /* start event's hwmon_pid (0: not said) */
};

/* obj.key as a string / an integer (events' data); NULL / false when absent or another type. */
const char *rd_json_str(struct json_object *obj, const char *key);
bool rd_json_int(struct json_object *obj, const char *key, long *out);
/* obj's key as a number (a JSON integer or real); NAN when absent or not a number. */
double rd_json_num(struct json_object *obj, const char *key);
/* Did phase p fail: a non-zero exit_status (runlog time), a signal, or an exception (the Python
 * package)? Its exit status (-1: not said) and signal (0: none). The one rule of summarize's
 * outcome and the live state's steps (a failed phase's were planned, not done). */
bool rd_phase_failed(const struct rd_phase *p, int *exit_status, int *signal);

/* Initialize info (everything "not seen"). */
void rd_run_info_init(struct rd_run_info *info);
/* Update info from one event (start, stop, gpu_fields_fallback, child_restart). Use it from an
 * event callback over run.jsonl, then pass info->gpu_fields and info->tz to the CSV readers. */
void rd_run_info_event(struct rd_run_info *info, const struct rd_event *e);

#endif
