/* summarize's jobs (jobs.h): each run directory summarized on a thread of the -j pool into its
 * own buffers, then the --html report and the outputs joined in the order given. */
#include "jobs.h"
#include "row.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwrun/msg.h"
#include "hwrun/rundir.h"
#include "hwrun/buf.h"
#include "compare.h"
#include "html.h"
#include "gputracker.h"
#include "jobreport.h"
#include "jobsum.h"
#include "oom.h"
#include "pytyche.h"
#include "report.h"

struct sum_run *sum_jobs_summarize(const struct sum_jobs *c, const char *dir, int *rc,
                                   int *status, bool *usable)
{
    struct sum_inputs in = {0};
    char *storage[HW_FILE_COUNT] = {0};
    if (dir) {
        struct stat st;
        int err = stat(dir, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
        if (err) {
            hw_warn(err, "%s", dir);
            *status = HW_EXIT_FAIL;
            *rc = -err;
            return NULL;
        }
        sum_inputs_from_dir(&in, dir, storage);
    }
    for (int k = 0; k < HW_FILE_COUNT; k++)
        if (c->file_opt[k])
            in.path[k] = c->file_opt[k];
    struct sum_run *run = sum_run_new();
    if (!run)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    *rc = sum_run_summarize(run, &in, &c->cfg);
    if (*rc == -ENODATA) {
        hw_warn(0, "%s: nothing usable found", dir ? dir : "(files)");
        *status = HW_EXIT_FAIL;
    } else if (*rc == -ENOMEM) {
        hw_warn(ENOMEM, "%s", dir ? dir : "(files)"); /* printed, but not whole */
        *status = HW_EXIT_FAIL;
        *usable = true;
    } else if (*rc < 0) {
        *status = HW_EXIT_FAIL; /* the file was named in a message already */
        *usable = true;
    } else {
        *usable = true;
    }
    for (int k = 0; k < HW_FILE_COUNT; k++)
        free(storage[k]);
    return run;
}

int sum_jobs_compare(const struct sum_jobs *c, const char *a, const char *b, struct hw_buf *out)
{
    const char *dirs[2] = {a, b};
    struct sum_run *r[2] = {NULL, NULL};
    int status = HW_EXIT_OK;
    for (int i = 0; i < 2; i++) {
        int rc;
        bool usable = false;
        r[i] = sum_jobs_summarize(c, dirs[i], &rc, &status, &usable);
        if (r[i] && !usable)
            status = HW_EXIT_FAIL;
    }
    if (r[0] && r[1]) {
        unsigned long oom_before = sum_oom_count();
        if (c->fmt == SUM_FMT_TEXT)
            sum_compare_text(r[0], r[1], &c->units, c->compare_all, out);
        else
            sum_compare_json(r[0], r[1], &c->units, out);
        if (sum_oom_count() != oom_before)
            out->oom = true; /* a figure computed short of memory: said, not printed */
    } else {
        status = HW_EXIT_FAIL; /* a directory that is not one: nothing to compare */
    }
    sum_run_free(r[0]);
    sum_run_free(r[1]);
    return status;
}

/* A sweep page's row of job j (run NULL: its directory could not be read, rc says why), taken
 * now: the summary goes once the job is done. */
static void html_row(struct sum_jobs *c, struct sum_job *j, const struct sum_run *run, int rc)
{
    char *link = sum_html_report_link(c->html, j->dir);
    j->row = calloc(1, sizeof *j->row);
    if (!j->row || sum_html_sweep_take(j->row, j->dir, run, rc, link) < 0)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    free(link);
}

/* One run's summary to standard output, as it is written (sum_jobs.stream). */
static int spill_stdout(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    return fwrite(p, 1, n, stdout) == n ? 0 : -(errno ? errno : EIO);
}

static void run_job(struct sum_jobs *c, struct sum_job *j)
{
    hw_buf_init(&j->out, NULL, 0);
    if (c->stream)
        j->out.spill = spill_stdout;
    j->status = HW_EXIT_OK;
    unsigned long oom_before = sum_oom_count(); /* a figure computed short of memory */
    if (c->fmt == SUM_FMT_PYTYCHE || c->fmt == SUM_FMT_PYTYCHE_FIELDS) {
        char why[PATH_MAX + 256];
        if (sum_py_run(j->dir, c->file_opt, c->fmt == SUM_FMT_PYTYCHE_FIELDS, &j->out,
                       &j->usable, why, sizeof why) < 0) {
            hw_warn(0, "%s", why);
            j->status = HW_EXIT_FAIL;
        }
        return;
    }
    int rc = 0;
    struct sum_run *run = sum_jobs_summarize(c, j->dir, &rc, &j->status, &j->usable);
    if (c->nodes) { /* a node of a job: its record, the run goes */
        j->node = calloc(1, sizeof *j->node);
        if (!j->node || sum_jnode_take(j->node, j->dir, j->usable ? run : NULL) < 0)
            hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
        sum_run_free(run);
        return;
    }
    if (!run) {
        if (c->html && c->njobs > 1)
            html_row(c, j, NULL, rc);
        return;
    }
    if (c->print) {
        switch (c->fmt) {
        case SUM_FMT_JSON: sum_report_json(run, &j->out); break;
        case SUM_FMT_TEXT: sum_report_text_u(run, &c->units, &j->out); break;
        case SUM_FMT_CSV:
            sum_report_csv_row_u(run, &c->units, &j->out);
            for (size_t p = 0; p < run->nparams; p++) { /* lined up in sum_jobs_collect() */
                sum_report_param_name(&run->params[p], &j->pnames);
                hw_buf_putc(&j->pnames, '\0');
                sum_report_param_csv_cell(&run->params[p], &j->pcells);
                hw_buf_putc(&j->pcells, '\0');
            }
            j->nparams = run->nparams; /* then the phase.NAME.* columns, lined up the same way */
            j->nparams += sum_report_phase_csv(run, &c->units, &j->pnames, &j->pcells);
            if (j->pnames.oom || j->pcells.oom) { /* not lined up: said, never read */
                j->out.oom = true;
                j->nparams = 0;
            }
            break;
        case SUM_FMT_JSONL: sum_report_jsonl_row_u(run, &c->units, &j->out); break;
        case SUM_FMT_GPU_TRACKER: {
            struct sum_units gu = c->units;
            sum_gpu_tracker_units(&gu);
            sum_report_gpu_tracker(run, &gu, &j->out);
            break;
        }
        case SUM_FMT_PYTYCHE:
        case SUM_FMT_PYTYCHE_FIELDS:
        case SUM_FMT_COUNT: break;
        }
    }
    if (c->html && c->njobs > 1) {
        html_row(c, j, run, rc);
    } else if (c->html) {
        j->run = run; /* drawn by sum_jobs_html */
        run = NULL;
    }
    if (c->write && j->dir && rc != -ENODATA) {
        const struct sum_run *r = run ? run : j->run; /* one run's page keeps it (above) */
        struct hw_buf js;
        hw_buf_init(&js, NULL, 0);
        if (c->fmt == SUM_FMT_JSON && j->out.len)
            hw_buf_put(&js, j->out.p, j->out.len);
        else
            sum_report_json(r, &js);
        char *path;
        if (asprintf(&path, "%s/" HW_SUMMARY_FILE, j->dir) < 0) {
            hw_warn(ENOMEM, "%s", j->dir);
            j->status = HW_EXIT_FAIL;
        } else {
            /* a summary short of memory is never stored as one */
            int wrc = js.oom || r->oom || sum_oom_count() != oom_before
                          ? -ENOMEM
                          : hw_write_atomic(path, js.p, js.len);
            if (wrc < 0) {
                hw_warn(-wrc, "write %s", path);
                j->status = HW_EXIT_FAIL;
            }
            free(path);
        }
        hw_buf_free(&js);
    }
    const struct sum_run *said = run ? run : j->run; /* its ENOMEM said when it was read */
    if (j->out.oom || (sum_oom_count() != oom_before && !(said && said->oom))) {
        j->out.oom = true;
        hw_warn(ENOMEM, "%s", j->dir ? j->dir : "(files)");
        j->status = HW_EXIT_FAIL;
    }
    if (j->out.spill_err) {
        hw_warn(-j->out.spill_err, "standard output");
        j->status = HW_EXIT_FAIL;
    }
    sum_run_free(run);
}

static void *worker(void *arg)
{
    struct sum_jobs *c = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->njobs)
            return NULL;
        run_job(c, &c->jobs[i]);
    }
}

void sum_jobs_run(struct sum_jobs *c, size_t nthreads)
{
    if (c->html && !c->nodes) { /* the page's timeline, built in the summary's one pass */
        struct sum_html_opts ho;
        sum_html_opts_init(&ho);
        c->cfg.timeline_cols = c->njobs > 1 ? SUM_HTML_SPARK_COLS : sum_html_cols(&ho);
        c->cfg.timeline_spark = c->njobs > 1;
    }
    if (nthreads <= 1) {
        worker(c);
    } else {
        pthread_t *th = calloc(nthreads, sizeof *th);
        if (!th)
            hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
        size_t started = 0;
        for (; started < nthreads; started++)
            if (pthread_create(&th[started], NULL, worker, c) != 0)
                break;
        if (!started)
            worker(c);
        for (size_t i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        free(th);
    }
}

/* A job's csv columns (param.KEY, phase.NAME.*), names and cells NUL-separated. */
struct named_cells {
    const struct hw_buf *names, *cells;
    size_t n;
};

static struct named_cells named_of(const struct sum_job *j)
{
    return (struct named_cells){&j->pnames, &j->pcells, j->nparams};
}

const struct sum_format sum_formats[SUM_FMT_COUNT] = {
    [SUM_FMT_JSON] = {.name = "json", .flags = SUM_FF_COMPARE | SUM_FF_JOB},
    [SUM_FMT_TEXT] = {.name = "text", .flags = SUM_FF_COMPARE | SUM_FF_JOB},
    [SUM_FMT_PYTYCHE] = {.name = "pytyche"},
    [SUM_FMT_PYTYCHE_FIELDS] = {.name = "pytyche-fields"},
    [SUM_FMT_CSV] = {.name = "csv", .flags = SUM_FF_JOB},
    [SUM_FMT_JSONL] = {.name = "jsonl", .flags = SUM_FF_JOB},
    [SUM_FMT_GPU_TRACKER] = {.name = "gpu-tracker"},
};

void sum_format_names(unsigned flags, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int f = 0; f < SUM_FMT_COUNT && n < cap; f++)
        if ((sum_formats[f].flags & flags) == flags)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", sum_formats[f].name);
}

int sum_format_find(const char *name)
{
    for (int f = 0; f < SUM_FMT_COUNT; f++)
        if (!strcmp(sum_formats[f].name, name))
            return f;
    return -1;
}

/* The union of the jobs' csv column names, in first-seen order (they point into the
 * jobs' buffers); *n of them. */
static const char **union_names(const struct sum_jobs *c, size_t *n)
{
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < c->njobs; i++)
        cap += named_of(&c->jobs[i]).n;
    const char **cols = calloc(cap + 1, sizeof *cols);
    if (!cols)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    for (size_t i = 0; i < c->njobs; i++) {
        struct named_cells nc = named_of(&c->jobs[i]);
        const char *k = nc.names->p;
        for (size_t p = 0; p < nc.n; p++, k += strlen(k) + 1) {
            size_t q = 0;
            while (q < *n && strcmp(cols[q], k) != 0)
                q++;
            if (q == *n)
                cols[(*n)++] = k;
        }
    }
    return cols;
}

/* A job's cell of column name ("" when it has none). */
static const char *cell_of(const struct sum_job *j, const char *name)
{
    struct named_cells nc = named_of(j);
    const char *k = nc.names->p, *v = nc.cells->p;
    for (size_t p = 0; p < nc.n; p++, k += strlen(k) + 1, v += strlen(v) + 1)
        if (!strcmp(k, name))
            return v;
    return "";
}

int sum_jobs_html(struct sum_jobs *c)
{
    int status = HW_EXIT_OK;
    unsigned long oom_before = sum_oom_count(); /* the page's own figures and scratch text */
    bool sweep = c->njobs > 1;
    /* the rows in the order given, moved out of the jobs */
    struct sum_sweep_row *rows = sweep ? calloc(c->njobs, sizeof *rows) : NULL;
    if (sweep && !rows)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    for (size_t i = 0; sweep && i < c->njobs; i++)
        if (c->jobs[i].row) {
            rows[i] = *c->jobs[i].row; /* moved: freed below through rows */
            free(c->jobs[i].row);
            c->jobs[i].row = NULL;
        }
    struct sum_html_opts ho;
    sum_html_opts_init(&ho);
    ho.units = &c->units;
    char err[512] = "";
    int rc = -ENOENT; /* the one run could not be read (said already) */
    if (sweep || c->jobs[0].run)
        rc = sum_html_write_file(c->html, sweep ? NULL : c->jobs[0].run, rows, c->njobs, &ho,
                                 err, sizeof err);
    if (err[0])
        hw_warn(0, "%s", err);
    if (rc < 0) {
        if (!err[0]) /* else err said why */
            hw_warn(-rc, "write %s", c->html);
        status = HW_EXIT_FAIL;
    } else if (sum_oom_count() != oom_before) {
        hw_warn(ENOMEM, "%s", c->html); /* written, but not whole */
        status = HW_EXIT_FAIL;
    }
    for (size_t i = 0; i < c->njobs; i++) {
        if (rows)
            sum_html_sweep_row_free(&rows[i]);
        sum_run_free(c->jobs[i].run);
        c->jobs[i].run = NULL;
    }
    free(rows);
    return status;
}

int sum_jobs_collect(struct sum_jobs *c, struct hw_buf *all)
{
    /* several JSON summaries make one JSON document: an array (jsonl: one per line) */
    bool json_array = (c->fmt == SUM_FMT_JSON || c->fmt == SUM_FMT_GPU_TRACKER) && c->njobs > 1;
    /* csv: the parameter and phase.NAME.* columns are the union of the runs' names, in
     * first-seen order */
    const char **pcols = NULL;
    size_t npcols = 0;
    if (c->fmt == SUM_FMT_CSV) {
        pcols = union_names(c, &npcols);
        sum_report_csv_header_u(&c->units, all);
        if (npcols && all->len && !all->oom) { /* the header ends in '\n': the names go before */
            all->len--;
            for (size_t q = 0; q < npcols; q++) {
                hw_buf_putc(all, ',');
                sum_csv_cell(all, pcols[q]); /* a key may hold a comma, a quote, a newline */
            }
            hw_buf_putc(all, '\n');
        }
    }
    if (json_array)
        hw_buf_puts(all, "[");
    size_t nprinted = 0;
    int status = HW_EXIT_OK;
    bool any_usable = false;
    for (size_t i = 0; i < c->njobs; i++) {
        struct sum_job *j = &c->jobs[i];
        if (c->fmt == SUM_FMT_TEXT && i)
            hw_buf_putc(all, '\n');
        if (j->out.len && json_array) {
            hw_buf_puts(all, nprinted++ ? ",\n" : "\n");
            hw_buf_put(all, j->out.p, j->out.len - (j->out.p[j->out.len - 1] == '\n'));
        } else if (j->out.len && npcols) { /* csv row, then its cells of the param columns */
            hw_buf_put(all, j->out.p, j->out.len - 1);
            for (size_t q = 0; q < npcols; q++) {
                hw_buf_putc(all, ',');
                hw_buf_puts(all, cell_of(j, pcols[q]));
            }
            hw_buf_putc(all, '\n');
        } else if (j->out.len) {
            hw_buf_put(all, j->out.p, j->out.len);
        }
        if (j->out.oom || j->pnames.oom || j->pcells.oom)
            all->oom = true;
        hw_buf_free(&j->out);
        if (j->status != HW_EXIT_OK)
            status = HW_EXIT_FAIL;
        any_usable |= j->usable;
    }
    if (json_array)
        hw_buf_puts(all, "\n]\n");
    for (size_t i = 0; i < c->njobs; i++) {
        hw_buf_free(&c->jobs[i].pnames);
        hw_buf_free(&c->jobs[i].pcells);
    }
    free(pcols);
    if (!any_usable)
        status = HW_EXIT_FAIL;
    return status;
}

/* ---- jobs of many nodes ------------------------------------------------------------------- */

/* The param.KEY and metric.KEY columns of job rows in CSV: every name any node of any job
 * logged, in first-seen order (malloc'd; free each and the array). */
static char **job_param_cols(const struct sum_jobs *c, size_t *n)
{
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < c->njobs; i++)
        cap += c->jobs[i].node ? c->jobs[i].node->nparams : 0;
    char **cols = calloc(cap + 1, sizeof *cols);
    if (!cols)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    for (size_t i = 0; i < c->njobs; i++) {
        const struct sum_jnode *nd = c->jobs[i].node;
        for (size_t p = 0; nd && p < nd->nparams; p++) {
            struct hw_buf k;
            hw_buf_init(&k, NULL, 0);
            sum_report_param_name(&nd->params[p], &k);
            hw_buf_putc(&k, '\0');
            if (k.oom)
                hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
            size_t q = 0;
            while (q < *n && strcmp(cols[q], k.p) != 0)
                q++;
            if (q == *n && !(cols[(*n)++] = strdup(k.p)))
                hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
            hw_buf_free(&k);
        }
    }
    return cols;
}

static void job_output(const struct sum_jobs *c, const struct sum_jobsum *j, size_t k, size_t njob,
                       const char *const *pcols, size_t npcols, struct hw_buf *all)
{
    switch (c->fmt) {
    case SUM_FMT_TEXT:
        if (k)
            hw_buf_putc(all, '\n');
        sum_job_text(j, &c->units, all);
        break;
    case SUM_FMT_CSV:
        if (!k)
            sum_job_csv_header(&c->units, pcols, npcols, all);
        sum_job_csv_row(j, &c->units, pcols, npcols, all);
        break;
    case SUM_FMT_JSONL: sum_job_jsonl_row(j, &c->units, all); break;
    default: { /* json: one document, an array of them for several jobs */
        struct hw_buf one;
        hw_buf_init(&one, NULL, 0);
        sum_job_json(j, &one);
        if (njob > 1)
            hw_buf_puts(all, k ? ",\n" : "[\n");
        hw_buf_put(all, one.p, one.len - (njob > 1));
        if (njob > 1 && k + 1 == njob)
            hw_buf_puts(all, "\n]\n");
        hw_buf_free(&one);
    }
    }
}

int sum_jobs_multi(struct sum_jobs *c, char **dirs, size_t ndirs, bool one_job, size_t nthreads,
                   struct hw_buf *all)
{
    size_t njob = one_job ? 1 : ndirs;
    unsigned long oom_before = sum_oom_count(); /* the job's figures, rows and page */
    char ***paths = calloc(njob, sizeof *paths);
    size_t *npath = calloc(njob, sizeof *npath);
    struct sum_job_set { size_t first, n; } *set = calloc(njob, sizeof *set);
    if (!paths || !npath || !set)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    int status = HW_EXIT_OK;
    size_t total = 0;
    for (size_t k = 0; k < njob; k++) {
        if (one_job) {
            paths[k] = dirs;
            npath[k] = ndirs;
        } else {
            int rc = sum_job_list(dirs[k], &paths[k], &npath[k]);
            if (rc < 0) {
                hw_warn(-rc, "%s", dirs[k]);
                status = HW_EXIT_FAIL;
            }
        }
        set[k] = (struct sum_job_set){total, npath[k]};
        total += npath[k];
    }
    c->nodes = true;
    c->cfg.job_series = true;
    c->njobs = total;
    c->jobs = calloc(total ? total : 1, sizeof *c->jobs);
    if (!c->jobs)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    for (size_t k = 0; k < njob; k++)
        for (size_t i = 0; i < npath[k]; i++)
            c->jobs[set[k].first + i].dir = paths[k][i];
    if (total)
        sum_jobs_run(c, nthreads < total ? nthreads : total);

    size_t npcols = 0;
    char **pcols = c->fmt == SUM_FMT_CSV ? job_param_cols(c, &npcols) : NULL;
    bool any = false;
    for (size_t k = 0; k < njob; k++) {
        struct sum_jobsum j = {0};
        j.dir = one_job ? NULL : strdup(dirs[k]);
        j.nnode = set[k].n;
        j.node = calloc(j.nnode ? j.nnode : 1, sizeof *j.node);
        if (!j.node || (!one_job && !j.dir))
            hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
        bool usable = false;
        for (size_t i = 0; i < j.nnode; i++) {
            struct sum_job *nj = &c->jobs[set[k].first + i];
            j.node[i] = *nj->node; /* moved */
            free(nj->node);
            nj->node = NULL;
            usable |= j.node[i].summarized;
            if (nj->status != HW_EXIT_OK)
                status = HW_EXIT_FAIL;
        }
        if (!j.nnode)
            hw_warn(0, "%s: no node run directories", j.dir ? j.dir : "--job");
        if (sum_job_build(&j) < 0)
            hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
        any |= usable;
        if (c->print)
            job_output(c, &j, k, njob, (const char *const *)pcols, npcols, all);
        if (c->html) {
            struct sum_html_opts ho;
            sum_html_opts_init(&ho);
            ho.units = &c->units;
            char err[512] = "";
            int rc = sum_html_write_job_file(c->html, &j, &ho, err, sizeof err);
            if (err[0])
                hw_warn(0, "%s", err);
            if (rc < 0) {
                if (!err[0]) /* else err said why */
                    hw_warn(-rc, "write %s", c->html);
                status = HW_EXIT_FAIL;
            }
        }
        sum_job_free(&j);
        if (!one_job) {
            for (size_t i = 0; i < npath[k]; i++)
                free(paths[k][i]);
            free(paths[k]);
        }
    }
    free(c->jobs);
    c->jobs = NULL;
    for (size_t q = 0; q < npcols; q++)
        free(pcols[q]);
    free(pcols);
    free(paths);
    free(npath);
    free(set);
    if (!any)
        status = HW_EXIT_FAIL;
    if (sum_oom_count() != oom_before) {
        hw_warn(ENOMEM, "%s", one_job ? "--job" : dirs[0]); /* printed, but not whole */
        status = HW_EXIT_FAIL;
    }
    return status;
}
