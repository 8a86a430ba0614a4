/* The wrapped job's whole process tree, for stopping it: hwmon is the job's child subreaper, so
 * a worker whose parent exited stays hwmon's descendant instead of escaping to PID 1, and a
 * SIGTERM to hwmon (timeout, SLURM, Kubernetes) reaches every process of the job, not only the
 * main one. */
#ifndef MON_JOBTREE_H
#define MON_JOBTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MON_JOB_MAX 4096 /* processes found per scan; more are not signalled */

/* Make the calling process the subreaper of its descendants (PR_SET_CHILD_SUBREAPER).
 * Returns 0 or -errno. */
int mon_job_subreaper(void);

/* The live descendants of `self` (read from proc_root/[pid]/stat), except zombies and those
 * whose process group or pid is one of `skip_pgids` (hwmon's own nvidia-smi children, which
 * lead groups of their own; its group witness, mon_witness). Writes up to cap pids
 * to out; returns how many there are (may be > cap) or -errno when proc_root cannot be read. */
long mon_job_scan(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                  pid_t *out, size_t cap);

/* Send sig to every live descendant (as mon_job_scan finds them). Writes the pids signalled to
 * out (up to cap) and returns how many were signalled, or -errno. */
long mon_job_signal(const char *proc_root, pid_t self, const pid_t *skip_pgids, size_t n_skip,
                    int sig, pid_t *out, size_t cap);

/* As mon_job_signal, for the processes of the job in process group pgid (in_group) or outside
 * it (!in_group); pgid 0: all of them. A stop or a signal is passed on to the main process's
 * group, as a terminal, tini -g or timeout(1) give it: a launcher that put its workers in
 * sessions of their own (torchrun) signals them itself, once. */
long mon_job_signal_group(const char *proc_root, pid_t self, const pid_t *skip_pgids,
                          size_t n_skip, int sig, pid_t pgid, bool in_group, pid_t *out,
                          size_t cap);

/* A group witness: a child of hwmon in hwmon's process group that blocks every signal and takes
 * none until told, so that a signal sent to the whole group (killpg: `scancel --full` on a batch
 * script that exec'd hwmon, `kill -- -PGID`, a launcher signalling its group) stays pending on
 * it, where a signal sent to hwmon alone never is. The kernel signals a group's members newest
 * first, so the witness has it before hwmon does: when hwmon reads the signal, the witness's
 * pending set says which it was, without a race. The job, in the same group, then has it too,
 * and hwmon does not send it again (issue 51). It ends when hwmon does, however hwmon ends (its
 * pipe's EOF), and then removes hwmon's node lock file (nodelock.h) if nobody holds it: an hwmon
 * killed with SIGKILL leaves nothing in /dev/shm. */
struct mon_witness {
    pid_t pid; /* 0: none */
    int to, from; /* pipes: the signal to take, its acknowledgement */
};

/* Start it (from the main thread, before any other thread: it is forked); lock_path: hwmon's
 * node lock file, or NULL. 0 or -errno. */
int mon_witness_start(struct mon_witness *w, const char *lock_path);
/* Whether sig reached hwmon's whole process group (it is pending on the witness); takes it off
 * the witness either way, and waits (up to 1 s) until it has. false without a witness. */
bool mon_witness_group_signal(struct mon_witness *w, const char *proc_root, int sig);
/* End it and reap it (when reap: hwmon's wait for its children may have reaped it). */
void mon_witness_stop(struct mon_witness *w, bool reap);

#endif
