/* The wrapped job's whole process tree, for stopping it: hwmon is the job's child subreaper, so
 * a worker whose parent exited stays hwmon's descendant instead of escaping to PID 1, and a
 * SIGTERM to hwmon (timeout, SLURM, Kubernetes) reaches every process of the job, not only the
 * main one. */
#ifndef MON_JOBTREE_H
#define MON_JOBTREE_H

#include <stddef.h>
#include <sys/types.h>

#define MON_JOB_MAX 4096 /* processes found per scan; more are not signalled */

/* Make the calling process the subreaper of its descendants (PR_SET_CHILD_SUBREAPER).
 * Returns 0 or -errno. */
int mon_job_subreaper(void);

/* The live descendants of `self` (read from proc_root/[pid]/stat), except those in the process
 * groups of `skip_pgids` (hwmon's own nvidia-smi children) and zombies. Writes up to cap pids
 * to out; returns how many there are (may be > cap) or -errno when proc_root cannot be read. */
long mon_job_scan(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                  pid_t *out, size_t cap);

/* Send sig to every live descendant (as mon_job_scan finds them). Writes the pids signalled to
 * out (up to cap) and returns how many were signalled, or -errno. */
long mon_job_signal(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                    int sig, pid_t *out, size_t cap);

#endif
