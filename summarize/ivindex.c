/* A nested containment list over time windows: see ivindex.h. */
#include "ivindex.h"
#include "oom.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct item {
    double t0, t1;
    uint32_t id;
};

/* by start, then longer first, so a window comes before the ones it contains */
static int cmp_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    if (x->t1 != y->t1)
        return x->t1 > y->t1 ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

int sum_ivx_build(struct sum_ivx *x, const double *t0, const double *t1, size_t n)
{
    memset(x, 0, sizeof *x);
    if (!n)
        return 0;
    struct item *it = malloc(n * sizeof *it);
    /* parent[k]: the sorted position of item k's container + 1 (0: top level) */
    uint32_t *parent = malloc(n * sizeof *parent), *stack = malloc(n * sizeof *stack);
    uint32_t *level = malloc(n * sizeof *level);
    size_t *start = calloc(n + 1, sizeof *start), *fill = calloc(n + 1, sizeof *fill);
    x->node = malloc(n * sizeof *x->node);
    size_t m = 0;
    if (!it || !parent || !stack || !level || !start || !fill || !x->node)
        goto oom;
    for (size_t i = 0; i < n; i++)
        if (!isnan(t0[i]) && !isnan(t1[i]) && t1[i] >= t0[i])
            it[m++] = (struct item){t0[i], t1[i], (uint32_t)i};
    qsort(it, m, sizeof *it, cmp_item);
    /* a stack of open containers: pop those that end before this window does */
    size_t sp = 0, depth = 0;
    for (size_t k = 0; k < m; k++) {
        while (sp && it[stack[sp - 1]].t1 < it[k].t1)
            sp--;
        parent[k] = sp ? stack[sp - 1] + 1 : 0;
        level[k] = (uint32_t)sp;
        stack[sp++] = (uint32_t)k;
        if (sp > depth)
            depth = sp;
    }
    /* lay each list out contiguously: count children per list (list 0 = top), prefix sums */
    for (size_t k = 0; k < m; k++)
        start[parent[k]]++;
    size_t pos = 0;
    for (size_t l = 0; l <= m; l++) {
        size_t c = start[l];
        start[l] = pos;
        fill[l] = pos;
        pos += c;
    }
    for (size_t k = 0; k < m; k++) {
        size_t at = fill[parent[k]]++;
        x->node[at] =
            (struct sum_ivx_node){it[k].t0, it[k].t1, it[k].id, (uint32_t)start[k + 1], 0};
        level[k] = (uint32_t)at; /* reused: the sorted item's node */
    }
    for (size_t k = 0; k < m; k++)
        x->node[level[k]].nsub = (uint32_t)(fill[k + 1] - start[k + 1]);
    x->n = m;
    x->ntop = fill[0];
    x->depth = depth + 1;
    x->stack = malloc(x->depth * sizeof *x->stack);
    if (!x->stack)
        goto oom;
    free(it), free(parent), free(stack), free(level), free(start), free(fill);
    return 0;
oom:
    free(it), free(parent), free(stack), free(level), free(start), free(fill);
    sum_ivx_free(x);
    sum_oom_note(); /* an empty index: the windows would get no samples */
    return -ENOMEM;
}

/* The first node in [lo, hi) whose end is >= a (ends rise within a list). */
static uint32_t first_ending_after(const struct sum_ivx_node *nd, uint32_t lo, uint32_t hi,
                                   double a)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (nd[mid].t1 < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void sum_ivx_query(struct sum_ivx *x, double a, double b,
                   void (*fn)(void *ctx, uint32_t id, double t0, double t1), void *ctx)
{
    if (!x->n || isnan(a) || isnan(b))
        return;
    const struct sum_ivx_node *nd = x->node;
    for (int k = 0; k < SUM_IVX_MEMO; k++) {
        const struct sum_ivx_memo *m = &x->memo[k];
        if (m->ok && m->a == a && m->b == b) {
            for (size_t i = 0; i < m->n; i++)
                fn(ctx, nd[m->hit[i]].id, nd[m->hit[i]].t0, nd[m->hit[i]].t1);
            return;
        }
    }
    struct sum_ivx_memo *m = &x->memo[x->memo_next++ % SUM_IVX_MEMO];
    m->ok = true;
    m->a = a;
    m->b = b;
    m->n = 0;
    size_t sp = 0;
    x->stack[sp][0] = first_ending_after(nd, 0, (uint32_t)x->ntop, a);
    x->stack[sp][1] = (uint32_t)x->ntop;
    sp++;
    while (sp) {
        uint32_t *top = x->stack[sp - 1];
        if (top[0] >= top[1] || nd[top[0]].t0 > b) {
            sp--;
            continue;
        }
        const struct sum_ivx_node *w = &nd[top[0]++];
        if (m->ok && m->n == m->cap) { /* the memo grows with the deepest answer, then stays */
            size_t nc = m->cap ? 2 * m->cap : 8;
            uint32_t *nh = realloc(m->hit, nc * sizeof *nh);
            if (nh) {
                m->hit = nh;
                m->cap = nc;
            } else {
                m->ok = false; /* answered without it */
            }
        }
        if (m->ok)
            m->hit[m->n++] = (uint32_t)(w - nd);
        fn(ctx, w->id, w->t0, w->t1);
        if (w->nsub) { /* sp < depth: a sub-list is one level deeper than its window */
            x->stack[sp][0] = first_ending_after(nd, w->sub, w->sub + w->nsub, a);
            x->stack[sp][1] = w->sub + w->nsub;
            sp++;
        }
    }
}

void sum_ivx_free(struct sum_ivx *x)
{
    free(x->node);
    free(x->stack);
    for (int k = 0; k < SUM_IVX_MEMO; k++)
        free(x->memo[k].hit);
    memset(x, 0, sizeof *x);
}
