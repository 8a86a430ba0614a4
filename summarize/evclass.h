/* Which events are errors: one rule for the summary's events.errors, the page's and the
 * timeline's markers and the live view. Apart from the events' sink (sink_events.c) so that the timeline and the live
 * view need not include the summary (its includes point one way: summary.h -> timeline.h). */
#ifndef HWRUN_SUM_EVCLASS_H
#define HWRUN_SUM_EVCLASS_H

#include <stdbool.h>

struct json_object;

/* Is an event error-like (listed in events.errors, marked on the page)? By its name, unless its
 * data (may be NULL) says "severity": "info". */
bool sum_event_error_like(const char *name, struct json_object *data);

#endif
