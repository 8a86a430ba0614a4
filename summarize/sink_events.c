/* run.jsonl's events (sink.h): the start event's run information, stop, stop requests, clock
 * steps, rotations, faults, params and metrics; what an event says of the run's outcome. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"
#include "oom.h"

void sum_on_event(void *ctx, const struct rd_event *e)
{
    struct sum_run *run = ctx;
    see_time(run, e->t);
    rd_run_info_event(&run->info, e);
    if (run->tl)
        sum_tl_event(run->tl, e);
    if (!strcmp(e->name, HW_FWMEM)) /* logged on demand (log_framework_memory) */
        sum_fwmem_take(&run->fw, e->data);
    if (!strcmp(e->name, HW_EV_CLOCK_STEP)) {
        double st = rd_json_num(e->data, HW_CLOCK_STEP_KEY);
        run->clock_steps++;
        run->clock_step_s += isfinite(st) ? st : 0;
    }
    for (int k = HW_GPU_FAULT_NONE + 1; k < HW_GPU_FAULT_COUNT; k++)
        if (!strcmp(e->name, hw_gpu_faults[k].event) &&
            run->nfault_ev < (int)(sizeof run->fault_ev / sizeof run->fault_ev[0])) {
            const char *gpu = rd_json_str(e->data, HW_FAULT_GPU);
            char *to = run->fault_ev[run->nfault_ev].gpu;
            size_t n = 0;
            /* a UUID or a bus id; anything else is not printed as it came (the warnings reach
             * terminals) */
            for (; gpu && gpu[n] && n + 1 < sizeof run->fault_ev[0].gpu; n++)
                to[n] = (gpu[n] >= '0' && gpu[n] <= '9') || ((gpu[n] | 32) >= 'a' && (gpu[n] | 32) <= 'z') ||
                                strchr("-:.", gpu[n])
                            ? gpu[n]
                            : '?';
            to[n] = '\0';
            run->fault_ev[run->nfault_ev++].fault = k;
        }
    if (!strcmp(e->name, HW_EV_LOG_ROTATED)) {
        const char *how = rd_json_str(e->data, HW_LOG_HOW);
        if (how && (!strcmp(how, HW_LOG_HOW_DELETED) || !strcmp(how, HW_LOG_HOW_TRUNCATED))) {
            run->log_lost++;
            snprintf(run->log_lost_how, sizeof run->log_lost_how, "%s", how);
        }
    }
    /* a phase left open by an earlier run in this log; not at the first start: the command
     * hwmon has just started may log its first begin a moment before hwmon logs its start */
    if (!strcmp(e->name, HW_EV_START) && run->info.starts > 1)
        sum_close_open(run, e->t);
    sum_outcome_event(&run->outcome, e);
    if (!strcmp(e->name, HW_EV_STOP)) /* hwmon stops after the job: what is open was cut */
        sum_close_open(run, e->t);
    const char *pe = run->cfg->params_event ? run->cfg->params_event : HW_EV_CONFIG;
    if (!strcmp(e->name, pe) && e->data && json_object_is_type(e->data, json_type_object)) {
        run->param_gen++; /* one event: a key it gives twice is a collision */
        sum_params_from(run, "", e->data, 0, false);
    }
    if ((!strcmp(e->name, HW_EV_METRIC) || !strcmp(e->name, HW_EV_METRICS)) && e->data &&
        json_object_is_type(e->data, json_type_object)) {
        run->param_gen++;
        sum_params_from(run, "", e->data, 0, true);
    }
    size_t i;
    for (i = 0; i < run->netype; i++)
        if (!strncmp(run->etype[i].name, e->name, sizeof run->etype[i].name - 1))
            break;
    if (i < run->netype) {
        run->etype[i].n++;
    } else if (run->netype < SUM_MAX_EVENT_TYPES) {
        snprintf(run->etype[i].name, sizeof run->etype[i].name, "%s", e->name);
        run->etype[i].n = 1;
        run->netype++;
    } else {
        run->etype_other++;
    }
    if (!strcmp(e->name, HW_EV_START) && e->data) {
        struct json_object *cg;
        if (json_object_object_get_ex(e->data, HW_START_CGROUP, &cg) && cg) {
            free(run->cgroup_json);
            run->cgroup_json = strdup(json_object_to_json_string_ext(
                cg, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
            if (!run->cgroup_json)
                run->oom = true;
            /* where the kernel's memory peak stood at start (cpu_metrics.csv's precision),
             * or 0 when hwmon reset it: only what rises above it is this run's */
            struct json_object *v;
            run->kpeak_prev = NAN;
            if (json_object_object_get_ex(cg, "memory_peak_since_start", &v) &&
                json_object_get_boolean(v))
                run->kpeak_prev = 0;
            else if (json_object_object_get_ex(cg, "memory_peak_mib", &v) &&
                     (json_object_is_type(v, json_type_double) ||
                      json_object_is_type(v, json_type_int)))
                run->kpeak_prev = round(json_object_get_double(v) * 10) / 10;
        }
    }
    if (sum_event_error_like(e->name, e->data)) {
        run->err_total++;
        if (run->nerr < SUM_MAX_ERRORS) {
            struct sum_error_event *x = &run->err[run->nerr++];
            x->t = e->t;
            snprintf(x->name, sizeof x->name, "%s", e->name);
            x->line = e->line;
            x->data = NULL;
            if (e->data) {
                const char *s = json_object_to_json_string_ext(
                    e->data, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
                size_t n = strlen(s);
                if (n <= 2000 && !(x->data = strdup(s)))
                    run->oom = true;
            }
        }
    }
}
