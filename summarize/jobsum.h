/* One job on many nodes: the run directories of its nodes (one hwmon per node, or one per rank
 * of which one sampled the node's GPUs: nodelock.h), summarized each on its own (summary.h, in
 * the -j pool), kept as a small node record, then joined into the job's figures here. Every
 * output of a job (jobreport.c: JSON, text, sweep row, HTML) prints these figures.
 *
 * The rules:
 * - Time: each node is placed by its own clock relative to its own start event (its first
 *   sample without one); no node's sample is ever put into another node's interval. The nodes'
 *   start events lie start_spread_s apart by their clocks (launch delay plus clock offset, which
 *   the data cannot tell apart); the figure bounds both.
 * - Energy: the sum of every GPU's energy (the energy rule of each node, energy.h), each GPU
 *   once: a GPU of a host that an earlier directory of that host already recorded (same UUID,
 *   else same index) is not counted again, unless the two sampled it in turn (spans that do
 *   not overlap: a takeover, below): then it is one GPU whose energy adds over the spans, and
 *   its gauges (utilization's mean by samples, the peaks) are taken over both.
 * - The node's GPU sampler (hwmon/nodelock.h): on each host of an attempt the ranks that
 *   sampled its GPUs in turn, each from its start event (or its takeover, the gpu_sampler
 *   event) until its stop, by the host's clock. The GPUs went unsampled where the next sampler
 *   began more than SUM_JOB_SAMPLER_GAP intervals after the one before had ended, beyond the
 *   time its GPU source's start questions took (probe_s: a first sampler's rows wait for them
 *   too, and no handover is quicker), and where the
 *   last sampler ended more than that before the host's last rank ended (no takeover while ranks
 *   lived on): those seconds are the host's unsampled_s, and a warning. Without any sampler's
 *   directory among the ranks of a host, not measured (NAN).
 * - Peaks of the job (GPU memory, power): on the sum of the nodes' series at the same time since
 *   their starts (jobseries.h), in bins align_s wide. A node's bin without a sample holds its
 *   last value for up to RD_GAP_FACTOR intervals; beyond, the job's bin is not measured and left
 *   out. Before its first and after its last sample a node adds nothing.
 * - Phases by name: each node's total time in the name; across the nodes their minimum, median
 *   and maximum, the slowest node and how far beyond the median it was. The straggler is the
 *   slowest node of the name with the most time beyond its median.
 * - The run row's figures that have a job rule (report.h's enum sum_job_rule): each node keeps
 *   its run's, the job sums them (counters), takes their highest (peaks), their lowest (least
 *   values) or their mean weighted by the nodes' durations (means), over every directory of
 *   every attempt; a host's own counter (its disks, its network) is summed over the hosts of
 *   each attempt, and a host's own mean (its CPUs' use) is the hosts' means weighted by time,
 *   each host by its rank whose run spans the longest (a node without a host counts as a host
 *   of its own, as in hosts).
 * - Outcome: the job is complete when every node's run has its stop event; its status is the
 *   worst node's (sum_job_status_rank). What the incomplete nodes measured is still summed.
 * - Attempts (a requeue, a restart): directories of one job that ran one after the other. A
 *   directory's attempt is its SLURM_RESTART_COUNT (context slurm_restart_count; unset: 0),
 *   then, among directories of one restart count, a later one of the same host and rank that
 *   started after an earlier one had ended is the next attempt. Each attempt is a job of its
 *   own for the GPUs counted once, the peaks and the spreads; the job's energy and duration are
 *   the attempts' sums, its status, ranks, nodes, hosts, GPUs, incomplete and running nodes the
 *   last attempt's. */
#ifndef SUM_JOBSUM_H
#define SUM_JOBSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwrun/rundir.h"
#include "jobseries.h"
#include "outcome.h"
#include "summary.h"

#define SUM_JOB_MAX_NODES 65536
#define SUM_JOB_LANES 512 /* phases kept per node for the HTML's aligned lanes */

struct sum_jgpu {
    int index;
    char uuid[64];
    uint64_t samples;
    double energy_wh;     /* NAN: no power */
    double mem_peak_mib;  /* memory.used */
    double util_mean_pct; /* utilization.gpu */
    uint64_t util_n;
    bool twice;           /* another directory of its host recorded it first: not counted */
    bool turn;            /* another directory of its host sampled it before or after, over a
                           * span of its own (a takeover): one GPU, its energy adds */
};

struct sum_jname {
    char *name;
    uint64_t count;
    double total_s;   /* NAN: no entry had a duration */
    double energy_wh; /* NAN: not measured */
};

/* A phase of a node on the job's time axis: seconds since the node's start. */
struct sum_jlane {
    double t0, t1;
    uint32_t name; /* index into the node's names */
    bool failed;
};

struct sum_jnode {
    char *dir;
    char label[96];  /* the host, or the directory's name when hosts repeat or are unknown */
    char host[128];
    char ctx[HW_CTX_COUNT][128];
    bool summarized;  /* false: the directory could not be read (said already) */
    enum sum_status status;
    bool complete;    /* its stop event was written */
    char sampler_role[16]; /* "" (no node lock), "primary", "secondary" */
    double t_start;   /* its start by its own clock: the start event, else the first time */
    double t_stop;    /* the stop event's time (NAN: none) */
    double duration_s;
    double interval_s; /* its GPU sampling interval (NAN: no GPU) */
    struct sum_jgpu *gpu;
    int ngpu;
    double energy_wh;    /* of its GPUs counted (NAN: none measured power) */
    double mem_peak_mib; /* its GPUs together at one instant (together.h) */
    double power_peak_w; /* its GPUs' power summed, the most of one bin of the series */
    struct sum_jseries *ser; /* NULL: no GPU instant */
    struct sum_jname *names;
    size_t nnames;
    struct sum_jlane *lane;
    size_t nlane;
    uint64_t lane_dropped;
    uint64_t lines_skipped;
    /* what the rank logged about its run: its params and metrics (keys copied, values' own
     * references), and its first failed phase ("": none) */
    struct sum_param *params;
    size_t nparams;
    char failed_phase[128];
    struct sum_verdicts *verdicts; /* its run's (verdicts.h), taken over; NULL: none */
    size_t attempt;   /* index into the job's att (sum_job_build) */
    /* the node's GPU sampler: this rank sampled the node's GPUs from gpu_from (its start event,
     * or its takeover) to gpu_to (its end), epoch seconds by its clock; NAN: it sampled none */
    double gpu_from, gpu_to;
    bool took_over;      /* it became the sampler when the one before ended (gpu_sampler event) */
    double probe_s;      /* then its GPU source's start questions (NAN: not said) */
    long hwmon_pid;      /* its hwmon (0: not said) */
    double start_interval_s; /* the start event's interval_s (NAN: not said) */
    long turn_of;        /* the node whose GPUs it sampled in turn (a takeover), -1: none */
    double *fig; /* its run row's figure of each column sum_job_run_cols names (NULL: none) */
};

/* One attempt of the job (a requeue or restart), in the order they ran. */
struct sum_jattempt {
    long restart_count; /* SLURM_RESTART_COUNT its directories said, -1: none said */
    size_t ranks;       /* its directories */
    double t_start;     /* its earliest node start (NAN: none known) */
    double duration_s;  /* its longest node duration (NAN: none known) */
    double energy_wh;   /* its GPUs', each once (NAN: none measured) */
    enum sum_status status; /* its worst node's, as a job's */
};

#define SUM_JOB_SAMPLER_GAP 2.0 /* sampling intervals: a longer handover leaves GPUs unsampled */

/* The ranks of one host (and attempt) that sampled its GPUs, in the order they did. */
struct sum_jsampled {
    size_t first;       /* a node of the host (its label, host and attempt) */
    size_t *by;         /* the nodes that sampled, by their gpu_from */
    double *gap_before; /* seconds from the one before's end to its start (NAN: the first) */
    size_t n;
    size_t ranks;       /* the host's ranks with a node lock (a gpu_sampler in the start) */
    double ranks_end;   /* when the host's last such rank ended (NAN: not known) */
    double interval_s;  /* its samplers' interval (the longest) */
    double unsampled_s; /* NAN: no sampler's directory among them */
    double tail_s;      /* of it, after the last sampler ended while ranks ran on (0: none) */
};

struct sum_jphase {
    const char *name;  /* a node's name string */
    size_t nodes;      /* nodes that logged it */
    uint64_t count;    /* entries over all nodes */
    double min_s, median_s, max_s;
    size_t slowest;    /* node index */
    double over_median_s, over_median_pct; /* NAN pct when the median is 0 */
    double energy_wh;  /* NAN: no node measured it */
};

struct sum_jobsum {
    char *dir; /* the job directory (NULL: nodes given with --job) */
    struct sum_jnode *node;
    size_t nnode;
    /* figures (sum_job_build) */
    enum sum_status status;
    /* SLURM's words: a rank is a run directory (one hwmon each), a node is a distinct SLURM node
     * name (SLURMD_NODENAME, else the host), a host a distinct host name; ranked: a directory
     * says its rank (SLURM_PROCID, RANK) */
    size_t nodes, hosts, gpus, incomplete, unreadable;
    size_t running; /* nodes without a stop event that are running (not in incomplete) */
    bool ranked;
    uint64_t gpus_twice;
    double t_start;         /* the earliest node start */
    double duration_s;      /* the longest node duration on the aligned axis, summed over the
                             * attempts */
    double start_spread_s, stop_spread_s;
    double energy_wh;
    double align_s;         /* the aligned bins' width (NAN: no GPU series) */
    uint64_t bins, bins_unmeasured;
    double mem_peak_mib, mem_peak_at_s, mem_sum_of_peaks_mib;
    double power_peak_w, power_peak_at_s;
    double util_mean_pct;
    struct sum_jphase *ph;
    size_t nph;
    long straggler; /* index into ph, -1: none */
    char ctx[HW_CTX_COUNT][128]; /* a key every node says alike; "" when not */
    struct sum_jattempt *att; /* at least one once built */
    size_t nattempt;
    size_t ranks; /* the last attempt's directories */
    /* the job's figure of each column sum_job_run_cols names, by the column's rule over every
     * directory of every attempt (report.h's enum sum_job_rule); NAN when none measured it */
    double *fig;
    /* the hosts' GPU samplers, of every attempt (hosts with a node lock only) */
    struct sum_jsampled *samp;
    size_t nsamp;
    double unsampled_s; /* their unsampled_s summed (NAN: none measured) */
};

/* The run row's columns a job makes a figure of, each by its rule (report.h's enum
 * sum_job_rule: those sum_job_rules[rule].derived), as indices into sum_report_row_defs in
 * the table's order; *n of them (at most SUM_ROW_COLS_MAX). */
const size_t *sum_job_run_cols(size_t *n);
/* The job's figure of the run row's column key (one of sum_job_run_cols), NAN when not
 * measured or not such a column. */
double sum_job_fig(const struct sum_jobsum *j, const char *key);

/* A run's rank as its context says (SLURM_PROCID, else RANK), NULL when not said; its node:
 * SLURM's name (SLURMD_NODENAME), else its host ("" when neither is known). */
const char *sum_jnode_rank(const struct sum_jnode *n);
/* Whose params and metrics the job's rows carry: rank 0's (the one that logs a training run's
 * config and loss), else the first node with any; NULL when none logged any. */
const struct sum_jnode *sum_job_param_node(const struct sum_jobsum *j);
/* The node whose failed phase the job's row names: the first node with one, NULL when none. */
const struct sum_jnode *sum_job_failed_node(const struct sum_jobsum *j);
const char *sum_jnode_node(const struct sum_jnode *n);

/* A node record of a summarized run (dir its directory; run NULL when it could not be read):
 * takes what the job needs, so the run can be freed. 0, or -ENOMEM. */
int sum_jnode_take(struct sum_jnode *n, const char *dir, struct sum_run *run);
void sum_jnode_free(struct sum_jnode *n);

/* The job's figures from its nodes (node, nnode set). 0, or -ENOMEM. */
int sum_job_build(struct sum_jobsum *j);
void sum_job_free(struct sum_jobsum *j); /* the nodes too */

/* Is dir a job directory: no run files of its own, and a subdirectory that has them? */
bool sum_job_is_dir(const char *dir);
/* The node directories of job directory dir, in name order (malloc'd paths, *n of them). 0, or
 * -errno. */
int sum_job_list(const char *dir, char ***paths, size_t *n);

/* Worst first: the job's status is its worst node's. */
int sum_job_status_rank(enum sum_status s);

#endif
