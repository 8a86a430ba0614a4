/* Timestamps: formatting ours (UTC, milliseconds) and parsing ours and nvidia-smi's.
 * Parsing does its own calendar arithmetic, so it never depends on the TZ of the reader. */
#include "hwrun/parse.h"
#include "hwrun/timeutil.h"

#include <stdio.h>
#include <string.h>

size_t hw_iso_utc(char *buf, const struct timespec *t)
{
    /* The date and time up to the second change once a second: format them once per thread and
     * second, then only the milliseconds (a log line costs about as much as its write(2)). */
    static _Thread_local time_t cached_sec = -1;
    static _Thread_local char cached[20]; /* "YYYY-MM-DDTHH:MM:SS" */
    if (t->tv_sec != cached_sec) {
        struct tm tm;
        time_t s = t->tv_sec;
        if (!gmtime_r(&s, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
            return 0; /* no four-digit year */
        /* by hand: a summary's phases each have seconds of their own, and snprintf was a tenth
         * of its time */
        int f[6] = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                    tm.tm_sec};
        char *o = cached;
        for (int k = 0; k < 6; k++) {
            if (k == 0) {
                *o++ = (char)('0' + f[0] / 1000);
                *o++ = (char)('0' + f[0] / 100 % 10);
            }
            *o++ = (char)('0' + f[k] / 10 % 10);
            *o++ = (char)('0' + f[k] % 10);
            if (k < 5)
                *o++ = "--T::"[k];
        }
        cached_sec = t->tv_sec;
    }
    long ms = t->tv_nsec / 1000000L;
    memcpy(buf, cached, 19);
    buf[19] = '.';
    buf[20] = (char)('0' + ms / 100);
    buf[21] = (char)('0' + ms / 10 % 10);
    buf[22] = (char)('0' + ms % 10);
    memcpy(buf + 23, "+00:00", 7); /* with the NUL */
    return 29;
}

size_t hw_iso_utc_now(char *buf)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return hw_iso_utc(buf, &t);
}

double hw_mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double hw_real_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void hw_ts_add_ns(struct timespec *t, int64_t ns)
{
    int64_t total = (int64_t)t->tv_nsec + ns % 1000000000LL;
    t->tv_sec += (time_t)(ns / 1000000000LL);
    if (total >= 1000000000LL) {
        total -= 1000000000LL;
        t->tv_sec++;
    } else if (total < 0) {
        total += 1000000000LL;
        t->tv_sec--;
    }
    t->tv_nsec = (long)total;
}

int64_t hw_ts_diff_ns(const struct timespec *a, const struct timespec *b)
{
    return (int64_t)(a->tv_sec - b->tv_sec) * 1000000000LL + (a->tv_nsec - b->tv_nsec);
}

long hw_days_from_civil(long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

/* Read exactly w digits at s[*i]. */
static bool digits(const char *s, size_t n, size_t *i, int w, long *out)
{
    long v = 0;
    for (int k = 0; k < w; k++, (*i)++) {
        if (*i >= n || s[*i] < '0' || s[*i] > '9')
            return false;
        v = v * 10 + (s[*i] - '0');
    }
    *out = v;
    return true;
}

static bool expect(const char *s, size_t n, size_t *i, char c)
{
    if (*i >= n || s[*i] != c)
        return false;
    (*i)++;
    return true;
}

/* "YYYY<ds>MM<ds>DD<sep>HH:MM:SS[.f+]" into seconds since the epoch, taken as UTC. */
static bool parse_date_time(const char *s, size_t n, size_t *i, char ds, bool t_or_space,
                            double *out)
{
    long y, mo, d, h, mi, se;
    if (!digits(s, n, i, 4, &y) || !expect(s, n, i, ds) || !digits(s, n, i, 2, &mo) ||
        !expect(s, n, i, ds) || !digits(s, n, i, 2, &d))
        return false;
    if (*i >= n || !(s[*i] == ' ' || (t_or_space && (s[*i] == 'T' || s[*i] == 't'))))
        return false;
    (*i)++;
    if (!digits(s, n, i, 2, &h) || !expect(s, n, i, ':') || !digits(s, n, i, 2, &mi) ||
        !expect(s, n, i, ':') || !digits(s, n, i, 2, &se))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return false;
    double frac = 0;
    if (*i < n && (s[*i] == '.' || s[*i] == ',')) {
        size_t start = *i;
        (*i)++;
        while (*i < n && s[*i] >= '0' && s[*i] <= '9')
            (*i)++;
        if (*i == start + 1 || !hw_parse_fraction(s + start, *i - start, &frac))
            return false;
    }
    *out = (double)(hw_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400L + h * 3600 +
                    mi * 60 + se) +
           frac;
    return true;
}

bool hw_parse_iso(const char *s, size_t n, double *out)
{
    size_t i = 0;
    double t;
    if (!parse_date_time(s, n, &i, '-', true, &t))
        return false;
    if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i < n && (s[i] == '+' || s[i] == '-')) {
        int sign = s[i] == '-' ? -1 : 1;
        i++;
        long oh, om = 0;
        if (!digits(s, n, &i, 2, &oh))
            return false;
        if (i < n && s[i] == ':')
            i++;
        if (i < n && !digits(s, n, &i, 2, &om))
            return false;
        if (oh > 23 || om > 59)
            return false;
        t -= sign * (double)(oh * 3600 + om * 60);
    }
    if (i != n)
        return false;
    *out = t;
    return true;
}
