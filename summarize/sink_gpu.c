/* The GPU files (sink.h): hw_metrics.csv's rows per GPU and per phase, power into energy, dmon
 * and GPM, hw_health.csv's clocks and health, the energy counters, and pmon's processes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sink.h"

static struct sum_phase_gpu *phase_gpu(struct sum_run *run, struct sum_phase_acc *p, int g)
{
    if (!p->gpu[g]) {
        p->gpu[g] = calloc(1, sizeof *p->gpu[g]);
        if (!p->gpu[g])
            run->oom = true;
        else if (p->no_quant) {
            for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
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
    (void)a, (void)b;
    const struct gpu_pt *pt = arg;
    struct sum_phase_gpu *pg = phase_gpu(run, p, pt->g);
    if (!pg)
        return;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
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
    (void)a, (void)b;
    const struct seg *s = arg;
    if (!(fmin(s->t2, p->t1) > fmax(s->t1, p->t0)))
        return;
    struct sum_phase_gpu *pg = phase_gpu(run, p, s->g);
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
        if (!run->gpu[g]) {
            run->oom = true;
            return NULL;
        }
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

/* ---- clocks and health (hw_health.csv, clocks.h) ----------------------------------------- */

struct clk_of {
    int g;
    const struct sum_clk_step *step;
    const double *v; /* a row's values (points) */
};

static struct sum_clk_acc *phase_clk(struct sum_run *run, struct sum_phase_acc *p, int g)
{
    struct sum_phase_gpu *pg = phase_gpu(run, p, g);
    if (pg && !pg->clk) {
        if ((pg->clk = malloc(sizeof *pg->clk)))
            sum_clk_acc_init(pg->clk);
        else
            run->oom = true;
    }
    return pg ? pg->clk : NULL;
}

static void phase_clk_step(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                           const void *arg)
{
    (void)a, (void)b;
    const struct clk_of *c = arg;
    struct sum_clk_acc *acc = phase_clk(run, p, c->g);
    if (acc)
        sum_clk_step_part(acc, c->step, p->t0, p->t1);
}

static void phase_clk_point(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    (void)a, (void)b;
    const struct clk_of *c = arg;
    struct sum_clk_acc *acc = phase_clk(run, p, c->g);
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
    (void)a, (void)b;
    const struct ecnt_of *c = arg;
    struct sum_phase_gpu *pg = phase_gpu(run, p, c->g);
    if (!pg)
        return;
    pg->counter_mj += sum_ecount_part(c->step, p->t0, p->t1);
    pg->cov_s[RD_ER_COUNTER] += step_in(c->step->t1, c->step->t2, p);
    pg->counter_seen = true;
}

void sum_on_energy_row(void *ctx, const struct rd_energy_row *r)
{
    struct sum_run *run = ctx;
    if (r->gpu < 0 || r->gpu >= RD_MAX_GPUS)
        return;
    struct sum_ecount *e = run->ecnt[r->gpu];
    if (!e) {
        if (!(e = run->ecnt[r->gpu] = malloc(sizeof *e))) {
            run->oom = true;
            return;
        }
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
    (void)a, (void)b;
    const struct pm_of *c = arg;
    struct sum_phase_gpu *pg = phase_gpu(run, p, c->g);
    if (pg && !pg->pm) {
        if ((pg->pm = malloc(sizeof *pg->pm)))
            sum_pmon_acc_init(pg->pm);
        else
            run->oom = true;
    }
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

void sum_on_pmon(void *ctx, const struct rd_pmon_row *r)
{
    struct sum_run *run = ctx;
    if (r->gpu < 0 || r->gpu >= RD_MAX_GPUS || isnan(r->t))
        return;
    struct sum_pmon_gpu *m = run->pm[r->gpu];
    if (!m) {
        if (!(m = run->pm[r->gpu] = calloc(1, sizeof *m))) {
            run->oom = true;
            return;
        }
        sum_pmon_acc_init(&m->acc);
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
    bool own = run->ntspan && sum_in_tree(run, r->pid, r->t);
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
    (void)a, (void)b;
    const struct seg *s = arg;
    if (!(fmin(s->t2, p->t1) > fmax(s->t1, p->t0)))
        return;
    struct sum_phase_gpu *pg = phase_gpu(run, p, s->g);
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

void sum_on_health(void *ctx, const struct rd_health_row *r)
{
    struct sum_run *run = ctx;
    if (r->gpu < 0 || r->gpu >= RD_MAX_GPUS)
        return;
    struct sum_clk_gpu *g = run->clk[r->gpu];
    if (!g) {
        if (!(g = run->clk[r->gpu] = malloc(sizeof *g))) {
            run->oom = true;
            return;
        }
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

void sum_on_gpu(void *ctx, const struct rd_gpu_row *r)
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
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++) {
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
    rd_energy_add(&gp->energy, r->t, r->v[HW_GM_POWER], run->info.interval_s, energy_stepped,
                   &curve);
    /* the gap rule's interval once the rows decided it, the start event's before */
    rd_idle_row(&gp->idle, r->t, r->v[HW_GM_UTIL], r->v[HW_GM_POWER],
                 isfinite(gp->energy.interval_s) ? gp->energy.interval_s : run->info.interval_s,
                 run->idle_pct);
    if (!isnan(r->t)) {
        if (any_phases(run)) {
            struct gpu_pt pt = {r->gpu, r->v};
            for_phases(run, r->t, r->t, phase_gpu_point, &pt);
        }
        if (sum_names_any(&run->names))
            sum_names_gpu_at(&run->names, r->t, r->v[HW_GM_UTIL], r->v[HW_GM_MEM_USED],
                             r->v[HW_GM_POWER]);
    }
}

static void phase_gpm_point(struct sum_run *run, struct sum_phase_acc *p, double a, double b,
                            const void *arg)
{
    (void)a, (void)b;
    const struct rd_dmon_row *r = arg;
    struct sum_phase_gpu *pg = phase_gpu(run, p, r->gpu);
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

void sum_on_dmon(void *ctx, const struct rd_dmon_row *r)
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
/* Every GPU file is read: each GPU's processes' last block closed. */
void sum_pmon_finish(struct sum_run *run)
{
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (run->pm[g])
            pmon_close(run, g);
}

/* The last steps of each GPU's power curves (a GPU with fewer rows than its interval waits
 * until here): energy, the chart's and the phases'. */
void sum_gpu_energy_finish(struct sum_run *run)
{
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        struct curve_of curve = {run, g};
        if (run->gpu[g])
            rd_energy_finish(&run->gpu[g]->energy, run->info.interval_s, energy_stepped, &curve);
        if (run->clk[g])
            rd_energy_finish(&run->clk[g]->inst, run->info.interval_s, inst_stepped, &curve);
    }
}
