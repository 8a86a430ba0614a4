/* A GPU source: the tool hwmon asks once what GPUs there are, and the children it then runs to
 * sample them, each writing one file of the run directory. run.c knows a source only through
 * struct mon_gpu_source. nvidia-smi is the first (gpusrc_nvsmi.c, over smiprobe.c). AMD's
 * amd-smi has the same shape (a probe with timeouts, then `amd-smi metric --csv -w N` children
 * printing lines on a loop, each file read by a reader kind of the run directory library):
 * a second source is a second file beside gpusrc_nvsmi.c, its file names in hwrun/rundir.h and
 * its readers in runlog/rundir/.
 *
 * Nothing here prints: a source says what it found (struct mon_gpu_facts) and run.c logs it. */
#ifndef HWMON_GPUSRC_H
#define HWMON_GPUSRC_H

#include <stdbool.h>
#include <stddef.h>

struct mon_gpusel;

/* What a run asks of a source. */
struct mon_gpu_want {
    const char *tool;        /* the tool to run: a name on PATH or a path (--nvidia-smi) */
    double interval_s;       /* the sampling interval */
    bool gpm;                /* activity counters, where the GPUs have them */
    bool health;             /* clocks, throttling, power limits, errors, the link */
    bool pmon;               /* per-process shares */
    bool gpu_procs;          /* per-process memory */
    char *const *envp;       /* the children's environment */
    struct mon_gpusel *gsel; /* which GPUs (the probe maps the ids it can) */
};

/* One child a source wants run: argv[0] is the tool; its standard output is the run file
 * `file`, whose lines come every line_interval_s (0: silence is normal, no hang rule). */
struct mon_gpu_child {
    const char *name; /* in events: "query", "dmon", ... */
    char **argv;
    const char *file; /* a run file name of hwrun/rundir.h */
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
};

struct mon_gpu_source {
    const char *name; /* "nvidia-smi" */
    /* Ask the tool, with timeouts, what it has. 0: the GPUs can be sampled; -1: they cannot
     * (why says why, out holds the tool's answer); -2: the selection names no GPU here, an
     * error of the run (why says so). */
    int (*probe)(struct mon_gpu_source *s, const struct mon_gpu_want *w, char *why,
                 size_t why_cap, char *out, size_t out_cap);
    /* After a probe that returned 0: the children to run, into ch[cap]; returns how many. */
    int (*children)(struct mon_gpu_source *s, const struct mon_gpu_want *w,
                    struct mon_gpu_child *ch, int cap);
    /* What it found (also before or without a probe: the fields it would ask for). */
    void (*facts)(const struct mon_gpu_source *s, struct mon_gpu_facts *out);
    void (*free)(struct mon_gpu_source *s);
};

/* nvidia-smi (gpusrc_nvsmi.c). NULL when out of memory. */
struct mon_gpu_source *mon_gpu_source_nvsmi(void);

#endif
