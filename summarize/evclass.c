/* Event classification: see evclass.h. */
#include "evclass.h"

#include <json-c/json.h>
#include <string.h>

#include "hwrun/rundir.h"

bool sum_event_error_like(const char *name, struct json_object *data)
{
    struct json_object *sev;
    if (data && json_object_object_get_ex(data, HW_EV_SEVERITY, &sev) &&
        json_object_is_type(sev, json_type_string) &&
        !strcmp(json_object_get_string(sev), HW_EV_SEVERITY_INFO))
        return false;
    static const char *const words[] = {"error", "fail", "exit", "hung", "kill", "unavailable",
                                        "oom", "crash", "abort", "exception", "restart",
                                        "fallback", "timeout", "signal"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasestr(name, words[i]))
            return true;
    return false;
}
