/* What run.jsonl says about the other files (struct rd_run_info: the start event's zone, GPU
 * query fields, interval and PID namespace; the stop event; child restarts), and the getters of
 * events' data. */
#include "readers.h"

#include <json-c/json.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


void rd_run_info_init(struct rd_run_info *info)
{
    memset(info, 0, sizeof *info);
    info->t_start = NAN;
    info->start_setup_s = NAN;
    info->t_stop = NAN;
    info->stop_duration_s = NAN;
    info->main_peak_kernel_mib = NAN;
    info->samples_lost = -1;
    info->cpu_s = NAN;
    info->interval_s = NAN;
    info->cpus_allowed = NAN;
    info->cpus = info->gpus = NAN;
    info->descendants = -1;
    info->t_sampler = info->sampler_probe_s = NAN;
}

/* The GPUs and their source, as a sampler's start event or a takeover's gpu_sampler event says
 * them: the machine's GPUs (count, each one's model and vendor), the source, the query fields. */
static void take_gpu_facts(struct rd_run_info *info, struct json_object *data)
{
    struct json_object *gpus;
    info->gpus = json_object_object_get_ex(data, HW_START_GPUS, &gpus) &&
                         json_object_is_type(gpus, json_type_array)
                     ? (double)json_object_array_length(gpus)
                     : NAN;
    const char *src = rd_json_str(data, HW_START_GPU_SOURCE);
    snprintf(info->gpu_source, sizeof info->gpu_source, "%s", src ? src : "");
    memset(info->gpu_name, 0, sizeof info->gpu_name);
    memset(info->gpu_vendor, 0, sizeof info->gpu_vendor);
    for (size_t i = 0; isfinite(info->gpus) && i < json_object_array_length(gpus); i++) {
        struct json_object *g = json_object_array_get_idx(gpus, i);
        long idx;
        const char *name = rd_json_str(g, "name"), *vendor = rd_json_str(g, "vendor");
        if (!rd_json_int(g, "index", &idx) || idx < 0 || idx >= RD_MAX_GPUS || !name)
            continue;
        snprintf(info->gpu_name[idx], sizeof info->gpu_name[idx], "%s", name);
        snprintf(info->gpu_vendor[idx], sizeof info->gpu_vendor[idx], "%s",
                 vendor ? vendor : "nvidia");
    }
    const char *f = rd_json_str(data, HW_START_GPU_FIELDS);
    if (f && strlen(f) < sizeof info->gpu_fields) {
        snprintf(info->gpu_fields, sizeof info->gpu_fields, "%s", f);
        info->have_fields = true;
    }
}

/* A takeover (HW_EV_GPU_SAMPLER): from its time on this run sampled the node's GPUs. */
static void take_sampler(struct rd_run_info *info, const struct rd_event *e)
{
    const char *role = rd_json_str(e->data, HW_SAMPLER_ROLE);
    if (!role || strcmp(role, HW_SAMPLER_PRIMARY) != 0)
        return;
    info->t_sampler = e->t;
    double pr = rd_json_num(e->data, HW_SAMPLER_PROBE);
    info->sampler_probe_s = isfinite(pr) && pr >= 0 ? pr : NAN;
    snprintf(info->sampler_role, sizeof info->sampler_role, "%s", role);
    const char *sdir = rd_json_str(e->data, HW_SAMPLER_DIR);
    snprintf(info->sampler_dir, sizeof info->sampler_dir, "%s", sdir ? sdir : "");
    info->sampler_pid = 0;
    rd_json_int(e->data, HW_SAMPLER_PID, &info->sampler_pid);
    struct json_object *prev = NULL;
    json_object_object_get_ex(e->data, HW_SAMPLER_PREVIOUS, &prev);
    const char *pdir = prev ? rd_json_str(prev, HW_SAMPLER_DIR) : NULL;
    snprintf(info->sampler_prev_dir, sizeof info->sampler_prev_dir, "%s", pdir ? pdir : "");
    info->sampler_prev_pid = 0;
    if (prev)
        rd_json_int(prev, HW_SAMPLER_PID, &info->sampler_prev_pid);
    take_gpu_facts(info, e->data);
}


/* The start (start true) or stop event's file systems into info->fs, matched by mount point. */
static void take_fs(struct rd_run_info *info, struct json_object *data, bool start)
{
    struct json_object *arr;
    if (!json_object_object_get_ex(data, HW_EV_FILESYSTEMS, &arr) ||
        !json_object_is_type(arr, json_type_array))
        return;
    size_t n = json_object_array_length(arr);
    for (size_t i = 0; i < n; i++) {
        struct json_object *o = json_object_array_get_idx(arr, i);
        const char *mount = rd_json_str(o, HW_FS_MOUNT), *type = rd_json_str(o, HW_FS_TYPE);
        if (!mount)
            continue;
        struct rd_fs *fs = NULL;
        for (int k = 0; k < info->nfs && !fs; k++)
            if (!strcmp(info->fs[k].mount, mount))
                fs = &info->fs[k];
        if (!fs) {
            if (info->nfs == RD_MAX_FS)
                continue;
            fs = &info->fs[info->nfs++];
            snprintf(fs->mount, sizeof fs->mount, "%s", mount);
            snprintf(fs->type, sizeof fs->type, "%s", type ? type : "");
            fs->total_mib = fs->used_start_mib = fs->free_start_mib = NAN;
            fs->used_end_mib = fs->free_end_mib = NAN;
        }
        fs->total_mib = rd_json_num(o, HW_FS_TOTAL);
        if (start) {
            fs->used_start_mib = rd_json_num(o, HW_FS_USED);
            fs->free_start_mib = rd_json_num(o, HW_FS_FREE);
        } else {
            fs->used_end_mib = rd_json_num(o, HW_FS_USED);
            fs->free_end_mib = rd_json_num(o, HW_FS_FREE);
        }
    }
}

void rd_run_info_event(struct rd_run_info *info, const struct rd_event *e)
{
    if (!strcmp(e->name, HW_EV_START)) {
        info->have_start = true;
        info->starts++;
        info->t_start = e->t;
        double su = rd_json_num(e->data, HW_START_SETUP);
        info->start_setup_s = isfinite(su) && su >= 0 ? su : NAN;
        double iv = rd_json_num(e->data, HW_START_INTERVAL);
        if (isfinite(iv) && iv > 0)
            info->interval_s = iv;
        const char *tz = rd_json_str(e->data, HW_START_SMI_TZ);
        if (tz) {
            snprintf(info->smi_tz_raw, sizeof info->smi_tz_raw, "%s", tz);
            info->have_tz = rd_tz_parse(tz, false, &info->tz) == 0;
        }
        const char *mode = rd_json_str(e->data, HW_START_MODE);
        snprintf(info->mode, sizeof info->mode, "%s", mode ? mode : "");
        const char *host = rd_json_str(e->data, HW_START_HOST);
        snprintf(info->host, sizeof info->host, "%s", host ? host : "");
        double cpus = rd_json_num(e->data, HW_START_CPUS);
        info->cpus = cpus >= 1 ? cpus : NAN;
        take_gpu_facts(info, e->data);
        info->hwmon_pid = 0;
        if (!rd_json_int(e->data, HW_START_HWMON_PID, &info->hwmon_pid) || info->hwmon_pid < 1)
            info->hwmon_pid = 0;
        info->t_sampler = info->sampler_probe_s = NAN; /* a second start: its run's own */
        info->sampler_prev_pid = 0;
        info->sampler_prev_dir[0] = '\0';
        info->nfs = 0; /* a second start event: its run's file systems */
        take_fs(info, e->data, true);
        struct json_object *gs = NULL;
        json_object_object_get_ex(e->data, HW_START_GPU_SAMPLER, &gs);
        const char *role = gs ? rd_json_str(gs, HW_SAMPLER_ROLE) : NULL;
        const char *sdir = gs ? rd_json_str(gs, HW_SAMPLER_DIR) : NULL;
        snprintf(info->sampler_role, sizeof info->sampler_role, "%s", role ? role : "");
        snprintf(info->sampler_dir, sizeof info->sampler_dir, "%s", sdir ? sdir : "");
        info->sampler_pid = 0;
        if (gs)
            rd_json_int(gs, HW_SAMPLER_PID, &info->sampler_pid);
        struct json_object *ctx = NULL;
        json_object_object_get_ex(e->data, HW_START_CONTEXT, &ctx);
        for (int k = 0; k < HW_CTX_COUNT; k++) {
            const char *v = ctx ? rd_json_str(ctx, hw_ctx_defs[k].key) : NULL;
            snprintf(info->ctx[k], sizeof info->ctx[k], "%s", v ? v : "");
        }
        double ca = rd_json_num(e->data, HW_CPUS_ALLOWED_KEY);
        if (isfinite(ca) && ca >= 1)
            info->cpus_allowed = ca;
        info->pid = 0;
        if (!rd_json_int(e->data, HW_START_PID, &info->pid) || info->pid < 1)
            info->pid = 0;
        struct json_object *desc;
        info->descendants = json_object_object_get_ex(e->data, HW_START_DESCENDANTS, &desc) &&
                                    json_object_is_type(desc, json_type_boolean)
                                ? json_object_get_boolean(desc) != 0
                                : -1;
        const char *ns = rd_json_str(e->data, HW_PIDNS_KEY);
        if (ns)
            info->pid_ns = !strcmp(ns, HW_PIDNS_INIT) ? 1 : 2;
    } else if (!strcmp(e->name, HW_EV_GPU_SAMPLER)) {
        take_sampler(info, e);
    } else if (!strcmp(e->name, HW_EV_GPU_FIELDS_FALLBACK)) {
        const char *f = rd_json_str(e->data, HW_FALLBACK_FIELDS);
        if (f && strlen(f) < sizeof info->gpu_fields) {
            snprintf(info->gpu_fields, sizeof info->gpu_fields, "%s", f);
            info->have_fields = true;
        }
    } else if (!strcmp(e->name, HW_EV_STOP)) {
        info->t_stop = e->t;
        take_fs(info, e->data, false);
        double d = rd_json_num(e->data, HW_STOP_DURATION);
        if (isfinite(d) && d >= 0)
            info->stop_duration_s = d;
        double k = rd_json_num(e->data, HW_STOP_MAIN_PEAK_RSS_KIB);
        if (k > 0 && k < 1e15)
            info->main_peak_kernel_mib = k / 1024.0;
        struct json_object *lost, *v;
        if (e->data && json_object_object_get_ex(e->data, HW_STOP_SAMPLES_LOST, &lost) &&
            json_object_is_type(lost, json_type_object)) {
            /* a count per run file, by its stem (HW_RUN_FILES); a key no file has is not ours */
            int64_t n = info->samples_lost > 0 ? info->samples_lost : 0;
            for (int f = 0; f < HW_FILE_COUNT; f++) {
                if (!json_object_object_get_ex(lost, hw_run_files[f].stem, &v))
                    continue;
                int64_t x = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
                if (x > 0 && x < INT64_MAX - n && x < INT64_MAX - info->lost_rows[f]) {
                    n += x;
                    info->lost_rows[f] += x;
                }
            }
            info->samples_lost = n;
        }
        double c = rd_json_num(e->data, HW_STOP_CPU_S);
        if (c >= 0 && c < 1e12)
            info->cpu_s = c;
    } else if (!strcmp(e->name, HW_EV_CHILD_RESTART)) {
        info->child_restarts++;
    }
}
