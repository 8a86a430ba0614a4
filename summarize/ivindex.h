/* Which time windows [t0, t1] meet a query [a, b], in O(log n + hits) however the windows
 * nest: a nested containment list (Alekseyenko & Lee, 2007). Windows are sorted by start; each
 * list holds windows none of which contains another (so their ends rise with their starts),
 * and a window's contained ones form its own sub-list. A "train" phase spanning 100 000 "step"
 * phases is one top-level window with one sub-list: a sample visits the few windows it falls
 * in, never every step before it. */
#ifndef SUM_IVINDEX_H
#define SUM_IVINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sum_ivx_node {
    double t0, t1;
    uint32_t id;   /* the caller's number for the window */
    uint32_t sub;  /* first node of its sub-list */
    uint32_t nsub; /* windows directly inside it */
};

/* The answers to the last few queries: the rows of a run's GPUs share their time, so each GPU's
 * point and step queries repeat the first GPU's (a point and a step query alternate: a few). */
#define SUM_IVX_MEMO 4
struct sum_ivx_memo {
    double a, b;
    uint32_t *hit; /* nodes met, in the walk's order */
    size_t n, cap;
    bool ok;
};

struct sum_ivx {
    struct sum_ivx_node *node; /* the top list at [0, ntop), then each sub-list contiguous */
    size_t n, ntop;
    uint32_t (*stack)[2]; /* query scratch: (next node, end) per level */
    size_t depth;         /* deepest nesting + 1 */
    struct sum_ivx_memo memo[SUM_IVX_MEMO];
    unsigned memo_next;
};

/* Index n windows (t0[i], t1[i]), id i; windows with a NaN bound or t1 < t0 are left out.
 * Returns 0 or -ENOMEM (then the index is empty). n < 2^32. */
int sum_ivx_build(struct sum_ivx *x, const double *t0, const double *t1, size_t n);
/* Call fn(ctx, id, t0, t1) for each window with t0 <= b and t1 >= a. Not reentrant on x.
 * Most runs have no windows: a caller on every sample tests x->n first, and skips the call. */
void sum_ivx_query(struct sum_ivx *x, double a, double b,
                   void (*fn)(void *ctx, uint32_t id, double t0, double t1), void *ctx);
void sum_ivx_free(struct sum_ivx *x);

#endif
