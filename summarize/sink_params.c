/* The run's params (a config event's data) and metrics (a metric event's, a phase's own numbers),
 * nested keys flattened (sink.h). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"
#include "oom.h"

static void param_set(struct sum_run *run, const char *key, struct json_object *v, bool metric)
{
    size_t i = 0;
    while (i < run->nparams &&
           (run->params[i].metric != metric || strcmp(run->params[i].key, key) != 0))
        i++;
    if (i == run->nparams) {
        if (run->nparams == run->params_cap && run->nparams < SUM_MAX_PARAMS) {
            size_t cap = run->params_cap ? run->params_cap * 2 : 32;
            struct sum_param *p = realloc(run->params, cap * sizeof *p);
            if (p) {
                run->params = p;
                run->params_cap = cap;
            } else {
                run->oom = true;
            }
        }
        char *k = run->nparams < run->params_cap ? strdup(key) : NULL;
        if (!k && run->nparams < run->params_cap)
            run->oom = true;
        if (!k) {
            run->params_dropped++;
            return;
        }
        run->params[run->nparams++] = (struct sum_param){k, NULL, metric, 0};
    } else if (run->params[i].gen == run->param_gen) {
        /* set already by this event: two of its keys flatten to one */
        if (!run->param_collisions++)
            snprintf(run->param_collision_key, sizeof run->param_collision_key, "%s%s",
                     metric ? "metric." : "param.", key);
    }
    run->params[i].gen = run->param_gen;
    json_object_put(run->params[i].v);
    run->params[i].v = json_object_get(v);
}

void sum_params_from(struct sum_run *run, const char *prefix, struct json_object *obj,
                        int depth, bool metric)
{
    json_object_object_foreach(obj, k, v)
    {
        char key[256];
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (v && json_object_is_type(v, json_type_object) && depth < 4)
            sum_params_from(run, key, v, depth + 1, metric);
        else
            param_set(run, key, v, metric);
    }
}

/* A phase entry's own numbers (loss=1.93) as the run's metrics (sum_param). */
void sum_metrics_from_phase(struct sum_run *run, struct json_object *obj)
{
    if (!obj || !json_object_is_type(obj, json_type_object))
        return;
    run->param_gen++;
    static const char *const not_metrics[] = {HW_RL_TS,       HW_RL_TYPE,   HW_RL_NAME,
                                              HW_RL_SECONDS,  HW_RL_PHASE_ID, HW_FWMEM,
                                              HW_PHASE_STEPS, "exit_status", "signal"};
    json_object_object_foreach(obj, k, v)
    {
        if (!v || !(json_object_is_type(v, json_type_int) ||
                    json_object_is_type(v, json_type_double)))
            continue;
        size_t i = 0;
        while (i < sizeof not_metrics / sizeof not_metrics[0] && strcmp(k, not_metrics[i]))
            i++;
        if (i == sizeof not_metrics / sizeof not_metrics[0])
            param_set(run, k, v, true);
    }
}
