/* Clocks and timestamps.
 *
 * Wall time is only for labels (ISO 8601 UTC with milliseconds, as pytyche writes); every
 * interval and deadline uses CLOCK_MONOTONIC. */
#ifndef HWRUN_TIMEUTIL_H
#define HWRUN_TIMEUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define HW_ISO_LEN 30 /* "2026-11-21T15:27:49.697+00:00" + NUL */

/* Format t as "YYYY-MM-DDTHH:MM:SS.mmm+00:00" (milliseconds truncated, as Python's
 * isoformat(timespec="milliseconds")). buf must hold HW_ISO_LEN bytes. Returns the length. */
size_t hw_iso_utc(char *buf, const struct timespec *t);
/* The same for the current CLOCK_REALTIME. */
size_t hw_iso_utc_now(char *buf);

/* Parse an ISO 8601 timestamp ("2026-11-21T15:27:49.697+00:00", "...Z", other offsets, a space
 * instead of T, any number of fraction digits) into seconds since the epoch. false if malformed. */
bool hw_parse_iso(const char *s, size_t n, double *out);

/* (nvidia-smi's "YYYY/MM/DD HH:MM:SS[.mmm]" is parsed in one place: the run directory library's
 * rd_parse_smi_ts, runlog/rundir/smi_time.c.) */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil); m 1-12. */
long hw_days_from_civil(long y, unsigned m, unsigned d);

double hw_mono_now(void); /* CLOCK_MONOTONIC in seconds */
double hw_real_now(void); /* CLOCK_REALTIME in seconds */

/* A step of the wall clock: the offset of CLOCK_REALTIME from CLOCK_MONOTONIC moved by more than
 * HW_CLOCK_STEP_S since the last look. NTP's slewing moves it by at most half a millisecond a
 * second; settimeofday, a clock set by hand or a VM resumed from suspend move it at once.
 * Returns the step in seconds (0: none) and takes the new offset as the reference. */
#define HW_CLOCK_STEP_S 0.5
struct hw_clock_watch {
    bool set;
    double offset;
};
static inline double hw_clock_step(struct hw_clock_watch *w, double real, double mono)
{
    double off = real - mono, step = w->set ? off - w->offset : 0;
    w->set = true;
    w->offset = off;
    return step > HW_CLOCK_STEP_S || step < -HW_CLOCK_STEP_S ? step : 0;
}

void hw_ts_add_ns(struct timespec *t, int64_t ns);
/* a - b in nanoseconds */
int64_t hw_ts_diff_ns(const struct timespec *a, const struct timespec *b);

#endif
