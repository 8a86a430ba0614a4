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

/* Where a row figure is shown besides what shows every one (the rows, --columns, --compare):
 * NOSHOW, or SHOW(where, the sweep page's column head, its label on the run page and in the
 * text headline). */
#define NOSHOW ((struct sum_show){0, NULL, NULL})
#define SHOW(where, head, label) ((struct sum_show){(where), (head), (label)})

/* The sweep row's columns, in order. Each is S (a string), D (a computed number: 12 digits),
 * U (a count) or I (an integer, NAN when not known), with its name, what it means, where else it
 * is shown (SHOW: the sweep page's columns and the text headline iterate those), and its value
 * (an expression of run; mu is the memory-utilization series of sum_fig_mem_util(), mem_src the
 * source of the container's memory peak, set by the column before it); PER_IO(...) stands for
 * its columns once per disk/network counter i. CSV, JSONL and --units rows are all expanded
 * from this one list, and the arrays they fill have exactly as many places as it has columns. */
#define SWEEP_COLUMNS(S, D, U, I, PER_IO, PER_CTX, PER_VFIG)                                                 \
    S("dir", "the run directory, as given", NOSHOW,                                                \
      run->dir)                                                                                    \
    S("status", "how the run ended (outcome.c): ok, failed, killed, ...", NOSHOW,                  \
      sum_status_names[run->outcome.status])                                                       \
    I("exit_status", "the wrapped command's exit status", NOSHOW,                                  \
      run->outcome.exit_status >= 0 ? run->outcome.exit_status : NAN)                              \
    I("signal", "the signal that killed the wrapped command", NOSHOW,                              \
      run->outcome.signal ? run->outcome.signal : NAN)                                             \
    U("phases_failed", "phases logged with a failure", NOSHOW,                                     \
      run->outcome.phases_failed)                                                                  \
    S("failed_phase", "the first failed phase's name", NOSHOW,                                     \
      run->outcome.phases_failed ? run->outcome.failed_phase : NULL)                               \
    S("failed_phase_reason", "why it failed, as logged", NOSHOW,                                   \
      run->outcome.phases_failed ? run->outcome.failed_why : NULL)                                 \
    U("errors", "failed phases and error-like events together: one figure to filter a sweep on",   \
      NOSHOW,                                                                                      \
      sum_outcome_errors(&run->outcome, run->err_total))                                           \
    S("open_phase", "a phase begun and never ended (the run died in it)", NOSHOW,                  \
      run->outcome.open_phase[0] ? run->outcome.open_phase : NULL)                                 \
    D("open_phase_sec", "how long the open phase had run when the run ended", NOSHOW,              \
      sum_fig_open_phase_sec(&run->outcome))                                                               \
    D("outside_phases_sec", "time of the run in no phase", NOSHOW,                                 \
      sum_fig_round_us(run->outside_phases_s))                                                             \
    D("steps", "training steps, as the run logged them", NOSHOW,                                   \
      run->steps > 0 ? run->steps : NAN)                                                           \
    D("sec_per_step", "seconds per step", NOSHOW,                                                  \
      sum_run_sec_per_step(run))                                                                   \
    D("energy_wh_per_step", "GPU energy per step", NOSHOW,                                         \
      sum_run_energy_wh_per_step(run))                                                             \
    U("gpus", "GPUs measured", SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "GPUs", "GPUs"),                                 \
      sum_run_gpu_count(run))                                                                      \
    U("num_samples", "samples of the most sampled GPU (else of the CPU)", SHOW(SUM_SHOW_PAGE, NULL, "samples"),                  \
      sum_run_num_samples(run))                                                                    \
    D("duration_sec", "the run's length, first to last timestamp", NOSHOW,                         \
      sum_fig_round_us(sum_run_duration(run)))                                                             \
    D("peak_vram_mb", "highest memory.used of any GPU (pytyche's name)", NOSHOW,                   \
      sum_fig_max(&run->all[RD_GM_MEM_USED]))                                                       \
    D("peak_vram_mib", "highest memory.used of any GPU",                                           \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "Peak VRAM", "peak VRAM"),                         \
      sum_fig_max(&run->all[RD_GM_MEM_USED]))                                                       \
    S("framework", "the ML framework whose own memory figure the run logged", NOSHOW,              \
      run->fw.framework[0] ? run->fw.framework : NULL)                                             \
    D("framework_peak_mib", "the framework's own peak of GPU memory", SHOW(SUM_SHOW_PAGE, NULL, "framework peak"),                      \
      fw_fig(run).peak_mib)                                                                        \
    D("framework_headroom_mib", "GPU memory the framework's peak left free", SHOW(SUM_SHOW_PAGE, NULL, "GPU headroom"),               \
      fw_fig(run).headroom_mib)                                                                    \
    D("gpu_util_mean_pct", "mean utilization.gpu over every GPU sample",                           \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "GPU util", "GPU util mean"),                          \
      sum_stat_mean(&run->all[RD_GM_UTIL]))                                                        \
    D("gpu_util_max_pct", "highest utilization.gpu", SHOW(SUM_SHOW_PAGE, NULL, "GPU util max"),                                       \
      sum_fig_max(&run->all[RD_GM_UTIL]))                                                           \
    D("mem_util_mean_pct",                                                                         \
      "mean memory-controller utilization (dmon's mem, else utilization.memory)", SHOW(SUM_SHOW_PAGE, NULL, "mem-ctrl util mean"),          \
      sum_stat_mean(mu))                                                                           \
    D("mem_util_max_pct", "highest memory-controller utilization", NOSHOW,                         \
      sum_fig_max(mu))                                                                              \
    D("power_watts_mean", "mean power.draw over every GPU sample",                                 \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_GPUS | SUM_SHOW_PAGE, "Mean power", "power mean"),                       \
      sum_stat_mean(&run->all[RD_GM_POWER]))                                                       \
    D("power_watts_max", "highest power.draw", SHOW(SUM_SHOW_PAGE, NULL, "power max"),                                             \
      sum_fig_max(&run->all[RD_GM_POWER]))                                                          \
    D("energy_wh", "GPU energy, every GPU once: its counter, else its power integrated (energy_source)",\
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "Energy", "energy"),                                                        \
      sum_run_energy_wh(run))                                                                      \
    D("mean_gpu_clock_mhz", "mean SM clock (calibrax's name)", SHOW(SUM_SHOW_PAGE, NULL, "SM clock mean"),                             \
      sum_fig_clock_mean(run))                                                                             \
    D("mean_gpu_power_w", "mean power.draw (calibrax's name)", NOSHOW,                             \
      sum_stat_mean(&run->all[RD_GM_POWER]))                                                       \
    D("peak_gpu_mem_mb", "highest memory.used (calibrax's name)", NOSHOW,                          \
      sum_fig_max(&run->all[RD_GM_MEM_USED])) /* calibrax's, as in JSON */                          \
    D("mean_gpu_util", "mean utilization.gpu (calibrax's name)", NOSHOW,                           \
      sum_stat_mean(&run->all[RD_GM_UTIL]))                                                        \
    D("cpu_usr_mean_pct", "mean user CPU of the machine (or its cgroup)", SHOW(SUM_SHOW_SWEEP | SUM_SHOW_PAGE, "CPU usr", "CPU usr mean"),                                                                            \
      sum_stat_mean(&run->cpu[HW_CPU_COL_USR]))                                                    \
    D("cpu_idle_mean_pct", "mean idle CPU of the machine", SHOW(SUM_SHOW_PAGE, NULL, "CPU idle mean"),                                 \
      sum_stat_mean(&run->cpu[HW_CPU_COL_IDLE]))                                                   \
    D("peak_rss_mb", "highest RSS of the job's process tree, each process counted whole",          \
      SHOW(SUM_SHOW_SWEEP | SUM_SHOW_HEAD_JOB | SUM_SHOW_PAGE, "Peak RSS", "process peak RSS"),                            \
      sum_fig_max(&run->proc[HW_PROC_COL_RSS]))                                                     \
    D("mean_rss_mb", "mean RSS of the job's process tree", SHOW(SUM_SHOW_PAGE, NULL, "process mean RSS"),                                 \
      sum_stat_mean(&run->proc[HW_PROC_COL_RSS]))                                                  \
    D("memory_growth_mb", "RSS of the job's process tree at its last live row minus at its first", SHOW(SUM_SHOW_PAGE, NULL, "process RSS growth"),                             \
      sum_run_memory_growth(run))                                                         \
    D("gpu_mem_peak_mib", "highest GPU memory of the job's own processes (gpu_procs.csv)", SHOW(SUM_SHOW_PAGE, NULL, "process GPU memory peak"), \
      sum_run_tree_gpu_mem_peak(run, NULL))                                                        \
    D("proc_cpu_mean_pct", "mean CPU of the job's process tree, in % of one core",                 \
      SHOW(SUM_SHOW_HEAD_JOB | SUM_SHOW_PAGE, NULL, "process CPU mean"),                                                   \
      sum_stat_mean(&run->proc[HW_PROC_COL_CPU])) /* of one core */                                \
    D("expected_cores",                                                                            \
      "the cores the job was given (--cores, the cgroup's quota, else the affinity)", NOSHOW,      \
      sum_run_expected_cores(run, NULL))                                                           \
    S("expected_cores_source", "where expected_cores comes from", NOSHOW,                          \
      cores_src)                                                                                   \
    D("proc_cpu_mean_pct_of_cores", "the tree's mean CPU in % of expected_cores", NOSHOW,          \
      sum_fig_cpu_of_cores(run, sum_stat_mean(&run->proc[HW_PROC_COL_CPU])))                               \
    /* the tracked process alone and the tree's user/system split (proc_metrics.csv) */            \
    D("main_peak_rss_mib", "highest RSS of the main process alone", SHOW(SUM_SHOW_PAGE, NULL, "main process peak RSS"),                        \
      sum_fig_max(&run->proc[HW_PROC_COL_MAIN_RSS]))                                                \
    D("main_peak_rss_kernel_mib", "the kernel's peak RSS of the main process (ru_maxrss)", NOSHOW, \
      run->info.main_peak_kernel_mib)                                                              \
    D("peak_pss_mib", "highest PSS of the tree: forked workers' shared pages counted once",        \
      NOSHOW,                                                                                      \
      sum_fig_max(&run->proc[HW_PROC_COL_PSS])) /* shared pages once, workers too */                \
    D("main_cpu_mean_pct", "mean CPU of the main process alone, in % of one core", SHOW(SUM_SHOW_PAGE, NULL, "main process CPU mean"),         \
      sum_stat_mean(&run->proc[HW_PROC_COL_MAIN_CPU]))                                             \
    D("main_threads_max", "most threads of the main process", SHOW(SUM_SHOW_PAGE, NULL, "main process threads max"),                              \
      sum_fig_max(&run->proc[HW_PROC_COL_MAIN_THREADS]))                                            \
    D("usr_cpu_mean_pct", "the tree's mean user CPU, in % of one core", NOSHOW,                    \
      sum_stat_mean(&run->proc[HW_PROC_COL_USR_CPU]))                                              \
    D("sys_cpu_mean_pct", "the tree's mean system CPU, in % of one core", NOSHOW,                  \
      sum_stat_mean(&run->proc[HW_PROC_COL_SYS_CPU]))                                              \
    /* disks, network, free space, the container (system.h) */                                     \
    PER_IO(D(sum_io_defs[i].mib_key, sum_io_defs[i].mib_what, SHOW(SUM_SHOW_PAGE, NULL, sum_io_defs[i].mib_words), sum_system_mib(&run->sys, i)) \
               D(sum_io_defs[i].peak_key, sum_io_defs[i].peak_what, SHOW(SUM_SHOW_PAGE, NULL, sum_io_defs[i].peak_words),                    \
                 sum_system_peak_mib_s(&run->sys, i)))                                             \
    D("fs_free_min_mib", "least free space on the run directory's file system", SHOW(SUM_SHOW_PAGE, NULL, "free space min"),            \
      run->sys.fs_free_min_mib)                                                                    \
    D("container_mem_peak_mib",                                                                    \
      "the container's memory peak (the kernel's, else the highest sample)", SHOW(SUM_SHOW_PAGE, NULL, "cgroup memory peak"),               \
      sum_system_mem_peak(&run->sys, &mem_src))                                                    \
    S("container_mem_peak_source", "where container_mem_peak_mib comes from", NOSHOW,              \
      mem_src)                                                                                     \
    D("container_mem_max_mib", "the container's memory limit", SHOW(SUM_SHOW_PAGE, NULL, "cgroup memory limit"),                             \
      run->cg_mem_max_mib)                                                                         \
    D("container_cpu_limit_cores", "the container's CPU limit in cores", SHOW(SUM_SHOW_PAGE, NULL, "cgroup CPU limit"),                   \
      run->cg_limit_cores)                                                                         \
    U("phases", "phase entries logged", NOSHOW,                                                    \
      sum_fig_phases_total(run))                                                                           \
    U("events", "events logged", NOSHOW,                                                           \
      sum_fig_events_total(run))                                                                           \
    U("error_events", "error-like events logged", NOSHOW,                                          \
      run->err_total)                                                                              \
    U("child_restarts", "restarts of nvidia-smi children", NOSHOW,                                 \
      run->info.child_restarts)                                                                    \
    U("lines_skipped", "lines that could not be read, every file together", NOSHOW,                \
      sum_fig_lines_skipped(run))                                                                          \
    U("partial_last_lines", "files that end inside a line (not yet written)", NOSHOW,              \
      sum_fig_partial_lines(run))                                                                          \
    U("placeholders", "cells a GPU tool left unmeasured ([N/A], -)", NOSHOW,                       \
      sum_fig_placeholders(run))                                                                     \
    S("time_zone", "the zone of nvidia-smi's timestamps", NOSHOW,                                  \
      run->tz.name)                                                                                \
    S("time_zone_source", "where time_zone comes from", NOSHOW,                                    \
      sum_fig_tz_source(run->tz_source))                                                              \
    /* added later: new columns go at the end, so that column positions stay */                    \
    D("machine_cpus", "CPUs of the machine", NOSHOW,                                               \
      run->info.cpus)                                                                              \
    D("machine_gpus", "GPUs of the machine", NOSHOW,                                               \
      run->info.gpus)                                                                              \
    D("gpus_mem_used_peak_mib", "highest memory.used of every GPU together at one instant",        \
      NOSHOW,                                                                                      \
      tg.mem_used_peak_mib)                                                                        \
    D("gpus_mem_total_mib", "memory of every GPU together", NOSHOW,                                \
      tg.mem_total_mib)                                                                            \
    D("gpus_util_sum_peak_pct", "highest sum of every GPU's utilization at one instant", NOSHOW,   \
      tg.util_sum_peak_pct)                                                                        \
    D("gpus_busy_max", "most GPUs busy at one instant", NOSHOW,                                    \
      tg.busy_gpus_max)                                                                            \
    PER_CTX(0, HW_CTX_ROW_FIXED,                                                                   \
            S(ctx_cols[i], "where the run ran, as its scheduler or launcher says (context)",       \
              NOSHOW, run->info.ctx[i][0] ? run->info.ctx[i] : NULL))                              \
    /* why the GPUs were slow, whether they were healthy (hw_health.csv, clocks.h) */              \
    D("gpu_power_capped_pct",                                                                      \
      "share of the GPUs' covered time under a power cap (hw_health.csv)", NOSHOW,                 \
      clk.power_pct)                                                                               \
    D("gpu_thermal_pct", "share of the GPUs' covered time slowed for heat", NOSHOW,                \
      clk.thermal_pct)                                                                             \
    D("gpu_sm_clock_pct_of_max", "mean SM clock in % of its maximum", NOSHOW,                      \
      clk.sm_pct_of_max)                                                                           \
    S("gpu_clock_source", "whether the throttle seconds come from counters or the bitmask",        \
      NOSHOW,                                                                                      \
      clk.source)                                                                                  \
    I("health_warnings", "health warnings (ECC errors, pending retirements, a degraded link, "     \
      "energy counter against power)", NOSHOW,                                                     \
        have_clk || run->nhealth_warn ? run->nhealth_warn : NAN)                                   \
    S("health_warning", "the first health warning", NOSHOW,                                        \
      run->nhealth_warn ? run->health_warn[0] : NULL)                                              \
    /* the job's processes' share of the GPUs and the others' (hw_pmon.csv) */                     \
    D("gpu_own_sm_mean_pct", "the job's own processes' mean SM share of the GPUs (hw_pmon.csv)",   \
      NOSHOW,                                                                                      \
      have_pm ? sum_fig_mean(&pm.own_sm) : NAN)                                                    \
    D("gpu_others_sm_mean_pct", "other processes' mean SM share of the same GPUs", NOSHOW,         \
      have_pm ? sum_fig_mean(&pm.others_sm) : NAN)                                                 \
    D("proc_threads_max", "most threads of the job's process tree at one sample",                 \
      SHOW(SUM_SHOW_PAGE, NULL, "process threads max"),                                            \
      sum_fig_max(&run->proc[HW_PROC_COL_THREADS]))                                                 \
    D("step_phase_sec_per_step",                                                                   \
      "seconds per step inside the phases that did the steps (evals and checkpoints between "     \
      "them left out)",                                                                            \
      SHOW(SUM_SHOW_PAGE, NULL, "seconds per step in step phases"),                                \
      sum_fig_round_us(sum_run_step_phase_sec_per_step(run)))                                      \
    S("status_reason", "why the run has its status, in words (summary.json's outcome.reason)",     \
      NOSHOW, run->outcome.reason[0] ? run->outcome.reason : NULL)                                 \
    S("energy_source", "the reading energy_wh is of: counter, instant or integrated (mixed: the "  \
      "GPUs' differ), so that a sweep compares like with like", NOSHOW,                            \
      sum_run_energy_source(run))                                                          \
    /* the verdicts (verdicts.h): their ids, then each rule's key figure */                      \
    S("notes", "the verdicts' rule ids, warnings first (summary.json's notes)", NOSHOW,           \
      run->verdicts ? run->verdicts->ids : NULL)                                                   \
    PER_VFIG(D(sum_vfigs[i].key, sum_vfigs[i].what, NOSHOW,                                        \
               run->verdicts ? run->verdicts->figure[i] : NAN))                                    \
    D("co2e_g", "energy_wh's emissions at --carbon-intensity (g CO2e per kWh)", NOSHOW,           \
      sum_fig_co2e_g(run, sum_run_energy_wh(run)))                                                 \
    D("energy_cost", "energy_wh's cost at --price (per kWh)", NOSHOW,                              \
      sum_fig_energy_cost(run, sum_run_energy_wh(run)))                                         \
    /* context keys added later (rundir.h's HW_CTX_ROW_FIXED): at the end, so positions stay */  \
    PER_CTX(HW_CTX_ROW_FIXED, HW_CTX_COUNT,                                                        \
            S(ctx_cols[i], "where the run ran, as its scheduler or launcher says (context)",       \
              NOSHOW, run->info.ctx[i][0] ? run->info.ctx[i] : NULL))                              \
    D("proc_cpu_sec", "CPU seconds of the command and the processes it waited for (wait4, as "     \
      "sacct's TotalCPU)", NOSHOW, run->info.cpu_s)                                                \
    D("proc_disk_write_mib", "what the job's processes wrote to storage (write_bytes; "            \
      "disk_write_mib is the node's disks)", NOSHOW,                                               \
      sum_fig_max(&run->proc[HW_PROC_COL_WRITE]) / 1048576.0)                                      \
    D("proc_wchar_mib", "what the job's processes wrote by write() (wchar: page cache, pipes and " \
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

#define COL_ONE(nm, what, show, v) +1
#define COL_PER_IO(cols) +SUM_IO_COUNT * (0 cols)
#define COL_PER_CTX(lo, hi, cols) +((hi) - (lo)) * (0 cols)
#define COL_PER_VFIG(cols) +SUM_VFIG_COUNT * (0 cols)
enum {
    SWEEP_NCOLS = 0 SWEEP_COLUMNS(COL_ONE, COL_ONE, COL_ONE, COL_ONE, COL_PER_IO, COL_PER_CTX,
                                  COL_PER_VFIG)
};
#undef COL_ONE
#undef COL_PER_IO
#undef COL_PER_CTX
#undef COL_PER_VFIG

/* job.KEY: the sweep-row column of each context key (hw_ctx_defs), made once */
static char ctx_cols[HW_CTX_COUNT][64];
static pthread_once_t ctx_cols_once = PTHREAD_ONCE_INIT;

static void make_ctx_cols(void)
{
    for (int k = 0; k < HW_CTX_COUNT; k++)
        snprintf(ctx_cols[k], sizeof ctx_cols[k], "job.%s", hw_ctx_defs[k].key);
}

static size_t flat_cols(const struct sum_run *run, struct sum_col c[SWEEP_NCOLS])
{
    const char *mu_src, *cores_src, *mem_src = NULL;
    const struct sum_stat *mu = sum_fig_mem_util(run, &mu_src);
    sum_run_expected_cores(run, &cores_src);
    size_t n = 0;
#define S(nm, what, show, v) c[n++] = (struct sum_col){nm, SUM_COL_STR, v, 0, 0};
#define D(nm, what, show, v) c[n++] = (struct sum_col){nm, SUM_COL_NUM, NULL, v, 0};
#define U(nm, what, show, v) c[n++] = (struct sum_col){nm, SUM_COL_U64, NULL, 0, v};
#define I(nm, what, show, v) c[n++] = (struct sum_col){nm, SUM_COL_INT, NULL, v, 0};
    pthread_once(&ctx_cols_once, make_ctx_cols);
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

/* Each column's name, what it means and where it is shown, without a run. */
static size_t col_shows(const char *names[SWEEP_NCOLS], const char *whats[SWEEP_NCOLS],
                        struct sum_show shows[SWEEP_NCOLS])
{
    pthread_once(&ctx_cols_once, make_ctx_cols);
    size_t n = 0;
#define X(nm, what, show, v) (names[n] = (nm), whats[n] = (what), shows[n++] = show);
    SWEEP_COLUMNS(X, X, X, X, ROW_PER_IO, ROW_PER_CTX, ROW_PER_VFIG)
#undef X
    return n;
}

void sum_fig_text(struct hw_buf *out, const char *key, double v, const struct sum_units *u)
{
    size_t stem;
    bool rate;
    int d = sum_column_dim(key, &stem, &rate);
    if (d >= 0 && !rate) {
        sum_units_fmt(out, v, (enum sum_dim)d, u);
        return;
    }
    char ub[32], unit[40];
    const char *un = sum_column_unit(u, key, ub, sizeof ub);
    snprintf(unit, sizeof unit, "%s%s", *un && strcmp(un, "%") ? " " : "", un);
    sum_fmt_num(out, v, unit);
}

void sum_report_shown(const struct sum_run *run, unsigned where, sum_show_fn *fn, void *ctx)
{
    const char *names[SWEEP_NCOLS], *whats[SWEEP_NCOLS];
    struct sum_show shows[SWEEP_NCOLS];
    struct sum_col c[SWEEP_NCOLS];
    size_t n = col_shows(names, whats, shows);
    if (run)
        (void)flat_cols(run, c);
    for (size_t i = 0; i < n; i++) {
        if (!(shows[i].where & where))
            continue;
        double v = !run                          ? NAN
                   : c[i].type == SUM_COL_U64    ? (double)c[i].u
                   : c[i].type == SUM_COL_STR    ? NAN /* no string is shown as a number */
                                                 : c[i].d;
        fn(ctx, names[i], whats[i], &shows[i], v);
    }
}

/* The named columns of run's row as members of w's object, in the order asked (summary.json's
 * headline keys: report_json.c). A name the table lacks is null: a mistake in the caller's
 * list, said in the document. */
void sum_report_row_json(struct hw_json *w, const struct sum_run *run, const char *const *keys,
                         size_t n)
{
    struct sum_col c[SWEEP_NCOLS];
    size_t nc = flat_cols(run, c);
    for (size_t k = 0; k < n; k++) {
        size_t i = 0;
        while (i < nc && strcmp(c[i].name, keys[k]))
            i++;
        if (i == nc)
            hw_json_null(w, keys[k]);
        else if (c[i].type == SUM_COL_U64)
            hw_json_u64(w, keys[k], c[i].u);
        else
            hw_json_num(w, keys[k], c[i].d);
    }
}

bool sum_report_row_has(const char *key)
{
    const char *names[SWEEP_NCOLS], *whats[SWEEP_NCOLS];
    struct sum_show shows[SWEEP_NCOLS];
    size_t n = col_shows(names, whats, shows);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], key))
            return true;
    return false;
}

void sum_report_columns(const struct sum_units *u, struct hw_buf *out)
{
    pthread_once(&ctx_cols_once, make_ctx_cols);
    hw_buf_puts(out, "column\ttype\tunit\tdescription\n");
    char renamed[SWEEP_NCOLS][SUM_COL_NAME], unit[32];
    const char *shown[SWEEP_NCOLS];
    size_t n = 0;
    /* a name --units gives twice (peak_vram_mb, peak_vram_mib) is the row's once, as there */
#define ROW(nm, type, what)                                                                        \
    do {                                                                                           \
        const char *name = nm;                                                                     \
        bool dup = false;                                                                          \
        if (sum_units_column(u, name, renamed[n], sizeof renamed[n]) >= 0) {                       \
            for (size_t k = 0; k < n && !dup; k++)                                                 \
                dup = !strcmp(shown[k], renamed[n]);                                               \
            name = renamed[n];                                                                     \
        }                                                                                          \
        if (!dup) {                                                                                \
            hw_buf_printf(out, "%s\t%s\t%s\t%s\n", name, type,                                     \
                          sum_column_unit(u, nm, unit, sizeof unit), what);                        \
            shown[n++] = name;                                                                     \
        }                                                                                          \
    } while (0);
#define S(nm, what, show, v) ROW(nm, "text", what)
#define D(nm, what, show, v) ROW(nm, "number", what)
#define U(nm, what, show, v) ROW(nm, "integer", what)
#define I(nm, what, show, v) ROW(nm, "integer", what)
    SWEEP_COLUMNS(S, D, U, I, ROW_PER_IO, ROW_PER_CTX, ROW_PER_VFIG)
#undef S
#undef D
#undef U
#undef I
#undef ROW
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

/* The per-phase-name columns: phase.NAME.count, .total_sec, .mean_sec, .energy_wh,
 * .gpu_util_mean_pct, .peak_vram_mib (names and values in --units). */
static void phase_figures(const struct sum_run *run, const struct sum_units *u,
                          sum_figure_fn *fn, void *ctx)
{
    const struct sum_names *s = &run->names;
    for (size_t i = 0; i < s->n; i++) {
        const struct sum_name_acc *a = &s->v[i];
        const struct {
            const char *key;
            double v;
            bool integer;
        } f[] = {
            {"count", (double)a->count, true},
            {"total_sec", sum_fig_round_us(a->timed ? a->d_sum : NAN), false},
            {"mean_sec", sum_fig_round_us(sum_name_mean_s(a)), false},
            {"energy_wh", sum_name_energy_wh(run, a), false},
            {"gpu_util_mean_pct", sum_stat_mean(&a->util), false},
            {"peak_vram_mib", sum_fig_max(&a->mem_used), false},
        };
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
            char name[512], un[560];
            snprintf(name, sizeof name, "phase.%s.%s", a->name, f[k].key);
            int d = sum_units_column(u, name, un, sizeof un);
            fn(ctx, d >= 0 ? un : name,
               d >= 0 ? sum_units_value(u, (enum sum_dim)d, f[k].v) : f[k].v, f[k].integer);
        }
    }
}

void sum_report_figures(const struct sum_run *run, const struct sum_units *u, bool row,
                        bool phases, sum_figure_fn *fn, void *ctx)
{
    if (row) {
        struct sum_col c[SWEEP_NCOLS];
        char names[SWEEP_NCOLS][SUM_COL_NAME];
        size_t n = row_cols(run, u, c, names);
        for (size_t i = 0; i < n; i++)
            if (c[i].type != SUM_COL_STR)
                fn(ctx, c[i].name, c[i].type == SUM_COL_U64 ? (double)c[i].u : c[i].d,
                   c[i].type != SUM_COL_NUM);
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
    if (!empty)
        return;
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
};

static void csv_extra(void *ctx, const char *name, double v, bool integer)
{
    struct cols_out *o = ctx;
    hw_buf_puts(o->names, name); /* the name itself: quoted where the header is written */
    hw_buf_putc(o->names, '\0');
    sum_report_cell(o->cells, v, integer);
    hw_buf_putc(o->cells, '\0');
    o->n++;
}

size_t sum_report_phase_csv(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *names, struct hw_buf *cells)
{
    struct cols_out o = {names, cells, 0};
    phase_figures(run, u, csv_extra, &o);
    return o.n;
}

static void jsonl_extra(void *ctx, const char *name, double v, bool integer)
{
    struct hw_json *w = ctx;
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
        hw_buf_free(&k);
    }
    phase_figures(run, u, jsonl_extra, &w);
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}
