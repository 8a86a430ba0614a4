/* Internals shared by the readers, not an API. Layers, each calling only those below it:
 *   reader_core.c   line assembly, splitting, cells, quality, skipped lines (knows no kind)
 *   smi_time.c      time zones and timestamps
 *   read_gpu.c, read_dmon.c, read_named.c, read_gpu_procs.c, read_runlog.c   one file kind each
 *   dispatch.c      sum_reader_new / sum_read_file: the kind picks its parser from a table
 * Beside them in rundir/: runinfo.c (what run.jsonl says about the other files, over
 * smi_time.c) and energy.c (the energy rule, energy.h). */
#ifndef SUM_READER_INT_H
#define SUM_READER_INT_H

#include <csv.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "hwrun/parse.h"
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
    /* the last timestamp parsed and its value: the GPUs of one sample share it */
    char last[32];
    size_t last_n; /* 0: none */
    double last_out;
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
    /* where a whole row starts after a torn one on the same line (0: none); NULL: not known.
     * Asked only for a line about to be skipped (sum_skip), which then sets resync_at. */
    size_t (*row_start_fn)(struct sum_reader *r, const char *s, size_t n);
    const char *line_s; /* the line being read, while line_fn runs */
    size_t line_n, resync_at;
    void (*free_fn)(struct sum_reader *r);
};

/* Split a CSV line into r->cells (a fast path for lines without quotes, else libcsv, always
 * libcsv with opts.libcsv_only). false when libcsv fails (counted by the caller). */
bool sum_split_csv(struct sum_reader *r, const char *s, size_t n);
/* Count a torn record before a whole one on the same line (quality.torn), with a message. */
void sum_torn(struct sum_reader *r);
/* row_start_fn of the CSV kinds whose rows begin with a timestamp (reader_core.c) */
size_t sum_row_start_ts(struct sum_reader *r, const char *s, size_t n);
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
double sum_num_cell_slow(struct sum_quality *q, const char *s, size_t n, bool count_empty);
static inline double sum_num_cell(struct sum_quality *q, const char *s, size_t n, bool count_empty)
{
    /* inline: the plain number of nearly every cell, without a call; s is a cell of a reader's
     * r->cells, in cellbuf, which has 16 bytes to spare after any cell */
    double v;
    /* hw_parse_decimal_padded in its two steps, since only the second can give inf */
    if (hw_parse_decimal8(s, n, &v)) /* "81559", "308.53" */
        return v;
    if (n && hw_parse_decimal(s, n, &v) && isfinite(v)) /* longer: byte counts */
        return v;
    return sum_num_cell_slow(q, s, n, count_empty);
}
/* "YYYY/MM/DD HH:MM:SS[.fff]" (any number of fraction digits, '.' or ',') in tz: the one
 * parser of nvidia-smi's times, for --query-gpu rows, gpu_procs rows and dmon -o DT. */
bool sum_parse_smi_ts(struct sum_smi_clock *c, const struct sum_tz *tz, const char *s, size_t n,
                      double *out);
/* Our ISO 8601 timestamps (and, leniently, nvidia-smi's in UTC). */
bool sum_parse_any_ts(const char *s, size_t n, double *out);

/* Strip a " [unit]" suffix and blanks from a header cell into out (NUL-terminated). */
void sum_header_name(const char *s, size_t n, char *out, size_t cap);

/* ---- CSV lines with a header (reader_core.c) */

/* Split a CSV line into r->cells; false, with the line counted as skipped, if it cannot be. */
bool sum_split_cells(struct sum_reader *r, const char *s, size_t n);
/* Every cell looks like a field name (optionally " [unit]") and one is known(): a header. */
bool sum_cells_are_header_names(struct sum_reader *r, bool (*known)(const char *));
static inline bool sum_cells_are_header(struct sum_reader *r, bool (*known)(const char *))
{
    /* inline: a data row starts with a digit (its timestamp or index), no name does */
    const struct sum_cells *c = &r->cells;
    if (c->n && c->len[0] && (unsigned)(c->s[0][0] - '0') < 10)
        return false;
    return sum_cells_are_header_names(r, known);
}
/* The cells of a header line as column names (units stripped), in sum_names_storage(). NULL if
 * memory ran out: the header is then counted but not used. */
char (*sum_header_names(struct sum_reader *r))[64];
/* Room for a line's column names, kept by the reader from the first use on (rows never
 * allocate). NULL if memory ran out. */
char (*sum_names_storage(struct sum_reader *r))[64];
/* Split a comma-separated field list ("timestamp, index,uuid") into names. Returns the count. */
size_t sum_split_fields(const char *list, char (*out)[64], size_t max);
/* "[N/A]", "[Not Supported]", "N/A": a cell nvidia-smi writes for a value it has not. Inline:
 * every uuid and ignored cell of a row is asked. */
static inline bool sum_is_placeholder(const char *s, size_t n)
{
    return n && (s[0] == '[' || (n == 3 && !memcmp(s, "N/A", 3)));
}

/* ---- the reader's life (reader_core.c) */

/* A reader with no line parser yet: name copied, opts and sink NULL for defaults, q zeroed.
 * NULL on ENOMEM. The kind's init then sets r->st, r->line_fn, r->free_fn. */
struct sum_reader *sum_reader_alloc(enum sum_kind kind, const char *name,
                                    const struct sum_read_opts *opts,
                                    const struct sum_sink *sink, struct sum_quality *q);
/* A free_fn for kinds whose state is one calloc'd block. */
void sum_st_free(struct sum_reader *r);

/* Set up r->st, r->line_fn and r->free_fn for one kind (left NULL on ENOMEM); dispatch.c calls
 * them by kind. */
void sum_gpu_init(struct sum_reader *r);        /* read_gpu.c */
void sum_dmon_init(struct sum_reader *r);       /* read_dmon.c (hw_dmon.csv, hw_gpm.csv) */
void sum_cpu_init(struct sum_reader *r);        /* read_named.c */
void sum_proc_init(struct sum_reader *r);       /* read_named.c */
void sum_tree_pids_init(struct sum_reader *r);  /* read_named.c */
void sum_gpu_procs_init(struct sum_reader *r);  /* read_gpu_procs.c */
void sum_runlog_init(struct sum_reader *r);     /* read_runlog.c */
void sum_health_init(struct sum_reader *r);     /* read_health.c */
void sum_energy_csv_init(struct sum_reader *r); /* read_named.c */
void sum_pmon_init(struct sum_reader *r);       /* read_dmon.c (hw_pmon.csv) */

#endif
