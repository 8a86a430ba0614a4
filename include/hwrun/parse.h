/* Strict number parsing for command lines and files: the whole string must be a number in range
 * (no atoi, no sscanf on untrusted input). Numbers are read in the "C" locale. */
#ifndef HWRUN_PARSE_H
#define HWRUN_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Returns 0, -EINVAL (not a number, trailing junk, empty) or -ERANGE (outside [min, max]).
 * *out is untouched on failure. */
int hw_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int hw_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);

/* ---- the one integer parser ----------------------------------------------------------------
 * Decimal digits at p, before end, in the "C" locale: the pointer after them, or NULL when
 * there are none. The value saturates (at UINT64_MAX, or +-INT64_MAX) and *over (may be NULL)
 * says so. hw_scan_i64 first skips blanks and takes a sign. The parsers above, and every integer
 * of /proc, cgroup, sysfs and nvidia-smi text, go through these. */
const char *hw_scan_u64(const char *p, const char *end, uint64_t *out, bool *over);
const char *hw_scan_i64(const char *p, const char *end, int64_t *out, bool *over);
/* Finite decimal or exponent notation only (no inf/nan/hex). */
int hw_parse_double(const char *s, double min, double max, double *out);

/* ---- the one decimal parser ----------------------------------------------------------------
 * Every number read from a file or command line goes through hw_parse_decimal (or, for text that
 * arrives in pieces, the hw_dec machine it is built on). The result is always the double strtod
 * gives for the same text (correctly rounded), in constant memory for any length: beyond
 * HW_DEC_KEEP significant digits only whether a dropped digit was nonzero can still matter.
 *
 * Strict syntax: [+-] digits [. digits] [(e|E) [+-] digits], a digit in the mantissa, nothing
 * else (no blanks, inf, nan, hex). HW_DEC_PY adds what Python's float() takes of ASCII text:
 * blanks (" \t\n\v\f\r") at both ends, "_" between two digits, inf/infinity/nan in any case. */
static inline bool hw_parse_decimal(const char *s, size_t n, double *out);

/* internals of hw_parse_decimal: powers of ten 1e0..1e22 (exact doubles), and the machine below
 * for what the fast path does not take */
extern const double hw_pow10[23];
bool hw_parse_decimal_slow(const char *s, size_t n, double *out);

/* The fraction of a time stamp: "." or "," and digits, as a double in [0, 1). */
bool hw_parse_fraction(const char *s, size_t n, double *out);

#define HW_DEC_PY 1u
/* more than 767, the most significant digits a halfway point between two doubles has */
#define HW_DEC_KEEP 800

struct hw_dec {
    unsigned flags;
    unsigned char state, prev;
    bool neg, eneg, sticky;
    unsigned nword; /* letters of inf/infinity/nan seen */
    char word[8];
    uint64_t nd;   /* mantissa digits */
    uint32_t nsig; /* significant digits kept in dig[] */
    int64_t exp10; /* value = dig[0..nsig) * 10^(exp10 +- eval) */
    int64_t eval;  /* explicit exponent, saturated */
    char dig[HW_DEC_KEEP + 2];
};
void hw_dec_init(struct hw_dec *d, unsigned flags);
/* One character of the text; false once the text can no longer be a number. */
bool hw_dec_feed(struct hw_dec *d, unsigned char c);
/* After the last character: true and *out when the text was a number. */
bool hw_dec_end(struct hw_dec *d, double *out);

static inline bool hw_parse_decimal(const char *s, size_t n, double *out)
{
    /* Fast path (Clinger), inline because every cell comes here: at most 15 digits and no
     * exponent, so the digits as an integer and the power of ten are both exact doubles and
     * one division rounds correctly. That is every cell nvidia-smi prints ("631.95", "81559"). */
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
            v /= hw_pow10[frac];
        *out = neg ? -v : v;
        return true;
    }
    return hw_parse_decimal_slow(s, n, out);
}

/* Parse s[0..n) as a finite number, ignoring surrounding blanks and an optional trailing unit
 * that follows a space ("631.95 W", "100 %", "81559 MiB"). false for placeholders ("[N/A]",
 * "N/A", "-"), empty cells and junk. Never reads past n. */
bool hw_parse_num_cell(const char *s, size_t n, double *out);

/* hw_parse_decimal8's constants. In a table and not in the code: each is a memory operand where
 * a 64-bit immediate would cost an instruction of its own at every use (a reader's loop cannot
 * keep them all in registers). dot[k] and the rows after it are for a '.' in byte k of the
 * word; k = 7, a trailing '.', is left to hw_parse_decimal (dot[7] never matches). */
struct hw_dec8_tab {
    uint64_t zeros, lt10, highs; /* '0', 0x76 and 0x80 in every byte */
    uint64_t pair, m16, m32, oct; /* hw_dec8_digits */
    uint64_t up[9];               /* 256^(8-n): s[n-1] to the top byte */
    uint64_t dot[8];              /* ('.' ^ '0' ^ 0x80) << 8k: the '.' and its flag */
    uint64_t byte[8];             /* 0xff << 8k */
    uint64_t below[8];            /* bytes 1..k: the digits before the '.', one byte up */
    uint64_t above[8];            /* bytes k+1..7: the digits after it */
    double pow10[8];              /* 10^(7-k): the fraction's scale */
};
extern const struct hw_dec8_tab hw_dec8_tab;

/* Eight digit values 0..9, the first (most significant) in the lowest byte, as one number
 * (SWAR: pairs, then quads, then all eight). */
static inline uint64_t hw_dec8_digits(const struct hw_dec8_tab *t, uint64_t x)
{
    x = x * t->pair >> 8;         /* 10 * 256 + 1: byte 2i holds 10 * d[2i] + d[2i+1] */
    x = (x & t->m16) * 6553601 >> 16; /* 100 * 65536 + 1 on the pairs */
    return (x & t->m32) * t->oct >> 32; /* 10000 * 2^32 + 1 on the quads */
}

/* The fast path of hw_parse_decimal_padded, for callers that handle the rest themselves: true,
 * and *out, when s[0..n) has 1..8 characters, digits with at most one '.' (not the last), and
 * a digit ("81559", "308.53", ".5"); false for anything else (signs, exponents, longer text),
 * which then goes to hw_parse_decimal. Reads s[0..8) whatever n is: the caller has 8 bytes
 * there. Never gives inf or nan. SWAR on little-endian GCC/clang builds (one load, one digit
 * test, three multiplications); elsewhere always false. */
static inline bool hw_parse_decimal8(const char *s, size_t n, double *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n - 1 < 8) {
        const struct hw_dec8_tab *t = &hw_dec8_tab;
        uint64_t x;
        memcpy(&x, s, 8);
        /* digits to 0..9 ('.' to 0x1e), s[n-1] in the top byte, and below s[0] zeros: leading
         * 0 digits */
        x = (x ^ t->zeros) * t->up[n];
        /* A byte above 9 has its high bit set, or gets it from +0x76. A carry out of a byte
         * needs a byte above 0x89, which is flagged itself: so the lowest flag is always a
         * true one, and only text with a byte above 0x89 can get a flag on a digit. */
        uint64_t bad = (x | (x + t->lt10)) & t->highs;
        if (bad == 0) { /* all digits: "81559", "100" */
            *out = (double)(int64_t)hw_dec8_digits(t, x);
            return true;
        }
        /* The lowest flag is on a '.' (byte k is 0x1e: xor 0x80, 0x9e) and it is the only one
         * (the rest of bad is 0): "308.53". */
        unsigned k = (unsigned)__builtin_ctzll(bad) / 8;
        if (((x & t->byte[k]) ^ bad) == t->dot[k]) {
            x = (x & t->above[k]) | (x << 8 & t->below[k]); /* the '.' taken out */
            /* at most 7 digits and an exact power of ten: one division rounds correctly */
            *out = (double)(int64_t)hw_dec8_digits(t, x) / t->pow10[k];
            return true;
        }
    }
#else
    (void)s, (void)n, (void)out;
#endif
    return false;
}

/* hw_parse_decimal for text followed by at least 8 readable bytes (a reader's cell buffer):
 * the cells hw_parse_decimal8 takes 8 bytes at a time, the rest by hw_parse_decimal. */
static inline bool hw_parse_decimal_padded(const char *s, size_t n, double *out)
{
    return hw_parse_decimal8(s, n, out) || hw_parse_decimal(s, n, out);
}

#endif
