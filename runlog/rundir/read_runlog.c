/* run.jsonl lines (DESIGN.md "run.jsonl") through json-c: phases, their begins and events to
 * the sink. A line
 * that is not a JSON object with a timestamp "ts" and a string "type" is skipped and counted;
 * entries of other types are counted as parsed and not handed on. */
#include "reader_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runlog.h" /* RL_MAX_SECONDS */

struct jl_st {
    struct json_tokener *tok;
};

static bool get_ts(struct json_object *o, double *t)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, HW_RL_TS, &v))
        return false;
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        return rd_parse_any_ts(s, (size_t)json_object_get_string_len(v), t);
    }
    if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
        *t = json_object_get_double(v); /* epoch seconds, leniently */
        return isfinite(*t);
    }
    return false;
}

/* The line as one JSON value with nothing after it, or NULL with *why. */
static struct json_object *parse_whole(struct jl_st *st, const char *s, size_t n,
                                       const char **why)
{
    json_tokener_reset(st->tok);
    struct json_object *o = json_tokener_parse_ex(st->tok, s, (int)n);
    enum json_tokener_error err = json_tokener_get_error(st->tok);
    if (!o || err != json_tokener_success) {
        json_object_put(o);
        *why = json_tokener_error_desc(err);
        return NULL;
    }
    for (size_t i = json_tokener_get_parse_end(st->tok); i < n; i++)
        if (!(s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) {
            json_object_put(o);
            *why = "text after the JSON value";
            return NULL;
        }
    return o;
}

/* A writer that hit a full disk may leave the start of an entry without its '\n'; the next
 * entry, by any writer, is then glued to it. Every entry begins with HW_RL_LINE_START, so the
 * whole entry is found where that begins again (the first few places: a nested "ts" key may
 * look the same), and only the torn part is lost. */
#define RESYNC_TRIES 4

static void jl_line(struct rd_reader *r, const char *s, size_t n)
{
    struct jl_st *st = r->st;
    const char *why = NULL;
    struct json_object *o = parse_whole(st, s, n, &why);
    if (!o) {
        static const char start[] = HW_RL_LINE_START;
        const char *p = s + 1, *end = s + n;
        for (int k = 0; !o && k < RESYNC_TRIES && p < end; k++) {
            p = memmem(p, (size_t)(end - p), start, sizeof start - 1);
            if (!p)
                break;
            const char *ignored;
            if ((o = parse_whole(st, p, (size_t)(end - p), &ignored)))
                rd_torn(r);
            p++;
        }
        if (!o) {
            rd_skip(r, RD_SKIP_JSON, why);
            return;
        }
    }
    double t;
    const char *type;
    if (!json_object_is_type(o, json_type_object) || !(type = rd_json_str(o, HW_RL_TYPE))) {
        json_object_put(o);
        rd_skip(r, RD_SKIP_SHAPE, "no \"type\"");
        return;
    }
    if (!get_ts(o, &t)) {
        json_object_put(o);
        rd_skip(r, RD_SKIP_TIMESTAMP, "\"ts\"");
        return;
    }
    if (!strcmp(type, HW_RL_PHASE)) {
        const char *name = rd_json_str(o, HW_RL_NAME);
        double sec = rd_json_num(o, HW_RL_SECONDS);
        if (!name || !isfinite(sec) || sec < 0) {
            json_object_put(o);
            rd_skip(r, RD_SKIP_SHAPE, "phase without name or seconds");
            return;
        }
        if (sec > RL_MAX_SECONDS) { /* librunlog refuses to write it: not a duration */
            json_object_put(o);
            rd_skip(r, RD_SKIP_SHAPE, "phase of more than 1e12 seconds");
            return;
        }
        struct rd_phase p = {.t_end = t, .seconds = sec, .t_start = t - sec, .name = name,
                              .id = rd_json_str(o, HW_RL_PHASE_ID), .obj = o,
                              .line = r->line_base + r->lineno};
        r->q->parsed++;
        if (r->sink->phase)
            r->sink->phase(r->sink->ctx, &p);
    } else if (!strcmp(type, HW_RL_PHASE_BEGIN)) {
        const char *name = rd_json_str(o, HW_RL_NAME), *id = rd_json_str(o, HW_RL_PHASE_ID);
        if (!name || !id) {
            json_object_put(o);
            rd_skip(r, RD_SKIP_SHAPE, "phase_begin without name or phase_id");
            return;
        }
        struct rd_phase p = {.t_end = NAN, .seconds = NAN, .t_start = t, .name = name, .id = id,
                              .obj = o, .line = r->line_base + r->lineno};
        r->q->parsed++;
        if (r->sink->phase_begin)
            r->sink->phase_begin(r->sink->ctx, &p);
    } else if (!strcmp(type, HW_RL_EVENT)) {
        const char *name = rd_json_str(o, HW_RL_EVENT);
        if (!name) {
            json_object_put(o);
            rd_skip(r, RD_SKIP_SHAPE, "event without \"event\"");
            return;
        }
        struct json_object *data = NULL;
        if (!json_object_object_get_ex(o, HW_RL_DATA, &data) ||
            !json_object_is_type(data, json_type_object))
            data = NULL;
        struct rd_event e = {.t = t, .name = name, .data = data, .obj = o, .line = r->line_base + r->lineno};
        r->q->parsed++;
        if (r->sink->event)
            r->sink->event(r->sink->ctx, &e);
    } else {
        r->q->parsed++;
    }
    json_object_put(o);
}

static void jl_free(struct rd_reader *r)
{
    struct jl_st *st = r->st;
    if (st && st->tok)
        json_tokener_free(st->tok);
    free(st);
    r->st = NULL;
}

void rd_runlog_init(struct rd_reader *r)
{
    struct jl_st *st = calloc(1, sizeof *st);
    if (!st)
        return;
    st->tok = json_tokener_new_ex(64);
    if (!st->tok) {
        free(st);
        return;
    }
    r->st = st;
    r->line_fn = jl_line;
    r->free_fn = jl_free;
}
