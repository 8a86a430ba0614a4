/* The runlog command's logic, in a library the tests link: KEY=VALUE typing and `time`. */
#ifndef RUNLOG_CLI_H
#define RUNLOG_CLI_H

#include <stddef.h>

#include "runlog.h"

/* Turn "KEY=VALUE" into a field: a JSON number (integer in int64 -> RL_T_INT, otherwise a
 * finite double -> RL_T_DOUBLE), true, false or null keep their type; anything else is a
 * string. The field borrows arg's memory (arg is modified: '=' becomes NUL).
 * Returns 0 or -EINVAL (no '=', or an empty key). */
int rl_cli_parse_kv(char *arg, rl_field_t *out);

/* `runlog begin` prints a token that `runlog end` takes back: the span's id, its start on
 * CLOCK_MONOTONIC (one clock for every process of the host) and its name in hex (any bytes
 * survive the shell): "ID/SEC.NSEC/HEXNAME". */
#define RL_CLI_TOKEN_MAX 4096
/* Write span's token into buf (NUL-terminated). Returns its length, or -ENAMETOOLONG. */
int rl_cli_token_format(const rl_span_t *span, char *buf, size_t cap);
/* Read a token back into span; span->name points into name (cap bytes). Returns 0 or -EINVAL. */
int rl_cli_token_parse(const char *tok, rl_span_t *span, char *name, size_t cap);

/* The result of running a command under `runlog time`. */
struct rl_cli_run {
    double seconds; /* wall time on CLOCK_MONOTONIC */
    int status;     /* exit status; 128+N if killed by signal N; 126/127 if it could not run */
    int signal;     /* the signal that killed it, or 0 */
    int spawn_err;  /* errno when it could not be started, else 0 */
};

/* Run argv (searched in PATH, no shell) and wait for it. While it runs, SIGTERM and SIGHUP sent
 * to us are forwarded to it, and SIGINT/SIGQUIT are ignored by us (the terminal sends them to
 * the whole process group, so the command gets them once), as system(3) does. Returns 0 (see
 * r->status) or -errno when waiting failed. */
int rl_cli_run_command(char *const argv[], struct rl_cli_run *r);

#endif
