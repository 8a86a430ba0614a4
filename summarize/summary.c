/* Aggregation of one run: a sink over the readers that keeps running statistics per GPU, per
 * phase, for the CPU, the process tree and the container, plus energy and data quality. */
#include "summary.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "hwrun/utf8.h"

struct sum_run *sum_run_new(void)
{
    struct sum_run *run = calloc(1, sizeof *run);
    if (!run)
        return NULL;
    rd_run_info_init(&run->info);
    sum_outcome_init(&run->outcome);
    sum_fwmem_init(&run->fw);
    run->t_min = run->tc_min = INFINITY;
    run->t_max = run->tc_max = -INFINITY;
    run->cg_limit_cores = NAN;
    run->cg_mem_max_mib = NAN;
    run->cpu_prev_t = NAN;
    run->proc_prev_t = NAN;
    run->rss_first = run->rss_last = run->rss_fall_top = NAN;
    run->cpu_pend.t_row = run->cpu_pend.t_cad = NAN;
    run->proc_pend.t_row = run->proc_pend.t_cad = NAN;
    sum_system_init(&run->sys);
    run->sys_prev_t = run->kpeak_prev = NAN;
    /* the whole-run figures over every GPU are means and maxima only */
    for (int m = 0; m < RD_GM_COUNT; m++)
        sum_stat_init_mean_max(&run->all[m]);
    for (int k = 0; k < SUM_GPMEM_COUNT; k++)
        sum_stat_init_mean_max(&run->gt_total[k]);
    sum_stat_init_mean_max(&run->dmon_mem_all);
    sum_together_init(&run->together);
    sum_together_init(&run->together_tracked);
    for (int k = 0; k < SUM_PIO_COUNT; k++) {
        sum_stat_init_mean_max(&run->pio_rate[k]);
        run->pio_prev[k] = NAN;
    }
    run->pio_prev_t = NAN;
    run->pio_last[0] = run->pio_last[1] = NAN;
    return run;
}

const char *const sum_gpm_keys[HW_GPM_NCOLS] = {HW_GPM_KEYS};
const int sum_pio_cols[SUM_PIO_COUNT] = {HW_PROC_COL_RCHAR, HW_PROC_COL_WCHAR, HW_PROC_COL_SYSCR,
                                         HW_PROC_COL_SYSCW, HW_PROC_COL_READ, HW_PROC_COL_WRITE,
                                         HW_PROC_COL_CANCELLED};

static void open_free(struct sum_open_phase *o);

static void phase_free(struct sum_phase_acc *p)
{
    free(p->name);
    free(p->extra);
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        if (!p->gpu[g])
            continue;
        for (int m = 0; m < RD_GM_COUNT; m++)
            sum_stat_free(&p->gpu[g]->m[m]);
        for (int m = 0; m < HW_GPM_NCOLS; m++)
            sum_stat_free(&p->gpu[g]->gpm[m]);
        if (p->gpu[g]->clk)
            sum_clk_acc_free(p->gpu[g]->clk);
        free(p->gpu[g]->clk);
        free(p->gpu[g]->pm);
        free(p->gpu[g]);
    }
    sum_stat_free(&p->cpu_usr);
    sum_stat_free(&p->cpu_idle);
    sum_stat_free(&p->proc_rss);
    sum_stat_free(&p->proc_cpu);
    sum_stat_free(&p->main_rss);
    sum_stat_free(&p->main_cpu);
    sum_stat_free(&p->main_threads);
    sum_stat_free(&p->usr_cpu);
    sum_stat_free(&p->sys_cpu);
}

void sum_run_free(struct sum_run *run)
{
    for (size_t k = 0; run && k < run->nparams; k++) {
        free(run->params[k].key);
        json_object_put(run->params[k].v);
    }
    if (!run)
        return;
    free(run->params);
    free(run->dir);
    free(run->verdicts);
    free(run->tspan);
    sum_tl_free(run->tl);
    sum_jser_free(run->jser);
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        if (run->clk[g])
            sum_clk_acc_free(&run->clk[g]->acc);
        free(run->clk[g]);
        if (run->ecnt[g])
            sum_ecount_free(run->ecnt[g]);
        free(run->ecnt[g]);
        free(run->pm[g]); /* mean/max stats: nothing of their own */
    }
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        free(run->path[k]);
        sum_stat_free(&run->q_interval[k]);
    }
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        struct sum_gpu *gp = run->gpu[g];
        if (!gp)
            continue;
        for (int m = 0; m < RD_GM_COUNT; m++)
            sum_stat_free(&gp->m[m]);
        for (int m = 0; m < RD_DM_COUNT; m++)
            sum_stat_free(&gp->dm[m]);
        for (int m = 0; m < HW_GPM_NCOLS; m++)
            sum_stat_free(&gp->gpm[m]);
        sum_stat_free(&gp->interval);
        free(gp);
    }
    for (int m = 0; m < RD_GM_COUNT; m++)
        sum_stat_free(&run->all[m]);
    sum_stat_free(&run->dmon_mem_all);
    for (size_t i = 0; i < run->nphase; i++)
        phase_free(&run->phase[i]);
    free(run->phase);
    free(run->brief);
    free(run->pick);
    for (size_t i = 0; i < run->nopen; i++)
        open_free(&run->open[i]);
    free(run->open);
    sum_ivx_free(&run->pidx);
    sum_names_free(&run->names);
    for (size_t i = 0; i < run->nerr; i++)
        free(run->err[i].data);
    free(run->cgroup_json);
    for (int c = 0; c < HW_CPU_COL_COUNT; c++)
        sum_stat_free(&run->cpu[c]);
    sum_stat_free(&run->cpu_busy);
    sum_stat_free(&run->mem_used_psutil);
    for (int c = 0; c < HW_PROC_COL_COUNT; c++)
        sum_stat_free(&run->proc[c]);
    for (int c = 0; c < SUM_DESC_COUNT; c++)
        sum_stat_free(&run->desc[c]);
    for (int k = 0; k < SUM_GPMEM_COUNT; k++)
        sum_stat_free(&run->gt_total[k]);
    for (int k = 0; k < SUM_PIO_COUNT; k++)
        sum_stat_free(&run->pio_rate[k]);
    free(run);
}

void sum_inputs_from_dir(struct sum_inputs *in, const char *dir, char *storage[HW_FILE_COUNT])
{
    in->dir = dir;
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        storage[k] = NULL;
        in->path[k] = NULL;
        char *p;
        if (asprintf(&p, "%s/%s", dir, hw_file_names[k]) < 0)
            continue;
        struct stat st;
        if (stat(p, &st) == 0) {
            storage[k] = p;
            in->path[k] = p;
        } else {
            free(p);
        }
    }
}

size_t sum_run_gpu_count(const struct sum_run *run)
{
    size_t n = 0;
    for (int g = 0; g < RD_MAX_GPUS; g++)
        n += run->gpu[g] != NULL;
    return n;
}

double sum_run_duration(const struct sum_run *run)
{
    if (isfinite(run->info.stop_duration_s))
        return run->info.stop_duration_s;
    if (isfinite(run->info.t_start) && isfinite(run->info.t_stop) &&
        run->info.t_stop >= run->info.t_start)
        return run->info.t_stop - run->info.t_start;
    if (!(run->t_max >= run->t_min))
        return NAN;
    /* running, or killed (no stop event): from hwmon's start to its last sample or entry, on
     * the clock its own files share (sum_run_span's t1 is then that last time) */
    double began = sum_run_began(run);
    if (isfinite(began) && began <= run->t_max)
        return run->t_max - began;
    return run->t_max - run->t_min;
}

bool sum_fwmem_figures(const struct sum_run *run, const struct sum_phase_acc *p,
                       struct sum_fwmem_fig *out)
{
    const struct sum_fwmem *fw = p ? &p->fw : &run->fw;
    if (!fw->framework[0])
        return false;
    double used = NAN, total = NAN;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp)
            continue;
        const struct sum_stat *u = p ? (p->gpu[g] ? &p->gpu[g]->m[RD_GM_MEM_USED] : NULL)
                                     : &gp->m[RD_GM_MEM_USED];
        if (u && u->n)
            used = fmax(used, u->max);
        if (gp->m[RD_GM_MEM_TOTAL].n)
            total = fmax(total, gp->m[RD_GM_MEM_TOTAL].max);
    }
    *out = (struct sum_fwmem_fig){
        .peak_mib = fw->peak_mib,
        .pool_mib = fw->pool_mib,
        .vram_peak_mib = used,
        .vram_total_mib = total,
        .headroom_mib = total - fw->peak_mib,
        .pool_unused_mib = fw->pool_mib - fw->peak_mib,
    };
    return true;
}

long sum_phase_gpu_samples(const struct sum_run *run, const struct sum_phase_acc *p)
{
    long fewest = -1;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        if (!run->gpu[g] || !run->gpu[g]->in_query)
            continue;
        uint64_t n = sum_phase_gpu_rows(p->gpu[g]);
        if (fewest < 0 || (long)n < fewest)
            fewest = (long)n;
    }
    return fewest;
}

const char *sum_phase_edges(const struct sum_phase_acc *p)
{
    return p->edge_t0 ? (p->edge_t1 ? "measured" : "begin") : p->edge_t1 ? "end" : "interpolated";
}

double sum_run_sec_per_step(const struct sum_run *run)
{
    return run->steps > 0 ? sum_run_duration(run) / run->steps : NAN;
}

double sum_run_step_phase_sec_per_step(const struct sum_run *run)
{
    if (run->steps_logged > 0)
        return run->steps_logged_s / run->steps_logged;
    const struct sum_name_acc *step = sum_names_find(&run->names, HW_PHASE_STEP_NAME);
    return step && run->steps > 0 ? step->d_sum / run->steps : NAN;
}

double sum_run_energy_wh_per_step(const struct sum_run *run)
{
    return run->steps > 0 ? sum_run_energy_wh(run) / run->steps : NAN;
}

bool sum_run_span(const struct sum_run *run, double *t0, double *t1)
{
    const struct rd_run_info *in = &run->info;
    /* hwmon's own span: its duration is monotonic, so a wall-clock step mid-run changes
     * neither; it began before its start event (the probes) */
    double began = sum_run_began(run);
    if (isfinite(in->t_stop) && isfinite(in->stop_duration_s) && in->stop_duration_s >= 0) {
        *t1 = in->t_stop;
        *t0 = began;
    } else {
        *t0 = isfinite(began) ? began : run->t_max >= run->t_min ? run->t_min : NAN;
        *t1 = *t0 + sum_run_duration(run);
    }
    return isfinite(*t0) && isfinite(*t1);
}

double sum_run_began(const struct sum_run *run)
{
    const struct rd_run_info *in = &run->info;
    if (isfinite(in->t_stop) && isfinite(in->stop_duration_s) && in->stop_duration_s >= 0)
        return in->t_stop - in->stop_duration_s;
    return isfinite(in->start_setup_s) ? in->t_start - in->start_setup_s : in->t_start;
}

static void pmon_acc_init(struct sum_pmon_acc *a);

const char *sum_run_pmon_unattributed(const struct sum_run *run)
{
    if (run->info.pid_ns == 2)
        return "pid_namespace";
    if (!run->ntspan)
        return "no_tree_pids";
    return NULL;
}

bool sum_run_pmon(const struct sum_run *run, struct sum_pmon_acc *out)
{
    pmon_acc_init(out);
    bool any = false;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_pmon_gpu *m = run->pm[g];
        if (!m)
            continue;
        any = true;
        const struct sum_stat *src[5] = {&m->acc.own_sm, &m->acc.others_sm, &m->acc.own_mem,
                                         &m->acc.others_mem, &m->acc.all_sm};
        struct sum_stat *dst[5] = {&out->own_sm, &out->others_sm, &out->own_mem,
                                   &out->others_mem, &out->all_sm};
        for (int k = 0; k < 5; k++) {
            dst[k]->sum += src[k]->sum;
            dst[k]->n += src[k]->n;
            if (src[k]->n && src[k]->max > dst[k]->max)
                dst[k]->max = src[k]->max;
        }
    }
    return any;
}

bool sum_run_clocks(const struct sum_run *run, struct sum_clk_figs *out)
{
    struct sum_clk_acc all;
    sum_clk_acc_init(&all);
    bool any = false;
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->clk[g]) {
            sum_clk_acc_merge(&all, &run->clk[g]->acc);
            any = true;
        }
    sum_clk_figs(&all, out);
    sum_clk_acc_free(&all);
    return any;
}

double sum_gpu_energy_integrated_wh(const struct sum_run *run, int g)
{
    const struct sum_gpu *gp = g >= 0 && g < RD_MAX_GPUS ? run->gpu[g] : NULL;
    return gp && gp->m[RD_GM_POWER].n ? gp->energy.joules / 3600.0 : NAN;
}

/* A GPU whose energy counter (NVML's or AMD SMI's: hw_energy.csv) and power integrated over its
 * samples disagree by more than SUM_COUNTER_DISAGREE over a run of SUM_COUNTER_MIN_S covered
 * seconds without a gap (a gap's time is in the counter, not in the integral): one of them is
 * wrong, said with the health warnings every output shows. */
#define SUM_COUNTER_DISAGREE 0.20
#define SUM_COUNTER_MIN_S 60.0
static void counter_warnings(struct sum_run *run)
{
    for (int g = 0; g < RD_MAX_GPUS && run->nhealth_warn < SUM_MAX_HEALTH_WARNINGS; g++) {
        double c = sum_gpu_energy_counter_wh(run, g), i = sum_gpu_energy_integrated_wh(run, g);
        const struct rd_energy *e = run->gpu[g] ? &run->gpu[g]->energy : NULL;
        if (!e || e->gaps || !(e->covered_s >= SUM_COUNTER_MIN_S) || !(c > 0) || !(i > 0) ||
            fabs(c / i - 1) <= SUM_COUNTER_DISAGREE)
            continue;
        snprintf(run->health_warn[run->nhealth_warn++], sizeof run->health_warn[0],
                 "GPU %d: energy counter %.4g Wh, power integrated %.4g Wh (%+.3g%%): a power "
                 "reading that lags or misses, or a wrong counter",
                 g, c, i, (c / i - 1) * 100);
    }
}

/* GPU faults in nvidia-smi's words, first among the health warnings: each GPU whose rows said
 * one, then each fault hwmon logged that no row of that GPU said (a lost GPU leaves no row). */
static void fault_warnings(struct sum_run *run)
{
    for (int g = 0; g < RD_MAX_GPUS && run->nhealth_warn < SUM_MAX_HEALTH_WARNINGS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp || !gp->fault_rows)
            continue;
        const struct hw_gpu_fault_def *d = &hw_gpu_faults[gp->fault];
        snprintf(run->health_warn[run->nhealth_warn++], sizeof run->health_warn[0],
                 "GPU %d: nvidia-smi said \"%s\" in %llu of %llu rows (%s line %llu on; "
                 "nothing measured): %s",
                 g, d->words, (unsigned long long)gp->fault_rows,
                 (unsigned long long)gp->samples, HW_GPU_FILE,
                 (unsigned long long)gp->fault_line, d->todo);
    }
    for (int i = 0; i < run->nfault_ev && run->nhealth_warn < SUM_MAX_HEALTH_WARNINGS; i++) {
        const char *gpu = run->fault_ev[i].gpu;
        bool said = false;
        for (int g = 0; g < RD_MAX_GPUS && !said; g++)
            said = run->gpu[g] && run->gpu[g]->fault == run->fault_ev[i].fault &&
                   (!gpu[0] || !strcmp(run->gpu[g]->uuid, gpu));
        if (said)
            continue;
        const struct hw_gpu_fault_def *d = &hw_gpu_faults[run->fault_ev[i].fault];
        snprintf(run->health_warn[run->nhealth_warn++], sizeof run->health_warn[0],
                 "%s%s: nvidia-smi said \"%s\" (%s event): %s", gpu[0] ? "GPU " : "a GPU",
                 gpu, d->words, d->event, d->todo);
    }
}

static void clock_note(const struct sum_run *run, char *buf, size_t cap)
{
    if (run->clock_steps)
        snprintf(buf, cap,
                 "the wall clock stepped %s during the run (%+.1f s in all): the times after a "
                 "step moved with it; the duration is the monotonic clock's",
                 run->clock_steps == 1 ? "once" : "more than once", run->clock_step_s);
}

static void log_note(const struct sum_run *run, char *buf, size_t cap)
{
    unsigned parts = run->q[HW_FILE_RUNLOG].parts;
    if (run->log_lost)
        snprintf(buf, cap, "%s was %s while the run went on: the entries before that are not in "
                 "this summary%s", HW_RUNLOG_FILE, run->log_lost_how,
                 parts ? " (the parts it named were read)" : "");
    else if (parts)
        snprintf(buf, cap, "%s was rotated while the run went on: its %u earlier part%s, named in "
                 "it, %s read first", HW_RUNLOG_FILE, parts, parts == 1 ? "" : "s",
                 parts == 1 ? "was" : "were");
}

static void params_note(const struct sum_run *run, char *buf, size_t cap)
{
    int n = 0;
    if (run->param_collisions) {
        char key[sizeof run->param_collision_key * 3];
        n = snprintf(buf, cap, "%llu param or metric key%s given twice in one event once nested "
                     "objects are flattened with dots (first: `%s`): the later value is kept",
                     (unsigned long long)run->param_collisions,
                     run->param_collisions == 1 ? "" : "s",
                     hw_term_str(run->param_collision_key, key, sizeof key));
    }
    if (run->params_dropped && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "%s%llu param or metric key%s beyond the first %d "
                 "not kept", n ? "; " : "", (unsigned long long)run->params_dropped,
                 run->params_dropped == 1 ? "" : "s", SUM_MAX_PARAMS);
}

const char *sum_run_note(const struct sum_run *run, int i, char *buf, size_t cap)
{
    static void (*const notes[SUM_NOTE_COUNT])(const struct sum_run *, char *, size_t) = {
        clock_note, log_note, params_note};
    buf[0] = '\0';
    if (i >= 0 && i < SUM_NOTE_COUNT)
        notes[i](run, buf, cap);
    return buf;
}

double sum_gpu_energy_counter_wh(const struct sum_run *run, int g)
{
    const struct sum_ecount *e = g >= 0 && g < RD_MAX_GPUS ? run->ecnt[g] : NULL;
    return e ? sum_ecount_wh(e) : NAN;
}

double sum_gpu_energy_instant_wh(const struct sum_run *run, int g)
{
    const struct sum_clk_gpu *k = g >= 0 && g < RD_MAX_GPUS ? run->clk[g] : NULL;
    return k && k->inst.covered_s > 0 ? k->inst.joules / 3600.0 : NAN;
}

enum rd_ereading sum_gpu_energy_reading(const struct sum_run *run, int g, double *wh)
{
    const double v[RD_ER_COUNT] = {sum_gpu_energy_counter_wh(run, g),
                                   sum_gpu_energy_instant_wh(run, g),
                                   sum_gpu_energy_integrated_wh(run, g)};
    return rd_energy_pick_of(v, wh);
}

double sum_gpu_energy_wh(const struct sum_run *run, int g, const char **source)
{
    double wh;
    enum rd_ereading k = sum_gpu_energy_reading(run, g, &wh);
    if (source)
        *source = rd_ereading_name(k);
    return wh;
}

double sum_phase_gpu_energy_integrated_wh(const struct sum_run *run,
                                          const struct sum_phase_acc *p, int g)
{
    const struct sum_phase_gpu *pg = p->gpu[g];
    /* a phase between two of the GPU's rows still got the bridged step's share */
    bool measured = run->gpu[g] && run->gpu[g]->m[RD_GM_POWER].n && pg &&
                    (pg->m[RD_GM_POWER].n || pg->energy_j != 0);
    return measured ? pg->energy_j / 3600.0 : NAN;
}

/* GPU g's energy readings inside phase p (Wh, NAN: not had) and the one its energy is. */
static enum rd_ereading phase_gpu_reading(const struct sum_run *run, const struct sum_phase_acc *p,
                                          int g, double *wh)
{
    const struct sum_phase_gpu *pg = p->gpu[g];
    const struct sum_ecount *e = run->ecnt[g];
    bool counter = pg && e && pg->counter_seen && sum_ecount_phase_ok(e, p->t1 - p->t0);
    const double v[RD_ER_COUNT] = {counter ? pg->counter_mj / 3.6e6 : NAN,
                                   pg && pg->inst_seen ? pg->inst_j / 3600.0 : NAN,
                                   sum_phase_gpu_energy_integrated_wh(run, p, g)};
    return rd_energy_pick_of(v, wh);
}

double sum_phase_gpu_energy_wh(const struct sum_run *run, const struct sum_phase_acc *p, int g,
                               const char **source)
{
    double wh;
    enum rd_ereading k = phase_gpu_reading(run, p, g, &wh);
    if (source)
        *source = rd_ereading_name(k);
    return wh;
}

double sum_phase_gpu_energy_covered_s(const struct sum_run *run, const struct sum_phase_acc *p,
                                      int g)
{
    enum rd_ereading k = phase_gpu_reading(run, p, g, NULL);
    return p->gpu[g] && k < RD_ER_COUNT ? p->gpu[g]->cov_s[k] : NAN;
}

bool sum_phase_energy_partly(const struct sum_run *run, const struct sum_phase_acc *p,
                             double *covered)
{
    bool partly = false;
    *covered = NAN;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        double c = p->gpu[g] ? sum_phase_gpu_energy_covered_s(run, p, g) : NAN;
        if (isnan(c))
            continue;
        if (isnan(*covered) || c < *covered)
            *covered = c;
        double iv = sum_run_gap_interval(run, HW_FILE_GPU, g);
        partly |= p->t1 - p->t0 - c > SUM_PHASE_UNCOVERED_IV * (isfinite(iv) ? iv : 0) + 0.001;
    }
    return partly;
}

double sum_run_memory_growth(const struct sum_run *run)
{
    return run->rss_last - run->rss_first;
}

double sum_phase_gap_s(const struct sum_phase_acc *p)
{
    return fmax(p->cpu_gap_s, p->proc_gap_s);
}

bool sum_run_energy_partly(const struct sum_run *run, double *covered)
{
    bool partly = false;
    *covered = NAN;
    double span = sum_run_duration(run);
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        if (!run->gpu[g] || !isfinite(sum_gpu_energy_wh(run, g, NULL)))
            continue;
        double c = run->gpu[g]->energy.covered_s;
        if (isnan(c))
            continue;
        if (isnan(*covered) || c < *covered)
            *covered = c;
        double iv = sum_run_gap_interval(run, HW_FILE_GPU, g);
        partly |= span - c > SUM_PHASE_UNCOVERED_IV * (isfinite(iv) ? iv : 0) + 0.001;
    }
    return partly;
}

double sum_name_energy_wh(const struct sum_run *run, const struct sum_name_acc *a)
{
    double wh = 0;
    bool any = false;
    for (int g = 0; a->energy && g < RD_MAX_GPUS && g < SUM_NAME_MAX_GPUS; g++) {
        const struct sum_name_energy *e = &a->energy[g];
        double v[RD_ER_COUNT], x;
        for (int k = 0; k < RD_ER_COUNT; k++)
            v[k] = e->seen[k] ? e->j[k] / 3600.0 : NAN;
        /* the counter as for a phase: when the windows last twice its update period */
        if (!(run->ecnt[g] && sum_ecount_phase_ok(run->ecnt[g], a->span_s)))
            v[RD_ER_COUNTER] = NAN;
        (void)rd_energy_pick_of(v, &x);
        if (isfinite(x)) {
            wh += x;
            any = true;
        }
    }
    return any ? wh : NAN;
}

double sum_phase_energy_wh(const struct sum_run *run, const struct sum_phase_acc *p)
{
    double wh = 0;
    bool any = false;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        double x = p->gpu[g] ? sum_phase_gpu_energy_wh(run, p, g, NULL) : NAN;
        if (isfinite(x)) {
            wh += x;
            any = true;
        }
    }
    return any ? wh : NAN;
}

const char *sum_run_energy_source(const struct sum_run *run)
{
    enum rd_ereading all = RD_ER_COUNT;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        enum rd_ereading k = sum_gpu_energy_reading(run, g, NULL);
        if (k == RD_ER_COUNT)
            continue;
        if (all != RD_ER_COUNT && k != all)
            return "mixed";
        all = k;
    }
    return rd_ereading_name(all);
}

double sum_run_energy_wh(const struct sum_run *run)
{
    double wh = 0;
    bool any = false;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        double x = sum_gpu_energy_wh(run, g, NULL);
        if (isfinite(x)) {
            wh += x;
            any = true;
        }
    }
    return any ? wh : NAN;
}

static void see_time(struct sum_run *run, double t)
{
    if (!isfinite(t)) /* an open phase's end before the run's end is known */
        return;
    if (t < run->t_min)
        run->t_min = t;
    if (t > run->t_max)
        run->t_max = t;
}

/* A row whose time is whole seconds (dmon -o DT, pmon): its true time is up to 1 s later. */
static void see_time_coarse(struct sum_run *run, double t)
{
    if (!isfinite(t))
        return;
    run->tc_min = fmin(run->tc_min, t);
    run->tc_max = fmax(run->tc_max, t);
}

/* ---- diagnostics ------------------------------------------------------------------------ */

static void on_diag(void *ctx, const char *name, uint64_t line, const char *reason)
{
    struct sum_run *run = ctx;
    if (++run->diag_count[run->cur_kind] > SUM_DIAG_PER_FILE)
        return;
    if (!run->cfg->message)
        return;
    char msg[600];
    if (line)
        snprintf(msg, sizeof msg, "%s:%llu: %s", name, (unsigned long long)line, reason);
    else
        snprintf(msg, sizeof msg, "%s: %s", name, reason);
    run->cfg->message(run->cfg->message_ctx, msg);
}

/* ---- phases ----------------------------------------------------------------------------- */

/* A phase entry's own keys (steps, loss, exit_status, ...) as a JSON object text, to keep per
 * phase; NULL when it has none or they are long (a phase is a summary, not a data store). */
#define SUM_PHASE_EXTRA_MAX 4096
/* the keys every phase entry has, which are not its extras (the framework's figures are a
 * phase's own: sum_fwmem) */
static bool phase_own_key(const char *k)
{
    return !strcmp(k, HW_RL_TS) || !strcmp(k, HW_RL_TYPE) || !strcmp(k, HW_RL_NAME) ||
           !strcmp(k, HW_RL_SECONDS) || !strcmp(k, HW_RL_PHASE_ID) || !strcmp(k, HW_FWMEM);
}

static char *phase_extra(struct json_object *obj)
{
    if (!obj || !json_object_is_type(obj, json_type_object))
        return NULL;
    size_t n = 0;
    json_object_object_foreach(obj, k0, v0)
    {
        (void)v0;
        n += !phase_own_key(k0);
    }
    if (!n) /* the usual step: no object built to say nothing */
        return NULL;
    struct json_object *x = json_object_new_object();
    if (!x)
        return NULL;
    json_object_object_foreach(obj, k, v)
    {
        if (!phase_own_key(k))
            json_object_object_add(x, k, json_object_get(v));
    }
    char *text = NULL;
    const char *s = json_object_to_json_string_ext(
        x, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (strlen(s) <= SUM_PHASE_EXTRA_MAX)
        text = strdup(s);
    json_object_put(x);
    return text;
}

void sum_fwmem_init(struct sum_fwmem *f)
{
    *f = (struct sum_fwmem){.peak_mib = NAN, .pool_mib = NAN};
}

void sum_fwmem_take(struct sum_fwmem *f, struct json_object *o)
{
    const char *fw = rd_json_str(o, HW_FWMEM_FRAMEWORK);
    if (!fw)
        return;
    double peak = rd_json_num(o, HW_FWMEM_PEAK), pool = rd_json_num(o, HW_FWMEM_POOL);
    if (!(peak >= 0 && peak < 1e15)) /* a number of MiB, or nothing said */
        return;
    snprintf(f->framework, sizeof f->framework, "%s", fw);
    f->peak_mib = fmax(f->peak_mib, peak); /* fmax: NAN loses */
    if (pool >= 0 && pool < 1e15)
        f->pool_mib = fmax(f->pool_mib, pool);
    if (!strcmp(fw, HW_FWMEM_JAX) && peak > f->jax_peak_mib)
        f->jax_peak_mib = peak;
}

/* An entry's HW_FWMEM object, into the phase's figures (f) and the run's. */
static void fwmem_entry(struct sum_run *run, struct sum_fwmem *f, struct json_object *entry)
{
    struct json_object *o;
    if (entry && json_object_object_get_ex(entry, HW_FWMEM, &o) &&
        json_object_is_type(o, json_type_object)) {
        sum_fwmem_take(f, o);
        sum_fwmem_take(&run->fw, o);
    }
}

/* Whether phases[] may list entry seq beyond SUM_MAX_PHASES in brief (cfg->phases_list). */
static bool brief_listable(const struct sum_run *run, uint64_t seq)
{
    switch (run->cfg->phases_list) {
    case SUM_PHASES_ALL: return true;
    case SUM_PHASES_FIRST: return seq < run->cfg->phases_first;
    case SUM_PHASES_AUTO: break;
    }
    return seq < SUM_PHASES_LISTED; /* past it the kept ones (picks) stand for the rest */
}

/* Entry b of name i: is it one the listing keeps past its limit? d: its seconds (NAN: none). */
static void pick_phase(struct sum_run *run, size_t i, const struct sum_phase_brief *b, double d,
                       bool open)
{
    if (i >= run->pick_cap) {
        size_t cap = run->pick_cap;
        if (!hw_grow(&run->pick, &run->pick_cap, i, sizeof *run->pick, 8))
            return; /* the entry is counted by name, not kept */
        memset(run->pick + cap, 0, (run->pick_cap - cap) * sizeof *run->pick);
    }
    struct sum_name_pick *k = &run->pick[i];
    if (!k->has_first) {
        k->first = *b;
        k->has_first = true;
    }
    if (!open && isfinite(d)) {
        if (!k->has_timed || d > k->slow_s)
            k->slowest = *b, k->slow_s = d;
        if (!k->has_timed || d < k->fast_s)
            k->fastest = *b, k->fast_s = d;
        k->has_timed = true;
    }
    if (b->failed && run->nkept_failed < SUM_KEPT_FAILED)
        run->kept_failed[run->nkept_failed++] = *b;
}

/* A phase over [t0, t1] (t1 INFINITY: open until the run's end, known once every file is
 * read); extra is taken over. Open phases are always kept: there are few, and the outcome
 * names them. */
static void add_phase(struct sum_run *run, const char *name, double t0, double t1,
                      double seconds, uint64_t line, char *extra, int exit_status, int sig,
                      bool failed, bool open, const struct sum_fwmem *fw)
{
    see_time(run, t0);
    see_time(run, t1);
    run->outcome.phases_failed += failed; /* every phase, also those not summarized */
    uint64_t seq = run->phases_total++;
    struct sum_name_acc *na = sum_names_add(&run->names, name, t0, t1, seconds, failed);
    struct sum_phase_brief b = {na ? na->name : NULL, t0, t1, line, seq, exit_status, sig,
                                failed, -1};
    double d = isfinite(seconds) ? seconds : t1 - t0; /* as its name's figures take it */
    if (run->nphase >= SUM_MAX_PHASES && !open) {
        run->phases_beyond++;
        free(extra);
        if (!na) {
            run->phases_dropped++;
            return;
        }
        pick_phase(run, (size_t)(na - run->names.v), &b, d, false);
        /* the briefs a listing may show; the rest only count (the picks stand for them) */
        if (!brief_listable(run, seq))
            return;
        if (run->nbrief < SUM_MAX_PHASE_BRIEFS &&
            hw_grow(&run->brief, &run->brief_cap, run->nbrief, sizeof *run->brief, 64))
            run->brief[run->nbrief++] = b;
        return;
    }
    if (!hw_grow(&run->phase, &run->phase_cap, run->nphase, sizeof *run->phase, 16)) {
        run->phases_dropped++;
        free(extra);
        return;
    }
    struct sum_phase_acc *a = &run->phase[run->nphase];
    memset(a, 0, sizeof *a);
    a->name = strdup(name);
    if (!a->name) {
        run->phases_dropped++;
        free(extra);
        return;
    }
    a->t0 = t0;
    a->t1 = t1;
    a->line = line;
    a->seq = seq;
    a->failed = failed;
    a->exit_status = exit_status;
    a->signal = sig;
    a->extra = extra;
    a->open = open;
    a->fw = *fw;
    /* per-phase CPU and process figures are means and maxima only */
    a->cpu_usr.no_quant = a->cpu_idle.no_quant = true;
    a->proc_rss.no_quant = a->proc_cpu.no_quant = true;
    a->main_rss.no_quant = a->main_cpu.no_quant = a->main_threads.no_quant = true;
    a->usr_cpu.no_quant = a->sys_cpu.no_quant = true;
    sum_system_init(&a->sys);
    a->no_quant = run->nphase >= SUM_PHASE_QUANT_MAX;
    b.full = (long)run->nphase;
    run->nphase++;
    if (na) {
        na->kept++;
        pick_phase(run, (size_t)(na - run->names.v), &b, d, open);
    }
}

static void open_free(struct sum_open_phase *o)
{
    free(o->id);
    free(o->name);
    free(o->extra);
}

static void on_phase_begin(void *ctx, const struct rd_phase *p)
{
    struct sum_run *run = ctx;
    see_time(run, p->t_start);
    if (run->nopen >= SUM_MAX_OPEN ||
        !hw_grow(&run->open, &run->open_cap, run->nopen, sizeof *run->open, 8)) {
        run->open_dropped++;
        return;
    }
    struct sum_open_phase *o = &run->open[run->nopen];
    *o = (struct sum_open_phase){.id = strdup(p->id), .name = strdup(p->name),
                                 .extra = phase_extra(p->obj), .t0 = p->t_start,
                                 .line = p->line};
    sum_fwmem_init(&o->fw);
    fwmem_entry(run, &o->fw, p->obj); /* a phase killed inside: what its begin said */
    if (!o->id || !o->name) {
        open_free(o);
        run->open_dropped++;
        return;
    }
    run->nopen++;
}

/* The run ended at t1 (its stop event, or INFINITY at the end of the log): the phases still
 * open were cut by it, innermost last. */
static void close_open(struct sum_run *run, double t1)
{
    for (size_t i = 0; i < run->nopen; i++) {
        struct sum_open_phase *o = &run->open[i];
        double end = t1 >= o->t0 ? t1 : o->t0; /* a begin stamped after the stop: no window */
        sum_outcome_open_phase(&run->outcome, o->name, o->t0, end);
        add_phase(run, o->name, o->t0, end, isinf(end) ? NAN : end - o->t0, o->line, o->extra,
                  -1, 0, false, true, &o->fw);
        o->extra = NULL;
        open_free(o);
    }
    run->nopen = 0;
}

static void metrics_from_phase(struct sum_run *run, struct json_object *obj);

static void on_phase(void *ctx, const struct rd_phase *p)
{
    struct sum_run *run = ctx;
    if (p->id) /* the end of a begun phase: no longer open (the latest begun, mostly) */
        for (size_t i = run->nopen; i-- > 0;)
            if (!strcmp(run->open[i].id, p->id)) {
                open_free(&run->open[i]);
                memmove(&run->open[i], &run->open[i + 1],
                        (run->nopen - i - 1) * sizeof *run->open);
                run->nopen--;
                break;
            }
    int exit_status, sig;
    bool failed = sum_outcome_phase_failed(&run->outcome, p, &exit_status, &sig);
    struct sum_fwmem fw;
    sum_fwmem_init(&fw);
    fwmem_entry(run, &fw, p->obj);
    long steps;
    if (!failed && rd_json_int(p->obj, HW_PHASE_STEPS, &steps) && steps > 0) {
        run->steps_logged += (double)steps; /* a failed phase's steps were planned, not done */
        run->steps_logged_s += p->seconds;
    }
    if (!failed) /* a failed phase's numbers (epoch=2) were not reached */
        metrics_from_phase(run, p->obj);
    add_phase(run, p->name, p->t_start, p->t_end, p->seconds, p->line, phase_extra(p->obj),
              exit_status, sig, failed, false, &fw);
}

static void index_phases(struct sum_run *run)
{
    sum_names_index(&run->names);
    if (!run->nphase)
        return;
    double *t0 = malloc(run->nphase * sizeof *t0), *t1 = malloc(run->nphase * sizeof *t1);
    if (t0 && t1) {
        for (size_t i = 0; i < run->nphase; i++) {
            t0[i] = run->phase[i].t0;
            t1[i] = run->phase[i].t1;
        }
        sum_ivx_build(&run->pidx, t0, t1, run->nphase); /* empty on ENOMEM */
    }
    free(t0);
    free(t1);
}

typedef void phase_fn(struct sum_run *, struct sum_phase_acc *, double, double, const void *);

struct phase_q {
    struct sum_run *run;
    double a, b;
    phase_fn *fn;
    const void *arg;
};

static void phase_hit(void *ctx, uint32_t id, double t0, double t1)
{
    (void)t0, (void)t1;
    struct phase_q *q = ctx;
    q->fn(q->run, &q->run->phase[id], q->a, q->b, q->arg);
}

/* Call fn for every phase whose window [t0, t1] meets [a, b]. */
static void for_phases(struct sum_run *run, double a, double b, phase_fn *fn, const void *arg)
{
    struct phase_q q = {run, a, b, fn, arg};
    if (run->pidx.n) /* most runs have no phases: a test, not a call */
        sum_ivx_query(&run->pidx, a, b, phase_hit, &q);
}

/* Whether a sample can fall in a phase: most runs have none, and then a GPU row does not even
 * build for_phases' argument. */
static bool any_phases(const struct sum_run *run)
{
    return run->pidx.n != 0;
}

static struct sum_phase_gpu *phase_gpu(struct sum_phase_acc *p, int g)
{
    if (!p->gpu[g]) {
        p->gpu[g] = calloc(1, sizeof *p->gpu[g]);
        if (p->gpu[g] && p->no_quant) {
            for (int m = 0; m < RD_GM_COUNT; m++)
                p->gpu[g]->m[m].no_quant = true;
            for (int m = 0; m < HW_GPM_NCOLS; m++)
                p->gpu[g]->gpm[m].no_quant = true;
        }
    }
    return p->gpu[g];
}

struct gpu_pt {
    int g;
    const double *v;
};

static void phase_gpu_point(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct gpu_pt *pt = arg;
    struct sum_phase_gpu *pg = phase_gpu(p, pt->g);
    if (!pg)
        return;
    for (int m = 0; m < RD_GM_COUNT; m++)
        sum_stat_add(&pg->m[m], pt->v[m]);
}

struct seg {
    int g;
    double t1, p1, t2, p2;
};

/* The seconds of the step [t1, t2] inside phase p. */
static double step_in(double t1, double t2, const struct sum_phase_acc *p)
{
    double x = fmax(t1, p->t0), y = fmin(t2, p->t1);
    return y > x ? y - x : 0;
}

/* The joules of a power step inside phase p (power interpolated linearly); 0 outside it. */
static double seg_joules_in(const struct seg *s, const struct sum_phase_acc *p)
{
    double x = fmax(s->t1, p->t0), y = fmin(s->t2, p->t1);
    if (y <= x)
        return 0;
    double slope = (s->p2 - s->p1) / (s->t2 - s->t1);
    double px = s->p1 + slope * (x - s->t1), py = s->p1 + slope * (y - s->t1);
    return (px + py) / 2.0 * (y - x);
}

static void phase_energy(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                         const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct seg *s = arg;
    if (!(fmin(s->t2, p->t1) > fmax(s->t1, p->t0)))
        return;
    struct sum_phase_gpu *pg = phase_gpu(p, s->g);
    if (pg) {
        pg->energy_j += seg_joules_in(s, p);
        pg->cov_s[RD_ER_INTEGRATED] += step_in(s->t1, s->t2, p);
    }
}

/* ---- GPUs ------------------------------------------------------------------------------- */

/* GPU g's figures, made at its first row; NULL when g is out of range or without memory. */
static struct sum_gpu *new_gpu(struct sum_run *run, int g)
{
    if (g < 0 || g >= RD_MAX_GPUS)
        return NULL;
    if (!run->gpu[g]) {
        run->gpu[g] = calloc(1, sizeof *run->gpu[g]);
        if (!run->gpu[g])
            return NULL;
        run->gpu[g]->index = g;
        run->gpu[g]->prev_t = NAN;
        run->gpu[g]->dmon_prev_t = NAN;
        run->gpu[g]->gpm_prev_t = NAN;
        rd_energy_init(&run->gpu[g]->energy); /* its interval: from its first rows */
        rd_idle_init(&run->gpu[g]->idle);
        int i = run->ngpu_seen++;
        for (; i > 0 && run->gpu_seen[i - 1] > g; i--)
            run->gpu_seen[i] = run->gpu_seen[i - 1];
        run->gpu_seen[i] = (uint8_t)g;
    }
    return run->gpu[g];
}

static inline struct sum_gpu *get_gpu(struct sum_run *run, int g)
{
    if (g >= 0 && g < RD_MAX_GPUS && run->gpu[g])
        return run->gpu[g];
    return new_gpu(run, g);
}

double sum_run_gap_interval(const struct sum_run *run, enum hw_file kind, int gpu)
{
    if (kind == HW_FILE_GPU && gpu >= 0 && gpu < RD_MAX_GPUS && run->gpu[gpu])
        return run->gpu[gpu]->energy.interval_s;
    return sum_stat_quantile(&run->q_interval[kind], 0.5);
}

uint64_t sum_run_file_gaps(const struct sum_run *run, enum hw_file kind)
{
    if (kind == HW_FILE_GPU) { /* the energy rule's gaps: one count for both sections */
        uint64_t n = 0;
        for (int i = 0; i < run->ngpu_seen; i++)
            n += run->gpu[run->gpu_seen[i]]->energy.gaps;
        return n;
    }
    double med = sum_stat_quantile(&run->q_interval[kind], 0.5);
    return isfinite(med) ? sum_stat_count_above(&run->q_interval[kind], RD_GAP_FACTOR * med) : 0;
}

/* Whose power curve a step is of (rd_energy_add's context). */
struct curve_of {
    struct sum_run *run;
    int gpu;
};

/* What the summary does with each step of a GPU's power curve (energy.h keeps the rule and the
 * curve): the chart's energy line, and the energy of the phases and phase names it crosses.
 * Inline into the GPU row, where rd_energy_add calls it for every row. */
static inline __attribute__((always_inline)) void energy_stepped(void *ctx, double t0, double p0,
                                                                 double t1, double p1, bool bridged)
{
    const struct curve_of *c = ctx;
    struct sum_run *run = c->run;
    if (run->tl) /* the chart's energy: the joules of the steps, as energy_wh adds them */
        sum_tl_energy(run->tl, c->gpu, RD_ER_INTEGRATED, t1,
                      bridged ? rd_energy_trapezoid(t0, p0, t1, p1) : 0);
    if (bridged) {
        if (any_phases(run)) {
            struct seg s = {c->gpu, t0, p0, t1, p1};
            for_phases(run, t0, t1, phase_energy, &s);
        }
        if (sum_names_any(&run->names))
            sum_names_energy_at(&run->names, c->gpu, RD_ER_INTEGRATED, t0, p0, t1, p1);
    }
}

static void add_interval(struct sum_run *run, int kind, double *prev, double t,
                         struct sum_stat *also)
{
    if (isnan(t))
        return;
    if (!isnan(*prev) && t > *prev) {
        sum_stat_add(&run->q_interval[kind], t - *prev);
        if (also)
            sum_stat_add(also, t - *prev);
    }
    if (isnan(*prev) || t > *prev)
        *prev = t;
}

/* ---- clocks and health (hw_health.csv, clocks.h) ----------------------------------------- */

struct clk_of {
    int g;
    const struct sum_clk_step *step;
    const double *v; /* a row's values (points) */
};

static struct sum_clk_acc *phase_clk(struct sum_phase_acc *p, int g)
{
    struct sum_phase_gpu *pg = phase_gpu(p, g);
    if (pg && !pg->clk && (pg->clk = malloc(sizeof *pg->clk)))
        sum_clk_acc_init(pg->clk);
    return pg ? pg->clk : NULL;
}

static void phase_clk_step(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                           const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct clk_of *c = arg;
    struct sum_clk_acc *acc = phase_clk(p, c->g);
    if (acc)
        sum_clk_step_part(acc, c->step, p->t0, p->t1);
}

static void phase_clk_point(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct clk_of *c = arg;
    struct sum_clk_acc *acc = phase_clk(p, c->g);
    if (acc)
        sum_clk_sample(acc, c->v);
}

struct ecnt_of {
    int g;
    const struct sum_ecount_step *step;
};

static void phase_counter(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                          const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct ecnt_of *c = arg;
    struct sum_phase_gpu *pg = phase_gpu(p, c->g);
    if (!pg)
        return;
    pg->counter_mj += sum_ecount_part(c->step, p->t0, p->t1);
    pg->cov_s[RD_ER_COUNTER] += step_in(c->step->t1, c->step->t2, p);
    pg->counter_seen = true;
}

static void on_energy_row(void *ctx, const struct rd_energy_row *r)
{
    struct sum_run *run = ctx;
    if (r->gpu < 0 || r->gpu >= RD_MAX_GPUS)
        return;
    struct sum_ecount *e = run->ecnt[r->gpu];
    if (!e) {
        if (!(e = run->ecnt[r->gpu] = malloc(sizeof *e)))
            return;
        sum_ecount_init(e);
    }
    see_time(run, r->t);
    struct sum_ecount_step step;
    if (!sum_ecount_add(e, r->t, r->mj, &step))
        return;
    if (run->tl)
        sum_tl_energy(run->tl, r->gpu, RD_ER_COUNTER, step.t2, step.mj / 1000.0);
    if (any_phases(run)) {
        struct ecnt_of c = {r->gpu, &step};
        for_phases(run, step.t1, step.t2, phase_counter, &c);
    }
    if (sum_names_any(&run->names))
        sum_names_counter_at(&run->names, r->gpu, &step);
}

/* ---- processes on the GPUs (hw_pmon.csv) ----------------------------------------------- */

static bool in_tree(const struct sum_run *run, long pid, double t);

static void pmon_acc_init(struct sum_pmon_acc *a)
{
    sum_stat_init_mean_max(&a->own_sm);
    sum_stat_init_mean_max(&a->others_sm);
    sum_stat_init_mean_max(&a->own_mem);
    sum_stat_init_mean_max(&a->others_mem);
    sum_stat_init_mean_max(&a->all_sm);
}

/* An interval's sums into a (NAN where no process had a value). */
static void pmon_acc_add(struct sum_pmon_acc *a, const double *v)
{
    sum_stat_add_mean_max(&a->own_sm, v[0]);
    sum_stat_add_mean_max(&a->others_sm, v[1]);
    sum_stat_add_mean_max(&a->own_mem, v[2]);
    sum_stat_add_mean_max(&a->others_mem, v[3]);
    sum_stat_add_mean_max(&a->all_sm, v[4]);
}

struct pm_of {
    int g;
    const double *v;
};

static void phase_pmon(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                       const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct pm_of *c = arg;
    struct sum_phase_gpu *pg = phase_gpu(p, c->g);
    if (pg && !pg->pm && (pg->pm = malloc(sizeof *pg->pm)))
        pmon_acc_init(pg->pm);
    if (pg && pg->pm)
        pmon_acc_add(pg->pm, c->v);
}

/* GPU g's interval is complete: its sums count for the run and the phases it falls in. */
static void pmon_close(struct sum_run *run, int g)
{
    struct sum_pmon_gpu *m = run->pm[g];
    if (isnan(m->t))
        return;
    double v[5];
    bool attributed = !sum_run_pmon_unattributed(run);
    for (int k = 0; k < 5; k++)
        v[k] = m->any[k] && (attributed || k == 4) ? m->sum[k] : NAN;
    pmon_acc_add(&m->acc, v);
    if (any_phases(run)) {
        struct pm_of c = {g, v};
        for_phases(run, m->t, m->t, phase_pmon, &c);
    }
    memset(m->sum, 0, sizeof m->sum);
    memset(m->any, 0, sizeof m->any);
    m->nseen = 0;
    m->seen_none = false;
    m->t = NAN;
}

/* Has GPU m's interval had this pid (-1: its line of no process) already? Then a line is the
 * next interval's, though pmon gave it the same second. */
static bool pmon_seen(struct sum_pmon_gpu *m, long pid)
{
    if (pid < 0) {
        bool again = m->seen_none;
        m->seen_none = true;
        return again;
    }
    for (int i = 0; i < m->nseen; i++)
        if (m->seen[i] == pid)
            return true;
    if (m->nseen < (int)(sizeof m->seen / sizeof m->seen[0]))
        m->seen[m->nseen++] = pid;
    return false;
}

static void on_pmon(void *ctx, const struct rd_pmon_row *r)
{
    struct sum_run *run = ctx;
    if (r->gpu < 0 || r->gpu >= RD_MAX_GPUS || isnan(r->t))
        return;
    struct sum_pmon_gpu *m = run->pm[r->gpu];
    if (!m) {
        if (!(m = run->pm[r->gpu] = calloc(1, sizeof *m)))
            return;
        pmon_acc_init(&m->acc);
        m->t = NAN;
    }
    see_time_coarse(run, r->t);
    if (!(r->t == m->t) || pmon_seen(m, r->pid)) {
        pmon_close(run, r->gpu); /* a new interval of this GPU */
        pmon_seen(m, r->pid);
    }
    m->t = r->t;
    m->lines++;
    if (r->pid < 0) { /* the GPU's line of no process: nothing used it, a measured 0 */
        for (int k = 0; k < 5; k++)
            m->any[k] = true;
        return;
    }
    bool own = run->ntspan && in_tree(run, r->pid, r->t);
    own ? m->own_lines++ : m->other_lines++;
    const double x[5] = {own ? r->sm : NAN, own ? NAN : r->sm, own ? r->mem : NAN,
                         own ? NAN : r->mem, r->sm};
    for (int k = 0; k < 5; k++)
        if (!isnan(x[k])) {
            m->sum[k] += x[k];
            m->any[k] = true;
        }
}

static void phase_energy_inst(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                              const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct seg *s = arg;
    if (!(fmin(s->t2, p->t1) > fmax(s->t1, p->t0)))
        return;
    struct sum_phase_gpu *pg = phase_gpu(p, s->g);
    if (pg) {
        pg->inst_j += seg_joules_in(s, p);
        pg->cov_s[RD_ER_INSTANT] += step_in(s->t1, s->t2, p);
        pg->inst_seen = true;
    }
}

/* Each step of a GPU's instant power curve (hw_health.csv): the phases' and names' share. */
static void inst_stepped(void *ctx, double t0, double p0, double t1, double p1, bool bridged)
{
    const struct curve_of *c = ctx;
    if (c->run->tl)
        sum_tl_energy(c->run->tl, c->gpu, RD_ER_INSTANT, t1,
                      bridged ? rd_energy_trapezoid(t0, p0, t1, p1) : 0);
    if (!bridged)
        return;
    if (any_phases(c->run)) {
        struct seg s = {c->gpu, t0, p0, t1, p1};
        for_phases(c->run, t0, t1, phase_energy_inst, &s);
    }
    if (sum_names_any(&c->run->names))
        sum_names_energy_at(&c->run->names, c->gpu, RD_ER_INSTANT, t0, p0, t1, p1);
}

static void on_health(void *ctx, const struct rd_health_row *r)
{
    struct sum_run *run = ctx;
    if (r->gpu < 0 || r->gpu >= RD_MAX_GPUS)
        return;
    struct sum_clk_gpu *g = run->clk[r->gpu];
    if (!g) {
        if (!(g = run->clk[r->gpu] = malloc(sizeof *g)))
            return;
        sum_clk_gpu_init(g);
    }
    see_time(run, r->t);
    add_interval(run, HW_FILE_HEALTH, &g->prev_t_file, r->t, NULL);
    struct curve_of curve = {run, r->gpu};
    rd_energy_add(&g->inst, r->t, r->v[HW_HEALTH_POWER_INSTANT], run->info.interval_s,
                   inst_stepped, &curve);
    struct sum_clk_step step;
    bool bridged = sum_clk_row(g, r, run->info.interval_s, &step);
    if (run->tl) { /* the page shades the time a power or thermal reason held the clocks */
        double m = r->v[HW_HEALTH_REASONS];
        unsigned long long capping = HW_REASON_SW_POWER_CAP | HW_REASON_HW_POWER_BRAKE |
                                     HW_REASON_SW_THERMAL | HW_REASON_HW_THERMAL;
        sum_tl_health_row(run->tl, r->gpu, r->t,
                          isnan(m) ? NAN : ((unsigned long long)m & capping) ? 1.0 : 0.0);
    }
    if (any_phases(run)) {
        struct clk_of c = {r->gpu, &step, r->v};
        for_phases(run, r->t, r->t, phase_clk_point, &c);
        if (bridged)
            for_phases(run, step.t1, step.t2, phase_clk_step, &c);
    }
    sum_clk_row_done(g, r);
}

/* Does the comma-separated list name this row's GPU: its UUID (any case), or its index when
 * the row has an index column? Decided once per GPU, at its first row. */
static bool gpu_tracked(struct sum_run *run, const struct rd_gpu_row *r)
{
    if (r->gpu < 0 || r->gpu >= RD_MAX_GPUS)
        return false;
    uint8_t *d = &run->tracked_gpu[r->gpu];
    if (!*d) {
        *d = 2;
        char index[16];
        snprintf(index, sizeof index, "%d", r->gpu);
        for (const char *p = run->cfg->tracked_gpus; *p && *d == 2;) {
            size_t n = strcspn(p, ",");
            if ((r->uuid && strlen(r->uuid) == n && !strncasecmp(p, r->uuid, n)) ||
                (r->id_from == RD_GPU_ID_INDEX && strlen(index) == n && !strncmp(p, index, n)))
                *d = 1;
            p += n + (p[n] == ',');
        }
    }
    return *d == 1;
}

static void on_gpu(void *ctx, const struct rd_gpu_row *r)
{
    struct sum_run *run = ctx;
    struct sum_gpu *gp = get_gpu(run, r->gpu);
    if (!gp) {
        run->gpu_rows_dropped++;
        return;
    }
    gp->in_query = true;
    gp->samples++;
    if (r->fault != HW_GPU_FAULT_NONE && !gp->fault_rows++) {
        gp->fault = r->fault;
        gp->fault_line = r->line;
    }
    if (r->uuid && !gp->uuid[0])
        snprintf(gp->uuid, sizeof gp->uuid, "%s", r->uuid);
#pragma GCC unroll 16
    for (int m = 0; m < RD_GM_COUNT; m++) {
        sum_stat_add(&gp->m[m], r->v[m]);
        sum_stat_add_mean_max(&run->all[m], r->v[m]);
    }
    sum_together_row(&run->together, r->gpu, r->t, r->v);
    if (run->cfg && run->cfg->tracked_gpus && gpu_tracked(run, r))
        sum_together_row(&run->together_tracked, r->gpu, r->t, r->v);
    see_time(run, r->t);
    if (run->tl)
        sum_tl_gpu_row(run->tl, r);
    add_interval(run, HW_FILE_GPU, &gp->prev_t, r->t, &gp->interval);
    struct curve_of curve = {run, gp->index};
    rd_energy_add(&gp->energy, r->t, r->v[RD_GM_POWER], run->info.interval_s, energy_stepped,
                   &curve);
    /* the gap rule's interval once the rows decided it, the start event's before */
    rd_idle_row(&gp->idle, r->t, r->v[RD_GM_UTIL], r->v[RD_GM_POWER],
                 isfinite(gp->energy.interval_s) ? gp->energy.interval_s : run->info.interval_s,
                 run->idle_pct);
    if (!isnan(r->t)) {
        if (any_phases(run)) {
            struct gpu_pt pt = {r->gpu, r->v};
            for_phases(run, r->t, r->t, phase_gpu_point, &pt);
        }
        if (sum_names_any(&run->names))
            sum_names_gpu_at(&run->names, r->t, r->v[RD_GM_UTIL], r->v[RD_GM_MEM_USED],
                             r->v[RD_GM_POWER]);
    }
}

static void phase_gpm_point(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct rd_dmon_row *r = arg;
    struct sum_phase_gpu *pg = phase_gpu(p, r->gpu);
    if (!pg)
        return;
    for (int m = 0; m < HW_GPM_NCOLS; m++)
        sum_stat_add(&pg->gpm[m], r->v[RD_DM_GPM_FIRST + m]);
}

/* A row of hw_gpm.csv: only its GPM columns count (its utilization is hw_metrics.csv's). */
static void on_gpm(struct sum_run *run, struct sum_gpu *gp, const struct rd_dmon_row *r)
{
    gp->in_gpm = true;
    for (int m = 0; m < HW_GPM_NCOLS; m++)
        sum_stat_add(&gp->gpm[m], r->v[RD_DM_GPM_FIRST + m]);
    see_time_coarse(run, r->t);
    add_interval(run, HW_FILE_GPM, &gp->gpm_prev_t, r->t, NULL);
    if (!isnan(r->t) && r->gpu >= 0)
        for_phases(run, r->t, r->t, phase_gpm_point, r);
}

static void on_dmon(void *ctx, const struct rd_dmon_row *r)
{
    struct sum_run *run = ctx;
    struct sum_gpu *gp = get_gpu(run, r->gpu < 0 ? 0 : r->gpu);
    if (!gp) {
        run->gpu_rows_dropped++;
        return;
    }
    if (run->tl)
        sum_tl_dmon_row(run->tl, run->cur_kind, r);
    if (run->cur_kind == HW_FILE_GPM) {
        on_gpm(run, gp, r);
        return;
    }
    gp->in_dmon = true;
    for (int k = 0; k < RD_DM_COUNT; k++)
        sum_stat_add(&gp->dm[k], r->v[k]);
    sum_stat_add_mean_max(&run->dmon_mem_all, r->v[RD_DM_MEM]);
    see_time_coarse(run, r->t);
    add_interval(run, HW_FILE_DMON, &gp->dmon_prev_t, r->t, NULL);
}

/* ---- CPU, process tree, GPU processes ---------------------------------------------------- */

/* ---- rows that cover an interval: CPU and the process tree ------------------------------
 * A row of cpu_metrics.csv or proc_metrics.csv covers the time since the previous row of its
 * file: its CPU percentages and byte counts are of that interval. A phase gets, of every row,
 * the time it shares with the row's own part, as the weight of its percentages and as its share
 * of the bytes: exact where hwmon sampled at the phase's edges (edge rows, sampler.h), a split by
 * time share where it did not (older runs, phases too short to be sampled). A cadence row that
 * follows edge rows covers its whole interval (hwmon merged their parts back in): its own part
 * is what is left once theirs are taken out. The run-wide figures are the cadence's rows only,
 * as they always were. */

static bool cpu_col_bytes(int c)
{
    return c >= HW_CPU_COL_DISK_READ && c <= HW_CPU_COL_NET_TX;
}

static bool cpu_col_interval(int c)
{
    return c <= HW_CPU_COL_STEAL || c == HW_CPU_COL_CG_PCT || cpu_col_bytes(c);
}

static bool proc_col_interval(int c)
{
    return c == HW_PROC_COL_CPU || c == HW_PROC_COL_MAIN_CPU || c == HW_PROC_COL_USR_CPU ||
           c == HW_PROC_COL_SYS_CPU;
}

static bool no_bytes(int c)
{
    (void)c;
    return false;
}

/* Where the first row's interval began: hwmon's baseline, read as it began (one interval
 * before the row when that is not known). */
static double first_row_start(const struct sum_run *run, double t)
{
    double iv = run->info.interval_s, s = sum_run_began(run);
    if (isfinite(s) && s < t && (!isfinite(iv) || t - s < 2 * iv))
        return s;
    return isfinite(iv) ? t - iv : t;
}

/* The part of a row that is its own, (a, t], and its values in out (nc columns). */
static double own_part(struct sum_run *run, struct sum_row_pend *pd, double t, const double *v,
                       int nc, bool edge, bool (*interval)(int), bool (*bytes)(int), double *out)
{
    double a = isnan(pd->t_row) ? first_row_start(run, t) : pd->t_row;
    if (!(t > a))
        a = t;
    double own = t - a;
    memcpy(out, v, (size_t)nc * sizeof *out);
    if (edge) {
        for (int c = 0; c < nc; c++)
            if (interval(c))
                pd->acc[c] += bytes(c) ? v[c] : v[c] * own;
        pd->any = true;
    } else if (pd->any) {
        double full = t - (isnan(pd->t_cad) ? first_row_start(run, t) : pd->t_cad);
        for (int c = 0; c < nc; c++) {
            if (!interval(c))
                continue;
            double x = bytes(c) ? v[c] - pd->acc[c]
                                : own > 0 ? (v[c] * full - pd->acc[c]) / own : v[c];
            out[c] = x > 0 ? x : 0; /* rounding of the written cells: never below nothing */
        }
    }
    if (!edge) {
        memset(pd->acc, 0, sizeof pd->acc);
        pd->any = false;
        pd->t_cad = t;
    }
    pd->t_row = t;
    return a;
}

struct part {
    double a, b;     /* the row's own part, (a, b] */
    const double *v; /* its values */
    const double *io; /* the tree's read and write bytes in it (proc rows; NAN: not known) */
    const struct sum_phase_acc *owner; /* the phase whose edge readings the row spans (io_owner) */
};

/* The time a phase shares with a part. */
static double overlap(const struct sum_phase_acc *p, const struct part *x)
{
    return fmin(x->b, p->t1) - fmax(x->a, p->t0);
}

/* Holes: a row that stands for more than RD_GAP_FACTOR intervals (hwmon stopped or frozen)
 * says what the whole of it did, not when: the run's totals take it, a phase inside it gets
 * nothing of it, and counts its time as unmeasured (a phase inside a 20 s hole got the hole's
 * average CPU, labelled "interpolated" like any step). */
static bool hole_row(const struct sum_run *run, double a, double b)
{
    double iv = run->info.interval_s;
    return iv > 0 && b - a > RD_GAP_FACTOR * iv;
}

static void phase_cpu_part(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                           const void *arg);
static void phase_proc_part(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg);

/* A hole's row is a phase's own when the phase spans it (read at both ends): its figures are
 * the phase's, measured. A phase that shares part of it only is unmeasured there. */
static bool spans_row(const struct sum_run *run, const struct sum_phase_acc *p,
                      const struct part *x)
{
    double tol = hw_edge_tol(run->info.interval_s);
    return p->t0 <= x->a + tol && p->t1 >= x->b - tol;
}

/* A hole's row for phase p: true when p spans it (its figures count as measured), else the
 * time p shares with it goes to *gap_s, unmeasured. */
static bool hole_row_is_phase(const struct sum_run *run, const struct sum_phase_acc *p,
                              const struct part *x, double *gap_s)
{
    if (spans_row(run, p, x))
        return true;
    double w = overlap(p, x);
    if (w > 0)
        *gap_s += w;
    return false;
}

static void phase_cpu_hole(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                           const void *arg)
{
    if (hole_row_is_phase(run, p, arg, &p->cpu_gap_s))
        phase_cpu_part(run, p, a, b, arg);
}

static void phase_proc_hole(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    if (hole_row_is_phase(run, p, arg, &p->proc_gap_s))
        phase_proc_part(run, p, a, b, arg);
}

static void phase_cpu_part(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                           const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct part *x = arg;
    double w = overlap(p, x), len = x->b - x->a;
    const double *v = x->v;
    if (len > 0 && !(w > 0))
        return;
    sum_stat_add_w(&p->cpu_usr, v[HW_CPU_COL_USR], w);
    sum_stat_add_w(&p->cpu_idle, v[HW_CPU_COL_IDLE], w);
    double bytes[SUM_IO_COUNT] = {v[HW_CPU_COL_DISK_READ], v[HW_CPU_COL_DISK_WRITE], v[HW_CPU_COL_NET_RX],
                                  v[HW_CPU_COL_NET_TX]};
    sum_system_traffic(&p->sys, bytes, len, len > 0 ? w / len : 1);
}

static void phase_proc_part(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    (void)run, (void)a, (void)b;
    const struct part *x = arg;
    double w = overlap(p, x);
    const double *v = x->v;
    if (x->b >= p->t0 && x->b <= p->t1) { /* readings at the row's time */
        sum_stat_add(&p->proc_rss, v[HW_PROC_COL_RSS]);
        sum_stat_add(&p->main_rss, v[HW_PROC_COL_MAIN_RSS]);
        sum_stat_add(&p->main_threads, v[HW_PROC_COL_MAIN_THREADS]);
    }
    sum_stat_add_w(&p->proc_cpu, v[HW_PROC_COL_CPU], w);
    sum_stat_add_w(&p->main_cpu, v[HW_PROC_COL_MAIN_CPU], w);
    sum_stat_add_w(&p->usr_cpu, v[HW_PROC_COL_USR_CPU], w);
    sum_stat_add_w(&p->sys_cpu, v[HW_PROC_COL_SYS_CPU], w);
    double len = x->b - x->a, share = len > 0 ? fmax(w, 0) / len : 1;
    if (p == x->owner)
        share = 1; /* its bytes are the phase's: read at its begin and at its end */
    else if (x->owner && !(p->t0 <= x->owner->t0 && p->t1 >= x->owner->t1))
        share = 0; /* it only touches the owner's edge readings: they are its edges too */
    for (int k = 0; k < 2; k++)
        if (isfinite(x->io[k])) {
            p->proc_io[k] += x->io[k] * share;
            p->proc_io_seen = true;
        }
}

/* A sample within this of a phase's begin or end read its counters there. */
static double edge_tol(const struct sum_run *run)
{
    return hw_edge_tol(run->info.interval_s);
}

static void phase_mark_edge(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    (void)a, (void)b;
    double t = *(const double *)arg, tol = edge_tol(run);
    /* one sample reads one edge: in a phase shorter than the tolerance, the sample at its begin
     * is not also its end (a 10 ms checkpoint read only where it began is not "measured"); the
     * halves tell them apart, but for a phase of no length */
    double mid = p->t0 + (p->t1 - p->t0) / 2;
    bool point = !(p->t1 > p->t0);
    if (fabs(t - p->t0) <= tol && (point || t < mid))
        p->edge_t0 = true;
    if (fabs(t - p->t1) <= tol && (point || t >= mid))
        p->edge_t1 = true;
}

static void phase_sys_point(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    (void)run, (void)a, (void)b;
    const double *v = arg; /* free space, cgroup memory, kernel peak if it rose, limit */
    sum_system_point(&p->sys, v[0], v[1], v[2], v[3]);
}

/* The run-wide disk, network, free-space and container figures of a cadence row. */
static void on_cpu_system(struct sum_run *run, const struct rd_cpu_row *r)
{
    double bytes[SUM_IO_COUNT] = {r->v[HW_CPU_COL_DISK_READ], r->v[HW_CPU_COL_DISK_WRITE],
                                  r->v[HW_CPU_COL_NET_RX], r->v[HW_CPU_COL_NET_TX]};
    /* the first row's bytes are since hwmon's baseline, one interval before it */
    double dt = !isnan(r->t) && !isnan(run->sys_prev_t) ? r->t - run->sys_prev_t
                                                        : run->info.interval_s;
    if (!isnan(r->t) && (isnan(run->sys_prev_t) || r->t > run->sys_prev_t))
        run->sys_prev_t = r->t;
    sum_system_traffic(&run->sys, bytes, dt, 1);
    if (run->tl) /* the chart's rates: the same bytes over the same interval */
        sum_tl_io(run->tl, r->t, bytes, dt);
}

static void on_cpu(void *ctx, const struct rd_cpu_row *r)
{
    struct sum_run *run = ctx;
    see_time(run, r->t);
    /* the kernel's peak counts where it rose: a peak from before the run is not the run's */
    double k = r->v[HW_CPU_COL_CG_MEM_PEAK], rose = NAN;
    if (!isnan(k)) {
        if (!isnan(run->kpeak_prev) && k > run->kpeak_prev)
            rose = k;
        run->kpeak_prev = k;
    }
    double pt[4] = {r->v[HW_CPU_COL_FS_FREE], r->v[HW_CPU_COL_CG_MEM], rose, r->v[HW_CPU_COL_CG_MEM_MAX]};
    sum_system_point(&run->sys, pt[0], pt[1], pt[2], pt[3]);
    if (!isnan(r->t)) {
        double own[HW_CPU_COL_COUNT];
        double a = own_part(run, &run->cpu_pend, r->t, r->v, HW_CPU_COL_COUNT, r->edge,
                            cpu_col_interval, cpu_col_bytes, own);
        struct part x = {a, r->t, own, NULL};
        for_phases(run, a, r->t, hole_row(run, a, r->t) ? phase_cpu_hole : phase_cpu_part, &x);
        for_phases(run, r->t, r->t, phase_sys_point, pt);
        double tol = edge_tol(run);
        for_phases(run, r->t - tol, r->t + tol, phase_mark_edge, &r->t);
        if (sum_names_any(&run->names))
            sum_names_cpu_at(&run->names, a, r->t, own[HW_CPU_COL_USR]);
    }
    if (r->edge) { /* not one of the cadence's samples: its parts are in the next row */
        run->edge_rows++;
        return;
    }
    /* Gauges by time (issue 47): a rate (the CPU modes, the cgroup's CPU) is over the row's
     * whole interval, a hole's too, and weighs its seconds; a point reading (memory) weighs its
     * seconds as well, but in a hole no more than an interval (unmeasured, not held); bytes per
     * row stay counts. Edge rows are parts of the next cadence row's, which hwmon merged. */
    double dt = !isnan(r->t) && !isnan(run->cpu_prev_t) && r->t > run->cpu_prev_t
                    ? r->t - run->cpu_prev_t
                    : run->info.interval_s;
    double iv = run->info.interval_s > 0 ? run->info.interval_s : 1;
    if (!(dt > 0))
        dt = iv;
    bool hole = !isnan(r->t) && !isnan(run->cpu_prev_t) && hole_row(run, run->cpu_prev_t, r->t);
    for (int c = 0; c < HW_CPU_COL_COUNT; c++) {
        if (cpu_col_bytes(c))
            sum_stat_add(&run->cpu[c], r->v[c]);
        else
            sum_stat_add_wq(&run->cpu[c], r->v[c], cpu_col_interval(c) || !hole ? dt : iv);
    }
    /* NAN: unmeasured */
    sum_stat_add_wq(&run->cpu_busy, r->v[HW_CPU_COL_USR] + r->v[HW_CPU_COL_SYS], dt);
    const double *v = r->v; /* NAN in any part: unmeasured */
    double used = v[HW_CPU_COL_MEM_TOTAL] - v[HW_CPU_COL_MEM_FREE] - v[HW_CPU_COL_MEM_BUFFERS] -
                  v[HW_CPU_COL_MEM_CACHED] - v[HW_CPU_COL_MEM_SRECLAIMABLE];
    sum_stat_add_wq(&run->mem_used_psutil,
                    used < 0 ? v[HW_CPU_COL_MEM_TOTAL] - v[HW_CPU_COL_MEM_FREE] : used, dt);
    if (!isnan(r->v[HW_CPU_COL_CG_LIMIT]))
        run->cg_limit_cores = r->v[HW_CPU_COL_CG_LIMIT];
    if (!isnan(r->v[HW_CPU_COL_CG_MEM_MAX]))
        run->cg_mem_max_mib = r->v[HW_CPU_COL_CG_MEM_MAX];
    on_cpu_system(run, r);
    if (run->tl)
        sum_tl_cpu_row(run->tl, r);
    add_interval(run, HW_FILE_CPU, &run->cpu_prev_t, r->t, NULL);
}

/* The phases a row overlaps, for io_owner. */
struct overlap_set {
    const struct sum_phase_acc *p[32];
    int n;
    bool full;
};

static void collect_phase(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                          const void *arg)
{
    (void)run, (void)a, (void)b;
    struct overlap_set *o = (struct overlap_set *)arg;
    if (o->n < (int)(sizeof o->p / sizeof o->p[0]))
        o->p[o->n++] = p;
    else
        o->full = true;
}

/* Whether phase q lies within phase p (and is not p). */
static bool nested_in(const struct sum_phase_acc *q, const struct sum_phase_acc *p)
{
    return q != p && q->t0 >= p->t0 && q->t1 <= p->t1;
}

/* Whether a phase other than p (or one p lies in) runs in (a, p's begin): the row's part before
 * p is then not a gap between phases. */
static bool busy_before(const struct overlap_set *o, const struct sum_phase_acc *p, double a)
{
    for (int i = 0; i < o->n; i++) {
        const struct sum_phase_acc *q = o->p[i];
        if (q != p && !nested_in(p, q) && q->t1 > a + 0.002 && q->t0 < p->t0)
            return true;
    }
    return false;
}

/* The phase whose bytes a row (a, b] holds alone: it begins at the phase's begin reading or
 * inside the phase, and ends at its end reading (an edge row: `edge`) or inside it, and no other
 * phase begins or ends inside the row. hwmon samples just after the begin line (a) and just after
 * the end line (b), so the row's time runs a few milliseconds past the phase at each end; its
 * bytes are still the phase's (shared by time, a 4 ms checkpoint kept 75%). A cadence row that
 * falls inside the phase cuts it in two rows, each the phase's (CI, loaded: a checkpoint whose
 * begin reading came 3 ms before its line and a cadence row 55 ms in lost 5% of its bytes to
 * the step before). Of nested candidates, the innermost. NULL when no phase is so (step loops,
 * whose edges hwmon interpolates). */
static const struct sum_phase_acc *io_owner(struct sum_run *run, double a, double b, bool edge)
{
    struct overlap_set o = {.n = 0};
    for_phases(run, a, b, collect_phase, &o);
    /* the log's times are whole milliseconds, a phase's start its end less its rounded seconds:
     * a reading may seem to come up to 2 ms before the line it followed */
    double tol = edge_tol(run), ms = 0.002;
    const struct sum_phase_acc *owner = NULL;
    for (int i = 0; i < o.n && !o.full; i++) {
        const struct sum_phase_acc *p = o.p[i];
        /* a begin reading may come before the begin line too: the one hwmon took at the end of
         * the phase before, a few ms earlier, with no phase between (a training loop's train,
         * io(), then checkpoint). The job's own measure of the phase starts there as well; time
         * shares gave a 14 ms checkpoint 74% of its bytes and the gap the rest. */
        bool begin = (a >= p->t0 - ms && a < p->t1) ||
                     (a < p->t0 && p->t0 - a <= tol && !busy_before(&o, p, a));
        /* only an edge row is an end reading: a cadence row after the end is the next phase's
         * time as much as this one's */
        bool end = (b > p->t0 && b <= p->t1 + ms) ||
                   (edge && b >= p->t1 - ms && b - p->t1 <= tol);
        if (!begin || !end)
            continue;
        if (!owner || nested_in(p, owner))
            owner = p;
        else if (!nested_in(owner, p))
            return NULL; /* two phases side by side (threads): neither's alone */
    }
    /* another phase's boundary inside the owner's own span, or a phase wholly in the row: the
     * row's bytes are not the owner's alone. One that begins in the end's reading window (the
     * next phase, started a millisecond after this one ended and before hwmon woke) or ends in
     * the begin's is not: that reading is its edge too, and it gets none of the row. A phase the
     * owner lies in is not either: the row is inside it. */
    for (int i = 0; owner && i < o.n; i++) {
        const struct sum_phase_acc *q = o.p[i];
        if (q == owner || nested_in(owner, q))
            continue;
        bool in0 = q->t0 > a && q->t0 < b, in1 = q->t1 > a && q->t1 < b;
        bool inner0 = in0 && q->t0 > owner->t0 + ms && q->t0 < owner->t1 - ms,
             inner1 = in1 && q->t1 > owner->t0 + ms && q->t1 < owner->t1 - ms;
        if (inner0 || inner1 || (in0 && in1))
            return NULL;
    }
    return owner;
}

/* Gauges by time. A cadence row of proc_metrics.csv stands for the time since the cadence row
 * before it (the first: since hwmon's baseline); the run's mean of each column weighs it so, and
 * min and max are over the rows. What is not a reading of the job's gauges: the memory and
 * threads of a row with no live process (the exited command's last row, written empty; 0 from
 * older hwmons or before the job's first process existed). CPU rates are read from /proc's
 * clock ticks (10 ms): over the 2-20 ms of the exit row they say 0 or 300% of a core, so a rate
 * read over less than half the interval joins the row before it, as one rate over both
 * (a one-thread loop read a mean of 105.6% and a max of 125.5% with the exit row whole). */
enum proc_kind { PK_COUNTER, PK_RATE, PK_TREE, PK_MAIN };
static const unsigned char proc_kind[HW_PROC_COL_COUNT] = {
    [HW_PROC_COL_PROCS] = PK_TREE,        [HW_PROC_COL_THREADS] = PK_TREE,
    [HW_PROC_COL_CPU] = PK_RATE,          [HW_PROC_COL_RSS] = PK_TREE,
    [HW_PROC_COL_PSS] = PK_TREE,          [HW_PROC_COL_MAIN_RSS] = PK_MAIN,
    [HW_PROC_COL_MAIN_CPU] = PK_RATE,     [HW_PROC_COL_MAIN_THREADS] = PK_MAIN,
    [HW_PROC_COL_USR_CPU] = PK_RATE,      [HW_PROC_COL_SYS_CPU] = PK_RATE,
    [HW_PROC_COL_PRIVATE] = PK_TREE,      [HW_PROC_COL_SHARED] = PK_TREE,
    [HW_PROC_COL_MAIN_PRIVATE] = PK_MAIN, [HW_PROC_COL_MAIN_SHARED] = PK_MAIN,
    [HW_PROC_COL_SHARED_ONCE] = PK_TREE,  [HW_PROC_COL_MAIN_SHARED_ONCE] = PK_MAIN,
    [HW_PROC_COL_DESC_SHARED_ONCE] = PK_TREE,
};

/* A row's gauges with those that are no reading of a live job NAN (into g). */
static void proc_live(const double *v, double *g)
{
    bool tree = !(v[HW_PROC_COL_PROCS] <= 0) && !(v[HW_PROC_COL_RSS] <= 0);
    bool main = tree && !(v[HW_PROC_COL_MAIN_RSS] <= 0);
    for (int c = 0; c < HW_PROC_COL_COUNT; c++)
        g[c] = (proc_kind[c] == PK_TREE && !tree) || (proc_kind[c] == PK_MAIN && !main) ? NAN : v[c];
}

static void proc_rate_flush(struct sum_run *run)
{
    if (!run->proc_rate.have)
        return;
    for (int c = 0; c < HW_PROC_COL_COUNT; c++)
        if (proc_kind[c] == PK_RATE)
            sum_stat_add_wq(&run->proc[c], run->proc_rate.v[c], run->proc_rate.dt);
    run->proc_rate.have = false;
}

static void proc_gauges(struct sum_run *run, const struct rd_proc_row *r)
{
    double iv = run->info.interval_s;
    double dt = isnan(run->proc_prev_t) ? r->t - first_row_start(run, r->t) : r->t - run->proc_prev_t;
    if (!(dt > 0)) /* no time of its own (a row without a time, or at the previous one's) */
        dt = isnan(r->t) && iv > 0 ? iv : 1e-9;
    double g[HW_PROC_COL_COUNT];
    proc_live(r->v, g);
    double rss = g[HW_PROC_COL_RSS];
    if (!isnan(rss)) {
        if (isnan(run->rss_first))
            run->rss_first = rss;
        if (!(rss < run->rss_last)) /* where the rows' fall, if one follows, begins */
            run->rss_fall_top = rss;
        run->rss_last = rss;
    } else if (!isnan(run->rss_last)) {
        /* the exit row after rows that fell one after another into it: the interpreter's
         * teardown (one row on an idle machine, several on a loaded one), not the job's memory:
         * its growth is to where the fall began */
        run->rss_last = run->rss_fall_top;
    }
    for (int c = 0; c < HW_PROC_COL_COUNT; c++)
        if (proc_kind[c] != PK_RATE)
            sum_stat_add_wq(&run->proc[c], g[c], dt);
    if (run->proc_rate.have && iv > 0 && dt < iv / 2) { /* one rate over both rows */
        double *p = run->proc_rate.v, pdt = run->proc_rate.dt;
        for (int c = 0; c < HW_PROC_COL_COUNT; c++)
            if (proc_kind[c] == PK_RATE && !isnan(g[c]))
                p[c] = isnan(p[c]) ? g[c] : (p[c] * pdt + g[c] * dt) / (pdt + dt);
        run->proc_rate.dt = pdt + dt;
        return;
    }
    proc_rate_flush(run);
    memcpy(run->proc_rate.v, g, sizeof g);
    run->proc_rate.dt = dt;
    run->proc_rate.have = true;
}

static void on_proc(void *ctx, const struct rd_proc_row *r)
{
    struct sum_run *run = ctx;
    see_time(run, r->t);
    if (!isnan(r->t)) {
        double own[HW_PROC_COL_COUNT];
        double a = own_part(run, &run->proc_pend, r->t, r->v, HW_PROC_COL_COUNT, r->edge,
                            proc_col_interval, no_bytes, own);
        proc_live(own, own); /* a phase's RSS is a live job's too */
        /* the cumulative counters' growth since the previous row: a wrapped command's start
         * from 0 (its processes are new), another's from its first row */
        double io[2];
        static const int io_col[2] = {HW_PROC_COL_READ, HW_PROC_COL_WRITE};
        for (int k = 0; k < 2; k++) {
            double v = r->v[io_col[k]], last = run->pio_last[k];
            if (isnan(last) && !strcmp(run->info.mode, "wrap"))
                last = 0;
            io[k] = v >= last ? v - last : NAN;
            if (!isnan(v))
                run->pio_last[k] = v;
        }
        struct part x = {a, r->t, own, io, io_owner(run, a, r->t, r->edge)};
        for_phases(run, a, r->t, hole_row(run, a, r->t) ? phase_proc_hole : phase_proc_part, &x);
        if (sum_names_any(&run->names))
            sum_names_proc_at(&run->names, r->t, own[HW_PROC_COL_RSS], a, r->t,
                              own[HW_PROC_COL_CPU]);
    }
    if (r->edge) {
        /* a gauge's reading at an instant: the run's memory grows from its first one, an edge
         * row's too (an attached process's baseline row: its memory at hwmon's start) */
        double g[HW_PROC_COL_COUNT];
        proc_live(r->v, g);
        if (isnan(run->rss_first) && !isnan(g[HW_PROC_COL_RSS]))
            run->rss_first = g[HW_PROC_COL_RSS];
        return;
    }
    proc_gauges(run, r);
    /* the descendants at this instant: the tree without the main process (NAN: unmeasured;
     * not tracked at all under hwmon --no-children: unmeasured too, not 0) */
    if (run->info.descendants != 0) {
        static const int tree_main[SUM_DESC_COUNT][2] = {
            [SUM_DESC_RSS] = {HW_PROC_COL_RSS, HW_PROC_COL_MAIN_RSS},
            [SUM_DESC_CPU] = {HW_PROC_COL_CPU, HW_PROC_COL_MAIN_CPU},
            [SUM_DESC_THREADS] = {HW_PROC_COL_THREADS, HW_PROC_COL_MAIN_THREADS},
            [SUM_DESC_PRIVATE] = {HW_PROC_COL_PRIVATE, HW_PROC_COL_MAIN_PRIVATE},
            [SUM_DESC_SHARED] = {HW_PROC_COL_SHARED, HW_PROC_COL_MAIN_SHARED},
        };
        for (int d = 0; d < SUM_DESC_COUNT; d++)
            sum_stat_add(&run->desc[d], r->v[tree_main[d][0]] - r->v[tree_main[d][1]]);
    }
    /* gpu_tracker's total RSS at this instant (its private + its shared counted once), where
     * hwmon --shared-once read it (an empty cell: NAN, no reading) */
    const double *c = r->v;
    sum_stat_add(&run->gt_total[SUM_GPMEM_TREE], c[HW_PROC_COL_PRIVATE] + c[HW_PROC_COL_SHARED_ONCE]);
    sum_stat_add(&run->gt_total[SUM_GPMEM_MAIN],
                 c[HW_PROC_COL_MAIN_PRIVATE] + c[HW_PROC_COL_MAIN_SHARED_ONCE]);
    if (run->info.descendants != 0) /* hwmon --no-children: the descendants' are null */
        sum_stat_add(&run->gt_total[SUM_GPMEM_DESC], c[HW_PROC_COL_PRIVATE] -
                                                         c[HW_PROC_COL_MAIN_PRIVATE] +
                                                         c[HW_PROC_COL_DESC_SHARED_ONCE]);
    double dt = r->t - run->pio_prev_t; /* NAN for the first row */
    for (int k = 0; k < SUM_PIO_COUNT; k++) {
        double v = r->v[sum_pio_cols[k]];
        if (dt > 0 && v >= run->pio_prev[k]) /* counters: a reset is not a rate */
            sum_stat_add_mean_max(&run->pio_rate[k], (v - run->pio_prev[k]) / dt);
        run->pio_prev[k] = v;
    }
    run->pio_prev_t = r->t;
    if (run->tl)
        sum_tl_proc_row(run->tl, r);
    add_interval(run, HW_FILE_PROC, &run->proc_prev_t, r->t, NULL);
}

static void gp_close_block(struct sum_run *run)
{
    for (int k = 0; k < SUM_GPMEM_COUNT; k++) {
        if (run->gp_block_open && run->gp_block_sum[k] > run->gp_peak[k])
            run->gp_peak[k] = run->gp_block_sum[k];
        run->gp_block_sum[k] = 0;
    }
    run->gp_block_open = false;
}

/* tree_pids.csv: a join opens a span, a leave closes the pid's last open one. */
static void on_tree_pid(void *ctx, const struct rd_tree_pid_row *r)
{
    struct sum_run *run = ctx;
    if (r->pid < 0 || r->in_tree < 0 || isnan(r->t))
        return;
    if (r->in_tree == 0) {
        for (size_t i = run->ntspan; i-- > 0;)
            if (run->tspan[i].pid == r->pid && isinf(run->tspan[i].t1)) {
                run->tspan[i].t1 = r->t;
                return;
            }
        return;
    }
    if (!hw_grow(&run->tspan, &run->tspan_cap, run->ntspan, sizeof *run->tspan, 64)) {
        run->tspan_oom = true;
        return;
    }
    if (!run->ntspan)
        run->tree_root_pid = r->pid; /* the tracked process at the first sample */
    run->tspan[run->ntspan++] = (struct sum_tree_span){r->pid, r->t, INFINITY};
}

static int cmp_span(const void *a, const void *b)
{
    const struct sum_tree_span *x = a, *y = b;
    if (x->pid != y->pid)
        return (x->pid > y->pid) - (x->pid < y->pid);
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* Was pid in the tree at time t? The sampler sees a process join or leave up to one interval
 * after nvidia-smi may, so each span is widened by an interval on both sides. Without a
 * timestamp any span of the pid counts. */
static bool in_tree(const struct sum_run *run, long pid, double t)
{
    double tol = isfinite(run->info.interval_s) ? run->info.interval_s : 1.0;
    size_t lo = 0, hi = run->ntspan;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (run->tspan[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < run->ntspan && run->tspan[i].pid == pid; i++)
        if (isnan(t) || (t >= run->tspan[i].t0 - tol && t <= run->tspan[i].t1 + tol))
            return true;
    return false;
}

static void on_gpu_proc(void *ctx, const struct rd_gpu_proc_row *r)
{
    struct sum_run *run = ctx;
    run->gp_rows++;
    see_time(run, r->t);
    /* only the tree's own processes; other users' memory on the GPU is not the job's */
    if (!run->ntspan || r->pid < 0 || !in_tree(run, r->pid, r->t))
        return;
    run->gp_tree_rows++;
    /* rows of one sample share its timestamp: their sum is the GPU memory at that time */
    if (!run->gp_block_open || !(r->t == run->gp_block_t) || isnan(r->t))
        gp_close_block(run);
    run->gp_block_open = true;
    run->gp_block_t = r->t;
    if (!isnan(r->used_mib)) {
        run->gp_block_sum[SUM_GPMEM_TREE] += r->used_mib;
        run->gp_block_sum[r->pid == sum_run_main_pid(run) ? SUM_GPMEM_MAIN : SUM_GPMEM_DESC] +=
            r->used_mib;
    }
    if (r->pid < 0 || isnan(r->used_mib))
        return;
    size_t i;
    for (i = 0; i < run->npids; i++)
        if (run->pids[i].pid == r->pid)
            break;
    if (i == run->npids) {
        if (run->npids == SUM_MAX_PIDS) {
            run->pids_dropped++;
            return;
        }
        run->pids[i].pid = r->pid;
        run->pids[i].peak_mib = r->used_mib;
        snprintf(run->pids[i].name, sizeof run->pids[i].name, "%s", r->name ? r->name : "");
        run->npids++;
    } else if (r->used_mib > run->pids[i].peak_mib) {
        run->pids[i].peak_mib = r->used_mib;
    }
}

/* ---- events ----------------------------------------------------------------------------- */

static void param_set(struct sum_run *run, const char *key, struct json_object *v, bool metric)
{
    size_t i = 0;
    while (i < run->nparams &&
           (run->params[i].metric != metric || strcmp(run->params[i].key, key) != 0))
        i++;
    if (i == run->nparams) {
        if (run->nparams == run->params_cap && run->nparams < SUM_MAX_PARAMS) {
            size_t cap = run->params_cap ? run->params_cap * 2 : 32;
            struct sum_param *p = realloc(run->params, cap * sizeof *p);
            if (p) {
                run->params = p;
                run->params_cap = cap;
            }
        }
        char *k = run->nparams < run->params_cap ? strdup(key) : NULL;
        if (!k) {
            run->params_dropped++;
            return;
        }
        run->params[run->nparams++] = (struct sum_param){k, NULL, metric, 0};
    } else if (run->params[i].gen == run->param_gen) {
        /* set already by this event: two of its keys flatten to one */
        if (!run->param_collisions++)
            snprintf(run->param_collision_key, sizeof run->param_collision_key, "%s%s",
                     metric ? "metric." : "param.", key);
    }
    run->params[i].gen = run->param_gen;
    json_object_put(run->params[i].v);
    run->params[i].v = json_object_get(v);
}

static void params_from(struct sum_run *run, const char *prefix, struct json_object *obj,
                        int depth, bool metric)
{
    json_object_object_foreach(obj, k, v)
    {
        char key[256];
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (v && json_object_is_type(v, json_type_object) && depth < 4)
            params_from(run, key, v, depth + 1, metric);
        else
            param_set(run, key, v, metric);
    }
}

/* A phase entry's own numbers (loss=1.93) as the run's metrics (sum_param). */
static void metrics_from_phase(struct sum_run *run, struct json_object *obj)
{
    if (!obj || !json_object_is_type(obj, json_type_object))
        return;
    run->param_gen++;
    static const char *const not_metrics[] = {HW_RL_TS,       HW_RL_TYPE,   HW_RL_NAME,
                                              HW_RL_SECONDS,  HW_RL_PHASE_ID, HW_FWMEM,
                                              HW_PHASE_STEPS, "exit_status", "signal"};
    json_object_object_foreach(obj, k, v)
    {
        if (!v || !(json_object_is_type(v, json_type_int) ||
                    json_object_is_type(v, json_type_double)))
            continue;
        size_t i = 0;
        while (i < sizeof not_metrics / sizeof not_metrics[0] && strcmp(k, not_metrics[i]))
            i++;
        if (i == sizeof not_metrics / sizeof not_metrics[0])
            param_set(run, k, v, true);
    }
}

static void on_event(void *ctx, const struct rd_event *e)
{
    struct sum_run *run = ctx;
    see_time(run, e->t);
    rd_run_info_event(&run->info, e);
    if (run->tl)
        sum_tl_event(run->tl, e);
    if (!strcmp(e->name, HW_FWMEM)) /* logged on demand (log_framework_memory) */
        sum_fwmem_take(&run->fw, e->data);
    if (!strcmp(e->name, HW_EV_CLOCK_STEP)) {
        double st = rd_json_num(e->data, HW_CLOCK_STEP_KEY);
        run->clock_steps++;
        run->clock_step_s += isfinite(st) ? st : 0;
    }
    for (int k = HW_GPU_FAULT_NONE + 1; k < HW_GPU_FAULT_COUNT; k++)
        if (!strcmp(e->name, hw_gpu_faults[k].event) &&
            run->nfault_ev < (int)(sizeof run->fault_ev / sizeof run->fault_ev[0])) {
            const char *gpu = rd_json_str(e->data, HW_FAULT_GPU);
            char *to = run->fault_ev[run->nfault_ev].gpu;
            size_t n = 0;
            /* a UUID or a bus id; anything else is not printed as it came (the warnings reach
             * terminals) */
            for (; gpu && gpu[n] && n + 1 < sizeof run->fault_ev[0].gpu; n++)
                to[n] = (gpu[n] >= '0' && gpu[n] <= '9') || ((gpu[n] | 32) >= 'a' && (gpu[n] | 32) <= 'z') ||
                                strchr("-:.", gpu[n])
                            ? gpu[n]
                            : '?';
            to[n] = '\0';
            run->fault_ev[run->nfault_ev++].fault = k;
        }
    if (!strcmp(e->name, HW_EV_LOG_ROTATED)) {
        const char *how = rd_json_str(e->data, HW_LOG_HOW);
        if (how && (!strcmp(how, HW_LOG_HOW_DELETED) || !strcmp(how, HW_LOG_HOW_TRUNCATED))) {
            run->log_lost++;
            snprintf(run->log_lost_how, sizeof run->log_lost_how, "%s", how);
        }
    }
    /* a phase left open by an earlier run in this log; not at the first start: the command
     * hwmon has just started may log its first begin a moment before hwmon logs its start */
    if (!strcmp(e->name, HW_EV_START) && run->info.starts > 1)
        close_open(run, e->t);
    sum_outcome_event(&run->outcome, e);
    if (!strcmp(e->name, HW_EV_STOP)) /* hwmon stops after the job: what is open was cut */
        close_open(run, e->t);
    const char *pe = run->cfg->params_event ? run->cfg->params_event : HW_EV_CONFIG;
    if (!strcmp(e->name, pe) && e->data && json_object_is_type(e->data, json_type_object)) {
        run->param_gen++; /* one event: a key it gives twice is a collision */
        params_from(run, "", e->data, 0, false);
    }
    if ((!strcmp(e->name, HW_EV_METRIC) || !strcmp(e->name, HW_EV_METRICS)) && e->data &&
        json_object_is_type(e->data, json_type_object)) {
        run->param_gen++;
        params_from(run, "", e->data, 0, true);
    }
    size_t i;
    for (i = 0; i < run->netype; i++)
        if (!strncmp(run->etype[i].name, e->name, sizeof run->etype[i].name - 1))
            break;
    if (i < run->netype) {
        run->etype[i].n++;
    } else if (run->netype < SUM_MAX_EVENT_TYPES) {
        snprintf(run->etype[i].name, sizeof run->etype[i].name, "%s", e->name);
        run->etype[i].n = 1;
        run->netype++;
    } else {
        run->etype_other++;
    }
    if (!strcmp(e->name, HW_EV_START) && e->data) {
        struct json_object *cg;
        if (json_object_object_get_ex(e->data, HW_START_CGROUP, &cg) && cg) {
            free(run->cgroup_json);
            run->cgroup_json = strdup(json_object_to_json_string_ext(
                cg, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
            /* where the kernel's memory peak stood at start (cpu_metrics.csv's precision),
             * or 0 when hwmon reset it: only what rises above it is this run's */
            struct json_object *v;
            run->kpeak_prev = NAN;
            if (json_object_object_get_ex(cg, "memory_peak_since_start", &v) &&
                json_object_get_boolean(v))
                run->kpeak_prev = 0;
            else if (json_object_object_get_ex(cg, "memory_peak_mib", &v) &&
                     (json_object_is_type(v, json_type_double) ||
                      json_object_is_type(v, json_type_int)))
                run->kpeak_prev = round(json_object_get_double(v) * 10) / 10;
        }
    }
    if (sum_event_error_like(e->name, e->data)) {
        run->err_total++;
        if (run->nerr < SUM_MAX_ERRORS) {
            struct sum_error_event *x = &run->err[run->nerr++];
            x->t = e->t;
            snprintf(x->name, sizeof x->name, "%s", e->name);
            x->line = e->line;
            x->data = NULL;
            if (e->data) {
                const char *s = json_object_to_json_string_ext(
                    e->data, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
                size_t n = strlen(s);
                if (n <= 2000)
                    x->data = strdup(s);
            }
        }
    }
}

/* ---- the whole run ---------------------------------------------------------------------- */

static int read_kind(struct sum_run *run, enum hw_file kind, const char *path,
                     const struct rd_read_opts *opts, const struct rd_sink *sink)
{
    if (!path)
        return 0;
    run->cur_kind = kind;
    run->path[kind] = strdup(path);
    int rc = rd_read_file(kind, path, opts, sink, &run->q[kind]);
    if (rc < 0) {
        char why[sizeof run->read_error[kind]];
        snprintf(run->read_error[kind], sizeof run->read_error[kind], "%s",
                 hw_open_reason(AT_FDCWD, path, -rc, why, sizeof why));
        if (run->cfg->message) {
            char msg[600];
            snprintf(msg, sizeof msg, "%s: %s", path, run->read_error[kind]);
            run->cfg->message(run->cfg->message_ctx, msg);
        }
    }
    if (run->diag_count[kind] > SUM_DIAG_PER_FILE && run->cfg->message) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: %llu more problems not shown (see the quality section)",
                 path, (unsigned long long)(run->diag_count[kind] - SUM_DIAG_PER_FILE));
        run->cfg->message(run->cfg->message_ctx, msg);
    }
    return rc;
}

/* Every file is read: the phases open until the run's end end at its last sample, and the
 * run's time in no phase is known. */
static void end_open_phases(struct sum_run *run, double last_t)
{
    double tol = edge_tol(run), start = sum_run_began(run);
    for (size_t i = 0; i < run->nphase; i++) {
        struct sum_phase_acc *p = &run->phase[i];
        if (p->open && isinf(p->t1)) { /* it ends at the last sample: a reading */
            p->t1 = fmax(last_t, p->t0);
            p->edge_t1 = true;
            sum_names_end_open(&run->names, p->name, p->t1 - p->t0);
        }
        if (isfinite(start) && fabs(p->t0 - start) <= tol) /* hwmon's baseline */
            p->edge_t0 = true;
    }
    sum_names_end_windows(&run->names, last_t);
    /* the steps: what the phases said, else one per phase named "step" */
    const struct sum_name_acc *step = sum_names_find(&run->names, HW_PHASE_STEP_NAME);
    run->steps = run->steps_logged > 0 ? run->steps_logged
                 : step                  ? (double)(step->count - step->failed)
                                         : 0;
    double t0, t1;
    run->outside_phases_s = NAN;
    if (run->names.n && sum_run_span(run, &t0, &t1))
    {
        double in = sum_names_covered(&run->names, t0, t1); /* NAN: out of memory */
        run->outside_phases_s = in <= t1 - t0 ? (t1 - t0) - in : isnan(in) ? NAN : 0.0;
    }
}

int sum_run_read(struct sum_run *run, const struct sum_inputs *in, const struct sum_config *cfg,
                 double idle_pct)
{
    static const struct sum_config none;
    run->cfg = cfg ? cfg : &none;
    cfg = run->cfg;
    run->idle_pct = idle_pct;
    if (in->dir)
        run->dir = strdup(in->dir);
    if (cfg->timeline_cols > 0 && !run->tl) {
        run->tl = sum_tl_new(cfg->timeline_cols, cfg->timeline_spark);
        if (!run->tl)
            return -ENOMEM;
    }
    struct rd_sink sink = {
        .ctx = run,
        .gpu = on_gpu,
        .dmon = on_dmon,
        .cpu = on_cpu,
        .proc = on_proc,
        .gpu_proc = on_gpu_proc,
        .phase = on_phase,
        .phase_begin = on_phase_begin,
        .event = on_event,
        .diag = on_diag,
        .tree_pid = on_tree_pid,
        .health = on_health,
        .energy = on_energy_row,
        .pmon = on_pmon,
    };
    struct rd_read_opts opts = {.max_line = cfg->max_line, .libcsv_only = cfg->libcsv_only};
    int first_err = 0;
    int rc = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++) /* stage 0, the log: how the others are written */
        if (hw_run_files[k].stage == 0 && (rc = read_kind(run, k, in->path[k], &opts, &sink)) < 0 &&
            !first_err)
            first_err = rc;
    close_open(run, INFINITY); /* begun, and no end nor stop: open until the last sample */
    index_phases(run);
    if (cfg->job_series && !run->jser) { /* anchored at the start event, read by now */
        run->jser = sum_jser_new();
        if (!run->jser)
            return -ENOMEM;
        sum_jser_anchor(run->jser, run->info.t_start);
        run->together.series = run->jser;
    }

    /* time zone of nvidia-smi's timestamps */
    if (run->info.have_tz) {
        run->tz = run->info.tz;
        run->tz_source = SUM_TZ_FROM_START_EVENT;
    } else {
        run->tz_start_unrecognized = run->info.smi_tz_raw[0] != '\0';
        if (cfg->have_tz) {
            run->tz = cfg->tz;
            run->tz_source = SUM_TZ_FROM_OPTION;
        } else {
            rd_tz_parse("UTC", false, &run->tz);
            run->tz_source = SUM_TZ_DEFAULT;
        }
    }
    opts.tz = run->tz;
    if (run->info.have_fields)
        opts.gpu_fields = run->info.gpu_fields;

    for (unsigned stage = 1; stage < HW_RUN_FILE_STAGES; stage++) {
        if (stage == 2 && run->ntspan > 1) /* tree_pids.csv is read: spans looked up by pid */
            qsort(run->tspan, run->ntspan, sizeof *run->tspan, cmp_span);
        for (int k = 0; k < HW_FILE_COUNT; k++) {
            if (hw_run_files[k].stage != stage)
                continue;
            rc = read_kind(run, k, in->path[k], &opts, &sink);
            if (rc < 0 && !first_err)
                first_err = rc;
        }
    }
    gp_close_block(run);
    proc_rate_flush(run);
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->pm[g])
            pmon_close(run, g);
    sum_together_finish(&run->together);
    sum_together_finish(&run->together_tracked);
    fault_warnings(run);
    for (int g = 0; g < RD_MAX_GPUS && run->nhealth_warn < SUM_MAX_HEALTH_WARNINGS; g++)
        if (run->clk[g])
            run->nhealth_warn += sum_clk_warnings(run->clk[g], g, run->health_warn + run->nhealth_warn,
                                                  SUM_MAX_HEALTH_WARNINGS - run->nhealth_warn);
    for (int g = 0; g < RD_MAX_GPUS; g++) { /* a GPU with fewer rows than its interval waits */
        struct curve_of curve = {run, g};
        if (run->gpu[g])
            rd_energy_finish(&run->gpu[g]->energy, run->info.interval_s, energy_stepped, &curve);
        if (run->clk[g])
            rd_energy_finish(&run->clk[g]->inst, run->info.interval_s, inst_stepped, &curve);
    }
    counter_warnings(run);
    if (run->tl) { /* the chart's energy: each GPU's steps of the reading its energy is */
        enum rd_ereading pick[SUM_TL_MAX_GPUS];
        for (int g = 0; g < SUM_TL_MAX_GPUS; g++)
            pick[g] = g < RD_MAX_GPUS ? sum_gpu_energy_reading(run, g, NULL) : RD_ER_COUNT;
        sum_tl_finish(run->tl, pick);
    }

    if (!(run->t_max >= run->t_min)) { /* only whole-second rows: their range is the run's */
        run->t_min = run->tc_min;
        run->t_max = run->tc_max;
    }
    double last_t = run->t_max >= run->t_min ? run->t_max : NAN;
    end_open_phases(run, last_t);
    for (int k = 0; k < HW_FILE_COUNT; k++) /* whether it is still written, seen from here */
        if (run->q[k].present && isfinite(run->q[k].mtime) &&
            !(run->q[k].mtime <= run->outcome.newest_write))
            run->outcome.newest_write = run->q[k].mtime;
    run->outcome.interval_s = run->info.interval_s;
    sum_outcome_finish(&run->outcome, last_t);
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->gpu[g])
            rd_idle_finish(&run->gpu[g]->idle);

    if (first_err)
        return first_err;
    uint64_t parsed = 0;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        parsed += run->q[k].parsed;
    return parsed ? 0 : -ENODATA;
}

uint64_t sum_run_num_samples(const struct sum_run *run)
{
    uint64_t n = 0;
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->gpu[g] && run->gpu[g]->samples > n)
            n = run->gpu[g]->samples;
    return n ? n : run->q[HW_FILE_CPU].parsed - run->edge_rows;
}

double sum_run_tree_gpu_mem_peak(const struct sum_run *run, const char **why)
{
    const char *w = NULL;
    if (!run->gp_rows)
        w = "not_recorded";
    else if (run->info.pid_ns == 2)
        w = "pid_namespace";
    else if (!run->ntspan)
        w = "no_tree_pids";
    else if (!run->gp_tree_rows && run->info.pid_ns != 1)
        w = "no_pid_match";
    if (why)
        *why = w;
    /* in the host's namespace, no row of the tree's pids means the tree held no GPU memory */
    return w ? NAN : run->gp_peak[SUM_GPMEM_TREE];
}

void sum_run_tracked_gpus(const struct sum_run *run, struct sum_together_figs *out)
{
    sum_together_figs(run->cfg && run->cfg->tracked_gpus ? &run->together_tracked
                                                          : &run->together,
                      out);
}

long sum_run_main_pid(const struct sum_run *run)
{
    return run->info.pid > 0 ? run->info.pid : run->tree_root_pid;
}

double sum_run_gpu_mem_peak(const struct sum_run *run, enum sum_gpmem part, const char **why)
{
    double tree = sum_run_tree_gpu_mem_peak(run, why);
    if (isnan(tree) || part == SUM_GPMEM_TREE)
        return tree;
    /* which rows are the main process's is known only with its pid */
    if (!sum_run_main_pid(run) || (part == SUM_GPMEM_DESC && run->info.descendants == 0))
        return NAN;
    return run->gp_peak[part];
}

double sum_run_expected_cores(const struct sum_run *run, const char **source)
{
    const char *s = NULL;
    double n = NAN;
    if (run->cfg && run->cfg->cores > 0)
        n = run->cfg->cores, s = "option";
    else if (isfinite(run->cg_limit_cores) && run->cg_limit_cores > 0)
        n = run->cg_limit_cores, s = "cgroup_quota";
    else if (isfinite(run->info.cpus_allowed))
        n = run->info.cpus_allowed, s = "affinity";
    if (source)
        *source = s;
    return n;
}

bool sum_run_phases_brief(const struct sum_run *run)
{
    return run->phases_total > SUM_MAX_PHASES && !(run->cfg && run->cfg->phase_detail);
}

const char *const sum_kept_names[SUM_KEEP_COUNT] = {
    [SUM_KEEP_FIRST] = "first",   [SUM_KEEP_SLOWEST] = "slowest", [SUM_KEEP_FASTEST] = "fastest",
    [SUM_KEEP_FAILED] = "failed", [SUM_KEEP_OPEN] = "open",
};

bool sum_run_listed_kept(const struct sum_run *run)
{
    return (!run->cfg || run->cfg->phases_list == SUM_PHASES_AUTO) &&
           run->phases_total > SUM_PHASES_LISTED;
}

static int cmp_listed(const void *a, const void *b)
{
    const struct sum_listed *x = a, *y = b;
    return (x->b.seq > y->b.seq) - (x->b.seq < y->b.seq);
}

/* A phase in full as an entry of the listing. */
static struct sum_phase_brief full_brief(const struct sum_run *run, size_t i)
{
    const struct sum_phase_acc *p = &run->phase[i];
    return (struct sum_phase_brief){p->name, p->t0, p->t1, p->line, p->seq, p->exit_status,
                                    p->signal, p->failed, (long)i};
}

long sum_run_listed(const struct sum_run *run, struct sum_listed **out)
{
    bool kept = sum_run_listed_kept(run);
    size_t cap = kept ? run->nphase + 3 * run->pick_cap + run->nkept_failed
                      : run->nphase + run->nbrief;
    struct sum_listed *v = malloc((cap ? cap : 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    size_t n = 0;
    uint64_t first_n = run->cfg && run->cfg->phases_list == SUM_PHASES_FIRST
                           ? run->cfg->phases_first
                           : UINT64_MAX;
    if (!kept) { /* every entry there is (the briefs held only what this listing shows) */
        for (size_t i = 0; i < run->nphase; i++)
            if (run->phase[i].seq < first_n)
                v[n++] = (struct sum_listed){full_brief(run, i), 0};
        for (size_t i = 0; i < run->nbrief; i++)
            v[n++] = (struct sum_listed){run->brief[i], 0};
    } else {
        for (size_t i = 0; i < run->nphase; i++)
            if (run->phase[i].open)
                v[n++] = (struct sum_listed){full_brief(run, i), 1u << SUM_KEEP_OPEN};
        for (size_t i = 0; i < run->pick_cap && i < run->names.n; i++) {
            const struct sum_name_pick *k = &run->pick[i];
            if (k->has_first)
                v[n++] = (struct sum_listed){k->first, 1u << SUM_KEEP_FIRST};
            if (k->has_timed) {
                v[n++] = (struct sum_listed){k->slowest, 1u << SUM_KEEP_SLOWEST};
                v[n++] = (struct sum_listed){k->fastest, 1u << SUM_KEEP_FASTEST};
            }
        }
        for (size_t i = 0; i < run->nkept_failed; i++)
            v[n++] = (struct sum_listed){run->kept_failed[i], 1u << SUM_KEEP_FAILED};
    }
    qsort(v, n, sizeof *v, cmp_listed);
    size_t m = 0; /* one entry per phase, with every reason it was kept */
    for (size_t i = 0; i < n; i++) {
        if (m && v[m - 1].b.seq == v[i].b.seq) {
            v[m - 1].kept |= v[i].kept;
            continue;
        }
        v[m++] = v[i];
    }
    for (size_t i = 0; i < m; i++) /* the phase as it is now (an open one's end is known) */
        if (v[i].b.full >= 0)
            v[i].b = full_brief(run, (size_t)v[i].b.full);
    *out = v;
    return (long)m;
}
