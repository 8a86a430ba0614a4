/* The run directory's vocabulary, written once (hwmon/FORMAT.md is its prose): the file names,
 * the columns hwmon writes and summarize reads, the events hwmon logs in run.jsonl and the keys
 * of their data that summarize reads. hwmon writes its CSV headers and events from these names,
 * summarize's default layouts are these tables; tests/hwmon checks that what hwmon writes is
 * what summarize expects (test_hwmon.vocabulary). The tables are in runlog/hw_rundir.c. */
#ifndef HWRUN_RUNDIR_H
#define HWRUN_RUNDIR_H

#include "runlog.h" /* the entry kinds librunlog defines for its users */

/* ---- files ---------------------------------------------------------------------------------- */

#define HW_RUNLOG_FILE "run.jsonl"
#define HW_GPU_FILE "hw_metrics.csv"
#define HW_DMON_FILE "hw_dmon.csv"
#define HW_CPU_FILE "cpu_metrics.csv"
#define HW_PROC_FILE "proc_metrics.csv"
#define HW_GPU_PROCS_FILE "gpu_procs.csv"
#define HW_GPM_FILE "hw_gpm.csv"
#define HW_TREE_PIDS_FILE "tree_pids.csv"
#define HW_HEALTH_FILE "hw_health.csv"
#define HW_ENERGY_FILE "hw_energy.csv"
#define HW_PMON_FILE "hw_pmon.csv"
#define HW_SUMMARY_FILE "summary.json"

/* The files of a run, one entry each, in summarize's order (enum hw_file's): F(ID, stem (the
 * file's short name: its key in the stop event's samples and samples_lost and its file label in
 * Prometheus' hwrun_samples_lost_total, for every file hwmon writes itself), name, its reader
 * (rd_<reader>_init in runlog/rundir), who writes it (HWMON: hwmon's sampler thread, from
 * hwmon's descriptor mon_file_<ID> (hwmon/runfiles.h: when it is made, its header, its row at a
 * sample); GPU: the GPU source, a child's output or its rows in the sampler thread
 * (hwmon/gpusrc.h); LOG: librunlog, hwmon's events and the job's), stage (summarize reads stage
 * 0, then 1, then 2, each in this order: the log says how the others are written, and the
 * processes' GPU memory is the tree's once tree_pids.csv is read), optional (newer than the first
 * files or written only with an option: summary.json's quality lists it only when present),
 * placeholders normal (a placeholder is what a GPU lacks or a process had no sample of, not news
 * for the text report and the page), summarize's option to name it, what writes it). Every list
 * of files (the readers, hwmon's files and --help, summarize's options and --help, the quality
 * sections, the stop event's and Prometheus' counts of rows) iterates it. The stems of cpu and
 * proc are documented keys: users' dashboards read them. */
#define HW_RUN_FILES(F)                                                                            \
    F(GPU, "gpu", HW_GPU_FILE, gpu, GPU, 1, 0, 0, "gpu-csv",                                       \
      "the GPUs, as nvidia-smi --query-gpu writes")                                              \
    F(DMON, "dmon", HW_DMON_FILE, dmon, GPU, 1, 0, 0, "dmon-csv", "nvidia-smi dmon output")        \
    F(CPU, "cpu", HW_CPU_FILE, cpu, HWMON, 1, 0, 0, "cpu-csv",                                     \
      "the node's CPU, memory, disks, network")                                                  \
    F(PROC, "proc", HW_PROC_FILE, proc, HWMON, 1, 0, 0, "proc-csv", "the job's process tree")      \
    F(GPU_PROCS, "gpu_procs", HW_GPU_PROCS_FILE, gpu_procs, GPU, 2, 0, 0, "gpu-procs-csv",         \
      "nvidia-smi --query-compute-apps output")                                                  \
    F(RUNLOG, "runlog", HW_RUNLOG_FILE, runlog, LOG, 0, 0, 0, "runlog", "phases and events")       \
    F(GPM, "gpm", HW_GPM_FILE, dmon, GPU, 2, 1, 0, "gpm-csv",                                      \
      "nvidia-smi dmon --gpm-metrics output")                                                    \
    F(TREE_PIDS, "tree_pids", HW_TREE_PIDS_FILE, tree_pids, HWMON, 1, 1, 0, "tree-pids-csv",       \
      "the tree's pids")                                                                         \
    F(HEALTH, "health", HW_HEALTH_FILE, health, GPU, 2, 1, 1, "health-csv",                        \
      "clocks, throttling, limits, errors")                                                      \
    F(ENERGY, "energy", HW_ENERGY_FILE, energy_csv, GPU, 2, 1, 0, "energy-csv",                    \
      "the GPUs' energy counters")                                                               \
    F(PMON, "pmon", HW_PMON_FILE, pmon, GPU, 2, 1, 1, "pmon-csv", "nvidia-smi pmon output")

/* Who writes a run file (HW_RUN_FILES' fifth column). */
enum hw_file_writer { HW_BY_HWMON, HW_BY_GPU, HW_BY_LOG };

enum hw_file {
#define HW_FILE_ENUM(ID, stem, name, reader, by, stage, optional, normal, opt, what) HW_FILE_##ID,
    HW_RUN_FILES(HW_FILE_ENUM)
#undef HW_FILE_ENUM
    HW_FILE_COUNT
};
/* One entry of HW_RUN_FILES, as data (hw_run_files[HW_FILE_GPU], ...). */
struct hw_run_file {
    const char *stem;        /* "gpu", ...: its key in the stop event's samples, ... */
    const char *name;        /* HW_GPU_FILE, ... */
    enum hw_file_writer by;  /* who writes it */
    unsigned stage;          /* summarize's reading order */
    bool optional;           /* quality lists it only when present */
    bool placeholders_normal;
    const char *option;      /* summarize --OPTION F */
    const char *what;        /* for --help */
};
extern const struct hw_run_file hw_run_files[HW_FILE_COUNT];
#define HW_RUN_FILE_STAGES 3
extern const char *const hw_file_names[HW_FILE_COUNT]; /* HW_GPU_FILE, ... */

/* ---- columns -------------------------------------------------------------------------------- */

/* Every CSV of ours starts with it; ISO 8601 UTC with milliseconds (nvidia-smi's: its own). */
#define HW_COL_TIMESTAMP "timestamp"
/* The last column of cpu_metrics.csv and proc_metrics.csv: 1 on a row of an edge sample (taken
 * where a phase began or ended, covering the time since the previous row), empty on the
 * cadence's rows (each covering its whole interval, edge rows' parts included). */
#define HW_COL_EDGE "edge"

/* The dimensions of the figures: D(ID, the unit a person reads, the Prometheus base unit, that
 * unit per one of ours). */
#define HW_GPU_DIMS(D)                                                                             \
    D(PCT, "%", "ratio", 0.01)                                                                     \
    D(MIB, "MiB", "bytes", 1048576.0)                                                              \
    D(W, "W", "watts", 1)                                                                          \
    D(C, "C", "celsius", 1)                                                                        \
    D(MHZ, "MHz", "hertz", 1e6)
enum hw_gpu_dim {
#define HW_GPU_DIM_ENUM(id, ...) HW_GPU_DIM_##id,
    HW_GPU_DIMS(HW_GPU_DIM_ENUM)
#undef HW_GPU_DIM_ENUM
    HW_GPU_DIM_COUNT
};
struct hw_gpu_dim_def {
    const char *unit;      /* "MiB" */
    const char *prom_unit; /* "bytes" */
    double prom_scale;     /* bytes per MiB */
};
extern const struct hw_gpu_dim_def hw_gpu_dims[HW_GPU_DIM_COUNT];

/* What a figure is, beside its numbers (hw_gpu_fig.flags). */
enum hw_gpu_fig_flag {
    HW_GF_PYTYCHE = 1u << 0,   /* in pytyche's list: exactly the figures of version 1 (since 1) */
    HW_GF_MAY_NA = 1u << 1,    /* a board that answers [N/A] for it is normal: not a placeholder
                                  the data-quality notes count (datacenter boards have no fan) */
    HW_GF_WHEN_SEEN = 1u << 2, /* outputs show it only where a run measured it */
    /* the views that show a column of a GPU's figures (the text report, JSON and Prometheus
       show every figure): */
    HW_GF_PAGE = 1u << 3, /* the page's Per GPU table (its mean; memory used: its peak of total) */
    HW_GF_LIVE = 1u << 4, /* summarize --live's screen and log line (its latest value) */
};
/* Another name of a figure's field, and its preference when a header has several. */
struct hw_gpu_alias {
    const char *field;
    int pref;
};
/* Where amdgpu's kernel driver says a figure: a file relative to the card's device/ ("H/": its
 * hwmon/hwmonN/), one to try when it is missing, the factor to the figure's unit. */
struct hw_gpu_amd {
    const char *file, *alt;
    double scale;
};
/* One GPU figure of hw_metrics.csv (hw_gpu_figs[], by enum hw_gpu_metric). */
struct hw_gpu_fig {
    const char *key;   /* "util_pct": summary.json's, the reader's */
    const char *field; /* "utilization.gpu": the --query-gpu field */
    int pref;          /* the field's preference among the figure's names in one header */
    const struct hw_gpu_alias *aliases; /* its other fields, ended by {NULL}; NULL: none */
    enum hw_gpu_dim dim;
    int since;      /* the field-list version that added it to hwmon's default list; 0: never */
    unsigned flags; /* enum hw_gpu_fig_flag */
    const char *stem;  /* the Prometheus name's: hwrun_<stem>_<prom_unit of the dimension> */
    const char *label; /* the text report's and the page's */
    const char *help;  /* what it is */
    int decimals;      /* what nvidia-smi prints (power: 2), which AMD's rows print too */
    const char *head;  /* the live screen's column head, short (80 columns hold a GPU's row);
                          NULL: the label in capitals. A head that names the unit gets bare
                          numbers. */
    const char *word;  /* the live log line's key; NULL: gpu_<key> */
    struct hw_gpu_amd amd; /* its AMD source (hwmon/amdgpu.c); .file NULL: AMD writes [N/A] */
};

/* hw_metrics.csv's figures, one entry each, in the file's order (hw_gpu_figs[], designated
 * initializers in runlog/common/hw_rundir.c, which says each one's field, version, unit and the
 * rest). Every output iterates the table: the field lists (below), the readers' field map, text,
 * JSON, the page, the live view, Prometheus, the data-quality notes, AMD's row writer and the
 * fake nvidia-smi's answers. test_summarize.outputs.every_gpu_figure requires every entry's key,
 * label, dimension, stem and help, and HW_GF_PYTYCHE exactly on version 1's.
 *
 * A new figure recorded by default takes the next version (hw_gpu_field_version() + 1): its
 * field is appended after uuid, so files of older hwmons, headerless, keep their width and still
 * read. Its AMD file, if amdgpu has one, is its .amd. */
enum hw_gpu_metric {
    HW_GM_UTIL,      /* utilization.gpu */
    HW_GM_MEM_UTIL,  /* utilization.memory */
    HW_GM_MEM_USED,  /* memory.used */
    HW_GM_MEM_TOTAL, /* memory.total */
    HW_GM_POWER,     /* power.draw */
    HW_GM_TEMP,      /* temperature.gpu */
    HW_GM_SM_CLOCK,  /* clocks.current.sm */
    HW_GM_MEM_CLOCK, /* clocks.current.memory */
    HW_GM_GR_CLOCK,  /* clocks.current.graphics */
    HW_GM_FAN,       /* fan.speed */
    HW_GPU_FIG_COUNT
};
extern const struct hw_gpu_fig hw_gpu_figs[HW_GPU_FIG_COUNT];

/* hw_metrics.csv has no header: these are the --query-gpu fields, built from hw_gpu_figs[] once
 * (at first use, thread-safe; the strings live as long as the program). pytyche's 9, in its
 * order (the table's entries marked so). hwmon's default list, version 1: the fields recorded
 * since version 1, then what tells GPUs apart; each later version appends the fields that joined
 * with it. The start event's gpu_query_fields says which a run used; a file without one is read
 * by its width as one of these lists (runlog/rundir/read_gpu.c). A version is 1 to
 * HW_GPU_FIELD_VERSIONS_MAX (a since beyond it stops the program at the first use of a list:
 * test_summarize.outputs.every_gpu_figure fails first). */
#define HW_GPU_FIELD_VERSIONS_MAX 8
/* the version hwmon writes: the table's highest since */
int hw_gpu_field_version(void);
/* version v's list (1 to hw_gpu_field_version()); NULL for another v */
const char *hw_gpu_fields(int v);
/* hwmon's list: the version it writes */
const char *hw_gpu_fields_default(void);
/* pytyche's: version 1's figures (HW_GF_PYTYCHE), without what tells GPUs apart */
const char *hw_gpu_fields_pytyche(void);
/* The list of version v (0: pytyche's) of the n figures of figs, as the functions above build
 * it from hw_gpu_figs, into out (cap bytes, '\0'-ended): its length, >= cap when it did not fit
 * (the tests build it from a table with an entry added). */
size_t hw_gpu_fields_of(const struct hw_gpu_fig *figs, size_t n, int v, char *out, size_t cap);

/* gpu_procs.csv (no header): --query-compute-apps fields; process_name last (it may hold ", "). */
#define HW_GPU_PROCS_FIELDS HW_COL_TIMESTAMP ",gpu_uuid,pid,used_gpu_memory,process_name"

/* cpu_metrics.csv: HW_COL_TIMESTAMP, then these in this order. The cgroup group (HW_CPU_COL_CG_*)
 * is written only inside a cgroup whose files hwmon can read; the disk, network and free-space
 * group always (cells empty when unmeasured; disk_* and net_* are bytes since the previous row).
 * An empty cgroup_cpu_limit_cores or cgroup_mem_max_mib means no limit: not a placeholder.
 * summarize's enum hw_cpu_col is this enum. */
#define HW_CPU_CG_LIMIT "cgroup_cpu_limit_cores"
#define HW_CPU_CG_PCT "cgroup_cpu_pct"
#define HW_CPU_CG_MEM "cgroup_mem_current_mib"
#define HW_CPU_CG_MEM_MAX "cgroup_mem_max_mib"
#define HW_CPU_CG_MEM_PEAK "cgroup_mem_peak_mib" /* the kernel's peak counter */
#define HW_CPU_DISK_READ "disk_read_bytes"
#define HW_CPU_DISK_WRITE "disk_write_bytes"
#define HW_CPU_NET_RX "net_rx_bytes"
#define HW_CPU_NET_TX "net_tx_bytes"
#define HW_CPU_FS_FREE "fs_free_mib"
enum hw_cpu_col {
    HW_CPU_COL_USR,
    HW_CPU_COL_IDLE,
    HW_CPU_COL_SYS,
    HW_CPU_COL_IOWAIT,
    HW_CPU_COL_STEAL,
    HW_CPU_COL_MEM_USED,
    HW_CPU_COL_MEM_AVAIL,
    HW_CPU_COL_CG_LIMIT,
    HW_CPU_COL_CG_PCT,
    HW_CPU_COL_CG_MEM,
    HW_CPU_COL_CG_MEM_MAX,
    HW_CPU_COL_CG_MEM_PEAK,
    HW_CPU_COL_DISK_READ,
    HW_CPU_COL_DISK_WRITE,
    HW_CPU_COL_NET_RX,
    HW_CPU_COL_NET_TX,
    HW_CPU_COL_FS_FREE,
    /* /proc/meminfo's parts (resource-tracker's system memory), MiB: MemTotal, MemFree, Buffers,
     * Cached, Active(anon), Inactive(anon); added later, so after the others */
    HW_CPU_COL_MEM_TOTAL,
    HW_CPU_COL_MEM_FREE,
    HW_CPU_COL_MEM_BUFFERS,
    HW_CPU_COL_MEM_CACHED,
    HW_CPU_COL_MEM_ACTIVE_ANON,
    HW_CPU_COL_MEM_INACTIVE_ANON,
    /* SReclaimable (the slab the kernel can free: psutil counts it in "cached", so its "used",
     * gpu_tracker's system RAM, leaves it out); added later still */
    HW_CPU_COL_MEM_SRECLAIMABLE,
    HW_CPU_COL_COUNT
};
#define HW_CPU_COL_FIRST_CGROUP HW_CPU_COL_CG_LIMIT
#define HW_CPU_COL_FIRST_IO HW_CPU_COL_DISK_READ /* the end of the cgroup group */
extern const char *const hw_cpu_cols[HW_CPU_COL_COUNT]; /* "usr_pct", ... */

/* proc_metrics.csv: HW_COL_TIMESTAMP, then these in this order; pss_mib only with PSS on
 * (--no-pss leaves the column out). summarize's enum hw_proc_col is this enum. */
enum hw_proc_col {
    HW_PROC_COL_PROCS,
    HW_PROC_COL_THREADS,
    HW_PROC_COL_CPU,
    HW_PROC_COL_RSS,
    HW_PROC_COL_READ,
    HW_PROC_COL_WRITE,
    HW_PROC_COL_PSS,
    HW_PROC_COL_MAIN_RSS, /* the tracked process alone (without descendants) */
    HW_PROC_COL_MAIN_CPU,
    HW_PROC_COL_MAIN_THREADS,
    HW_PROC_COL_USR_CPU, /* the tree's CPU split into user and system time */
    HW_PROC_COL_SYS_CPU,
    /* the tree's resident pages mapped by one process only / by more (smaps_rollup's
     * Private_* and Shared_*, gpu_tracker's private and shared RSS), read with PSS */
    HW_PROC_COL_PRIVATE,
    HW_PROC_COL_SHARED,
    /* the rest of /proc/PID/io, summed over the tree like read_bytes and write_bytes */
    HW_PROC_COL_RCHAR,
    HW_PROC_COL_WCHAR,
    HW_PROC_COL_SYSCR,
    HW_PROC_COL_SYSCW,
    HW_PROC_COL_CANCELLED,
    /* the tracked process's own private and shared resident memory (HW_PROC_COL_PRIVATE and
     * HW_PROC_COL_SHARED of the main process alone: the descendants' are the tree's minus
     * these), read with PSS; added later, so after the others */
    HW_PROC_COL_MAIN_PRIVATE,
    HW_PROC_COL_MAIN_SHARED,
    /* shared resident memory counted once per mapped path, as gpu_tracker counts it (hwmon
     * --shared-once; empty without): of the tree, of the main process, of its descendants
     * (not the tree's minus the main's: a path both map counts once in each) */
    HW_PROC_COL_SHARED_ONCE,
    HW_PROC_COL_MAIN_SHARED_ONCE,
    HW_PROC_COL_DESC_SHARED_ONCE,
    HW_PROC_COL_COUNT
};
extern const char *const hw_proc_cols[HW_PROC_COL_COUNT]; /* "procs", ... */
/* The hwmon option a column is written under, or against (NULL: written in every run): a column
 * of one that is empty in every row was not recorded (the option was off), and its cells are no
 * placeholders (unmeasured) */
extern const char *const hw_proc_col_option[HW_PROC_COL_COUNT];

/* tree_pids.csv: a row when a pid joins the tracked tree (in_tree 1) or leaves it (0);
 * summarize joins it with gpu_procs.csv so that the tree's GPU memory counts its own pids. */
#define HW_TREE_PIDS_COL_PID "pid"
#define HW_TREE_PIDS_COL_IN "in_tree"
#define HW_TREE_PIDS_HEADER HW_COL_TIMESTAMP "," HW_TREE_PIDS_COL_PID "," HW_TREE_PIDS_COL_IN

/* hw_health.csv: why a GPU was slow and whether it was healthy, from a --query-gpu child of its
 * own (a field a driver rejects never stops hw_metrics.csv, which pytyche reads as it is):
 * `--query-gpu=timestamp,index,<fields> --format=csv,nounits -lms N`, with nvidia-smi's header
 * (canonical names, units kept under nounits). The fields are these, in this order, those the
 * driver lists in --help-query-gpu (the start event's health_fields says which); a field a GPU
 * lacks prints a placeholder. HW_HEALTH_REASONS' old name (drivers before the rename) is
 * HW_HEALTH_REASONS_OLD. summarize's enum sum_hm is this enum. */
enum hw_health_col {
    HW_HEALTH_UTIL,          /* utilization.gpu: "under load" for the PCIe link */
    HW_HEALTH_PSTATE,        /* P0..P12 */
    HW_HEALTH_SM_CLOCK,      /* clocks.current.sm [MHz] */
    HW_HEALTH_SM_CLOCK_MAX,  /* clocks.max.sm [MHz] */
    HW_HEALTH_TLIMIT,        /* temperature.gpu.tlimit: degrees C below the GPU's T.Limit */
    HW_HEALTH_POWER_INSTANT, /* power.draw.instant [W] */
    HW_HEALTH_POWER_AVERAGE, /* power.draw.average [W] (1 s average, Ampere and newer) */
    HW_HEALTH_POWER_LIMIT,   /* power.limit [W] */
    HW_HEALTH_POWER_ENFORCED, /* enforced.power.limit [W] */
    HW_HEALTH_REASONS,       /* clocks_event_reasons.active: NVML's bitmask, 0x + 16 hex */
    HW_HEALTH_CNT_SW_POWER,  /* clocks_event_reasons_counters.* [us], cumulative */
    HW_HEALTH_CNT_HW_POWER_BRAKE,
    HW_HEALTH_CNT_SW_THERMAL,
    HW_HEALTH_CNT_HW_THERMAL,
    HW_HEALTH_CNT_SYNC_BOOST,
    HW_HEALTH_ECC_CORRECTED,   /* ecc.errors.*.volatile.total: since the driver loaded */
    HW_HEALTH_ECC_UNCORRECTED,
    HW_HEALTH_RETIRED_PENDING, /* retired_pages.pending: Yes/No */
    HW_HEALTH_REMAP_PENDING,   /* remapped_rows.pending: Yes/No */
    HW_HEALTH_REMAP_FAILURE,   /* remapped_rows.failure: Yes/No */
    HW_HEALTH_PCIE_GEN,        /* pcie.link.gen.current */
    HW_HEALTH_PCIE_GEN_MAX,
    HW_HEALTH_PCIE_WIDTH,      /* pcie.link.width.current */
    HW_HEALTH_PCIE_WIDTH_MAX,
    HW_HEALTH_COUNT
};
extern const char *const hw_health_fields[HW_HEALTH_COUNT]; /* "utilization.gpu", ... */
#define HW_HEALTH_REASONS_OLD "clocks_throttle_reasons.active"
/* NVML's clock event reason bits (nvmlClocksEventReason*), as clocks_event_reasons.active
 * prints them. */
#define HW_REASON_GPU_IDLE 0x1ull
#define HW_REASON_APP_CLOCKS 0x2ull
#define HW_REASON_SW_POWER_CAP 0x4ull
#define HW_REASON_HW_SLOWDOWN 0x8ull
#define HW_REASON_SYNC_BOOST 0x10ull
#define HW_REASON_SW_THERMAL 0x20ull
#define HW_REASON_HW_THERMAL 0x40ull
#define HW_REASON_HW_POWER_BRAKE 0x80ull

/* hw_energy.csv: the GPUs' energy counters (NVML's nvmlDeviceGetTotalEnergyConsumption,
 * millijoules since the driver loaded, Volta and newer), read by the sampler thread at the start,
 * at every sample and at every edge sample (the last column, as in cpu_metrics.csv): HW_COL_TIMESTAMP
 * (ours, ISO 8601 UTC), the GPU's index, the counter, edge. */
#define HW_ENERGY_COL_INDEX "index"
#define HW_ENERGY_COL_MJ "energy_mj"
#define HW_ENERGY_HEADER                                                                           \
    HW_COL_TIMESTAMP "," HW_ENERGY_COL_INDEX "," HW_ENERGY_COL_MJ "," HW_COL_EDGE
/* The start event's energy_counter: {"source": "nvml", "gpus": [indexes]} or {"error": why}. */
#define HW_START_ENERGY_COUNTER "energy_counter"

/* hw_pmon.csv (--pmon): `nvidia-smi pmon -s um -o DT -d N`: per GPU and interval, a line per
 * process on it (pid, type, fb, ccpm, sm, mem, ..., command) or one line of "-" for none;
 * whitespace columns named by the "#Date Time gpu pid ..." header, the command's name last
 * (it may hold spaces). N is the interval in whole seconds, 1 to 10 (pmon's range). */
#define HW_PMON_SELECT "um"
#define HW_PMON_MAX_D 10

/* hw_gpm.csv: `nvidia-smi dmon -s u --gpm-metrics <ids> -o DT -d N` (GPM: Hopper and newer),
 * utilization next to GPM activity, with a date and time per row so that summarize can place
 * the rows in phases. */
#define HW_GPM_SELECT "u"
#define HW_GPM_METRIC_IDS "1,2,3,5,10,11,12,13"
/* The labels dmon prints for those ids, in id order (dmon_gpm-metrics_h800 capture): graphics
 * activity, SM activity, SM occupancy, tensor activity, DRAM activity, FP64, FP32, FP16
 * activity; all in percent (unit row "GPM:%"). */
#define HW_GPM_COLUMNS "gract", "smutil", "smocc", "mmaact", "dram", "fp64", "fp32", "fp16"
#define HW_GPM_NCOLS 8
/* The names summarize gives them in summary.json, in the same order. */
#define HW_GPM_KEYS                                                                                \
    "gr_active_pct", "sm_active_pct", "sm_occupancy_pct", "tensor_active_pct", "dram_active_pct",  \
        "fp64_active_pct", "fp32_active_pct", "fp16_active_pct"
/* The probe (is there GPM at all?) asks for SM activity alone; this is its label. */
#define HW_GPM_PROBE_ID "2"
#define HW_GPM_PROBE_COLUMN "smutil"

/* ---- run.jsonl ------------------------------------------------------------------------------ */

/* The members of every entry, in pytyche's RunLog shapes (librunlog writes them):
 *   {"ts": ..., "type": "phase", "name": ..., "seconds": ..., extra...}
 *   {"ts": ..., "type": "event", "event": ..., "data": {...}} */
#define HW_RL_TS "ts"
/* How every entry begins, as librunlog (and pytyche's json.dumps) writes it: where a reader
 * finds an entry again after a torn one */
#define HW_RL_TS_OPEN "\"" HW_RL_TS "\": \""
#define HW_RL_LINE_START "{" HW_RL_TS_OPEN
#define HW_RL_TYPE "type"
#define HW_RL_PHASE "phase"
#define HW_RL_EVENT "event"
#define HW_RL_NAME "name"
#define HW_RL_SECONDS "seconds"
#define HW_RL_DATA "data"
/* A phase's begin entry, paired with its phase entry by phase_id (runlog.h rl_phase_begin):
 *   {"ts": ..., "type": "phase_begin", "name": ..., "phase_id": ..., extra...} */
#define HW_RL_PHASE_BEGIN RL_PHASE_BEGIN
#define HW_RL_PHASE_ID RL_PHASE_ID
/* The framework's own allocator figures (the Python package: JAX or PyTorch), on a phase's
 * entries under this key and as the data of an event of this name:
 *   {"framework": "jax", "device": 0, "peak_mib": ..., "in_use_mib": ..., "pool_mib": ...} */
#define HW_FWMEM "framework_memory"
#define HW_FWMEM_FRAMEWORK "framework"
#define HW_FWMEM_PEAK "peak_mib"
#define HW_FWMEM_POOL "pool_mib"
#define HW_FWMEM_JAX "jax"

/* The events hwmon logs (FORMAT.md "run.jsonl: hwmon's events"). */
#define HW_EV_START "start"
/* events whose data are numbers the job logged about itself: metric.KEY columns (summarize) */
#define HW_EV_METRIC "metric"
#define HW_EV_METRICS "metrics"
/* the start event's GPU source: "nvidia-smi" or "amdgpu" (hwmon/amdgpu.h) */
#define HW_START_GPU_SOURCE "gpu_source"
#define HW_EV_STOP "stop"
#define HW_EV_GPU_UNAVAILABLE "gpu_unavailable"
#define HW_EV_GPU_FIELDS_FALLBACK "gpu_fields_fallback"
#define HW_EV_CHILD_EXIT "child_exit"
#define HW_EV_CHILD_RESTART "child_restart"
#define HW_EV_CHILD_HUNG "child_hung"
#define HW_EV_GPM_UNAVAILABLE "gpm_unavailable"
/* --pmon asked for per-process shares the GPU source cannot give (AMD): data {reason} */
#define HW_EV_PMON_UNAVAILABLE "pmon_unavailable"
/* Any event's data may say "severity": "info": a fact about the machine, not an error, whatever
 * its name says (gpm_unavailable when GPM was not asked for: most GPUs have none). */
#define HW_EV_SEVERITY "severity"
#define HW_EV_SEVERITY_INFO "info"
/* the job's CUDA_VISIBLE_DEVICES names GPUs not here: data {source, asked, selected, unmapped} */
#define HW_EV_GPU_SELECTION_FALLBACK "gpu_selection_fallback"
/* a stop signal reached hwmon while the job ran (hwmon/stopsig.h): data {signal, signal_name,
 * from: "process" | "terminal" | "scheduler" | "container", sender_pid, sender, forwarded,
 * kill_after_s: hwmon's own SIGKILL of what is left (absent: the sender's business), grace_of} */
#define HW_EV_STOP_REQUEST "stop_request"
#define HW_STOPREQ_SIGNAL "signal"
#define HW_STOPREQ_SIGNAL_NAME "signal_name"
#define HW_STOPREQ_FROM "from"
#define HW_STOPREQ_SENDER_PID "sender_pid"
#define HW_STOPREQ_SENDER "sender"
#define HW_STOPREQ_FORWARDED "forwarded"
#define HW_STOPREQ_KILL_AFTER "kill_after_s"
/* no kill_after_s because a scheduler or runtime owns the job's life and gives the grace:
 * "slurm", "kubernetes" or "systemd" (hwmon/stopsig.h's mon_life_owner) */
#define HW_STOPREQ_GRACE_OF "grace_of"
/* true: the sender signalled hwmon's whole process group, the job's main process with it
 * (scancel --full, kill -- -PGID): the job has it, it is not sent again (absent: not so) */
#define HW_STOPREQ_GROUP "to_group"
/* why the scheduler stopped the job, where it can be said (hwmon/stopsig.h): "time_limit" (its
 * end time reached: SLURM_JOB_END_TIME, or slurmctld's Reason=TimeLimit), "preempted"; absent: a
 * cancel, or not known */
#define HW_STOPREQ_CAUSE "cause"
/* a signal that is the job's reached hwmon (hwmon/stopsig.h's MON_SIG_PASS: USR1, USR2, CONT,
 * WINCH, ...): data as stop_request's {signal, signal_name, from, sender_pid, sender, forwarded,
 * processes_signalled, severity: "info"}; hwmon goes on */
#define HW_EV_SIGNAL "signal"
/* the wall clock stepped while hwmon ran (hwrun/timeutil.h's hw_clock_step): data {step_s,
 * severity: "info"}; rows written after it carry the new time, durations (the stop event's
 * duration_s) come from the monotonic clock and do not move */
#define HW_EV_CLOCK_STEP "clock_step"
#define HW_CLOCK_STEP_KEY "step_s"
/* The run log's name followed (librunlog's rl_follow, hwmon's follower): a writer that made
 * run.jsonl again after a rotation wrote this first, data {previous, pid, severity: "info"};
 * hwmon says what it saw, data {how: HW_LOG_HOW_*, previous, bytes (truncated: where it had
 * read to)}. previous: the earlier lines' file, its name when in the same directory (summarize
 * reads it first), else its path, else null (deleted). */
#define HW_EV_LOG_CONTINUED "log_continued"
#define HW_EV_LOG_ROTATED "log_rotated"
#define HW_LOG_PREVIOUS "previous"
#define HW_LOG_HOW "how"
#define HW_LOG_BYTES "bytes"
#define HW_LOG_HOW_RENAMED "renamed"     /* the file is elsewhere, a new one has the name */
#define HW_LOG_HOW_DELETED "deleted"     /* gone with its lines; a new one has the name */
#define HW_LOG_HOW_TRUNCATED "truncated" /* cut to 0 in place (logrotate's copytruncate) */
/* A GPU fault in nvidia-smi's own words (hw_gpu_faults below): data {said: the line that said
 * it (a row with the words in a cell, or a message), child, gpu: the bus id or UUID the line
 * names (absent when it names none)}. Once per fault and GPU in a run. */
#define HW_EV_GPU_LOST "gpu_lost"
#define HW_EV_GPU_RESET_REQUIRED "gpu_reset_required"
#define HW_FAULT_SAID "said"
#define HW_FAULT_GPU "gpu"
#define HW_EV_COUNT 18
/* every event hwmon logs (and log_continued, a writer's after a rotation): the vocabulary tests
 * check runs and the docs against it */
extern const char *const hw_events[HW_EV_COUNT];

/* GPU faults as NVML's error strings name them (nvmlErrorString: NVML_ERROR_GPU_IS_LOST,
 * NVML_ERROR_RESET_REQUIRED); nvidia-smi prints them in brackets in a cell
 * ("[GPU requires reset]": every sensor cell of a faulted H100, testdata/nvsmi-real) or in a
 * message ("Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost.  Reboot
 * the system to recover this GPU"). hwmon logs the event, summarize names the fault per GPU. */
enum hw_gpu_fault { HW_GPU_FAULT_NONE, HW_GPU_FAULT_LOST, HW_GPU_FAULT_RESET, HW_GPU_FAULT_COUNT };
struct hw_gpu_fault_def {
    const char *words; /* what nvidia-smi says, matched case-sensitively anywhere in a line */
    const char *event; /* the run.jsonl event hwmon logs */
    const char *key;   /* summarize's name of it (gpus[].fault.kind) */
    const char *todo;  /* what the node's admin does about it */
};
extern const struct hw_gpu_fault_def hw_gpu_faults[HW_GPU_FAULT_COUNT]; /* [NONE]: all NULL */
/* The fault whose words the n bytes at s hold, or HW_GPU_FAULT_NONE. */
int hw_gpu_fault_in(const char *s, size_t n);

/* The event whose data summarize reads as the run's parameters by default (--params). */
#define HW_EV_CONFIG "config"
/* The event the owner of an attached hwmon (a script that started `hwmon -p` on itself: the
 * Python Monitor) logs when the block it watched ended, before it stops hwmon: the run ended as
 * its owner wanted, "ok", or "failed" with the exception. data {status, exception, message} */
#define HW_EV_MONITOR_END "monitor_end"
#define HW_MONEND_STATUS "status"
#define HW_MONEND_EXCEPTION "exception"
#define HW_MONEND_MESSAGE "message"
#define HW_MONEND_HWMON_PID "hwmon_pid" /* the hwmon it stops: its start event may follow */

/* Data keys that summarize reads (hwmon writes more: FORMAT.md). */
#define HW_START_INTERVAL "interval_s"
/* seconds from hwmon's start to its start event: the probes a wrapped job runs beside; the
 * event's time less them is when hwmon began, when no stop event says so */
#define HW_START_SETUP "setup_s"
#define HW_START_SMI_TZ "smi_tz"
#define HW_START_GPU_FIELDS "gpu_query_fields"
#define HW_START_HEALTH_FIELDS "health_fields" /* hw_health.csv's fields after index */
#define HW_START_HWMON_PID "hwmon_pid"
#define HW_START_HOST "host"
#define HW_START_CPUS "cpus" /* the machine's online CPUs */
#define HW_START_GPUS "gpus" /* the machine's GPUs (nvidia-smi -L): [{index, name, uuid}] */
/* start and stop events: the file systems the job can write, with their space then:
 * [{mount, fstype, total_mib, used_mib, free_mib}] */
#define HW_EV_FILESYSTEMS "filesystems"
#define HW_FS_MOUNT "mount"
#define HW_FS_TYPE "fstype"
#define HW_FS_TOTAL "total_mib"
#define HW_FS_USED "used_mib"
#define HW_FS_FREE "free_mib"
#define HW_START_COMMAND "command"
/* The command is a launcher whose ranks run under other processes (srun, mpirun, ...): "srun".
 * The process tree is then the launcher's alone (hwmon(1), LAUNCHERS). */
#define HW_START_LAUNCHER "launcher"
#define HW_START_CGROUP "cgroup"
/* Under SLURM: slurm.conf's ProctrackType ("proctrack/cgroup"), which says whether a cancel's
 * SIGTERM reaches the job's processes or hwmon alone (hwmon/stopsig.h). */
#define HW_START_SLURM_PROCTRACK "slurm_proctrack"
/* Where the run ran, as the scheduler and the launcher say: the start event's "context" object,
 * each key below with its value as a string (absent when nothing set it), read from the job's
 * environment (the command's, or with -p the process's when hwmon may read it). summarize
 * shows it as "context" and as job.KEY sweep-row columns, to join with sacct or launcher logs. */
#define HW_START_CONTEXT "context"
/* With a job id in the context: which hwmon samples this node's GPUs for the job and GPU set
 * (hwmon/nodelock.h): {role: "primary" | "secondary", pid, dir}; a secondary ran no
 * nvidia-smi. */
#define HW_START_GPU_SAMPLER "gpu_sampler"
#define HW_SAMPLER_ROLE "role"
#define HW_SAMPLER_PRIMARY "primary"
#define HW_SAMPLER_SECONDARY "secondary"
#define HW_SAMPLER_PID "pid"
#define HW_SAMPLER_DIR "dir"
/* A secondary took the node's GPU sampler over (hwmon/nodelock.h): the hwmon that sampled them
 * ended while this one's job ran. data {role: "primary", pid, dir (this hwmon, its run
 * directory), previous: {pid, dir} (the sampler before it, as the lock named it: pid 0 and dir
 * "" when not known), probe_s (the GPU source's start questions, GPUs unsampled meanwhile),
 * severity: "info"} and the GPU source's facts as a sampler's start event has them (gpu_source,
 * gpu_query_fields, children, gpus, driver_version, gpu_indexes, energy_counter, health_fields,
 * gpm, pmon). The run's GPU files begin at it. */
#define HW_EV_GPU_SAMPLER "gpu_sampler"
#define HW_SAMPLER_PREVIOUS "previous"
#define HW_SAMPLER_PROBE "probe_s"
enum hw_ctx {
    HW_CTX_HOST, /* the node name (uname), not the environment */
    HW_CTX_SLURM_JOB_ID,
    HW_CTX_SLURM_ARRAY_JOB_ID,
    HW_CTX_SLURM_ARRAY_TASK_ID,
    HW_CTX_SLURM_STEP_ID,
    HW_CTX_SLURM_NODE_ID,
    HW_CTX_SLURM_NODE_NAME, /* SLURM's name of the node (SLURMD_NODENAME), which may differ from
                             * the host name */
    HW_CTX_SLURM_PROC_ID,
    HW_CTX_SLURM_LOCAL_ID,
    HW_CTX_SLURM_NTASKS,
    HW_CTX_SLURM_NODELIST,
    HW_CTX_SLURM_JOB_NAME,
    HW_CTX_K8S, /* "true" inside a Kubernetes pod (KUBERNETES_SERVICE_HOST is set) */
    HW_CTX_K8S_POD,
    HW_CTX_K8S_NAMESPACE,
    HW_CTX_K8S_NODE,
    HW_CTX_RANK, /* torchrun, Open MPI, MPICH/PMI, PMIx */
    HW_CTX_LOCAL_RANK,
    HW_CTX_WORLD_SIZE,
    HW_CTX_LOCAL_WORLD_SIZE,
    /* added after the sweep rows' columns were fixed: the rows append these at their end */
    HW_CTX_SLURM_RESTART_COUNT, /* a requeued job's attempt (0 the first; unset: not requeued) */
    HW_CTX_COUNT
};
/* The context keys whose job.KEY columns sit at their place in the rows; later keys' columns
 * are appended at the rows' end, so that column positions stay. */
#define HW_CTX_ROW_FIXED HW_CTX_SLURM_RESTART_COUNT
struct hw_ctx_def {
    const char *key;    /* "slurm_job_id": the context's key; the sweep column is job.KEY */
    const char *env[4]; /* the variables that say it, the first set one wins */
};
extern const struct hw_ctx_def hw_ctx_defs[HW_CTX_COUNT];
#define HW_START_MODE "mode" /* "wrap", "attach" or "system" */
/* The tracked process (the main process of the tree; absent in system mode), and whether its
 * descendants were tracked with it (false under --no-children: the descendants' figures are
 * then unmeasured, not 0). */
#define HW_START_PID "pid"
#define HW_START_DESCENDANTS "descendants"
#define HW_MODE_ATTACH "attach"
/* Whether hwmon saw the host's pids ("init"), the ones nvidia-smi prints, or a container's. */
#define HW_PIDNS_KEY "pid_namespace"
#define HW_PIDNS_INIT "init"
#define HW_PIDNS_OTHER "other"
#define HW_FALLBACK_FIELDS "fields"
/* How many CPUs the job may run on (its affinity mask): summarize's expected cores when the
 * cgroup sets no CPU quota. */
#define HW_CPUS_ALLOWED_KEY "cpus_allowed"
#define HW_STOP_DURATION "duration_s"
#define HW_STOP_EXIT_STATUS "exit_status"
#define HW_STOP_REASON "reason"
/* the job's processes still running when its main process exited; with --leave-running, their
 * pids; a sampler that could not start, its error */
#define HW_STOP_PROCESSES_LEFT "processes_left"
#define HW_STOP_LEFT_RUNNING "left_running"
#define HW_STOP_SAMPLER_ERROR "sampler_error"
/* attach mode: was the watched process still alive when hwmon stopped? (hwmon is not its
 * parent: its exit status cannot be known) */
#define HW_STOP_PROCESS_ALIVE "process_alive"
/* wrap mode: the command's peak RSS as the kernel kept it (wait4's ru_maxrss, KiB): its own
 * and that of the children it waited for, whatever the sampling saw */
#define HW_STOP_MAIN_PEAK_RSS_KIB "main_peak_rss_kib"
/* how many processes of the job's cgroup the kernel's OOM killer killed while hwmon ran (v2
 * memory.events, v1 memory.oom_control "oom_kill"; null when the kernel does not count them),
 * and the cgroup's memory limit at the stop (null: none or unknown); both absent without a
 * memory cgroup */
#define HW_STOP_OOM_KILLS "oom_kills"
/* rows written into each file hwmon writes itself, and of those the ones a failed write lost (a
 * full disk): {"cpu": N, "proc": N, "tree_pids": N}, keyed by the files' stems (HW_RUN_FILES),
 * every file hwmon writes, 0 for one the run did not make */
#define HW_STOP_SAMPLES "samples"
#define HW_STOP_SAMPLES_LOST "samples_lost"
#define HW_STOP_CGROUP_MEMORY_MAX_MIB "cgroup_memory_max_mib"
/* wrap mode: the CPU seconds, user and system, of the command and of the descendants it waited
 * for (wait4's ru_utime + ru_stime): the job's CPU time as the kernel counted it, which sacct's
 * TotalCPU also counts */
#define HW_STOP_CPU_S "cpu_s"

/* A phase's outcome, as `runlog time` and the Python package log it. */
/* The training steps a phase covered (log.phase("train", steps=1000)); else each phase named
 * HW_PHASE_STEP_NAME is one. summarize divides the run's time and energy by them. */
#define HW_PHASE_STEPS "steps"
#define HW_PHASE_STEP_NAME "step"
#define HW_PHASE_EXIT_STATUS "exit_status"
#define HW_PHASE_SIGNAL "signal"
#define HW_PHASE_EXCEPTION "exception"
/* the exception's message, cut to HW_PHASE_EXCEPTION_MESSAGE_MAX characters (the Python package) */
#define HW_PHASE_EXCEPTION_MESSAGE "exception_message"
#define HW_PHASE_EXCEPTION_MESSAGE_MAX 200

/* A sample within this many seconds of a phase's begin or end read its counters there
 * (summarize calls the edge "measured"): HW_EDGE_TOL_S, or a quarter of the interval when that is
 * less. hwmon takes an edge sample where no earlier one is within it. */
#define HW_EDGE_TOL_S 0.1
static inline double hw_edge_tol(double interval_s)
{
    return interval_s == interval_s && interval_s / 4 < HW_EDGE_TOL_S ? interval_s / 4
                                                                      : HW_EDGE_TOL_S;
}

#endif
