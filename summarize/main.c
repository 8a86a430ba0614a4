/* summarize: the offline ResourceSummary of one run directory or a whole sweep. This file only
 * parses options; the jobs (jobs.h) summarize the directories and join the outputs. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/msg.h"
#include "hwrun/parse.h"
#include "hwrun/buf.h"
#include "jobs.h"
#include "report.h"
#include "jobsum.h"
#include "liveview.h"

/* summarize's exit statuses: the one table, printed by --help and listed in summarize(1). */
static const struct hw_exit_doc exit_codes[] = {
    {HW_EXIT_OK, "something was summarized"},
    {HW_EXIT_FAIL, "nothing usable was found, a file could not be read or written, or memory\n"
                   "ran out (\"Cannot allocate memory\": what was printed is not whole)"},
    {HW_EXIT_USAGE, "usage error"},
};

static void usage(FILE *f)
{
    fputs("Usage: summarize [OPTION]... DIR...\n"
          "       summarize [OPTION]... JOBDIR...\n"
          "       summarize [OPTION]... --job NODEDIR...\n"
          "       summarize --live [--plain] [--refresh S] DIR...\n"
          "       summarize [OPTION]... [FILE OPTION]... [DIR]\n"
          "Summarize run directories written by hwmon/runlog (or pytyche's HWMonitor):\n"
          "per run, per GPU and per phase, with energy, percentiles and data quality.\n"
          "A JOBDIR (no run files of its own, a run directory per node inside) or the\n"
          "NODEDIRs given with --job are one job on many nodes: energy summed, peaks of\n"
          "the nodes' summed series, per node, and per phase the spread across nodes.\n"
          "\n"
          "  -f, --format FMT      json (the summary.json document; with several DIRs a JSON\n"
          "                        array of them), text (the default for one DIR on a\n"
          "                        terminal; JSON when piped), pytyche (exactly what\n"
          "                        pytyche's build_resource_summary().to_dict() prints),\n"
          "                        pytyche-fields (its ten fields unrounded), gpu-tracker\n"
          "                        (gpu_tracker's to_json(), in --units: default GB, h),\n"
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
          "                        config): \"params\" in JSON, param.KEY columns in csv/jsonl;\n"
          "                        metric events and phases' own numbers (loss=...) are\n"
          "                        \"metrics\" and metric.KEY columns (the last value)\n"
          "      --units LIST      units of text, HTML and csv/jsonl rows, e.g.\n"
          "                        mem=GiB,time=min,energy=kWh (mem, gpumem: B KiB KB MiB MB\n"
          "                        GiB GB TiB TB; time: s min h d; energy: Wh kWh J); row\n"
          "                        columns then carry the unit (energy_kwh); JSON keeps\n"
          "                        MiB, seconds and Wh\n"
          "      --cores N         the job's expected cores, for CPU as a share of them\n"
          "                        (default: the cgroup's CPU quota, else the affinity mask)\n"
          "      --tracked-gpus LIST  --format gpu-tracker: the GPUs (indexes or UUIDs) whose\n"
          "                        utilization is the job's (gpu_tracker's gpu_uuids); the\n"
          "                        system's figures stay every GPU's (default: every GPU)\n"
          "      --phase-detail    a run of more than 512 phases (a phase per step): the\n"
          "                        JSON gives the first 512 in full (default: every phase\n"
          "                        in brief; the phase names' figures cover them all)\n"
          "      --rule ID.KEY=V   a verdict rule's threshold (gpu_idle.stretch_sec=1800), or\n"
          "                        ID=off; again for more (after --rules and $HWRUN_RULES)\n"
          "      --rules FILE      thresholds from FILE, one ID.KEY=V or ID=off a line (#\n"
          "                        comments); $HWRUN_RULES names such a file for every run\n"
          "      --list-rules      list the verdict rules, their thresholds as set and their\n"
          "                        sources (tab-separated) and exit\n"
          "      --carbon-intensity G  grams of CO2e per kWh where the run ran: the energy's\n"
          "                        emissions (co2e_g) per run, phase name and row\n"
          "      --price P         the price of a kWh: the energy's cost (energy_cost)\n"
          "      --phases all|N    the JSON's phases[] lists every phase, or the first N\n"
          "                        (default: every one up to 1000 phases, past that each\n"
          "                        name's first, slowest, fastest, failed and open ones)\n"
          "      --compare A B     compare two runs per metric and per phase name: A, B,\n"
          "                        change and change in % (--format text or json); text:\n"
          "                        what differs first, then the largest changes\n"
          "      --all             --compare -f text: every figure, not the largest changes\n"
          "      --job             the DIRs are the nodes of one job (as a JOBDIR's are);\n"
          "                        formats json, text, csv, jsonl; --html draws the job\n"
          "      --columns         list the columns of csv and jsonl rows (tab-separated:\n"
          "                        column, type, unit, description, job_rule; in\n"
          "                        --units) and exit\n"
          "      --live            watch runs while they run: a full-screen view of one\n"
          "                        DIR (status, open phase against its previous\n"
          "                        durations, each GPU now and its last minute, the\n"
          "                        job's processes, warnings), one row per run for\n"
          "                        several (a JOBDIR: one per node); q or Ctrl-C quits.\n"
          "                        Not on a terminal: one line per run and refresh,\n"
          "                        until every run has ended\n"
          "      --plain           with --live: lines, even on a terminal\n"
          "      --refresh S       with --live: seconds between refreshes (default 1)\n"
          "  -j, --jobs N          summarize N directories in parallel (default 1)\n"
          "  -q, --quiet           do not report skipped lines on standard error\n"
          "  -h, --help            show this help and exit\n"
          "  -V, --version         show the version and exit\n"
          "\n"
          "File options: a run's files read from elsewhere (with one DIR, in place of that\n"
          "directory's):\n",
          f);
    for (int k = 0; k < HW_FILE_COUNT; k++) {
        int n = fprintf(f, "      --%s F", hw_run_files[k].option);
        fprintf(f, "%*s%s (%s)\n", n < 24 ? 24 - n : 1, "", hw_run_files[k].name,
                hw_run_files[k].what);
    }
    fputs("\n", f);
    hw_print_exit_codes(f, exit_codes, sizeof exit_codes / sizeof exit_codes[0]);
}

static void on_message(void *ctx, const char *text)
{
    const struct sum_jobs *c = ctx;
    if (!c->quiet)
        hw_warn(0, "%s", text);
}

/* Write out to output (NULL: standard output); the exit status. */
static int put_output(const struct hw_buf *out, const char *output, int status)
{
    if (out->oom)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    if (output) {
        char why[160];
        int rc = hw_write_output(output, out->p ? out->p : "", out->len, why, sizeof why);
        if (rc < 0) {
            hw_warn(0, "write %s: %s", output, why);
            status = HW_EXIT_FAIL;
        }
    } else if (out->len && fwrite(out->p, 1, out->len, stdout) != out->len) {
        status = HW_EXIT_FAIL;
    }
    return status;
}

/* --compare A B: text on a terminal, else JSON. */
static int run_compare(struct sum_jobs *c, char **dirs, size_t ndirs, bool any_file_opt,
                       bool fmt_given, const char *output)
{
    if (ndirs != 2 || any_file_opt)
        hw_usage_error("--compare needs two run directories, A and B");
    if (c->write || c->html)
        hw_usage_error("--compare goes without --write and --html");
    if (fmt_given && !(sum_formats[c->fmt].flags & SUM_FF_COMPARE)) {
        char names[256];
        sum_format_names(SUM_FF_COMPARE, names, sizeof names);
        hw_usage_error("--compare prints %s", names);
    }
    if (!fmt_given)
        c->fmt = isatty(STDOUT_FILENO) ? SUM_FMT_TEXT : SUM_FMT_JSON;
    struct hw_buf out;
    hw_buf_init(&out, NULL, 0);
    int status = sum_jobs_compare(c, dirs[0], dirs[1], &out);
    if (out.len)
        status = put_output(&out, output, status);
    hw_buf_free(&out);
    return hw_close_stdout(status);
}

/* Multi-node jobs: every DIR a JOBDIR, or with --job the nodes of one job. */
static int run_jobs(struct sum_jobs *c, char **dirs, size_t ndirs, bool one_job,
                    bool any_file_opt, bool fmt_given, const char *output, uint64_t nthreads)
{
    if (any_file_opt)
        hw_usage_error("file options (--gpu-csv ...) go with one run directory, not a job");
    if (c->write)
        hw_usage_error("--write goes with run directories, not a job");
    if (fmt_given && !(sum_formats[c->fmt].flags & SUM_FF_JOB)) {
        char names[256];
        sum_format_names(SUM_FF_JOB, names, sizeof names);
        hw_usage_error("a job prints %s", names);
    }
    if (c->html && !one_job && ndirs > 1)
        hw_usage_error("--html draws one job");
    size_t njob = one_job ? 1 : ndirs;
    c->print = !c->html || fmt_given || output;
    if (!fmt_given)
        c->fmt = njob == 1 && isatty(STDOUT_FILENO) ? SUM_FMT_TEXT : SUM_FMT_JSON;
    struct hw_buf all;
    hw_buf_init(&all, NULL, 0);
    int status = sum_jobs_multi(c, dirs, ndirs, one_job, (size_t)nthreads, &all);
    if (c->print)
        status = put_output(&all, output, status);
    hw_buf_free(&all);
    return hw_close_stdout(status);
}

int main(int argc, char **argv)
{
    hw_set_progname("summarize");
    enum {
        OPT_SMI_TZ = 256, OPT_HTML, OPT_PARAMS, OPT_UNITS, OPT_CORES, OPT_COMPARE, OPT_ALL, OPT_JOB,
        OPT_COLUMNS, OPT_TRACKED_GPUS, OPT_PHASE_DETAIL, OPT_PHASES, OPT_LIVE, OPT_PLAIN,
        OPT_REFRESH, OPT_RULE, OPT_RULES, OPT_LIST_RULES, OPT_CARBON, OPT_PRICE,
        OPT_FILE = 512, /* + enum hw_file: a run file's option (HW_RUN_FILES) */
    };
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"write", no_argument, NULL, 'w'},
        {"smi-tz", required_argument, NULL, OPT_SMI_TZ},
        {"jobs", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
#define FILE_OPTION(ID, stem, name, reader, by, stage, optional, normal, opt, what)                \
    {opt, required_argument, NULL, OPT_FILE + HW_FILE_##ID},
        HW_RUN_FILES(FILE_OPTION)
#undef FILE_OPTION
        {"html", required_argument, NULL, OPT_HTML},
        {"params", required_argument, NULL, OPT_PARAMS},
        {"units", required_argument, NULL, OPT_UNITS},
        {"cores", required_argument, NULL, OPT_CORES},
        {"tracked-gpus", required_argument, NULL, OPT_TRACKED_GPUS},
        {"phase-detail", no_argument, NULL, OPT_PHASE_DETAIL},
        {"rule", required_argument, NULL, OPT_RULE},
        {"rules", required_argument, NULL, OPT_RULES},
        {"list-rules", no_argument, NULL, OPT_LIST_RULES},
        {"carbon-intensity", required_argument, NULL, OPT_CARBON},
        {"price", required_argument, NULL, OPT_PRICE},
        {"phases", required_argument, NULL, OPT_PHASES},
        {"compare", no_argument, NULL, OPT_COMPARE},
        {"all", no_argument, NULL, OPT_ALL},
        {"job", no_argument, NULL, OPT_JOB},
        {"columns", no_argument, NULL, OPT_COLUMNS},
        {"live", no_argument, NULL, OPT_LIVE},
        {"plain", no_argument, NULL, OPT_PLAIN},
        {"refresh", required_argument, NULL, OPT_REFRESH},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    static struct sum_jobs c;
    sum_units_init(&c.units);
    /* the verdicts' thresholds: the defaults, a site's $HWRUN_RULES file, then the options in
     * their order (a file given with --rules takes its place in that order) */
    static struct sum_rule_cfg rules;
    sum_rule_cfg_init(&rules);
    c.cfg.rules = &rules;
    bool list_rules = false;
    char rerr[512];
    const char *site_rules = getenv("HWRUN_RULES");
    if (site_rules && *site_rules && sum_rule_cfg_load(&rules, site_rules, rerr, sizeof rerr) < 0)
        hw_usage_error("$HWRUN_RULES: %s", rerr);
    bool compare = false, one_job = false, columns = false, live = false, plain = false;
    double refresh = 1.0;
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
            int f = sum_format_find(optarg);
            if (f < 0) {
                char names[256];
                sum_format_names(0, names, sizeof names);
                hw_usage_error("unknown format '%s' (%s)", optarg, names);
            }
            c.fmt = (enum sum_fmt)f;
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
        case OPT_UNITS: {
            char err[256];
            if (sum_units_parse(&c.units, optarg, err, sizeof err) != 0)
                hw_usage_error("invalid --units '%s': %s", optarg, err);
            break;
        }
        case OPT_CORES: {
            char *end;
            errno = 0;
            double n = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(n > 0 && n <= 1e6))
                hw_usage_error("invalid number of cores '%s' (a number above 0, e.g. 4 or 2.5)",
                               optarg);
            c.cfg.cores = n;
            break;
        }
        case OPT_PHASE_DETAIL:
            c.cfg.phase_detail = true;
            break;
        case OPT_RULE:
            if (sum_rule_cfg_set(&rules, optarg, rerr, sizeof rerr) < 0)
                hw_usage_error("invalid --rule: %s", rerr);
            break;
        case OPT_RULES:
            if (sum_rule_cfg_load(&rules, optarg, rerr, sizeof rerr) < 0)
                hw_usage_error("invalid --rules: %s", rerr);
            break;
        case OPT_LIST_RULES: list_rules = true; break;
        case OPT_CARBON:
        case OPT_PRICE: {
            char *end;
            errno = 0;
            double x = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(x > 0 && x < 1e9))
                hw_usage_error("invalid %s '%s' (a number above 0)",
                               opt == OPT_CARBON ? "--carbon-intensity" : "--price", optarg);
            *(opt == OPT_CARBON ? &c.cfg.carbon_g_per_kwh : &c.cfg.price_per_kwh) = x;
            break;
        }
        case OPT_PHASES:
            if (!strcmp(optarg, "all"))
                c.cfg.phases_list = SUM_PHASES_ALL;
            else if (hw_parse_u64(optarg, 0, SUM_MAX_PHASE_BRIEFS, &c.cfg.phases_first) == 0)
                c.cfg.phases_list = SUM_PHASES_FIRST;
            else
                hw_usage_error("invalid --phases '%s' (all, or a number of phases up to %u)",
                               optarg, SUM_MAX_PHASE_BRIEFS);
            break;
        case OPT_TRACKED_GPUS: {
            /* indexes or UUIDs, comma-separated, none empty */
            bool ok = *optarg && optarg[strlen(optarg) - 1] != ',';
            for (const char *p = optarg; ok && *p; p++)
                ok = (p[0] != ',' || (p != optarg && p[1] != ',')) && (unsigned char)*p > ' ';
            if (!ok)
                hw_usage_error("invalid --tracked-gpus '%s' (GPU indexes or UUIDs separated by "
                               "commas, e.g. 0,2 or GPU-5e7c...)",
                               optarg);
            c.cfg.tracked_gpus = optarg;
            break;
        }
        case OPT_COMPARE: compare = true; break;
        case OPT_ALL: c.compare_all = true; break;
        case OPT_JOB: one_job = true; break;
        case OPT_COLUMNS: columns = true; break;
        case OPT_LIVE: live = true; break;
        case OPT_PLAIN: plain = true; break;
        case OPT_REFRESH: {
            char *end;
            errno = 0;
            refresh = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(refresh >= 0.1 && refresh <= 3600))
                hw_usage_error("invalid --refresh '%s' (seconds, 0.1 to 3600)", optarg);
            break;
        }
        case OPT_SMI_TZ:
            if (rd_tz_parse(optarg, true, &c.cfg.tz) != 0)
                hw_usage_error("invalid time zone '%s' (UTC, +05:30, -0800 or a zone name)",
                               optarg);
            c.cfg.have_tz = true;
            break;
        case OPT_HTML: c.html = optarg; break;
        case 'h':
            usage(stdout);
            return hw_close_stdout(HW_EXIT_OK);
        case 'V':
            puts("summarize (hwrun) " HWRUN_VERSION);
            return hw_close_stdout(HW_EXIT_OK);
        case ':': hw_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (opt >= OPT_FILE && opt < OPT_FILE + HW_FILE_COUNT) {
                c.file_opt[opt - OPT_FILE] = optarg;
                break;
            }
            hw_usage_error("unrecognized option '%s'", argv[optind - 1]);
        }
    }
    bool any_file_opt = false;
    for (int k = 0; k < HW_FILE_COUNT; k++)
        any_file_opt |= c.file_opt[k] != NULL;
    size_t ndirs = (size_t)(argc - optind);
    if (list_rules) { /* the verdicts' rules, as set */
        if (ndirs || any_file_opt || compare || columns)
            hw_usage_error("--list-rules takes no DIR");
        struct hw_buf out;
        hw_buf_init(&out, NULL, 0);
        sum_rules_list(&rules, &out);
        int status = out.oom ? HW_EXIT_FAIL : put_output(&out, output, HW_EXIT_OK);
        hw_buf_free(&out);
        return hw_close_stdout(status);
    }
    if (columns) { /* what each column of a sweep row means */
        if (ndirs || any_file_opt || compare)
            hw_usage_error("--columns takes no DIR");
        struct hw_buf out;
        hw_buf_init(&out, NULL, 0);
        sum_report_columns(&c.units, &out);
        int status = out.oom ? HW_EXIT_FAIL : put_output(&out, output, HW_EXIT_OK);
        hw_buf_free(&out);
        return hw_close_stdout(status);
    }
    if (c.compare_all && !compare)
        hw_usage_error("--all goes with --compare");
    if ((plain || refresh != 1.0) && !live)
        hw_usage_error("--plain and --refresh go with --live");
    if (live) {
        if (!ndirs || any_file_opt || compare || c.html || c.write || fmt_given || output ||
            one_job)
            hw_usage_error("--live takes run or job directories and no other output option");
        return sum_live_main(argv + optind, ndirs, refresh, plain, &c.units, &rules);
    }
    if (compare)
        return run_compare(&c, argv + optind, ndirs, any_file_opt, fmt_given, output);
    if (!ndirs && !any_file_opt)
        hw_usage_error("no run directory given");
    size_t njobdirs = 0;
    for (size_t i = 0; !one_job && i < ndirs; i++)
        njobdirs += sum_job_is_dir(argv[optind + (int)i]);
    if (njobdirs && njobdirs < ndirs)
        hw_usage_error("some DIRs are job directories (no run files, a node's run directory "
                       "inside), some are runs: summarize them apart, or give nodes with --job");
    if (ndirs > 1 && any_file_opt)
        hw_usage_error("file options (--gpu-csv ...) go with at most one DIR");
    if (c.write && !ndirs)
        hw_usage_error("--write needs a DIR");
    if (c.html && (c.fmt == SUM_FMT_PYTYCHE || c.fmt == SUM_FMT_PYTYCHE_FIELDS))
        hw_usage_error("--html goes with the default summary, not --format pytyche");
    if (c.html && !ndirs && !any_file_opt)
        hw_usage_error("--html needs a DIR");
    if (c.cfg.tracked_gpus && c.fmt != SUM_FMT_GPU_TRACKER)
        hw_usage_error("--tracked-gpus goes with --format gpu-tracker");
    /* --html alone writes just the page; --format or -o ask for the usual output too. */
    c.print = !c.html || fmt_given || output;
    if (c.write && !fmt_given && !output)
        c.print = false; /* -w alone: the summary.json files are the output */
    if (!fmt_given && ndirs <= 1 && isatty(STDOUT_FILENO))
        c.fmt = SUM_FMT_TEXT; /* a person at a terminal; JSON when piped */
    if (c.cfg.have_tz && c.cfg.tz.kind == RD_TZ_NAMED) {
        /* named zones are resolved by mktime(3): set TZ once, before any thread starts */
        setenv("TZ", c.cfg.tz.name, 1);
        tzset();
    }
    if (one_job || njobdirs)
        return run_jobs(&c, argv + optind, ndirs, one_job, any_file_opt, fmt_given, output, jobs);

    c.njobs = ndirs ? ndirs : 1;
    c.stream = c.njobs == 1 && c.print && c.fmt == SUM_FMT_JSON && !output && !c.write && !c.html;
    c.jobs = calloc(c.njobs, sizeof *c.jobs);
    if (!c.jobs)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    for (size_t i = 0; i < ndirs; i++)
        c.jobs[i].dir = argv[optind + (int)i];

    sum_jobs_run(&c, jobs < c.njobs ? (size_t)jobs : c.njobs);

    int status = HW_EXIT_OK;
    if (c.html && sum_jobs_html(&c) != HW_EXIT_OK)
        status = HW_EXIT_FAIL;
    struct hw_buf all;
    hw_buf_init(&all, NULL, 0);
    if (sum_jobs_collect(&c, &all) != HW_EXIT_OK)
        status = HW_EXIT_FAIL;
    free(c.jobs);
    if (c.print) /* else --html alone: the page is the output */
        status = put_output(&all, output, status);
    else if (all.oom)
        hw_die(HW_EXIT_FAIL, ENOMEM, "summarize");
    hw_buf_free(&all);
    return hw_close_stdout(status);
}
