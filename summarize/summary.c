/* One run's summary: made, read (sum_run_read hands each file's reader its sink: sink.h) and
 * freed, and the figures asked of it (per GPU, per phase, energy, data quality). */
#include "summary.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwrun/io.h"
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
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
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

void sum_open_free(struct sum_open_phase *o)
{
    free(o->id);
    free(o->name);
    free(o->extra);
}

static void phase_free(struct sum_phase_acc *p)
{
    free(p->name);
    free(p->extra);
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        if (!p->gpu[g])
            continue;
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
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
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
            sum_stat_free(&gp->m[m]);
        for (int m = 0; m < RD_DM_COUNT; m++)
            sum_stat_free(&gp->dm[m]);
        for (int m = 0; m < HW_GPM_NCOLS; m++)
            sum_stat_free(&gp->gpm[m]);
        sum_stat_free(&gp->interval);
        free(gp);
    }
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        sum_stat_free(&run->all[m]);
    sum_stat_free(&run->dmon_mem_all);
    for (size_t i = 0; i < run->nphase; i++)
        phase_free(&run->phase[i]);
    free(run->phase);
    free(run->brief);
    free(run->pick);
    for (size_t i = 0; i < run->nopen; i++)
        sum_open_free(&run->open[i]);
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

/* A framework's own memory figures (a phase entry's or an event's HW_FWMEM object). */
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
        const struct sum_stat *u = p ? (p->gpu[g] ? &p->gpu[g]->m[HW_GM_MEM_USED] : NULL)
                                     : &gp->m[HW_GM_MEM_USED];
        if (u && u->n)
            used = fmax(used, u->max);
        if (gp->m[HW_GM_MEM_TOTAL].n)
            total = fmax(total, gp->m[HW_GM_MEM_TOTAL].max);
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

const char *sum_run_pmon_unattributed(const struct sum_run *run)
{
    if (run->info.pid_ns == 2)
        return "pid_namespace";
    if (!run->ntspan)
        return "no_tree_pids";
    return NULL;
}

void sum_pmon_acc_init(struct sum_pmon_acc *a)
{
    sum_stat_init_mean_max(&a->own_sm);
    sum_stat_init_mean_max(&a->others_sm);
    sum_stat_init_mean_max(&a->own_mem);
    sum_stat_init_mean_max(&a->others_mem);
    sum_stat_init_mean_max(&a->all_sm);
}

bool sum_run_pmon(const struct sum_run *run, struct sum_pmon_acc *out)
{
    sum_pmon_acc_init(out);
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
    return gp && gp->m[HW_GM_POWER].n ? gp->energy.joules / 3600.0 : NAN;
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
    bool measured = run->gpu[g] && run->gpu[g]->m[HW_GM_POWER].n && pg &&
                    (pg->m[HW_GM_POWER].n || pg->energy_j != 0);
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
