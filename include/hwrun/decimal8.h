/* The run directory readers' cell parser: a number cell of up to 8 bytes read as one 64-bit
 * word (SWAR), in front of the one decimal parser (parse.h's hw_parse_decimal), which takes
 * every other cell and gives the same double. Private to the readers (runlog/rundir/) and the
 * tests and benchmarks that check it; its table (decimal8_tab.h) lives in hw_parse.c. */
#ifndef HWRUN_DECIMAL8_H
#define HWRUN_DECIMAL8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hwrun/decimal8_tab.h"
#include "hwrun/parse.h"

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
