/* Starting nvidia-smi: finding it, its environment, fork+execve in its own process group with
 * a parent-death signal, and running it once for an answer (mon_probe). children.h restarts
 * and stops the long-running ones; smiprobe.h asks the one-time questions.
 *
 * Everything here runs on the main thread (prctl(2): the parent-death signal fires when the
 * thread that forked exits). Functions return 0 or a negative errno and never print. */
#ifndef HWMON_LAUNCH_H
#define HWMON_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Find name in $PATH (or take it as is when it holds a '/'). Copies an executable's path into
 * out. Returns 0, -ENOENT, -EACCES or -ENAMETOOLONG. */
int mon_find_exec(const char *name, char *out, size_t cap);

/* environ with TZ=UTC (replacing any TZ) and the extra "K=V" entries (may be NULL). The array
 * and the strings it adds are malloc'd: free with mon_env_free(). NULL when out of memory. */
char **mon_env_with(const char *const extra[]);
void mon_env_free(char **env);

/* Fork and execve path in a new process group with PR_SET_PDEATHSIG(SIGKILL), stdin from
 * /dev/null, stdout to out_fd and stderr to err_fd (-1: /dev/null for either). Waits until the
 * exec succeeded or failed (errno over an O_CLOEXEC pipe). Returns 0 with *pid set, or -errno
 * (the child is reaped then). Call from the main thread only. */
int mon_spawn(const char *path, char *const argv[], char *const envp[], int out_fd, int err_fd,
              pid_t *pid);

/* Run path with argv once, capture stdout and stderr together into out (NUL-terminated,
 * truncated to cap-1), killing it after timeout_s. *status gets the exit status (128+N for a
 * signal, 124 on timeout, like timeout(1)). Returns 0 or -errno (could not start). */
/* While a job runs beside the probes (run.c), a stop signal must not wait for them: with abort
 * non-NULL, a probe checks every 50 ms whether one of these (blocked) signals is pending, and if
 * so kills its child and returns -EINTR. NULL: probes run to their end or timeout. */
void mon_probe_abort_on(const sigset_t *abort);
int mon_probe(const char *path, char *const argv[], char *const envp[], double timeout_s, char *out,
              size_t cap, int *status);

#endif
