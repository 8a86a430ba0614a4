/* Internals shared by the readers (readers.c, csvin.c, dmonin.c, jsonlin.c). Not an API. */
#ifndef SUM_READER_INT_H
#define SUM_READER_INT_H

#include <csv.h>
#include <json-c/json.h>

#include "readers.h"

#define SUM_MAX_COLS 512     /* columns/cells per line we keep apart; more: the line is skipped */
#define SUM_DEFAULT_MAX_LINE (1u << 20)

/* One line split into cells (pointers into r->cellbuf, NUL-terminated, blanks trimmed). */
struct sum_cells {
    size_t n;
    bool overflow; /* more than SUM_MAX_COLS cells */
    const char *s[SUM_MAX_COLS];
    size_t len[SUM_MAX_COLS];
};

/* Cache for nvidia-smi timestamps: the UTC time of the last "YYYY/MM/DD HH" seen. */
struct sum_smi_clock {
    char key[13];
    bool valid;
    double hour_base;
};

struct sum_reader {
    enum sum_kind kind;
    char name[256];
    const struct sum_read_opts *opts;
    const struct sum_sink *sink;
    struct sum_quality *q;
    size_t max_line;

    /* line assembly */
    char *carry;
    size_t carry_len, carry_cap;
    bool discarding; /* inside an over-long line */
    uint64_t lineno;

    /* CSV splitting */
    struct csv_parser csv;
    bool csv_ok;
    char *cellbuf;
    size_t cellbuf_len, cellbuf_cap;
    bool cell_oom;
    struct sum_cells cells;
    char (*names)[64]; /* a header line's cell names; allocated at the first header */

    struct sum_smi_clock clock;

    /* kind-specific state */
    void *st;
    void (*line_fn)(struct sum_reader *r, const char *s, size_t n);
    void (*free_fn)(struct sum_reader *r);
};

/* Split a CSV line into r->cells (a fast path for lines without quotes, else libcsv). false
 * when libcsv fails (counted by the caller). */
bool sum_split_csv(struct sum_reader *r, const char *s, size_t n);
/* Set (before reading, by the benchmark) to split every line with libcsv. */
extern bool sum_csv_libcsv_only;
/* The same, always through libcsv (the reference for the fast path). */
bool sum_split_libcsv(struct sum_reader *r, const char *s, size_t n);
/* Split on blanks (dmon) into r->cells. */
void sum_split_ws(struct sum_reader *r, const char *s, size_t n);

/* Skip the current line for reason (counts it and calls sink->diag). */
void sum_skip(struct sum_reader *r, enum sum_skip why, const char *detail);
/* Count a placeholder token (cell text) in the quality record. */
void sum_count_token(struct sum_quality *q, const char *s, size_t n);

/* What a numeric cell held. */
enum sum_cell_kind { SUM_CELL_NUM, SUM_CELL_PLACEHOLDER, SUM_CELL_EMPTY, SUM_CELL_BAD };
/* Parse a numeric cell ("631.95", "631.95 W", "100 %"); placeholders ([...], N/A, -) and empty
 * cells give NAN. Counts placeholders (and empty cells when count_empty) and bad cells in q. */
double sum_num_cell(struct sum_quality *q, const char *s, size_t n, bool count_empty);
/* Fast exact decimal parse of s[0..n) (digits, optional sign and point, optional " unit");
 * false if not a plain number. */
bool sum_parse_number(const char *s, size_t n, double *out);
/* "YYYY/MM/DD HH:MM:SS[.fff]" (any number of fraction digits, '.' or ',') in tz: the one
 * parser of nvidia-smi's times, for --query-gpu rows, gpu_procs rows and dmon -o DT. */
bool sum_parse_smi_ts(struct sum_smi_clock *c, const struct sum_tz *tz, const char *s, size_t n,
                      double *out);
/* Our ISO 8601 timestamps (and, leniently, nvidia-smi's in UTC). */
bool sum_parse_any_ts(const char *s, size_t n, double *out);

/* Strip a " [unit]" suffix and blanks from a header cell into out (NUL-terminated). */
void sum_header_name(const char *s, size_t n, char *out, size_t cap);

/* Set up r->st, r->line_fn and r->free_fn for one kind (left NULL on ENOMEM). */
void sum_gpu_init(struct sum_reader *r);
void sum_dmon_init(struct sum_reader *r);
void sum_cpu_init(struct sum_reader *r);
void sum_proc_init(struct sum_reader *r);
void sum_gpu_procs_init(struct sum_reader *r);
void sum_tree_pids_init(struct sum_reader *r);
void sum_runlog_init(struct sum_reader *r);

#endif
