/* Time in the run's files: the zone of nvidia-smi's timestamps (UTC, a fixed offset or a named
 * zone) and the two timestamp parsers the per-kind readers use: nvidia-smi's local
 * "YYYY/MM/DD HH:MM:SS.fff" (hour base cached) and our ISO 8601. */
#include "reader_int.h"

#include <errno.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "hwrun/parse.h"
#include "hwrun/timeutil.h"

/* ---- time zones ------------------------------------------------------------------------- */

static bool parse_offset(const char *s, long *out)
{
    if (*s != '+' && *s != '-')
        return false;
    int sign = *s == '-' ? -1 : 1;
    s++;
    long h = 0, m = 0;
    if (!(s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9'))
        return false;
    h = (s[0] - '0') * 10 + (s[1] - '0');
    s += 2;
    if (*s == ':')
        s++;
    if (*s) {
        if (!(s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9') || s[2])
            return false;
        m = (s[0] - '0') * 10 + (s[1] - '0');
    }
    if (h > 18 || m > 59)
        return false;
    *out = sign * (h * 3600 + m * 60);
    return true;
}

int rd_tz_parse(const char *s, bool allow_named, struct rd_tz *out)
{
    if (!s || !*s || strlen(s) >= sizeof out->name)
        return -EINVAL;
    struct rd_tz tz = {0};
    snprintf(tz.name, sizeof tz.name, "%s", s);
    if (!strcasecmp(s, "UTC") || !strcasecmp(s, "Z") || !strcasecmp(s, "GMT") ||
        !strcmp(s, "Etc/UTC") || !strcmp(s, "UTC0")) {
        tz.kind = RD_TZ_UTC;
        *out = tz;
        return 0;
    }
    const char *o = s;
    if (!strncasecmp(o, "UTC", 3) || !strncasecmp(o, "GMT", 3))
        o += 3;
    long off;
    if (parse_offset(o, &off)) {
        tz.kind = off ? RD_TZ_FIXED : RD_TZ_UTC;
        tz.offset_s = off;
        *out = tz;
        return 0;
    }
    if (!allow_named)
        return -EINVAL;
    /* A zone name: letters, digits, '/', '_', '-', '+'; no "..", must exist in the tz database
     * (glibc silently takes an unknown name as UTC, which would be a wrong guess). */
    for (const char *p = s; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '/' || *p == '_' || *p == '-' || *p == '+'))
            return -EINVAL;
    if (strstr(s, "..") || s[0] == '/')
        return -EINVAL;
    char path[160];
    snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", s);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -EINVAL;
    tz.kind = RD_TZ_NAMED;
    *out = tz;
    return 0;
}

double rd_tz_to_utc(const struct rd_tz *tz, int year, int mon, int day, int hour, int min,
                     double sec)
{
    double utc = (double)(hw_days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400L +
                          hour * 3600L + min * 60L) +
                 sec;
    switch (tz->kind) {
    case RD_TZ_UTC:
        return utc;
    case RD_TZ_FIXED:
        return utc - (double)tz->offset_s;
    case RD_TZ_NAMED: {
        struct tm tm = {0};
        tm.tm_year = year - 1900;
        tm.tm_mon = mon - 1;
        tm.tm_mday = day;
        tm.tm_hour = hour;
        tm.tm_min = min;
        tm.tm_isdst = -1;
        time_t t = mktime(&tm);
        if (t == (time_t)-1)
            return utc;
        return (double)t + sec;
    }
    }
    return utc;
}

/* ---- timestamps ------------------------------------------------------------------------- */

bool rd_parse_smi_ts(struct rd_smi_clock *c, const struct rd_tz *tz, const char *s, size_t n,
                      double *out)
{
    /* "YYYY/MM/DD HH:MM:SS[.fff]": the hour's UTC base is cached, rows come seconds apart. */
    if (n < 19 || s[16] != ':' || (unsigned)(s[17] - '0') > 9 || (unsigned)(s[18] - '0') > 9)
        return false;
    if (n == c->last_n) { /* the same text as the last row's (n >= 19: two 16-byte halves) */
        if (!memcmp(s, c->last, 16) && !memcmp(s + n - 16, c->last + n - 16, 16)) {
            *out = c->last_out;
            return true;
        }
    }
#if defined(__SSE2__)
    /* the first 16 bytes at once: digits where the pattern has '9', the separators as given */
    const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
    const __m128i pat = _mm_loadu_si128((const __m128i *)(const void *)"9999/99/99 99:99");
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
    __m128i want_digit = _mm_cmpeq_epi8(pat, _mm_set1_epi8('9'));
    __m128i ok = _mm_or_si128(_mm_and_si128(want_digit, digit),
                              _mm_andnot_si128(want_digit, _mm_cmpeq_epi8(x, pat)));
    if (_mm_movemask_epi8(ok) != 0xffff)
        return false;
#else
    if (s[4] != '/' || s[7] != '/' || s[10] != ' ' || s[13] != ':')
        return false;
    static const int dpos[] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15};
    for (size_t k = 0; k < sizeof dpos / sizeof dpos[0]; k++)
        if (s[dpos[k]] < '0' || s[dpos[k]] > '9')
            return false;
#endif
    int mi = (s[14] - '0') * 10 + (s[15] - '0');
    int se = (s[17] - '0') * 10 + (s[18] - '0');
    if (mi > 59 || se > 60)
        return false;
    double frac = 0;
    if (n > 19 && !hw_parse_fraction(s + 19, n - 19, &frac))
        return false;
    if (!c->valid || memcmp(c->key, s, 13) != 0) {
        int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
        int mo = (s[5] - '0') * 10 + (s[6] - '0');
        int d = (s[8] - '0') * 10 + (s[9] - '0');
        int h = (s[11] - '0') * 10 + (s[12] - '0');
        if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23)
            return false;
        c->hour_base = rd_tz_to_utc(tz, y, mo, d, h, 0, 0);
        memcpy(c->key, s, 13);
        c->valid = true;
    }
    *out = c->hour_base + mi * 60 + se + frac;
    if (n <= sizeof c->last) {
        memcpy(c->last, s, n);
        c->last_n = n;
        c->last_out = *out;
    }
    return true;
}

bool rd_parse_any_ts(const char *s, size_t n, double *out)
{
    if (hw_parse_iso(s, n, out))
        return true;
    /* nvidia-smi's form, as UTC: the one smi time parser, without its cache */
    static const struct rd_tz utc = {.kind = RD_TZ_UTC};
    struct rd_smi_clock clock = {.valid = false};
    return rd_parse_smi_ts(&clock, &utc, s, n, out);
}

