/* Strict number parsing. strtod/strtoull respect LC_NUMERIC: no hwrun program changes its locale
 * from "C", but librunlog runs in the user's process, so strtod here always reads in "C"
 * (strtod_l), whatever setlocale the job called. */
#include "hwrun/parse.h"

#include "hwrun/decimal8_tab.h" /* decimal8.h's table is defined here */

#include <errno.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

const char *hw_scan_u64(const char *p, const char *end, uint64_t *out, bool *over)
{
    if (p >= end || *p < '0' || *p > '9')
        return NULL;
    uint64_t v = 0;
    bool sat = false;
    while (p < end && *p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            v = UINT64_MAX;
            sat = true;
        } else {
            v = v * 10 + d;
        }
        p++;
    }
    *out = v;
    if (over)
        *over = sat;
    return p;
}

const char *hw_scan_i64(const char *p, const char *end, int64_t *out, bool *over)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    uint64_t v;
    bool sat;
    p = hw_scan_u64(p, end, &v, &sat);
    if (!p)
        return NULL;
    if (v > INT64_MAX) {
        v = INT64_MAX;
        sat = true;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    if (over)
        *over = sat;
    return p;
}

int hw_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || is_blank(*s))
        return -EINVAL;
    const char *end = s + strlen(s);
    uint64_t v;
    bool over;
    if (hw_scan_u64(s, end, &v, &over) != end)
        return -EINVAL;
    if (over || v < min || v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

int hw_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    if (!s || !*s || is_blank(*s))
        return -EINVAL;
    const char *end = s + strlen(s);
    int64_t v;
    bool over;
    if (hw_scan_i64(s, end, &v, &over) != end)
        return -EINVAL;
    if (over || v < min || v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

/* ---- the one decimal parser: a character machine, and a fast path in front of it ------- */

enum { S_LEAD, S_SIGN, S_INT, S_FRAC, S_E, S_ESIGN, S_EXP, S_WORD, S_TRAIL, S_BAD };

void hw_dec_init(struct hw_dec *d, unsigned flags)
{
    d->flags = flags;
    d->state = S_LEAD;
    d->prev = 0;
    d->neg = d->eneg = d->sticky = false;
    d->nword = 0;
    d->nd = 0;
    d->nsig = 0;
    d->exp10 = 0;
    d->eval = 0;
}

static void mant_digit(struct hw_dec *d, unsigned v, bool frac)
{
    d->nd++;
    if (d->nsig == 0 && v == 0) { /* a leading zero */
        d->exp10 -= frac;
        return;
    }
    if (d->nsig < HW_DEC_KEEP) {
        d->dig[d->nsig++] = (char)('0' + v);
        d->exp10 -= frac;
    } else {
        d->sticky |= v != 0;
        d->exp10 += !frac;
    }
}

static bool is_py_blank(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* inf, infinity or nan, case folded: is w[0..n) a prefix of one (complete: a whole one)? */
static bool word_ok(const char *w, unsigned n, bool complete)
{
    static const char *const words[] = {"inf", "infinity", "nan"};
    for (int k = 0; k < 3; k++)
        if (strlen(words[k]) >= n && !memcmp(words[k], w, n) && (!complete || !words[k][n]))
            return true;
    return false;
}

/* Could the text end here (before trailing blanks)? */
static bool dec_complete(const struct hw_dec *d)
{
    switch (d->state) {
    case S_INT:
    case S_EXP:
    case S_TRAIL:
        return d->prev != '_';
    case S_FRAC:
        return d->nd > 0;
    case S_WORD:
        return word_ok(d->word, d->nword, true);
    default:
        return false;
    }
}

bool hw_dec_feed(struct hw_dec *d, unsigned char c)
{
    bool py = d->flags & HW_DEC_PY;
    unsigned char prev = d->prev;
    d->prev = c;
    if (d->state == S_BAD)
        return false;
    if (c >= '0' && c <= '9') {
        unsigned v = c - '0';
        switch (d->state) {
        case S_LEAD:
        case S_SIGN:
            d->state = S_INT; /* fall through */
        case S_INT:
            mant_digit(d, v, false);
            return true;
        case S_FRAC:
            mant_digit(d, v, true);
            return true;
        case S_E:
        case S_ESIGN:
            d->state = S_EXP; /* fall through */
        case S_EXP:
            if (d->eval < 100000000000000LL)
                d->eval = d->eval * 10 + v;
            return true;
        default:
            break;
        }
    } else if (prev == '_') {
        /* Python: "_" only before a digit */
    } else if (py && c == '_') {
        if ((d->state == S_INT || d->state == S_FRAC || d->state == S_EXP) && prev >= '0' &&
            prev <= '9')
            return true;
    } else if (py && is_py_blank(c)) {
        if (d->state == S_LEAD)
            return true;
        if (dec_complete(d)) {
            d->state = S_TRAIL;
            return true;
        }
    } else if (c == '.') {
        if (d->state <= S_INT) {
            d->state = S_FRAC;
            return true;
        }
    } else if (c == '+' || c == '-') {
        if (d->state == S_LEAD || d->state == S_E) {
            if (d->state == S_LEAD)
                d->neg = c == '-';
            else
                d->eneg = c == '-';
            d->state++;
            return true;
        }
    } else if ((c == 'e' || c == 'E') && (d->state == S_INT || d->state == S_FRAC) && d->nd) {
        d->state = S_E;
        return true;
    } else if (py && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) &&
               (d->state == S_LEAD || d->state == S_SIGN || d->state == S_WORD) &&
               d->nword < sizeof d->word) {
        d->word[d->nword++] = (char)(c | 0x20);
        d->state = S_WORD;
        if (word_ok(d->word, d->nword, false))
            return true;
    }
    d->state = S_BAD;
    return false;
}

bool hw_dec_end(struct hw_dec *d, double *out)
{
    if (!dec_complete(d))
        return false;
    if (d->state == S_WORD || (d->state == S_TRAIL && d->nword)) {
        double v = d->word[0] == 'n' ? NAN : INFINITY;
        *out = d->neg ? -v : v;
        return true;
    }
    if (d->nsig == 0) {
        *out = d->neg ? -0.0 : 0.0;
        return true;
    }
    int64_t e = d->exp10 + (d->eneg ? -d->eval : d->eval);
    uint32_t n = d->nsig;
    if (d->sticky) { /* the dropped digits, as one nonzero digit below the kept ones */
        d->dig[n++] = '1';
        e--;
    }
    if (e > 999999999)
        e = 999999999;
    if (e < -999999999)
        e = -999999999;
    char buf[HW_DEC_KEEP + 32];
    memcpy(buf, d->dig, n);
    snprintf(buf + n, sizeof buf - n, "e%lld", (long long)e);
    locale_t c = hw_c_locale();
    /* correctly rounded; +-inf, 0 beyond the range */
    double v = c ? strtod_l(buf, NULL, c) : strtod(buf, NULL);
    *out = d->neg ? -v : v;
    return true;
}

locale_t hw_c_locale(void)
{
    /* glibc hands out one static object for "C"; made once, never freed (0 if it failed) */
    static _Atomic(locale_t) c;
    locale_t l = atomic_load_explicit(&c, memory_order_acquire);
    if (!l) {
        l = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        locale_t expected = 0;
        if (l && !atomic_compare_exchange_strong(&c, &expected, l)) {
            freelocale(l);
            l = expected;
        }
    }
    return l;
}

locale_t hw_c_locale_enter(void)
{
    locale_t c = hw_c_locale();
    return c ? uselocale(c) : (locale_t)0;
}

void hw_c_locale_leave(locale_t old)
{
    if (old)
        uselocale(old);
}

/* powers of ten 1e0..1e22: exact doubles */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* hw_parse_decimal8's constants (decimal8.h) */
#define DEC8_ROW(e) {e(0), e(1), e(2), e(3), e(4), e(5), e(6), e(7)}
/* k = 7: 1, which ((x & byte[7]) ^ bad) cannot be (its low 7 bytes are 0) */
#define DEC8_DOT(k) ((k) < 7 ? (uint64_t)('.' ^ '0' ^ 0x80) << 8 * (k) : 1)
#define DEC8_BYTE(k) (0xffULL << 8 * (k))
#define DEC8_BELOW(k) (((1ULL << 8 * (k)) - 1) << 8)
#define DEC8_ABOVE(k) ((k) < 7 ? ~0ULL << 8 * (k) << 8 : 0)
#define DEC8_UP(n) (1ULL << (8 - (n)) % 8 * 8) /* n = 0 is never used */
const struct hw_dec8_tab hw_dec8_tab = {
    .zeros = 0x3030303030303030ULL,
    .lt10 = 0x7676767676767676ULL,
    .highs = 0x8080808080808080ULL,
    .pair = 10 * 256 + 1,
    .m16 = 0x00FF00FF00FF00FFULL,
    .m32 = 0x0000FFFF0000FFFFULL,
    .oct = 10000ULL << 32 | 1,
    .up = {0, DEC8_UP(1), DEC8_UP(2), DEC8_UP(3), DEC8_UP(4), DEC8_UP(5), DEC8_UP(6),
           DEC8_UP(7), DEC8_UP(8)},
    .dot = DEC8_ROW(DEC8_DOT),
    .byte = DEC8_ROW(DEC8_BYTE),
    .below = DEC8_ROW(DEC8_BELOW),
    .above = DEC8_ROW(DEC8_ABOVE),
    .pow10 = {1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1e0},
};

/* What the fast path does not take, by the machine. Not inlined there: its hw_dec (800 bytes)
 * would make every call set up a frame that the usual cell does not need. */
static __attribute__((noinline)) bool parse_decimal_slow(const char *s, size_t n, double *out)
{
    struct hw_dec d;
    hw_dec_init(&d, 0);
    for (size_t i = 0; i < n; i++)
        if (!hw_dec_feed(&d, (unsigned char)s[i]))
            return false;
    return hw_dec_end(&d, out);
}

bool hw_parse_decimal(const char *s, size_t n, double *out)
{
    /* Fast path (Clinger): at most 15 digits and no exponent, so the digits as an integer and
     * the power of ten are both exact doubles and one division rounds correctly. That is every
     * cell nvidia-smi prints ("631.95", "81559"). */
    const char *p = s, *e = s + n;
    bool neg = false;
    if (p < e && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    const char *d0 = p;
    uint64_t m = 0;
    unsigned c;
    while (p < e && (c = (unsigned)(*p - '0')) < 10)
        m = m * 10 + c, p++;
    size_t nd = (size_t)(p - d0), frac = 0;
    if (p < e && *p == '.') {
        const char *f0 = ++p;
        while (p < e && (c = (unsigned)(*p - '0')) < 10)
            m = m * 10 + c, p++;
        frac = (size_t)(p - f0);
    }
    if (p == e && nd + frac - 1 < 15) { /* 1..15 digits */
        double v = (double)m;
        if (frac)
            v /= pow10_exact[frac];
        *out = neg ? -v : v;
        return true;
    }
    return parse_decimal_slow(s, n, out);
}


bool hw_parse_fraction(const char *s, size_t n, double *out)
{
    if (n == 0 || (s[0] != '.' && s[0] != ','))
        return false;
    if (s[0] == '.')
        return hw_parse_decimal(s, n, out);
    /* a decimal comma: digits past the 40th are below any timestamp's resolution */
    char buf[41];
    size_t k = n < sizeof buf ? n : sizeof buf;
    memcpy(buf, s, k);
    buf[0] = '.';
    for (size_t i = 1; i < k; i++)
        if (buf[i] < '0' || buf[i] > '9')
            return false;
    for (size_t i = k; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return hw_parse_decimal(buf, k, out);
}

int hw_parse_double(const char *s, double min, double max, double *out)
{
    double v;
    if (!s || !hw_parse_decimal(s, strlen(s), &v))
        return -EINVAL;
    if (!isfinite(v) || v < min || v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

bool hw_parse_num_cell(const char *s, size_t n, double *out)
{
    if (hw_parse_decimal(s, n, out)) /* the usual cell: trimmed, no unit */
        return isfinite(*out);
    while (n && is_blank(*s))
        s++, n--;
    while (n && is_blank(s[n - 1]))
        n--;
    /* A unit follows the number after one space: "631.95 W", "100 %", "81559 MiB". */
    const char *sp = memchr(s, ' ', n);
    if (sp)
        n = (size_t)(sp - s);
    double v;
    if (!hw_parse_decimal(s, n, &v) || !isfinite(v))
        return false;
    *out = v;
    return true;
}
