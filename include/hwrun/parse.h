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
/* ---- the "C" locale, for this thread only ---------------------------------------------------
 * librunlog runs inside the user's job, which may have called setlocale(LC_ALL, "") under a
 * comma-decimal locale: every snprintf("%f"/"%g"/"%e") and strtod of a number hwrun writes or
 * reads runs between these two, which switch the calling thread to "C" (uselocale) and back,
 * never touching the process's locale. hw_c_locale() is the "C" locale object itself, for the
 * *_l functions. */
#include <locale.h>
locale_t hw_c_locale(void);
locale_t hw_c_locale_enter(void);
void hw_c_locale_leave(locale_t old);

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
bool hw_parse_decimal(const char *s, size_t n, double *out);

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

/* Parse s[0..n) as a finite number, ignoring surrounding blanks and an optional trailing unit
 * that follows a space ("631.95 W", "100 %", "81559 MiB"). false for placeholders ("[N/A]",
 * "N/A", "-"), empty cells and junk. Never reads past n. */
bool hw_parse_num_cell(const char *s, size_t n, double *out);

#endif
