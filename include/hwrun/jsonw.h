/* The one JSON writer of hwrun: every JSON byte the tools print (librunlog's lines, hwmon's
 * events through librunlog, summarize's summary.json, JSON Lines rows and pytyche's to_dict())
 * is escaped by hw_buf_json_str() and its numbers are formatted by hw_buf_json_num(), so one
 * string or one number always prints the same way wherever it appears.
 *
 * Two layouts, both with Python's json.dumps separators (", " and ": "):
 *   HW_JSON_LINE    everything on one line: {"a": 1, "b": [1, 2]}     (run.jsonl, jsonl rows)
 *   HW_JSON_PRETTY  two-space indent, one member a line, "{}" when empty (summary.json)
 *
 * Usage:
 *     struct hw_json w;
 *     hw_json_init(&w, &buf, HW_JSON_LINE, HW_NUM_REPR);
 *     hw_json_open(&w, NULL, '{');
 *     hw_json_str(&w, "name", "train");
 *     hw_json_open(&w, "gpus", '[');
 *     hw_json_i64(&w, NULL, 0);            (a NULL key: an array element, or the top value)
 *     hw_json_close(&w);
 *     hw_json_close(&w);
 *     if (w.err) ...                       (nesting beyond HW_JSON_MAX_DEPTH, or unbalanced)
 */
#ifndef HWRUN_JSONW_H
#define HWRUN_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwrun/io.h"
#include "hwrun/buf.h"

/* How a double prints. Every mode prints integers-valued doubles with ".0" (12.0), as Python. */
enum hw_json_num {
    HW_NUM_REPR,   /* Python's repr(): the shortest string that reads back as x (0.1, 1e+16);
                    * NaN and infinities as null (librunlog: every line stays valid JSON) */
    HW_NUM_SIG12,  /* rounded to 12 significant digits first, then as repr: a computed mean
                    * prints 951.1, not 951.1000000000001; NaN/inf as null (summarize) */
    HW_NUM_PYJSON, /* repr, with NaN, Infinity, -Infinity as Python's json.dumps prints them
                    * (summarize --format pytyche: pytyche's own output, quirks included) */
};

/* Append s[0..n) as a JSON string literal (with quotes). Valid UTF-8 is copied as is; control
 * characters, '"' and '\\' are escaped; each byte of an invalid UTF-8 sequence becomes U+FFFD. */
void hw_buf_json_str(struct hw_buf *b, const char *s, size_t n);
/* Python's round(x, ndigits) as a double (correctly rounded from the exact binary value): its
 * repr is what hw_buf_py_round prints, for a value handed on as a number (librunlog fields). */
double hw_py_round_value(double x, int ndigits);
/* x rounded to 12 significant digits (HW_NUM_SIG12's rounding), for outputs that format the
 * number themselves (summarize's HTML) yet must show the JSON's value. */
double hw_num_sig12(double x);
/* Append the double x in the given mode (see enum hw_json_num). */
void hw_buf_json_num(struct hw_buf *b, double x, enum hw_json_num mode);
/* Append a double as Python's repr() would print it (shortest round-trip: 0.1, 12.0, 1e+16,
 * 1.5e-05); NaN/inf are appended as JSON null. hw_buf_json_num's HW_NUM_REPR; the Prometheus
 * export prints its values with it too. */
void hw_buf_py_double(struct hw_buf *b, double x);
/* Append Python's repr(round(x, ndigits)) (correctly rounded from the exact binary value, as
 * Python does); NaN/inf as null. librunlog's "seconds". */
void hw_buf_py_round(struct hw_buf *b, double x, int ndigits);

enum hw_json_style { HW_JSON_LINE, HW_JSON_PRETTY };

#define HW_JSON_MAX_DEPTH 64 /* json-c's parser stops at 32: room for a parsed value inside ours   \
                              */

struct hw_json {
    struct hw_buf *b;
    enum hw_json_style style;
    enum hw_json_num num; /* how hw_json_num() prints doubles */
    int depth;            /* containers open */
    int over;             /* opens refused beyond HW_JSON_MAX_DEPTH (closes pair with them) */
    bool err;             /* too deep, or a close without an open: the text is not valid JSON */
    int flat;             /* containers from this depth on are on one line; 0: none */
    bool first[HW_JSON_MAX_DEPTH + 1]; /* no member written yet at this depth */
    char close[HW_JSON_MAX_DEPTH + 1]; /* '}' or ']' for each open container */
};

void hw_json_init(struct hw_json *w, struct hw_buf *b, enum hw_json_style style,
                  enum hw_json_num num);

/* Every value writer takes the member's key: NULL for an array element or the top value. */
void hw_json_open(struct hw_json *w, const char *key, char c);       /* c: '{' or '[' */
void hw_json_close(struct hw_json *w);                               /* the innermost container */
/* A container written on one line whatever the style, with all it holds: a record of a long
 * list (a phase per step) reads as one line, and takes less room and time. */
void hw_json_open_flat(struct hw_json *w, const char *key, char c);
void hw_json_str(struct hw_json *w, const char *key, const char *s); /* NULL s: null */
void hw_json_strn(struct hw_json *w, const char *key, const char *s, size_t n);
void hw_json_num(struct hw_json *w, const char *key, double x);
void hw_json_i64(struct hw_json *w, const char *key, int64_t v);
void hw_json_u64(struct hw_json *w, const char *key, uint64_t v);
/* a process id, null where none is known (v <= 0) */
void hw_json_pid(struct hw_json *w, const char *key, long v);
void hw_json_bool(struct hw_json *w, const char *key, bool v);
void hw_json_null(struct hw_json *w, const char *key);
/* text that is already JSON (the caller vouches for it); NULL: null */
void hw_json_raw(struct hw_json *w, const char *key, const char *text);
/* Only the separator and key: the caller appends the value to w->b itself. */
void hw_json_key(struct hw_json *w, const char *key);
/* The separator, then text as it is: a member the caller has already written as JSON
 * ("\"type\": \"phase\""), for the fixed parts of a line. */
void hw_json_key_lit(struct hw_json *w, const char *text, size_t n);
#define HW_JSON_LIT(w, text) hw_json_key_lit((w), (text), sizeof(text) - 1)

/* A point to come back to: hw_json_rewind() drops everything written since hw_json_mark(), as
 * if it had never been (librunlog leaves an event's empty "data" out, as pytyche does). */
struct hw_json_mark {
    size_t len;
    int depth, over, flat;
    bool first, err;
};
struct hw_json_mark hw_json_mark(const struct hw_json *w);
void hw_json_rewind(struct hw_json *w, struct hw_json_mark m);

#endif
