/* A GPU source: one descriptor owns all a vendor's GPUs need. It says whether its tool or files
 * are there (auto picks the first source that is), asks once what GPUs there are, names the
 * children it then runs (each writing one run file, as the tool prints it: the tool dates its
 * lines) and the run files the sampler thread writes for it (rows read from files or a library,
 * dated by hwmon's clock), and says what it found in vendor-neutral facts. run.c picks one from
 * mon_gpu_sources[] (detected, or --gpu-source) and never asks which vendor it is; summarize,
 * the live state and the Prometheus export read the files by meaning.
 *
 * nvidia-smi (gpusrc_nvsmi.c, over smiprobe.c: children, and NVML's energy counters read in the
 * thread) is the first, AMD's amdgpu files (gpusrc_amd.c, over amdgpu.h: everything read in the
 * thread) the second. A third is a file beside them and an entry of the list.
 *
 * Nothing here prints: a source says what it found (struct mon_gpu_facts) and run.c logs it. */
#ifndef HWMON_GPUSRC_H
#define HWMON_GPUSRC_H

#include <stdbool.h>
#include <stddef.h>

#include "hwrun/buf.h"
#include "hwrun/rundir.h"

struct mon_gpusel;
struct mon_tree;

/* What a run asks of a source. */
struct mon_gpu_want {
    const char *tool;        /* the tool to run: a name on PATH or a path (--nvidia-smi) */
    double interval_s;       /* the sampling interval */
    bool gpm;                /* activity counters, where the GPUs have them */
    bool health;             /* clocks, throttling, power limits, errors, the link */
    bool pmon;               /* per-process shares */
    bool gpu_procs;          /* per-process memory */
    bool energy;             /* the GPUs' energy counters, where there are (not --no-nvml) */
    char *const *envp;       /* the children's environment */
    struct mon_gpusel *gsel; /* which GPUs (the probe maps the ids it can) */
    const char *gpus;        /* --gpus as given (NULL: the job's visible devices, else all) */
};

/* One child a source wants run: argv[0] is the tool; its standard output is the run file
 * `file`, whose lines come every line_interval_s (0: silence is normal, no hang rule). */
struct mon_gpu_child {
    const char *name; /* in events: "query", "dmon", ... */
    char **argv;
    enum hw_file file; /* a run file of hwrun/rundir.h's table (written by GPU) */
    double line_interval_s;
};
#define MON_GPU_CHILDREN_MAX 6

/* A field list the tool refused, and the list asked for next (a gpu_fields_fallback event). */
struct mon_gpu_fallback {
    char dropped[64];
    char fields[512];
};

/* What the source found, as the start event and the events after it say it (hwmon/FORMAT.md);
 * strings are "" when not known. Valid until the source is freed. */
struct mon_gpu_facts {
    const char *source;         /* the start event's gpu_source: "nvidia-smi", "amdgpu" */
    const char *tool_path;      /* where the tool was found */
    const char *fields;         /* the metrics file's fields, as asked (the start event's) */
    const char *driver_version;
    const char *gpus_json;      /* [{"index", "name", "uuid"}, ...] */
    const char *gpu_sel_json;   /* the selected GPUs' indexes */
    bool gpm;                   /* the activity child runs */
    const char *gpm_why;        /* why it does not */
    const char *gpm_missing;    /* JSON: the GPUs without it, when it runs */
    bool health;                /* the health child runs */
    const char *health_fields;  /* its fields */
    const struct mon_gpu_fallback *fallbacks;
    int n_fallbacks;
    bool gpm_applies;           /* the GPUs may have GPM: its absence is worth an event */
    const char *energy_json;    /* the start event's energy_counter object, "" for none */
    const char *pmon_why;       /* why --pmon's per-process shares cannot be had; "": they can */
};

/* When the sampler thread asks a source for rows: its first reading (the GPUs' counters from
 * the run's first moment), a sample of the cadence, or an edge sample (a phase began or ended:
 * hwmon/sampler.h). */
enum mon_gpu_when { MON_GPU_FIRST, MON_GPU_CADENCE, MON_GPU_EDGE };

struct mon_gpu_tick {
    const char *iso;            /* the sample's time (ISO 8601 UTC, milliseconds) */
    enum mon_gpu_when when;
    const struct mon_tree *tree; /* the job's process tree as sampled now; NULL: none */
};

#define MON_GPU_THREAD_FILES 4

struct mon_gpu_source {
    const char *name; /* "nvidia-smi", "amdgpu" (the start event's gpu_source) */
    /* Whether its tool or files are on this machine (auto's choice; no GPU is asked yet). */
    bool (*present)(const struct mon_gpu_source *s, const struct mon_gpu_want *w);
    /* Ask the tool, with timeouts, what it has. 0: the GPUs can be sampled; -1: they cannot
     * (why says why, out holds the tool's answer); -2: the selection names no GPU here, an
     * error of the run (why says so). */
    int (*probe)(struct mon_gpu_source *s, const struct mon_gpu_want *w, char *why,
                 size_t why_cap, char *out, size_t out_cap);
    /* After a probe that returned 0: the children to run, into ch[cap]; returns how many. */
    int (*children)(struct mon_gpu_source *s, const struct mon_gpu_want *w,
                    struct mon_gpu_child *ch, int cap);
    /* After a probe that returned 0: the run files (of hwrun/rundir.h's table, written by GPU)
     * it writes from the sampler thread, into files[cap]; returns how many (at most
     * MON_GPU_THREAD_FILES). */
    int (*thread_files)(struct mon_gpu_source *s, const struct mon_gpu_want *w,
                        enum hw_file *files, int cap);
    /* Thread file i's header line, appended to b for an empty file (nothing: none). */
    void (*thread_header)(const struct mon_gpu_source *s, int i, struct hw_buf *b);
    /* Thread file i's rows at this tick, appended to b (nothing: no row now). Called from the
     * sampler thread only. */
    void (*thread_rows)(const struct mon_gpu_source *s, int i, const struct mon_gpu_tick *t,
                        struct hw_buf *b);
    /* What it found (also before or without a probe: the fields it would ask for). */
    void (*facts)(const struct mon_gpu_source *s, struct mon_gpu_facts *out);
    void (*free)(struct mon_gpu_source *s);
};

/* Each source makes a new one of itself (NULL when out of memory). */
struct mon_gpu_source *mon_gpu_source_nvsmi(void); /* gpusrc_nvsmi.c */
struct mon_gpu_source *mon_gpu_source_amd(void);   /* gpusrc_amd.c */

/* The sources, in auto's order: --gpu-source's word for each, what it reads (hwmon --help's
 * list; test_hwmon.gpusrc.sources_documented checks --help and hwmon.1 against it), and its
 * maker. */
struct mon_gpu_source_def {
    const char *option; /* "nvidia", "amd" */
    const char *help;   /* "NVIDIA's, through nvidia-smi" */
    struct mon_gpu_source *(*make)(void);
};
#define MON_GPU_SOURCES 2
extern const struct mon_gpu_source_def mon_gpu_sources[MON_GPU_SOURCES];
/* The index of the source --gpu-source names by word, else -1. */
int mon_gpu_source_find(const char *option);

/* The start event's energy_counter into out[cap]: {"source": source, "gpus": [index...],
 * "note": why} when n GPUs have a counter, else {"error": why}; "" when it does not fit. */
void mon_gpu_energy_json(char *out, size_t cap, const char *source, const int *index, int n,
                         const char *why);

/* hw_energy.csv's rows at tick t: one per GPU with a counter (index[0..n)), read(state, i)
 * giving the i-th's millijoules; a counter not read this time is an empty cell, said, not
 * skipped; edge rows marked. */
void mon_gpu_energy_rows(const int *index, int n,
                         bool (*read)(const void *state, int i, unsigned long long *mj),
                         const void *state, const struct mon_gpu_tick *t, struct hw_buf *b);

/* Whether tool (a name looked up on PATH, or a path) is an executable here. */
bool mon_tool_found(const char *tool);

#endif
