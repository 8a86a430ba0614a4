/* The JSON writer every tool prints JSON with, and the one escaper and number formatter under
 * it: see include/hwrun/jsonw.h. */
#include "hwrun/jsonw.h"
#include "hwrun/buf.h"
#include "hwrun/parse.h" /* hw_c_locale: numbers never follow the job's LC_NUMERIC */
#include "hwrun/utf8.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hw_buf_json_str(struct hw_buf *b, const char *str, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    /* Worst case is 6 bytes per input byte (\u00XX); reserve once so the loop does not check. */
    if (n > (SIZE_MAX - 3) / 6 || !hw_buf_reserve(b, n * 6 + 3))
        return;
    char *o = b->p + b->len;
    *o++ = '"';
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            *o++ = (char)c;
            i++;
            continue;
        }
        if (c < 0x80) {
            *o++ = '\\';
            switch (c) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '\n': *o++ = 'n'; break;
            case '\r': *o++ = 'r'; break;
            case '\t': *o++ = 't'; break;
            case '\b': *o++ = 'b'; break;
            case '\f': *o++ = 'f'; break;
            default:
                *o++ = 'u';
                *o++ = '0';
                *o++ = '0';
                *o++ = hex[c >> 4];
                *o++ = hex[c & 15];
            }
            i++;
            continue;
        }
        uint32_t cp;
        size_t len = hw_utf8_decode(s + i, n - i, &cp); /* the one UTF-8 decoder (hwrun/io.h) */
        if (len && len != HW_UTF8_SHORT) {
            memcpy(o, s + i, len);
            o += len;
            i += len;
        } else { /* U+FFFD REPLACEMENT CHARACTER, 3 bytes, for each bad byte */
            *o++ = (char)0xEF;
            *o++ = (char)0xBF;
            *o++ = (char)0xBD;
            i++;
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->p);
    b->p[b->len] = '\0';
}

/* Lay out a digit string with decimal exponent exp10 (of the first digit) as Python's repr does:
 * fixed notation for -4 <= exp10 < 16, else d.ddde+XX. */
static void put_repr(struct hw_buf *b, bool neg, const char *digits, int nd, int exp10)
{
    char out[48];
    int o = 0;
    if (neg)
        out[o++] = '-';
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = -1; i > exp10; i--)
                out[o++] = '0';
            for (int i = 0; i < nd; i++)
                out[o++] = digits[i];
        } else {
            for (int i = 0; i <= exp10; i++)
                out[o++] = i < nd ? digits[i] : '0';
            out[o++] = '.';
            if (nd > exp10 + 1)
                for (int i = exp10 + 1; i < nd; i++)
                    out[o++] = digits[i];
            else
                out[o++] = '0';
        }
    } else {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (int i = 1; i < nd; i++)
                out[o++] = digits[i];
        }
        o += snprintf(out + o, sizeof out - (size_t)o, "e%c%02d", exp10 < 0 ? '-' : '+',
                      exp10 < 0 ? -exp10 : exp10);
    }
    hw_buf_put(b, out, (size_t)o);
}

/* The fast way for a number with few decimals (a reading such as 95.25 or 1024.5, a whole
 * number): the least k with x = m / 10^k for an integer m. Exact: m and 10^k are doubles
 * without rounding (|m| < 2^52, k <= 8), and IEEE division rounds m / 10^k correctly, as strtod
 * does the decimal m e-k; with |m| < 2^52 the decimal steps 10^-k are wider than x's ulp, so
 * no other m of k digits reads back as x, and no k' < k did: the digits are the shortest, those
 * repr() prints. false when no k <= 8 gives x, or when the digits of m are more than max_sig
 * (HW_NUM_SIG12: a number of at most 12 significant digits is its own 12-digit rounding, as it
 * lies within an ulp of m e-k, far inside the 12th digit's half unit). */
static bool few_decimals(struct hw_buf *b, double x, int max_sig)
{
    static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    double a = fabs(x);
    if (!(a < 4503599627370496.0) || a == 0) /* 2^52; zero: the slow way keeps its sign */
        return false;
    for (int k = 0; k < (int)(sizeof p10 / sizeof p10[0]); k++) {
        double t = a * p10[k];
        if (!(t < 4503599627370496.0))
            return false;
        double m = nearbyint(t);
        if (m / p10[k] != a)
            continue;
        char rev[24], digits[24];
        int nd = 0;
        for (uint64_t u = (uint64_t)m; u || !nd; u /= 10) /* m < 2^52: exact as an integer */
            rev[nd++] = (char)('0' + u % 10);
        if (nd > max_sig)
            return false;
        for (int i = 0; i < nd; i++)
            digits[i] = rev[nd - 1 - i];
        int exp10 = nd - 1 - k;
        while (nd > 1 && digits[nd - 1] == '0')
            nd--;
        put_repr(b, x < 0, digits, nd, exp10);
        return true;
    }
    return false;
}

void hw_buf_py_double(struct hw_buf *b, double x)
{
    if (!isfinite(x)) {
        hw_buf_put(b, "null", 4);
        return;
    }
    if (few_decimals(b, x, 17))
        return;
    /* The shortest digit string that reads back as x, as Python's repr() finds it. Every double
     * with at most 15 significant digits reads back from its 15-digit rounding (DBL_DIG), and
     * that rounding is then the short string padded with zeros; so try 15 digits, then 16, 17.
     * Subnormals hold fewer digits: search them from one digit up. */
    char sci[40];
    locale_t old = hw_c_locale_enter();
    for (int prec = x != 0 && fabs(x) < DBL_MIN ? 0 : 14; prec <= 16; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec, x);
        if (prec == 16 || strtod(sci, NULL) == x)
            break;
    }
    hw_c_locale_leave(old);
    /* sci is "[-]d.ddd...e[+-]XX": pull out the digits and the exponent. */
    const char *p = sci;
    bool neg = *p == '-';
    if (neg)
        p++;
    char digits[24];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp10 = (int)strtol(p + 1, NULL, 10);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    put_repr(b, neg, digits, nd, exp10);
}

void hw_buf_py_round(struct hw_buf *b, double x, int ndigits)
{
    if (!isfinite(x)) {
        hw_buf_put(b, "null", 4);
        return;
    }
    /* "%.Nf" rounds the exact binary value correctly, as Python's round() does. When the result
     * has at most 15 significant digits, it is also the shortest repr of the rounded double
     * (see hw_buf_py_double), so it can be printed directly with its zeros stripped. */
    if (fabs(x) < 1e12 && ndigits >= 0 && ndigits <= 3) {
        char tmp[32];
        locale_t old = hw_c_locale_enter();
        int n = snprintf(tmp, sizeof tmp, "%.*f", ndigits, x);
        hw_c_locale_leave(old);
        if (ndigits == 0) {
            tmp[n++] = '.';
            tmp[n++] = '0';
        } else {
            while (tmp[n - 1] == '0' && tmp[n - 2] != '.')
                n--;
        }
        hw_buf_put(b, tmp, (size_t)n);
        return;
    }
    char tmp[400];
    locale_t old = hw_c_locale_enter();
    snprintf(tmp, sizeof tmp, "%.*f", ndigits, x);
    double r = strtod(tmp, NULL);
    hw_c_locale_leave(old);
    hw_buf_py_double(b, r);
}

double hw_py_round_value(double x, int ndigits)
{
    if (!isfinite(x))
        return x;
    char tmp[400]; /* "%.*f" of DBL_MAX with a few decimals fits */
    locale_t old = hw_c_locale_enter();
    snprintf(tmp, sizeof tmp, "%.*f", ndigits, x);
    double r = strtod(tmp, NULL);
    hw_c_locale_leave(old);
    return r;
}

double hw_num_sig12(double x)
{
    /* Twelve digits are far beyond what any sensor reports; they drop the binary noise of sums
     * (951.1000000000001) and the stored values keep full precision. */
    char t[32];
    locale_t old = hw_c_locale_enter();
    snprintf(t, sizeof t, "%.12g", x);
    double r = strtod(t, NULL);
    hw_c_locale_leave(old);
    return r;
}

void hw_buf_json_num(struct hw_buf *b, double x, enum hw_json_num mode)
{
    if (!isfinite(x)) {
        if (mode != HW_NUM_PYJSON)
            hw_buf_put(b, "null", 4);
        else if (isnan(x))
            hw_buf_put(b, "NaN", 3);
        else
            hw_buf_puts(b, x > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (mode == HW_NUM_SIG12 && few_decimals(b, x, 12))
        return; /* its own 12-digit rounding: no snprintf and strtod to find that out */
    hw_buf_py_double(b, mode == HW_NUM_SIG12 ? hw_num_sig12(x) : x);
}

void hw_json_init(struct hw_json *w, struct hw_buf *b, enum hw_json_style style,
                  enum hw_json_num num)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->style = style;
    w->num = num;
    w->first[0] = true;
}

static void indent(struct hw_json *w, int depth)
{
    size_t n = 1 + 2 * (size_t)depth;
    if (!hw_buf_reserve(w->b, n))
        return; /* the buffer keeps its error */
    char *o = w->b->p + w->b->len;
    o[0] = '\n';
    memset(o + 1, ' ', n - 1);
    w->b->len += n;
    w->b->p[w->b->len] = '\0';
}

/* The separator before a member: ", " on one line, ",\n" and the indent when pretty. */
static void separate(struct hw_json *w)
{
    bool first = w->first[w->depth];
    w->first[w->depth] = false;
    if (w->depth == 0)
        return;
    if (w->style == HW_JSON_LINE || (w->flat && w->depth >= w->flat)) {
        if (!first)
            hw_buf_put(w->b, ", ", 2);
        return;
    }
    if (!first)
        hw_buf_putc(w->b, ',');
    indent(w, w->depth);
}

/* A byte a key may hold as is: printable ASCII but '"' and '\\' (NUL ends the key). */
static inline bool plain_key_byte(char c)
{
    unsigned char u = (unsigned char)c;
    return u - 0x20u < 0x60u && u != '"' && u != '\\';
}

void hw_json_key(struct hw_json *w, const char *key)
{
    separate(w);
    if (!key)
        return;
    /* Most keys are plain ASCII: copy them in one piece; the others go through the escaper. */
    size_t n = 0;
    while (plain_key_byte(key[n]))
        n++;
    if (key[n] == '\0' && hw_buf_reserve(w->b, n + 4)) {
        char *o = w->b->p + w->b->len;
        *o++ = '"';
        memcpy(o, key, n);
        o += n;
        memcpy(o, "\": ", 3);
        w->b->len += n + 4;
        w->b->p[w->b->len] = '\0';
        return;
    }
    hw_buf_json_str(w->b, key, strlen(key));
    hw_buf_put(w->b, ": ", 2);
}

void hw_json_key_lit(struct hw_json *w, const char *text, size_t n)
{
    separate(w);
    hw_buf_put(w->b, text, n);
}

void hw_json_open(struct hw_json *w, const char *key, char c)
{
    hw_json_key(w, key);
    if (w->over || w->depth == HW_JSON_MAX_DEPTH) {
        w->over++;
        w->err = true;
        return;
    }
    hw_buf_putc(w->b, c);
    w->depth++;
    w->first[w->depth] = true;
    w->close[w->depth] = c == '[' ? ']' : '}';
}

void hw_json_close(struct hw_json *w)
{
    if (w->over) {
        w->over--;
        return;
    }
    if (w->depth == 0) {
        w->err = true;
        return;
    }
    bool empty = w->first[w->depth];
    char c = w->close[w->depth];
    bool flat = w->flat && w->depth >= w->flat;
    if (w->depth == w->flat)
        w->flat = 0;
    w->depth--;
    if (!empty && w->style == HW_JSON_PRETTY && !flat)
        indent(w, w->depth);
    hw_buf_putc(w->b, c);
}

void hw_json_open_flat(struct hw_json *w, const char *key, char c)
{
    int over = w->over;
    hw_json_open(w, key, c);
    if (w->over == over && !w->flat)
        w->flat = w->depth;
}

void hw_json_strn(struct hw_json *w, const char *key, const char *s, size_t n)
{
    hw_json_key(w, key);
    if (s)
        hw_buf_json_str(w->b, s, n);
    else
        hw_buf_put(w->b, "null", 4);
}

void hw_json_str(struct hw_json *w, const char *key, const char *s)
{
    hw_json_strn(w, key, s, s ? strlen(s) : 0);
}

void hw_json_num(struct hw_json *w, const char *key, double x)
{
    hw_json_key(w, key);
    hw_buf_json_num(w->b, x, w->num);
}

void hw_json_i64(struct hw_json *w, const char *key, int64_t v)
{
    hw_json_key(w, key);
    hw_buf_i64(w->b, v);
}

void hw_json_u64(struct hw_json *w, const char *key, uint64_t v)
{
    hw_json_key(w, key);
    hw_buf_u64(w->b, v);
}

void hw_json_pid(struct hw_json *w, const char *key, long v)
{
    if (v > 0)
        hw_json_u64(w, key, (uint64_t)v);
    else
        hw_json_null(w, key);
}

void hw_json_bool(struct hw_json *w, const char *key, bool v)
{
    hw_json_key(w, key);
    hw_buf_puts(w->b, v ? "true" : "false");
}

void hw_json_null(struct hw_json *w, const char *key)
{
    hw_json_key(w, key);
    hw_buf_put(w->b, "null", 4);
}

void hw_json_raw(struct hw_json *w, const char *key, const char *text)
{
    hw_json_key(w, key);
    hw_buf_puts(w->b, text ? text : "null");
}

struct hw_json_mark hw_json_mark(const struct hw_json *w)
{
    return (struct hw_json_mark){.len = w->b->len,
                                 .depth = w->depth,
                                 .over = w->over,
                                 .flat = w->flat,
                                 .first = w->first[w->depth],
                                 .err = w->err};
}

void hw_json_rewind(struct hw_json *w, struct hw_json_mark m)
{
    if (m.len <= w->b->len) {
        w->b->len = m.len;
        if (w->b->p)
            w->b->p[m.len] = '\0';
    }
    w->depth = m.depth;
    w->over = m.over;
    w->flat = m.flat;
    w->first[m.depth] = m.first;
    w->err = m.err;
}
