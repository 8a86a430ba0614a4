/* The host's files (sink.h): cpu_metrics.csv and proc_metrics.csv, rows that each cover an
 * interval, shared among the phases by their edges; tree_pids.csv's spans; gpu_procs.csv. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/buf.h"
#include "sink.h"

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

void sum_on_cpu(void *ctx, const struct rd_cpu_row *r)
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

/* Whether the reading at a is the end reading of a phase before p (one that ended in the
 * tolerance before it, and before p began): for ends_before. */
struct end_reading {
    const struct sum_phase_acc *p;
    double a, tol;
    bool found;
};

static void ended_before(struct sum_run *run, struct sum_phase_acc *q, double a, double b,
                         const void *arg)
{
    (void)run, (void)a, (void)b;
    struct end_reading *e = (struct end_reading *)arg;
    double ms = 0.002;
    if (q != e->p && q->t1 <= e->a + ms && e->a - q->t1 <= e->tol && q->t1 <= e->p->t0 + ms)
        e->found = true;
}

static bool ends_before(struct sum_run *run, const struct sum_phase_acc *p, double a, double tol)
{
    struct end_reading e = {p, a, tol, false};
    for_phases(run, a - tol, a + 0.002, ended_before, &e);
    return e.found;
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
         * shares gave a 14 ms checkpoint 74% of its bytes and the gap the rest. Only that one:
         * a cadence row's reading before the line is the runner's time (a ThreadSanitizer
         * `runlog time` writes 512 KiB as it starts, 50 ms before its line: CI's 2 MiB dd read
         * 2.5 MiB, test_interval.runner_before_begin). */
        bool begin = (a >= p->t0 - ms && a < p->t1) ||
                     (a < p->t0 && p->t0 - a <= tol && !busy_before(&o, p, a) &&
                      ends_before(run, p, a, tol));
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

void sum_on_proc(void *ctx, const struct rd_proc_row *r)
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
            /* the tree's total never falls: a row below the last is a reading that caught a
             * child reaped between its parent's read and its own (its bytes in neither yet),
             * unmeasured; the next row's growth is from the highest, or the reaped child's
             * bytes count twice (hwmon's rows never fall: proctree.c keeps the highest) */
            if (!isnan(v) && !(v < last))
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
void sum_on_tree_pid(void *ctx, const struct rd_tree_pid_row *r)
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
        run->oom = true;
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
bool sum_in_tree(const struct sum_run *run, long pid, double t)
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

void sum_on_gpu_proc(void *ctx, const struct rd_gpu_proc_row *r)
{
    struct sum_run *run = ctx;
    run->gp_rows++;
    see_time(run, r->t);
    /* only the tree's own processes; other users' memory on the GPU is not the job's */
    if (!run->ntspan || r->pid < 0 || !sum_in_tree(run, r->pid, r->t))
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

/* tree_pids.csv is read: its spans sorted, looked up by pid from here on (gpu_procs.csv, pmon). */
void sum_tree_spans_sort(struct sum_run *run)
{
    if (run->ntspan > 1)
        qsort(run->tspan, run->ntspan, sizeof *run->tspan, cmp_span);
}

/* Every file is read: the GPU processes' open block closed, the pending process CPU rate
 * counted. */
void sum_host_finish(struct sum_run *run)
{
    gp_close_block(run);
    proc_rate_flush(run);
}
