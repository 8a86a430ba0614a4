/* Two runs side by side: see compare.h. */
#include "compare.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwrun/io.h"
#include "hwrun/jsonw.h"
#include "hwrun/buf.h"
#include "hwrun/utf8.h"
#include "report.h"

struct fig {
    char *name;
    double v[2]; /* A, B in the base unit of dim; NAN: unmeasured or absent */
    bool integer;
    enum sum_dim dim; /* its entry's (report.h): the unit it is printed in */
};

struct figs {
    struct fig *f;
    size_t n, cap;
    int side;
    bool oom;
};

static void add_fig(void *ctx, const char *name, double v, bool integer, enum sum_dim dim)
{
    struct figs *s = ctx;
    for (size_t i = 0; i < s->n; i++) /* line up by name; a run has at most a few thousand */
        if (!strcmp(s->f[i].name, name)) {
            s->f[i].v[s->side] = v;
            return;
        }
    if (!hw_grow(&s->f, &s->cap, s->n, sizeof *s->f, 64)) {
        s->oom = true;
        return;
    }
    char *nm = strdup(name);
    if (!nm) {
        s->oom = true;
        return;
    }
    s->f[s->n++] = (struct fig){nm, {NAN, NAN}, integer, dim};
    s->f[s->n - 1].v[s->side] = v;
}

/* What the job logged about itself (sum_param.metric), its numbers as metric.KEY figures. */
static void add_metrics(struct figs *s, const struct sum_run *r)
{
    for (size_t i = 0; i < r->nparams; i++) {
        const struct sum_param *p = &r->params[i];
        bool integer = p->v && json_object_is_type(p->v, json_type_int);
        if (!p->metric || !p->v || !(integer || json_object_is_type(p->v, json_type_double)))
            continue;
        char name[300];
        snprintf(name, sizeof name, "metric.%s", p->key);
        add_fig(s, name, json_object_get_double(p->v), integer, SUM_DIM_NONE);
    }
}

/* Row figures first, then the metrics, then the phase.NAME.* ones, each side's in its order. */
static void collect(struct figs *s, const struct sum_run *a, const struct sum_run *b,
                    const struct sum_units *u)
{
    memset(s, 0, sizeof *s);
    for (s->side = 0; s->side < 2; s->side++)
        sum_report_figures(s->side ? b : a, u, true, false, add_fig, s);
    for (s->side = 0; s->side < 2; s->side++)
        add_metrics(s, s->side ? b : a);
    for (s->side = 0; s->side < 2; s->side++)
        sum_report_figures(s->side ? b : a, u, false, true, add_fig, s);
}

/* A parameter's value as JSON text ("null" when the run has none of that key). */
static const char *param_json(const struct sum_run *r, const char *key)
{
    for (size_t i = 0; i < r->nparams; i++)
        if (!r->params[i].metric && !strcmp(r->params[i].key, key))
            return r->params[i].v ? json_object_to_json_string_ext(
                                        r->params[i].v,
                                        JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                                  : "null";
    return "null";
}

/* Each parameter of either run whose values differ, once, A's order first: calls fn with its
 * key and both values as JSON text. */
static void differing_params(const struct sum_run *a, const struct sum_run *b,
                             void (*fn)(void *ctx, const char *key, const char *va,
                                        const char *vb),
                             void *ctx)
{
    for (int side = 0; side < 2; side++) {
        const struct sum_run *r = side ? b : a;
        for (size_t i = 0; i < r->nparams; i++) {
            const char *key = r->params[i].key;
            if (r->params[i].metric || (side && strcmp(param_json(a, key), "null") != 0))
                continue; /* B's keys that A has were said with A's */
            char *va = strdup(param_json(a, key));
            const char *vb = param_json(b, key);
            if (va && strcmp(va, vb) != 0)
                fn(ctx, key, va, vb);
            free(va);
        }
    }
}

static void json_param(void *ctx, const char *key, const char *va, const char *vb)
{
    struct hw_json *w = ctx;
    hw_json_open(w, NULL, '{');
    hw_json_str(w, "param", key);
    hw_json_raw(w, "a", va);
    hw_json_raw(w, "b", vb);
    hw_json_close(w);
}

/* Text from the data without control characters: the one rule (hwrun/utf8.h). */
static size_t safe_put(struct hw_buf *b, const char *s, size_t n)
{
    return hw_buf_term(b, s, n, SIZE_MAX);
}

struct text_params {
    struct hw_buf *out;
    bool any;
};

static void text_param(void *ctx, const char *key, const char *va, const char *vb)
{
    struct text_params *t = ctx;
    if (!t->any)
        hw_buf_puts(t->out, "  params that differ\n");
    t->any = true;
    char line[160];
    snprintf(line, sizeof line, "    %-30.60s %14.40s %14.40s", key, va, vb);
    safe_put(t->out, line, sizeof line);
    hw_buf_putc(t->out, '\n');
}

static void figs_free(struct figs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->f[i].name);
    free(s->f);
}

static double change(const struct fig *f)
{
    return f->v[1] - f->v[0]; /* NAN when either is */
}

static double change_pct(const struct fig *f)
{
    return f->v[0] != 0 ? (f->v[1] - f->v[0]) / fabs(f->v[0]) * 100 : NAN;
}

/* "phase.NAME.key": NAME (which may hold dots) and key; false for a row figure. */
static bool phase_of(const char *name, const char **nm, size_t *nl, const char **key)
{
    const char *dot = strrchr(name, '.');
    if (strncmp(name, "phase.", 6) != 0 || !dot || dot < name + 6)
        return false;
    *nm = name + 6;
    *nl = (size_t)(dot - *nm);
    *key = dot + 1;
    return true;
}

/* Figure k's key when it belongs to phase nm (nl bytes), else NULL. */
static const char *key_in(const struct figs *s, size_t k, const char *nm, size_t nl)
{
    const char *n2, *k2;
    size_t l2;
    return phase_of(s->f[k].name, &n2, &l2, &k2) && l2 == nl && !memcmp(n2, nm, nl) ? k2 : NULL;
}

/* Whether figure i is the first of its phase name (then *nm, *nl name it). */
static bool first_of_phase(const struct figs *s, size_t i, const char **nm, size_t *nl)
{
    const char *key;
    if (!phase_of(s->f[i].name, nm, nl, &key))
        return false;
    for (size_t k = 0; k < i; k++)
        if (key_in(s, k, *nm, *nl))
            return false;
    return true;
}

/* a figure: an integer where the row prints one, else 12 significant digits; null unmeasured */
static void json_val(struct hw_json *w, const char *key, double v, bool integer)
{
    if (integer && isfinite(v) && fabs(v) < 9e15)
        hw_json_i64(w, key, (int64_t)v);
    else
        hw_json_num(w, key, v);
}

/* in u, as the rows print it, with its unit (null: a count, an id) */
static void json_metric(struct hw_json *w, const char *metric, size_t n, const struct fig *f,
                        const struct sum_units *u)
{
    hw_json_open(w, NULL, '{');
    hw_json_strn(w, "metric", metric, n);
    const char *unit = sum_dim_unit(u, f->dim);
    hw_json_str(w, "unit", *unit ? unit : NULL);
    json_val(w, "a", sum_dim_value(u, f->dim, f->v[0]), f->integer);
    json_val(w, "b", sum_dim_value(u, f->dim, f->v[1]), f->integer);
    json_val(w, "change", sum_dim_value(u, f->dim, change(f)), f->integer);
    json_val(w, "change_pct", change_pct(f), false);
    hw_json_close(w);
}

static void json_side(struct hw_json *w, const char *key, const struct sum_run *r)
{
    hw_json_open(w, key, '{');
    hw_json_str(w, "dir", r->dir);
    hw_json_str(w, "status", sum_status_names[r->outcome.status]);
    hw_json_str(w, "open_phase", r->outcome.open_phase[0] ? r->outcome.open_phase : NULL);
    hw_json_str(w, "energy_source", sum_run_energy_source(r)); /* the reading energy_wh is of */
    hw_json_close(w);
}

static void json_explain(struct hw_json *w, const struct sum_run *a, const struct sum_run *b);

void sum_compare_json(const struct sum_run *a, const struct sum_run *b, const struct sum_units *u,
                      struct hw_buf *out)
{
    struct figs s;
    collect(&s, a, b, u);
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_PRETTY, HW_NUM_SIG12); /* summary.json's layout and numbers */
    hw_json_open(&w, NULL, '{');
    hw_json_str(&w, "schema", "hwrun.compare/1");
    json_side(&w, "a", a);
    json_side(&w, "b", b);
    json_explain(&w, a, b);
    hw_json_open(&w, "metrics", '[');
    const char *nm, *key;
    size_t nl;
    for (size_t i = 0; i < s.n; i++)
        if (!phase_of(s.f[i].name, &nm, &nl, &key))
            json_metric(&w, s.f[i].name, strlen(s.f[i].name), &s.f[i], u);
    hw_json_close(&w);
    hw_json_open(&w, "params", '['); /* the parameters whose values differ */
    differing_params(a, b, json_param, &w);
    hw_json_close(&w);
    /* one object per phase name, its figures in order */
    hw_json_open(&w, "phases", '[');
    for (size_t i = 0; i < s.n; i++) {
        if (!first_of_phase(&s, i, &nm, &nl))
            continue;
        hw_json_open(&w, NULL, '{');
        hw_json_strn(&w, "name", nm, nl);
        hw_json_open(&w, "metrics", '[');
        for (size_t k = i; k < s.n; k++)
            if ((key = key_in(&s, k, nm, nl)))
                json_metric(&w, key, strlen(key), &s.f[k], u);
        hw_json_close(&w);
        hw_json_close(&w);
    }
    hw_json_close(&w);
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
    if (s.oom)
        out->oom = true;
    figs_free(&s);
}

/* ---- why they differ: the phase names that account for the difference in time and energy,
 * and the verdicts one run got and the other did not ----------------------------------- */

#define EXPLAIN_TOP 3
struct why_name {
    const char *name;
    double v[2];  /* A's and B's: seconds (the name's total) or Wh; NAN: absent or unmeasured */
    double d;     /* B - A, an absent side counting 0 */
};
struct why {
    double total[2], d; /* the runs' own: duration_sec or energy_wh */
    struct why_name top[EXPLAIN_TOP];
    size_t n;
};

static double name_fig(const struct sum_run *r, const struct sum_name_acc *a, bool energy)
{
    if (!a)
        return NAN;
    return energy ? sum_name_energy_wh(r, a) : a->d_sum;
}

/* Every name of either run, by how much it moved (largest first). */
static void explain(const struct sum_run *a, const struct sum_run *b, bool energy, struct why *w)
{
    memset(w, 0, sizeof *w);
    w->total[0] = energy ? sum_run_energy_wh(a) : sum_run_duration(a);
    w->total[1] = energy ? sum_run_energy_wh(b) : sum_run_duration(b);
    w->d = w->total[1] - w->total[0];
    for (int side = 0; side < 2; side++) {
        const struct sum_run *r = side ? b : a, *o = side ? a : b;
        for (size_t i = 0; i < r->names.n; i++) {
            const struct sum_name_acc *na = &r->names.v[i];
            const struct sum_name_acc *no = sum_names_find(&o->names, na->name);
            if (side && no)
                continue; /* taken from A's side */
            double v[2];
            v[side] = name_fig(r, na, energy);
            v[!side] = name_fig(o, no, energy);
            double d = (isfinite(v[1]) ? v[1] : 0) - (isfinite(v[0]) ? v[0] : 0);
            if (!isfinite(v[0]) && !isfinite(v[1]))
                continue;
            struct why_name x = {na->name, {v[0], v[1]}, d};
            size_t k = w->n < EXPLAIN_TOP ? w->n++ : EXPLAIN_TOP;
            if (k == EXPLAIN_TOP && !(fabs(d) > fabs(w->top[k - 1].d)))
                continue;
            if (k == EXPLAIN_TOP)
                k--;
            while (k > 0 && fabs(w->top[k - 1].d) < fabs(d)) {
                w->top[k] = w->top[k - 1];
                k--;
            }
            w->top[k] = x;
        }
    }
}

/* Does run r have a verdict of rule id?  Its first such (NULL: none). */
static const struct sum_verdict *verdict_of(const struct sum_run *r, enum sum_rule_id id)
{
    for (size_t i = 0; r->verdicts && i < r->verdicts->n; i++)
        if (r->verdicts->v[i].rule == id)
            return &r->verdicts->v[i];
    return NULL;
}

static void json_why(struct hw_json *w, const char *key, const struct why *y, const char *unit)
{
    hw_json_open(w, key, '{');
    hw_json_num(w, "a", y->total[0]);
    hw_json_num(w, "b", y->total[1]);
    hw_json_num(w, "change", y->d);
    hw_json_str(w, "unit", unit);
    hw_json_open(w, "phases", '[');
    for (size_t i = 0; i < y->n; i++) {
        hw_json_open(w, NULL, '{');
        hw_json_str(w, "name", y->top[i].name);
        hw_json_num(w, "a", y->top[i].v[0]);
        hw_json_num(w, "b", y->top[i].v[1]);
        hw_json_num(w, "change", y->top[i].d);
        hw_json_num(w, "share_of_change_pct",
                    y->d != 0 && isfinite(y->d) ? 100 * y->top[i].d / y->d : NAN);
        hw_json_close(w);
    }
    hw_json_close(w);
    hw_json_close(w);
}

static void json_explain(struct hw_json *w, const struct sum_run *a, const struct sum_run *b)
{
    struct why t, e;
    explain(a, b, false, &t);
    explain(a, b, true, &e);
    hw_json_open(w, "explain", '{');
    json_why(w, "time", &t, "s");
    json_why(w, "energy", &e, "Wh");
    hw_json_open(w, "notes", '['); /* the verdicts one run got and the other did not */
    for (int r = 0; r < SUM_RULE_COUNT; r++) {
        const struct sum_verdict *va = verdict_of(a, (enum sum_rule_id)r);
        const struct sum_verdict *vb = verdict_of(b, (enum sum_rule_id)r);
        if (!va == !vb || r == SUM_RULE_DATA_MISSING)
            continue;
        hw_json_open(w, NULL, '{');
        hw_json_str(w, "id", sum_rules[r].id);
        hw_json_str(w, "in", va ? "a" : "b");
        hw_json_str(w, "severity", sum_severity_names[(va ? va : vb)->sev]);
        hw_json_str(w, "text", (va ? va : vb)->text);
        hw_json_close(w);
    }
    hw_json_close(w);
    hw_json_close(w);
}

static void text_why(struct hw_buf *out, const char *what, const struct why *y, const char *unit,
                     const struct sum_units *u, bool energy)
{
    if (!isfinite(y->d) || !y->n)
        return;
    char b1[48];
    hw_buf_printf(out, "  %s: B ", what);
    hw_buf_puts(out, sum_units_fmt_buf(b1, sizeof b1, fabs(y->d),
                                       energy ? SUM_DIM_ENERGY : SUM_DIM_TIME, u));
    hw_buf_puts(out, y->d >= 0 ? " more than A" : " less than A");
    if (y->total[0] > 0)
        hw_buf_printf(out, " (%+.3g%%)", 100 * y->d / y->total[0]);
    for (size_t i = 0; i < y->n; i++) {
        hw_buf_puts(out, i ? ", " : ": ");
        safe_put(out, y->top[i].name, SIZE_MAX);
        hw_buf_puts(out, " ");
        if (y->top[i].d >= 0)
            hw_buf_putc(out, '+');
        else
            hw_buf_putc(out, '-');
        hw_buf_puts(out, sum_units_fmt_buf(b1, sizeof b1, fabs(y->top[i].d),
                                           energy ? SUM_DIM_ENERGY : SUM_DIM_TIME, u));
        if (y->d != 0)
            hw_buf_printf(out, " (%.3g%%)", 100 * y->top[i].d / y->d);
    }
    (void)unit;
    hw_buf_putc(out, '\n');
}

static void text_explain(struct hw_buf *out, const struct sum_run *a, const struct sum_run *b,
                         const struct sum_units *u)
{
    struct why t, e;
    explain(a, b, false, &t);
    explain(a, b, true, &e);
    text_why(out, "time", &t, "s", u, false);
    text_why(out, "energy", &e, "Wh", u, true);
    for (int r = 0; r < SUM_RULE_COUNT; r++) {
        const struct sum_verdict *va = verdict_of(a, (enum sum_rule_id)r);
        const struct sum_verdict *vb = verdict_of(b, (enum sum_rule_id)r);
        if (!va == !vb || r == SUM_RULE_DATA_MISSING)
            continue;
        hw_buf_printf(out, "  %s only: [%s] ", va ? "A" : "B", sum_rules[r].id);
        safe_put(out, (va ? va : vb)->text, SIZE_MAX);
        hw_buf_putc(out, '\n');
    }
}

/* A figure as the text report prints one (sum_dim_fmt: in u, with its entry's unit); a count
 * as a whole number. sign: '+' or '-' before it (a change), else 0. */
static void fmt_val(struct hw_buf *t, double v, const struct fig *f, char sign,
                    const struct sum_units *u)
{
    if (sign)
        hw_buf_putc(t, sign);
    if (f->integer && isfinite(v))
        hw_buf_printf(t, "%.0f", v);
    else
        sum_dim_fmt(t, v, f->dim, u);
}

static void text_val(struct hw_buf *b, double v, const struct fig *f, const struct sum_units *u)
{
    struct hw_buf t;
    char st[64];
    hw_buf_init(&t, st, sizeof st);
    fmt_val(&t, v, f, 0, u);
    hw_buf_printf(b, " %16s", t.p ? t.p : "");
    hw_buf_free(&t);
}

static void text_metric(struct hw_buf *out, const char *indent, const char *metric,
                        const struct fig *f, const struct sum_units *u)
{
    if (!isfinite(f->v[0]) && !isfinite(f->v[1]))
        return;
    hw_buf_puts(out, indent);
    size_t w = hw_buf_term(out, metric, strlen(metric), 60); /* a key from the data */
    for (; w < 34 - strlen(indent); w++)
        hw_buf_putc(out, ' ');
    text_val(out, f->v[0], f, u);
    text_val(out, f->v[1], f, u);
    double d = change(f);
    hw_buf_puts(out, "  ");
    struct hw_buf t;
    char st[64];
    hw_buf_init(&t, st, sizeof st);
    /* the sign says which way; the size in the figure's unit */
    fmt_val(&t, fabs(d), f, d > 0 ? '+' : d < 0 ? '-' : 0, u);
    hw_buf_printf(out, "%-15s", t.p ? t.p : "");
    hw_buf_free(&t);
    double pct = change_pct(f);
    if (isfinite(pct) && pct > 0)
        hw_buf_putc(out, '+');
    sum_fmt_num(out, pct, "%");
    hw_buf_putc(out, '\n');
}

/* " (killed in phase `x` after 3.0 s: the command was killed by ...)": a side's status, where
 * it ended, and why where it did not end well. */
static void text_side(struct hw_buf *out, const struct sum_run *r)
{
    char where[200];
    hw_buf_printf(out, " (%s", sum_status_names[r->outcome.status]);
    if (*sum_outcome_where(&r->outcome, where, sizeof where)) {
        hw_buf_putc(out, ' ');
        safe_put(out, where, SIZE_MAX);
    }
    if (r->outcome.status != SUM_STATUS_OK && r->outcome.reason[0]) {
        hw_buf_puts(out, ": ");
        safe_put(out, r->outcome.reason, SIZE_MAX);
    }
    hw_buf_puts(out, ")\n");
}

static size_t count_lines(const struct hw_buf *b, size_t from)
{
    size_t n = 0;
    for (size_t i = from; b->p && i < b->len; i++)
        n += b->p[i] == '\n';
    return n;
}

/* The order of the largest changes: by |change %|, then the figures that only changed from 0,
 * then those only one side has; equal and unmeasured ones are no change (-1). */
static int change_class(const struct fig *f)
{
    bool a = isfinite(f->v[0]), b = isfinite(f->v[1]);
    if (!a && !b)
        return -1;
    if (a != b)
        return 2;
    if (f->v[0] == f->v[1])
        return -1;
    return isfinite(change_pct(f)) ? 0 : 1;
}

static int by_change(const void *x, const void *y)
{
    const struct fig *f = *(const struct fig *const *)x, *g = *(const struct fig *const *)y;
    int cf = change_class(f), cg = change_class(g);
    if (cf != cg)
        return cf < cg ? -1 : 1;
    double pf = cf == 0 ? fabs(change_pct(f)) : 0, pg = cg == 0 ? fabs(change_pct(g)) : 0;
    if (pf != pg)
        return pf > pg ? -1 : 1;
    return f < g ? -1 : f > g; /* stable: the listing's order */
}

void sum_compare_text(const struct sum_run *a, const struct sum_run *b, const struct sum_units *u,
                      bool all, struct hw_buf *out)
{
    struct figs s;
    collect(&s, a, b, u);
    size_t start = out->len;
    /* what differs first: the runs and how they ended, the params, then where the time and
     * energy went and the verdicts one run got (issue 49) */
    hw_buf_puts(out, "compare A ");
    safe_put(out, a->dir ? a->dir : "(files)", SIZE_MAX);
    text_side(out, a);
    hw_buf_puts(out, "        B ");
    safe_put(out, b->dir ? b->dir : "(files)", SIZE_MAX);
    text_side(out, b);
    struct text_params tp = {out, false};
    differing_params(a, b, text_param, &tp);
    text_explain(out, a, b, u);
    const char *nm, *key;
    size_t nl;
    const char *ea = sum_run_energy_source(a), *eb = sum_run_energy_source(b);
    bool mixed = ea && eb && strcmp(ea, eb);
    if (!all) {
        /* then the largest changes, as many as fit SUM_COMPARE_LINES; --all lists every one */
        const struct fig **order = s.n ? calloc(s.n, sizeof *order) : NULL;
        size_t n = 0;
        if (s.n && !order)
            s.oom = true;
        for (size_t i = 0; order && i < s.n; i++)
            if (change_class(&s.f[i]) >= 0)
                order[n++] = &s.f[i];
        if (n)
            qsort(order, n, sizeof *order, by_change);
        size_t used = count_lines(out, start) + 2 + (mixed ? 1 : 0); /* head, "more" line */
        size_t room = used < SUM_COMPARE_LINES ? SUM_COMPARE_LINES - used : 0;
        size_t shown = n < room ? n : room;
        hw_buf_printf(out, "  %-32s %16s %16s  %-16s%s\n", "largest changes", "A", "B", "change",
                      "%");
        for (size_t i = 0; i < shown; i++) {
            text_metric(out, "  ", order[i]->name, order[i], u);
            if (!strcmp(order[i]->name, "energy_wh") && mixed)
                hw_buf_printf(out, "    (energy_source: A %s, B %s; not like with like)\n", ea,
                              eb);
        }
        if (shown < n)
            hw_buf_printf(out, "  (%zu more change%s, and the figures that did not change: "
                               "--all)\n", n - shown, n - shown == 1 ? "" : "s");
        else
            hw_buf_puts(out, "  (the figures that did not change: --all)\n");
        free(order);
        if (s.oom)
            out->oom = true;
        figs_free(&s);
        return;
    }
    hw_buf_printf(out, "  %-32s %16s %16s  %-16s%s\n", "metric", "A", "B", "change", "%");
    for (size_t i = 0; i < s.n; i++) {
        if (phase_of(s.f[i].name, &nm, &nl, &key))
            continue;
        text_metric(out, "  ", s.f[i].name, &s.f[i], u);
        if (!strcmp(s.f[i].name, "energy_wh") && mixed)
            hw_buf_printf(out, "    (energy_source: A %s, B %s; not like with like)\n", ea, eb);
    }
    for (size_t i = 0; i < s.n; i++) {
        if (!first_of_phase(&s, i, &nm, &nl))
            continue;
        hw_buf_puts(out, "  phase ");
        safe_put(out, nm, nl);
        hw_buf_putc(out, '\n');
        for (size_t k = i; k < s.n; k++)
            if ((key = key_in(&s, k, nm, nl)))
                text_metric(out, "    ", key, &s.f[k], u);
    }
    if (s.oom)
        out->oom = true;
    figs_free(&s);
}
