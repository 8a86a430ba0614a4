/* run.jsonl's phase entries (sink.h): a phase begun, ended, or open at the run's end, its own
 * keys and framework figures, and the index every row's time looks its phases up in. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/buf.h"
#include "oom.h"
#include "sink.h"

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
    if (strlen(s) <= SUM_PHASE_EXTRA_MAX && !(text = strdup(s)))
        sum_oom_note();
    json_object_put(x);
    return text;
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
        if (!hw_grow(&run->pick, &run->pick_cap, i, sizeof *run->pick, 8)) {
            run->oom = true;
            return;
        }
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
        if (run->nbrief < SUM_MAX_PHASE_BRIEFS) {
            if (hw_grow(&run->brief, &run->brief_cap, run->nbrief, sizeof *run->brief, 64))
                run->brief[run->nbrief++] = b;
            else
                run->oom = true;
        }
        return;
    }
    if (!hw_grow(&run->phase, &run->phase_cap, run->nphase, sizeof *run->phase, 16)) {
        run->oom = true;
        run->phases_dropped++;
        free(extra);
        return;
    }
    struct sum_phase_acc *a = &run->phase[run->nphase];
    memset(a, 0, sizeof *a);
    a->name = strdup(name);
    if (!a->name) {
        run->oom = true;
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

void sum_on_phase_begin(void *ctx, const struct rd_phase *p)
{
    struct sum_run *run = ctx;
    see_time(run, p->t_start);
    if (run->nopen >= SUM_MAX_OPEN ||
        !hw_grow(&run->open, &run->open_cap, run->nopen, sizeof *run->open, 8)) {
        run->oom |= run->nopen < SUM_MAX_OPEN;
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
        run->oom = true;
        sum_open_free(o);
        run->open_dropped++;
        return;
    }
    run->nopen++;
}

/* The run ended at t1 (its stop event, or INFINITY at the end of the log): the phases still
 * open were cut by it, innermost last. */
void sum_close_open(struct sum_run *run, double t1)
{
    for (size_t i = 0; i < run->nopen; i++) {
        struct sum_open_phase *o = &run->open[i];
        double end = t1 >= o->t0 ? t1 : o->t0; /* a begin stamped after the stop: no window */
        sum_outcome_open_phase(&run->outcome, o->name, o->t0, end);
        add_phase(run, o->name, o->t0, end, isinf(end) ? NAN : end - o->t0, o->line, o->extra,
                  -1, 0, false, true, &o->fw);
        o->extra = NULL;
        sum_open_free(o);
    }
    run->nopen = 0;
}

void sum_on_phase(void *ctx, const struct rd_phase *p)
{
    struct sum_run *run = ctx;
    if (p->id) /* the end of a begun phase: no longer open (the latest begun, mostly) */
        for (size_t i = run->nopen; i-- > 0;)
            if (!strcmp(run->open[i].id, p->id)) {
                sum_open_free(&run->open[i]);
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
        sum_metrics_from_phase(run, p->obj);
    add_phase(run, p->name, p->t_start, p->t_end, p->seconds, p->line, phase_extra(p->obj),
              exit_status, sig, failed, false, &fw);
}

void sum_index_phases(struct sum_run *run)
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
        sum_ivx_build(&run->pidx, t0, t1, run->nphase); /* empty on ENOMEM (noted) */
    } else {
        run->oom = true;
    }
    free(t0);
    free(t1);
}
