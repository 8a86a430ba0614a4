/* runlog: append phase and event entries to a JSON Lines run log from the shell. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hwrun/io.h"
#include "hwrun/msg.h"
#include "hwrun/parse.h"
#include "hwrun/rundir.h"
#include "runlog.h"

/* runlog's exit statuses: the one table, printed by --help and listed in runlog(1). */
static const struct hw_exit_doc exit_codes[] = {
    {HW_EXIT_OK, "the line was written"},
    {HW_EXIT_FAIL, "the line could not be written"},
    {HW_EXIT_USAGE, "usage error"},
    {HW_EXIT_PASSED, "with `time`: COMMAND's status (126 cannot run, 127 not found,\n"
                     "128+N killed by signal N; also when the line could not be written)"},
};

static void usage(void)
{
    printf("Usage: runlog [-f FILE] [--fsync] phase NAME SECONDS [KEY=VALUE ...]\n"
           "       runlog [-f FILE] [--fsync] event TYPE [KEY=VALUE ...] [--data JSON]\n"
           "       runlog [-f FILE] [--fsync] time NAME [KEY=VALUE ...] -- COMMAND [ARG ...]\n"
           "       runlog [-f FILE] [--fsync] begin NAME [KEY=VALUE ...]\n"
           "       runlog [-f FILE] [--fsync] end TOKEN [KEY=VALUE ...]\n"
           "\n"
           "Append one JSON line to a run log (pytyche's RunLog format):\n"
           "  phase   a completed phase that took SECONDS; KEY=VALUEs are top-level keys\n"
           "  event   a point in time; KEY=VALUEs and --data JSON (an object) go into \"data\"\n"
           "  time    run COMMAND (no shell), then log phase NAME with its wall time and\n"
           "          exit_status; exit with COMMAND's status. The command always runs: a log\n"
           "          that cannot be written is a warning, not a failure. Its begin is\n"
           "          logged too (a \"phase_begin\" entry), so a run killed meanwhile says so\n"
           "  begin   log that phase NAME begins and print a TOKEN for `end`:\n"
           "            t=$(runlog begin preprocess); ...; runlog end \"$t\" files=12\n"
           "  end     log the phase begun with TOKEN as completed, with its seconds\n"
           "\n"
           "VALUE keeps its type when it is a JSON number, true, false or null; otherwise it\n"
           "is a string.\n"
           "\n"
           "Options:\n"
           "  -f, --file FILE   the log to append to (default: $RUNLOG_FILE)\n"
           "      --fsync       fdatasync after the line is written\n"
           "  -h, --help        show this help and exit\n"
           "  -V, --version     show the version and exit\n"
           "\n");
    hw_print_exit_codes(stdout, exit_codes, sizeof exit_codes / sizeof exit_codes[0]);
}

/* Collect KEY=VALUE arguments (and --data JSON for events) into fields. */
static size_t collect_fields(char **args, int n, bool allow_data, rl_field_t *fields)
{
    size_t nf = 0;
    for (int i = 0; i < n; i++) {
        if (allow_data && strcmp(args[i], "--data") == 0) {
            if (i + 1 >= n)
                hw_usage_error("--data needs a JSON object");
            fields[nf++] = RL_MERGE(args[++i]);
            continue;
        }
        if (rl_cli_parse_kv(args[i], &fields[nf]) < 0)
            hw_usage_error("expected KEY=VALUE, got '%s'", args[i]);
        nf++;
    }
    return nf;
}

/* Check the entry before the file is touched: bad --data JSON or a reserved or repeated key is
 * a command-line mistake (exit 2), not a write failure. */
static void validate(long rc, bool with_data, const char *reserved)
{
    if (rc == -EINVAL && with_data)
        hw_usage_error("invalid entry: --data must be a JSON object (integers within 64 bits), "
                       "and keys may not repeat nor be ts, type, name, seconds");
    if (rc == -EINVAL)
        hw_usage_error("invalid entry: keys may not repeat nor be %s", reserved);
    if (rc < 0)
        hw_die(HW_EXIT_FAIL, (int)-rc, "format entry");
}

#define SPAN_KEYS "ts, type, name, seconds, " RL_PHASE_ID

static int append_error(int rc, const char *path)
{
    hw_warn(-rc, "write %s", path);
    return HW_EXIT_FAIL;
}

/* `runlog time NAME [KEY=VALUE ...] -- COMMAND`: the command always runs, whatever happens to
 * the log, and runlog exits with the command's status. A script instrumented with `runlog time`
 * must keep working outside hwmon (no RUNLOG_FILE), on a full disk or with a typo in an extra:
 * each of those is a warning on stderr and an unlogged phase, never a job that did not run.
 * Only a command line that names no command is a usage error (exit 2). */
static int run_timed(const char *path, unsigned flags, char **args, int nargs)
{
    int dd = 0;
    while (dd < nargs && strcmp(args[dd], "--") != 0)
        dd++;
    if (nargs < 1 || dd == 0)
        hw_usage_error("time needs NAME");
    if (dd >= nargs - 1)
        hw_usage_error("time needs -- COMMAND");
    char *const *command = args + dd + 1;

    /* What would stop the phase from being logged, found before the command runs. */
    rl_span_t probe;
    rl_span_start(&probe, args[0]);
    rl_field_t *fields = calloc((size_t)dd + 2, sizeof *fields);
    bool logging = fields != NULL;
    if (!fields)
        hw_warn(ENOMEM, "not logging phase '%s'", args[0]);
    size_t nf = 0;
    long frc;
    for (int i = 1; logging && i < dd; i++) {
        if (rl_cli_parse_kv(args[i], &fields[nf]) < 0) {
            hw_warn(0, "not logging phase '%s': expected KEY=VALUE, got '%s'", args[0], args[i]);
            logging = false;
        }
        nf++;
    }
    if (logging) {
        /* exit_status and signal are ours: the check keeps the caller from using them. */
        fields[nf] = RL_INT(HW_PHASE_EXIT_STATUS, 0);
        fields[nf + 1] = RL_INT(HW_PHASE_SIGNAL, 0);
        if ((frc = rl_format_phase_end(NULL, 0, &probe, 0, fields, nf + 2)) == -EINVAL) {
            hw_warn(0, "not logging phase '%s': keys may not repeat nor be ts, type, name, "
                       "seconds, phase_id, exit_status, signal", args[0]);
            logging = false;
        } else if (frc < 0) {
            hw_warn((int)-frc, "not logging phase '%s'", args[0]);
            logging = false;
        }
    }
    if (logging && (!path || !*path)) {
        hw_warn(0, "not logging phase '%s': no log file (give -f FILE or set RUNLOG_FILE)",
                args[0]);
        logging = false;
    }
    rl_log_t *log = NULL;
    int rc;
    if (logging && (rc = rl_open(&log, path, flags)) < 0) {
        char why[96];
        hw_warn(0, "not logging phase '%s': open %s: %s", args[0], path,
                hw_open_reason(AT_FDCWD, path, -rc, why, sizeof why));
        logging = false;
    }

    /* The begin entry: a run killed while the command runs still says it was in this phase.
     * Its extras go on the phase entry only (exit_status and signal are known there). */
    rl_span_t span;
    int begin_rc = logging ? rl_phase_begin(log, &span, args[0], NULL, 0) : 0;
    struct rl_cli_run run;
    if ((rc = rl_cli_run_command(command, &run)) < 0)
        hw_die(HW_EXIT_FAIL, -rc, "wait for %s", command[0]);
    if (run.spawn_err)
        hw_warn(run.spawn_err, "%s", command[0]);
    if (logging) {
        fields[nf++] = RL_INT(HW_PHASE_EXIT_STATUS, run.status);
        if (run.signal)
            fields[nf++] = RL_INT(HW_PHASE_SIGNAL, run.signal);
        if ((rc = rl_phase_end(log, &span, fields, nf, NULL)) < 0) /* one warning for both */
            hw_warn(-rc, "phase '%s' not logged: write %s", args[0], path);
        else if (begin_rc < 0)
            hw_warn(-begin_rc, "begin of phase '%s' not logged: write %s", args[0], path);
        if ((rc = rl_close(log)) < 0)
            hw_warn(-rc, "close %s", path);
    }
    free(fields);
    return hw_close_stdout(run.status);
}

/* rl_open failed: say why in words ("is a FIFO"), not as an errno's text. */
_Noreturn static void die_open(int rc, const char *path)
{
    char why[96];
    hw_die(HW_EXIT_FAIL, 0, "open %s: %s", path,
           hw_open_reason(AT_FDCWD, path, -rc, why, sizeof why));
}

int main(int argc, char **argv)
{
    hw_set_progname("runlog");
    static const struct option opts[] = {
        {"file", required_argument, NULL, 'f'},
        {"fsync", no_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {0},
    };
    const char *path = NULL;
    unsigned flags = 0;
    int c;
    opterr = 0; /* our own message: getopt's would start with the full argv[0] */
    while ((c = getopt_long(argc, argv, "+:f:hV", opts, NULL)) != -1) {
        switch (c) {
        case 'f': path = optarg; break;
        case 'S': flags |= RL_FSYNC_LINE; break;
        case 'h': usage(); return hw_close_stdout(HW_EXIT_OK);
        case 'V': printf("runlog (hwrun) %s\n", HWRUN_VERSION); return hw_close_stdout(0);
        case ':': hw_usage_error("option '%s' needs a value", argv[optind - 1]);
        default: hw_usage_error("unrecognized option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        hw_usage_error("missing command: phase, event, time, begin or end");
    const char *cmd = argv[optind++];
    char **args = argv + optind;
    int nargs = argc - optind;
    if (strcmp(cmd, "phase") && strcmp(cmd, "event") && strcmp(cmd, "time") &&
        strcmp(cmd, "begin") && strcmp(cmd, "end"))
        hw_usage_error("unknown command '%s'", cmd);
    if (!path || !*path)
        path = getenv("RUNLOG_FILE");
    if (strcmp(cmd, "time") == 0)
        return run_timed(path, flags, args, nargs);
    if (!path || !*path)
        hw_usage_error("no log file: give -f FILE or set RUNLOG_FILE");

    rl_field_t *fields = calloc((size_t)nargs + 3, sizeof *fields);
    if (!fields)
        hw_die(HW_EXIT_FAIL, ENOMEM, "out of memory");
    int status = HW_EXIT_OK;
    rl_log_t *log = NULL;
    int rc;

    if (strcmp(cmd, "phase") == 0) {
        if (nargs < 2)
            hw_usage_error("phase needs NAME and SECONDS");
        double secs;
        if (hw_parse_double(args[1], 0, RL_MAX_SECONDS, &secs) < 0)
            hw_usage_error("SECONDS must be a number from 0 to %g, got '%s'", RL_MAX_SECONDS,
                           args[1]);
        size_t nf = collect_fields(args + 2, nargs - 2, false, fields);
        validate(rl_format_phase(NULL, 0, args[0], secs, fields, nf), false,
                 "ts, type, name, seconds");
        if ((rc = rl_open(&log, path, flags)) < 0)
            die_open(rc, path);
        if ((rc = rl_phase(log, args[0], secs, fields, nf)) < 0)
            status = append_error(rc, path);
    } else if (strcmp(cmd, "begin") == 0) {
        if (nargs < 1)
            hw_usage_error("begin needs NAME");
        size_t nf = collect_fields(args + 1, nargs - 1, false, fields);
        rl_span_t span;
        rl_span_start(&span, args[0]);
        char tok[RL_CLI_TOKEN_MAX];
        if (rl_cli_token_format(&span, tok, sizeof tok - 1) < 0) /* and its newline */
            hw_usage_error("NAME is too long for a token");
        validate(rl_format_phase_begin(NULL, 0, &span, fields, nf), false, SPAN_KEYS);
        if ((rc = rl_open(&log, path, flags)) < 0)
            die_open(rc, path);
        /* The token first, written through at once: a token that cannot be printed (a full
         * disk, a closed pipe) must not leave a begin line whose phase can never end. */
        size_t tl = strlen(tok);
        tok[tl++] = '\n';
        if ((rc = hw_write_all(STDOUT_FILENO, tok, tl, NULL)) < 0) {
            hw_warn(-rc, "write the token to standard output (no begin logged)");
            status = HW_EXIT_FAIL;
        } else if ((rc = rl_phase_begin(log, &span, args[0], fields, nf)) < 0) {
            status = append_error(rc, path); /* `runlog end` with the token still logs it */
        }
    } else if (strcmp(cmd, "end") == 0) {
        if (nargs < 1)
            hw_usage_error("end needs TOKEN (printed by runlog begin)");
        rl_span_t span;
        char name[RL_CLI_TOKEN_MAX];
        if (rl_cli_token_parse(args[0], &span, name, sizeof name) < 0)
            hw_usage_error("'%s' is not a token printed by runlog begin", args[0]);
        size_t nf = collect_fields(args + 1, nargs - 1, false, fields);
        validate(rl_format_phase_end(NULL, 0, &span, 0, fields, nf), false, SPAN_KEYS);
        if ((rc = rl_open(&log, path, flags)) < 0)
            die_open(rc, path);
        if ((rc = rl_phase_end(log, &span, fields, nf, NULL)) < 0)
            status = append_error(rc, path);
    } else {
        if (nargs < 1)
            hw_usage_error("event needs TYPE");
        size_t nf = collect_fields(args + 1, nargs - 1, true, fields);
        bool with_data = false;
        for (size_t i = 0; i < nf; i++)
            with_data |= fields[i].type == RL_T_MERGE;
        validate(rl_format_event(NULL, 0, args[0], fields, nf), with_data,
                 "ts, type, name, seconds");
        if ((rc = rl_open(&log, path, flags)) < 0)
            die_open(rc, path);
        if ((rc = rl_event(log, args[0], fields, nf)) < 0)
            status = append_error(rc, path);
    }
    if ((rc = rl_close(log)) < 0 && status == HW_EXIT_OK) {
        hw_warn(-rc, "close %s", path);
        status = HW_EXIT_FAIL;
    }
    free(fields);
    return hw_close_stdout(status);
}
