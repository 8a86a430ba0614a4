/* The test-only time scale (timescale.h). */
#include "timescale.h"

#include <stdlib.h>

#include "hwrun/msg.h"
#include "hwrun/parse.h"

bool mon_time_scale_parse(const char *s, double *out)
{
    double v;
    if (!s || hw_parse_double(s, MON_TIME_SCALE_MIN, 1.0, &v) < 0)
        return false;
    *out = v;
    return true;
}

double mon_time_scale(void)
{
    static double scale = 0; /* 0: not read yet */
    if (scale > 0)
        return scale;
    const char *s = getenv(MON_TIME_SCALE_ENV);
    double v = 1.0;
    if (s && !mon_time_scale_parse(s, &v)) {
        char shown[33]; /* its first bytes, printable ones only: it reaches a terminal */
        size_t n = 0;
        for (; s[n] && n < sizeof shown - 1; n++)
            shown[n] = s[n] > ' ' && s[n] < 127 ? s[n] : '?';
        shown[n] = '\0';
        hw_warn(0, "%s=\"%s%s\" ignored (test-only: a number from %g to 1); time is not scaled",
                MON_TIME_SCALE_ENV, shown, s[n] ? "..." : "", MON_TIME_SCALE_MIN);
        v = 1.0;
    }
    scale = v;
    return scale;
}
