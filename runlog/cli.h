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
