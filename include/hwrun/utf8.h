/* The one UTF-8 decoder (hw_io.c): every reader of text that must be UTF-8 (run.jsonl, names
 * in HTML, JSON strings) goes through it. */
#ifndef HWRUN_UTF8_H
#define HWRUN_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The one UTF-8 decoder: the sequence at s[0..n), its length (1..4) and code point *cp; 0 when
 * the bytes are not UTF-8 (RFC 3629, as Python's strict codec: no overlong forms, surrogates or
 * code points past U+10FFFF); HW_UTF8_SHORT when s ends inside a sequence valid so far. */
#define HW_UTF8_SHORT ((size_t)-1)
size_t hw_utf8_decode(const void *s, size_t n, uint32_t *cp);

/* The one rule for data that reaches a terminal (reports, --compare, the job text, the live view,
 * every message of the three tools): each code point that is a control (C0, DEL, and C1
 * U+0080..U+009F, which a terminal takes as ESC [ or ESC ] when UTF-8 encodes them) becomes '?',
 * each byte that is not UTF-8 U+FFFD, the rest is kept; at most max_chars characters of s[0..n)
 * (it stops at a NUL). Appended to b; returns the characters written. */
struct hw_buf;
size_t hw_buf_term(struct hw_buf *b, const char *s, size_t n, size_t max_chars);
/* The same into buf of cap bytes, NUL-terminated and cut at a character; returns buf. s may be
 * NULL (then ""). */
const char *hw_term_str(const char *s, char *buf, size_t cap);

#endif
