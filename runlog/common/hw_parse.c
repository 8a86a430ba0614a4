/* Strict number parsing. strtod/strtoull respect LC_NUMERIC, and no hwrun program changes its
 * locale from "C", so '.' is always the decimal point. */
#include "hwrun/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int hw_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || is_blank(*s))
        return -EINVAL;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0')
        return -EINVAL;
    if (errno == ERANGE || v < min || v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

int hw_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    if (!s || !*s || is_blank(*s))
        return -EINVAL;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0')
        return -EINVAL;
    if (errno == ERANGE || v < min || v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

/* Only [+-]digits[.digits][e[+-]digits]: strtod alone would also take "inf", "nan", hex. */
static bool plain_decimal(const char *s, size_t n)
{
    size_t i = 0, nd = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, nd++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, nd++;
    }
    if (nd == 0)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t ne = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, ne++;
        if (ne == 0)
            return false;
    }
    return i == n;
}

int hw_parse_double(const char *s, double min, double max, double *out)
{
    if (!s || !plain_decimal(s, strlen(s)))
        return -EINVAL;
    errno = 0;
    double v = strtod(s, NULL);
    if (!isfinite(v) || v < min || v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

bool hw_parse_num_cell(const char *s, size_t n, double *out)
{
    while (n && is_blank(*s))
        s++, n--;
    while (n && is_blank(s[n - 1]))
        n--;
    /* A unit follows the number after one space: "631.95 W", "100 %", "81559 MiB". */
    const char *sp = memchr(s, ' ', n);
    if (sp)
        n = (size_t)(sp - s);
    if (n == 0 || n > 64 || !plain_decimal(s, n))
        return false;
    char tmp[72];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    double v = strtod(tmp, NULL);
    if (!isfinite(v))
        return false;
    *out = v;
    return true;
}
