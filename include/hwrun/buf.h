/* Growing memory: the byte buffer every line is built in (CSV rows, JSON, the Prometheus
 * file), its integer formatter, and the one growing array. Implemented in hw_io.c. */
#ifndef HWRUN_BUF_H
#define HWRUN_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A byte buffer that starts in caller storage (usually the stack) and moves to the heap only
 * when a line outgrows it: no allocation on the common path. */
struct hw_buf {
    char *p;
    size_t len, cap;
    bool heap; /* p is malloc'd and owned by the buffer */
    bool oom;  /* an append failed for lack of memory; the content is truncated */
    /* where hw_buf_spill() hands what is held, for output that streams (NULL: kept); its
     * first error (-errno) stays in spill_err */
    int (*spill)(void *ctx, const void *p, size_t n);
    void *spill_ctx;
    int spill_err;
};

/* Start with storage[cap] (may be NULL/0: first append allocates). */
void hw_buf_init(struct hw_buf *b, char *storage, size_t cap);
/* Free heap storage, if any. The buffer may be reused after hw_buf_init. */
void hw_buf_free(struct hw_buf *b);
void hw_buf_reset(struct hw_buf *b);
/* At a point where nothing written so far will be taken back (hw_json_rewind), hand what the
 * buffer holds to b->spill once it holds at least over bytes, and start again empty: a summary
 * of a million phases streams out in constant memory. Nothing without b->spill. */
void hw_buf_spill(struct hw_buf *b, size_t over);
/* Make room for n more bytes; false (and b->oom) when memory ran out. The common case, room
 * already there, is inline: a summary puts millions of small pieces. */
bool hw_buf_grow(struct hw_buf *b, size_t n);
static inline bool hw_buf_reserve(struct hw_buf *b, size_t n)
{
    return (!b->oom && b->cap - b->len > n) || hw_buf_grow(b, n); /* one byte kept for a NUL */
}

/* The one growing array: make room for element n of *arr (capacity *cap elements of elem
 * bytes), doubling from first. Returns false on ENOMEM (or overflow), leaving *arr and *cap as
 * they were. arr is the address of the array pointer (void * so any element type fits). */
bool hw_grow(void *arr, size_t *cap, size_t n, size_t elem, size_t first);
/* How many times hw_grow and a buffer's growth found no memory on this thread: a caller that
 * drops a scratch buffer's oom can still tell that what it made is short. */
unsigned long hw_alloc_failures(void);
static inline void hw_buf_put(struct hw_buf *b, const void *s, size_t n)
{
    if (n == 0 || !hw_buf_reserve(b, n)) /* n == 0: s may be NULL, and memcpy(NULL) undefined */
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}
static inline void hw_buf_putc(struct hw_buf *b, char c)
{
    if (!hw_buf_reserve(b, 1))
        return;
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}
void hw_buf_puts(struct hw_buf *b, const char *s);
void hw_buf_printf(struct hw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a decimal integer (the one integer formatter: CSV cells, JSON, Prometheus). */
void hw_buf_i64(struct hw_buf *b, int64_t v);
void hw_buf_u64(struct hw_buf *b, uint64_t v);

#endif
