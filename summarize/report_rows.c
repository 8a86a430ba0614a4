/* One row per run for sweep tables (CSV, JSON Lines), from the one table of row columns
 * (SWEEP_COLUMNS), which also says where else each figure is shown: the sweep page, the run
 * page, the text headline, summary.json's headline keys, --columns and --compare. */
#include "report.h"
#include "row.h"

#include <json-c/json.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwrun/array.h"
#include "hwrun/jsonw.h"
#include "hwrun/timeutil.h"
#include "hwrun/buf.h"
#include "units.h"

/* The run's framework figures for a row's columns (NAN when none was logged). */
static struct sum_fwmem_fig fw_fig(const struct sum_run *run)
{
    struct sum_fwmem_fig x;
    if (!sum_fwmem_figures(run, NULL, &x))
        x = (struct sum_fwmem_fig){NAN, NAN, NAN, NAN, NAN, NAN};
    return x;
}

const struct sum_job_rule_def sum_job_rules[SUM_JOB_RULE_COUNT] = {
    [SUM_JOB_UNSET] = {"unset", NULL, false}, /* no entry has it: rows.job_rules */
    [SUM_JOB_NONE] = {"none", NULL, false},
    [SUM_JOB_OWN] = {"own", NULL, false},
    [SUM_JOB_SUM] = {"sum", "summed over the ranks", true},
    [SUM_JOB_MAX] = {"max", "the highest of any rank", true},
    [SUM_JOB_MEAN_BY_TIME] = {"mean_by_time", "the ranks' means, weighted by their durations",
                              true},
    [SUM_JOB_SUM_HOSTS] = {"sum_hosts",
                           "summed over the hosts, each by its longest-running rank", true},
    [SUM_JOB_MIN] = {"min", "the lowest of any rank", true},
    [SUM_JOB_MEAN_HOSTS] = {"mean_hosts", "the hosts' means, each by its longest-running rank, "
                            "weighted by its duration", true},
};

/* Where a row figure is shown besides what shows every one (the rows, --columns, --compare):
 * NOSHOW, or SHOW(where, the sweep page's column head, its label on the run page and in the
 * text headline); JSON(place, ...): also a member of summary.json's headline, at that place. */
#define NOSHOW ((struct sum_show){.where = 0})
#define SHOW(where_, head_, label_)                                                                \
    ((struct sum_show){.where = (where_), .head = (head_), .label = (label_)})
#define JSON(place, show) in_json((place), show)

static struct sum_show in_json(unsigned place, struct sum_show s)
{
    s.json = place;
    return s;
}

/* The sweep row's columns, in order. Each is S (a string), D (a computed number: 12 digits),
 * U (a count) or I (an integer, NAN when not known), with its name, for D its dimension (its
 * unit for every output, units.h: S, U and I have none), how a job of many ranks makes one
 * figure of its directories' (report.h's enum sum_job_rule: a job's row and page show every
 * figure whose rule derives one: SUM, SUM_HOSTS, MAX, MIN, MEAN_BY_TIME, MEAN_HOSTS), what it
 * means, where else it is shown (SHOW: the sweep page's columns and the text headline iterate
 * those), and its value (an expression of run; mu is the memory-utilization series of
 * sum_fig_mem_util(), mem_src the source of the container's memory peak, set by the column
 * before it); PER_IO(...) stands for its columns once per disk/network counter i. CSV, JSONL
 * and --units rows are all expanded from this one list, and the arrays they fill have exactly
 * as many places as it has columns. */
#define SWEEP_COLUMNS(S, D, U, I, PER_IO, PER_CTX, PER_VFIG)                                                 \
    S("dir", SUM_JOB_NONE, "the run directory, as given", NOSHOW,                                                \
      run->dir)                                                                                    \
    S("status", SUM_JOB_OWN, "how the run ended (outcome.c): ok, failed, killed, ...", NOSHOW,                  \
      sum_status_names[run->outcome.status])                                                       \
    I("exit_status", SUM_JOB_NONE, "the wrapped command's exit status", NOSHOW,                                  \
      run->outcome.exit_status >= 0 ? run->outcome.exit_status : NAN)                              \
    I("signal", SUM_JOB_NONE, "the signal that killed the wrapped command", NOSHOW,                              \
      run->outcome.signal ? run->outcome.signal : NAN)                                             \
    U("phases_failed", SUM_JOB_SUM, "phases logged with a failure", NOSHOW,                                     \
      run->outcome.phases_failed)                                                                  \
    S("failed_phase", SUM_JOB_OWN, "the first failed phase's name", NOSHOW,                                     \
      run->outcome.phases_failed ? run->outcome.failed_phase : NULL)                               \
    S("failed_phase_reason", SUM_JOB_NONE, "why it failed, as logged", NOSHOW,                                   \
      run->outcome.phases_failed ? run->outcome.failed_why : NULL)                                 \
    U("errors", SUM_JOB_SUM, "failed phases and error-like events together: one figure to filter a sweep on",   \
      NOSHOW,                                                                                      \
      sum_outcome_errors(&run->outcome, run->err_total))                                           \
    S("open_phase", SUM_JOB_NONE, "a phase begun and never ended (the run died in it)", NOSHOW,                  \
      run->outcome.open_phase[0] ? run->outcome.open_phase : NULL)                                 \
    D("open_phase_sec", SUM_DIM_TIME, SUM_JOB_NONE, "how long the open phase had run when the run ended", NOSHOW,              \
      sum_fig_open_phase_sec(&run->outcome))                                                               \
    D("outside_phases_sec", SUM_DIM_TIME, SUM_JOB_NONE, "time of the run in no phase", JSON(16, NOSHOW),                                 \
      sum_fig_round_us(run->outside_phases_s))                                                             \
    D("steps", SUM_DIM_NONE, SUM_JOB_NONE, "training steps, as the run logged them", JSON(17, NOSHOW),                                   \
      run->steps > 0 ? run->steps : NAN)                                                           \
    D("sec_per_step", SUM_DIM_S_PER_STEP, SUM_JOB_NONE, "seconds per step", JSON(18, NOSHOW),                                                  \
      sum_run_sec_per_step(run))                                                                   \
    D("energy_wh_per_step", SUM_DIM_WH_PER_STEP, SUM_JOB_NONE, "GPU energy per step", JSON(19, NOSHOW),                                         \
      sum_run_energy_wh_per_step(run))                                                             \
    U("gpus", SUM_JOB_OWN, "GPUs measured", SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "GPUs", "GPUs"),                                 \
      sum_run_gpu_count(run))                                                                      \
    U("num_samples", SUM_JOB_NONE, "samples of the most sampled GPU (else of the CPU)", JSON(13, SHOW(SUM_SHOW_PAGE, NULL, "samples")),                  \
      sum_run_num_samples(run))                                                                    \
    D("duration_sec", SUM_DIM_TIME, SUM_JOB_OWN, "the run's length, first to last timestamp", JSON(15, NOSHOW),                         \
      sum_fig_round_us(sum_run_duration(run)))                                                             \
    D("peak_vram_mb", SUM_DIM_GPUMEM, SUM_JOB_MAX, "highest memory.used of any GPU (pytyche's name)", JSON(1, NOSHOW),                   \
      sum_fig_max(&run->all[HW_GM_MEM_USED]))                                                       \
    D("peak_vram_mib", SUM_DIM_GPUMEM, SUM_JOB_MAX, "highest memory.used of any GPU",                                           \
      JSON(24, SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "Peak VRAM", "peak VRAM")),                         \
      sum_fig_max(&run->all[HW_GM_MEM_USED]))                                                       \
    S("framework", SUM_JOB_NONE, "the ML framework whose own memory figure the run logged", NOSHOW,              \
      run->fw.framework[0] ? run->fw.framework : NULL)                                             \
    D("framework_peak_mib", SUM_DIM_GPUMEM, SUM_JOB_MAX, "the framework's own peak of GPU memory", SHOW(SUM_SHOW_PAGE, NULL, "framework peak"),                      \
      fw_fig(run).peak_mib)                                                                        \
    D("framework_headroom_mib", SUM_DIM_GPUMEM, SUM_JOB_MIN, "GPU memory the framework's peak left free", SHOW(SUM_SHOW_PAGE, NULL, "GPU headroom"),               \
      fw_fig(run).headroom_mib)                                                                    \
    D("gpu_util_mean_pct", SUM_DIM_PCT, SUM_JOB_OWN, "mean utilization.gpu over every GPU sample",                           \
      JSON(2, SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "GPU util", "GPU util mean")),                          \
      sum_stat_mean(&run->all[HW_GM_UTIL]))                                                        \
    D("gpu_util_max_pct", SUM_DIM_PCT, SUM_JOB_MAX, "highest utilization.gpu", JSON(3, SHOW(SUM_SHOW_PAGE, NULL, "GPU util max")),                                       \
      sum_fig_max(&run->all[HW_GM_UTIL]))                                                           \
    D("mem_util_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME,                                                                         \
      "mean memory-controller utilization (dmon's mem, else utilization.memory)", JSON(4, SHOW(SUM_SHOW_PAGE, NULL, "mem-ctrl util mean")),          \
      sum_stat_mean(mu))                                                                           \
    D("mem_util_max_pct", SUM_DIM_PCT, SUM_JOB_MAX, "highest memory-controller utilization", JSON(5, NOSHOW),                         \
      sum_fig_max(mu))                                                                              \
    D("power_watts_mean", SUM_DIM_POWER, SUM_JOB_MEAN_BY_TIME, "mean power.draw over every GPU sample",                                 \
      JSON(6, SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "Mean power", "power mean")),                       \
      sum_stat_mean(&run->all[HW_GM_POWER]))                                                       \
    D("power_watts_max", SUM_DIM_POWER, SUM_JOB_MAX, "highest power.draw", JSON(7, SHOW(SUM_SHOW_PAGE, NULL, "power max")),                                             \
      sum_fig_max(&run->all[HW_GM_POWER]))                                                          \
    D("energy_wh", SUM_DIM_ENERGY, SUM_JOB_OWN, "GPU energy, every GPU once: its counter, else its power integrated (energy_source)",\
      JSON(26, SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "Energy", "energy")),                                                        \
      sum_run_energy_wh(run))                                                                      \
    D("mean_gpu_clock_mhz", SUM_DIM_MHZ, SUM_JOB_MEAN_BY_TIME, "mean SM clock (calibrax's name)", JSON(20, SHOW(SUM_SHOW_PAGE, NULL, "SM clock mean")),                             \
      sum_fig_clock_mean(run))                                                                             \
    D("mean_gpu_power_w", SUM_DIM_POWER, SUM_JOB_MEAN_BY_TIME, "mean power.draw (calibrax's name)", JSON(21, NOSHOW),                             \
      sum_stat_mean(&run->all[HW_GM_POWER]))                                                       \
    D("peak_gpu_mem_mb", SUM_DIM_GPUMEM, SUM_JOB_MAX, "highest memory.used (calibrax's name)", JSON(22, NOSHOW),                          \
      sum_fig_max(&run->all[HW_GM_MEM_USED])) /* calibrax's, as in JSON */                          \
    D("mean_gpu_util", SUM_DIM_PCT, SUM_JOB_NONE, "mean utilization.gpu (calibrax's name)", JSON(23, NOSHOW),                           \
      sum_stat_mean(&run->all[HW_GM_UTIL]))                                                        \
    D("cpu_usr_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_HOSTS, "mean user CPU of the machine (or its cgroup)", JSON(8, SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "CPU usr", "CPU usr mean")),                                                                            \
      sum_stat_mean(&run->cpu[HW_CPU_COL_USR]))                                                    \
    D("cpu_idle_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_HOSTS, "mean idle CPU of the machine", JSON(9, SHOW(SUM_SHOW_PAGE, NULL, "CPU idle mean")),                                 \
      sum_stat_mean(&run->cpu[HW_CPU_COL_IDLE]))                                                   \
    D("peak_rss_mb", SUM_DIM_MEM, SUM_JOB_MAX, "highest RSS of the job's process tree, each process counted whole",          \
      JSON(10, SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_JOB | SUM_SHOW_PAGE, "Peak RSS", "process peak RSS")),                            \
      sum_fig_max(&run->proc[HW_PROC_COL_RSS]))                                                     \
    D("mean_rss_mb", SUM_DIM_MEM, SUM_JOB_MEAN_BY_TIME, "mean RSS of the job's process tree", JSON(11, SHOW(SUM_SHOW_PAGE, NULL, "process mean RSS")),                                 \
      sum_stat_mean(&run->proc[HW_PROC_COL_RSS]))                                                  \
    D("memory_growth_mb", SUM_DIM_MEM, SUM_JOB_MAX, "RSS of the job's process tree at its last live row minus at its first", JSON(12, SHOW(SUM_SHOW_PAGE, NULL, "process RSS growth")),                             \
      sum_run_memory_growth(run))                                                         \
    D("gpu_mem_peak_mib", SUM_DIM_GPUMEM, SUM_JOB_MAX, "highest GPU memory of the job's own processes (gpu_procs.csv)", SHOW(SUM_SHOW_PAGE, NULL, "process GPU memory peak"), \
      sum_run_tree_gpu_mem_peak(run, NULL))                                                        \
    D("proc_cpu_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "mean CPU of the job's process tree, in % of one core",                 \
      SHOW(SUM_SHOW_HEAD_JOB | SUM_SHOW_PAGE, NULL, "process CPU mean"),                                                   \
      sum_stat_mean(&run->proc[HW_PROC_COL_CPU])) /* of one core */                                \
    D("expected_cores", SUM_DIM_CORES, SUM_JOB_NONE,                                                                            \
      "the cores the job was given (--cores, the cgroup's quota, else the affinity)", NOSHOW,      \
      sum_run_expected_cores(run, NULL))                                                           \
    S("expected_cores_source", SUM_JOB_NONE, "where expected_cores comes from", NOSHOW,                          \
      cores_src)                                                                                   \
    D("proc_cpu_mean_pct_of_cores", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "the tree's mean CPU in % of expected_cores", NOSHOW,          \
      sum_fig_cpu_of_cores(run, sum_stat_mean(&run->proc[HW_PROC_COL_CPU])))                               \
    /* the tracked process alone and the tree's user/system split (proc_metrics.csv) */            \
    D("main_peak_rss_mib", SUM_DIM_MEM, SUM_JOB_MAX, "highest RSS of the main process alone", SHOW(SUM_SHOW_PAGE, NULL, "main process peak RSS"),                        \
      sum_fig_max(&run->proc[HW_PROC_COL_MAIN_RSS]))                                                \
    D("main_peak_rss_kernel_mib", SUM_DIM_MEM, SUM_JOB_MAX, "the kernel's peak RSS of the main process (ru_maxrss)", NOSHOW, \
      run->info.main_peak_kernel_mib)                                                              \
    D("peak_pss_mib", SUM_DIM_MEM, SUM_JOB_MAX, "highest PSS of the tree: forked workers' shared pages counted once",        \
      NOSHOW,                                                                                      \
      sum_fig_max(&run->proc[HW_PROC_COL_PSS])) /* shared pages once, workers too */                \
    D("main_cpu_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "mean CPU of the main process alone, in % of one core", SHOW(SUM_SHOW_PAGE, NULL, "main process CPU mean"),         \
      sum_stat_mean(&run->proc[HW_PROC_COL_MAIN_CPU]))                                             \
    D("main_threads_max", SUM_DIM_NONE, SUM_JOB_MAX, "most threads of the main process", SHOW(SUM_SHOW_PAGE, NULL, "main process threads max"),                              \
      sum_fig_max(&run->proc[HW_PROC_COL_MAIN_THREADS]))                                            \
    D("usr_cpu_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "the tree's mean user CPU, in % of one core", NOSHOW,                    \
      sum_stat_mean(&run->proc[HW_PROC_COL_USR_CPU]))                                              \
    D("sys_cpu_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "the tree's mean system CPU, in % of one core", NOSHOW,                  \
      sum_stat_mean(&run->proc[HW_PROC_COL_SYS_CPU]))                                              \
    /* disks, network, free space, the container (system.h) */                                     \
    PER_IO(D(sum_io_defs[i].mib_key, SUM_DIM_MEM, SUM_JOB_SUM_HOSTS, sum_io_defs[i].mib_what, SHOW(SUM_SHOW_PAGE, NULL, sum_io_defs[i].mib_words), sum_system_mib(&run->sys, i)) \
               D(sum_io_defs[i].peak_key, SUM_DIM_MEM_RATE, SUM_JOB_MAX, sum_io_defs[i].peak_what, SHOW(SUM_SHOW_PAGE, NULL, sum_io_defs[i].peak_words),                    \
                 sum_system_peak_mib_s(&run->sys, i)))                                             \
    D("fs_free_min_mib", SUM_DIM_MEM, SUM_JOB_MIN, "least free space on the run directory's file system", SHOW(SUM_SHOW_PAGE, NULL, "free space min"),            \
      run->sys.fs_free_min_mib)                                                                    \
    D("container_mem_peak_mib", SUM_DIM_MEM, SUM_JOB_MAX,                                                                    \
      "the container's memory peak (the kernel's, else the highest sample)", SHOW(SUM_SHOW_PAGE, NULL, "cgroup memory peak"),               \
      sum_system_mem_peak(&run->sys, &mem_src))                                                    \
    S("container_mem_peak_source", SUM_JOB_NONE, "where container_mem_peak_mib comes from", NOSHOW,              \
      mem_src)                                                                                     \
    D("container_mem_max_mib", SUM_DIM_MEM, SUM_JOB_NONE, "the container's memory limit", SHOW(SUM_SHOW_PAGE, NULL, "cgroup memory limit"),                             \
      run->cg_mem_max_mib)                                                                         \
    D("container_cpu_limit_cores", SUM_DIM_CORES, SUM_JOB_NONE, "the container's CPU limit in cores", SHOW(SUM_SHOW_PAGE, NULL, "cgroup CPU limit"),                   \
      run->cg_limit_cores)                                                                         \
    U("phases", SUM_JOB_SUM, "phase entries logged", NOSHOW,                                                    \
      sum_fig_phases_total(run))                                                                           \
    U("events", SUM_JOB_SUM, "events logged", NOSHOW,                                                           \
      sum_fig_events_total(run))                                                                           \
    U("error_events", SUM_JOB_SUM, "error-like events logged", NOSHOW,                                          \
      run->err_total)                                                                              \
    U("child_restarts", SUM_JOB_SUM, "restarts of nvidia-smi children", NOSHOW,                                 \
      run->info.child_restarts)                                                                    \
    U("lines_skipped", SUM_JOB_SUM, "lines that could not be read, every file together", NOSHOW,                \
      sum_fig_lines_skipped(run))                                                                          \
    U("partial_last_lines", SUM_JOB_SUM, "files that end inside a line (not yet written)", NOSHOW,              \
      sum_fig_partial_lines(run))                                                                          \
    U("placeholders", SUM_JOB_SUM, "cells a GPU tool left unmeasured ([N/A], -)", NOSHOW,                       \
      sum_fig_placeholders(run))                                                                     \
    S("time_zone", SUM_JOB_NONE, "the zone of nvidia-smi's timestamps", NOSHOW,                                  \
      run->tz.name)                                                                                \
    S("time_zone_source", SUM_JOB_NONE, "where time_zone comes from", NOSHOW,                                    \
      sum_fig_tz_source(run->tz_source))                                                              \
    /* added later: new columns go at the end, so that column positions stay */                    \
    D("machine_cpus", SUM_DIM_NONE, SUM_JOB_NONE, "CPUs of the machine", NOSHOW,                                               \
      run->info.cpus)                                                                              \
    D("machine_gpus", SUM_DIM_NONE, SUM_JOB_NONE, "GPUs of the machine", NOSHOW,                                               \
      run->info.gpus)                                                                              \
    D("gpus_mem_used_peak_mib", SUM_DIM_GPUMEM, SUM_JOB_OWN, "highest memory.used of every GPU together at one instant",        \
      NOSHOW,                                                                                      \
      tg.mem_used_peak_mib)                                                                        \
    D("gpus_mem_total_mib", SUM_DIM_GPUMEM, SUM_JOB_NONE, "memory of every GPU together", NOSHOW,                                \
      tg.mem_total_mib)                                                                            \
    D("gpus_util_sum_peak_pct", SUM_DIM_PCT, SUM_JOB_NONE, "highest sum of every GPU's utilization at one instant", NOSHOW,   \
      tg.util_sum_peak_pct)                                                                        \
    D("gpus_busy_max", SUM_DIM_NONE, SUM_JOB_NONE, "most GPUs busy at one instant", NOSHOW,                                    \
      tg.busy_gpus_max)                                                                            \
    PER_CTX(0, HW_CTX_ROW_FIXED,                                                                   \
            S(ctx_cols[i], SUM_JOB_OWN, "where the run ran, as its scheduler or launcher says (context)",       \
              NOSHOW, run->info.ctx[i][0] ? run->info.ctx[i] : NULL))                              \
    /* why the GPUs were slow, whether they were healthy (hw_health.csv, clocks.h) */              \
    D("gpu_power_capped_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME,                                                                      \
      "share of the GPUs' covered time under a power cap (hw_health.csv)", NOSHOW,                 \
      clk.power_pct)                                                                               \
    D("gpu_thermal_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "share of the GPUs' covered time slowed for heat", NOSHOW,                \
      clk.thermal_pct)                                                                             \
    D("gpu_sm_clock_pct_of_max", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "mean SM clock in % of its maximum", NOSHOW,                      \
      clk.sm_pct_of_max)                                                                           \
    S("gpu_clock_source", SUM_JOB_NONE, "whether the throttle seconds come from counters or the bitmask",        \
      NOSHOW,                                                                                      \
      clk.source)                                                                                  \
    I("health_warnings", SUM_JOB_NONE, "health warnings (ECC errors, pending retirements, a degraded link, "     \
      "energy counter against power)", NOSHOW,                                                     \
        have_clk || run->nhealth_warn ? run->nhealth_warn : NAN)                                   \
    S("health_warning", SUM_JOB_NONE, "the first health warning", NOSHOW,                                        \
      run->nhealth_warn ? run->health_warn[0] : NULL)                                              \
    /* the job's processes' share of the GPUs and the others' (hw_pmon.csv) */                     \
    D("gpu_own_sm_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "the job's own processes' mean SM share of the GPUs (hw_pmon.csv)",   \
      NOSHOW,                                                                                      \
      have_pm ? sum_fig_mean(&pm.own_sm) : NAN)                                                    \
    D("gpu_others_sm_mean_pct", SUM_DIM_PCT, SUM_JOB_MEAN_BY_TIME, "other processes' mean SM share of the same GPUs", NOSHOW,         \
      have_pm ? sum_fig_mean(&pm.others_sm) : NAN)                                                 \
    D("proc_threads_max", SUM_DIM_NONE, SUM_JOB_MAX, "most threads of the job's process tree at one sample",                 \
      SHOW(SUM_SHOW_PAGE, NULL, "process threads max"),                                            \
      sum_fig_max(&run->proc[HW_PROC_COL_THREADS]))                                                 \
    D("step_phase_sec_per_step", SUM_DIM_S_PER_STEP, SUM_JOB_NONE,                                                                   \
      "seconds per step inside the phases that did the steps (evals and checkpoints between "     \
      "them left out)",                                                                            \
      SHOW(SUM_SHOW_PAGE, NULL, "seconds per step in step phases"),                                \
      sum_fig_round_us(sum_run_step_phase_sec_per_step(run)))                                      \
    S("status_reason", SUM_JOB_NONE, "why the run has its status, in words (summary.json's outcome.reason)",     \
      NOSHOW, run->outcome.reason[0] ? run->outcome.reason : NULL)                                 \
    S("energy_source", SUM_JOB_NONE, "the reading energy_wh is of: counter, instant or integrated (mixed: the "  \
      "GPUs' differ), so that a sweep compares like with like", NOSHOW,                            \
      sum_run_energy_source(run))                                                          \
    /* the verdicts (verdicts.h): their ids, then each rule's key figure */                      \
    S("notes", SUM_JOB_NONE, "the verdicts' rule ids, warnings first (summary.json's notes)", NOSHOW,           \
      run->verdicts ? run->verdicts->ids : NULL)                                                   \
    PER_VFIG(D(sum_vfigs[i].key, sum_vfigs[i].dim, SUM_JOB_NONE, sum_vfigs[i].what, NOSHOW,                                        \
               run->verdicts ? run->verdicts->figure[i] : NAN))                                    \
    D("co2e_g", SUM_DIM_CO2E, SUM_JOB_NONE, "energy_wh's emissions at --carbon-intensity (g CO2e per kWh)", NOSHOW,           \
      sum_fig_co2e_g(run, sum_run_energy_wh(run)))                                                 \
    D("energy_cost", SUM_DIM_NONE, SUM_JOB_NONE, "energy_wh's cost at --price (per kWh)", NOSHOW,                              \
      sum_fig_energy_cost(run, sum_run_energy_wh(run)))                                         \
    /* context keys added later (rundir.h's HW_CTX_ROW_FIXED): at the end, so positions stay */  \
    PER_CTX(HW_CTX_ROW_FIXED, HW_CTX_COUNT,                                                        \
            S(ctx_cols[i], SUM_JOB_OWN, "where the run ran, as its scheduler or launcher says (context)",       \
              NOSHOW, run->info.ctx[i][0] ? run->info.ctx[i] : NULL))                              \
    D("proc_cpu_sec", SUM_DIM_TIME, SUM_JOB_SUM, "CPU seconds of the command and the processes it waited for (wait4, as "     \
      "sacct's TotalCPU)", NOSHOW, run->info.cpu_s)                                                \
    D("proc_disk_write_mib", SUM_DIM_MEM, SUM_JOB_SUM, "what the job's processes wrote to storage (write_bytes; "            \
      "disk_write_mib is the node's disks)", NOSHOW,                                               \
      sum_fig_max(&run->proc[HW_PROC_COL_WRITE]) / 1048576.0)                                      \
    D("proc_wchar_mib", SUM_DIM_MEM, SUM_JOB_SUM, "what the job's processes wrote by write() (wchar: page cache, pipes and " \
      "sockets too, as sacct's MaxDiskWrite counts)", NOSHOW,                                      \
      sum_fig_max(&run->proc[HW_PROC_COL_WCHAR]) / 1048576.0)

/* The table's per-counter and per-context columns, as the expansions that run over a run (or
 * over none) write them out. */
#define ROW_PER_IO(cols)                                                                           \
    for (int i = 0; i < SUM_IO_COUNT; i++) {                                                      \
        cols                                                                                       \
    }
#define ROW_PER_CTX(lo, hi, cols)                                                                  \
    for (int i = (lo); i < (hi); i++) {                                                           \
        cols                                                                                       \
    }
#define ROW_PER_VFIG(cols)                                                                         \
    for (int i = 0; i < SUM_VFIG_COUNT; i++) {                                                    \
        cols                                                                                       \
    }

#define COL_ONE(...) +1
#define COL_PER_IO(cols) +SUM_IO_COUNT * (0 cols)
#define COL_PER_CTX(lo, hi, cols) +((hi) - (lo)) * (0 cols)
#define COL_PER_VFIG(cols) +SUM_VFIG_COUNT * (0 cols)
enum {
    SWEEP_NCOLS = 0 SWEEP_COLUMNS(COL_ONE, COL_ONE, COL_ONE, COL_ONE, COL_PER_IO, COL_PER_CTX,
                                  COL_PER_VFIG)
};
_Static_assert(SWEEP_NCOLS <= SUM_ROW_COLS_MAX, "SUM_ROW_COLS_MAX: room for every row column");
#undef COL_ONE
#undef COL_PER_IO
#undef COL_PER_CTX
#undef COL_PER_VFIG

/* job.KEY: the sweep-row column of each context key (hw_ctx_defs), and the columns as the
 * table says them (every output reads the key, type, unit and labels from here), made once */
static char ctx_cols[HW_CTX_COUNT][64];
static struct sum_row_def row_defs[SWEEP_NCOLS];
static pthread_once_t defs_once = PTHREAD_ONCE_INIT;

static void make_defs(void)
{
    for (int k = 0; k < HW_CTX_COUNT; k++)
        snprintf(ctx_cols[k], sizeof ctx_cols[k], "job.%s", hw_ctx_defs[k].key);
    size_t n = 0;
#define DEF(nm_, type_, dim_, job_, what_, show_)                                                  \
    row_defs[n++] = (struct sum_row_def){.key = (nm_), .type = (type_), .dim = (dim_),             \
                                         .job = (job_), .what = (what_), .show = (show_)};
#define S(nm_, job_, what_, show_, v_) DEF(nm_, SUM_COL_STR, SUM_DIM_NONE, job_, what_, show_)
#define D(nm_, dim_, job_, what_, show_, v_) DEF(nm_, SUM_COL_NUM, dim_, job_, what_, show_)
#define U(nm_, job_, what_, show_, v_) DEF(nm_, SUM_COL_U64, SUM_DIM_NONE, job_, what_, show_)
#define I(nm_, job_, what_, show_, v_) DEF(nm_, SUM_COL_INT, SUM_DIM_NONE, job_, what_, show_)
    SWEEP_COLUMNS(S, D, U, I, ROW_PER_IO, ROW_PER_CTX, ROW_PER_VFIG)
#undef S
#undef D
#undef U
#undef I
#undef DEF
}

const struct sum_row_def *sum_report_row_defs(size_t *n)
{
    pthread_once(&defs_once, make_defs);
    *n = SWEEP_NCOLS;
    return row_defs;
}

static size_t flat_cols(const struct sum_run *run, struct sum_col c[SWEEP_NCOLS])
{
    size_t nd;
    const struct sum_row_def *def = sum_report_row_defs(&nd);
    for (size_t i = 0; i < nd; i++)
        c[i] = (struct sum_col){.name = def[i].key, .type = def[i].type, .dim = def[i].dim};
    const char *mu_src, *cores_src, *mem_src = NULL;
    const struct sum_stat *mu = sum_fig_mem_util(run, &mu_src);
    sum_run_expected_cores(run, &cores_src);
    size_t n = 0;
#define S(nm, job, what, show, v) c[n++].s = (v);
#define D(nm, dim, job, what, show, v) c[n++].d = (v);
#define U(nm, job, what, show, v) c[n++].u = (v);
#define I(nm, job, what, show, v) c[n++].d = (v);
    const struct sum_together_figs tg = sum_fig_together(run); /* once for the row's columns */
    struct sum_clk_figs clk;
    bool have_clk = sum_run_clocks(run, &clk);
    struct sum_pmon_acc pm;
    bool have_pm = sum_run_pmon(run, &pm);
    SWEEP_COLUMNS(S, D, U, I, ROW_PER_IO, ROW_PER_CTX, ROW_PER_VFIG)
#undef S
#undef D
#undef U
#undef I
    return n;
}

void sum_report_shown(const struct sum_run *run, unsigned where, sum_show_fn *fn, void *ctx)
{
    size_t n;
    const struct sum_row_def *def = sum_report_row_defs(&n);
    struct sum_col c[SWEEP_NCOLS];
    if (run)
        (void)flat_cols(run, c);
    for (size_t i = 0; i < n; i++) {
        if (!(def[i].show.where & where))
            continue;
        double v = !run                          ? NAN
                   : c[i].type == SUM_COL_U64    ? (double)c[i].u
                   : c[i].type == SUM_COL_STR    ? NAN /* no string is shown as a number */
                                                 : c[i].d;
        fn(ctx, &def[i], v);
    }
}

void sum_report_row_values(const struct sum_run *run, double *v)
{
    struct sum_col c[SWEEP_NCOLS];
    size_t n = flat_cols(run, c);
    for (size_t i = 0; i < n; i++)
        v[i] = c[i].type == SUM_COL_U64   ? (double)c[i].u
               : c[i].type == SUM_COL_STR ? NAN
                                          : c[i].d;
}

/* The columns with summary.json places in [from, to) as members of w's object (summary.json's
 * headline: report_json.c), in place order. */
void sum_report_row_json(struct hw_json *w, const struct sum_run *run, unsigned from,
                         unsigned to)
{
    size_t nd;
    const struct sum_row_def *def = sum_report_row_defs(&nd);
    struct sum_col c[SWEEP_NCOLS];
    bool have = false;
    unsigned last = 0;
    for (size_t i = 0; i < nd; i++)
        last = def[i].show.json > last ? def[i].show.json : last;
    for (unsigned p = from; p < to && p <= last; p++)
        for (size_t i = 0; i < nd; i++) {
            if (def[i].show.json != p)
                continue;
            if (!have)
                (void)flat_cols(run, c); /* once, and only for a stretch that has columns */
            have = true;
            if (c[i].type == SUM_COL_U64)
                hw_json_u64(w, c[i].name, c[i].u);
            else
                hw_json_num(w, c[i].name, c[i].d);
        }
}

void sum_report_columns(const struct sum_units *u, struct hw_buf *out)
{
    static const char *const type[] = {[SUM_COL_STR] = "text", [SUM_COL_NUM] = "number",
                                       [SUM_COL_U64] = "integer", [SUM_COL_INT] = "integer"};
    size_t n;
    const struct sum_row_def *def = sum_report_row_defs(&n);
    /* the job rule last: readers of the first four fields by place keep them */
    hw_buf_puts(out, "column\ttype\tunit\tdescription\tjob_rule\n");
    char renamed[SWEEP_NCOLS][SUM_COL_NAME];
    const char *shown[SWEEP_NCOLS];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        /* a name --units gives twice (peak_vram_mb, peak_vram_mib) is the row's once, as there */
        const char *name = def[i].key;
        bool dup = false;
        if (sum_units_column(u, name, def[i].dim, renamed[m], sizeof renamed[m]) == 0) {
            for (size_t k = 0; k < m && !dup; k++)
                dup = !strcmp(shown[k], renamed[m]);
            name = renamed[m];
        }
        if (dup)
            continue;
        hw_buf_printf(out, "%s\t%s\t%s\t%s\t%s\n", name, type[def[i].type],
                      sum_dim_unit(u, def[i].dim), def[i].what, sum_job_rules[def[i].job].name);
        shown[m++] = name;
    }
}

void sum_report_param_name(const struct sum_param *p, struct hw_buf *out)
{
    hw_buf_puts(out, p->metric ? "metric." : "param.");
    hw_buf_puts(out, p->key);
}

void sum_report_param_csv_cell(const struct sum_param *p, struct hw_buf *out)
{
    sum_csv_cell(out, sum_fig_param_text(p, false));
}

const char *sum_report_param_json(const struct sum_param *p)
{
    return sum_fig_param_text(p, true);
}

static size_t row_cols(const struct sum_run *run, const struct sum_units *u, struct sum_col *c,
                       char (*names)[SUM_COL_NAME])
{
    return sum_cols_units(c, flat_cols(run, c), u, names);
}

/* The per-phase-name columns, phase.NAME.KEY: U (a count) or D (a number, with its dimension),
 * with what it means and its value (an expression of a, the name's figures); in --units names
 * and values as the row's. */
#define PHASE_COLUMNS(U, D)                                                                        \
    U("count", "entries of the phase name", a->count)                                             \
    D("total_sec", SUM_DIM_TIME, "their time together", sum_fig_round_us(a->timed ? a->d_sum : NAN)) \
    D("mean_sec", SUM_DIM_TIME, "their mean time", sum_fig_round_us(sum_name_mean_s(a)))          \
    D("energy_wh", SUM_DIM_ENERGY, "the GPUs' energy in them", sum_name_energy_wh(run, a))        \
    D("gpu_util_mean_pct", SUM_DIM_PCT, "mean utilization.gpu in them", sum_stat_mean(&a->util))  \
    D("peak_vram_mib", SUM_DIM_GPUMEM, "highest memory.used in them", sum_fig_max(&a->mem_used))

#define PH_U(nm_, what_, v_) {.key = (nm_), .type = SUM_COL_U64, .dim = SUM_DIM_NONE, .what = (what_)},
#define PH_D(nm_, dim_, what_, v_) {.key = (nm_), .type = SUM_COL_NUM, .dim = (dim_), .what = (what_)},
static const struct sum_row_def phase_defs[] = {PHASE_COLUMNS(PH_U, PH_D)};
#undef PH_U
#undef PH_D

const struct sum_row_def *sum_report_phase_defs(size_t *n)
{
    *n = HW_ARRAY_SIZE(phase_defs);
    return phase_defs;
}

static void phase_figures(const struct sum_run *run, const struct sum_units *u,
                          sum_figure_fn *fn, void *ctx)
{
    const struct sum_names *s = &run->names;
    for (size_t i = 0; i < s->n; i++) {
        const struct sum_name_acc *a = &s->v[i];
        double v[HW_ARRAY_SIZE(phase_defs)];
        size_t n = 0;
#define PH_U(nm, what, x) v[n++] = (double)(x);
#define PH_D(nm, dim, what, x) v[n++] = (x);
        PHASE_COLUMNS(PH_U, PH_D)
#undef PH_U
#undef PH_D
        for (size_t k = 0; k < n; k++) {
            const struct sum_row_def *d = &phase_defs[k];
            char name[512], un[560];
            snprintf(name, sizeof name, "phase.%s.%s", a->name, d->key);
            bool in_u = sum_units_column(u, name, d->dim, un, sizeof un) == 0;
            fn(ctx, in_u ? un : name, v[k], d->type != SUM_COL_NUM, d->dim);
        }
    }
}

void sum_report_figures(const struct sum_run *run, const struct sum_units *u, bool row,
                        bool phases, sum_figure_fn *fn, void *ctx)
{
    if (row) { /* the row's names in u, as sum_cols_units gives them; the values as measured */
        struct sum_col c[SWEEP_NCOLS];
        char names[SWEEP_NCOLS][SUM_COL_NAME];
        const char *given[SWEEP_NCOLS];
        size_t n = flat_cols(run, c), m = 0;
        for (size_t i = 0; i < n; i++) {
            const char *name = c[i].name;
            bool dup = false;
            if (sum_units_column(u, name, c[i].dim, names[i], sizeof names[i]) == 0) {
                for (size_t k = 0; k < m && !dup; k++)
                    dup = !strcmp(given[k], names[i]);
                name = names[i];
            }
            if (dup)
                continue; /* peak_vram_mb and peak_vram_mib both peak_vram_gib: once */
            given[m++] = name;
            if (c[i].type != SUM_COL_STR)
                fn(ctx, name, c[i].type == SUM_COL_U64 ? (double)c[i].u : c[i].d,
                   c[i].type != SUM_COL_NUM, c[i].dim);
        }
    }
    if (phases)
        phase_figures(run, u, fn, ctx);
}

void sum_report_cell(struct hw_buf *out, double v, bool integer)
{
    if (!isfinite(v))
        return;
    if (integer)
        hw_buf_printf(out, "%.0f", v);
    else
        hw_buf_json_num(out, v, HW_NUM_SIG12);
}

void sum_report_csv_header(struct hw_buf *out)
{
    sum_report_csv_header_u(NULL, out);
}

void sum_report_csv_header_u(const struct sum_units *u, struct hw_buf *out)
{
    struct sum_run *empty = sum_run_new();
    if (!empty) {
        out->oom = true;
        return;
    }
    struct sum_col c[SWEEP_NCOLS];
    char names[SWEEP_NCOLS][SUM_COL_NAME];
    sum_cols_csv_header(c, row_cols(empty, u, c, names), out);
    sum_run_free(empty);
}

void sum_report_csv_row(const struct sum_run *run, struct hw_buf *out)
{
    sum_report_csv_row_u(run, NULL, out);
}

void sum_report_csv_row_u(const struct sum_run *run, const struct sum_units *u,
                          struct hw_buf *out)
{
    struct sum_col c[SWEEP_NCOLS];
    char names[SWEEP_NCOLS][SUM_COL_NAME];
    sum_cols_csv(c, row_cols(run, u, c, names), out);
}

struct cols_out {
    struct hw_buf *names, *cells;
    size_t n;
    const struct sum_units *u;
};

static void csv_extra(void *ctx, const char *name, double v, bool integer, enum sum_dim dim)
{
    struct cols_out *o = ctx;
    hw_buf_puts(o->names, name); /* the name itself: quoted where the header is written */
    hw_buf_putc(o->names, '\0');
    sum_report_cell(o->cells, sum_dim_value(o->u, dim, v), integer);
    hw_buf_putc(o->cells, '\0');
    o->n++;
}

size_t sum_report_phase_csv(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *names, struct hw_buf *cells)
{
    struct cols_out o = {names, cells, 0, u};
    phase_figures(run, u, csv_extra, &o);
    return o.n;
}

struct json_out {
    struct hw_json *w;
    const struct sum_units *u;
};

static void jsonl_extra(void *ctx, const char *name, double v, bool integer, enum sum_dim dim)
{
    const struct json_out *o = ctx;
    struct hw_json *w = o->w;
    v = sum_dim_value(o->u, dim, v);
    hw_json_key(w, name);
    if (isfinite(v))
        sum_report_cell(w->b, v, integer);
    else
        hw_buf_puts(w->b, "null");
}

void sum_report_jsonl_row(const struct sum_run *run, struct hw_buf *out)
{
    sum_report_jsonl_row_u(run, NULL, out);
}

void sum_report_jsonl_row_u(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *out)
{
    struct sum_col c[SWEEP_NCOLS];
    char names[SWEEP_NCOLS][SUM_COL_NAME];
    size_t n = row_cols(run, u, c, names);
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_LINE, HW_NUM_SIG12);
    hw_json_open(&w, NULL, '{');
    sum_cols_json(c, n, &w);
    for (size_t i = 0; i < run->nparams; i++) {
        struct hw_buf k;
        hw_buf_init(&k, NULL, 0);
        sum_report_param_name(&run->params[i], &k);
        hw_json_raw(&w, k.p ? k.p : "", sum_report_param_json(&run->params[i]));
        if (k.oom)
            out->oom = true;
        hw_buf_free(&k);
    }
    phase_figures(run, u, jsonl_extra, &(struct json_out){&w, u});
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}
