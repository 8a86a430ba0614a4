/* Strict number parsing for command lines and files: the whole string must be a number in range
 * (no atoi, no sscanf on untrusted input). Numbers are read in the "C" locale. */
#ifndef HWRUN_PARSE_H
#define HWRUN_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Returns 0, -EINVAL (not a number, trailing junk, empty) or -ERANGE (outside [min, max]).
 * *out is untouched on failure. */
int hw_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int hw_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
/* Finite decimal or exponent notation only (no inf/nan/hex). */
int hw_parse_double(const char *s, double min, double max, double *out);

/* Parse s[0..n) as a finite number, ignoring surrounding blanks and an optional trailing unit
 * that follows a space ("631.95 W", "100 %", "81559 MiB"). false for placeholders ("[N/A]",
 * "N/A", "-"), empty cells and junk. Never reads past n. */
bool hw_parse_num_cell(const char *s, size_t n, double *out);

#endif
