/* summarize's CUnit suites and the helpers they share (sumtest.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sumtest.h"

static void on_gpu(void *ctx, const struct rd_gpu_row *row)
{
    struct rec *r = ctx;
    r->gpu_rows++;
    for (int m = 0; m < HW_GPU_FIG_COUNT; m++)
        if (!isnan(row->v[m])) {
            r->gsum[m] += row->v[m];
            r->gn[m]++;
        }
    if (row->gpu > r->max_gpu)
        r->max_gpu = row->gpu;
    if (row->gpu >= 0 && row->gpu < 64)
        r->gpus_seen[row->gpu]++;
    if (r->gpu_rows == 1)
        r->first_t = row->t;
    r->last_t = row->t;
    snprintf(r->last_uuid, sizeof r->last_uuid, "%s", row->uuid ? row->uuid : "");
}

static void on_dmon(void *ctx, const struct rd_dmon_row *row)
{
    struct rec *r = ctx;
    r->dmon_rows++;
    for (int k = 0; k < RD_DM_COUNT; k++)
        if (!isnan(row->v[k])) {
            r->dsum[k] += row->v[k];
            r->dn[k]++;
        }
    if (row->gpu > r->max_gpu)
        r->max_gpu = row->gpu;
    if (r->dmon_rows == 1)
        r->first_t = row->t;
    r->last_t = row->t;
}

static void on_cpu(void *ctx, const struct rd_cpu_row *row)
{
    struct rec *r = ctx;
    r->cpu_rows++;
    for (int k = 0; k < HW_CPU_COL_COUNT; k++)
        if (!isnan(row->v[k])) {
            r->csum[k] += row->v[k];
            r->cn[k]++;
        }
    r->last_t = row->t;
}

static void on_proc(void *ctx, const struct rd_proc_row *row)
{
    struct rec *r = ctx;
    r->proc_rows++;
    for (int k = 0; k < HW_PROC_COL_COUNT; k++)
        if (!isnan(row->v[k]))
            r->psum[k] += row->v[k];
    r->last_t = row->t;
}

static void on_gp(void *ctx, const struct rd_gpu_proc_row *row)
{
    struct rec *r = ctx;
    r->gp_rows++;
    if (!isnan(row->used_mib)) {
        r->gp_mem_sum += row->used_mib;
        r->gp_mem_n++;
    }
    snprintf(r->last_name, sizeof r->last_name, "%s", row->name ? row->name : "");
    snprintf(r->last_uuid, sizeof r->last_uuid, "%s", row->gpu_uuid ? row->gpu_uuid : "");
    r->last_pid = row->pid;
    r->last_t = row->t;
}

static void on_phase(void *ctx, const struct rd_phase *p)
{
    struct rec *r = ctx;
    r->phases++;
    snprintf(r->last_name, sizeof r->last_name, "%s", p->name);
}

static void on_event(void *ctx, const struct rd_event *e)
{
    struct rec *r = ctx;
    r->events++;
    snprintf(r->last_name, sizeof r->last_name, "%s", e->name);
}

static void on_diag(void *ctx, const char *name, uint64_t line, const char *reason)
{
    (void)name, (void)line, (void)reason;
    struct rec *r = ctx;
    r->diags++;
}

void rec_sink(struct rd_sink *sink, struct rec *r)
{
    memset(r, 0, sizeof *r);
    r->max_gpu = -1;
    *sink = (struct rd_sink){.ctx = r, .gpu = on_gpu, .dmon = on_dmon, .cpu = on_cpu,
                              .proc = on_proc, .gpu_proc = on_gp, .phase = on_phase,
                              .event = on_event, .diag = on_diag};
}

void feed_all(enum hw_file kind, const char *data, size_t len, size_t step,
              const struct rd_read_opts *opts, struct rec *r, struct rd_quality *q)
{
    struct rd_sink sink;
    rec_sink(&sink, r);
    struct rd_reader *rd = rd_reader_new(kind, "test", opts, &sink, q);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
    if (!step)
        step = len ? len : 1;
    for (size_t i = 0; i < len; i += step)
        CU_ASSERT_EQUAL(rd_reader_feed(rd, data + i, len - i < step ? len - i : step), 0);
    rd_reader_finish(rd);
    rd_reader_free(rd);
}

uint64_t token_count(const struct rd_quality *q, const char *token)
{
    for (size_t i = 0; i < q->n_tokens; i++)
        if (!strcmp(q->placeholders[i].token, token))
            return q->placeholders[i].n;
    return 0;
}

void put_file(const char *dir, const char *name, const char *content)
{
    char *p = th_fmt("%s/%s", dir, name);
    CU_ASSERT_EQUAL(th_write_file(p, content, strlen(content)), 0);
    free(p);
}

void rows_begin(struct hw_buf *b, const char *const *cols, size_t ncols, bool edge)
{
    hw_buf_init(b, NULL, 0);
    hw_buf_puts(b, HW_COL_TIMESTAMP);
    for (size_t i = 0; i < ncols; i++) {
        hw_buf_putc(b, ',');
        hw_buf_puts(b, cols[i]);
    }
    hw_buf_puts(b, edge ? "," HW_COL_EDGE "\n" : "\n");
}

void rows_add(struct hw_buf *b, double t, const char *fmt, ...)
{
    char ts[40];
    th_iso_time(ts, sizeof ts, t);
    va_list ap;
    va_start(ap, fmt);
    char *cells;
    if (vasprintf(&cells, fmt, ap) < 0)
        abort();
    va_end(ap);
    hw_buf_printf(b, "%s,%s\n", ts, cells);
    free(cells);
}

void rows_put(struct hw_buf *b, const char *dir, const char *name)
{
    hw_buf_putc(b, '\0');
    put_file(dir, name, b->p);
    hw_buf_free(b);
}

char *unwrap_text(char *s)
{
    if (!s)
        return s;
    char *o = s;
    for (const char *p = s; *p;) {
        if ((p[0] == ',' || p[0] == ';') && p[1] == '\n' && p[2] == ' ') {
            *o++ = *p++;
            *o++ = ' ';
            p++;
            while (*p == ' ')
                p++;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return s;
}

void th_smi_time(char *buf, size_t cap, double t)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    int ms = (int)((t - (double)s) * 1000 + 0.5);
    snprintf(buf, cap, "%04d/%02d/%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

void th_iso_time(char *buf, size_t cap, double t)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    int ms = (int)((t - (double)s) * 1000 + 0.5);
    snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03d+00:00", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

struct sum_run *summarize_dir(const char *dir)
{
    struct sum_inputs in;
    char *storage[HW_FILE_COUNT];
    sum_inputs_from_dir(&in, dir, storage);
    struct sum_run *run = sum_run_new();
    static const struct sum_config cfg;
    sum_run_summarize(run, &in, &cfg);
    for (int k = 0; k < HW_FILE_COUNT; k++)
        free(storage[k]);
    return run;
}

struct th_result run_summarize(char *const *args)
{
    char *argv[16] = {(char *)th_env("HWRUN_SUMMARIZE_BIN"), (char *)"-q"};
    size_t n = 2;
    for (; *args && n < 15; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    struct th_result r;
    CU_ASSERT_EQUAL(th_run(argv, NULL, NULL, 60, &r), 0);
    return r;
}

void cu_register_all(void)
{
    add_readers_suite();
    add_captures_suite();
    add_stats_suite();
    add_energy_suites();
    add_pytyche_suite();
    add_cli_suite();
    add_gpm_suite();
    add_outcome_suite();
    add_outputs_suite();
    add_system_suite();
    add_aggregates_suites();
    add_jobsum_suite();
    add_health_suite();
    add_gputracker_suite();
    add_live_suite();
    add_verdicts_suite();
    add_page_span_suite();
    add_interval_suite();
}
