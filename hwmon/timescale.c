/* The test-only time scale (timescale.h). Nothing is printed here: main.c says a refusal. */
#include "timescale.h"

#include <stdlib.h>

#include "hwrun/parse.h"

static double scale = 1.0; /* written once by mon_time_scale_load, before any thread */

bool mon_time_scale_parse(const char *s, double *out)
{
    double v;
    if (!s || hw_parse_double(s, MON_TIME_SCALE_MIN, 1.0, &v) < 0)
        return false;
    *out = v;
    return true;
}

const char *mon_time_scale_load(void)
{
    const char *s = getenv(MON_TIME_SCALE_ENV);
    double v = 1.0;
    if (s && !mon_time_scale_parse(s, &v)) {
        scale = 1.0;
        return s;
    }
    scale = v;
    return NULL;
}

double mon_time_scale(void)
{
    return scale;
}

double mon_scaled(double seconds)
{
    return seconds * scale;
}
