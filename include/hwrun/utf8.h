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

#endif
