/* The text report for a person at a terminal: the answer first, then the details (report.h). */
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
#include "hwrun/utf8.h"
#include "units.h"

/* Numbers for a person: units.c's one rule (0.00123 Wh, never 0.0 Wh), in --units. */
static void tnum(struct hw_buf *b, double v, const char *unit)
{
    sum_fmt_num(b, v, unit);
}

/* A count: whole, "-" when not known. */
static void tcount(struct hw_buf *b, double v, const char *unit)
{
    if (isfinite(v))
        hw_buf_printf(b, "%.0f%s", v, unit);
    else
        hw_buf_printf(b, "-%s", unit);
}

static void tdur(struct hw_buf *b, double s, const struct sum_units *u)
{
    sum_units_fmt(b, s, SUM_DIM_TIME, u);
}

static void tmem(struct hw_buf *b, double mib, const struct sum_units *u)
{
    sum_units_fmt(b, mib, SUM_DIM_MEM, u);
}

/* GPU memory: --units gpumem, else mem */
static void tgmem(struct hw_buf *b, double mib, const struct sum_units *u)
{
    sum_units_fmt(b, mib, SUM_DIM_GPUMEM, u);
}

static void twh(struct hw_buf *b, double wh, const struct sum_units *u)
{
    sum_units_fmt(b, wh, SUM_DIM_ENERGY, u);
}

/* The first line of what an error-like event says (its data's reason, message or output). */
static void event_reason(struct hw_buf *b, const char *data_json)
{
    struct json_object *d = data_json ? json_tokener_parse(data_json) : NULL, *v;
    static const char *const keys[] = {"reason", "message", "error", "output"};
    for (size_t i = 0; d && i < sizeof keys / sizeof keys[0]; i++)
        if (json_object_object_get_ex(d, keys[i], &v) && json_object_is_type(v, json_type_string) &&
            json_object_get_string_len(v) > 0) {
            const char *t = json_object_get_string(v);
            hw_buf_puts(b, ": ");
            hw_buf_term(b, t, strcspn(t, "\r\n"), 160); /* no control characters to the terminal */
            break;
        }
    json_object_put(d);
}

/* mem: the values are MiB, shown in --units mem (unit is then ignored). */
static void tstat(struct hw_buf *b, const char *label, const struct sum_stat *s, const char *unit,
                  const struct sum_units *gpumem)
{
    if (!s->n)
        return;
    const double v[5] = {sum_stat_mean(s), s->max, sum_stat_quantile(s, 0.5),
                         sum_stat_quantile(s, 0.95), sum_stat_quantile(s, 0.99)};
    static const char *const what[5] = {"mean ", "  max ", "  p50 ", "  p95 ", "  p99 "};
    /* the unit once, in the label ("mem used (MiB)"): five values a row stay within 100
     * columns; only GPU memory is given in --units */
    while (*unit == ' ')
        unit++;
    char head[64];
    snprintf(head, sizeof head, "%s (%s)", label,
             gpumem ? sum_units_label(gpumem, SUM_DIM_GPUMEM) : unit);
    hw_buf_printf(b, "    %-20s ", head);
    for (int i = 0; i < 5; i++) {
        hw_buf_puts(b, what[i]);
        tnum(b, gpumem ? sum_units_value(gpumem, SUM_DIM_GPUMEM, v[i]) : v[i], "");
    }
    hw_buf_putc(b, '\n');
}

/* The GPM figures the text shows next to "util" (JSON has them all). */
static const struct {
    const char *label;
    int col; /* index into sum_gpu.gpm */
} gpm_text[] = {
    {"SM active", RD_DM_SMUTIL - RD_DM_GPM_FIRST},
    {"tensor active", RD_DM_MMAACT - RD_DM_GPM_FIRST},
    {"DRAM active", RD_DM_DRAM - RD_DM_GPM_FIRST},
};

/* The run's outcome in one line; anything but ok in capitals, where the eye falls. */
static void text_outcome(struct hw_buf *out, const struct sum_run *run)
{
    const struct sum_outcome *o = &run->outcome;
    char iso[HW_ISO_LEN] = "-";
    if (isfinite(o->last_t)) {
        struct timespec ts = {(time_t)floor(o->last_t),
                              (long)((o->last_t - floor(o->last_t)) * 1e9)};
        hw_iso_utc(iso, &ts);
    }
    char why_raw[600], why[600 * 3]; /* names from the data (a phase, a sender), made safe */
    sum_outcome_reason(o, why_raw, sizeof why_raw);
    sum_fig_printable(why_raw, why, sizeof why);
    if (o->status == SUM_STATUS_OK) {
        hw_buf_puts(out, "  status ok");
        if (why[0])
            hw_buf_printf(out, " (%s)", why);
    } else {
        char up[16];
        const char *name = sum_status_names[o->status];
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof up; i++)
            up[i] = (char)(name[i] - ('a' <= name[i] && name[i] <= 'z' ? 'a' - 'A' : 0));
        up[i] = '\0';
        hw_buf_printf(out, "  status %s: %s", o->status == SUM_STATUS_UNKNOWN && !o->have_start
                                                   ? "unknown" : up, why);
        if (o->status == SUM_STATUS_INCOMPLETE || o->status == SUM_STATUS_RUNNING)
            hw_buf_printf(out, "; last sample %s", iso);
    }
    char where[200], sb[600];
    if (*sum_outcome_where(o, where, sizeof where))
        hw_buf_printf(out, " %s", sum_fig_printable(where, sb, sizeof sb));
    char failed[512];
    if (*sum_outcome_failed_note(o, failed, sizeof failed))
        hw_buf_printf(out, "; %s", sum_fig_printable(failed, sb, sizeof sb));
    char note[512];
    if (*sum_outcome_note(o, note, sizeof note))
        hw_buf_printf(out, "; %s", sum_fig_printable(note, sb, sizeof sb));
    if (run->nhealth_warn) /* said one by one below, with the other warnings */
        hw_buf_printf(out, "; %d GPU health warning%s", run->nhealth_warn,
                      run->nhealth_warn == 1 ? "" : "s");
    hw_buf_putc(out, '\n');
}

/* Disks, network and free space, then the container's memory, of a run or a phase: one line
 * each after indent, only what was measured. */
static void text_system(struct hw_buf *out, const char *indent, const struct sum_system *sys,
                        double limit_mib, double cpu_limit_cores, const struct sum_units *u)
{
    bool disk = !isnan(sys->bytes[SUM_IO_DISK_READ]) || !isnan(sys->bytes[SUM_IO_DISK_WRITE]);
    bool net = !isnan(sys->bytes[SUM_IO_NET_RX]) || !isnan(sys->bytes[SUM_IO_NET_TX]);
    const char *sep = indent;
    for (int i = 0; i < SUM_IO_COUNT; i++) {
        if (!(i < SUM_IO_NET_RX ? disk : net))
            continue;
        if (i == SUM_IO_DISK_READ || i == SUM_IO_NET_RX)
            hw_buf_puts(out, sep);
        hw_buf_puts(out, sum_io_defs[i].text_system);
        tmem(out, sum_system_mib(sys, i), u);
        if (!isnan(sys->peak_mib_s[i])) {
            hw_buf_puts(out, " (peak ");
            tnum(out, sum_system_peak_mib_s(sys, i), " MiB/s)");
        }
        sep = "; ";
    }
    if (!isnan(sys->fs_free_min_mib)) {
        hw_buf_puts(out, sep);
        hw_buf_puts(out, "free space min ");
        tmem(out, sys->fs_free_min_mib, u);
        sep = "; ";
    }
    if (sep != indent)
        hw_buf_putc(out, '\n');
    const char *src;
    double peak = sum_system_mem_peak(sys, &src);
    if (isnan(peak) && isnan(limit_mib) && isnan(cpu_limit_cores))
        return;
    hw_buf_printf(out, "%scontainer: memory peak ", indent);
    tmem(out, peak, u);
    if (src)
        hw_buf_printf(out, " (%s)", src);
    hw_buf_puts(out, ", limit ");
    if (isnan(limit_mib))
        hw_buf_puts(out, "none");
    else
        tmem(out, limit_mib, u);
    if (!isnan(cpu_limit_cores)) {
        hw_buf_puts(out, ", CPU limit ");
        tnum(out, cpu_limit_cores, " cores");
    }
    hw_buf_putc(out, '\n');
}

/* One phase entry: its duration, energy, CPU, and each GPU's figures. */
/* A phase's (or a phase name's) system CPU and process tree, as the text report says them. */
static void text_cpu_tree(struct hw_buf *out, const struct sum_stat *cpu_usr,
                          const struct sum_stat *proc_rss, const struct sum_stat *proc_cpu,
                          const struct sum_units *u)
{
    if (cpu_usr->n) {
        hw_buf_puts(out, ", CPU usr ");
        tnum(out, sum_stat_mean(cpu_usr), "%");
    }
    if (proc_rss->n) {
        hw_buf_puts(out, ", process tree peak RSS ");
        tmem(out, proc_rss->max, u);
        hw_buf_puts(out, " CPU mean ");
        tnum(out, sum_stat_mean(proc_cpu), "%");
    }
}

/* The framework's own memory next to nvidia-smi's, of the run (p NULL) or a phase: what it
 * really used, what its allocator held, and the room left on the GPU. */
static void text_fwmem(struct hw_buf *out, const char *indent, const struct sum_run *run,
                       const struct sum_phase_acc *p, const struct sum_units *u)
{
    struct sum_fwmem_fig x;
    if (!sum_fwmem_figures(run, p, &x))
        return;
    char sb[64];
    hw_buf_printf(out, "%sframework memory (%s): peak ", indent,
                  sum_fig_printable(p ? p->fw.framework : run->fw.framework, sb, sizeof sb));
    tgmem(out, x.peak_mib, u);
    hw_buf_puts(out, " in use");
    if (isfinite(x.pool_mib)) {
        hw_buf_puts(out, ", pool ");
        tgmem(out, x.pool_mib, u);
    }
    hw_buf_printf(out, "; %s peak VRAM ", sum_fig_printable(sum_fig_gpu_tool(run), sb, sizeof sb));
    tgmem(out, x.vram_peak_mib, u);
    if (isfinite(x.vram_total_mib)) {
        hw_buf_puts(out, " of ");
        tgmem(out, x.vram_total_mib, u);
        hw_buf_puts(out, "; headroom ");
        tgmem(out, x.headroom_mib, u);
    }
    hw_buf_putc(out, '\n');
}

/* "GPU 1 was power-capped for 38.0% of `train` (counters)": a phase's capped GPUs in words. */
static void text_phase_capped(struct hw_buf *out, const struct sum_phase_acc *p, int g)
{
    if (!p->gpu[g] || !p->gpu[g]->clk)
        return;
    struct sum_clk_figs f;
    sum_clk_figs(p->gpu[g]->clk, &f);
    char sb[256];
    static const struct {
        const char *words;
        int k;
    } cap[] = {{"power-capped", SUM_CLK_POWER}, {"thermally slowed", SUM_CLK_THERMAL}};
    for (size_t i = 0; i < 2; i++) {
        double pct = i == 0 ? f.power_pct : f.thermal_pct;
        if (!(pct > 0))
            continue;
        hw_buf_printf(out, "    GPU %d was %s for ", g, cap[i].words);
        tnum(out, pct, "%");
        hw_buf_printf(out, " of `%s` (", sum_fig_printable(p->name, sb, sizeof sb));
        tnum(out, f.s[cap[i].k], " s");
        hw_buf_printf(out, ", %s)\n", f.source);
    }
}

/* A GPU's clocks over the run in one line (clocks.h), when hw_health.csv had its rows. */
static void text_clocks(struct hw_buf *out, const struct sum_clk_gpu *g)
{
    if (!g)
        return;
    struct sum_clk_figs f;
    sum_clk_figs(&g->acc, &f);
    hw_buf_puts(out, "    clocks: power-capped ");
    tnum(out, f.power_pct, "%");
    hw_buf_puts(out, ", thermally slowed ");
    tnum(out, f.thermal_pct, "%");
    hw_buf_printf(out, " of the time (%s), SM clock mean ", f.source ? f.source : "not measured");
    tnum(out, f.sm_pct_of_max, "%");
    hw_buf_puts(out, " of its max ");
    tnum(out, f.sm_max_mhz, " MHz");
    hw_buf_puts(out, ", power limit ");
    tnum(out, g->last[HW_HEALTH_POWER_LIMIT], " W");
    hw_buf_putc(out, '\n');
}

static void text_phase_entry(struct hw_buf *out, const struct sum_run *run,
                             const struct sum_phase_acc *p, const struct sum_units *u)
{
    char sb[256];
    hw_buf_printf(out, "  phase %s: ", sum_fig_printable(p->name, sb, sizeof sb));
    tdur(out, p->t1 - p->t0, u);
    double began = sum_run_began(run);
    if (isfinite(began) && p->t0 < began - 0.001)
        hw_buf_puts(out, " (began before hwmon started: partly unmeasured)");
    hw_buf_puts(out, ", energy ");
    twh(out, sum_phase_energy_wh(run, p), u);
    double covered;
    if (sum_phase_energy_partly(run, p, &covered)) { /* GPUs read from after its begin, a gap */
        hw_buf_puts(out, " (GPU energy over ");
        tdur(out, covered, u);
        hw_buf_puts(out, " of it: partly unmeasured)");
    }
    text_cpu_tree(out, &p->cpu_usr, &p->proc_rss, &p->proc_cpu, u);
    long gs = sum_phase_gpu_samples(run, p);
    if (gs >= 0 && gs < SUM_PHASE_GPU_RESOLVED)
        hw_buf_printf(out, " (GPU not resolved: %ld sample%s)", gs, gs == 1 ? "" : "s");
    double gap = sum_phase_gap_s(p);
    if (gap > 0) { /* no row tells what happened then: not the hole's average */
        hw_buf_puts(out, " (");
        tdur(out, gap, u);
        hw_buf_puts(out, " of it inside a sampling gap: CPU, disk, network, process I/O "
                         "unmeasured)");
    }
    if (!p->edge_t0 || !p->edge_t1) /* sum_phase_edges() in words */
        hw_buf_printf(out, " (CPU, disk, network %s)",
                      p->edge_t0   ? "measured at its begin, interpolated at its end"
                      : p->edge_t1 ? "interpolated at its begin, measured at its end"
                                   : "interpolated at its edges");
    if (p->open)
        hw_buf_puts(out, ", OPEN: begun and never ended");
    else if (p->signal)
        hw_buf_printf(out, ", FAILED: killed by signal %d", p->signal);
    else if (p->exit_status > 0)
        hw_buf_printf(out, ", FAILED: exit status %d", p->exit_status);
    else if (p->failed)
        hw_buf_puts(out, ", FAILED: raised an exception");
    hw_buf_putc(out, '\n');
    if (p->main_rss.n) {
        hw_buf_puts(out, "    main process peak RSS ");
        tmem(out, p->main_rss.max, u);
        hw_buf_puts(out, ", CPU mean ");
        tnum(out, sum_stat_mean(&p->main_cpu), "%");
        hw_buf_puts(out, "; tree CPU user ");
        tnum(out, sum_stat_mean(&p->usr_cpu), "%");
        hw_buf_puts(out, ", system ");
        tnum(out, sum_stat_mean(&p->sys_cpu), "%\n");
    }
    text_system(out, "    ", &p->sys, p->sys.mem_limit_mib, NAN, u);
    text_fwmem(out, "    ", run, p, u);
    for (int g = 0; g < RD_MAX_GPUS; g++)
        if (p->gpu[g]) {
            hw_buf_printf(out, "    GPU %d util mean ", g);
            tnum(out, sum_stat_mean(&p->gpu[g]->m[HW_GM_UTIL]), "%");
            for (int m = 0; run->gpu[g] && run->gpu[g]->in_gpm &&
                            m < (int)(sizeof gpm_text / sizeof gpm_text[0]);
                 m++) {
                hw_buf_printf(out, ", %s ", gpm_text[m].label);
                tnum(out, sum_stat_mean(&p->gpu[g]->gpm[gpm_text[m].col]), "%");
            }
            hw_buf_puts(out, ", power mean ");
            tnum(out, sum_stat_mean(&p->gpu[g]->m[HW_GM_POWER]), " W");
            hw_buf_puts(out, ", peak VRAM ");
            tgmem(out, sum_fig_max(&p->gpu[g]->m[HW_GM_MEM_USED]), u);
            if (p->gpu[g]->pm && !sum_run_pmon_unattributed(run)) {
                hw_buf_puts(out, ", SMs by this job ");
                tnum(out, sum_fig_mean(&p->gpu[g]->pm->own_sm), "%");
                hw_buf_puts(out, ", by others ");
                tnum(out, sum_fig_mean(&p->gpu[g]->pm->others_sm), "%");
            }
            hw_buf_putc(out, '\n');
            text_phase_capped(out, p, g);
        }
}

/* " (87.5% of 4 cores: cgroup quota)" after the tree's CPU, when the cores are known. */
static void text_cores(struct hw_buf *out, const struct sum_run *run)
{
    const char *src;
    double n = sum_run_expected_cores(run, &src);
    if (!isfinite(n))
        return;
    static const struct {
        const char *key, *text;
    } says[] = {{"option", "--cores"}, {"cgroup_quota", "cgroup quota"}, {"affinity", "affinity"}};
    const char *why = src;
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        if (!strcmp(says[i].key, src))
            why = says[i].text;
    hw_buf_puts(out, " (");
    tnum(out, sum_fig_cpu_of_cores(run, sum_stat_mean(&run->proc[HW_PROC_COL_CPU])), "%");
    hw_buf_printf(out, " of %g cores: %s)", n, why);
}

/* Phases: a name logged more than once (a training loop's `step`) gets one line of its figures
 * over all its entries (phase_names in JSON) before the entries, in place of a line each; its
 * failed entries are still listed one by one. */
static void text_phases(struct hw_buf *out, const struct sum_run *run, const struct sum_units *u)
{
    char sb[256];
    const struct sum_names *s = &run->names;
    for (size_t i = 0; i < s->n; i++) {
        const struct sum_name_acc *a = &s->v[i];
        if (a->count < 2 && a->kept == a->count)
            continue; /* its entry's line says it all */
        hw_buf_printf(out, "  phase %s x%llu: total ", sum_fig_printable(a->name, sb, sizeof sb),
                      (unsigned long long)a->count);
        tdur(out, a->timed ? a->d_sum : NAN, u);
        hw_buf_puts(out, ", mean ");
        tdur(out, sum_name_mean_s(a), u);
        hw_buf_puts(out, " (min ");
        tdur(out, a->timed ? a->d_min : NAN, u);
        hw_buf_puts(out, ", max ");
        tdur(out, a->timed ? a->d_max : NAN, u);
        hw_buf_puts(out, ", std ");
        tdur(out, sum_name_std_s(a), u);
        hw_buf_puts(out, "), energy ");
        twh(out, sum_name_energy_wh(run, a), u);
        if (a->util.n) {
            hw_buf_puts(out, ", GPU util mean ");
            tnum(out, sum_stat_mean(&a->util), "%");
        }
        if (a->mem_used.n) {
            hw_buf_puts(out, ", peak VRAM ");
            tgmem(out, a->mem_used.max, u);
        }
        text_cpu_tree(out, &a->cpu_usr, &a->proc_rss, &a->proc_cpu, u);
        if (a->overlapping)
            hw_buf_printf(out, "; %llu overlapping (figures over their union)",
                          (unsigned long long)a->overlapping);
        if (a->failed)
            hw_buf_printf(out, ", %llu FAILED", (unsigned long long)a->failed);
        hw_buf_putc(out, '\n');
    }
    for (size_t i = 0; i < run->nphase; i++) {
        const struct sum_phase_acc *p = &run->phase[i];
        const struct sum_name_acc *a = sum_names_find(s, p->name);
        if (a && (a->count > 1 || a->kept < a->count) && !p->failed && !p->open)
            continue; /* in its name's line */
        text_phase_entry(out, run, p, u);
    }
    if (isfinite(run->outside_phases_s)) {
        hw_buf_puts(out, "  outside any phase: ");
        tdur(out, run->outside_phases_s, u);
        hw_buf_putc(out, '\n');
    }
    if (run->steps > 0) { /* what compares runs of different lengths */
        hw_buf_printf(out, "  %.0f steps: ", run->steps);
        tdur(out, sum_run_sec_per_step(run), u);
        hw_buf_puts(out, " and ");
        twh(out, sum_run_energy_wh_per_step(run), u);
        hw_buf_puts(out, " per step\n");
    }
    if (run->phases_beyond && sum_run_listed_kept(run))
        hw_buf_printf(out,
                      "  note: %llu phases: the JSON lists those that matter (each name's first, "
                      "slowest and fastest, failed and open ones; --phases all lists every one), "
                      "their names' figures count them all\n",
                      (unsigned long long)sum_fig_phases_total(run));
    else if (run->phases_beyond && sum_run_phases_brief(run))
        hw_buf_printf(out,
                      "  note: %llu phases: the JSON lists each in brief (times and outcome; "
                      "--phase-detail gives the first %d in full), their names' figures count "
                      "them all\n",
                      (unsigned long long)sum_fig_phases_total(run), SUM_MAX_PHASES);
    else if (run->phases_beyond)
        hw_buf_printf(out,
                      "  note: %llu phases beyond the first %d are in the JSON in brief (times "
                      "and outcome; their names' figures count them)\n",
                      (unsigned long long)run->phases_beyond, SUM_MAX_PHASES);
    if (run->phases_dropped)
        hw_buf_printf(out, "  note: %llu phases have no entry of their own (their names' figures "
                           "count them)\n",
                      (unsigned long long)run->phases_dropped);
    if (s->names_dropped)
        hw_buf_printf(out, "  note: %llu phases of names beyond the first %d not summarized by "
                           "name\n", (unsigned long long)s->names_dropped, SUM_MAX_PHASE_NAMES);
}


void sum_report_text(const struct sum_run *run, struct hw_buf *out)
{
    sum_report_text_u(run, NULL, out);
}


/* The phase names with the most time, longest first (at most n); returns how many. */
static size_t slowest_names(const struct sum_run *run, const struct sum_name_acc **top, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < run->names.n; i++) {
        const struct sum_name_acc *a = &run->names.v[i];
        if (!a->timed || !(a->d_sum >= 0))
            continue;
        size_t j = k < n ? k++ : n;
        if (j == n && !(a->d_sum > top[n - 1]->d_sum))
            continue;
        if (j == n)
            j = n - 1;
        for (; j > 0 && a->d_sum > top[j - 1]->d_sum; j--)
            top[j] = top[j - 1];
        top[j] = a;
    }
    return k;
}

/* The answer first (issue 37): what a person at a terminal asks of a run, in a dozen lines
 * under the run's name, before the details; each figure from the getters the details use. */
/* A headline line of the figures shown there (SUM_SHOW_HEAD_*), each with its label and unit:
 * "  GPUs: peak VRAM 17.1 GiB, GPU util mean 94.0%, power mean 369.1 W"; no line when none of
 * them was measured. */
struct head_line {
    struct hw_buf *out;
    const struct sum_units *u;
    struct hw_buf line;
    bool any;
};

static void head_fig(void *ctx, const struct sum_row_def *col, double v)
{
    struct head_line *h = ctx;
    hw_buf_puts(&h->line, h->line.len ? ", " : "");
    hw_buf_puts(&h->line, col->show.label);
    hw_buf_putc(&h->line, ' ');
    sum_dim_fmt(&h->line, v, col->dim, h->u);
    h->any |= isfinite(v);
}

static void text_head_line(struct hw_buf *out, const struct sum_run *run, unsigned where,
                           const char *label, const struct sum_units *u)
{
    struct head_line h = {out, u, {0}, false};
    hw_buf_init(&h.line, NULL, 0);
    sum_report_shown(run, where, head_fig, &h);
    if (h.line.oom)
        out->oom = true;
    else if (h.any)
        hw_buf_printf(out, "  %s: %s\n", label, h.line.p);
    hw_buf_free(&h.line);
}

/* The verdicts (verdicts.h), each "warning [id] text" or "note [id] text": right under the
 * status (headline: the judgments, at most SUM_TEXT_NOTES of them, then how many more), or the
 * rules that lacked data in the details (not a verdict on the job). */
#define SUM_TEXT_NOTES 6
static void wrap_lines(struct hw_buf *out, const char *text, size_t len, bool at_blanks);
static void text_notes(struct hw_buf *out, const struct sum_run *run, bool headline)
{
    const struct sum_verdicts *vs = run->verdicts;
    size_t shown = 0, more = 0;
    for (size_t i = 0; vs && i < vs->n; i++) {
        const struct sum_verdict *v = &vs->v[i];
        if ((v->rule == SUM_RULE_DATA_MISSING) == headline)
            continue;
        if (headline && shown == SUM_TEXT_NOTES) {
            more++;
            continue;
        }
        /* a sentence of words: broken at a comma, else at a blank (wrap_lines) */
        char tb[sizeof v->text], line[sizeof v->text + 64];
        int n = snprintf(line, sizeof line, "  %s [%s] %s\n",
                         v->sev == SUM_SEV_WARNING ? "warning" : "note", sum_rules[v->rule].id,
                         sum_fig_printable(v->text, tb, sizeof tb));
        wrap_lines(out, line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1,
                   true);
        shown++;
    }
    if (more)
        hw_buf_printf(out, "  (%zu more notes: summarize -f json DIR | jq .notes)\n", more);
}

static void text_headline(struct hw_buf *out, const struct sum_run *run,
                          const struct sum_units *u)
{
    char sb[256];
    text_outcome(out, run);
    text_notes(out, run, true);
    hw_buf_puts(out, "  duration ");
    tdur(out, sum_run_duration(run), u);
    hw_buf_printf(out, ", energy ");
    twh(out, sum_run_energy_wh(run), u);
    double covered;
    if (sum_run_energy_partly(run, &covered)) { /* GPUs read from after the start, a gap */
        hw_buf_puts(out, " (GPU energy over ");
        tdur(out, covered, u);
        hw_buf_puts(out, " of it: partly unmeasured)");
    }
    double co2 = sum_fig_co2e_g(run, sum_run_energy_wh(run));
    double cost = sum_fig_energy_cost(run, sum_run_energy_wh(run));
    if (isfinite(co2) || isfinite(cost)) {
        hw_buf_puts(out, " (");
        if (isfinite(co2))
            hw_buf_printf(out, "%.4g g CO2e%s", co2, isfinite(cost) ? ", " : "");
        if (isfinite(cost))
            hw_buf_printf(out, "cost %.4g", cost);
        hw_buf_putc(out, ')');
    }
    hw_buf_printf(out, ", %zu GPUs, %llu samples\n", sum_run_gpu_count(run),
                  (unsigned long long)sum_run_num_samples(run));
    text_head_line(out, run, SUM_SHOW_HEAD_GPUS, "GPUs", u);
    text_head_line(out, run, SUM_SHOW_HEAD_JOB, "job", u);
    const double *io = run->sys.bytes;
    /* the job's own storage I/O (its processes' read_bytes and write_bytes, the JSON's
     * process.read_bytes), then the node's, named as the node's: every process's */
    double jr = sum_fig_max(&run->proc[HW_PROC_COL_READ]), jw = sum_fig_max(&run->proc[HW_PROC_COL_WRITE]);
    /* and what its write() calls wrote (wchar: page cache, pipes, sockets too), the bytes
     * sacct's MaxDiskWrite counts */
    double jwc = sum_fig_max(&run->proc[HW_PROC_COL_WCHAR]);
    if (isfinite(jr) || isfinite(jw)) {
        hw_buf_puts(out, "  job I/O: read ");
        tmem(out, jr / 1048576.0, u);
        hw_buf_puts(out, ", written ");
        tmem(out, jw / 1048576.0, u);
        hw_buf_puts(out, " (its processes' storage I/O)");
        if (isfinite(jwc)) {
            hw_buf_puts(out, "; written by write() ");
            tmem(out, jwc / 1048576.0, u);
            hw_buf_puts(out, " (wchar, as sacct counts)");
        }
        hw_buf_putc(out, '\n');
    }
    if (isfinite(run->info.cpu_s)) { /* the kernel's count, as sacct's TotalCPU */
        hw_buf_puts(out, "  job CPU time: ");
        tdur(out, run->info.cpu_s, u);
        hw_buf_puts(out, " (user + system, the command and the processes it waited for)\n");
    }
    if (isfinite(io[SUM_IO_DISK_READ]) || isfinite(io[SUM_IO_NET_RX])) {
        for (int i = 0; i < SUM_IO_COUNT; i++) {
            hw_buf_puts(out, sum_io_defs[i].text_run);
            tmem(out, io[i] / 1048576.0, u);
        }
        hw_buf_putc(out, '\n');
    }
    const struct sum_name_acc *top[3];
    size_t nt = slowest_names(run, top, 3);
    for (size_t i = 0; i < nt; i++) {
        hw_buf_printf(out, i ? ", %s " : "  slowest phases: %s ",
                      sum_fig_printable(top[i]->name, sb, sizeof sb));
        tdur(out, top[i]->d_sum, u);
        if (top[i]->count > 1)
            hw_buf_printf(out, " (x%llu)", (unsigned long long)top[i]->count);
    }
    if (nt)
        hw_buf_putc(out, '\n');
    uint64_t warnings = (uint64_t)run->nhealth_warn + run->err_total;
    if (warnings) {
        hw_buf_printf(out, "  warnings: %llu (first: %s)\n", (unsigned long long)warnings,
                      run->nhealth_warn ? sum_fig_printable(run->health_warn[0], sb, sizeof sb)
                                        : sum_fig_printable(run->err[0].name, sb, sizeof sb));
    }
}

/* Lines longer than SUM_TEXT_COLS (report.h) are broken after the last ", " or "; " that fits,
 * the rest indented under the line's own indent plus four: a terminal over SSH never wraps
 * them. */
static void wrap_lines(struct hw_buf *out, const char *text, size_t len, bool at_blanks)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t indent = 0;
        while (p + indent < le && p[indent] == ' ')
            indent++;
        bool first = true;
        while ((size_t)(le - p) > (first ? SUM_TEXT_COLS : SUM_TEXT_COLS - indent - 4)) {
            size_t room = first ? SUM_TEXT_COLS : SUM_TEXT_COLS - indent - 4;
            const char *cut = NULL;
            for (const char *c = p + room - 1; c > p + indent + 8 && !cut; c--)
                if ((c[0] == ',' || c[0] == ';') && c[1] == ' ')
                    cut = c + 1; /* keep the comma, drop the blank */
            for (const char *c = p + room; at_blanks && c > p + indent + 8 && !cut; c--)
                if (c[0] == ' ') /* no comma to break after: the last blank that fits */
                    cut = c;
            if (!cut)
                break; /* one word longer than the line: left as it is */
            hw_buf_put(out, p, (size_t)(cut - p));
            hw_buf_putc(out, '\n');
            for (size_t i = 0; i < indent + 4; i++)
                hw_buf_putc(out, ' ');
            p = cut + 1;
            first = false;
        }
        hw_buf_put(out, p, (size_t)(le - p));
        if (nl)
            hw_buf_putc(out, '\n');
        p = nl ? nl + 1 : end;
    }
}

static void text_details(const struct sum_run *run, const struct sum_units *u,
                         struct hw_buf *out);

void sum_report_text_u(const struct sum_run *run, const struct sum_units *u, struct hw_buf *out)
{
    struct hw_buf t;
    hw_buf_init(&t, NULL, 0);
    text_details(run, u, &t);
    if (t.oom)
        out->oom = true;
    else
        wrap_lines(out, t.p, t.len, false);
    hw_buf_free(&t);
}

static void text_details(const struct sum_run *run, const struct sum_units *u,
                         struct hw_buf *out)
{
    char sb[256];
    hw_buf_printf(out, "run %s\n",
                  run->dir ? sum_fig_printable(run->dir, sb, sizeof sb) : "(files)");
    text_headline(out, run, u);
    hw_buf_puts(out, "details:\n");
    text_notes(out, run, false);
    char note[300];
    for (int i = 0; i < SUM_NOTE_COUNT; i++)
        if (*sum_run_note(run, i, note, sizeof note))
            hw_buf_printf(out, "  note: %s\n", note);
    if (sum_fig_smi_times(run)) /* an AMD run's rows are hwmon's own, in UTC: no zone to tell */
        hw_buf_printf(out, "  nvidia-smi times: %s (%s)\n", run->tz.name,
                      sum_fig_tz_source(run->tz_source));
    if (run->info.have_start) {
        hw_buf_printf(out, "  machine %s: ",
                      run->info.host[0] ? sum_fig_printable(run->info.host, sb, sizeof sb)
                                        : "(unnamed)");
        tcount(out, run->info.cpus, " CPUs");
        if (isfinite(run->info.cpus_allowed) && run->info.cpus_allowed != run->info.cpus) {
            hw_buf_puts(out, " (");
            tcount(out, run->info.cpus_allowed, " allowed)");
        }
        hw_buf_puts(out, ", ");
        tcount(out, run->info.gpus, " GPUs");
        if (run->cpu_busy.n) {
            hw_buf_puts(out, "; CPUs busy mean ");
            tnum(out, sum_stat_mean(&run->cpu_busy), "%");
            hw_buf_puts(out, " (");
            tnum(out, sum_fig_cores_busy(run, sum_stat_mean(&run->cpu_busy)), " cores, peak ");
            tnum(out, sum_fig_cores_busy(run, sum_fig_max(&run->cpu_busy)), " cores)");
        }
        hw_buf_putc(out, '\n');
    }
    for (int k = 0; k < run->info.nfs; k++) {
        const struct rd_fs *fs = &run->info.fs[k];
        hw_buf_printf(out, "  %s %s", k ? "          " : "file system",
                      sum_fig_printable(fs->mount, sb, sizeof sb));
        hw_buf_printf(out, " (%s): ", sum_fig_printable(fs->type, sb, sizeof sb));
        tmem(out, fs->total_mib, u);
        hw_buf_puts(out, ", used ");
        tmem(out, fs->used_start_mib, u);
        hw_buf_puts(out, " -> ");
        tmem(out, fs->used_end_mib, u);
        hw_buf_puts(out, ", free at the end ");
        tmem(out, fs->free_end_mib, u);
        hw_buf_putc(out, '\n');
    }
    bool any_ctx = false;
    for (int k = HW_CTX_HOST + 1; k < HW_CTX_COUNT; k++) /* the host is on the machine line */
        if (run->info.ctx[k][0]) {
            hw_buf_puts(out, any_ctx ? ", " : "  job: ");
            hw_buf_printf(out, "%s ", hw_ctx_defs[k].key);
            hw_buf_printf(out, "%s", sum_fig_printable(run->info.ctx[k], sb, sizeof sb));
            any_ctx = true;
        }
    if (any_ctx)
        hw_buf_putc(out, '\n');
    if (!strcmp(run->info.sampler_role, HW_SAMPLER_SECONDARY)) {
        hw_buf_printf(out, "  GPUs: sampled for this job and node by hwmon %ld (",
                      run->info.sampler_pid);
        hw_buf_printf(out, "%s), not in this run\n",
                      sum_fig_printable(run->info.sampler_dir, sb, sizeof sb));
    }
    double t0, t1;
    if (isfinite(run->info.t_sampler) && sum_run_span(run, &t0, &t1)) { /* a takeover */
        hw_buf_puts(out, "  GPUs: sampled here from +");
        sum_units_fmt(out, run->info.t_sampler - t0, SUM_DIM_TIME, u);
        hw_buf_printf(out, " on, when the node's sampler before, hwmon %ld (",
                      run->info.sampler_prev_pid);
        hw_buf_printf(out, "%s), had ended\n",
                      run->info.sampler_prev_dir[0]
                          ? sum_fig_printable(run->info.sampler_prev_dir, sb, sizeof sb)
                          : "?");
    }
    if (run->cpu[HW_CPU_COL_MEM_TOTAL].n) {
        hw_buf_puts(out, "  system memory ");
        tmem(out, sum_fig_max(&run->cpu[HW_CPU_COL_MEM_TOTAL]), u);
        hw_buf_puts(out, ": used peak ");
        tmem(out, sum_fig_max(&run->cpu[HW_CPU_COL_MEM_USED]), u);
        hw_buf_puts(out, ", free min ");
        tmem(out, run->cpu[HW_CPU_COL_MEM_FREE].min, u);
        hw_buf_puts(out, ", cached mean ");
        tmem(out, sum_stat_mean(&run->cpu[HW_CPU_COL_MEM_CACHED]), u);
        hw_buf_puts(out, ", anonymous (active + inactive) peak ");
        tmem(out, sum_fig_max(&run->cpu[HW_CPU_COL_MEM_ACTIVE_ANON]) +
                      sum_fig_max(&run->cpu[HW_CPU_COL_MEM_INACTIVE_ANON]), u);
        hw_buf_putc(out, '\n');
    }
    hw_buf_puts(out, "  GPU util mean ");
    tnum(out, sum_stat_mean(&run->all[HW_GM_UTIL]), "%");
    hw_buf_puts(out, ", peak VRAM ");
    tgmem(out, sum_fig_max(&run->all[HW_GM_MEM_USED]), u);
    hw_buf_puts(out, ", power mean ");
    tnum(out, sum_stat_mean(&run->all[HW_GM_POWER]), " W");
    hw_buf_puts(out, ", CPU usr ");
    tnum(out, sum_stat_mean(&run->cpu[HW_CPU_COL_USR]), "%");
    if (run->cpu[HW_CPU_COL_SYS].n) {
        hw_buf_puts(out, " sys ");
        tnum(out, sum_stat_mean(&run->cpu[HW_CPU_COL_SYS]), "%");
    }
    hw_buf_puts(out, " idle ");
    tnum(out, sum_stat_mean(&run->cpu[HW_CPU_COL_IDLE]), "%");
    hw_buf_putc(out, '\n');
    struct sum_together_figs tg = sum_fig_together(run);
    if (tg.gpus > 1) {
        hw_buf_puts(out, "  all GPUs at once: memory peak ");
        tgmem(out, tg.mem_used_peak_mib, u);
        hw_buf_puts(out, " of ");
        tgmem(out, tg.mem_total_mib, u);
        hw_buf_puts(out, ", utilization summed peak ");
        tnum(out, tg.util_sum_peak_pct, "%");
        hw_buf_puts(out, " (average over the GPUs: peak ");
        tnum(out, tg.util_avg_peak_pct, "%");
        hw_buf_puts(out, ", mean ");
        tnum(out, tg.util_avg_mean_pct, "%");
        hw_buf_puts(out, "), busy GPUs up to ");
        tcount(out, tg.busy_gpus_max, "");
        hw_buf_printf(out, " of %d\n", tg.gpus);
    }
    text_fwmem(out, "  ", run, NULL, u);
    if (run->proc[HW_PROC_COL_RSS].n) {
        hw_buf_puts(out, "  process tree: peak RSS ");
        tmem(out, run->proc[HW_PROC_COL_RSS].max, u);
        if (run->proc[HW_PROC_COL_PSS].n) { /* RSS counts fork-shared pages once per process */
            hw_buf_puts(out, ", peak PSS ");
            tmem(out, run->proc[HW_PROC_COL_PSS].max, u);
        }
        hw_buf_puts(out, ", CPU mean ");
        tnum(out, sum_stat_mean(&run->proc[HW_PROC_COL_CPU]), "% of one core");
        text_cores(out, run);
        if (run->proc[HW_PROC_COL_USR_CPU].n) {
            hw_buf_puts(out, " (user ");
            tnum(out, sum_stat_mean(&run->proc[HW_PROC_COL_USR_CPU]), "%");
            hw_buf_puts(out, ", system ");
            tnum(out, sum_stat_mean(&run->proc[HW_PROC_COL_SYS_CPU]), "%)");
        }
        hw_buf_putc(out, '\n');
    }
    if (run->proc[HW_PROC_COL_MAIN_RSS].n) {
        hw_buf_puts(out, "  main process: peak RSS ");
        tmem(out, run->proc[HW_PROC_COL_MAIN_RSS].max, u);
        if (isfinite(run->info.main_peak_kernel_mib)) {
            /* wait4's ru_maxrss: the command or a child it waited for, whichever was largest */
            hw_buf_puts(out, " (the kernel's high-water mark, of it or a child it waited for: ");
            tmem(out, run->info.main_peak_kernel_mib, u);
            hw_buf_putc(out, ')');
        }
        hw_buf_puts(out, ", CPU mean ");
        tnum(out, sum_stat_mean(&run->proc[HW_PROC_COL_MAIN_CPU]), "%");
        hw_buf_printf(out, ", threads max %.0f", run->proc[HW_PROC_COL_MAIN_THREADS].max);
        hw_buf_putc(out, '\n');
    }
    text_system(out, "  ", &run->sys, run->cg_mem_max_mib, run->cg_limit_cores, u);
    if (run->gp_rows) { /* only when gpu_procs.csv was recorded */
        const char *why;
        double gm = sum_run_tree_gpu_mem_peak(run, &why);
        hw_buf_puts(out, "  process tree GPU memory peak ");
        tgmem(out, gm, u);
        if (why)
            hw_buf_printf(out, " (unmeasured: %s)", why);
        hw_buf_putc(out, '\n');
        for (size_t i = 0; i < run->npids && i < 8; i++) { /* gpu_procs.csv, every process */
            hw_buf_printf(out, "    GPU process %ld %s: peak ", run->pids[i].pid,
                          sum_fig_printable(run->pids[i].name, sb, sizeof sb));
            tgmem(out, run->pids[i].peak_mib, u);
            hw_buf_putc(out, '\n');
        }
        if (run->npids > 8)
            hw_buf_printf(out,
                          "    ... %zu more GPU processes (JSON: process.gpu_mem_peak_by_pid)\n",
                          run->npids - 8);
    }
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp)
            continue;
        hw_buf_printf(out, "  GPU %d%s%s", gp->index, gp->uuid[0] ? " " : "",
                      sum_fig_printable(gp->uuid, sb, sizeof sb));
        if (sum_fig_gpu_known(run, gp->index))
            hw_buf_printf(out, " (%s)", sum_fig_printable(run->info.gpu_name[gp->index], sb,
                                                          sizeof sb));
        hw_buf_printf(out, ": %llu samples, energy ", (unsigned long long)gp->samples);
        const char *esrc;
        twh(out, sum_gpu_energy_wh(run, g, &esrc), u);
        /* which reading the energy is, and the power field's integral beside it */
        const char *pf = rd_gpu_power_field(run->info.have_fields ? run->info.gpu_fields : NULL);
        const char *rd = sum_clk_power_reading(run->clk[g], pf);
        char pfw[96] = "power";
        if (pf)
            snprintf(pfw, sizeof pfw, "%s%s", pf,
                     !rd ? "" : !strcmp(rd, "average_1s") ? ", a 1 s average" : ", instantaneous");
        if (esrc && strcmp(esrc, "integrated") != 0) {
            hw_buf_printf(out, " from %s (%s integrated: ",
                          !strcmp(esrc, "counter") ? "the energy counter" : "power.draw.instant",
                          pfw);
            twh(out, sum_gpu_energy_integrated_wh(run, g), u);
            hw_buf_putc(out, ')');
        } else if (esrc && run->clk[g] && pf) {
            hw_buf_printf(out, " from %s", pfw);
        }
        if (gp->energy.gaps)
            hw_buf_printf(out, " (%llu gaps, %.1f s not bridged)",
                          (unsigned long long)gp->energy.gaps, gp->energy.gap_s);
        hw_buf_putc(out, '\n');
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++) { /* every figure, as its entry describes it */
            const struct hw_gpu_fig *f = &hw_gpu_figs[m];
            tstat(out, f->label, &gp->m[m], hw_gpu_dims[f->dim].unit,
                  f->dim == HW_GPU_DIM_MIB ? u : NULL); /* GPU memory: in --units gpumem */
        }
        for (int m = 0; gp->in_gpm && m < (int)(sizeof gpm_text / sizeof gpm_text[0]); m++)
            tstat(out, gpm_text[m].label, &gp->gpm[gpm_text[m].col], "%", NULL);
        text_clocks(out, run->clk[g]);
        if (run->pm[g]) {
            const struct sum_pmon_acc *a = &run->pm[g]->acc;
            hw_buf_puts(out, "    processes (pmon): SMs used by this job ");
            tnum(out, sum_fig_mean(&a->own_sm), "%");
            hw_buf_puts(out, ", by others ");
            tnum(out, sum_fig_mean(&a->others_sm), "%");
            hw_buf_puts(out, ", by all ");
            tnum(out, sum_fig_mean(&a->all_sm), "%");
            const char *why = sum_run_pmon_unattributed(run);
            if (why)
                hw_buf_printf(out, " (whose: unknown, %s)", why);
            hw_buf_putc(out, '\n');
        }
    }
    text_phases(out, run, u);
    for (int i = 0; i < run->nhealth_warn; i++)
        hw_buf_printf(out, "  warning: %s\n", run->health_warn[i]);
    if (run->err_total) {
        hw_buf_printf(out, "  %llu error-like event%s (first: %s",
                      (unsigned long long)run->err_total, run->err_total == 1 ? "" : "s",
                      sum_fig_printable(run->err[0].name, sb, sizeof sb));
        event_reason(out, run->err[0].data);
        hw_buf_puts(out, ")\n");
    }
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        const struct rd_quality *q = &run->q[k];
        uint64_t sk = rd_quality_skipped_total(q), ph = rd_quality_placeholders_total(q);
        if (run->read_error[k][0])
            hw_buf_printf(out, "  warning: %s: %s\n", hw_file_names[k], run->read_error[k]);
        if (sk || q->partial_last || q->bad_cells)
            hw_buf_printf(out,
                          "  warning: %s: %llu of %llu lines skipped, %llu bad cells%s\n",
                          hw_file_names[k], (unsigned long long)sk,
                          (unsigned long long)q->lines, (unsigned long long)q->bad_cells,
                          q->partial_last ? ", partial last line ignored" : "");
        for (size_t i = 0; i < q->n_ranged; i++)
            hw_buf_printf(out,
                          "  warning: %s: %s out of range %llu time%s (first %.17g, line %llu),"
                          " not counted as a reading\n",
                          hw_file_names[k], q->out_of_range[i].column,
                          (unsigned long long)q->out_of_range[i].n,
                          q->out_of_range[i].n == 1 ? "" : "s", q->out_of_range[i].value,
                          (unsigned long long)q->out_of_range[i].line);
        if (ph && !rd_kind_placeholders_normal((enum hw_file)k))
            hw_buf_printf(out, "  note: %s: %llu placeholder cells (not measured)\n",
                          hw_file_names[k], (unsigned long long)ph);
        for (int m = 0; m < HW_GPU_FIG_COUNT; m++) /* (the JSON's quality.files[].not_reported) */
            if (q->not_reported[m])
                hw_buf_printf(out,
                              "  note: %s: %s: not reported by the board ([N/A] in %llu row%s)\n",
                              hw_file_names[k], hw_gpu_figs[m].label,
                              (unsigned long long)q->not_reported[m],
                              q->not_reported[m] == 1 ? "" : "s");
        uint64_t gaps = k != HW_FILE_RUNLOG && k != HW_FILE_GPU_PROCS
                            ? sum_run_file_gaps(run, (enum hw_file)k) : 0;
        if (gaps) /* said as the JSON's quality.files[].gaps: no sample for a while */
            hw_buf_printf(out, "  warning: %s: %llu gap%s in sampling (longest %.3g s, the median "
                               "step %.3g s): nothing was measured then (hwmon stopped, frozen "
                               "or starved)\n",
                          hw_file_names[k], (unsigned long long)gaps, gaps == 1 ? "" : "s",
                          sum_fig_max(&run->q_interval[k]),
                          sum_stat_quantile(&run->q_interval[k], 0.5));
        if (q->torn)
            hw_buf_printf(out, "  warning: %s: %llu line%s cut short by a failed write (a full "
                               "disk?), the whole record after each read\n",
                          hw_file_names[k], (unsigned long long)q->torn, q->torn == 1 ? "" : "s");
    }
    if (run->info.samples_lost > 0) { /* and the files that lost them */
        hw_buf_printf(out, "  warning: %lld sample%s taken but not written (",
                      (long long)run->info.samples_lost, run->info.samples_lost == 1 ? "" : "s");
        const char *sep = "";
        for (int k = 0; k < HW_FILE_COUNT; k++)
            if (run->info.lost_rows[k] > 0) {
                hw_buf_printf(out, "%s%s", sep, hw_file_names[k]);
                sep = ", ";
            }
        hw_buf_puts(out, ": a full disk?)\n");
    }
    if (run->info.child_restarts)
        hw_buf_printf(out, "  warning: %llu nvidia-smi child restart%s\n",
                      (unsigned long long)run->info.child_restarts,
                      run->info.child_restarts == 1 ? "" : "s");
    if (run->info.starts > 1)
        hw_buf_printf(out, "  warning: run.jsonl holds %llu hwmon runs: their figures are mixed\n",
                      (unsigned long long)run->info.starts);
}
