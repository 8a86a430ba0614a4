/* Internals shared by the readers, not an API. Layers, each calling only those below it:
 *   reader_core.c   line assembly, splitting, cells, quality, skipped lines (knows no kind)
 *   smi_time.c      time zones and timestamps
 *   read_gpu.c, read_dmon.c, read_named.c, read_gpu_procs.c, read_runlog.c   one file kind each
 *   dispatch.c      rd_reader_new: the kind picks its parser from a table
 *   rotation.c      a rotated run.jsonl: its earlier parts, read first; following its name
 *   read_file.c     rd_read_file: a whole file, the log's earlier parts first
 * cells.h, the kinds' inline fast paths over reader_core.c's slow parts, stands between the
 * first and the kinds. Beside them in rundir/: runinfo.c (what run.jsonl says about the other
 * files, over smi_time.c) and energy.c (the energy rule, energy.h). */
#ifndef RD_READER_INT_H
#define RD_READER_INT_H

#include <csv.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "hwrun/parse.h"
#include "readers.h"

/* q's counts plus p's (rotation.c: a rotated run.jsonl's parts are one file's lines) */
void rd_quality_add(struct rd_quality *q, const struct rd_quality *p);

#define RD_MAX_COLS 512     /* columns/cells per line we keep apart; more: the line is skipped */
#define RD_DEFAULT_MAX_LINE (1u << 20)

/* One line split into cells (pointers into r->cellbuf, NUL-terminated, blanks trimmed). */
struct rd_cells {
    size_t n;
    bool overflow; /* more than RD_MAX_COLS cells */
    const char *s[RD_MAX_COLS];
    size_t len[RD_MAX_COLS];
};

/* Cache for nvidia-smi timestamps: the UTC time of the last "YYYY/MM/DD HH" seen. */
struct rd_smi_clock {
    char key[13];
    bool valid;
    double hour_base;
    /* the last timestamp parsed and its value: the GPUs of one sample share it */
    char last[32];
    size_t last_n; /* 0: none */
    double last_out;
};

struct rd_reader {
    enum hw_file kind;
    char name[256];
    const struct rd_read_opts *opts;
    const struct rd_sink *sink;
    struct rd_quality *q;
    size_t max_line;

    /* line assembly */
    char *carry;
    size_t carry_len, carry_cap;
    bool discarding; /* inside an over-long line */
    uint64_t line_bytes; /* of the line not ended yet, kept or not (quality.partial_bytes) */
    uint64_t lineno;
    uint64_t line_base; /* an entry's line is line_base + lineno: a rotated log's earlier parts
                         * come first (rotation.c); diagnostics name the file's own line */

    /* CSV splitting */
    struct csv_parser csv;
    bool csv_ok;
    char *cellbuf;
    size_t cellbuf_len, cellbuf_cap;
    bool cell_oom;
    struct rd_cells cells;
    char (*names)[64]; /* a header line's cell names; allocated at the first header */

    struct rd_smi_clock clock;

    /* kind-specific state */
    void *st;
    void (*line_fn)(struct rd_reader *r, const char *s, size_t n);
    /* where a whole row starts after a torn one on the same line (0: none); NULL: not known.
     * Asked only for a line about to be skipped (rd_skip), which then sets resync_at. */
    size_t (*row_start_fn)(struct rd_reader *r, const char *s, size_t n);
    const char *line_s; /* the line being read, while line_fn runs */
    size_t line_n, resync_at;
    void (*free_fn)(struct rd_reader *r);
};

/* Split a CSV line into r->cells (a fast path for lines without quotes, else libcsv, always
 * libcsv with opts.libcsv_only). false when libcsv fails (counted by the caller). */
bool rd_split_csv(struct rd_reader *r, const char *s, size_t n);
/* Count a torn record before a whole one on the same line (quality.torn), with a message. */
void rd_torn(struct rd_reader *r);
/* row_start_fn of the CSV kinds whose rows begin with a timestamp (reader_core.c) */
size_t rd_row_start_ts(struct rd_reader *r, const char *s, size_t n);
/* The same, always through libcsv (the reference for the fast path). */
bool rd_split_libcsv(struct rd_reader *r, const char *s, size_t n);
/* Split on blanks (dmon) into r->cells. */
void rd_split_ws(struct rd_reader *r, const char *s, size_t n);

/* Skip the current line for reason (counts it and calls sink->diag). */
void rd_skip(struct rd_reader *r, enum rd_skip why, const char *detail);
/* Count a placeholder token (cell text) in the quality record. */
void rd_count_token(struct rd_quality *q, const char *s, size_t n);
/* times fewer of a token counted (none left: the token gone) */
void rd_uncount_token(struct rd_quality *q, const char *s, size_t n, uint64_t times);

/* What a numeric cell held. */
enum rd_cell_kind { RD_CELL_NUM, RD_CELL_PLACEHOLDER, RD_CELL_EMPTY, RD_CELL_BAD };
/* Parse a numeric cell ("631.95", "631.95 W", "100 %"); placeholders ([...], N/A, -) and empty
 * cells give NAN. Counts placeholders (and empty cells when count_empty) and bad cells in q. */
double rd_num_cell_slow(struct rd_quality *q, const char *s, size_t n, bool count_empty);
/* v, or NAN when v is a number outside rg (a bad cell of column, named in q->out_of_range). A
 * zero range ({0, 0}) takes anything. */
double rd_in_range_slow(struct rd_reader *r, const char *column, double v, struct rd_range rg);
/* "YYYY/MM/DD HH:MM:SS[.fff]" (any number of fraction digits, '.' or ',') in tz: the one
 * parser of nvidia-smi's times, for --query-gpu rows, gpu_procs rows and dmon -o DT. */
bool rd_parse_smi_ts(struct rd_smi_clock *c, const struct rd_tz *tz, const char *s, size_t n,
                      double *out);
/* Our ISO 8601 timestamps (and, leniently, nvidia-smi's in UTC). */
bool rd_parse_any_ts(const char *s, size_t n, double *out);

/* Strip a " [unit]" suffix and blanks from a header cell into out (NUL-terminated). */
void rd_header_name(const char *s, size_t n, char *out, size_t cap);

/* ---- CSV lines with a header (reader_core.c) */

/* Split a CSV line into r->cells; false, with the line counted as skipped, if it cannot be. */
bool rd_split_cells(struct rd_reader *r, const char *s, size_t n);
/* Every cell looks like a field name (optionally " [unit]") and one is known(): a header. */
bool rd_cells_are_header_names(struct rd_reader *r, bool (*known)(const char *));
/* The cells of a header line as column names (units stripped), in rd_names_storage(). NULL if
 * memory ran out: the header is then counted but not used. */
char (*rd_header_names(struct rd_reader *r))[64];
/* Room for a line's column names, kept by the reader from the first use on (rows never
 * allocate). NULL if memory ran out. */
char (*rd_names_storage(struct rd_reader *r))[64];
/* Split a comma-separated field list ("timestamp, index,uuid") into names. Returns the count. */
size_t rd_split_fields(const char *list, char (*out)[64], size_t max);
/* "[N/A]", "[Not Supported]", "N/A": a cell nvidia-smi writes for a value it has not. Inline:
 * every uuid and ignored cell of a row is asked. */
static inline bool rd_is_placeholder(const char *s, size_t n)
{
    return n && (s[0] == '[' || (n == 3 && !memcmp(s, "N/A", 3)));
}

/* ---- the reader's life (reader_core.c) */

/* A reader with no line parser yet: name copied, opts and sink NULL for defaults, q zeroed.
 * NULL on ENOMEM. The kind's init then sets r->st, r->line_fn, r->free_fn. */
struct rd_reader *rd_reader_alloc(enum hw_file kind, const char *name,
                                    const struct rd_read_opts *opts,
                                    const struct rd_sink *sink, struct rd_quality *q);
/* A free_fn for kinds whose state is one calloc'd block. */
void rd_st_free(struct rd_reader *r);

/* Set up r->st, r->line_fn and r->free_fn for one kind (left NULL on ENOMEM); dispatch.c calls
 * them by kind. */
void rd_gpu_init(struct rd_reader *r);        /* read_gpu.c */
void rd_dmon_init(struct rd_reader *r);       /* read_dmon.c (hw_dmon.csv, hw_gpm.csv) */
void rd_cpu_init(struct rd_reader *r);        /* read_named.c */
void rd_proc_init(struct rd_reader *r);       /* read_named.c */
void rd_tree_pids_init(struct rd_reader *r);  /* read_named.c */
void rd_gpu_procs_init(struct rd_reader *r);  /* read_gpu_procs.c */
void rd_runlog_init(struct rd_reader *r);     /* read_runlog.c */
void rd_health_init(struct rd_reader *r);     /* read_health.c */
void rd_energy_csv_init(struct rd_reader *r); /* read_named.c */
void rd_pmon_init(struct rd_reader *r);       /* read_dmon.c (hw_pmon.csv) */

#endif
