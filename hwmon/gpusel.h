/* Which GPUs hwmon records: --gpus LIST, else CUDA_VISIBLE_DEVICES (the GPUs the job was given),
 * else all. The choice becomes `-i LIST` on every nvidia-smi command line. */
#ifndef HWMON_GPUSEL_H
#define HWMON_GPUSEL_H

#include <stdbool.h>

struct mon_gpusel {
    const char *ids;    /* comma-separated indexes or UUIDs for -i; NULL: every GPU */
    const char *source; /* "option", "CUDA_VISIBLE_DEVICES" or "default" */
    bool none;          /* CUDA_VISIBLE_DEVICES set but empty: the job sees no GPU */
    const char *asked;  /* the list as given (ids may be what it resolved to) */
    char mapped[512];   /* storage for ids once resolved (smiprobe.c: MIG devices, narrowing) */
    char unmapped[512]; /* the ids that name no GPU here, comma-separated ("" when none) */
};

/* A list from the environment that names no GPU (or part of one) is not the user's mistake:
 * the job runs, and the GPUs that could not be mapped are unmeasured. --gpus is typed by the
 * user: a mistake there stops hwmon before the job starts. */
static inline bool mon_gpusel_from_env(const struct mon_gpusel *s)
{
    return s->source && s->source[0] == 'C';
}


/* opt: --gpus (NULL if not given; "all" for every GPU); cuda: getenv("CUDA_VISIBLE_DEVICES").
 * Returns 0, or -EINVAL for a list with an empty item (",0", "0,,1"): for CUDA_VISIBLE_DEVICES
 * the selection is then none (out->unmapped holds the list), for --gpus a usage error. */
int mon_gpusel_resolve(const char *opt, const char *cuda, struct mon_gpusel *out);

/* Append "-i", ids to argv at *n when GPUs are selected (argv needs two more slots). */
void mon_gpusel_args(const struct mon_gpusel *s, char **argv, int *n);

#endif
