/* The ResourceSummary of one run: what summarize computes from a run directory (DESIGN.md
 * "summary.json"). sum_run_read() reads run.jsonl first (phase windows, the start event's
 * smi_tz and gpu_query_fields), then each CSV once through the readers (readers.h), keeping
 * only running statistics: memory does not grow with the files. */
#ifndef SUM_SUMMARY_H
#define SUM_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocks.h"
#include "ecount.h"
#include "evclass.h" /* sum_event_error_like */
#include "energy.h"
#include "hwrun/rundir.h"
#include "idle.h"
#include "ivindex.h"
#include "outcome.h"
#include "phasenames.h"
#include "readers.h"
#include "together.h"
#include "stats.h"
#include "system.h"
#include "timeline.h"

struct sum_rule_cfg; /* verdicts.h: the layer above, which judges the run */
struct sum_verdicts;

/* The descendants' figures (tree minus main process, per row): RSS, CPU, threads, private and
 * shared resident memory. */
enum { SUM_DESC_RSS, SUM_DESC_CPU, SUM_DESC_THREADS, SUM_DESC_PRIVATE, SUM_DESC_SHARED, SUM_DESC_COUNT };
/* Whose GPU memory (sum_run_gpu_mem_peak): the tree's, the main process's, the descendants'. */
enum sum_gpmem { SUM_GPMEM_TREE, SUM_GPMEM_MAIN, SUM_GPMEM_DESC, SUM_GPMEM_COUNT };
/* The tree's /proc/PID/io counters (proc_metrics.csv), in that file's order of /proc/PID/io. */
#define SUM_PIO_COUNT 7
extern const int sum_pio_cols[SUM_PIO_COUNT]; /* HW_PROC_COL_RCHAR, ... */
/* A phase per training step: the first SUM_MAX_PHASES phases are summarized in full (about 26 KB
 * each with 8 GPUs, their JSON included), the rest in brief (sum_phase_brief: 48 bytes), so that
 * memory stays bounded; every phase counts by name (phasenames.h) whatever its tier. */
#define SUM_MAX_PHASES 512
/* Does the JSON list the run's phases in brief, the first SUM_MAX_PHASES too? Yes when it has
 * more (a phase per step: 14 400 full entries' figures would be 15 KB each, none of them read;
 * the names' figures cover them), unless cfg->phase_detail. */
struct sum_run;
struct sum_listed;
bool sum_run_phases_brief(const struct sum_run *run);
/* The entries phases[] lists, in log order, into *out (malloc'd; the caller frees it); their
 * number, or -ENOMEM. Every kept bit is 0 when the listing is not a selection past the limit
 * (sum_run_listed_kept says which). */
long sum_run_listed(const struct sum_run *run, struct sum_listed **out);
bool sum_run_listed_kept(const struct sum_run *run);
#define SUM_MAX_PHASE_BRIEFS (1u << 22) /* --phases all: 240 MB of briefs; beyond, counted only */
/* Which phase entries the JSON's phases[] lists (cfg->phases_list). By default every one while
 * the run has at most SUM_PHASES_LISTED, and past it only those that matter (sum_run_listed):
 * each name's first, slowest and fastest, the first SUM_KEPT_FAILED failed ones and the open
 * ones, so that summary.json stays small (a phase per step: a million steps were 221 MB) and
 * memory does not grow with the entries; phase_names counts them all either way. */
enum sum_phases_list {
    SUM_PHASES_AUTO,  /* every one up to SUM_PHASES_LISTED, else the kept ones */
    SUM_PHASES_ALL,   /* --phases all: every one (up to SUM_MAX_PHASE_BRIEFS) */
    SUM_PHASES_FIRST, /* --phases N: the first N in log order */
};
#define SUM_PHASES_LISTED 1000
#define SUM_KEPT_FAILED 100
/* Why a listed entry was kept past the limit ("kept": [...]), in the order the JSON says them. */
enum sum_kept { SUM_KEEP_FIRST, SUM_KEEP_SLOWEST, SUM_KEEP_FASTEST, SUM_KEEP_FAILED,
                SUM_KEEP_OPEN, SUM_KEEP_COUNT };
extern const char *const sum_kept_names[SUM_KEEP_COUNT];
#define SUM_PHASE_QUANT_MAX 256 /* phases beyond this get mean/min/max but no percentiles */
#define SUM_MAX_ERRORS 32     /* error-like events listed (all are counted) */
#define SUM_MAX_EVENT_TYPES 64
#define SUM_MAX_PIDS 256
#define SUM_DIAG_PER_FILE 5   /* messages shown per file, then a count */
#define SUM_MAX_HEALTH_WARNINGS 64 /* health warnings kept (clocks.h) */

struct sum_gpu {
    int index;
    bool in_query, in_dmon;
    char uuid[64];
    uint64_t samples;
    struct sum_stat m[HW_GPU_FIG_COUNT];
    struct sum_stat dm[RD_DM_COUNT];
    struct sum_stat interval;
    struct rd_energy energy;
    /* streaming state */
    double prev_t, dmon_prev_t;
    /* GPM activity (hw_gpm.csv), RD_DM_GPM_FIRST + i */
    bool in_gpm;
    struct sum_stat gpm[HW_GPM_NCOLS];
    double gpm_prev_t;
    struct rd_idle idle; /* its idle samples and stretches (idle.h) */
    /* rows whose cells said a GPU fault (hwrun/rundir.h hw_gpu_faults): the first's fault
     * and line; they measured nothing (readers.h rd_gpu_row.fault) */
    int fault;
    uint64_t fault_rows, fault_line;
};

/* A GPU's SM and memory-controller shares of the job's own processes and of the others
 * (hw_pmon.csv): per pmon interval, the sum over the processes that had a value ("-" is not
 * measured, not 0), then means and maxima over those intervals (mean/max stats). */
struct sum_pmon_acc {
    struct sum_stat own_sm, others_sm, own_mem, others_mem, all_sm;
};

struct sum_phase_gpu {
    struct sum_stat m[HW_GPU_FIG_COUNT];
    double energy_j;
    struct sum_stat gpm[HW_GPM_NCOLS];
    struct sum_clk_acc *clk; /* its clocks (hw_health.csv, clocks.h); NULL: no row */
    double inst_j;           /* power.draw.instant integrated inside the phase (hw_health.csv) */
    bool inst_seen;          /* a bridged step of it met the phase */
    double counter_mj;       /* the energy counter's growth inside the phase (ecount.h) */
    bool counter_seen;       /* a counter step met the phase */
    /* the seconds of the phase each reading's steps span (power.draw, power.draw.instant, the
     * counter): short of the phase where its GPUs were first read after it began (the probes
     * run beside the job) or a gap cut a step */
    double cov_s[RD_ER_COUNT];
    struct sum_pmon_acc *pm; /* its processes' shares (hw_pmon.csv); NULL: no instant */
};

/* The framework's own memory (HW_FWMEM): its peak in use and its pool, MiB; NAN not said. */
struct sum_fwmem {
    char framework[16]; /* "" when no entry said */
    double peak_mib, pool_mib;
    double jax_peak_mib; /* pytyche's jax_peak_bytes_mb: JAX's peak (0 when none) */
};

void sum_fwmem_init(struct sum_fwmem *f);
/* Take what an HW_FWMEM object says (o may be NULL or not an object): maxima over entries. */
void sum_fwmem_take(struct sum_fwmem *f, struct json_object *o);

/* What every output shows of it, for a run or a phase: next to nvidia-smi's peak and the
 * GPUs' memory, and the room left (sum_fwmem_figures). */
struct sum_fwmem_fig {
    double peak_mib, pool_mib;
    double vram_peak_mib, vram_total_mib; /* nvidia-smi's memory.used peak, memory.total */
    double headroom_mib;    /* vram_total - peak: how much more the framework could use */
    double pool_unused_mib; /* pool - peak: held by the allocator, never used */
};

struct sum_phase_acc {
    char *name;
    double t0, t1;
    uint64_t line;
    uint64_t seq; /* its place among every phase entry of the run (sum_run.phases_total) */
    bool no_quant; /* beyond SUM_PHASE_QUANT_MAX: no percentiles */
    struct sum_phase_gpu *gpu[RD_MAX_GPUS];
    struct sum_stat cpu_usr, cpu_idle, proc_rss, proc_cpu;
    /* how it ended (runlog time / the Python package), see outcome.h */
    int exit_status; /* -1: not said */
    int signal;      /* 0: none */
    bool failed;
    char *extra;     /* its extra keys as a JSON object text (malloc'd; NULL: none or too long) */
    bool open;       /* began (a phase_begin entry) and never ended: runs to its run's end */
    /* hwmon read the counters at its begin, at its end (a sample within hw_edge_tol()) */
    bool edge_t0, edge_t1;
    struct sum_fwmem fw; /* its entries' framework figures */
    /* disks, network, free space, the container's memory (system.h) */
    struct sum_system sys;
    /* the tracked process alone and the tree's user/system split (proc_metrics.csv) */
    struct sum_stat main_rss, main_cpu, main_threads, usr_cpu, sys_cpu;
    /* the tree's storage I/O inside it (read_bytes, write_bytes: its share of each row's
     * growth of the cumulative counters); proc_io_seen: a row with them met the phase */
    double proc_io[2];
    bool proc_io_seen;
    /* the seconds of it inside a hole of cpu_metrics.csv's / proc_metrics.csv's rows (a row
     * longer than RD_GAP_FACTOR intervals: hwmon stopped or frozen): not measured, and not
     * interpolated at the hole's average either (sum_phase_gap_s) */
    double cpu_gap_s, proc_gap_s;
};

/* A phase beyond SUM_MAX_PHASES: where and how it ran, no figures of its own. */
struct sum_phase_brief {
    const char *name; /* its name's (sum_names owns it) */
    double t0, t1;
    uint64_t line;
    uint64_t seq;            /* as sum_phase_acc's */
    int exit_status, signal; /* as sum_phase_acc's */
    bool failed;
    long full;               /* its index in sum_run.phase, -1: in brief only */
};

/* A name's entries kept past the listing's limit (sum_phases_list): its first, its slowest and
 * its fastest (by seconds; the earliest of equals; an open one is not timed yet). */
struct sum_name_pick {
    struct sum_phase_brief first, slowest, fastest;
    bool has_first, has_timed;
    double slow_s, fast_s;
};

/* One entry of phases[] (sum_run_listed): a phase in full (full >= 0) or in brief, and why it
 * was kept (bits of enum sum_kept; 0 when every entry is listed). */
struct sum_listed {
    struct sum_phase_brief b;
    unsigned kept;
};

/* A phase begun (phase_begin entry) whose end has not been read yet. */
struct sum_open_phase {
    char *id, *name, *extra;
    double t0;
    uint64_t line;
    struct sum_fwmem fw;
};
#define SUM_MAX_OPEN 4096 /* phases open at once (nesting x threads x processes) */

/* The edge rows since the last cadence row of a file (sink_host.c own_part): their interval
 * figures (percentages times seconds; bytes), to take out of the cadence row that covers them. */
struct sum_row_pend {
    double t_row, t_cad; /* the previous row's time, and the previous cadence row's */
    double acc[(int)HW_CPU_COL_COUNT > (int)HW_PROC_COL_COUNT ? (int)HW_CPU_COL_COUNT : (int)HW_PROC_COL_COUNT];
    bool any;
};

struct sum_event_type {
    char name[48];
    uint64_t n;
};

struct sum_error_event {
    double t;
    char name[48];
    uint64_t line;
    char *data; /* JSON text of its data (malloc'd, may be NULL) */
};

/* A pid's time in the process tree (tree_pids.csv); t1 INFINITY while it had not left. */
struct sum_tree_span {
    long pid;
    double t0, t1;
};

struct sum_pid_mem {
    long pid;
    char name[64];
    double peak_mib;
};

enum sum_tz_source { SUM_TZ_FROM_START_EVENT, SUM_TZ_FROM_OPTION, SUM_TZ_DEFAULT };

/* Where a run's files are: dir (may be NULL) and one path per kind (NULL: not given). */
struct sum_inputs {
    const char *dir;
    const char *path[HW_FILE_COUNT];
};

struct sum_config {
    bool have_tz;              /* --smi-tz given */
    struct rd_tz tz;
    size_t max_line;           /* 0: the readers' default */
    bool libcsv_only;          /* the readers' opts.libcsv_only (the benchmark's baseline) */
    /* Where problems go ("FILE:LINE: reason" already formatted); NULL: dropped. */
    void (*message)(void *ctx, const char *text);
    void *message_ctx;
    const char *params_event;  /* events whose data are the run's parameters (NULL: "config") */
    double cores;              /* --cores: the job's expected cores (0: from the run) */
    /* --carbon-intensity (g CO2e per kWh) and --price (per kWh): the energy's emissions and
     * cost (0: not given, then null) */
    double carbon_g_per_kwh, price_per_kwh;
    /* The HTML report's timeline (timeline.h), built in the same pass: timeline_cols pixel
     * columns (0: none, no cost); timeline_spark: only the sweep's utilization sparkline. */
    int timeline_cols;
    bool timeline_spark;
    /* A node of a job (jobsum.h): keep its GPUs together over time (jobseries.h). */
    bool job_series;
    /* --tracked-gpus: the GPUs (indexes or UUIDs, comma-separated) whose utilization is the
     * job's, beside every GPU together (gpu_tracker's gpu_uuids: its gpu_utilization); NULL:
     * every GPU recorded. */
    const char *tracked_gpus;
    /* --phase-detail: a run of more phases than SUM_MAX_PHASES still gives its first ones in
     * full in the JSON (by default such a run lists every phase in brief: sum_run_phases_brief) */
    bool phase_detail;
    /* the verdicts' thresholds and rules turned off (verdicts.h); NULL: the defaults */
    const struct sum_rule_cfg *rules;
    /* --phases: which entries phases[] lists; phases_first: N of SUM_PHASES_FIRST */
    enum sum_phases_list phases_list;
    uint64_t phases_first;
};

/* One of the run's parameters: a scalar of the data of its params events (--params, default
 * "config"), nested objects flattened with dots ("optim.lr"); a later event's value wins. Or,
 * with metric, a number the job logged about itself: the data of its "metric" (or "metrics")
 * events, and the numbers of its phase entries' own keys (loss=1.93) but steps, exit_status and
 * signal; the last value. Both in one list: every output that writes the params' columns
 * (param.KEY) writes the metrics' (metric.KEY) with them. */
/* The list grows as the run's keys come (a Hugging Face TrainingArguments dump is 130 and more);
 * beyond SUM_MAX_PARAMS keys, the rest are counted (params_dropped) and said in a note: a bound
 * on a run log built to make summarize search its keys for ever. */
#define SUM_MAX_PARAMS 8192
struct sum_param {
    char *key;              /* malloc'd */
    struct json_object *v;  /* owned reference; NULL for JSON null */
    bool metric;
    unsigned gen;           /* the event that set it last (sum_run.param_gen) */
};

struct sum_run {
    char *dir;
    struct rd_run_info info;
    enum sum_tz_source tz_source;
    struct rd_tz tz;
    bool tz_start_unrecognized;

    /* files */
    struct rd_quality q[HW_FILE_COUNT];
    /* why a present file could not be read, in words ("is a FIFO"), once for every output;
     * "" when it was read */
    char read_error[HW_FILE_COUNT][96];
    char *path[HW_FILE_COUNT];
    struct sum_stat q_interval[HW_FILE_COUNT];
    uint64_t diag_count[HW_FILE_COUNT];
    int cur_kind;

    double t_min, t_max;   /* over every sample and entry timed to the millisecond */
    double tc_min, tc_max; /* over rows timed to the whole second (dmon, GPM, pmon): the run's
                            * range only when no other row is (they would widen it by up to 1 s) */
    double cpu_prev_t, proc_prev_t; /* the previous cadence row's time */
    struct sum_row_pend cpu_pend, proc_pend;
    uint64_t edge_rows; /* cpu_metrics.csv rows of edge samples (not the cadence's) */

    /* GPUs */
    struct sum_gpu *gpu[RD_MAX_GPUS];
    uint64_t gpu_rows_dropped; /* GPU numbers >= RD_MAX_GPUS */
    /* every GPU together (pytyche's keys) and dmon's "mem" column over every GPU: n, sum and
     * max only (sum_stat_init_mean_max) */
    struct sum_stat all[HW_GPU_FIG_COUNT];
    struct sum_stat dmon_mem_all;
    struct sum_together together; /* every GPU at one instant (together.h) */
    /* the same over cfg->tracked_gpus only; tracked_gpu[g]: 0 not decided yet, 1 tracked,
     * 2 not (decided at the GPU's first row) */
    struct sum_together together_tracked;
    uint8_t tracked_gpu[RD_MAX_GPUS];

    /* phases, in log order; pidx finds those a sample falls in (ivindex.h) */
    struct sum_phase_acc *phase;
    size_t nphase, phase_cap;
    /* those beyond SUM_MAX_PHASES that phases[] may list (cfg->phases_list: every one, the
     * first N, or by default those up to SUM_PHASES_LISTED), in log order */
    struct sum_phase_brief *brief;
    size_t nbrief, brief_cap;
    uint64_t phases_total;   /* every phase entry, whatever its tier */
    uint64_t phases_beyond;  /* entries beyond SUM_MAX_PHASES: by name only, in brief */
    uint64_t phases_dropped; /* no entry of their own (their name found no room, or memory) */
    /* the entries kept past the listing's limit: each name's (parallel to names.v), and the
     * first SUM_KEPT_FAILED failed ones */
    struct sum_name_pick *pick;
    size_t pick_cap;
    struct sum_phase_brief kept_failed[SUM_KEPT_FAILED];
    size_t nkept_failed;
    struct sum_ivx pidx;
    struct sum_names names; /* every phase by name (phasenames.h) */
    /* phases begun and not ended yet while run.jsonl is read, in begin order */
    struct sum_open_phase *open;
    size_t nopen, open_cap;
    uint64_t open_dropped; /* begins beyond SUM_MAX_OPEN: their phases are not seen as open */
    double outside_phases_s; /* the run's time in no phase; NAN when it logged no phase */
    struct sum_fwmem fw;     /* the framework's memory over every entry and event */
    double steps_logged;     /* the sum of the phases' HW_PHASE_STEPS */
    double steps_logged_s;   /* the seconds of the phases that logged them */
    double steps;            /* the run's steps (sum_run_steps rule); 0 when none said */

    /* events */
    struct sum_event_type etype[SUM_MAX_EVENT_TYPES];
    size_t netype;
    /* the wall clock's steps while hwmon ran (clock_step events): how many, and their sum */
    uint64_t clock_steps;
    double clock_step_s;
    /* run.jsonl deleted or truncated while hwmon ran (log_rotated events): its lines before
     * are gone; the last such how (HW_LOG_HOW_*) */
    uint64_t log_lost;
    char log_lost_how[16];
    uint64_t etype_other;
    struct sum_error_event err[SUM_MAX_ERRORS];
    size_t nerr;
    uint64_t err_total;
    char *cgroup_json; /* the start event's data.cgroup */

    /* CPU and container */
    struct sum_stat cpu[HW_CPU_COL_COUNT];
    /* the tracked process's descendants, per proc_metrics.csv row: tree minus main process
     * (gpu_tracker's "descendants"; the tree is its "combined", main_* its "main") */
    struct sum_stat desc[SUM_DESC_COUNT];
    /* gpu_tracker's total RSS per row, private + shared counted once per path (hwmon
     * --shared-once), of the tree, the main process and the descendants (enum sum_gpmem's whose) */
    struct sum_stat gt_total[SUM_GPMEM_COUNT];
    /* the same counters per second between consecutive cadence rows (resource-tracker's
     * per-interval figures), means and maxima */
    struct sum_stat pio_rate[SUM_PIO_COUNT];
    double pio_prev[SUM_PIO_COUNT], pio_prev_t;
    double pio_last[2]; /* read_bytes, write_bytes at the tree's previous row, any kind (NAN) */
    struct sum_stat cpu_busy; /* usr + sys per cadence row: the machine's busy share */
    /* the machine's memory in use as psutil says it (gpu_tracker's max_ram.system):
     * MemTotal - MemFree - Buffers - Cached - SReclaimable, or MemTotal - MemFree where that is
     * negative; per cadence row where hwmon recorded SReclaimable (gputracker.c) */
    struct sum_stat mem_used_psutil;
    double cg_limit_cores, cg_mem_max_mib;
    /* disks, network, free space, the container's memory peak (system.h); sys_prev_t: the
     * previous cpu_metrics.csv row's time, kpeak_prev: its kernel memory peak (the start
     * event's reading before the first row; 0 when the start event says it was reset) */
    struct sum_system sys;
    double sys_prev_t, kpeak_prev;

    /* process tree: gauges by time (each cadence row weighted by the time it stands for), over
     * the rows of a live tree (proc_gauges in sink_host.c) */
    struct sum_stat proc[HW_PROC_COL_COUNT];
    /* the tree's RSS at its first live cadence row and at its end (sum_run_memory_growth) */
    double rss_first, rss_last, rss_fall_top;
    struct { /* the CPU rates of the last cadence row, held until the next: a short one joins it */
        double v[HW_PROC_COL_COUNT], dt;
        bool have;
    } proc_rate;

    /* GPU memory of processes (gpu_procs.csv) */
    uint64_t gp_rows;
    double gp_block_t;
    bool gp_block_open;
    /* the current sample's sums and the peaks of those sums, by enum sum_gpmem */
    double gp_block_sum[SUM_GPMEM_COUNT], gp_peak[SUM_GPMEM_COUNT];
    struct sum_pid_mem pids[SUM_MAX_PIDS];
    size_t npids;
    uint64_t pids_dropped;

    const struct sum_config *cfg;
    /* an allocation failed while reading or judging: a figure may lack rows, so the summary is
     * printed with an error (sum_run_summarize returns -ENOMEM), never as if whole */
    bool oom;

    /* the process tree's pids over time, sorted by pid once read, for gpu_procs.csv */
    struct sum_tree_span *tspan;
    size_t ntspan, tspan_cap;
    long tree_root_pid; /* tree_pids.csv's first pid (the tracked process), 0: none */
    uint64_t gp_tree_rows; /* gpu_procs.csv rows of the tree's pids */
    struct sum_outcome outcome; /* how the run ended (outcome.h) */
    struct sum_param *params; /* the run's parameters, in first-seen order (malloc'd) */
    size_t nparams, params_cap;
    uint64_t params_dropped;
    /* keys one event gave twice once flattened ({"a.b": 5, "a": {"b": 6}}: both param.a.b; the
     * later value is kept), and the first of them */
    uint64_t param_collisions;
    char param_collision_key[128];
    unsigned param_gen;
    struct sum_timeline *tl; /* NULL unless cfg->timeline_cols */
    uint8_t gpu_seen[RD_MAX_GPUS]; /* the GPUs' numbers, ascending (the timeline's energy) */
    struct sum_jseries *jser; /* NULL unless cfg->job_series */
    /* why the GPUs were slow, whether they were healthy (hw_health.csv, clocks.h), by number */
    struct sum_clk_gpu *clk[RD_MAX_GPUS];
    /* the GPUs' energy counters (hw_energy.csv, ecount.h), by number; NULL: no read */
    struct sum_ecount *ecnt[RD_MAX_GPUS];
    /* per-process GPU use (hw_pmon.csv), by number; NULL: no line */
    struct sum_pmon_gpu {
        struct sum_pmon_acc acc;
        double t;          /* the interval being summed (NAN: none) */
        double sum[5];     /* own sm, others sm, own mem, others mem, all sm */
        bool any[5];
        /* the interval's pids so far (a pid again, or the GPU's "-" line again, at the same
         * second is the next interval: pmon's time has whole seconds, a late pmon repeats one) */
        long seen[32];
        int nseen;
        bool seen_none;
        uint64_t lines, own_lines, other_lines;
    } *pm[RD_MAX_GPUS];
    /* their health warnings (clocks.h's sum_clk_warnings, GPUs in order), made once when the
     * files are read: the words every output shows */
    char health_warn[SUM_MAX_HEALTH_WARNINGS][SUM_HEALTH_WARN_LEN];
    int nhealth_warn;
    /* hwmon's GPU fault events (gpu_lost, gpu_reset_required): which fault, which GPU ("" when
     * the line named none); one each, the first eight */
    struct {
        int fault;
        char gpu[64];
    } fault_ev[8];
    int nfault_ev;
    int ngpu_seen;
    /* what the figures say about the job, judged once the files are read by verdicts.c's
     * sum_run_summarize (freed here); NULL only when memory ran out */
    struct sum_verdicts *verdicts;
    double idle_pct; /* gpu_idle.util_pct: a GPU row at or below it is idle */
};

/* A new, empty run. NULL on ENOMEM. */
struct sum_run *sum_run_new(void);
void sum_run_free(struct sum_run *run); /* accepts NULL */
/* What an open phase holds (the phases' sink and sum_run_free free it). */
void sum_open_free(struct sum_open_phase *o);

/* Fill in the file paths of a run directory (those that exist) into in; paths are malloc'd into
 * storage[] (caller frees each). */
void sum_inputs_from_dir(struct sum_inputs *in, const char *dir, char *storage[HW_FILE_COUNT]);

/* Read the inputs and compute the run's figures into run; a GPU row at or below idle_pct is
 * idle. The verdicts on them are the layer above's: callers use verdicts.h's
 * sum_run_summarize, which reads with this and judges. Returns 0 when something usable was
 * found, -ENODATA when nothing was, or -errno of the first file that exists but could not be
 * read (the summary of the rest is still computed). */
int sum_run_read(struct sum_run *run, const struct sum_inputs *in, const struct sum_config *cfg,
                 double idle_pct);

/* summary.json's keys for the GPM columns ("sm_active_pct", ...), HW_GPM_KEYS. */
extern const char *const sum_gpm_keys[HW_GPM_NCOLS];

/* Every tracked GPU together (cfg->tracked_gpus; without it every GPU: run->together). */
void sum_run_tracked_gpus(const struct sum_run *run, struct sum_together_figs *out);
/* Number of GPUs seen (in hw_metrics.csv or hw_dmon.csv). */
size_t sum_run_gpu_count(const struct sum_run *run);
/* The run's duration in seconds: the stop event's duration_s, else stop - start events, else
 * first to last timestamp seen; NAN when there is no time at all. */
double sum_run_duration(const struct sum_run *run);
/* The number of sampling instants (num_samples): each instant writes one hw_metrics.csv row per
 * GPU (their times differ by a few ms), so the most rows any GPU has; the rows of
 * cpu_metrics.csv (one per sampler tick) when no GPU was sampled. Per-file row counts are the
 * quality section's. */
uint64_t sum_run_num_samples(const struct sum_run *run);
/* The tree's GPU memory peak in MiB (process.gpu_mem_peak_mib): the most its own pids held
 * together at one time. NAN when unmeasured, and then *why (if why) says the reason:
 * "not_recorded" (no gpu_procs.csv rows), "pid_namespace" (hwmon ran in a container: nvidia-smi
 * prints the host's pids), "no_tree_pids" (no tree_pids.csv: an older hwmon, or system mode),
 * "no_pid_match" (no row matched the tree, and the namespace was not recorded). */
double sum_run_tree_gpu_mem_peak(const struct sum_run *run, const char **why);
/* The same for the main process alone (SUM_GPMEM_MAIN), its descendants (SUM_GPMEM_DESC) or
 * the tree (SUM_GPMEM_TREE, as above): the most each held together at one sample (gpu_tracker's
 * main, descendants and combined). NAN when the tree's is, for both parts when the run does not
 * say which process is the main one (the start event's pid, else tree_pids.csv's first pid), and
 * for the descendants when they were not tracked (the start event's descendants: false). */
double sum_run_gpu_mem_peak(const struct sum_run *run, enum sum_gpmem part, const char **why);
/* The tracked process's pid (the start event's, else tree_pids.csv's first); 0 when unknown. */
long sum_run_main_pid(const struct sum_run *run);
/* Every GPU's clocks together (GPU-time shares: a GPU capped half the run of two is 25%);
 * false without hw_health.csv rows. */
bool sum_run_clocks(const struct sum_run *run, struct sum_clk_figs *out);
/* GPU g's energy in Wh, and where it comes from (*source, if source): "counter" when the GPU's
 * energy counter was read at least twice (hw_energy.csv), else "instant" when hw_health.csv's
 * power.draw.instant was integrated (a bridged step at least), else "integrated" from
 * hw_metrics.csv's power field; NULL with NAN when none measured it. The others: each reading
 * alone (NAN: not measured). */
double sum_gpu_energy_wh(const struct sum_run *run, int g, const char **source);
/* The reading sum_gpu_energy_wh takes (RD_ER_COUNT: none) and its value in *wh (may be NULL). */
enum rd_ereading sum_gpu_energy_reading(const struct sum_run *run, int g, double *wh);
double sum_gpu_energy_integrated_wh(const struct sum_run *run, int g);
double sum_gpu_energy_instant_wh(const struct sum_run *run, int g);
double sum_gpu_energy_counter_wh(const struct sum_run *run, int g);
/* The same for GPU g inside phase p: the counter when the phase lasted at least twice the
 * counter's update period (sum_ecount_phase_ok), else the instant power, else the power field. */
double sum_phase_gpu_energy_wh(const struct sum_run *run, const struct sum_phase_acc *p, int g,
                               const char **source);
double sum_phase_gpu_energy_integrated_wh(const struct sum_run *run,
                                          const struct sum_phase_acc *p, int g);
/* The seconds of phase p that sum_phase_gpu_energy_wh's reading spans; NAN: none measured. */
double sum_phase_gpu_energy_covered_s(const struct sum_run *run, const struct sum_phase_acc *p,
                                      int g);
/* A phase name's energy over the union of its windows, by the phases' rule for each GPU (the
 * counter when the union lasts twice its update period, else the instant power, else the power
 * field), over its GPUs; NAN: none measured. A name of one entry says its phase's energy_wh. */
double sum_name_energy_wh(const struct sum_run *run, const struct sum_name_acc *a);
/* A phase's energy over its GPUs (each GPU's sum_phase_gpu_energy_wh); NAN: none measured. */
double sum_phase_energy_wh(const struct sum_run *run, const struct sum_phase_acc *p);
/* The seconds of phase p its energy spans: its least covered GPU's (NAN: none measured). True
 * when a GPU's falls short of the phase by more than SUM_PHASE_UNCOVERED_IV of its sampling
 * intervals: the phase's energy is partly unmeasured (what the text and the page say). */
#define SUM_PHASE_UNCOVERED_IV 1.25 /* intervals: a cadence's last row before the end, jitter */
bool sum_phase_energy_partly(const struct sum_run *run, const struct sum_phase_acc *p,
                             double *covered);
/* memory_growth_mb: the process tree's RSS at its last live row less at its first (NAN: no
 * live row). A last live row right before the job's exit row that fell below the one before it
 * is the exiting interpreter freeing its memory, not the job's: the row before it counts. */
double sum_run_memory_growth(const struct sum_run *run);
/* The seconds of phase p inside a sampling hole (the larger of the CPU's and the process
 * tree's): its CPU, disk, network and process figures do not cover them, and its I/O bytes are
 * unmeasured (null) when any of it is. */
double sum_phase_gap_s(const struct sum_phase_acc *p);
/* The same for the run: the seconds of its span (sum_run_duration) its energy spans, its least
 * covered GPU's (the bridged steps of its power curve; NAN: no GPU's energy measured), and
 * whether a GPU's falls short by more than SUM_PHASE_UNCOVERED_IV of its intervals (nvidia-smi
 * started late, a gap, a GPU that stopped answering): the text says so. */
bool sum_run_energy_partly(const struct sum_run *run, double *covered);
/* Whose processes hw_pmon.csv's pids can be told apart for: NULL when they can, else why not
 * ("pid_namespace": hwmon ran in a container, pmon prints the host's pids; "no_tree_pids": no
 * tree_pids.csv, an older hwmon or system mode); then only every process together is known. */
const char *sum_run_pmon_unattributed(const struct sum_run *run);
/* The run's notes: facts that change how its numbers read, in the words the text report and the
 * page print. Note i (0 <= i < SUM_NOTE_COUNT) into buf, "" when it does not apply; returns buf.
 * The wall clock stepped ("the wall clock stepped once during the run (+3600.0 s): ..."); the
 * run log was rotated (its earlier parts read first, or its lines before lost); params or metrics
 * lost (keys that collide once flattened, keys beyond SUM_MAX_PARAMS). */
#define SUM_NOTE_COUNT 3
const char *sum_run_note(const struct sum_run *run, int i, char *buf, size_t cap);
/* Every GPU's pmon figures together (GPU-time means), false without hw_pmon.csv lines. */
bool sum_run_pmon(const struct sum_run *run, struct sum_pmon_acc *out);
/* An empty pmon accumulator (the sinks fill them). */
void sum_pmon_acc_init(struct sum_pmon_acc *a);
/* Energy of every GPU together in Wh (each GPU's sum_gpu_energy_wh); NAN when none measured. */
double sum_run_energy_wh(const struct sum_run *run);
/* The reading every GPU's energy is of (rd_ereading_names'), "mixed" when they differ, NULL when
 * none was measured. */
const char *sum_run_energy_source(const struct sum_run *run);
/* The cores the job was meant to use, to state its CPU as a share of them (gpu_tracker's
 * n_expected_cores): --cores (cfg->cores), else the cgroup's CPU quota (cpu_metrics.csv's
 * cgroup_cpu_limit_cores), else the CPUs of its affinity mask (start event's cpus_allowed);
 * *source (if source) is "option", "cgroup_quota", "affinity" or NULL; NAN when none. */
double sum_run_expected_cores(const struct sum_run *run, const char **source);
/* The interval the gap rule uses for a file's rows: a GPU's energy interval (interval_sec of
 * gpus[].energy) for hw_metrics.csv (gpu >= 0), else the median step of the file (quality's
 * interval_sec.median). NAN when unknown. */
double sum_run_gap_interval(const struct sum_run *run, enum hw_file kind, int gpu);
/* Gaps in a file's sampling (quality.files[].gaps): steps longer than RD_GAP_FACTOR times its
 * median step. */
uint64_t sum_run_file_gaps(const struct sum_run *run, enum hw_file kind);
/* The run's start and end in epoch seconds, end - start = sum_run_duration(): with hwmon's stop
 * event, its time and that less its (monotonic) duration; else the start event, else the first
 * time seen, plus the duration. False when the run has no time at all. The JSON's start and
 * end, the page's and the job's. */
bool sum_run_span(const struct sum_run *run, double *t0, double *t1);
/* When hwmon began (sum_run_span's start): its baseline, before the job and before the start
 * event, which waits for nvidia-smi's probes while a wrapped job runs. The stop event's time
 * less its duration, else the start event's less its setup_s, else the start event's; NAN:
 * no event says. */
double sum_run_began(const struct sum_run *run);
/* A run of N training steps: its time and energy per step, so that runs of different lengths
 * compare (NAN when the run logged no steps). */
/* Seconds per step inside the phases that did the steps (their time over their steps: the
 * evals and checkpoints between them left out), NAN without steps: the phases that logged
 * steps=, else the phases named "step". */
double sum_run_step_phase_sec_per_step(const struct sum_run *run);
double sum_run_sec_per_step(const struct sum_run *run);
double sum_run_energy_wh_per_step(const struct sum_run *run);
/* The framework's figures of the run (p NULL) or of a phase; false when none was logged. */
bool sum_fwmem_figures(const struct sum_run *run, const struct sum_phase_acc *p,
                       struct sum_fwmem_fig *out);
/* GPU rows inside a phase: the fewest of any GPU of the run (a GPU can be sampled only on
 * nvidia-smi's cadence, not at a phase's edges); -1 when the run has no GPU rows. A phase with
 * fewer than SUM_PHASE_GPU_RESOLVED is not resolved: its GPU figures are one or no sample. */
#define SUM_PHASE_GPU_RESOLVED 2
/* One GPU's rows inside a phase (phases[].gpus[].samples). */
static inline uint64_t sum_phase_gpu_rows(const struct sum_phase_gpu *pg)
{
    if (!pg)
        return 0;
    return pg->m[HW_GM_UTIL].n > pg->m[HW_GM_POWER].n ? pg->m[HW_GM_UTIL].n
                                                        : pg->m[HW_GM_POWER].n;
}
long sum_phase_gpu_samples(const struct sum_run *run, const struct sum_phase_acc *p);
/* Where hwmon read a phase's counters: "measured" (at its begin and its end), "begin", "end",
 * or "interpolated" (its CPU, disk and network are its time share of the rows around it). */
const char *sum_phase_edges(const struct sum_phase_acc *p);

#endif
