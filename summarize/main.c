/* summarize: the offline ResourceSummary of one run directory or a whole sweep. This file only
 * parses options and wires the modules (readers, summary, report, pytyche) together. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/msg.h"
#include "hwrun/parse.h"
#include "html.h"
#include "pytyche.h"
#include "report.h"
#include "summary.h"

enum fmt { FMT_JSON, FMT_TEXT, FMT_PYTYCHE, FMT_CSV, FMT_JSONL };

struct job {
    const char *dir;             /* NULL: files given by options only */
    struct hw_buf out;
    struct hw_buf json;          /* the JSON summary, kept for --html */
    struct hw_buf pnames, pcells; /* csv: the run's param.KEY names and cells, NUL-separated */
    size_t nparams;
    int status;                  /* HW_EXIT_OK or HW_EXIT_FAIL */
    bool usable;
};

struct ctx {
    enum fmt fmt;
    bool write;
    bool quiet;
    bool print;                  /* print the --format output (off for --html alone) */
    const char *html;            /* --html FILE */
    struct sum_config cfg;
    const char *file_opt[SUM_KIND_COUNT];
    bool any_file_opt;
    struct job *jobs;
    size_t njobs;
    atomic_size_t next;
};

static void usage(FILE *f)
{
    fputs("Usage: summarize [OPTION]... DIR...\n"
          "       summarize [OPTION]... [--gpu-csv F] [--dmon-csv F] [--cpu-csv F] [--proc-csv F]\n"
          "                 [--runlog F] [--gpu-procs-csv F]\n"
          "Summarize run directories written by hwmon/runlog (or pytyche's HWMonitor):\n"
          "per run, per GPU and per phase, with energy, percentiles and data quality.\n"
          "\n"
          "  -f, --format FMT      json (the summary.json document; with several DIRs a JSON\n"
          "                        array of them), text (the default for one DIR on a\n"
          "                        terminal; JSON when piped), pytyche (exactly what\n"
          "                        pytyche's build_resource_summary().to_dict() prints),\n"
          "                        csv or jsonl (one row per run, for sweep tables)\n"
          "  -o, --output FILE     write the output to FILE instead of standard output\n"
          "  -w, --write           store the JSON summary as DIR/summary.json (atomically);\n"
          "                        alone (no --format or -o) it prints nothing\n"
          "      --smi-tz TZ       zone of nvidia-smi's timestamps when the run's start event\n"
          "                        does not name one: UTC, +05:30, -0800 or a zone name\n"
          "                        (default UTC)\n"
          "      --html FILE       write a self-contained HTML report to FILE: timelines with\n"
          "                        phase bands for one DIR, a sortable sweep table for several\n"
          "                        (linking each DIR/report.html that exists); nothing else\n"
          "                        is printed unless --format or --output is given\n"
          "      --params EVENT    the run's parameters are the data of EVENT events (default\n"
          "                        config): \"params\" in JSON, param.KEY columns in csv/jsonl\n"
          "  -j, --jobs N          summarize N directories in parallel (default 1)\n"
          "  -q, --quiet           do not report skipped lines on standard error\n"
          "      --gpu-csv F       hw_metrics.csv (nvidia-smi --query-gpu output)\n"
          "      --dmon-csv F      hw_dmon.csv (nvidia-smi dmon output)\n"
          "      --cpu-csv F       cpu_metrics.csv\n"
          "      --proc-csv F      proc_metrics.csv\n"
          "      --runlog F        run.jsonl\n"
          "      --gpu-procs-csv F gpu_procs.csv (nvidia-smi --query-compute-apps output)\n"
          "  -h, --help            show this help and exit\n"
          "  -V, --version         show the version and exit\n"
          "\n"
          "With one DIR, file options replace that directory's files.\n"
          "\n"
          "Exit status:\n"
          "  0  something was summarized\n"
          "  1  nothing usable was found, or a file could not be read or written\n"
          "  2  usage error\n",
          f);
}

static void on_message(void *ctx, const char *text)
{
    const struct ctx *c = ctx;
    if (!c->quiet)
        hw_warn(0, "%s", text);
}

static void run_pytyche(struct ctx *c, struct job *j)
{
    static const struct {
        enum sum_kind kind;
        enum sum_py_kind py;
    } files[] = {{SUM_KIND_GPU, SUM_PY_GPU}, {SUM_KIND_CPU, SUM_PY_CPU},
                 {SUM_KIND_DMON, SUM_PY_DMON}};
    struct sum_py_acc acc;
    memset(&acc, 0, sizeof acc);
    bool any = false;
    for (size_t i = 0; i < 3; i++) {
        char *p = NULL;
        const char *path = c->file_opt[files[i].kind];
        if (!path && j->dir) {
            if (asprintf(&p, "%s/%s", j->dir, sum_kind_files[files[i].kind]) < 0)
                p = NULL;
            path = p;
        }
        struct stat st;
        if (path && stat(path, &st) == 0)
            any = true;
        uint64_t bad = 0;
        int rc = sum_py_read_file(files[i].py, path, &acc, &bad);
        if (rc == -EILSEQ) {
            hw_warn(0, "%s: invalid UTF-8 at byte %llu: pytyche's reader fails on this file "
                       "(UnicodeDecodeError), so there is no pytyche summary",
                    path, (unsigned long long)bad);
            j->status = HW_EXIT_FAIL;
            free(p);
            return;
        }
        if (rc < 0) {
            hw_warn(-rc, "%s", path);
            j->status = HW_EXIT_FAIL;
            free(p);
            return;
        }
        free(p);
    }
    sum_py_format(&acc, &j->out);
    j->usable = any;
    if (!any) {
        hw_warn(0, "%s: no hw_metrics.csv, cpu_metrics.csv or hw_dmon.csv",
                j->dir ? j->dir : "(no files)");
        j->status = HW_EXIT_FAIL;
    }
}

static void run_job(struct ctx *c, struct job *j)
{
    hw_buf_init(&j->out, NULL, 0);
    hw_buf_init(&j->json, NULL, 0);
    j->status = HW_EXIT_OK;
    if (c->fmt == FMT_PYTYCHE) {
        run_pytyche(c, j);
        return;
    }
    struct sum_inputs in = {0};
    char *storage[SUM_KIND_COUNT] = {0};
    if (j->dir) {
        struct stat st;
        if (stat(j->dir, &st) != 0) {
            hw_warn(errno, "%s", j->dir);
            j->status = HW_EXIT_FAIL;
            return;
        }
        if (!S_ISDIR(st.st_mode)) {
            hw_warn(ENOTDIR, "%s", j->dir);
            j->status = HW_EXIT_FAIL;
            return;
        }
        sum_inputs_from_dir(&in, j->dir, storage);
    }
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        if (c->file_opt[k])
            in.path[k] = c->file_opt[k];
    struct sum_run *run = sum_run_new();
    if (!run)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    int rc = sum_run_summarize(run, &in, &c->cfg);
    if (rc == -ENODATA) {
        hw_warn(0, "%s: nothing usable found", j->dir ? j->dir : "(files)");
        j->status = HW_EXIT_FAIL;
    } else if (rc < 0) {
        j->status = HW_EXIT_FAIL; /* the file was named in a message already */
        j->usable = true;
    } else {
        j->usable = true;
    }
    if (c->print) {
        switch (c->fmt) {
        case FMT_JSON: sum_report_json(run, &j->out); break;
        case FMT_TEXT: sum_report_text(run, &j->out); break;
        case FMT_CSV:
            sum_report_csv_row(run, &j->out);
            for (size_t p = 0; p < run->nparams; p++) { /* lined up by name in main() */
                sum_report_param_name(&run->params[p], &j->pnames);
                hw_buf_putc(&j->pnames, '\0');
                sum_report_param_csv_cell(&run->params[p], &j->pcells);
                hw_buf_putc(&j->pcells, '\0');
            }
            j->nparams = run->nparams;
            break;
        case FMT_JSONL: sum_report_jsonl_row(run, &j->out); break;
        case FMT_PYTYCHE: break;
        }
    }
    if (c->html && rc != -ENODATA)
        sum_report_json(run, &j->json); /* the report's tables come from the summary */
    if (c->write && j->dir && rc != -ENODATA) {
        struct hw_buf js;
        hw_buf_init(&js, NULL, 0);
        if (c->fmt == FMT_JSON && j->out.len)
            hw_buf_put(&js, j->out.p, j->out.len);
        else
            sum_report_json(run, &js);
        char *path;
        if (asprintf(&path, "%s/summary.json", j->dir) >= 0) {
            int wrc = js.oom ? -ENOMEM : hw_write_atomic(path, js.p, js.len);
            if (wrc < 0) {
                hw_warn(-wrc, "write %s", path);
                j->status = HW_EXIT_FAIL;
            }
            free(path);
        }
        hw_buf_free(&js);
    }
    if (j->out.oom) {
        hw_warn(ENOMEM, "%s", j->dir ? j->dir : "(files)");
        j->status = HW_EXIT_FAIL;
    }
    sum_run_free(run);
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        free(storage[k]);
}

static void *worker(void *arg)
{
    struct ctx *c = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->njobs)
            return NULL;
        run_job(c, &c->jobs[i]);
    }
}

int main(int argc, char **argv)
{
    hw_set_progname("summarize");
    enum {
        OPT_SMI_TZ = 256, OPT_GPU, OPT_DMON, OPT_CPU, OPT_PROC, OPT_RUNLOG, OPT_GPU_PROCS,
        OPT_HTML, OPT_PARAMS,
    };
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"write", no_argument, NULL, 'w'},
        {"smi-tz", required_argument, NULL, OPT_SMI_TZ},
        {"jobs", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"gpu-csv", required_argument, NULL, OPT_GPU},
        {"dmon-csv", required_argument, NULL, OPT_DMON},
        {"cpu-csv", required_argument, NULL, OPT_CPU},
        {"proc-csv", required_argument, NULL, OPT_PROC},
        {"runlog", required_argument, NULL, OPT_RUNLOG},
        {"gpu-procs-csv", required_argument, NULL, OPT_GPU_PROCS},
        {"html", required_argument, NULL, OPT_HTML},
        {"params", required_argument, NULL, OPT_PARAMS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    static struct ctx c;
    c.cfg.message = on_message;
    c.cfg.message_ctx = &c;
    const char *output = NULL;
    bool fmt_given = false;
    uint64_t jobs = 1;
    int opt;
    opterr = 0; /* our own messages: getopt's would start with the full argv[0] */
    while ((opt = getopt_long(argc, argv, ":f:o:wj:qhV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'f':
            fmt_given = true;
            if (!strcmp(optarg, "json"))
                c.fmt = FMT_JSON;
            else if (!strcmp(optarg, "text"))
                c.fmt = FMT_TEXT;
            else if (!strcmp(optarg, "pytyche"))
                c.fmt = FMT_PYTYCHE;
            else if (!strcmp(optarg, "csv"))
                c.fmt = FMT_CSV;
            else if (!strcmp(optarg, "jsonl"))
                c.fmt = FMT_JSONL;
            else
                hw_usage_error("unknown format '%s' (json, text, pytyche, csv, jsonl)", optarg);
            break;
        case 'o': output = optarg; break;
        case 'w': c.write = true; break;
        case 'q': c.quiet = true; break;
        case 'j':
            if (hw_parse_u64(optarg, 1, 1024, &jobs) != 0)
                hw_usage_error("invalid number of jobs '%s' (1-1024)", optarg);
            break;
        case OPT_PARAMS:
            if (!*optarg)
                hw_usage_error("--params needs an event name");
            c.cfg.params_event = optarg;
            break;
        case OPT_SMI_TZ:
            if (sum_tz_parse(optarg, true, &c.cfg.tz) != 0)
                hw_usage_error("invalid time zone '%s' (UTC, +05:30, -0800 or a zone name)",
                               optarg);
            c.cfg.have_tz = true;
            break;
        case OPT_GPU: c.file_opt[SUM_KIND_GPU] = optarg; break;
        case OPT_DMON: c.file_opt[SUM_KIND_DMON] = optarg; break;
        case OPT_CPU: c.file_opt[SUM_KIND_CPU] = optarg; break;
        case OPT_PROC: c.file_opt[SUM_KIND_PROC] = optarg; break;
        case OPT_RUNLOG: c.file_opt[SUM_KIND_RUNLOG] = optarg; break;
        case OPT_GPU_PROCS: c.file_opt[SUM_KIND_GPU_PROCS] = optarg; break;
        case OPT_HTML: c.html = optarg; break;
        case 'h':
            usage(stdout);
            return hw_close_stdout(HW_EXIT_OK);
        case 'V':
            puts("summarize (hwrun) " HWRUN_VERSION);
            return hw_close_stdout(HW_EXIT_OK);
        case ':': hw_usage_error("option '%s' needs a value", argv[optind - 1]);
        default: hw_usage_error("unrecognized option '%s'", argv[optind - 1]);
        }
    }
    for (int k = 0; k < SUM_KIND_COUNT; k++)
        c.any_file_opt |= c.file_opt[k] != NULL;
    size_t ndirs = (size_t)(argc - optind);
    if (!ndirs && !c.any_file_opt)
        hw_usage_error("no run directory given");
    if (ndirs > 1 && c.any_file_opt)
        hw_usage_error("file options (--gpu-csv ...) go with at most one DIR");
    if (c.write && !ndirs)
        hw_usage_error("--write needs a DIR");
    if (c.html && c.fmt == FMT_PYTYCHE)
        hw_usage_error("--html goes with the default summary, not --format pytyche");
    if (c.html && !ndirs && !c.any_file_opt)
        hw_usage_error("--html needs a DIR");
    /* --html alone writes just the page; --format or -o ask for the usual output too. */
    c.print = !c.html || fmt_given || output;
    if (c.write && !fmt_given && !output)
        c.print = false; /* -w alone: the summary.json files are the output */
    if (!fmt_given && ndirs <= 1 && isatty(STDOUT_FILENO))
        c.fmt = FMT_TEXT; /* a person at a terminal; JSON when piped */
    /* several JSON summaries make one JSON document: an array (jsonl: one per line) */
    bool json_array = c.fmt == FMT_JSON && ndirs > 1;
    if (c.cfg.have_tz && c.cfg.tz.kind == SUM_TZ_NAMED) {
        /* named zones are resolved by mktime(3): set TZ once, before any thread starts */
        setenv("TZ", c.cfg.tz.name, 1);
        tzset();
    }

    c.njobs = ndirs ? ndirs : 1;
    c.jobs = calloc(c.njobs, sizeof *c.jobs);
    if (!c.jobs)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    for (size_t i = 0; i < ndirs; i++)
        c.jobs[i].dir = argv[optind + (int)i];

    size_t nthreads = jobs < c.njobs ? (size_t)jobs : c.njobs;
    if (nthreads <= 1) {
        worker(&c);
    } else {
        pthread_t *th = calloc(nthreads, sizeof *th);
        if (!th)
            hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
        size_t started = 0;
        for (; started < nthreads; started++)
            if (pthread_create(&th[started], NULL, worker, &c) != 0)
                break;
        if (!started)
            worker(&c);
        for (size_t i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        free(th);
    }

    struct hw_buf all;
    hw_buf_init(&all, NULL, 0);
    /* csv: the parameter columns are the union of the runs' names, in first-seen order */
    const char **pcols = NULL;
    size_t npcols = 0;
    if (c.fmt == FMT_CSV) {
        size_t cap = 0;
        for (size_t i = 0; i < c.njobs; i++)
            cap += c.jobs[i].nparams;
        pcols = calloc(cap + 1, sizeof *pcols);
        if (!pcols)
            hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
        for (size_t i = 0; i < c.njobs; i++) {
            const char *k = c.jobs[i].pnames.p;
            for (size_t p = 0; p < c.jobs[i].nparams; p++, k += strlen(k) + 1) {
                size_t q = 0;
                while (q < npcols && strcmp(pcols[q], k) != 0)
                    q++;
                if (q == npcols)
                    pcols[npcols++] = k;
            }
        }
        sum_report_csv_header(&all);
        if (npcols) { /* the header ends in '\n': the parameter names go before it */
            all.len--;
            for (size_t q = 0; q < npcols; q++) {
                hw_buf_putc(&all, ',');
                hw_buf_puts(&all, pcols[q]);
            }
            hw_buf_putc(&all, '\n');
        }
    }
    if (json_array)
        hw_buf_puts(&all, "[");
    size_t nprinted = 0;
    int status = HW_EXIT_OK;
    bool any_usable = false;
    if (c.html) {
        const char **dirs = calloc(c.njobs, sizeof *dirs);
        const char **json = calloc(c.njobs, sizeof *json);
        if (!dirs || !json)
            hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
        for (size_t i = 0; i < c.njobs; i++) {
            dirs[i] = c.jobs[i].dir;
            json[i] = c.jobs[i].json.len ? c.jobs[i].json.p : NULL;
        }
        struct sum_html_opts ho;
        sum_html_opts_init(&ho);
        if (c.cfg.have_tz)
            ho.read.tz = c.cfg.tz;
        char err[512] = "";
        int rc = sum_html_write_file(c.html, dirs, json, c.njobs, &ho, err, sizeof err);
        if (err[0])
            hw_warn(0, "%s", err);
        if (rc < 0) {
            hw_warn(-rc, "write %s", c.html);
            status = HW_EXIT_FAIL;
        }
        free(dirs);
        free(json);
    }
    for (size_t i = 0; i < c.njobs; i++) {
        struct job *j = &c.jobs[i];
        hw_buf_free(&j->json);
        if (c.fmt == FMT_TEXT && i)
            hw_buf_putc(&all, '\n');
        if (j->out.len && json_array) {
            hw_buf_puts(&all, nprinted++ ? ",\n" : "\n");
            hw_buf_put(&all, j->out.p, j->out.len - (j->out.p[j->out.len - 1] == '\n'));
        } else if (j->out.len && npcols) { /* csv row, then its cells of the param columns */
            hw_buf_put(&all, j->out.p, j->out.len - 1);
            for (size_t q = 0; q < npcols; q++) {
                hw_buf_putc(&all, ',');
                const char *k = j->pnames.p, *v = j->pcells.p;
                for (size_t p = 0; p < j->nparams; p++, k += strlen(k) + 1, v += strlen(v) + 1)
                    if (!strcmp(k, pcols[q])) {
                        hw_buf_puts(&all, v);
                        break;
                    }
            }
            hw_buf_putc(&all, '\n');
        } else if (j->out.len) {
            hw_buf_put(&all, j->out.p, j->out.len);
        }
        hw_buf_free(&j->out);
        if (j->status != HW_EXIT_OK)
            status = HW_EXIT_FAIL;
        any_usable |= j->usable;
    }
    if (json_array)
        hw_buf_puts(&all, "\n]\n");
    for (size_t i = 0; i < c.njobs; i++) {
        hw_buf_free(&c.jobs[i].pnames);
        hw_buf_free(&c.jobs[i].pcells);
    }
    free(pcols);
    if (!any_usable)
        status = HW_EXIT_FAIL;
    free(c.jobs);
    if (all.oom)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    if (!c.print) {
        /* --html alone: the page is the output */
    } else if (output) {
        int rc = hw_write_atomic(output, all.p ? all.p : "", all.len);
        if (rc < 0) {
            hw_warn(-rc, "write %s", output);
            status = HW_EXIT_FAIL;
        }
    } else if (all.len && fwrite(all.p, 1, all.len, stdout) != all.len) {
        status = HW_EXIT_FAIL;
    }
    hw_buf_free(&all);
    return hw_close_stdout(status);
}
