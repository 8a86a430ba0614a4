/* Printing a job of many nodes (jobreport.h). */
#include "jobreport.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hwrun/jsonw.h"
#include "hwrun/buf.h"
#include "report.h"
#include "row.h"

static const struct sum_jphase *straggler(const struct sum_jobsum *j)
{
    return j->straggler >= 0 ? &j->ph[j->straggler] : NULL;
}

static const char *node_label(const struct sum_jobsum *j, size_t i)
{
    return j->node[i].label;
}

void sum_job_incomplete_list(const struct sum_jobsum *j, struct hw_buf *out)
{
    bool any = false;
    for (size_t i = 0; i < j->nnode; i++)
        if ((!j->nattempt || j->node[i].attempt == j->nattempt - 1) && /* the job as it stands */
            (!j->node[i].summarized ||
             (!j->node[i].complete && j->node[i].status != SUM_STATUS_RUNNING))) {
            hw_buf_puts(out, any ? ", " : "");
            hw_buf_puts(out, node_label(j, i));
            any = true;
        }
}

/* ---- the row ------------------------------------------------------------------------------- */

/* The job's sweep row, in order: S (a string), D (a number, with its dimension: its unit in
 * every output, units.h), U (a count), each with what it means: the job's own figures (jobsum.h);
 * PER_CTX (a job.KEY column per context key every node says alike); RUN(key) (the run row's
 * column of that key, as the job makes it of its directories' by the column's rule: its type,
 * dimension and meaning are the run row's entry's, report_rows.c); PER_RUN (every other column
 * of the run's row with a SUM, MAX or MEAN_BY_TIME rule, in that table's order: a run figure
 * given a rule comes out here). CSV and JSON Lines are expanded from this one list; the JSON
 * document prints the same values under the keys noted in summarize.1. */
#define JOB_COLUMNS(S, D, U, PER_CTX, RUN, PER_RUN)                                                \
    S("job_dir", "the job directory (empty: nodes given with --job)", j->dir)                      \
    S("status", "the worst node's status", sum_status_names[j->status])                            \
    U("ranks", "run directories of the last attempt", j->ranks)                                    \
    U("nodes", "distinct SLURM node names (else hosts)", j->nodes)                                 \
    U("hosts", "distinct host names", j->hosts)                                                    \
    U("incomplete_nodes", "nodes without a stop event, or unreadable", j->incomplete + j->unreadable) \
    S("incomplete_node_list", "those nodes' labels", incomplete->len ? incomplete->p : NULL)      \
    U("gpus", "GPUs counted, each once", j->gpus)                                                  \
    U("gpus_counted_twice", "GPUs another directory of their host recorded first", j->gpus_twice) \
    D("duration_sec", SUM_DIM_TIME, "the longest node's duration, summed over the attempts",       \
      sum_fig_round_us(j->duration_s))                                                             \
    D("start_spread_sec", SUM_DIM_TIME, "how far apart the nodes' start events lie",               \
      sum_fig_round_us(j->start_spread_s))                                                         \
    D("stop_spread_sec", SUM_DIM_TIME, "how far apart their stops lie",                            \
      sum_fig_round_us(j->stop_spread_s))                                                          \
    D("energy_wh", SUM_DIM_ENERGY, "every GPU's energy, each once", j->energy_wh)                  \
    D("gpus_mem_used_peak_mib", SUM_DIM_GPUMEM, "the peak of the nodes' summed GPU memory",       \
      j->mem_peak_mib)                                                                             \
    D("gpus_mem_used_peak_at_sec", SUM_DIM_TIME, "when it was, since the start",                   \
      j->mem_peak_at_s)                                                                            \
    D("gpus_mem_used_node_peaks_sum_mib", SUM_DIM_GPUMEM, "the nodes' own peaks summed",          \
      j->mem_sum_of_peaks_mib)                                                                     \
    D("gpus_power_peak_w", SUM_DIM_POWER, "the peak of the nodes' summed power", j->power_peak_w) \
    D("gpus_power_peak_at_sec", SUM_DIM_TIME, "when it was, since the start", j->power_peak_at_s) \
    D("gpu_util_mean_pct", SUM_DIM_PCT, "mean utilization.gpu over every GPU sample",             \
      j->util_mean_pct)                                                                            \
    D("align_sec", SUM_DIM_TIME, "the width of the bins the series are summed in", j->align_s)    \
    S("straggler_phase", "the phase name with the most time beyond its median",                   \
      sp ? sp->name : NULL)                                                                        \
    S("straggler_node", "its slowest node", sp ? node_label(j, sp->slowest) : NULL)               \
    D("straggler_sec", SUM_DIM_TIME, "that node's time in the phase",                              \
      sp ? sum_fig_round_us(sp->max_s) : NAN)                                                      \
    D("straggler_median_sec", SUM_DIM_TIME, "the nodes' median time in it",                        \
      sp ? sum_fig_round_us(sp->median_s) : NAN)                                                   \
    D("straggler_over_median_sec", SUM_DIM_TIME, "the slowest node's time beyond the median",     \
      sp ? sum_fig_round_us(sp->over_median_s) : NAN)                                              \
    D("straggler_over_median_pct", SUM_DIM_PCT, "the same in % of the median",                    \
      sp ? sp->over_median_pct : NAN)                                                              \
    PER_CTX(0, HW_CTX_ROW_FIXED,                                                                   \
            S(ctx_cols[i], "where the job ran, as every node's context says alike",               \
              j->ctx[i][0] ? j->ctx[i] : NULL))                                                    \
    /* added later: new columns go at the end, so that column positions stay */                  \
    S("failed_phase", "the first failed phase's name", fn ? fn->failed_phase : NULL)               \
    S("failed_phase_node", "the node it failed on", fn ? fn->label : NULL)                         \
    S("params_node", "the node whose params and metrics the row carries", pn ? pn->label : NULL)  \
    U("running_nodes", "nodes without a stop event that are running", j->running)                 \
    U("attempts", "attempts of the job (requeues, restarts)", j->nattempt)                          \
    PER_CTX(HW_CTX_ROW_FIXED, HW_CTX_COUNT,                                                        \
            S(ctx_cols[i], "where the job ran, as every node's context says alike",               \
              j->ctx[i][0] ? j->ctx[i] : NULL))                                                    \
    RUN("proc_cpu_sec")                                                                            \
    RUN("proc_disk_write_mib")                                                                     \
    RUN("proc_wchar_mib")                                                                          \
    D("gpus_unsampled_sec", SUM_DIM_TIME, "seconds the hosts' GPUs went unsampled",               \
      sum_fig_round_us(j->unsampled_s))                                                            \
    PER_RUN

/* room for every column: the run row's come from a table of at most SUM_ROW_COLS_MAX */
#define ONE(...) +1
#define ONE_PER_CTX(lo, hi, cols) +((hi) - (lo)) * (0 cols)
#define ONE_PER_RUN +SUM_ROW_COLS_MAX
enum { JOB_NCOLS = 0 JOB_COLUMNS(ONE, ONE, ONE, ONE_PER_CTX, ONE, ONE_PER_RUN) };
#undef ONE
#undef ONE_PER_CTX
#undef ONE_PER_RUN

#define PER_CTX(lo, hi, cols)                                                                      \
    for (int i = (lo); i < (hi); i++) {                                                           \
        cols                                                                                       \
    }

/* The columns as the table says them, job.KEY's names, and where each column of the run's
 * row is (src: its index in sum_job_run_cols, -1 for the job's own), made once. */
static char ctx_cols[HW_CTX_COUNT][64];
static struct sum_row_def job_defs[JOB_NCOLS];
static long job_src[JOB_NCOLS];
static size_t job_ncols;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

/* Column k of sum_job_run_cols as the job's column n (a count may be unmeasured in a job). */
static void run_def(size_t *n, size_t k, bool *placed)
{
    size_t nc, nd;
    const size_t *rc = sum_job_run_cols(&nc);
    const struct sum_row_def *r = &sum_report_row_defs(&nd)[rc[k]];
    job_defs[*n] = (struct sum_row_def){
        .key = r->key, .type = r->type == SUM_COL_U64 ? SUM_COL_INT : r->type, .dim = r->dim,
        .job = r->job, .what = r->what};
    job_src[(*n)++] = (long)k;
    placed[k] = true;
}

/* RUN(key): the column of that key; one the run's row lacks (or gives no rule) is left
 * without its meaning, which test_summarize.rows.defs reports. */
static void run_def_key(size_t *n, const char *key, bool *placed)
{
    size_t nc, nd;
    const size_t *rc = sum_job_run_cols(&nc);
    const struct sum_row_def *def = sum_report_row_defs(&nd);
    for (size_t k = 0; k < nc; k++)
        if (!strcmp(def[rc[k]].key, key)) {
            run_def(n, k, placed);
            return;
        }
    job_defs[*n] = (struct sum_row_def){.key = key, .type = SUM_COL_NUM, .dim = SUM_DIM_NONE};
    job_src[(*n)++] = -1;
}

static void make_defs(void)
{
    for (int k = 0; k < HW_CTX_COUNT; k++)
        snprintf(ctx_cols[k], sizeof ctx_cols[k], "job.%s", hw_ctx_defs[k].key);
    bool placed[SUM_ROW_COLS_MAX] = {false};
    size_t n = 0, nc;
    (void)sum_job_run_cols(&nc);
#define DEF(nm_, type_, dim_, what_)                                                               \
    job_src[n] = -1;                                                                               \
    job_defs[n++] = (struct sum_row_def){.key = (nm_), .type = (type_), .dim = (dim_),             \
                                         .job = SUM_JOB_OWN, .what = (what_)};
#define S(nm_, what_, v_) DEF(nm_, SUM_COL_STR, SUM_DIM_NONE, what_)
#define D(nm_, dim_, what_, v_) DEF(nm_, SUM_COL_NUM, dim_, what_)
#define U(nm_, what_, v_) DEF(nm_, SUM_COL_U64, SUM_DIM_NONE, what_)
#define RUN(key_) run_def_key(&n, key_, placed);
#define PER_RUN                                                                                    \
    for (size_t k = 0; k < nc; k++)                                                                \
        if (!placed[k])                                                                            \
            run_def(&n, k, placed);
    JOB_COLUMNS(S, D, U, PER_CTX, RUN, PER_RUN)
#undef S
#undef D
#undef U
#undef RUN
#undef PER_RUN
#undef DEF
    job_ncols = n;
}

const struct sum_row_def *sum_job_row_defs(size_t *n)
{
    pthread_once(&ctx_once, make_defs);
    *n = job_ncols;
    return job_defs;
}

/* The row's columns in u (incomplete holds the list the row points into). */
static size_t job_cols(const struct sum_jobsum *j, const struct sum_units *u, struct hw_buf *incomplete,
                       struct sum_col c[JOB_NCOLS], char (*names)[SUM_COL_NAME])
{
    size_t nd;
    const struct sum_row_def *def = sum_job_row_defs(&nd);
    for (size_t i = 0; i < nd; i++)
        c[i] = (struct sum_col){.name = def[i].key, .type = def[i].type, .dim = def[i].dim};
    sum_job_incomplete_list(j, incomplete);
    hw_buf_putc(incomplete, '\0');
    incomplete->len--;
    const struct sum_jphase *sp = straggler(j);
    const struct sum_jnode *fn = sum_job_failed_node(j), *pn = sum_job_param_node(j);
    size_t n = 0;
#define S(nm, what, v) c[n++].s = (v);
#define D(nm, dim, what, v) c[n++].d = (v);
#define U(nm, what, v) c[n++].u = (v);
#define RUN(key) n++;
#define PER_RUN n = nd;
    JOB_COLUMNS(S, D, U, PER_CTX, RUN, PER_RUN)
#undef S
#undef D
#undef U
#undef RUN
#undef PER_RUN
    for (size_t i = 0; i < nd; i++) /* the run's row's figures, as the job made them */
        if (job_src[i] >= 0)
            c[i].d = j->fig ? j->fig[job_src[i]] : NAN;
    return sum_cols_units(c, n, u, names);
}
#undef PER_CTX

void sum_job_csv_header(const struct sum_units *u, const char *const *pcols, size_t npcols,
                        struct hw_buf *out)
{
    struct sum_jobsum empty = {0};
    empty.straggler = -1;
    struct hw_buf inc;
    hw_buf_init(&inc, NULL, 0);
    struct sum_col c[JOB_NCOLS];
    char names[JOB_NCOLS][SUM_COL_NAME];
    sum_cols_csv_header(c, job_cols(&empty, u, &inc, c, names), out);
    hw_buf_free(&inc);
    out->len--; /* the names of the param columns go before the '\n' */
    for (size_t q = 0; q < npcols; q++) {
        hw_buf_putc(out, ',');
        sum_csv_cell(out, pcols[q]);
    }
    hw_buf_putc(out, '\n');
}

/* The param node's parameter of that column name, or NULL. */
static const struct sum_param *param_of(const struct sum_jnode *pn, const char *col)
{
    bool metric = !strncmp(col, "metric.", 7);
    const char *key = col + (metric ? 7 : 6);
    for (size_t i = 0; pn && i < pn->nparams; i++)
        if (pn->params[i].metric == metric && !strcmp(pn->params[i].key, key))
            return &pn->params[i];
    return NULL;
}

void sum_job_csv_row(const struct sum_jobsum *j, const struct sum_units *u,
                     const char *const *pcols, size_t npcols, struct hw_buf *out)
{
    struct hw_buf inc;
    hw_buf_init(&inc, NULL, 0);
    struct sum_col c[JOB_NCOLS];
    char names[JOB_NCOLS][SUM_COL_NAME];
    sum_cols_csv(c, job_cols(j, u, &inc, c, names), out);
    hw_buf_free(&inc);
    out->len--;
    const struct sum_jnode *pn = sum_job_param_node(j);
    for (size_t q = 0; q < npcols; q++) {
        hw_buf_putc(out, ',');
        const struct sum_param *p = param_of(pn, pcols[q]);
        if (p)
            sum_report_param_csv_cell(p, out);
    }
    hw_buf_putc(out, '\n');
}

/* The param node's params and metrics as members of the open object w: "param.KEY": value. */
static void json_params(struct hw_json *w, const struct sum_jobsum *j)
{
    const struct sum_jnode *pn = sum_job_param_node(j);
    for (size_t i = 0; pn && i < pn->nparams; i++) {
        struct hw_buf k;
        hw_buf_init(&k, NULL, 0);
        sum_report_param_name(&pn->params[i], &k);
        hw_json_raw(w, k.p ? k.p : "", sum_report_param_json(&pn->params[i]));
        if (k.oom)
            w->b->oom = true;
        hw_buf_free(&k);
    }
}

void sum_job_jsonl_row(const struct sum_jobsum *j, const struct sum_units *u, struct hw_buf *out)
{
    struct hw_buf inc;
    hw_buf_init(&inc, NULL, 0);
    struct sum_col c[JOB_NCOLS];
    char names[JOB_NCOLS][SUM_COL_NAME];
    size_t n = job_cols(j, u, &inc, c, names);
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_LINE, HW_NUM_SIG12);
    hw_json_open(&w, NULL, '{');
    sum_cols_json(c, n, &w);
    json_params(&w, j);
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
    hw_buf_free(&inc);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void json_ctx(struct hw_json *w, const char *key, const char (*ctx)[128])
{
    hw_json_open(w, key, '{');
    for (int k = 0; k < HW_CTX_COUNT; k++)
        hw_json_str(w, hw_ctx_defs[k].key, ctx[k][0] ? ctx[k] : NULL);
    hw_json_close(w);
}

static void json_node(struct hw_json *w, const struct sum_jobsum *j, size_t i)
{
    const struct sum_jnode *n = &j->node[i];
    hw_json_open(w, NULL, '{');
    hw_json_str(w, "node", n->label);
    hw_json_str(w, "dir", n->dir);
    hw_json_str(w, "host", n->host[0] ? n->host : NULL);
    hw_json_bool(w, "summarized", n->summarized);
    hw_json_str(w, "status", n->summarized ? sum_status_names[n->status] : NULL);
    hw_json_bool(w, "complete", n->summarized && n->complete);
    hw_json_u64(w, "attempt", n->attempt + 1);
    hw_json_str(w, "gpu_sampler_role", n->sampler_role[0] ? n->sampler_role : NULL);
    hw_json_bool(w, "gpu_sampler_took_over", n->took_over);
    sum_fig_json_time(w, "start", n->t_start);
    hw_json_num(w, "start_offset_s", sum_fig_round_us(n->t_start - j->t_start));
    hw_json_num(w, "duration_s", sum_fig_round_us(n->duration_s));
    hw_json_num(w, "interval_s", n->interval_s);
    hw_json_u64(w, "gpus", (uint64_t)n->ngpu);
    hw_json_num(w, "energy_wh", n->energy_wh);
    hw_json_num(w, "gpus_mem_used_peak_mib", n->mem_peak_mib);
    hw_json_num(w, "gpus_power_peak_w", n->power_peak_w);
    hw_json_u64(w, "lines_skipped", n->lines_skipped);
    hw_json_open(w, "gpu_list", '[');
    for (int g = 0; g < n->ngpu; g++) {
        const struct sum_jgpu *a = &n->gpu[g];
        hw_json_open(w, NULL, '{');
        hw_json_u64(w, "index", (uint64_t)a->index);
        hw_json_str(w, "uuid", a->uuid[0] ? a->uuid : NULL);
        hw_json_bool(w, "counted", !a->twice);
        hw_json_bool(w, "sampled_in_turn", a->turn);
        hw_json_u64(w, "samples", a->samples);
        hw_json_num(w, "energy_wh", a->energy_wh);
        hw_json_num(w, "mem_used_peak_mib", a->mem_peak_mib);
        hw_json_num(w, "util_mean_pct", a->util_mean_pct);
        hw_json_close(w);
    }
    hw_json_close(w);
    json_ctx(w, "context", (const char (*)[128])n->ctx);
    hw_json_open(w, "notes", '['); /* its verdicts, as its own summary's notes */
    for (size_t k = 0; n->verdicts && k < n->verdicts->n; k++) {
        const struct sum_verdict *v = &n->verdicts->v[k];
        hw_json_open(w, NULL, '{');
        hw_json_str(w, "id", sum_rules[v->rule].id);
        hw_json_str(w, "severity", sum_severity_names[v->sev]);
        if (v->gpu >= 0)
            hw_json_u64(w, "gpu", (uint64_t)v->gpu);
        else
            hw_json_null(w, "gpu");
        hw_json_str(w, "text", v->text);
        hw_json_close(w);
    }
    hw_json_close(w);
    hw_json_close(w);
}

/* Seconds since the job's start, by the host's clock (NAN stays null). */
static double job_offset(const struct sum_jobsum *j, double t)
{
    return sum_fig_round_us(t - j->t_start);
}

/* Each host's GPU samplers in turn, and the time its GPUs went unsampled (jobsum.h). */
static void json_samplers(struct hw_json *w, const struct sum_jobsum *j)
{
    hw_json_open(w, "gpu_samplers", '[');
    for (size_t k = 0; k < j->nsamp; k++) {
        const struct sum_jsampled *s = &j->samp[k];
        const struct sum_jnode *h = &j->node[s->first];
        hw_json_open(w, NULL, '{');
        hw_json_str(w, "node", sum_jnode_node(h)[0] ? sum_jnode_node(h) : NULL);
        hw_json_str(w, "host", h->host);
        hw_json_u64(w, "attempt", h->attempt + 1);
        hw_json_u64(w, "ranks", s->ranks);
        hw_json_num(w, "ranks_end_s", job_offset(j, s->ranks_end));
        hw_json_num(w, "interval_s", s->interval_s);
        hw_json_num(w, "unsampled_s", sum_fig_round_us(s->unsampled_s));
        hw_json_num(w, "unsampled_after_last_s", sum_fig_round_us(s->tail_s));
        hw_json_open(w, "samplers", '[');
        for (size_t i = 0; i < s->n; i++) {
            const struct sum_jnode *n = &j->node[s->by[i]];
            const char *rank = sum_jnode_rank(n);
            hw_json_open(w, NULL, '{');
            hw_json_str(w, "node", n->label);
            hw_json_str(w, "dir", n->dir);
            hw_json_str(w, "rank", rank);
            hw_json_pid(w, "hwmon_pid", n->hwmon_pid);
            hw_json_bool(w, "took_over", n->took_over);
            hw_json_num(w, "from_s", job_offset(j, n->gpu_from));
            hw_json_num(w, "to_s", job_offset(j, n->gpu_to));
            hw_json_num(w, "gap_before_s", sum_fig_round_us(s->gap_before[i]));
            hw_json_close(w);
        }
        hw_json_close(w);
        hw_json_close(w);
    }
    hw_json_close(w);
}

static void json_attempts(struct hw_json *w, const struct sum_jobsum *j)
{
    hw_json_open(w, "attempts", '[');
    for (size_t a = 0; a < j->nattempt; a++) {
        const struct sum_jattempt *t = &j->att[a];
        hw_json_open(w, NULL, '{');
        hw_json_u64(w, "attempt", a + 1);
        if (t->restart_count >= 0)
            hw_json_u64(w, "restart_count", (uint64_t)t->restart_count);
        else
            hw_json_null(w, "restart_count");
        sum_fig_json_time(w, "start", t->t_start);
        hw_json_num(w, "duration_s", sum_fig_round_us(t->duration_s));
        hw_json_str(w, "status", sum_status_names[t->status]);
        hw_json_num(w, "energy_wh", t->energy_wh);
        hw_json_u64(w, "ranks", t->ranks);
        hw_json_close(w);
    }
    hw_json_close(w);
}

static void json_phase(struct hw_json *w, const struct sum_jobsum *j, const struct sum_jphase *p)
{
    hw_json_open(w, NULL, '{');
    hw_json_str(w, "name", p->name);
    hw_json_u64(w, "nodes", p->nodes);
    hw_json_u64(w, "count", p->count);
    hw_json_num(w, "min_s", sum_fig_round_us(p->min_s));
    hw_json_num(w, "median_s", sum_fig_round_us(p->median_s));
    hw_json_num(w, "max_s", sum_fig_round_us(p->max_s));
    hw_json_str(w, "slowest_node", isfinite(p->max_s) ? node_label(j, p->slowest) : NULL);
    hw_json_num(w, "over_median_s", sum_fig_round_us(p->over_median_s));
    hw_json_num(w, "over_median_pct", p->over_median_pct);
    hw_json_num(w, "energy_wh", p->energy_wh);
    hw_json_close(w);
}

void sum_job_json(const struct sum_jobsum *j, struct hw_buf *out)
{
    struct hw_json w;
    hw_json_init(&w, out, HW_JSON_PRETTY, HW_NUM_SIG12);
    hw_json_open(&w, NULL, '{');
    hw_json_str(&w, "schema", "hwrun.job_summary/1");
    hw_json_str(&w, "tool", "summarize (hwrun) " HWRUN_VERSION);
    /* the row's figures first, under the row's names */
    struct hw_buf inc;
    hw_buf_init(&inc, NULL, 0);
    struct sum_col c[JOB_NCOLS];
    char names[JOB_NCOLS][SUM_COL_NAME];
    size_t n = job_cols(j, NULL, &inc, c, names);
    for (size_t i = 0; i < n; i++) /* the job.KEY columns: an object of their own below */
        if (strncmp(c[i].name, "job.", 4) != 0 && strcmp(c[i].name, "attempts") != 0)
            sum_cols_json(&c[i], 1, &w);
    json_attempts(&w, j); /* the attempts column's count, as a list */
    json_samplers(&w, j);
    hw_buf_free(&inc);
    const struct sum_jnode *pn = sum_job_param_node(j);
    for (int metric = 0; metric < 2; metric++) { /* as a run's summary.json has them */
        hw_json_open(&w, metric ? "metrics" : "params", '{');
        for (size_t i = 0; pn && i < pn->nparams; i++)
            if (pn->params[i].metric == (bool)metric)
                hw_json_raw(&w, pn->params[i].key, sum_report_param_json(&pn->params[i]));
        hw_json_close(&w);
    }
    sum_fig_json_time(&w, "start", j->t_start);
    hw_json_u64(&w, "aligned_bins", j->bins);
    hw_json_u64(&w, "aligned_bins_unmeasured", j->bins_unmeasured);
    json_ctx(&w, "context", (const char (*)[128])j->ctx);
    hw_json_open(&w, "per_node", '[');
    for (size_t i = 0; i < j->nnode; i++)
        json_node(&w, j, i);
    hw_json_close(&w);
    hw_json_open(&w, "per_phase", '[');
    for (size_t p = 0; p < j->nph; p++)
        json_phase(&w, j, &j->ph[p]);
    hw_json_close(&w);
    hw_json_close(&w);
    hw_buf_putc(out, '\n');
}

/* ---- text ---------------------------------------------------------------------------------- */

static void put_pad(struct hw_buf *b, const char *s, int width)
{
    char buf[128];
    hw_buf_printf(b, "%-*s", width, sum_fig_printable(s, buf, sizeof buf));
}

static void put_cell(struct hw_buf *b, struct hw_buf *tmp, int width)
{
    hw_buf_putc(tmp, '\0');
    hw_buf_printf(b, "%*s", width, tmp->p);
    tmp->len = 0;
}

/* rank 3 (DIR's label), else the label */
static void put_rank(struct hw_buf *out, const struct sum_jnode *n)
{
    char rb[64], nb[128];
    const char *rank = sum_jnode_rank(n);
    if (rank)
        hw_buf_printf(out, "rank %s (%s)", sum_fig_printable(rank, rb, sizeof rb),
                      sum_fig_printable(n->label, nb, sizeof nb));
    else
        hw_buf_puts(out, sum_fig_printable(n->label, nb, sizeof nb));
}

/* Which rank sampled each host's GPUs when, where more than one did or some time went
 * unsampled; the warning then. */
void sum_job_samplers_text(const struct sum_jobsum *j, const struct sum_units *u,
                           struct hw_buf *out)
{
    for (size_t k = 0; k < j->nsamp; k++) {
        const struct sum_jsampled *s = &j->samp[k];
        bool gap = s->unsampled_s > 0;
        if (s->n < 2 && !gap)
            continue; /* one sampler, start to end: nothing to say */
        const struct sum_jnode *h = &j->node[s->first];
        char nb[128];
        const char *node = sum_fig_printable(sum_jnode_node(h)[0] ? sum_jnode_node(h) : h->host,
                                             nb, sizeof nb);
        hw_buf_printf(out, "  GPUs of %s sampled by ", node);
        for (size_t i = 0; i < s->n; i++) {
            const struct sum_jnode *n = &j->node[s->by[i]];
            hw_buf_puts(out, i ? ", then " : "");
            put_rank(out, n);
            hw_buf_puts(out, n->took_over ? " from its takeover at +" : " from +");
            sum_units_fmt(out, n->gpu_from - j->t_start, SUM_DIM_TIME, u);
            hw_buf_puts(out, " to +");
            sum_units_fmt(out, n->gpu_to - j->t_start, SUM_DIM_TIME, u);
            if (i) {
                hw_buf_puts(out, " (");
                sum_units_fmt(out, sum_fig_round_us(s->gap_before[i]), SUM_DIM_TIME, u);
                hw_buf_puts(out, " after the one before)");
            }
        }
        hw_buf_puts(out, "\n");
        if (!gap)
            continue;
        hw_buf_printf(out, "  warning: the GPUs of %s went unsampled for ", node);
        sum_units_fmt(out, s->unsampled_s, SUM_DIM_TIME, u);
        hw_buf_puts(out, " while ranks of the job ran there");
        if (s->tail_s > 0) {
            hw_buf_puts(out, " (");
            sum_units_fmt(out, s->tail_s, SUM_DIM_TIME, u);
            hw_buf_puts(out, " after the last sampler ended, no rank took over, until +");
            sum_units_fmt(out, s->ranks_end - j->t_start, SUM_DIM_TIME, u);
            hw_buf_puts(out, ")");
        }
        hw_buf_puts(out, ": their energy and peaks miss that time\n");
    }
}

void sum_job_text(const struct sum_jobsum *j, const struct sum_units *u, struct hw_buf *out)
{
    char sb[512];
    /* SLURM's words: ranks (run directories) on nodes (SLURM's node names) on hosts */
    hw_buf_printf(out, "job %s: ", j->dir ? sum_fig_printable(j->dir, sb, sizeof sb)
                                          : "(nodes given)");
    if (j->ranked || j->nodes != j->ranks)
        hw_buf_printf(out, "%zu rank%s on ", j->ranks, j->ranks == 1 ? "" : "s");
    hw_buf_printf(out, "%zu node%s", j->nodes, j->nodes == 1 ? "" : "s");
    if (j->hosts != j->nodes)
        hw_buf_printf(out, " (%zu host%s)", j->hosts, j->hosts == 1 ? "" : "s");
    hw_buf_printf(out, ", %zu GPU%s, status %s\n", j->gpus, j->gpus == 1 ? "" : "s",
                  sum_status_names[j->status]);
    struct hw_buf t;
    hw_buf_init(&t, NULL, 0);
    const struct sum_jnode *fn = sum_job_failed_node(j), *pn = sum_job_param_node(j);
    if (fn) {
        hw_buf_printf(out, "  failed phase: %s", sum_fig_printable(fn->failed_phase, sb, sizeof sb));
        hw_buf_printf(out, " (on %s)\n", sum_fig_printable(fn->label, sb, sizeof sb));
    }
    for (int metric = 0; pn && metric < 2; metric++) { /* what rank 0 logged, as the rows */
        bool any = false;
        for (size_t i = 0; i < pn->nparams; i++) {
            if (pn->params[i].metric != (bool)metric)
                continue;
            hw_buf_puts(out, any ? ", " : metric ? "  metrics: " : "  params: ");
            hw_buf_puts(out, sum_fig_printable(pn->params[i].key, sb, sizeof sb));
            hw_buf_putc(out, ' ');
            hw_buf_puts(out, sum_fig_printable(sum_report_param_json(&pn->params[i]), sb,
                                               sizeof sb));
            any = true;
        }
        if (any)
            hw_buf_printf(out, " (from %s)\n", sum_fig_printable(pn->label, sb, sizeof sb));
    }
    if (j->nattempt > 1) { /* a requeue or restart: one job */
        hw_buf_printf(out, "  attempts: %zu (the last's status; energy and duration summed)\n",
                      j->nattempt);
        for (size_t a = 0; a < j->nattempt; a++) {
            const struct sum_jattempt *at = &j->att[a];
            hw_buf_printf(out, "    attempt %zu", a + 1);
            if (at->restart_count >= 0)
                hw_buf_printf(out, " (restart %ld)", at->restart_count);
            hw_buf_puts(out, ": start +");
            sum_units_fmt(out, at->t_start - j->t_start, SUM_DIM_TIME, u);
            hw_buf_puts(out, ", ");
            sum_units_fmt(out, at->duration_s, SUM_DIM_TIME, u);
            hw_buf_printf(out, ", %s, ", sum_status_names[at->status]);
            sum_units_fmt(out, at->energy_wh, SUM_DIM_ENERGY, u);
            hw_buf_printf(out, ", %zu rank%s\n", at->ranks, at->ranks == 1 ? "" : "s");
        }
    }
    if (j->running)
        hw_buf_printf(out, "  running: %zu node%s (no stop event yet: the run goes on)\n",
                      j->running, j->running == 1 ? "" : "s");
    if (j->incomplete + j->unreadable) {
        sum_job_incomplete_list(j, &t);
        hw_buf_putc(&t, '\0');
        hw_buf_printf(out, "  incomplete: %s (no stop event, or not readable); what was measured "
                           "is summed\n",
                      sum_fig_printable(t.p, sb, sizeof sb));
        t.len = 0;
    }
    hw_buf_puts(out, "  duration ");
    sum_units_fmt(out, j->duration_s, SUM_DIM_TIME, u);
    hw_buf_puts(out, j->nattempt > 1 ? " (the attempts' longest nodes, summed); nodes' starts "
                                     : " (the longest node); nodes' starts ");
    sum_units_fmt(out, j->start_spread_s, SUM_DIM_TIME, u);
    hw_buf_puts(out, " apart by their own clocks, stops ");
    sum_units_fmt(out, j->stop_spread_s, SUM_DIM_TIME, u);
    hw_buf_puts(out, "\n  energy ");
    sum_units_fmt(out, j->energy_wh, SUM_DIM_ENERGY, u);
    hw_buf_puts(out, j->nattempt > 1 ? " (every GPU once per attempt), GPU util mean "
                                     : " (every GPU once), GPU util mean ");
    sum_fmt_num(out, j->util_mean_pct, "%");
    double cpu_s = sum_job_fig(j, "proc_cpu_sec"), wchar = sum_job_fig(j, "proc_wchar_mib");
    double written = sum_job_fig(j, "proc_disk_write_mib");
    if (isfinite(cpu_s) || isfinite(wchar) || isfinite(written)) {
        /* as sacct counts them: TotalCPU, and MaxDiskWrite's write() bytes (wchar) */
        hw_buf_puts(out, "\n  processes: CPU time ");
        sum_units_fmt(out, cpu_s, SUM_DIM_TIME, u);
        hw_buf_puts(out, " (user + system), written by write() ");
        sum_units_fmt(out, wchar, SUM_DIM_MEM, u);
        hw_buf_puts(out, " (wchar, as sacct counts), to storage ");
        sum_units_fmt(out, written, SUM_DIM_MEM, u);
    }
    hw_buf_puts(out, "\n  GPUs together: peak VRAM ");
    sum_units_fmt(out, j->mem_peak_mib, SUM_DIM_GPUMEM, u);
    hw_buf_puts(out, " at ");
    sum_units_fmt(out, j->mem_peak_at_s, SUM_DIM_TIME, u);
    hw_buf_puts(out, " (the nodes' own peaks add up to ");
    sum_units_fmt(out, j->mem_sum_of_peaks_mib, SUM_DIM_GPUMEM, u);
    hw_buf_puts(out, "), peak power ");
    sum_fmt_num(out, j->power_peak_w, " W");
    hw_buf_puts(out, "; in ");
    sum_units_fmt(out, j->align_s, SUM_DIM_TIME, u);
    hw_buf_puts(out, " steps from each node's start\n");
    if (j->gpus_twice)
        hw_buf_printf(out, "  note: %llu GPU%s recorded by two directories of one host, counted "
                           "once\n",
                      (unsigned long long)j->gpus_twice, j->gpus_twice == 1 ? "" : "s");
    sum_job_samplers_text(j, u, out);
    const struct sum_jphase *sp = straggler(j);
    if (sp) {
        char nb[128], rb[64];
        const struct sum_jnode *slow = &j->node[sp->slowest];
        const char *rank = sum_jnode_rank(slow);
        hw_buf_puts(out, "  straggler: ");
        if (rank && sum_jnode_node(slow)[0]) /* rank 3 on node-b */
            hw_buf_printf(out, "rank %s on %s", sum_fig_printable(rank, rb, sizeof rb),
                          sum_fig_printable(sum_jnode_node(slow), nb, sizeof nb));
        else
            hw_buf_puts(out, sum_fig_printable(node_label(j, sp->slowest), nb, sizeof nb));
        hw_buf_printf(out, " in `%s`: ", sum_fig_printable(sp->name, sb, sizeof sb));
        sum_units_fmt(out, sp->max_s, SUM_DIM_TIME, u);
        hw_buf_puts(out, ", ");
        sum_units_fmt(out, sp->over_median_s, SUM_DIM_TIME, u);
        hw_buf_puts(out, " (");
        sum_fmt_num(out, sp->over_median_pct, "%");
        hw_buf_printf(out, ") over the median of %zu %s\n", sp->nodes,
                      j->ranked ? "ranks" : "nodes");
    }

    /* each rank's verdicts, judged as its own run (data_missing left to its own summary) */
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_verdicts *vs = j->node[i].verdicts;
        for (size_t k = 0; vs && k < vs->n; k++) {
            const struct sum_verdict *v = &vs->v[k];
            if (v->rule == SUM_RULE_DATA_MISSING)
                continue;
            char nb[128], tb[sizeof v->text];
            const char *rank = sum_jnode_rank(&j->node[i]);
            hw_buf_printf(out, "  %s [%s] ", v->sev == SUM_SEV_WARNING ? "warning" : "note",
                          sum_rules[v->rule].id);
            if (rank)
                hw_buf_printf(out, "rank %s", sum_fig_printable(rank, nb, sizeof nb));
            else
                hw_buf_puts(out, sum_fig_printable(j->node[i].label, nb, sizeof nb));
            hw_buf_printf(out, ": %s\n", sum_fig_printable(v->text, tb, sizeof tb));
        }
    }
    hw_buf_puts(out, "\n  node                 status      GPUs    start +    duration      energy"
                     "   peak VRAM\n");
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_jnode *n = &j->node[i];
        hw_buf_puts(out, "  ");
        put_pad(out, n->label, 20);
        hw_buf_printf(out, " %-10s %5d ",
                      n->summarized ? sum_status_names[n->status] : "unreadable", n->ngpu);
        sum_units_fmt(&t, n->t_start - j->t_start, SUM_DIM_TIME, u);
        put_cell(out, &t, 11);
        sum_units_fmt(&t, n->duration_s, SUM_DIM_TIME, u);
        put_cell(out, &t, 12);
        sum_units_fmt(&t, n->energy_wh, SUM_DIM_ENERGY, u);
        put_cell(out, &t, 12);
        sum_units_fmt(&t, n->mem_peak_mib, SUM_DIM_GPUMEM, u);
        put_cell(out, &t, 12);
        hw_buf_putc(out, '\n');
    }
    if (j->nph) {
        hw_buf_puts(out, "\n  phase                nodes         min      median         max"
                         "  slowest (over the median)\n");
        for (size_t p = 0; p < j->nph; p++) {
            const struct sum_jphase *ph = &j->ph[p];
            hw_buf_puts(out, "  ");
            put_pad(out, ph->name, 20);
            hw_buf_printf(out, " %5zu ", ph->nodes);
            sum_units_fmt(&t, ph->min_s, SUM_DIM_TIME, u);
            put_cell(out, &t, 11);
            sum_units_fmt(&t, ph->median_s, SUM_DIM_TIME, u);
            put_cell(out, &t, 12);
            sum_units_fmt(&t, ph->max_s, SUM_DIM_TIME, u);
            put_cell(out, &t, 12);
            if (isfinite(ph->max_s) && ph->nodes > 1) {
                hw_buf_printf(out, "  %s (+", sum_fig_printable(node_label(j, ph->slowest), sb, 64));
                sum_units_fmt(out, ph->over_median_s, SUM_DIM_TIME, u);
                hw_buf_putc(out, ')');
            }
            hw_buf_putc(out, '\n');
        }
    }
    hw_buf_free(&t);
}
