/* gpu_tracker's resource usage of a run (gputracker.h). */
#include "gputracker.h"

#include <math.h>
#include <string.h>

#include "hwrun/jsonw.h"
#include "hwrun/buf.h"
#include "report.h"

void sum_gpu_tracker_units(struct sum_units *u)
{
    static const struct {
        enum sum_dim d;
        const char *spec;
    } def[] = {{SUM_DIM_MEM, "mem=GB"}, {SUM_DIM_GPUMEM, "gpumem=GB"}, {SUM_DIM_TIME, "time=h"}};
    for (size_t i = 0; i < sizeof def / sizeof def[0]; i++)
        if (!u->given[def[i].d]) {
            char err[64];
            (void)sum_units_parse(u, def[i].spec, err, sizeof err);
        }
}

/* gpu_tracker's names of our units ("gigabytes"); others as we write them. */
static const char *unit_word(const struct sum_units *u, enum sum_dim d)
{
    static const char *const words[][2] = {
        {"B", "bytes"},   {"KB", "kilobytes"}, {"MB", "megabytes"}, {"GB", "gigabytes"},
        {"TB", "terabytes"}, {"s", "seconds"}, {"min", "minutes"}, {"h", "hours"}, {"d", "days"},
    };
    const char *l = sum_units_label(u, d);
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(l, words[i][0]))
            return words[i][1];
    return l;
}

static void mem(struct hw_json *w, const char *key, double mib, const struct sum_units *u,
                enum sum_dim d)
{
    hw_json_num(w, key, sum_units_value(u, d, mib));
}

static void rss(struct hw_json *w, const char *key, double total, double priv, double shared,
                const struct sum_units *u)
{
    hw_json_open(w, key, '{');
    mem(w, "total_rss", total, u, SUM_DIM_MEM);
    mem(w, "private_rss", priv, u, SUM_DIM_MEM);
    mem(w, "shared_rss", shared, u, SUM_DIM_MEM);
    hw_json_close(w);
}

/* ProcessingUnitPercentages: sums of percents (100 per busy unit) and over `units` units. */
static void pct(struct hw_json *w, const char *key, double max_sum, double mean_sum, double units)
{
    hw_json_open(w, key, '{');
    hw_json_num(w, "max_sum_percent", max_sum);
    hw_json_num(w, "max_hardware_percent", max_sum / units);
    hw_json_num(w, "mean_sum_percent", mean_sum);
    hw_json_num(w, "mean_hardware_percent", mean_sum / units);
    hw_json_close(w);
}

void sum_report_gpu_tracker(const struct sum_run *run, const struct sum_units *u,
                            struct hw_buf *out)
{
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_PRETTY, HW_NUM_SIG12); /* as summary.json */
    hw_json_open(&w, NULL, '{');

    const struct sum_stat *proc = run->proc;
    hw_json_open(&w, "max_ram", '{');
    hw_json_str(&w, "unit", unit_word(u, SUM_DIM_MEM));
    mem(&w, "system_capacity", sum_fig_max(&run->cpu[HW_CPU_COL_MEM_TOTAL]), u, SUM_DIM_MEM);
    /* psutil's "used", as gpu_tracker reads it; a run recorded before hwmon wrote SReclaimable
     * has MemTotal - MemAvailable, the closest it has */
    mem(&w, "system",
        sum_fig_max(run->mem_used_psutil.n ? &run->mem_used_psutil
                                           : &run->cpu[HW_CPU_COL_MEM_USED]),
        u, SUM_DIM_MEM);
    /* gpu_tracker's own figures where hwmon --shared-once read them: shared memory counted once
     * per mapped path, total = private + that at one sample; else (an older run, or hwmon
     * without it) RSS, and smaps_rollup's Shared_* summed over the processes */
    bool once = !isnan(sum_fig_total_once_peak(run, SUM_GPMEM_TREE));
    if (once) {
        rss(&w, "main", sum_fig_total_once_peak(run, SUM_GPMEM_MAIN),
            sum_fig_max(&proc[HW_PROC_COL_MAIN_PRIVATE]),
            sum_fig_shared_once_peak(run, SUM_GPMEM_MAIN), u);
        rss(&w, "descendants", sum_fig_total_once_peak(run, SUM_GPMEM_DESC),
            sum_fig_max(&run->desc[SUM_DESC_PRIVATE]),
            sum_fig_shared_once_peak(run, SUM_GPMEM_DESC), u);
        rss(&w, "combined", sum_fig_total_once_peak(run, SUM_GPMEM_TREE),
            sum_fig_max(&proc[HW_PROC_COL_PRIVATE]),
            sum_fig_shared_once_peak(run, SUM_GPMEM_TREE), u);
    } else {
        rss(&w, "main", sum_fig_max(&proc[HW_PROC_COL_MAIN_RSS]),
            sum_fig_max(&proc[HW_PROC_COL_MAIN_PRIVATE]),
            sum_fig_max(&proc[HW_PROC_COL_MAIN_SHARED]), u);
        rss(&w, "descendants", sum_fig_max(&run->desc[SUM_DESC_RSS]),
            sum_fig_max(&run->desc[SUM_DESC_PRIVATE]), sum_fig_max(&run->desc[SUM_DESC_SHARED]),
            u);
        rss(&w, "combined", sum_fig_max(&proc[HW_PROC_COL_RSS]),
            sum_fig_max(&proc[HW_PROC_COL_PRIVATE]), sum_fig_max(&proc[HW_PROC_COL_SHARED]), u);
    }
    hw_json_close(&w);

    struct sum_together_figs tg;
    sum_together_figs(&run->together, &tg);
    hw_json_open(&w, "max_gpu_ram", '{');
    hw_json_str(&w, "unit", unit_word(u, SUM_DIM_GPUMEM));
    mem(&w, "system_capacity", tg.mem_total_mib, u, SUM_DIM_GPUMEM);
    mem(&w, "system", tg.mem_used_peak_mib, u, SUM_DIM_GPUMEM);
    /* the peaks over time of each sum at one sample (as gpu_tracker computes them) */
    mem(&w, "main", sum_run_gpu_mem_peak(run, SUM_GPMEM_MAIN, NULL), u, SUM_DIM_GPUMEM);
    mem(&w, "descendants", sum_run_gpu_mem_peak(run, SUM_GPMEM_DESC, NULL), u, SUM_DIM_GPUMEM);
    mem(&w, "combined", sum_run_gpu_mem_peak(run, SUM_GPMEM_TREE, NULL), u, SUM_DIM_GPUMEM);
    hw_json_close(&w);

    double cpus = run->info.cpus, cores = sum_run_expected_cores(run, NULL);
    hw_json_open(&w, "cpu_utilization", '{');
    sum_fig_json_count(&w, "system_core_count", cpus);
    sum_fig_json_count(&w, "n_expected_cores", cores);
    /* the machine: its busy cores as a sum of percents (100 per busy core) */
    pct(&w, "system", 100 * sum_fig_cores_busy(run, sum_fig_max(&run->cpu_busy)),
        100 * sum_fig_cores_busy(run, sum_fig_mean(&run->cpu_busy)), cpus);
    pct(&w, "main", sum_fig_max(&proc[HW_PROC_COL_MAIN_CPU]), sum_fig_mean(&proc[HW_PROC_COL_MAIN_CPU]),
        cores);
    pct(&w, "descendants", sum_fig_max(&run->desc[SUM_DESC_CPU]),
        sum_fig_mean(&run->desc[SUM_DESC_CPU]), cores);
    pct(&w, "combined", sum_fig_max(&proc[HW_PROC_COL_CPU]), sum_fig_mean(&proc[HW_PROC_COL_CPU]), cores);
    sum_fig_json_count(&w, "main_n_threads", sum_fig_max(&proc[HW_PROC_COL_MAIN_THREADS]));
    sum_fig_json_count(&w, "descendants_n_threads", sum_fig_max(&run->desc[SUM_DESC_THREADS]));
    sum_fig_json_count(&w, "combined_n_threads", sum_fig_max(&proc[HW_PROC_COL_THREADS]));
    hw_json_close(&w);

    /* the tracked GPUs (--tracked-gpus, gpu_tracker's gpu_uuids; default every GPU); the
     * system's GPU memory above is every GPU's whatever they are */
    struct sum_together_figs tt;
    sum_run_tracked_gpus(run, &tt);
    hw_json_open(&w, "gpu_utilization", '{');
    sum_fig_json_count(&w, "system_gpu_count", run->info.gpus);
    sum_fig_json_count(&w, "n_expected_gpus", tt.gpus ? (double)tt.gpus : NAN);
    pct(&w, "gpu_percentages", tt.util_sum_peak_pct, tt.util_sum_mean_pct, tt.gpus);
    hw_json_close(&w);

    hw_json_open(&w, "compute_time", '{');
    hw_json_str(&w, "unit", unit_word(u, SUM_DIM_TIME));
    hw_json_num(&w, "time", sum_units_value(u, SUM_DIM_TIME, sum_run_duration(run)));
    hw_json_close(&w);

    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}
