/* hwmon's own run files: the entries of hwrun/rundir.h's HW_RUN_FILES written by HWMON (the
 * sampler thread). Each has a descriptor mon_file_<ID> (runfiles.c; ID: the entry's): whether a
 * run makes it, its header and its rows at a sample. run.c makes and closes every file from the
 * table; the sampler writes each descriptor's header into its empty file and its rows at every
 * tick, and counts the rows a write lost. A new file of hwmon's is its table entry and its
 * descriptor, nothing else. */
#ifndef HWMON_RUNFILES_H
#define HWMON_RUNFILES_H

#include <stdbool.h>

#include "gpusrc.h" /* enum mon_gpu_when: the same ticks as the GPU source's thread files */
#include "hwrun/buf.h"
#include "hwrun/rundir.h"
#include "machine.h"
#include "proctree.h"

/* What a run is, as far as hwmon's files care: fixed at its start. */
struct mon_file_run {
    bool tree;   /* a process is tracked (a command, or -p) */
    bool cgroup; /* cpu_metrics.csv's cgroup columns */
    bool pss;    /* proc_metrics.csv's pss_mib */
};

/* One tick of the sampler, as the files see it. */
struct mon_file_tick {
    const char *iso;                    /* its time (ISO 8601 UTC, milliseconds) */
    /* the start's first reading, the cadence, an edge; a row of other than the cadence's is
     * an edge row (edge=1: it covers the time since the reading before, if any) */
    enum mon_gpu_when when;
    const struct mon_sys_sample *sys;   /* the system's reading; NULL: none now */
    const struct mon_tree_sample *proc; /* the tree's row; NULL: none now */
    /* the tree, read now: its membership changes since the last tick (nchg); NULL: not read */
    const struct mon_tree *tree;
};

struct mon_file_def {
    bool with_tree; /* made only when a process is tracked */
    /* Its header, appended to b for an empty file (NULL: it has none). */
    void (*head)(struct hw_buf *b, const struct mon_file_run *run);
    /* Its rows at this tick, appended to b: whole lines, written with one write(2); nothing:
     * no row now. state: what open returned (NULL without open). Called from the sampler
     * thread. */
    void (*row)(struct hw_buf *b, const struct mon_file_run *run, const struct mon_file_tick *t,
                void *state);
    /* A source of its own, for a file whose figures the system's and the tree's readings lack
     * (NULL: none): open before the first tick, its state handed to every row (NULL: the source
     * is not here, and row says so or writes nothing); close after the last. */
    void *(*open)(const struct mon_file_run *run);
    void (*close)(void *state);
};

/* The descriptors, declared from the table: mon_file_CPU, mon_file_PROC, ... */
#define MON_FILE_DECL_HWMON(ID) extern const struct mon_file_def mon_file_##ID;
#define MON_FILE_DECL_GPU(ID)
#define MON_FILE_DECL_LOG(ID)
#define MON_FILE_DECL(ID, stem, name, reader, by, ...) MON_FILE_DECL_##by(ID)
HW_RUN_FILES(MON_FILE_DECL)
#undef MON_FILE_DECL

/* Each run file's descriptor by enum hw_file: NULL for one hwmon does not write itself. */
extern const struct mon_file_def *const mon_files[HW_FILE_COUNT];

/* Whether this run makes file k (one of hwmon's own). */
bool mon_file_wanted(enum hw_file k, const struct mon_file_run *run);

#endif
