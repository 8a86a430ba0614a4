/* librunlog: append phase and event entries to a JSON Lines run log.
 *
 * Every entry is one line, written with one write(2) on a descriptor opened with O_APPEND, so
 * lines from many threads and processes appending to the same file never tear or interleave
 * (on local filesystems), and `tail -f` only ever sees whole lines. There is no buffering: when
 * a call returns 0 the line is in the kernel; with RL_FSYNC_LINE it is on disk.
 *
 * The lines have pytyche's RunLog shapes, key order and spacing:
 *
 *   {"ts": "2026-11-21T15:27:49.697+00:00", "type": "phase", "name": "train", "seconds": 12.345, ...}
 *   {"ts": "2026-11-21T15:27:49.697+00:00", "type": "event", "event": "start", "data": {...}}
 *
 * `ts` is UTC with milliseconds (truncated, like Python's isoformat(timespec="milliseconds")),
 * `seconds` is rounded to 3 decimals as Python's round(x, 3), and doubles print as Python's
 * repr() does. Whatever the caller passes, each line is valid JSON: quotes, backslashes and
 * control characters are escaped, each byte of invalid UTF-8 in a name, key or string value is
 * replaced by U+FFFD, and NaN or infinite doubles become null. Numbers are written with a dot
 * whatever locale the process set (setlocale(LC_ALL, "") under de_DE): the library formats them
 * in the "C" locale of the calling thread only (uselocale, restored before it returns).
 *
 * Errors: every function returns 0 or a negative errno (-ENOSPC, -EACCES, -EISDIR, -EINVAL, ...);
 * the library never prints and never exits. A line that could not be written (-ENOSPC on a full
 * disk) is lost and nothing else changes: the log stays usable and the next call tries again;
 * whether that ends the job is the caller's choice (the Python package counts and goes on). All functions are thread-safe on the same rl_log_t,
 * except rl_close(), which must not race with other calls on that log.
 */
#ifndef RUNLOG_H
#define RUNLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(RUNLOG_BUILDING) && defined(__GNUC__)
#define RL_API __attribute__((visibility("default")))
#else
#define RL_API
#endif

/* The release: the one place it is defined (CMake, the programs' --version and the Python
 * package read it from here). */
#define RL_VERSION_MAJOR 0
#define RL_VERSION_MINOR 1
#define RL_VERSION_PATCH 0

/* An open run log. Opaque; create with rl_open(), free with rl_close(). */
typedef struct rl_log rl_log_t;

/* rl_open() flags. */
enum {
    RL_FSYNC_LINE = 1 << 0,  /* fdatasync(2) after every line: survives a power cut, costs ~ms */
    RL_FSYNC_CLOSE = 1 << 1, /* fsync(2) once in rl_close() */
};

/* The kinds of value an extra field (phase) or data member (event) can hold. */
typedef enum rl_type {
    RL_T_STRING, /* v.s: a NUL-terminated string (NULL prints as null) */
    RL_T_INT,    /* v.i: a signed 64-bit integer */
    RL_T_DOUBLE, /* v.d: a double; NaN and infinities print as null */
    RL_T_BOOL,   /* v.b */
    RL_T_NULL,   /* no value: null */
    RL_T_JSON,   /* v.s: any JSON value as text ("[1,2]", "{\"a\":1}"), validated and re-printed;
                  * integers must fit 64 bits (else -EINVAL, never another number) */
    RL_T_MERGE,  /* v.s: a JSON object as text whose members are added as fields; key is unused */
    RL_T_STRV,   /* v.sv: an array of sv.n strings (NULL entries print as null) */
    RL_T_OBJ,    /* v.f: a nested object of f.n fields; its keys may not repeat (-EINVAL) */
    RL_T_ARR,    /* v.f: an array of the values of f.n fields (their keys are ignored) */
} rl_type;

/* How deep RL_T_OBJ and RL_T_ARR values may nest inside an entry's fields (a field array that
 * contains itself would otherwise recurse for ever): deeper is -EINVAL. */
#define RL_MAX_DEPTH 16

/* One key/value pair. The strings and arrays are borrowed for the duration of the call only. */
typedef struct rl_field {
    const char *key;
    rl_type type;
    union {
        const char *s;
        int64_t i;
        double d;
        bool b;
        struct {
            const char *const *v;
            size_t n;
        } sv;
        struct {
            const struct rl_field *v;
            size_t n;
        } f;
    } v;
} rl_field_t;

/* Shorthands for building rl_field_t arrays:
 *   rl_field_t f[] = { RL_STR("model", "gpt2"), RL_INT("step", 100), RL_DBL("loss", 0.25) }; */
#define RL_STR(k, val) ((rl_field_t){.key = (k), .type = RL_T_STRING, .v.s = (val)})
#define RL_INT(k, val) ((rl_field_t){.key = (k), .type = RL_T_INT, .v.i = (val)})
#define RL_DBL(k, val) ((rl_field_t){.key = (k), .type = RL_T_DOUBLE, .v.d = (val)})
#define RL_BOOL(k, val) ((rl_field_t){.key = (k), .type = RL_T_BOOL, .v.b = (val)})
#define RL_NULL(k) ((rl_field_t){.key = (k), .type = RL_T_NULL})
#define RL_JSON(k, text) ((rl_field_t){.key = (k), .type = RL_T_JSON, .v.s = (text)})
#define RL_MERGE(text) ((rl_field_t){.key = NULL, .type = RL_T_MERGE, .v.s = (text)})
/* Structured values, without JSON text to parse:
 *   const char *argv[] = {"python", "train.py"};
 *   rl_field_t gpu[] = { RL_INT("index", 0), RL_STR("uuid", "GPU-1") };
 *   rl_field_t ids[] = { RL_INT(NULL, 0), RL_INT(NULL, 3) };
 *   rl_field_t f[] = { RL_STRV("command", argv, 2), RL_OBJ("gpu", gpu, 2), RL_ARR("ids", ids, 2) };
 * gives "command": ["python", "train.py"], "gpu": {"index": 0, "uuid": "GPU-1"}, "ids": [0, 3].
 * Nested values may be any type but RL_T_MERGE (which only adds members to an object). */
#define RL_STRV(k, arr, cnt)                                                                       \
    ((rl_field_t){.key = (k), .type = RL_T_STRV, .v.sv = {.v = (arr), .n = (cnt)}})
#define RL_OBJ(k, fields, cnt)                                                                     \
    ((rl_field_t){.key = (k), .type = RL_T_OBJ, .v.f = {.v = (fields), .n = (cnt)}})
#define RL_ARR(k, fields, cnt)                                                                     \
    ((rl_field_t){.key = (k), .type = RL_T_ARR, .v.f = {.v = (fields), .n = (cnt)}})

/* Open (creating it with mode 0644, less the umask, if missing) the log at path for appending. A
 * NULL or empty path means the RUNLOG_FILE environment variable. flags: RL_FSYNC_* or 0.
 * The log must be a regular file, or a character device such as /dev/null: a FIFO, a directory
 * or a socket is refused, and a FIFO is never waited on (the open does not block), so a process
 * that logs can always be stopped. A symbolic link is followed (the path is the caller's own).
 * On success *out receives a log the caller frees with rl_close(); on failure *out is untouched.
 * Returns 0, -EINVAL (no path and RUNLOG_FILE unset or empty, or not a regular file), -ENOMEM, or
 * open(2)'s error (-EACCES, -ENOENT for a missing directory, ...). */
RL_API int rl_open(rl_log_t **out, const char *path, unsigned flags);

/* A log on a descriptor the caller opened for appending (O_APPEND: one line per write(2) is whole
 * only then), for callers that open the file themselves (relative to a directory, exclusively).
 * The log owns fd from then on, also when the call fails: rl_close() closes it. Returns 0,
 * -EINVAL (fd < 0, or not opened with O_APPEND), or -ENOMEM. */
RL_API int rl_fdopen(rl_log_t **out, int fd, unsigned flags);

/* Follow the log's name, as `tail -F` does: before each line, when name (in the directory dirfd,
 * duplicated) no longer names the log's file (a rotation renamed or deleted it, another file was
 * put there), the log writes to what the name names now. When nothing does, it makes the file
 * again, its first line a "log_continued" event whose data says where the earlier lines went:
 * "previous" (the old file's name when it is still in the same directory, else its path, or null
 * when it was deleted), "pid" (the writer's), "severity": "info". A copy-and-truncate rotation
 * needs nothing: the log appends. A path that was a symbolic link when rl_open() opened it stays
 * one: the file it names is made again; any other name is never followed through a link put
 * there since (a shared directory): that line is refused (-ELOOP). What is watched is the directory holding the name:
 * a link to a file in another directory notices that file's rotation only when the link's own
 * directory changes (until then the lines go to the old file, which the rotation kept). rl_open() does this by itself for a regular file; a log from
 * rl_fdopen() follows no name until this is called. The cost is one fstat(2) of the directory per
 * line, and a look at the name when the directory changed (about 0.5 us a line in all on ext4:
 * tests/bench/bench_runlog). When
 * the name cannot be opened again, the call that writes a line returns the error and writes
 * nothing: no line goes silently into a file no name reaches. Returns 0, -EINVAL (name empty or
 * with a '/', the log not a regular file, or already following a name), or -errno. */
RL_API int rl_follow(rl_log_t *log, int dirfd, const char *name);

/* Close the log (fsync first if RL_FSYNC_CLOSE). Accepts NULL. Returns 0 or the error of
 * fsync(2)/close(2); the log is freed either way. */
RL_API int rl_close(rl_log_t *log);

/* The file descriptor, for callers that poll or stat it. Owned by the log. */
RL_API int rl_fileno(const rl_log_t *log);

/* The longest phase a log takes, in seconds (about 31,700 years): anything longer is a unit or
 * arithmetic mistake, not a measurement, and a reader would have to trust it. */
#define RL_MAX_SECONDS 1e12

/* Append a completed phase: {"ts", "type": "phase", "name", "seconds", extra...}.
 * seconds must be finite and from 0 to RL_MAX_SECONDS (else -EINVAL, nothing written); it is
 * rounded to 3 decimals. extra may be NULL when n_extra is 0.
 * Extra keys may not repeat each other nor be one of ts, type, name, seconds: -EINVAL.
 * Returns 0, -EINVAL (NULL name, bad seconds, bad key, RL_T_JSON/RL_T_MERGE text that is not valid JSON,
 * RL_T_MERGE text that is not an object or an RL_T_MERGE inside an array, a NULL array with a
 * count, nesting deeper than RL_MAX_DEPTH, an unknown type), -ENOMEM, or write(2)'s error
 * (-ENOSPC, -EIO, ...).
 * If the write failed part way (a full disk), the library ends the torn line with '\n', at once
 * or, when that fails too, before this log's next line, so that its lines after it stay whole;
 * it still returns the error. (Another writer's line glued to the torn start meanwhile is found
 * again by readers: every entry begins {"ts": ".) */
RL_API int rl_phase(rl_log_t *log, const char *name, double seconds, const rl_field_t *extra,
                    size_t n_extra);

/* Append an event: {"ts", "type": "event", "event": type, "data": {fields...}}. With no fields
 * (n_data 0, or only RL_T_MERGE of "{}"), "data" is left out, as pytyche does.
 * Data keys may not repeat, nor the keys of any RL_T_OBJ inside: -EINVAL. Other errors as
 * rl_phase(). */
RL_API int rl_event(rl_log_t *log, const char *type, const rl_field_t *data, size_t n_data);

/* Append a line the caller formatted, through the same path as the lines above (one write(2),
 * the name followed, a torn line ended): for a binding that must write what another tool's
 * RunLog writes where rl_phase()/rl_event() refuse the value (the Python package writes
 * pytyche's lines for a negative duration, or an extra named "type"). line (len bytes, without
 * its '\n', which the library adds) must be one JSON object, checked as RL_T_JSON text is
 * (integers within 64 bits); it is written as it is. Returns 0, -EINVAL (NULL, empty, a '\n'
 * or NUL inside, not a JSON object), -ENOMEM, or write(2)'s error as rl_phase(). */
RL_API int rl_write_line(rl_log_t *log, const char *line, size_t len);

/* A phase being timed on CLOCK_MONOTONIC (immune to wall-clock steps). The caller owns the
 * struct (on the stack is fine); name is borrowed and must stay valid until rl_timer_end(). */
typedef struct rl_timer {
    const char *name;
    struct timespec start;
} rl_timer_t;

/* Start timing a phase. Returns 0 or -EINVAL (NULL timer or name). */
RL_API int rl_timer_begin(rl_timer_t *timer, const char *name);

/* Log the phase begun with rl_timer_begin() with the seconds elapsed since. If seconds_out is
 * not NULL it receives the (unrounded) duration. Errors as rl_phase(). */
RL_API int rl_timer_end(rl_log_t *log, const rl_timer_t *timer, const rl_field_t *extra,
                        size_t n_extra, double *seconds_out);

/* A phase logged twice: when it begins ({"ts", "type": "phase_begin", "name", "phase_id",
 * extra...}) and, like rl_phase(), when it ends ({"ts", "type": "phase", "name", "seconds",
 * "phase_id", extra...}). A run killed inside it then still says which phase it was in and
 * since when; readers pair the two entries by "phase_id", so nested phases and phases of many
 * threads and processes pair correctly, and `jq 'select(.type=="phase")'` still selects
 * completed phases only. The caller owns the struct (on the stack is fine); name is borrowed
 * and must stay valid until rl_phase_end(). Read only id (a string unique on this host). */
typedef struct rl_span {
    const char *name;
    struct timespec start; /* CLOCK_MONOTONIC */
    char id[40];           /* "PID.N": pairs the phase entry with its begin entry */
} rl_span_t;

/* The entry type of a begin entry, and the key that pairs it with its phase entry. */
#define RL_PHASE_BEGIN "phase_begin"
#define RL_PHASE_ID "phase_id"

/* Begin a phase: start its clock and append its begin entry. Extra keys as rl_phase() (and not
 * phase_id). The span is started even when the line could not be written (the error is
 * returned), so that rl_phase_end() still logs the phase. Returns 0, -EINVAL (NULL span or
 * name, a bad key) or an error as rl_phase(). */
RL_API int rl_phase_begin(rl_log_t *log, rl_span_t *span, const char *name,
                          const rl_field_t *extra, size_t n_extra);

/* End the phase begun with rl_phase_begin(): append its phase entry with the seconds elapsed
 * since (seconds_out, if not NULL, receives them unrounded). Errors as rl_phase(). */
RL_API int rl_phase_end(rl_log_t *log, const rl_span_t *span, const rl_field_t *extra,
                        size_t n_extra, double *seconds_out);

/* Fill span as rl_phase_begin() does, without writing anything (for a caller that formats the
 * line with rl_format_phase_begin() or carries the span to another process). -EINVAL: NULL. */
RL_API int rl_span_start(rl_span_t *span, const char *name);

/* The lines rl_phase_begin() and rl_phase_end() write, formatted as rl_format_phase() does;
 * seconds is the phase's duration (rl_phase_end() measures it). */
RL_API long rl_format_phase_begin(char *buf, size_t cap, const rl_span_t *span,
                                  const rl_field_t *extra, size_t n_extra);
RL_API long rl_format_phase_end(char *buf, size_t cap, const rl_span_t *span, double seconds,
                                const rl_field_t *extra, size_t n_extra);

/* Format the line rl_phase()/rl_event() would write (with its trailing '\n') into buf of size
 * cap, NUL-terminated, without writing it anywhere. Returns the line's length (which may be
 * >= cap: then the line was cut; call again with more room) or a negative errno as above. */
RL_API long rl_format_phase(char *buf, size_t cap, const char *name, double seconds,
                            const rl_field_t *extra, size_t n_extra);
RL_API long rl_format_event(char *buf, size_t cap, const char *type, const rl_field_t *data,
                            size_t n_data);

/* The library's version, "0.1.0". Static storage. */
RL_API const char *rl_version(void);

#ifdef __cplusplus
}
#endif

#endif
