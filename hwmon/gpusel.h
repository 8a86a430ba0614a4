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
    char mapped[512];   /* storage for ids after mon_gpusel_map */
    char unmapped[512]; /* the ids that name no GPU here, comma-separated ("" when none) */
};

/* A list from the environment that names no GPU (or part of one) is not the user's mistake:
 * the job runs, and the GPUs that could not be mapped are unmeasured. --gpus is typed by the
 * user: a mistake there stops hwmon before the job starts. */
static inline bool mon_gpusel_from_env(const struct mon_gpusel *s)
{
    return s->source && s->source[0] == 'C';
}

/* Map MIG device UUIDs of s->ids to their parent GPU's index, from `nvidia-smi -L` output (a
 * MIG device is listed under its GPU: "  MIG 1g.18gb Device 0: (UUID: MIG-...)"; the older
 * form MIG-GPU-<uuid>/<gi>/<ci> names its GPU's UUID). Other ids are kept; repeats dropped.
 * An unknown MIG UUID is kept too (nvidia-smi -i then says it names nothing). */
void mon_gpusel_map(struct mon_gpusel *s, const char *list_out);

/* opt: --gpus (NULL if not given; "all" for every GPU); cuda: getenv("CUDA_VISIBLE_DEVICES").
 * Returns 0, or -EINVAL for a list with an empty item (",0", "0,,1"): for CUDA_VISIBLE_DEVICES
 * the selection is then none (out->unmapped holds the list), for --gpus a usage error. */
int mon_gpusel_resolve(const char *opt, const char *cuda, struct mon_gpusel *out);

/* Append "-i", ids to argv at *n when GPUs are selected (argv needs two more slots). */
void mon_gpusel_args(const struct mon_gpusel *s, char **argv, int *n);

#endif
