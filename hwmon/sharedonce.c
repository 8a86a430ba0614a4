/* Shared memory counted once per mapped path (sharedonce.h): a streaming reader of
 * /proc/PID/smaps in constant memory, and a table of paths kept from sample to sample. */
#include "sharedonce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mon_so_entry {
    uint64_t hash; /* 0: a free slot */
    uint32_t name; /* offset in names */
    uint32_t gen;
    uint64_t kb[MON_SO_COUNT];
};

#define SO_LINE_MAX 4200 /* a header line: PATH_MAX and its five fields; longer is cut */
#define SO_ANON "[anon]" /* psutil's name of a mapping without a path */
#define SO_DELETED " (deleted)"

void mon_so_init(struct mon_shared_once *so)
{
    memset(so, 0, sizeof *so);
}

void mon_so_free(struct mon_shared_once *so)
{
    free(so->tab);
    free(so->names);
    mon_so_init(so);
}

static void so_clear(struct mon_shared_once *so)
{
    if (so->tab)
        memset(so->tab, 0, so->cap * sizeof *so->tab);
    so->used = 0;
    so->names_len = 0;
}

void mon_so_begin(struct mon_shared_once *so)
{
    /* paths of mappings long gone (a job that maps a new file per step) are dropped now and
     * then, so that the table holds about what one sample sees */
    if (so->used > 8192)
        so_clear(so);
    if (++so->gen == 0) { /* wrapped: no entry may look current */
        so_clear(so);
        so->gen = 1;
    }
    memset(so->kb, 0, sizeof so->kb);
    memset(so->any, 0, sizeof so->any);
}

static uint64_t so_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h ? h : 1;
}

static int so_grow(struct mon_shared_once *so)
{
    size_t ncap = so->cap ? 2 * so->cap : 256;
    struct mon_so_entry *nt = calloc(ncap, sizeof *nt);
    if (!nt)
        return -ENOMEM;
    for (size_t i = 0; i < so->cap; i++) {
        const struct mon_so_entry *e = &so->tab[i];
        if (!e->hash)
            continue;
        size_t j = (size_t)e->hash & (ncap - 1);
        while (nt[j].hash)
            j = (j + 1) & (ncap - 1);
        nt[j] = *e;
    }
    free(so->tab);
    so->tab = nt;
    so->cap = ncap;
    return 0;
}

/* The entry of path (n bytes), made when new; NULL without memory. */
static struct mon_so_entry *so_find(struct mon_shared_once *so, const char *path, size_t n)
{
    if ((so->used + 1) * 2 > so->cap && so_grow(so) < 0)
        return NULL;
    uint64_t h = so_hash(path, n);
    size_t j = (size_t)h & (so->cap - 1);
    for (;; j = (j + 1) & (so->cap - 1)) {
        struct mon_so_entry *e = &so->tab[j];
        if (!e->hash)
            break;
        if (e->hash == h && !strncmp(so->names + e->name, path, n) && !so->names[e->name + n])
            return e;
    }
    if (so->names_len + n + 1 > so->names_cap) {
        size_t nc = so->names_cap ? so->names_cap : 16384;
        while (nc < so->names_len + n + 1)
            nc *= 2;
        if (nc > UINT32_MAX)
            return NULL;
        char *nn = realloc(so->names, nc);
        if (!nn)
            return NULL;
        so->names = nn;
        so->names_cap = nc;
    }
    struct mon_so_entry *e = &so->tab[j];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->name = (uint32_t)so->names_len;
    memcpy(so->names + so->names_len, path, n);
    so->names[so->names_len + n] = '\0';
    so->names_len += n + 1;
    so->used++;
    return e;
}

static void so_put(struct mon_shared_once *so, struct mon_so_entry *e, int g, uint64_t kb)
{
    if (kb > e->kb[g]) {
        so->kb[g] += kb - e->kb[g];
        e->kb[g] = kb;
    }
}

/* One process's reading in progress: the mapping whose fields are being read. */
struct so_read {
    struct mon_shared_once *so;
    bool main, have;
    char path[SO_LINE_MAX];
    size_t path_len;
    uint64_t shared_kb;
    char line[SO_LINE_MAX];
    size_t line_len;
};

static void so_commit(struct so_read *r)
{
    if (!r->have)
        return;
    r->have = false;
    struct mon_so_entry *e = so_find(r->so, r->path, r->path_len);
    if (!e)
        return; /* no memory: this mapping is not counted (the sample still is) */
    if (e->gen != r->so->gen) {
        memset(e->kb, 0, sizeof e->kb);
        e->gen = r->so->gen;
    }
    so_put(r->so, e, r->main ? MON_SO_MAIN : MON_SO_DESC, r->shared_kb);
    so_put(r->so, e, MON_SO_ALL, r->shared_kb);
}

/* "Shared_Clean:   900 kB" -> 900 into *kb; false when line is not key. */
static bool so_field(const char *line, size_t n, const char *key, uint64_t *kb)
{
    size_t k = strlen(key);
    if (n <= k || memcmp(line, key, k) != 0)
        return false;
    uint64_t v = 0;
    size_t i = k;
    while (i < n && line[i] == ' ')
        i++;
    for (; i < n && line[i] >= '0' && line[i] <= '9'; i++)
        v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(line[i] - '0');
    *kb = v;
    return true;
}

static bool so_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static void so_line(struct so_read *r, const char *line, size_t n)
{
    if (n && so_hex(line[0])) { /* "7f12-7f34 r-xp 00000000 08:01 1234   /usr/lib/libc.so.6" */
        so_commit(r);
        size_t i = 0;
        for (int f = 0; f < 5; f++) { /* address, perms, offset, dev, inode */
            while (i < n && line[i] != ' ')
                i++;
            while (i < n && line[i] == ' ')
                i++;
        }
        size_t end = n;
        while (end > i && line[end - 1] == ' ')
            end--;
        size_t dl = sizeof SO_DELETED - 1;
        if (end - i > dl && !memcmp(line + end - dl, SO_DELETED, dl))
            end -= dl;
        if (end == i) {
            r->path_len = sizeof SO_ANON - 1;
            memcpy(r->path, SO_ANON, r->path_len);
        } else {
            r->path_len = end - i;
            memcpy(r->path, line + i, r->path_len);
        }
        r->shared_kb = 0;
        r->have = true;
        return;
    }
    uint64_t kb;
    if (r->have && (so_field(line, n, "Shared_Clean:", &kb) ||
                    so_field(line, n, "Shared_Dirty:", &kb)))
        r->shared_kb += kb;
}

static void so_feed(struct so_read *r, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            so_line(r, r->line, r->line_len);
            r->line_len = 0;
        } else if (r->line_len < sizeof r->line) { /* longer: the rest is dropped */
            r->line[r->line_len++] = p[i];
        }
    }
}

static void so_finish(struct so_read *r)
{
    if (r->line_len)
        so_line(r, r->line, r->line_len);
    so_commit(r);
    r->so->any[r->main ? MON_SO_MAIN : MON_SO_DESC] = true;
    r->so->any[MON_SO_ALL] = true;
    r->so->reads++;
}

/* One reading's state: big (two lines of SO_LINE_MAX), so not on the sampler's stack. */
static __thread struct so_read so_r;

static struct so_read *so_start(struct mon_shared_once *so, bool main)
{
    struct so_read *r = &so_r;
    r->so = so;
    r->main = main;
    r->have = false;
    r->line_len = r->path_len = 0;
    return r;
}

int mon_so_add_text(struct mon_shared_once *so, const char *text, size_t len, bool main)
{
    struct so_read *r = so_start(so, main);
    so_feed(r, text, len);
    so_finish(r);
    return 0;
}

int mon_so_add(struct mon_shared_once *so, int fd, bool main)
{
    static __thread char buf[16384];
    if (fd < 0)
        return -EBADF;
    struct so_read *r = so_start(so, main);
    off_t off = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && off == 0)
            return -errno; /* gone (ESRCH): not counted, as the walk's other readings of it */
        if (n == 0 && off == 0)
            return -ENODATA; /* an fd of the memory before an exec: the caller opens it again */
        if (n <= 0) /* the end, or gone midway: what was read counts */
            break;
        so_feed(r, buf, (size_t)n);
        off += n;
    }
    so_finish(r);
    return 0;
}
