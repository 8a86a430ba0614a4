/* librunlog: JSON Lines run log entries, one whole line per write(2). See include/runlog.h.
 *
 * Lines are formatted with hwrun's JSON writer (hwrun/jsonw.h) into a stack buffer (heap only for
 * lines over 4 KiB), because the line shape must be pytyche's exactly (", " and ": " separators,
 * key order, Python float repr) and because a log call should cost little more than the write(2)
 * itself. json-c is used only to validate and walk JSON given as text. */
#define RUNLOG_BUILDING 1
#include "runlog.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwrun/io.h"
#include "hwrun/jsonw.h"
#include "hwrun/rundir.h"
#include "hwrun/timeutil.h"
#include "hwrun/buf.h"

#define LINE_STACK 4096 /* a line formatted on the stack; longer ones on the heap */

struct rl_log {
    int fd;
    unsigned flags;
    atomic_bool torn; /* a line of ours was cut short and could not be ended (a full disk) */
    /* The name the log follows (rl_follow), as tail -F does: -1 when it is only its descriptor.
     * dev and ino are the file the name named when last looked at; a reopen swaps the file
     * under fd with dup3(), so a line being written by another thread meanwhile goes whole to
     * one file or the other and no writer ever holds a closed descriptor (reopen). */
    int dirfd;
    char *name;
    bool name_link; /* the name is the caller's symbolic link (rl_open of a link): followed */
    _Atomic uint64_t dev, ino;
    /* the directory's last change (ns) when the name was last found right, 0: look again */
    _Atomic int64_t dir_ns;
};

/* The keys a caller may not add, per entry kind: they would overwrite pytyche's own. */
static const char *const phase_reserved[] = {HW_RL_TS, HW_RL_TYPE, HW_RL_NAME, HW_RL_SECONDS,
                                             NULL};
/* A begin entry's and a paired phase entry's: phase_id is the library's, and a begin entry
 * must not say seconds (readers would take it for a phase). */
static const char *const span_reserved[] = {HW_RL_TS,      HW_RL_TYPE,     HW_RL_NAME,
                                            HW_RL_SECONDS, HW_RL_PHASE_ID, NULL};
/* Event data is its own object, so its keys cannot clash with the entry's. */
static const char *const data_reserved[] = {NULL};

/* The keys seen so far in one entry, to refuse duplicates (a JSON object with a repeated key is
 * read differently by different tools). Small on the stack; grows on the heap if ever needed. */
struct keyset {
    const char *small[32];
    const char **k;
    size_t n, cap;
};

static void keyset_init(struct keyset *ks)
{
    ks->k = ks->small;
    ks->n = 0;
    ks->cap = sizeof ks->small / sizeof ks->small[0];
}

static void keyset_free(struct keyset *ks)
{
    if (ks->k != ks->small)
        free(ks->k);
}

/* Add key; -EINVAL if reserved or already present, -ENOMEM. */
static int keyset_add(struct keyset *ks, const char *key, const char *const *reserved)
{
    for (const char *const *r = reserved; *r; r++)
        if (strcmp(*r, key) == 0)
            return -EINVAL;
    for (size_t i = 0; i < ks->n; i++)
        if (strcmp(ks->k[i], key) == 0)
            return -EINVAL;
    if (ks->n == ks->cap) {
        size_t cap = ks->cap * 2;
        const char **nk = malloc(cap * sizeof *nk);
        if (!nk)
            return -ENOMEM;
        memcpy(nk, ks->k, ks->n * sizeof *nk);
        if (ks->k != ks->small)
            free(ks->k);
        ks->k = nk;
        ks->cap = cap;
    }
    ks->k[ks->n++] = key;
    return 0;
}

/* Does every integer literal in the JSON text fit json-c's range (int64, or uint64 when
 * positive)? json-c saturates one that does not (1e23 written as an integer would come back as
 * 18446744073709551615): such text is refused rather than logged as another number. Only the
 * lexical shape is checked here; the parser checks the rest. */
static bool json_ints_fit(const char *t)
{
    bool in_str = false;
    for (const char *p = t; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = false;
            continue;
        }
        if (*p == '"') {
            in_str = true;
            continue;
        }
        if (*p != '-' && (*p < '0' || *p > '9'))
            continue;
        bool neg = *p == '-';
        const char *d = p + neg, *e = d;
        while (*e >= '0' && *e <= '9')
            e++;
        p = e - 1;
        if (*e == '.' || *e == 'e' || *e == 'E')
            continue; /* a double: json-c keeps it as one */
        size_t n = (size_t)(e - d);
        const char *max = neg ? "9223372036854775808" : "18446744073709551615";
        size_t nmax = strlen(max);
        if (n > nmax || (n == nmax && memcmp(d, max, n) > 0))
            return false;
    }
    return true;
}

/* Parse text as one complete JSON value (surrounding whitespace allowed) into *out (NULL for the
 * text "null"). Returns 0 or -EINVAL (also for an integer beyond 64 bits: json_ints_fit). */
static int parse_json_text(const char *text, struct json_object **out)
{
    if (!text || !json_ints_fit(text))
        return -EINVAL;
    size_t len = strlen(text);
    if (len > INT32_MAX)
        return -EINVAL;
    struct json_tokener *tok = json_tokener_new();
    if (!tok)
        return -ENOMEM;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *obj = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error err = json_tokener_get_error(tok);
    /* A bare number at the very end is complete only once the tokener knows input ended. */
    if (err == json_tokener_continue) {
        obj = json_tokener_parse_ex(tok, "", 1);
        err = json_tokener_get_error(tok);
    }
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (err != json_tokener_success) {
        json_object_put(obj);
        return -EINVAL;
    }
    for (size_t i = used; i < len; i++)
        if (!strchr(" \t\r\n", text[i])) {
            json_object_put(obj); /* trailing junk after a valid value */
            return -EINVAL;
        }
    *out = obj;
    return 0;
}

/* Print a json-c value the way Python's json.dumps does (", ", ": ", repr floats). */
static void put_json_value(struct hw_json *w, const char *key, struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        hw_json_null(w, key);
        break;
    case json_type_boolean:
        hw_json_bool(w, key, json_object_get_boolean(v));
        break;
    case json_type_int: {
        int64_t i = json_object_get_int64(v);
        if (i == INT64_MAX && json_object_get_uint64(v) > (uint64_t)INT64_MAX)
            hw_json_u64(w, key, json_object_get_uint64(v));
        else
            hw_json_i64(w, key, i);
        break;
    }
    case json_type_double:
        hw_json_num(w, key, json_object_get_double(v));
        break;
    case json_type_string:
        hw_json_strn(w, key, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        break;
    case json_type_array: {
        size_t n = json_object_array_length(v);
        hw_json_open(w, key, '[');
        for (size_t i = 0; i < n; i++)
            put_json_value(w, NULL, json_object_array_get_idx(v, i));
        hw_json_close(w);
        break;
    }
    case json_type_object: {
        hw_json_open(w, key, '{');
        json_object_object_foreach(v, k, val) put_json_value(w, k, val);
        hw_json_close(w);
        break;
    }
    }
}

/* One entry being formatted. Objects parsed from RL_T_MERGE text stay alive in held until the
 * entry is done, because the key sets point into them. */
struct entry {
    struct hw_json w;
    struct json_object *held;
};

static int put_members(struct entry *e, const rl_field_t *f, size_t n,
                       const char *const *reserved, int depth, size_t *n_out);

/* One value (key NULL: an array element). depth counts the RL_T_OBJ/RL_T_ARR around it. */
static int put_value(struct entry *e, const char *key, const rl_field_t *f, int depth)
{
    struct hw_json *w = &e->w;
    switch (f->type) {
    case RL_T_STRING:
        hw_json_str(w, key, f->v.s);
        return 0;
    case RL_T_INT:
        hw_json_i64(w, key, f->v.i);
        return 0;
    case RL_T_DOUBLE:
        hw_json_num(w, key, f->v.d);
        return 0;
    case RL_T_BOOL:
        hw_json_bool(w, key, f->v.b);
        return 0;
    case RL_T_NULL:
        hw_json_null(w, key);
        return 0;
    case RL_T_JSON: {
        struct json_object *obj = NULL;
        int rc = parse_json_text(f->v.s, &obj);
        if (rc < 0)
            return rc;
        put_json_value(w, key, obj);
        json_object_put(obj);
        return 0;
    }
    case RL_T_STRV:
        if (f->v.sv.n && !f->v.sv.v)
            return -EINVAL;
        hw_json_open(w, key, '[');
        for (size_t i = 0; i < f->v.sv.n; i++)
            hw_json_str(w, NULL, f->v.sv.v[i]);
        hw_json_close(w);
        return 0;
    case RL_T_OBJ: {
        if (depth >= RL_MAX_DEPTH)
            return -EINVAL;
        size_t n;
        hw_json_open(w, key, '{');
        int rc = put_members(e, f->v.f.v, f->v.f.n, data_reserved, depth + 1, &n);
        hw_json_close(w);
        return rc;
    }
    case RL_T_ARR: {
        if (depth >= RL_MAX_DEPTH || (f->v.f.n && !f->v.f.v))
            return -EINVAL;
        int rc = 0;
        hw_json_open(w, key, '[');
        for (size_t i = 0; i < f->v.f.n && rc == 0; i++)
            rc = f->v.f.v[i].type == RL_T_MERGE ? -EINVAL
                                                : put_value(e, NULL, &f->v.f.v[i], depth + 1);
        hw_json_close(w);
        return rc;
    }
    case RL_T_MERGE:
    default:
        return -EINVAL;
    }
}

/* Write the members of an object: each field, or each member of RL_T_MERGE text. Returns 0 or
 * -EINVAL/-ENOMEM; *n_out counts the members written. */
static int put_members(struct entry *e, const rl_field_t *f, size_t n,
                       const char *const *reserved, int depth, size_t *n_out)
{
    *n_out = 0;
    if (n && !f)
        return -EINVAL;
    struct keyset ks;
    keyset_init(&ks);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (f[i].type == RL_T_MERGE) {
            struct json_object *obj = NULL;
            if ((rc = parse_json_text(f[i].v.s, &obj)) < 0)
                break;
            if (!json_object_is_type(obj, json_type_object)) {
                json_object_put(obj);
                rc = -EINVAL;
                break;
            }
            if (!e->held && !(e->held = json_object_new_array())) {
                json_object_put(obj);
                rc = -ENOMEM;
                break;
            }
            json_object_array_add(e->held, obj);
            json_object_object_foreach(obj, key, val)
            {
                if ((rc = keyset_add(&ks, key, reserved)) < 0)
                    break;
                put_json_value(&e->w, key, val);
                (*n_out)++;
            }
            continue;
        }
        if (!f[i].key) {
            rc = -EINVAL;
            break;
        }
        if ((rc = keyset_add(&ks, f[i].key, reserved)) < 0)
            break;
        rc = put_value(e, f[i].key, &f[i], depth);
        (*n_out)++;
    }
    keyset_free(&ks);
    return rc;
}

/* {"ts": "...", "type": "<kind>", then the caller's members, then "}\n". */
static void entry_begin(struct entry *e, struct hw_buf *b, const char *kind)
{
    hw_json_init(&e->w, b, HW_JSON_LINE, HW_NUM_REPR);
    e->held = NULL;
    char ts[HW_ISO_LEN];
    size_t n = hw_iso_utc_now(ts);
    hw_json_open(&e->w, NULL, '{');
    HW_JSON_LIT(&e->w, HW_RL_TS_OPEN); /* after hw_json_open's '{': HW_RL_LINE_START */
    hw_buf_put(b, ts, n); /* digits and punctuation: nothing to escape */
    hw_buf_puts(b, "\", \"" HW_RL_TYPE "\": \"");
    hw_buf_puts(b, kind);
    hw_buf_putc(b, '"');
}

static int entry_end(struct entry *e, int rc)
{
    json_object_put(e->held);
    if (rc < 0)
        return rc;
    hw_json_close(&e->w);
    hw_buf_putc(e->w.b, '\n');
    if (e->w.err || e->w.depth != 0)
        return -EINVAL;
    return e->w.b->oom ? -ENOMEM : 0;
}

/* A phase entry; id: its begin entry's phase_id (NULL: a phase logged only when it ended). */
static int format_phase(struct hw_buf *b, const char *name, double seconds, const char *id,
                        const rl_field_t *extra, size_t n_extra)
{
    /* NaN, a negative or an absurd duration is a caller's bug: refused, never written */
    if (!name || !(seconds >= 0 && seconds <= RL_MAX_SECONDS))
        return -EINVAL;
    struct entry e;
    entry_begin(&e, b, HW_RL_PHASE);
    HW_JSON_LIT(&e.w, "\"" HW_RL_NAME "\": ");
    hw_buf_json_str(b, name, strlen(name));
    HW_JSON_LIT(&e.w, "\"" HW_RL_SECONDS "\": ");
    hw_buf_py_round(b, seconds, 3); /* pytyche: round(seconds, 3) */
    if (id)
        hw_json_str(&e.w, HW_RL_PHASE_ID, id);
    size_t n;
    return entry_end(&e, put_members(&e, extra, n_extra, id ? span_reserved : phase_reserved, 0,
                                     &n));
}

static int format_begin(struct hw_buf *b, const rl_span_t *span, const rl_field_t *extra,
                        size_t n_extra)
{
    if (!span || !span->name || !span->id[0] || !memchr(span->id, '\0', sizeof span->id))
        return -EINVAL;
    struct entry e;
    entry_begin(&e, b, HW_RL_PHASE_BEGIN);
    HW_JSON_LIT(&e.w, "\"" HW_RL_NAME "\": ");
    hw_buf_json_str(b, span->name, strlen(span->name));
    hw_json_str(&e.w, HW_RL_PHASE_ID, span->id);
    size_t n;
    return entry_end(&e, put_members(&e, extra, n_extra, span_reserved, 0, &n));
}

static int format_event(struct hw_buf *b, const char *type, const rl_field_t *data,
                        size_t n_data)
{
    if (!type)
        return -EINVAL;
    struct entry e;
    entry_begin(&e, b, HW_RL_EVENT);
    HW_JSON_LIT(&e.w, "\"" HW_RL_EVENT "\": ");
    hw_buf_json_str(b, type, strlen(type));
    struct hw_json_mark mark = hw_json_mark(&e.w);
    hw_json_open(&e.w, HW_RL_DATA, '{');
    size_t n;
    int rc = put_members(&e, data, n_data, data_reserved, 0, &n);
    hw_json_close(&e.w);
    if (rc == 0 && n == 0)
        hw_json_rewind(&e.w, mark); /* pytyche leaves "data" out when there is none */
    return entry_end(&e, rc);
}

/* ---- following the name ---- */

static void note_file(rl_log_t *log, const struct stat *st)
{
    atomic_store(&log->dev, (uint64_t)st->st_dev);
    atomic_store(&log->ino, (uint64_t)st->st_ino);
}

static bool names_our_file(rl_log_t *log)
{
    struct stat st;
    return fstatat(log->dirfd, log->name, &st, log->name_link ? 0 : AT_SYMLINK_NOFOLLOW) == 0 &&
           (uint64_t)st.st_dev == atomic_load(&log->dev) &&
           (uint64_t)st.st_ino == atomic_load(&log->ino);
}

static int format_event(struct hw_buf *b, const char *type, const rl_field_t *data,
                        size_t n_data);

/* The name is gone: make the file again, its first line a log_continued event that says where
 * the earlier lines are, so that a reader of the name finds them (summarize reads that part
 * first). Made unnamed (O_TMPFILE) and linked in with its line written, so that no other writer's
 * line can come first; where the file system cannot, created exclusively and the line written at
 * once. Returns 0 (the caller opens it by its name: a descriptor of an O_TMPFILE file keeps
 * calling itself deleted in /proc), -EEXIST when another writer made it first, or -errno. */
static int make_continued(rl_log_t *log)
{
    char prev[PATH_MAX], stack[LINE_STACK];
    const char *p = hw_fd_whereabouts(log->fd, log->dirfd, prev, sizeof prev);
    rl_field_t f[] = {p ? RL_STR(HW_LOG_PREVIOUS, p) : RL_NULL(HW_LOG_PREVIOUS),
                      RL_INT("pid", getpid()), RL_STR(HW_EV_SEVERITY, HW_EV_SEVERITY_INFO)};
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    int rc = format_event(&b, HW_EV_LOG_CONTINUED, f, sizeof f / sizeof f[0]);
    struct stat ls;
    bool link = log->name_link && fstatat(log->dirfd, log->name, &ls, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISLNK(ls.st_mode);
    int fd = rc < 0 || link ? rc
                            : openat(log->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (rc == 0 && link) {
        /* the caller's link, its file renamed away: make the file it names, as rl_open() did,
         * the line first unless another writer was quicker (O_NONBLOCK: never wait on a FIFO;
         * the open by name after this refuses what is not a regular file) */
        fd = openat(log->dirfd, log->name, O_CREAT | O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC,
                    0644);
        struct stat st;
        rc = fd < 0 ? -errno : fstat(fd, &st) < 0 ? -errno : 0;
        if (rc == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
            rc = hw_write_all(fd, b.p, b.len, NULL);
        if (fd >= 0)
            close(fd);
    } else if (fd >= 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        rc = hw_write_all(fd, b.p, b.len, NULL);
        if (rc == 0 && linkat(AT_FDCWD, path, log->dirfd, log->name, AT_SYMLINK_FOLLOW) < 0)
            rc = -errno;
        close(fd);
    } else if (rc == 0) { /* no O_TMPFILE here (NFS, old kernels): exclusively, line at once */
        fd = openat(log->dirfd, log->name,
                    O_CREAT | O_EXCL | O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
        rc = fd < 0 ? -errno : hw_write_all(fd, b.p, b.len, NULL);
        if (fd >= 0)
            close(fd);
    }
    hw_buf_free(&b);
    return rc;
}

/* Does the name still name the log's file? Looking it up costs 1.5-2 us on ext4 for a file
 * being appended to (its attributes take the inode's locks), more than the line's write: so
 * the directory is looked at instead (0.3 us), whose change time every rename, unlink and
 * create in it moves, and the name only when the directory changed. A change time read in the
 * same clock tick as now is not trusted: a rename in that tick would leave it as it is; nor,
 * on a file system that keeps whole seconds (no nanoseconds in it: NFS of some servers, FAT),
 * one of the last two seconds. */
static bool name_unchanged(rl_log_t *log)
{
    struct stat d;
    if (fstat(log->dirfd, &d) < 0)
        return names_our_file(log);
    int64_t m = (int64_t)d.st_mtim.tv_sec * 1000000000 + d.st_mtim.tv_nsec,
            c = (int64_t)d.st_ctim.tv_sec * 1000000000 + d.st_ctim.tv_nsec;
    if (c > m)
        m = c;
    if (m != 0 && m == atomic_load(&log->dir_ns))
        return true;
    if (!names_our_file(log))
        return false;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME_COARSE, &now);
    int64_t settle = m % 1000000000 == 0 ? 2000000000 : 0;
    atomic_store(&log->dir_ns,
                 (int64_t)now.tv_sec * 1000000000 + now.tv_nsec > m + settle ? m : 0);
    return true;
}

/* The name no longer names the log's file (renamed or deleted by a rotation, replaced): write
 * to what it names now, made again when missing. Returns 0 or -errno (the line is then not
 * written anywhere: not silently into a file no one can find). No lock: threads that find the
 * name moved at once each open what it names (made once: O_TMPFILE's link or O_EXCL decides)
 * and swap it in with dup3(), which is atomic; and a child forked while another thread was
 * here holds no lock that nobody will release. */
static int reopen(rl_log_t *log)
{
    int rc = 0, fd = -1;
    if (names_our_file(log)) /* another thread did it meanwhile */
        return 0;
    unsigned how = HW_OPEN_CHARDEV | (log->name_link ? HW_OPEN_FOLLOW : 0);
    for (int tries = 0; tries < 4 && fd < 0; tries++) {
        fd = hw_open_file(log->dirfd, log->name, how);
        int made = fd == -ENOENT ? make_continued(log) : 0;
        if (fd < 0 && fd != -ENOENT)
            break;
        if (made < 0 && made != -EEXIST) { /* EEXIST: another writer made it first */
            fd = made;
            break;
        }
    }
    struct stat st;
    if (fd < 0)
        rc = fd;
    else if (fstat(fd, &st) < 0 || dup3(fd, log->fd, O_CLOEXEC) < 0)
        rc = -errno;
    else {
        note_file(log, &st);
        atomic_store(&log->torn, false); /* a torn line of ours was the old file's */
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

int rl_follow(rl_log_t *log, int dirfd, const char *name)
{
    struct stat st;
    if (!log || !name || !*name || strchr(name, '/') || log->dirfd >= 0)
        return -EINVAL;
    if (fstat(log->fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return -EINVAL; /* /dev/null, a terminal: no name to follow */
    int d = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    char *n = d >= 0 ? strdup(name) : NULL;
    if (!n) {
        int e = d < 0 ? errno : ENOMEM;
        if (d >= 0)
            close(d);
        return -e;
    }
    note_file(log, &st);
    log->name = n;
    log->dirfd = d;
    return 0;
}

/* The file is shared (threads, processes, the job and hwmon), so a torn line cannot be cut
 * back off: it is ended with '\n' instead, before this log writes anything else, so that our
 * next line starts clean; another writer's line glued to it meanwhile is found again by
 * readers (HW_RL_LINE_START). */
static int write_line(rl_log_t *log, const struct hw_buf *b)
{
    int rc;
    if (log->dirfd >= 0 && !name_unchanged(log) && (rc = reopen(log)) < 0)
        return rc;
    if (atomic_load(&log->torn)) {
        if ((rc = hw_write_all(log->fd, "\n", 1, NULL)) < 0)
            return rc; /* still full: the line would not fit either */
        atomic_store(&log->torn, false);
    }
    size_t done = 0;
    rc = hw_write_all(log->fd, b->p, b->len, &done);
    if (rc < 0) {
        if (done > 0 && hw_write_all(log->fd, "\n", 1, NULL) < 0)
            atomic_store(&log->torn, true);
        return rc;
    }
    if ((log->flags & RL_FSYNC_LINE) && fdatasync(log->fd) < 0)
        return -errno;
    return 0;
}

int rl_open(rl_log_t **out, const char *path, unsigned flags)
{
    if (!out)
        return -EINVAL;
    if (!path || !*path)
        path = getenv("RUNLOG_FILE");
    if (!path || !*path)
        return -EINVAL;
    int fd = hw_open_file(AT_FDCWD, path, HW_OPEN_CREATE | HW_OPEN_FOLLOW | HW_OPEN_CHARDEV);
    if (fd < 0)
        return fd;
    rl_log_t *log;
    int rc = rl_fdopen(&log, fd, flags);
    if (rc < 0)
        return rc;
    /* a regular file: follow its name (a character device has none to lose) */
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        const char *slash = strrchr(path, '/');
        char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
        int dfd = !slash ? AT_FDCWD : dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
        rc = dfd == -1 ? (dir ? -errno : -ENOMEM) : rl_follow(log, dfd, slash ? slash + 1 : path);
        /* a link the caller made is followed again at a reopen; a plain name never: a link put
         * there after a rotation (a shared directory) gets no line */
        struct stat ls;
        if (rc == 0 && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode))
            log->name_link = true;
        if (dfd >= 0)
            close(dfd);
        free(dir);
        if (rc < 0) {
            rl_close(log);
            return rc;
        }
    }
    *out = log;
    return 0;
}

int rl_fdopen(rl_log_t **out, int fd, unsigned flags)
{
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    int rc = !out || fl < 0 || !(fl & O_APPEND) ? -EINVAL : 0;
    rl_log_t *log = rc == 0 ? malloc(sizeof *log) : NULL;
    if (rc == 0 && !log)
        rc = -ENOMEM;
    if (rc < 0) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    log->fd = fd;
    log->flags = flags;
    atomic_init(&log->torn, false);
    log->dirfd = -1;
    log->name = NULL;
    log->name_link = false;
    atomic_init(&log->dev, 0);
    atomic_init(&log->ino, 0);
    atomic_init(&log->dir_ns, 0);
    *out = log;
    return 0;
}

int rl_close(rl_log_t *log)
{
    if (!log)
        return 0;
    int rc = 0;
    if ((log->flags & RL_FSYNC_CLOSE) && fsync(log->fd) < 0)
        rc = -errno;
    /* Never retry close() on EINTR: the descriptor is gone either way (SQLite, Linux close(2)). */
    if (close(log->fd) < 0 && rc == 0 && errno != EINTR)
        rc = -errno;
    if (log->dirfd >= 0)
        close(log->dirfd);
    free(log->name);
    free(log);
    return rc;
}

int rl_fileno(const rl_log_t *log)
{
    return log ? log->fd : -EINVAL;
}

int rl_phase(rl_log_t *log, const char *name, double seconds, const rl_field_t *extra,
             size_t n_extra)
{
    if (!log)
        return -EINVAL;
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    int rc = format_phase(&b, name, seconds, NULL, extra, n_extra);
    if (rc == 0)
        rc = write_line(log, &b);
    hw_buf_free(&b);
    return rc;
}

int rl_event(rl_log_t *log, const char *type, const rl_field_t *data, size_t n_data)
{
    if (!log)
        return -EINVAL;
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    int rc = format_event(&b, type, data, n_data);
    if (rc == 0)
        rc = write_line(log, &b);
    hw_buf_free(&b);
    return rc;
}

/* Are all numbers in v finite? json-c takes NaN and Infinity even when strict, and a line
 * written as it came must be JSON. */
static bool json_finite(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_double:
        return isfinite(json_object_get_double(v));
    case json_type_object: {
        json_object_object_foreach(v, key, member) {
            (void)key;
            if (!json_finite(member))
                return false;
        }
        return true;
    }
    case json_type_array:
        for (size_t i = 0, n = json_object_array_length(v); i < n; i++)
            if (!json_finite(json_object_array_get_idx(v, i)))
                return false;
        return true;
    default:
        return true;
    }
}

int rl_write_line(rl_log_t *log, const char *line, size_t len)
{
    if (!log || !line || len == 0 || len > INT32_MAX || memchr(line, '\n', len) ||
        memchr(line, '\0', len))
        return -EINVAL;
    /* valid JSON and an object: what every reader of a run log takes a line for */
    char *text = strndup(line, len);
    if (!text)
        return -ENOMEM;
    struct json_object *obj = NULL;
    int rc = parse_json_text(text, &obj);
    free(text);
    bool is_object = rc == 0 && json_object_is_type(obj, json_type_object) && json_finite(obj);
    json_object_put(obj);
    if (rc < 0 || !is_object)
        return rc < 0 ? rc : -EINVAL;
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    hw_buf_put(&b, line, len);
    hw_buf_putc(&b, '\n');
    rc = b.oom ? -ENOMEM : write_line(log, &b);
    hw_buf_free(&b);
    return rc;
}

int rl_timer_begin(rl_timer_t *timer, const char *name)
{
    if (!timer || !name)
        return -EINVAL;
    timer->name = name;
    clock_gettime(CLOCK_MONOTONIC, &timer->start);
    return 0;
}

int rl_timer_end(rl_log_t *log, const rl_timer_t *timer, const rl_field_t *extra,
                 size_t n_extra, double *seconds_out)
{
    if (!timer || !timer->name)
        return -EINVAL;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double s = (double)hw_ts_diff_ns(&now, &timer->start) * 1e-9;
    if (seconds_out)
        *seconds_out = s;
    return rl_phase(log, timer->name, s, extra, n_extra);
}

/* Ids are this process's pid and a counter that starts, per process, at the monotonic clock's
 * microseconds: unique on the host, also for `runlog begin` processes whose pids are reused. */
static atomic_uint_fast64_t span_seq;

int rl_span_start(rl_span_t *span, const char *name)
{
    if (!span || !name)
        return -EINVAL;
    clock_gettime(CLOCK_MONOTONIC, &span->start);
    uint_fast64_t seq = atomic_load(&span_seq);
    if (seq == 0) {
        uint_fast64_t us = (uint_fast64_t)span->start.tv_sec * 1000000u +
                           (uint_fast64_t)span->start.tv_nsec / 1000u + 1u;
        atomic_compare_exchange_strong(&span_seq, &seq, us); /* another thread may win */
    }
    seq = atomic_fetch_add(&span_seq, 1);
    span->name = name;
    snprintf(span->id, sizeof span->id, "%ld.%llu", (long)getpid(), (unsigned long long)seq);
    return 0;
}

static int span_line(rl_log_t *log, const struct hw_buf *b, int rc)
{
    return rc == 0 ? write_line(log, b) : rc;
}

int rl_phase_begin(rl_log_t *log, rl_span_t *span, const char *name, const rl_field_t *extra,
                   size_t n_extra)
{
    int rc = rl_span_start(span, name);
    if (rc < 0)
        return rc;
    if (!log)
        return -EINVAL;
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    rc = span_line(log, &b, format_begin(&b, span, extra, n_extra));
    hw_buf_free(&b);
    return rc;
}

static double span_seconds(const rl_span_t *span)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)hw_ts_diff_ns(&now, &span->start) * 1e-9;
}

int rl_phase_end(rl_log_t *log, const rl_span_t *span, const rl_field_t *extra, size_t n_extra,
                 double *seconds_out)
{
    if (!log || !span || !span->name || !memchr(span->id, '\0', sizeof span->id))
        return -EINVAL;
    double s = span_seconds(span);
    if (seconds_out)
        *seconds_out = s;
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    int rc = span_line(log, &b, format_phase(&b, span->name, s, span->id, extra, n_extra));
    hw_buf_free(&b);
    return rc;
}

static long format_into(char *buf, size_t cap, int rc, const struct hw_buf *b)
{
    if (rc < 0)
        return rc;
    if (buf && cap) {
        size_t n = b->len < cap - 1 ? b->len : cap - 1;
        memcpy(buf, b->p, n);
        buf[n] = '\0';
    }
    return (long)b->len;
}

long rl_format_phase(char *buf, size_t cap, const char *name, double seconds,
                     const rl_field_t *extra, size_t n_extra)
{
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    long r = format_into(buf, cap, format_phase(&b, name, seconds, NULL, extra, n_extra), &b);
    hw_buf_free(&b);
    return r;
}

long rl_format_event(char *buf, size_t cap, const char *type, const rl_field_t *data,
                     size_t n_data)
{
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    long r = format_into(buf, cap, format_event(&b, type, data, n_data), &b);
    hw_buf_free(&b);
    return r;
}

long rl_format_phase_begin(char *buf, size_t cap, const rl_span_t *span,
                           const rl_field_t *extra, size_t n_extra)
{
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    long r = format_into(buf, cap, format_begin(&b, span, extra, n_extra), &b);
    hw_buf_free(&b);
    return r;
}

long rl_format_phase_end(char *buf, size_t cap, const rl_span_t *span, double seconds,
                         const rl_field_t *extra, size_t n_extra)
{
    if (!span || !memchr(span->id, '\0', sizeof span->id))
        return -EINVAL;
    char stack[LINE_STACK];
    struct hw_buf b;
    hw_buf_init(&b, stack, sizeof stack);
    long r = format_into(buf, cap, format_phase(&b, span->name, seconds, span->id, extra, n_extra),
                         &b);
    hw_buf_free(&b);
    return r;
}

const char *rl_version(void)
{
    return HWRUN_VERSION;
}
