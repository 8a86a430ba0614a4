/* The one-time questions to nvidia-smi before a run: is there one and does it answer
 * (--version, -L), do the selected ids name GPUs (-i), which --query-gpu fields does this driver
 * take (a rejected one is dropped and the query asked again), which GPUs have GPM metrics.
 * Each question runs nvidia-smi once with a timeout (mon_probe); nothing here prints or logs:
 * the answers and the reasons go back to run.c, which logs them. */
#ifndef HWMON_SMIPROBE_H
#define HWMON_SMIPROBE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "gpusel.h"
#include "gpusrc.h"

/* The questions delay the GPUs' sampling (and the command's start with --gpus), so a wedged
 * driver gets little time: one timeout and GPU monitoring is off. */
#define MON_PROBE_TIMEOUT_S 5.0
#define MON_SMI_MAX_FALLBACKS 16


struct mon_smi {
    /* in */
    char *const *envp;             /* nvidia-smi's environment (TZ=UTC) */
    struct mon_gpusel *gsel;       /* -i (out: MIG ids mapped, the unmappable left out) */
    char fields[512];              /* the --query-gpu fields wanted; out: those the driver takes */
    /* out */
    char path[PATH_MAX];      /* where nvidia-smi was found */
    char driver_version[128]; /* "" when --version did not say */
    char gpus_json[4096];     /* -L as [{"index", "name", "uuid"}, ...] */
    char gpu_sel_json[512];   /* the selected GPUs' indexes as -i resolved them, or "" */
    struct mon_gpu_fallback fb[MON_SMI_MAX_FALLBACKS]; /* fields the driver rejected */
    int n_fb;
    char gpm_why[PATH_MAX + 64]; /* why GPM is off */
    char gpm_missing[512];       /* JSON array of the GPUs without GPM (or their count), or "" */
    char health[1024];           /* the hw_health.csv fields the driver lists, or "" */
    char health_why[128];        /* why there are none */
};

/* Find nvidia-smi (smi: a name or a path) and ask it the start questions. Returns 0 (GPU
 * data can be recorded), -1 (it cannot: why says why, out holds nvidia-smi's output) or -2
 * (--gpus names no GPU here: an error for the whole run, why says so). A selection from the
 * environment is narrowed to the ids that name a GPU (gsel->unmapped lists the others); when
 * none does, -1. */
int mon_smi_probe(struct mon_smi *p, const char *smi, char *why, size_t why_cap, char *out,
                  size_t cap);

/* Which GPUs have GPM (after mon_smi_probe succeeded). Returns 0 when at least one has it
 * (gpm_missing lists the others), else -1 with gpm_why set; out keeps dmon's output. */
int mon_smi_probe_gpm(struct mon_smi *p, char *out, size_t cap);

/* Which of hw_health_fields (hwrun/rundir.h) this driver lists in --help-query-gpu (after
 * mon_smi_probe succeeded): their names, as asked for, into p->health, comma-separated. Returns
 * 0 when there is at least one, else -1 with health_why set. */
int mon_smi_probe_health(struct mon_smi *p);

/* ---- the parsers, on output already read (tests feed them captures) ---- */

/* The fields of hw_health.csv that a --help-query-gpu text lists (each "name" quoted on a
 * line of its own, or as `"name" or "alias"`), comma-separated into list; the reasons field
 * under its old name when only that is there. Returns how many. */
int mon_smi_health_fields(const char *help, char *list, size_t cap);

/* The driver version of `nvidia-smi --version` output ("DRIVER version", else "KMD version").
 * false when neither is there. */
bool mon_smi_driver_version(const char *out, char *val, size_t cap);
/* The "GPU 0: NAME (UUID: GPU-...)" lines of -L as a JSON array ("[]" when it does not fit). */
void mon_smi_parse_gpu_list(const char *out, char *json, size_t cap);
/* The field named by a `Field "x" is not a valid field to query.` message: true with *name,
 * *len set. */
bool mon_smi_rejected_field(const char *out, const char **name, size_t *len);
/* Remove field name[0..nl) from the comma-separated list. true if it was there. */
bool mon_smi_drop_field(char *list, const char *name, size_t nl);
/* `dmon --gpm-metrics` output: how many GPUs report the probe column; the others' indexes go
 * into missing as a JSON array (their count when the array does not fit, "" when none). -1
 * when there is no such column at all. */
int mon_smi_parse_gpm(const char *out, char *missing, size_t mcap);

#endif
