/* One GPU sampler per node, job and GPU set. When several ranks of a job on one node each start
 * hwmon (srun with --ntasks-per-node=4 and the whole node's GPUs to every task), the first one
 * samples the GPUs; the others still wrap, time and sample their own process tree and log, run
 * no nvidia-smi, and record which hwmon samples the GPUs: no GPU is counted twice. Ranks that
 * were given GPUs of their own (a CUDA_VISIBLE_DEVICES per task) each sample theirs.
 *
 * The rule: a lock (a POSIX record lock: the kernel drops it when hwmon ends, however it ends,
 * and names its holder to the others) on
 * /dev/shm/hwrun-gpu-<uid>-<key>.lock, key = the job (as sacct names it, mon_context_job, else
 * the pod) and the GPU selection; without a job id there is no lock (separate runs on one node
 * sample what they select, as before). /dev/shm is node-local and a pod's own. The holder
 * removes the file when it leaves (the next hwmon of the job makes a new one), and a take
 * sweeps the user's lock files that nobody holds (an hwmon killed with SIGKILL leaves its own).
 *
 * Taken over: a secondary tries the lock again once a sample interval (mon_nodelock_try, one
 * non-blocking fcntl on its main loop) until its job ends; when the sampler's hwmon ended first
 * (its lock is gone with it), the first secondary to win it becomes the node's sampler, so that
 * the node's GPUs are sampled as long as a rank of the job lives there. */
#ifndef MON_NODELOCK_H
#define MON_NODELOCK_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct mon_nodelock {
    int fd;               /* -1: no lock taken (no job id, or /dev/shm unusable) */
    bool secondary;       /* another hwmon samples these GPUs */
    pid_t primary_pid;    /* that hwmon, as the kernel names the lock's holder (0: unknown) */
    char primary_dir[PATH_MAX]; /* its run directory, as it wrote it in the lock file ("") */
    pid_t prev_pid;       /* after a takeover: the sampler before us (0: unknown) */
    char prev_dir[PATH_MAX]; /* ... and its run directory ("" unknown) */
    char path[PATH_MAX];
};

/* Take the node's GPU sampler lock for job and gpus in lock_dir (normally "/dev/shm"). job ""
 * or NULL: no lock (l->fd -1, not secondary). As the first, records our pid and run_dir in the
 * lock file. Returns 0 (l says which role) or -errno when the lock file cannot be used (then
 * the run samples its GPUs, as without a job). */
int mon_nodelock_take(struct mon_nodelock *l, const char *lock_dir, const char *job,
                      const char *gpus, const char *run_dir);
/* A secondary's try to become the node's sampler (never blocks): 1 when it won the lock on the
 * file that is at the path now (then l is a primary's, with our pid and run_dir in the file and
 * the sampler before us in prev_pid and prev_dir), 0 when another hwmon holds it (primary_pid and
 * primary_dir then name that one, the sampler may have changed hands), -errno when the lock file
 * cannot be used. Not a secondary: 0. */
int mon_nodelock_try(struct mon_nodelock *l, const char *run_dir);
void mon_nodelock_release(struct mon_nodelock *l);

#endif
