/* The JSON writer every tool prints JSON with: see include/hwrun/jsonw.h. */
#include "hwrun/jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hw_buf_json_num(struct hw_buf *b, double x, enum hw_json_num mode)
{
    if (!isfinite(x)) {
        if (mode != HW_NUM_PYJSON)
            hw_buf_put(b, "null", 4);
        else if (isnan(x))
            hw_buf_put(b, "NaN", 3);
        else
            hw_buf_puts(b, x > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (mode == HW_NUM_SIG12) {
        /* Twelve digits are far beyond what any sensor reports; they drop the binary noise of
         * sums (951.1000000000001) and the stored values keep full precision. */
        char t[32];
        snprintf(t, sizeof t, "%.12g", x);
        x = strtod(t, NULL);
    }
    hw_buf_py_double(b, x);
}

void hw_json_init(struct hw_json *w, struct hw_buf *b, enum hw_json_style style,
                  enum hw_json_num num)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->style = style;
    w->num = num;
    w->first[0] = true;
}

static void indent(struct hw_json *w, int depth)
{
    hw_buf_putc(w->b, '\n');
    for (int i = 0; i < depth; i++)
        hw_buf_put(w->b, "  ", 2);
}

/* The separator before a member: ", " on one line, ",\n" and the indent when pretty. */
static void separate(struct hw_json *w)
{
    bool first = w->first[w->depth];
    w->first[w->depth] = false;
    if (w->depth == 0)
        return;
    if (w->style == HW_JSON_LINE) {
        if (!first)
            hw_buf_put(w->b, ", ", 2);
        return;
    }
    if (!first)
        hw_buf_putc(w->b, ',');
    indent(w, w->depth);
}

void hw_json_key(struct hw_json *w, const char *key)
{
    separate(w);
    if (!key)
        return;
    /* Most keys are plain ASCII: copy them in one piece; the others go through the escaper. */
    size_t n = 0;
    for (const unsigned char *k = (const unsigned char *)key; *k; k++, n++)
        if (*k < 0x20 || *k >= 0x80 || *k == '"' || *k == '\\')
            break;
    if (key[n] == '\0' && hw_buf_reserve(w->b, n + 4)) {
        char *o = w->b->p + w->b->len;
        *o++ = '"';
        memcpy(o, key, n);
        o += n;
        memcpy(o, "\": ", 3);
        w->b->len += n + 4;
        w->b->p[w->b->len] = '\0';
        return;
    }
    hw_buf_json_str(w->b, key, strlen(key));
    hw_buf_put(w->b, ": ", 2);
}

void hw_json_key_lit(struct hw_json *w, const char *text, size_t n)
{
    separate(w);
    hw_buf_put(w->b, text, n);
}

void hw_json_open(struct hw_json *w, const char *key, char c)
{
    hw_json_key(w, key);
    if (w->over || w->depth == HW_JSON_MAX_DEPTH) {
        w->over++;
        w->err = true;
        return;
    }
    hw_buf_putc(w->b, c);
    w->depth++;
    w->first[w->depth] = true;
    w->close[w->depth] = c == '[' ? ']' : '}';
}

void hw_json_close(struct hw_json *w)
{
    if (w->over) {
        w->over--;
        return;
    }
    if (w->depth == 0) {
        w->err = true;
        return;
    }
    bool empty = w->first[w->depth];
    char c = w->close[w->depth];
    w->depth--;
    if (!empty && w->style == HW_JSON_PRETTY)
        indent(w, w->depth);
    hw_buf_putc(w->b, c);
}

void hw_json_strn(struct hw_json *w, const char *key, const char *s, size_t n)
{
    hw_json_key(w, key);
    if (s)
        hw_buf_json_str(w->b, s, n);
    else
        hw_buf_put(w->b, "null", 4);
}

void hw_json_str(struct hw_json *w, const char *key, const char *s)
{
    hw_json_strn(w, key, s, s ? strlen(s) : 0);
}

void hw_json_num(struct hw_json *w, const char *key, double x)
{
    hw_json_key(w, key);
    hw_buf_json_num(w->b, x, w->num);
}

void hw_json_i64(struct hw_json *w, const char *key, int64_t v)
{
    hw_json_key(w, key);
    hw_buf_i64(w->b, v);
}

void hw_json_u64(struct hw_json *w, const char *key, uint64_t v)
{
    hw_json_key(w, key);
    char tmp[24];
    char *e = tmp + sizeof tmp, *p = e;
    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    hw_buf_put(w->b, p, (size_t)(e - p));
}

void hw_json_bool(struct hw_json *w, const char *key, bool v)
{
    hw_json_key(w, key);
    hw_buf_puts(w->b, v ? "true" : "false");
}

void hw_json_null(struct hw_json *w, const char *key)
{
    hw_json_key(w, key);
    hw_buf_put(w->b, "null", 4);
}

void hw_json_raw(struct hw_json *w, const char *key, const char *text)
{
    hw_json_key(w, key);
    hw_buf_puts(w->b, text ? text : "null");
}

struct hw_json_mark hw_json_mark(const struct hw_json *w)
{
    return (struct hw_json_mark){.len = w->b->len,
                                 .depth = w->depth,
                                 .over = w->over,
                                 .first = w->first[w->depth],
                                 .err = w->err};
}

void hw_json_rewind(struct hw_json *w, struct hw_json_mark m)
{
    if (m.len <= w->b->len) {
        w->b->len = m.len;
        if (w->b->p)
            w->b->p[m.len] = '\0';
    }
    w->depth = m.depth;
    w->over = m.over;
    w->first[m.depth] = m.first;
    w->err = m.err;
}
