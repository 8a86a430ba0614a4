/* One job on many nodes (jobsum.h): node records and the job's figures. */
#include "jobsum.h"
#include "oom.h"

#include <dirent.h>
#include <json-c/json.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "report.h"

/* src cut to fit, at a character: the context's values are short, labels are for people */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strnlen(src, cap - 1) : 0;
    if (src && src[n])
        while (n && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

/* The name's index in the node's names (the lanes are drawn by name); -1 when not there. */
static long name_index(const struct sum_jnode *n, const char *name)
{
    for (size_t i = 0; i < n->nnames; i++)
        if (!strcmp(n->names[i].name, name))
            return (long)i;
    return -1;
}

/* ---- the run row's figures a job makes of its directories' --------------------------------- */

static size_t run_cols[SUM_ROW_COLS_MAX], nrun_cols;
static pthread_once_t run_cols_once = PTHREAD_ONCE_INIT;

static void find_run_cols(void)
{
    size_t n;
    const struct sum_row_def *d = sum_report_row_defs(&n);
    for (size_t i = 0; i < n && nrun_cols < SUM_ROW_COLS_MAX; i++)
        if (sum_job_rules[d[i].job].derived)
            run_cols[nrun_cols++] = i;
}

const size_t *sum_job_run_cols(size_t *n)
{
    pthread_once(&run_cols_once, find_run_cols);
    *n = nrun_cols;
    return run_cols;
}

double sum_job_fig(const struct sum_jobsum *j, const char *key)
{
    size_t nc, nd;
    const size_t *rc = sum_job_run_cols(&nc);
    const struct sum_row_def *def = sum_report_row_defs(&nd);
    for (size_t k = 0; j->fig && k < nc; k++)
        if (!strcmp(def[rc[k]].key, key))
            return j->fig[k];
    return NAN;
}

/* The node's run row's figures of those columns (before the node takes anything of run). */
static int take_figures(struct sum_jnode *n, const struct sum_run *run)
{
    size_t nc, nd;
    const size_t *rc = sum_job_run_cols(&nc);
    (void)sum_report_row_defs(&nd);
    double *all = malloc(nd * sizeof *all);
    n->fig = malloc((nc ? nc : 1) * sizeof *n->fig);
    if (!all || !n->fig) {
        free(all);
        return -ENOMEM;
    }
    sum_report_row_values(run, all);
    for (size_t k = 0; k < nc; k++)
        n->fig[k] = all[rc[k]];
    free(all);
    return 0;
}

/* Each readable node's host: an index of the job's distinct hosts of an attempt, in the order
 * first seen (a node that does not say its host is a host of its own, as the job's hosts count
 * it); SIZE_MAX for an unreadable one. *nhost of them. 0, or -ENOMEM. */
static int host_groups(const struct sum_jobsum *j, size_t *grp, size_t *nhost)
{
    size_t *first = malloc((j->nnode ? j->nnode : 1) * sizeof *first);
    if (!first)
        return -ENOMEM;
    size_t ng = 0;
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_jnode *n = &j->node[i];
        grp[i] = SIZE_MAX;
        if (!n->summarized)
            continue;
        size_t g = 0;
        while (g < ng && !(n->host[0] && !strcmp(j->node[first[g]].host, n->host) &&
                           j->node[first[g]].attempt == n->attempt))
            g++;
        if (g == ng)
            first[ng++] = i;
        grp[i] = g;
    }
    free(first);
    *nhost = ng;
    return 0;
}

/* Does node a's run span longer than b's (a duration known beats one not known; a tie keeps
 * b, the first)? */
static bool spans_longer(const struct sum_jnode *a, const struct sum_jnode *b)
{
    return isfinite(a->duration_s) && !(a->duration_s <= b->duration_s);
}

/* A mean of directories' means, each for as long as its run spanned (a plain mean where no
 * duration is known). */
struct time_mean {
    double plain, wsum, wv;
    size_t n;
};

static void time_mean_add(struct time_mean *m, const struct sum_jnode *n, double v)
{
    m->plain += v;
    m->n++;
    if (isfinite(n->duration_s) && n->duration_s > 0) {
        m->wsum += n->duration_s;
        m->wv += n->duration_s * v;
    }
}

static double time_mean(const struct time_mean *m)
{
    return m->wsum > 0 ? m->wv / m->wsum : m->n ? m->plain / (double)m->n : NAN;
}

/* The job's figure of each column, by its rule over every readable directory. */
static int run_figures(struct sum_jobsum *j)
{
    size_t nc, nd, nhost = 0;
    const size_t *rc = sum_job_run_cols(&nc);
    const struct sum_row_def *def = sum_report_row_defs(&nd);
    size_t *grp = malloc((j->nnode ? j->nnode : 1) * sizeof *grp);
    size_t *pick = malloc((j->nnode ? j->nnode : 1) * sizeof *pick);
    if (!grp || !pick || !(j->fig = malloc((nc ? nc : 1) * sizeof *j->fig)) ||
        host_groups(j, grp, &nhost) < 0) {
        free(grp);
        free(pick);
        return -ENOMEM;
    }
    for (size_t k = 0; k < nc; k++) {
        enum sum_job_rule rule = def[rc[k]].job;
        bool by_host = rule == SUM_JOB_SUM_HOSTS || rule == SUM_JOB_MEAN_HOSTS;
        double acc = NAN;
        struct time_mean m = {0};
        for (size_t g = 0; g < nhost; g++)
            pick[g] = SIZE_MAX;
        for (size_t i = 0; i < j->nnode; i++) {
            const struct sum_jnode *n = &j->node[i];
            double v = n->summarized && n->fig ? n->fig[k] : NAN;
            if (!isfinite(v))
                continue; /* not measured there: it adds nothing */
            if (by_host) { /* of each host, its rank that ran longest */
                size_t *p = &pick[grp[i]];
                if (*p == SIZE_MAX || spans_longer(n, &j->node[*p]))
                    *p = i;
            } else if (rule == SUM_JOB_SUM) {
                acc = (isnan(acc) ? 0 : acc) + v;
            } else if (rule == SUM_JOB_MAX) {
                if (!(v <= acc))
                    acc = v;
            } else if (rule == SUM_JOB_MIN) {
                if (!(v >= acc))
                    acc = v;
            } else { /* MEAN_BY_TIME */
                time_mean_add(&m, n, v);
            }
        }
        for (size_t g = 0; by_host && g < nhost; g++) {
            if (pick[g] == SIZE_MAX)
                continue;
            const struct sum_jnode *n = &j->node[pick[g]];
            if (rule == SUM_JOB_SUM_HOSTS)
                acc = (isnan(acc) ? 0 : acc) + n->fig[k];
            else
                time_mean_add(&m, n, n->fig[k]);
        }
        if (rule == SUM_JOB_MEAN_BY_TIME || rule == SUM_JOB_MEAN_HOSTS)
            acc = time_mean(&m);
        j->fig[k] = acc;
    }
    free(grp);
    free(pick);
    return 0;
}

int sum_jnode_take(struct sum_jnode *n, const char *dir, struct sum_run *run)
{
    memset(n, 0, sizeof *n);
    n->dir = strdup(dir ? dir : "");
    n->t_start = n->t_stop = n->duration_s = n->interval_s = NAN;
    n->energy_wh = n->mem_peak_mib = n->power_peak_w = NAN;
    n->gpu_from = n->gpu_to = n->start_interval_s = n->probe_s = NAN;
    n->turn_of = -1;
    n->status = SUM_STATUS_UNKNOWN;
    if (!n->dir)
        return -ENOMEM;
    if (!run)
        return 0;
    if (take_figures(n, run) < 0)
        return -ENOMEM;
    n->summarized = true;
    n->verdicts = run->verdicts; /* judged per rank, as its own run */
    run->verdicts = NULL;
    const struct rd_run_info *in = &run->info;
    for (int k = 0; k < HW_CTX_COUNT; k++)
        copy(n->ctx[k], sizeof n->ctx[k], in->ctx[k]);
    copy(n->host, sizeof n->host, in->ctx[HW_CTX_HOST][0] ? in->ctx[HW_CTX_HOST] : in->host);
    copy(n->sampler_role, sizeof n->sampler_role, in->sampler_role);
    n->status = run->outcome.status;
    n->complete = run->outcome.have_stop;
    double t0, t1;
    if (sum_run_span(run, &t0, &t1))
        n->t_start = t0;
    n->t_stop = in->t_stop;
    n->duration_s = sum_run_duration(run);
    n->hwmon_pid = in->hwmon_pid;
    n->start_interval_s = in->interval_s;
    /* the node's GPUs sampled here: from the start (the first sampler) or the takeover */
    n->took_over = isfinite(in->t_sampler);
    n->probe_s = in->sampler_probe_s;
    if (!strcmp(in->sampler_role, HW_SAMPLER_PRIMARY)) {
        n->gpu_from = n->took_over ? in->t_sampler : isfinite(in->t_start) ? in->t_start
                                                                          : n->t_start;
        n->gpu_to = isfinite(n->t_stop) ? n->t_stop : n->t_start + n->duration_s;
    }
    for (int k = 0; k < HW_FILE_COUNT; k++)
        n->lines_skipped += rd_quality_skipped_total(&run->q[k]);
    if (run->outcome.phases_failed)
        copy(n->failed_phase, sizeof n->failed_phase, run->outcome.failed_phase);
    if (run->nparams && !(n->params = calloc(run->nparams, sizeof *n->params)))
        return -ENOMEM;
    for (size_t i = 0; i < run->nparams; i++) {
        const struct sum_param *p = &run->params[i];
        if (!(n->params[i].key = strdup(p->key)))
            return -ENOMEM;
        n->params[i].v = json_object_get(p->v); /* NULL stays NULL */
        n->params[i].metric = p->metric;
        n->nparams++;
    }

    for (int g = 0; g < RD_MAX_GPUS; g++)
        n->ngpu += run->gpu[g] && run->gpu[g]->in_query;
    if (n->ngpu && !(n->gpu = calloc((size_t)n->ngpu, sizeof *n->gpu)))
        return -ENOMEM;
    int i = 0;
    for (int g = 0; g < RD_MAX_GPUS; g++) {
        const struct sum_gpu *gp = run->gpu[g];
        if (!gp || !gp->in_query)
            continue;
        struct sum_jgpu *o = &n->gpu[i++];
        o->index = gp->index;
        copy(o->uuid, sizeof o->uuid, gp->uuid);
        o->samples = gp->samples;
        o->energy_wh = sum_gpu_energy_wh(run, g, NULL);
        o->mem_peak_mib = sum_fig_max(&gp->m[HW_GM_MEM_USED]);
        o->util_mean_pct = sum_stat_mean(&gp->m[HW_GM_UTIL]);
        o->util_n = gp->m[HW_GM_UTIL].n;
        if (isnan(n->interval_s))
            n->interval_s = sum_run_gap_interval(run, HW_FILE_GPU, gp->index);
    }
    struct sum_together_figs tg;
    sum_together_figs(&run->together, &tg);
    n->mem_peak_mib = tg.mem_used_peak_mib;
    if (run->jser && run->jser->hi >= 0) { /* the series moves to the node */
        n->ser = run->jser;
        run->jser = NULL;
        sum_jser_compact(n->ser);
        run->together.series = NULL;
    }

    const struct sum_names *s = &run->names;
    if (s->n && !(n->names = calloc(s->n, sizeof *n->names)))
        return -ENOMEM;
    for (size_t k = 0; k < s->n; k++) {
        const struct sum_name_acc *a = &s->v[k];
        struct sum_jname *o = &n->names[n->nnames];
        if (!(o->name = strdup(a->name)))
            return -ENOMEM;
        n->nnames++;
        o->count = a->count;
        o->total_s = a->timed ? a->d_sum : NAN;
        o->energy_wh = sum_name_energy_wh(run, a);
    }
    size_t nl = run->nphase < SUM_JOB_LANES ? run->nphase : SUM_JOB_LANES;
    n->lane_dropped = run->phases_total - nl;
    if (nl && !(n->lane = calloc(nl, sizeof *n->lane)))
        return -ENOMEM;
    for (size_t k = 0; k < nl; k++) {
        const struct sum_phase_acc *p = &run->phase[k];
        long ni = name_index(n, p->name);
        if (ni < 0 || !isfinite(p->t0) || !isfinite(p->t1) || !isfinite(n->t_start)) {
            n->lane_dropped++;
            continue;
        }
        n->lane[n->nlane++] = (struct sum_jlane){p->t0 - n->t_start, p->t1 - n->t_start,
                                                 (uint32_t)ni, p->failed};
    }
    return 0;
}

void sum_jnode_free(struct sum_jnode *n)
{
    free(n->dir);
    free(n->fig);
    free(n->verdicts);
    free(n->gpu);
    sum_jser_free(n->ser);
    for (size_t k = 0; k < n->nnames; k++)
        free(n->names[k].name);
    free(n->names);
    free(n->lane);
    for (size_t i = 0; i < n->nparams; i++) {
        free(n->params[i].key);
        json_object_put(n->params[i].v);
    }
    free(n->params);
    memset(n, 0, sizeof *n);
}

const struct sum_jnode *sum_job_param_node(const struct sum_jobsum *j)
{
    const struct sum_jnode *first = NULL;
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_jnode *n = &j->node[i];
        const char *r = sum_jnode_rank(n);
        if (n->nparams && r && !strcmp(r, "0"))
            return n;
        if (n->nparams && !first)
            first = n;
    }
    return first;
}

const struct sum_jnode *sum_job_failed_node(const struct sum_jobsum *j)
{
    for (size_t i = 0; i < j->nnode; i++)
        if (j->node[i].failed_phase[0])
            return &j->node[i];
    return NULL;
}

void sum_job_free(struct sum_jobsum *j)
{
    free(j->att);
    free(j->fig);
    for (size_t k = 0; k < j->nsamp; k++) {
        free(j->samp[k].by);
        free(j->samp[k].gap_before);
    }
    free(j->samp);
    for (size_t i = 0; i < j->nnode; i++)
        sum_jnode_free(&j->node[i]);
    free(j->node);
    free(j->ph);
    free(j->dir);
    memset(j, 0, sizeof *j);
}

int sum_job_status_rank(enum sum_status s)
{
    switch (s) {
    case SUM_STATUS_RUNNING: return 0;
    case SUM_STATUS_INCOMPLETE: return 1;
    case SUM_STATUS_KILLED: return 2;
    case SUM_STATUS_FAILED: return 3;
    case SUM_STATUS_DETACHED: return 4;
    case SUM_STATUS_EXITED: return 5;
    case SUM_STATUS_UNKNOWN: return 6;
    case SUM_STATUS_OK: return 7;
    case SUM_STATUS_COUNT: break;
    }
    return 6;
}

static const char *base_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *s = path + n;
    while (s > path && s[-1] != '/')
        s--;
    return s;
}

/* A run's node by SLURM's name for it, else its host ("" when neither is known). */
static const char *node_name(const struct sum_jnode *n)
{
    return n->ctx[HW_CTX_SLURM_NODE_NAME][0] ? n->ctx[HW_CTX_SLURM_NODE_NAME] : n->host;
}

const char *sum_jnode_rank(const struct sum_jnode *n)
{
    if (n->ctx[HW_CTX_SLURM_PROC_ID][0])
        return n->ctx[HW_CTX_SLURM_PROC_ID];
    return n->ctx[HW_CTX_RANK][0] ? n->ctx[HW_CTX_RANK] : NULL;
}

const char *sum_jnode_node(const struct sum_jnode *n)
{
    return node_name(n);
}

/* Labels: the host when no other node has it, else the directory's own name. */
static void label_nodes(struct sum_jobsum *j)
{
    for (size_t i = 0; i < j->nnode; i++) {
        struct sum_jnode *n = &j->node[i];
        bool unique = n->host[0] != '\0';
        for (size_t k = 0; k < j->nnode && unique; k++)
            unique = k == i || strcmp(j->node[k].host, n->host) != 0;
        if (unique) {
            copy(n->label, sizeof n->label, n->host);
        } else {
            const char *b = base_name(n->dir);
            size_t len = strlen(b);
            while (len > 1 && b[len - 1] == '/')
                len--;
            snprintf(n->label, sizeof n->label, "%.*s", (int)len, b);
        }
    }
}

/* ---- attempts ------------------------------------------------------------------------------ */

/* A directory's restart count as its context says it (-1: not said; SLURM leaves
 * SLURM_RESTART_COUNT unset before the first requeue). */
static long restart_count(const struct sum_jnode *n)
{
    const char *v = n->ctx[HW_CTX_SLURM_RESTART_COUNT];
    char *end;
    long r = strtol(v, &end, 10);
    return v[0] && !*end && r >= 0 ? r : -1;
}

/* Where a directory's run ended by its own clock (NAN: not known). */
static double span_end(const struct sum_jnode *n)
{
    return isfinite(n->t_stop) ? n->t_stop : n->t_start + n->duration_s;
}

/* The same rank of the same host: a later directory of it is a later attempt when it started
 * after this one had ended. */
static bool same_rank(const struct sum_jnode *a, const struct sum_jnode *b)
{
    const char *ra = sum_jnode_rank(a), *rb = sum_jnode_rank(b);
    return a->host[0] && !strcmp(a->host, b->host) && !strcmp(ra ? ra : "", rb ? rb : "");
}

struct att_key {
    long restart; /* unset counts as 0 */
    long gen;     /* the attempts before it of one restart count, told apart by time */
};

static int cmp_key(const struct att_key *a, const struct att_key *b)
{
    if (a->restart != b->restart)
        return a->restart < b->restart ? -1 : 1;
    return (a->gen > b->gen) - (a->gen < b->gen);
}

/* Each node's attempt (n->attempt) and the job's attempts (att, nattempt). 0, or -ENOMEM. */
static int assign_attempts(struct sum_jobsum *j)
{
    struct att_key *key = calloc(j->nnode ? j->nnode : 1, sizeof *key);
    size_t *ord = calloc(j->nnode ? j->nnode : 1, sizeof *ord);
    if (!key || !ord) {
        free(key);
        free(ord);
        return -ENOMEM;
    }
    for (size_t i = 0; i < j->nnode; i++) {
        long r = restart_count(&j->node[i]);
        key[i].restart = r < 0 ? 0 : r;
        ord[i] = i;
    }
    /* by restart count, then start: an insertion sort, the directories are few */
    for (size_t a = 1; a < j->nnode; a++)
        for (size_t b = a; b > 0; b--) {
            const struct sum_jnode *x = &j->node[ord[b - 1]], *y = &j->node[ord[b]];
            long rx = key[ord[b - 1]].restart, ry = key[ord[b]].restart;
            if (rx < ry || (rx == ry && !(y->t_start < x->t_start)))
                break;
            size_t t = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = t;
        }
    for (size_t a = 0; a < j->nnode; a++) {
        const struct sum_jnode *n = &j->node[ord[a]];
        for (size_t b = 0; b < a && n->summarized; b++) {
            const struct sum_jnode *m = &j->node[ord[b]];
            if (m->summarized && key[ord[b]].restart == key[ord[a]].restart && same_rank(m, n) &&
                span_end(m) <= n->t_start && key[ord[b]].gen + 1 > key[ord[a]].gen)
                key[ord[a]].gen = key[ord[b]].gen + 1;
        }
    }
    /* the distinct keys in order; an unreadable directory (no time) joins the last attempt */
    struct att_key *uk = calloc(j->nnode ? j->nnode : 1, sizeof *uk);
    if (!uk) {
        free(key);
        free(ord);
        return -ENOMEM;
    }
    size_t nu = 0;
    for (size_t i = 0; i < j->nnode; i++) {
        if (!j->node[i].summarized)
            continue;
        size_t p = 0;
        while (p < nu && cmp_key(&uk[p], &key[i]) < 0)
            p++;
        if (p < nu && !cmp_key(&uk[p], &key[i]))
            continue;
        memmove(&uk[p + 1], &uk[p], (nu - p) * sizeof *uk);
        uk[p] = key[i];
        nu++;
    }
    if (!nu)
        nu = 1; /* no directory readable: one attempt, of nothing */
    j->att = calloc(nu, sizeof *j->att);
    if (!j->att) {
        free(uk);
        free(key);
        free(ord);
        return -ENOMEM;
    }
    j->nattempt = nu;
    for (size_t a = 0; a < nu; a++) {
        struct sum_jattempt *t = &j->att[a];
        t->restart_count = -1;
        t->t_start = t->duration_s = t->energy_wh = NAN;
        t->status = SUM_STATUS_OK;
    }
    for (size_t i = 0; i < j->nnode; i++) {
        struct sum_jnode *n = &j->node[i];
        n->attempt = nu - 1;
        for (size_t p = 0; n->summarized && p < nu; p++)
            if (!cmp_key(&uk[p], &key[i]))
                n->attempt = p;
        if (restart_count(n) >= 0)
            j->att[n->attempt].restart_count = restart_count(n);
    }
    free(uk);
    free(key);
    free(ord);
    return 0;
}

/* Did two directories sample the node's GPUs one after the other (a takeover): both spans
 * known and apart? */
static bool in_turn(const struct sum_jnode *a, const struct sum_jnode *b)
{
    return isfinite(a->gpu_from) && isfinite(a->gpu_to) && isfinite(b->gpu_from) &&
           isfinite(b->gpu_to) && (a->gpu_to <= b->gpu_from || b->gpu_to <= a->gpu_from);
}

/* A GPU recorded by an earlier directory of the same host in the same attempt is not counted
 * again (a GPU of another attempt used energy again); one that the two sampled in turn is one
 * GPU whose energy adds (turn). */
static void mark_twice(struct sum_jobsum *j)
{
    for (size_t i = 0; i < j->nnode; i++) {
        struct sum_jnode *n = &j->node[i];
        for (int g = 0; g < n->ngpu; g++) {
            struct sum_jgpu *a = &n->gpu[g];
            for (size_t k = 0; k < i && !a->twice && !a->turn && n->host[0]; k++) {
                const struct sum_jnode *m = &j->node[k];
                if (strcmp(m->host, n->host) != 0 || m->attempt != n->attempt)
                    continue;
                for (int h = 0; h < m->ngpu && !a->twice && !a->turn; h++) {
                    const struct sum_jgpu *b = &m->gpu[h];
                    bool same = (a->uuid[0] || b->uuid[0]) ? !strcmp(a->uuid, b->uuid)
                                                           : a->index == b->index;
                    if (same && in_turn(m, n)) {
                        a->turn = true;
                        n->turn_of = (long)k;
                    } else {
                        a->twice = same;
                    }
                }
            }
            j->gpus_twice += a->twice;
        }
    }
}

/* ---- the node's GPU sampler ---------------------------------------------------------------- */

static void add_known(double *sum, double v)
{
    if (isfinite(v))
        *sum = (isnan(*sum) ? 0 : *sum) + v;
}

/* One host's samplers in order, and what of its ranks' time they left unsampled (jobsum.h). */
static void sampled_figures(struct sum_jobsum *j, struct sum_jsampled *s)
{
    for (size_t a = 1; a < s->n; a++) /* by start: an insertion sort, the samplers are few */
        for (size_t b = a; b > 0 && j->node[s->by[b]].gpu_from < j->node[s->by[b - 1]].gpu_from;
             b--) {
            size_t t = s->by[b];
            s->by[b] = s->by[b - 1];
            s->by[b - 1] = t;
        }
    s->unsampled_s = s->tail_s = NAN;
    if (!s->n)
        return; /* the sampler's directory is not among these ranks: not known */
    double iv = isfinite(s->interval_s) ? s->interval_s : 0;
    double thr = SUM_JOB_SAMPLER_GAP * iv;
    s->unsampled_s = s->tail_s = 0;
    double cursor = j->node[s->by[0]].gpu_from;
    for (size_t k = 0; k < s->n; k++) {
        const struct sum_jnode *x = &j->node[s->by[k]];
        double gap = x->gpu_from - cursor;
        s->gap_before[k] = k ? gap : NAN;
        /* a handover takes a try (an interval at most) and the probe: late beyond that */
        if (k && gap > thr + (isfinite(x->probe_s) ? x->probe_s : 0))
            s->unsampled_s += gap;
        if (x->gpu_to > cursor)
            cursor = x->gpu_to;
    }
    double tail = s->ranks_end - cursor;
    if (tail > thr) { /* the ranks lived on, nobody took over */
        s->tail_s = tail;
        s->unsampled_s += tail;
    }
}

/* The hosts' GPU samplers (jobsum.h): the ranks of a host and attempt with a node lock, those
 * of them that sampled, and the time their GPUs went unsampled. 0, or -ENOMEM. */
static int gpu_samplers(struct sum_jobsum *j)
{
    j->unsampled_s = NAN;
    size_t *host_of = calloc(j->nnode ? j->nnode : 1, sizeof *host_of);
    if (!host_of)
        return -ENOMEM;
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_jnode *n = &j->node[i];
        host_of[i] = SIZE_MAX;
        if (!n->summarized || !n->sampler_role[0] || !n->host[0])
            continue;
        size_t k = 0;
        while (k < j->nsamp && (strcmp(j->node[j->samp[k].first].host, n->host) != 0 ||
                                j->node[j->samp[k].first].attempt != n->attempt))
            k++;
        if (k == j->nsamp) {
            struct sum_jsampled *p = realloc(j->samp, (j->nsamp + 1) * sizeof *p);
            if (!p) {
                free(host_of);
                return -ENOMEM;
            }
            j->samp = p;
            j->samp[j->nsamp++] = (struct sum_jsampled){.first = i, .ranks_end = NAN,
                                                        .interval_s = NAN};
        }
        host_of[i] = k;
        struct sum_jsampled *s = &j->samp[k];
        s->ranks++;
        double end = span_end(n);
        if (isfinite(end) && !(end <= s->ranks_end))
            s->ranks_end = end;
        if (isfinite(n->gpu_from)) {
            s->n++;
            if (isfinite(n->start_interval_s) && !(n->start_interval_s <= s->interval_s))
                s->interval_s = n->start_interval_s;
        }
    }
    int rc = 0;
    for (size_t k = 0; k < j->nsamp && !rc; k++) {
        struct sum_jsampled *s = &j->samp[k];
        size_t cap = s->n ? s->n : 1;
        s->by = calloc(cap, sizeof *s->by);
        s->gap_before = calloc(cap, sizeof *s->gap_before);
        if (!s->by || !s->gap_before) {
            rc = -ENOMEM;
            break;
        }
        s->n = 0;
        for (size_t i = 0; i < j->nnode; i++)
            if (host_of[i] == k && isfinite(j->node[i].gpu_from))
                s->by[s->n++] = i;
        sampled_figures(j, s);
        add_known(&j->unsampled_s, s->unsampled_s);
    }
    free(host_of);
    return rc;
}

/* A node's series counts in the job's sums when one of its GPUs is counted. */
static bool series_counts(const struct sum_jnode *n)
{
    if (!n->ser)
        return false;
    for (int g = 0; g < n->ngpu; g++)
        if (!n->gpu[g].twice)
            return true;
    return false;
}

/* Where a node's series holds a value for metric m (0 memory, 1 power) at bin b. */
struct hold {
    uint32_t k;        /* the most GPUs of its instants */
    int first, last;   /* its first and last bins with every GPU */
    int hold;          /* bins a value holds across a missing one */
    int at[2];         /* the latest bin <= b with the metric */
};

static bool bin_has(const struct sum_jser_bin *x, uint32_t k, int m)
{
    return x->k == k && (m == 0 ? x->n_mem > 0 : x->n_power > 0);
}

/* The job's peaks over the bins of attempt a (its nodes' series, each since its own start). */
static void attempt_sums(struct sum_jobsum *j, struct hold *h, size_t a)
{
    int nb = 0;
    for (size_t i = 0; i < j->nnode; i++)
        if (series_counts(&j->node[i]) && j->node[i].attempt == a && h[i].last + 1 > nb)
            nb = h[i].last + 1;
    for (int b = 0; b < nb; b++) {
        double sum[2] = {0, 0};
        bool ok[2] = {true, true};
        for (size_t i = 0; i < j->nnode; i++) {
            struct sum_jnode *n = &j->node[i];
            struct hold *x = &h[i];
            if (!series_counts(n) || n->attempt != a || b < x->first || b > x->last)
                continue; /* not running yet, or any more: its GPUs add nothing */
            const struct sum_jser_bin *y = &n->ser->bin[b];
            for (int m = 0; m < 2; m++) {
                if (bin_has(y, x->k, m))
                    x->at[m] = b;
                if (x->at[m] < 0 || b - x->at[m] > x->hold) {
                    ok[m] = false;
                    continue;
                }
                const struct sum_jser_bin *v = &n->ser->bin[x->at[m]];
                sum[m] += m == 0 ? v->mem_max : sum_jser_power(v);
            }
        }
        j->bins++;
        if (!ok[0] || !ok[1])
            j->bins_unmeasured++;
        if (ok[0] && !(sum[0] <= j->mem_peak_mib)) {
            j->mem_peak_mib = sum[0];
            j->mem_peak_at_s = b * j->align_s;
        }
        if (ok[1] && !(sum[1] <= j->power_peak_w)) {
            j->power_peak_w = sum[1];
            j->power_peak_at_s = b * j->align_s;
        }
    }
}

static void aligned_sums(struct sum_jobsum *j)
{
    j->align_s = NAN;
    j->mem_peak_mib = j->mem_peak_at_s = j->power_peak_w = j->power_peak_at_s = NAN;
    for (size_t i = 0; i < j->nnode; i++)
        if (series_counts(&j->node[i]) && !(j->node[i].ser->width <= j->align_s))
            j->align_s = j->node[i].ser->width;
    if (isnan(j->align_s))
        return;
    struct hold *h = calloc(j->nnode, sizeof *h);
    if (!h) {
        sum_oom_note(); /* the peaks left NAN: said by the exit status */
        return;
    }
    for (size_t i = 0; i < j->nnode; i++) {
        struct sum_jnode *n = &j->node[i];
        if (!series_counts(n))
            continue;
        sum_jser_widen(n->ser, j->align_s);
        struct hold *x = &h[i];
        x->first = -1;
        x->last = -1;
        for (int b = 0; b <= n->ser->hi; b++)
            if (n->ser->bin[b].k > x->k)
                x->k = n->ser->bin[b].k;
        for (int b = 0; b <= n->ser->hi; b++)
            if (n->ser->bin[b].k == x->k) {
                if (x->first < 0)
                    x->first = b;
                x->last = b;
            }
        double iv = isfinite(n->interval_s) ? n->interval_s : 0;
        x->hold = (int)ceil(RD_GAP_FACTOR * iv / j->align_s);
        if (x->hold < 1)
            x->hold = 1;
        x->at[0] = x->at[1] = -1;
        /* the node's own peak power on the same bins as the job's */
        for (int b = 0; b <= n->ser->hi; b++)
            if (bin_has(&n->ser->bin[b], x->k, 1) &&
                !(sum_jser_power(&n->ser->bin[b]) <= n->power_peak_w))
                n->power_peak_w = sum_jser_power(&n->ser->bin[b]);
    }
    /* ranks that sampled a host's GPUs in turn: each adds its bins only where the other's
     * ended (the bins are each rank's own, a handover's may fall in one) */
    for (size_t i = 0; i < j->nnode; i++) {
        const struct sum_jnode *n = &j->node[i];
        long m = n->turn_of;
        if (m < 0 || !series_counts(n) || !series_counts(&j->node[m]))
            continue;
        struct hold *x = &h[i], *y = &h[m];
        if (n->gpu_from >= j->node[m].gpu_to && x->first <= y->last)
            x->first = y->last + 1; /* it took over from m */
        else if (n->gpu_to <= j->node[m].gpu_from && x->last >= y->first)
            x->last = y->first - 1; /* m took over from it */
    }
    for (size_t a = 0; a < j->nattempt; a++) /* each attempt on its own axis */
        attempt_sums(j, h, a);
    free(h);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per phase name across the nodes: the union of the names, in first-seen order. */
static int phase_spread(struct sum_jobsum *j)
{
    size_t cap = 0;
    for (size_t i = 0; i < j->nnode; i++)
        cap += j->node[i].nnames;
    j->straggler = -1;
    if (!cap)
        return 0;
    j->ph = calloc(cap, sizeof *j->ph);
    double *v = calloc(j->nnode, sizeof *v);
    if (!j->ph || !v) {
        free(v);
        return -ENOMEM;
    }
    for (size_t i = 0; i < j->nnode; i++)
        for (size_t k = 0; k < j->node[i].nnames; k++) {
            const char *name = j->node[i].names[k].name;
            size_t p = 0;
            while (p < j->nph && strcmp(j->ph[p].name, name) != 0)
                p++;
            if (p == j->nph)
                j->ph[j->nph++].name = name;
        }
    for (size_t p = 0; p < j->nph; p++) {
        struct sum_jphase *ph = &j->ph[p];
        ph->energy_wh = ph->min_s = ph->median_s = ph->max_s = NAN;
        ph->over_median_s = ph->over_median_pct = NAN;
        size_t nv = 0;
        for (size_t i = 0; i < j->nnode; i++) {
            const struct sum_jnode *n = &j->node[i];
            long k = name_index(n, ph->name);
            if (k < 0)
                continue;
            const struct sum_jname *a = &n->names[k];
            ph->nodes++;
            ph->count += a->count;
            if (isfinite(a->energy_wh))
                ph->energy_wh = (isnan(ph->energy_wh) ? 0 : ph->energy_wh) + a->energy_wh;
            if (!isfinite(a->total_s))
                continue;
            v[nv++] = a->total_s;
            if (!(a->total_s <= ph->max_s)) {
                ph->max_s = a->total_s;
                ph->slowest = i;
            }
        }
        if (!nv)
            continue;
        qsort(v, nv, sizeof *v, cmp_double);
        ph->min_s = v[0];
        ph->median_s = nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
        ph->over_median_s = ph->max_s - ph->median_s;
        ph->over_median_pct = ph->median_s > 0 ? 100 * ph->over_median_s / ph->median_s : NAN;
        if (nv > 1 && ph->over_median_s > 0 &&
            (j->straggler < 0 || ph->over_median_s > j->ph[j->straggler].over_median_s))
            j->straggler = (long)p;
    }
    free(v);
    return 0;
}

/* Per attempt while the job is built: its starts' and stops' extremes, its incomplete nodes. */
struct att_acc {
    double smin, smax, emin, emax;
    double peaks_mib; /* its nodes' own memory peaks summed */
    size_t incomplete;
};

static void widen(double *lo, double *hi, double v)
{
    if (!isfinite(v))
        return;
    *lo = isnan(*lo) || v < *lo ? v : *lo;
    *hi = isnan(*hi) || v > *hi ? v : *hi;
}

int sum_job_build(struct sum_jobsum *j)
{
    j->status = SUM_STATUS_OK;
    j->t_start = j->duration_s = j->start_spread_s = j->stop_spread_s = NAN;
    j->energy_wh = j->util_mean_pct = j->mem_sum_of_peaks_mib = NAN;
    label_nodes(j);
    if (assign_attempts(j) < 0)
        return -ENOMEM;
    mark_twice(j);
    if (gpu_samplers(j) < 0)
        return -ENOMEM;
    struct att_acc *acc = calloc(j->nattempt, sizeof *acc);
    double *best = calloc(j->nnode ? j->nnode : 1, sizeof *best); /* a turn's peak so far */
    if (!acc || !best) {
        free(acc);
        free(best);
        return -ENOMEM;
    }
    for (size_t i = 0; i < j->nnode; i++)
        best[i] = NAN;
    for (size_t a = 0; a < j->nattempt; a++)
        acc[a].smin = acc[a].smax = acc[a].emin = acc[a].emax = acc[a].peaks_mib = NAN;
    const size_t last = j->nattempt - 1;
    double util_sum = 0;
    uint64_t util_n = 0;
    for (size_t i = 0; i < j->nnode; i++) {
        struct sum_jnode *n = &j->node[i];
        struct sum_jattempt *t = &j->att[n->attempt];
        bool now = n->attempt == last; /* the job as it stands is its last attempt */
        t->ranks++;
        if (!n->summarized) {
            j->unreadable++;
            t->status = SUM_STATUS_INCOMPLETE; /* a node we cannot read: not the whole job */
            continue;
        }
        if (sum_job_status_rank(n->status) < sum_job_status_rank(t->status))
            t->status = n->status;
        /* a node whose hwmon is alive (or whose files are being written) is running, not
         * incomplete: its stop event is still to come */
        bool running = !n->complete && n->status == SUM_STATUS_RUNNING;
        acc[n->attempt].incomplete += !n->complete && !running;
        if (now) {
            j->incomplete += !n->complete && !running;
            j->running += running;
            bool host_seen = false, node_seen = false;
            for (size_t k = 0; k < i && !host_seen; k++)
                host_seen = j->node[k].attempt == last && !strcmp(j->node[k].host, n->host);
            j->hosts += !host_seen || !n->host[0];
            for (size_t k = 0; k < i && !node_seen; k++)
                node_seen = j->node[k].summarized && j->node[k].attempt == last &&
                            !strcmp(node_name(&j->node[k]), node_name(n));
            j->nodes += !node_seen || !node_name(n)[0];
        }
        j->ranked |= sum_jnode_rank(n) != NULL;
        widen(&acc[n->attempt].smin, &acc[n->attempt].smax, n->t_start);
        widen(&acc[n->attempt].emin, &acc[n->attempt].emax, n->t_stop);
        if (isfinite(n->t_start) && !(n->t_start >= t->t_start))
            t->t_start = n->t_start;
        if (!(n->duration_s <= t->duration_s))
            t->duration_s = n->duration_s;
        double e = NAN;
        for (int g = 0; g < n->ngpu; g++) {
            const struct sum_jgpu *a = &n->gpu[g];
            if (a->twice)
                continue;
            j->gpus += now && !a->turn; /* sampled in turn: the GPU once, its energy added */
            if (isfinite(a->energy_wh))
                e = (isnan(e) ? 0 : e) + a->energy_wh;
            if (a->util_n) {
                util_sum += a->util_mean_pct * (double)a->util_n;
                util_n += a->util_n;
            }
        }
        n->energy_wh = e;
        if (isfinite(e)) {
            j->energy_wh = (isnan(j->energy_wh) ? 0 : j->energy_wh) + e;
            t->energy_wh = (isnan(t->energy_wh) ? 0 : t->energy_wh) + e;
        }
        /* ranks that sampled the same GPUs in turn: their highest peak once (turn_of < i) */
        size_t root = i;
        while (j->node[root].turn_of >= 0)
            root = (size_t)j->node[root].turn_of;
        if (series_counts(n) && isfinite(n->mem_peak_mib) && !(n->mem_peak_mib <= best[root])) {
            acc[n->attempt].peaks_mib =
                (isnan(acc[n->attempt].peaks_mib) ? 0 : acc[n->attempt].peaks_mib) +
                n->mem_peak_mib - (isnan(best[root]) ? 0 : best[root]);
            best[root] = n->mem_peak_mib;
        }
    }
    for (size_t a = 0; a < j->nattempt; a++) {
        struct sum_jattempt *t = &j->att[a];
        if (t->status == SUM_STATUS_OK && acc[a].incomplete)
            t->status = SUM_STATUS_INCOMPLETE;
        if (isfinite(t->duration_s))
            j->duration_s = (isnan(j->duration_s) ? 0 : j->duration_s) + t->duration_s;
        if (isfinite(t->t_start) && !(t->t_start >= j->t_start))
            j->t_start = t->t_start;
        /* the spreads within an attempt: its nodes started together, the attempts did not */
        double ss = acc[a].smax - acc[a].smin, es = acc[a].emax - acc[a].emin;
        if (isfinite(ss) && !(ss <= j->start_spread_s))
            j->start_spread_s = ss;
        if (isfinite(es) && !(es <= j->stop_spread_s))
            j->stop_spread_s = es;
        if (isfinite(acc[a].peaks_mib) && !(acc[a].peaks_mib <= j->mem_sum_of_peaks_mib))
            j->mem_sum_of_peaks_mib = acc[a].peaks_mib; /* the attempt whose add up most */
    }
    free(acc);
    free(best);
    j->status = j->att[last].status;
    j->ranks = j->att[last].ranks;
    for (int k = 0; k < HW_CTX_COUNT; k++) { /* what every node says alike */
        const char *v = NULL;
        bool same = true;
        for (size_t i = 0; i < j->nnode && same; i++) {
            if (!j->node[i].summarized)
                continue;
            if (!v)
                v = j->node[i].ctx[k];
            same = !strcmp(v, j->node[i].ctx[k]);
        }
        copy(j->ctx[k], sizeof j->ctx[k], same ? v : NULL);
    }
    j->util_mean_pct = util_n ? util_sum / (double)util_n : NAN;
    aligned_sums(j);
    if (run_figures(j) < 0)
        return -ENOMEM;
    return phase_spread(j);
}

/* ---- the directories ----------------------------------------------------------------------- */

/* Does dir (an open directory) hold a run's files? */
static bool has_run_files(int dfd)
{
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (faccessat(dfd, hw_file_names[k], F_OK, AT_SYMLINK_NOFOLLOW) == 0)
            return true;
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is the open directory empty (a node's hwmon that died before writing anything)? */
static bool is_empty(int dfd)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    bool empty = true;
    struct dirent *de;
    while (empty && (de = readdir(d)))
        empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    return empty;
}

/* The subdirectories of dir that are nodes: with run files, or empty (its hwmon died before it
 * wrote any); names only, sorted. 0 or -errno. */
static int node_names(const char *dir, char ***names, size_t *n, bool *any_run)
{
    *names = NULL;
    *n = 0;
    *any_run = false;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return -e;
    }
    size_t cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            continue; /* not a directory (or a link to one): not a node */
        bool files = has_run_files(sub), run = files || is_empty(sub);
        close(sub);
        *any_run |= files;
        if (!run)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = cap <= SUM_JOB_MAX_NODES ? realloc(*names, cap * sizeof *p) : NULL;
            if (!p) {
                rc = cap > SUM_JOB_MAX_NODES ? -E2BIG : -ENOMEM;
                break;
            }
            *names = p;
        }
        if (!((*names)[*n] = strdup(de->d_name))) {
            rc = -ENOMEM;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (*n > 1)
        qsort(*names, *n, sizeof **names, cmp_str);
    return rc;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

bool sum_job_is_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return false;
    bool own = has_run_files(dfd);
    close(dfd);
    if (own)
        return false;
    char **names;
    size_t n;
    bool any_run; /* not only empty directories */
    int rc = node_names(dir, &names, &n, &any_run);
    free_names(names, n);
    return rc == 0 && any_run;
}

int sum_job_list(const char *dir, char ***paths, size_t *n)
{
    bool any_run;
    int rc = node_names(dir, paths, n, &any_run);
    if (rc < 0) {
        free_names(*paths, *n);
        *paths = NULL;
        *n = 0;
        return rc;
    }
    size_t dl = strlen(dir);
    bool slash = dl && dir[dl - 1] == '/';
    for (size_t i = 0; i < *n; i++) {
        char *p;
        if (asprintf(&p, "%s%s%s", dir, slash ? "" : "/", (*paths)[i]) < 0) {
            free_names(*paths, *n);
            *paths = NULL;
            *n = 0;
            return -ENOMEM;
        }
        free((*paths)[i]);
        (*paths)[i] = p;
    }
    return 0;
}
