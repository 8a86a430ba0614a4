/* Where a run runs, as the scheduler and the launcher say (include/hwrun/rundir.h's
 * hw_ctx_defs: SLURM, Kubernetes, torchrun/MPI, the host), and -o's placeholders made from it,
 * so that one command line in a batch script gives every node and rank a directory of its own. */
#ifndef MON_CONTEXT_H
#define MON_CONTEXT_H

#include <stddef.h>
#include <sys/types.h>

#include "hwrun/io.h"
#include "hwrun/rundir.h"
#include "hwrun/buf.h"

#define MON_CTX_VALUE 256

struct mon_context {
    char v[HW_CTX_COUNT][MON_CTX_VALUE]; /* "" = not set */
};

/* c from an environment block (NUL-separated "NAME=value" strings, n bytes: /proc/PID/environ
 * or one made from environ) and the node name. */
void mon_context_parse(struct mon_context *c, const char *env, size_t n, const char *host);
/* c from this process's environment. */
void mon_context_self(struct mon_context *c, const char *host);
/* c from <proc_root>/PID/environ (the process hwmon attaches to); -errno when hwmon may not read
 * it (another user's), c untouched. */
int mon_context_of_pid(struct mon_context *c, const char *proc_root, pid_t pid, const char *host);

/* The start event's "context" object: every key with a value. */
void mon_context_json(const struct mon_context *c, struct hw_buf *b);

/* The SLURM job as sacct names it: the array job's "ID_TASK", else the job id; "" outside
 * SLURM. buf (2 * MON_CTX_VALUE) may hold the result. */
const char *mon_context_job(const struct mon_context *c, char *buf, size_t cap);

/* -o with its placeholders replaced: {host}, {node} (SLURMD_NODENAME, else the host), {jobid}
 * (SLURM's array job "ID_TASK", else its job id), {stepid} (SLURM_STEP_ID: a batch script's
 * steps apart; "batch" in a SLURM job without a step: the batch script's), {nodeid}
 * (SLURM_NODEID), {rank} (the launcher's rank, else SLURM_PROCID), {localrank} (the launcher's
 * local rank, else SLURM_LOCALID), {localid} (SLURM_LOCALID, else the launcher's local rank),
 * {time} (the UTC start, 20261125T180102Z), {pid} (hwmon's). A value's '/' and bytes outside
 * [A-Za-z0-9._-] become '_'; one not set is "none" (*unset counts them). Returns 0, or -1 with
 * the reason in err (an unknown or unclosed placeholder, a result longer than cap). */
int mon_expand_output(const char *pattern, const struct mon_context *c, const char *time_utc,
                      pid_t pid, char *out, size_t cap, int *unset, char *err, size_t errlen);

#endif
