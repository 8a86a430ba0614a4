/* Test-only: a scale for hwmon's own fixed durations, so that a test of a hang or a grace waits
 * a fraction of the real seconds and still checks the same decision (DESIGN.md, "How tests
 * scale time"). HWRUN_TEST_TIME_SCALE=S, a number from 0.01 to 1, multiplies the children's hang
 * threshold, SIGKILL grace, restart backoff and "healthy" span, the main loop's poll and pause
 * spans, the default --kill-grace and the least --prom-interval accepted. Unset (the product's
 * normal state) the scale is 1 and every duration is the documented one. A value that is not
 * such a number is refused (main.c warns on stderr), and the scale stays 1. It never touches a
 * duration the user gives (-i, -d, --kill-grace, --prom-interval) nor a grace a scheduler gives
 * (SLURM, Kubernetes, systemd own those). Not in --help nor the man page: it is no user's
 * setting. */
#ifndef HWMON_TIMESCALE_H
#define HWMON_TIMESCALE_H

#include <stdbool.h>

#define MON_TIME_SCALE_ENV "HWRUN_TEST_TIME_SCALE"
#define MON_TIME_SCALE_MIN 0.01

/* s as a scale: a number from MON_TIME_SCALE_MIN to 1 (false, *out untouched, otherwise). */
bool mon_time_scale_parse(const char *s, double *out);
/* Set the scale from the environment (main.c, before any thread starts). Returns the variable's
 * value when it was refused (the scale stays 1; the caller says so), else NULL. */
const char *mon_time_scale_load(void);
/* The scale: 1 until mon_time_scale_load() set another. */
double mon_time_scale(void);
/* One of hwmon's own fixed durations, scaled. */
double mon_scaled(double seconds);

#endif
