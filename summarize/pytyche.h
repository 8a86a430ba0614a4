/* `--format pytyche`: what pytyche's build_resource_summary(...).to_dict() gives for the same
 * three files, printed as json.dumps(..., sort_keys=True) does, quirks included
 * (../shared/oracle/README.md): Python's text-mode universal newlines and strict UTF-8,
 * line.split(",") + strip, float() syntax (blanks, underscores, inf/nan), a GPU row dropped
 * whole when cell 1, 3 or 5 is not a number, the CPU file's first line always skipped, dmon's
 * third whitespace column taken whatever it is, sum() as plain double addition, max() keeping
 * the first of incomparable values, round(x, 1). Unicode as the python3 of
 * summarize/gen/py_unicode.py sees it: blanks of every script for strip()/split(), decimal digits
 * of every script in float(). Lines of any length, in constant memory. */
#ifndef SUM_PYTYCHE_H
#define SUM_PYTYCHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "readers.h" /* enum hw_file, hw_file_names */

enum sum_py_kind { SUM_PY_GPU, SUM_PY_CPU, SUM_PY_DMON };

/* The lists pytyche builds, reduced to what it computes from them. */
struct sum_py_acc {
    uint64_t n_gpu;                  /* len(gpu_utils) == len(mem_useds) == len(powers) */
    double util_sum, util_max, mem_max, power_sum, power_max;
    uint64_t n_mem_util;
    double mem_util_sum, mem_util_max;
    uint64_t n_usr, n_idle;
    double usr_sum, idle_sum;
    double jax_peak_mb; /* what the caller stores: JAX's peak in MiB (0: none), from run.jsonl */
};

struct sum_py_reader;

/* A push reader of one file into acc (which the caller zeroes once for all three files).
 * Returns NULL on ENOMEM. */
struct sum_py_reader *sum_py_new(enum sum_py_kind kind, struct sum_py_acc *acc);
/* Returns 0, or -EILSEQ when the bytes are not valid UTF-8 (Python's open() would raise
 * UnicodeDecodeError: pytyche gives no summary at all), or -ENOMEM. */
int sum_py_feed(struct sum_py_reader *r, const void *buf, size_t n);
int sum_py_finish(struct sum_py_reader *r); /* 0 or -EILSEQ (truncated UTF-8 sequence) */
/* Byte offset of the invalid UTF-8 after -EILSEQ. */
uint64_t sum_py_error_offset(const struct sum_py_reader *r);
void sum_py_free(struct sum_py_reader *r);

/* Read path (NULL or nonexistent: skipped, as pytyche does with a missing file) into acc.
 * Returns 0, -EILSEQ (*bad_offset set) or -errno when it exists but cannot be read. */
int sum_py_read_file(enum sum_py_kind kind, const char *path, struct sum_py_acc *acc,
                     uint64_t *bad_offset);

/* Append the to_dict() JSON line (with its '\n') for acc; with fields, the dataclass's ten
 * fields unrounded instead (dataclasses.asdict(): what the Python package's ResourceSummary is
 * built from, its to_dict() then rounding as pytyche's does). */
void sum_py_format(const struct sum_py_acc *acc, bool fields, struct hw_buf *out);

/* Python's float(s) for s[0..n): true and *out on success. */
bool sum_py_float(const char *s, size_t n, double *out);
/* Python's round(x, 1). */
double sum_py_round1(double x);

/* `summarize --format pytyche` for one run: hw_metrics.csv, cpu_metrics.csv and hw_dmon.csv
 * (file_opt[kind] when given, else DIR/name; dir may be NULL) read as pytyche does, the summary
 * appended to out. *usable: one of the files exists. Returns 0, or a negative errno with the
 * problem in why ("FILE: reason"; every one is fatal, as in Python): -EILSEQ invalid UTF-8,
 * -ENOENT none of the files, else the file's open or read error. */
int sum_py_run(const char *dir, const char *const file_opt[HW_FILE_COUNT], bool fields,
               struct hw_buf *out, bool *usable, char *why, size_t why_cap);

#endif
