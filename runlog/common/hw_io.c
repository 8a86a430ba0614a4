/* EINTR-safe I/O and the line buffer every writer builds its lines in. */
#include "hwrun/io.h"
#include "hwrun/buf.h"
#include "hwrun/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hw_write_all(int fd, const void *buf, size_t len, size_t *written)
{
    const char *p = buf;
    size_t done = 0;
    int rc = 0;
    while (done < len) {
        ssize_t n = write(fd, p + done, len - done);
        if (n > 0) {
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            rc = n < 0 ? -errno : -EIO; /* write() returning 0 for len > 0: treat as I/O error */
            break;
        }
    }
    if (written)
        *written = done;
    return rc;
}

int hw_open_file(int dirfd, const char *name, unsigned how)
{
    /* O_NONBLOCK: a FIFO would block open(2) until a reader comes; with it a FIFO without a
     * reader fails (ENXIO) and one with a reader opens, and both are refused below. */
    int flags = O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    if (how & HW_OPEN_READ)
        flags |= O_RDONLY; /* a FIFO opens at once for reading; fstat refuses it below */
    else
        flags |= O_APPEND | (how & HW_OPEN_RDWR ? O_RDWR : O_WRONLY);
    if (!(how & HW_OPEN_FOLLOW))
        flags |= O_NOFOLLOW;
    if (how & HW_OPEN_EXCL)
        flags |= O_CREAT | O_EXCL; /* O_EXCL never follows a link: a dangling one is EEXIST */
    else if (how & HW_OPEN_CREATE)
        flags |= O_CREAT;
    int fd;
    do
        fd = openat(dirfd, name, flags, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return errno == ENXIO ? -EINVAL : -errno; /* ENXIO: a FIFO without a reader */
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) < 0)
        rc = -errno;
    else if (!S_ISREG(st.st_mode) && !((how & HW_OPEN_CHARDEV) && S_ISCHR(st.st_mode)))
        rc = -EINVAL;
    else if ((how & HW_OPEN_OWNED) && S_ISREG(st.st_mode) &&
             (st.st_uid != geteuid() || st.st_nlink != 1))
        rc = -EPERM; /* a hard link would write into a file that lives under another name */
    else if (fcntl(fd, F_SETFL, flags & ~O_NONBLOCK & (O_APPEND | O_NONBLOCK)) < 0)
        rc = -errno;
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

const char *hw_fd_whereabouts(int fd, int dirfd, char *buf, size_t cap)
{
    char link[64];
    struct stat old, st;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = cap > 1 ? readlink(link, buf, cap - 1) : -1;
    if (n <= 0 || (size_t)n >= cap - 1 || fstat(fd, &old) < 0 || old.st_nlink == 0)
        return NULL;
    buf[n] = '\0';
    static const char gone[] = " (deleted)";
    if ((size_t)n >= sizeof gone - 1 && !strcmp(buf + n - (sizeof gone - 1), gone))
        return NULL;
    const char *base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    if (*base && fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == old.st_dev &&
        st.st_ino == old.st_ino)
        return base;
    return buf[0] == '/' ? buf : NULL;
}

const char *hw_open_reason(int dirfd, const char *name, int err, char *buf, size_t cap)
{
    struct stat st;
    if ((err == ELOOP || err == EINVAL || err == EPERM || err == EEXIST || err == EISDIR) &&
        fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        const char *kind = S_ISLNK(st.st_mode)    ? "is a symbolic link"
                           : S_ISFIFO(st.st_mode) ? "is a FIFO"
                           : S_ISDIR(st.st_mode)  ? "is a directory"
                           : S_ISSOCK(st.st_mode) ? "is a socket"
                           : S_ISCHR(st.st_mode)  ? "is a character device"
                           : S_ISBLK(st.st_mode)  ? "is a block device"
                                                  : NULL;
        if (kind && !(err == EINVAL && S_ISLNK(st.st_mode)))
            return kind;
        if (!kind && err == EPERM && st.st_uid != geteuid()) {
            snprintf(buf, cap, "belongs to another user (uid %lu)", (unsigned long)st.st_uid);
            return buf;
        }
        if (!kind && err == EPERM && st.st_nlink != 1) {
            snprintf(buf, cap, "has %lu links (a hard link to a file elsewhere)",
                     (unsigned long)st.st_nlink);
            return buf;
        }
        if (err == EEXIST)
            return "already exists";
    }
    if (err == EINVAL) { /* through a link that points at something not a file */
        if (fstatat(dirfd, name, &st, 0) == 0 && !S_ISREG(st.st_mode))
            return S_ISFIFO(st.st_mode)   ? "leads to a FIFO"
                   : S_ISDIR(st.st_mode)  ? "leads to a directory"
                   : S_ISCHR(st.st_mode)  ? "leads to a character device"
                   : S_ISSOCK(st.st_mode) ? "leads to a socket"
                                          : "is not a regular file";
        return "is not a regular file";
    }
    snprintf(buf, cap, "%s", strerror(err));
    return buf;
}

static ssize_t read_rest(int fd, char *buf, size_t cap, off_t off, bool positional)
{
    size_t len = 0;
    while (len < cap - 1) {
        ssize_t n = positional ? pread(fd, buf + len, cap - 1 - len, off + (off_t)len)
                               : read(fd, buf + len, cap - 1 - len);
        if (n > 0)
            len += (size_t)n;
        else if (n == 0)
            break;
        else if (errno != EINTR)
            return -errno;
    }
    buf[len] = '\0';
    return (ssize_t)len;
}

int hw_append_whole(int fd, const void *buf, size_t len)
{
    size_t done = 0;
    int rc = hw_write_all(fd, buf, len, &done);
    struct stat st;
    if (rc < 0 && done > 0 && fstat(fd, &st) == 0 && st.st_size >= (off_t)done) {
        int e;
        do
            e = ftruncate(fd, st.st_size - (off_t)done);
        while (e < 0 && errno == EINTR);
    }
    return rc;
}

ssize_t hw_read_small(int dirfd, const char *name, char *buf, size_t cap)
{
    if (cap == 0)
        return -EINVAL;
    int fd;
    do
        fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -errno;
    ssize_t n = read_rest(fd, buf, cap, 0, false);
    close(fd);
    return n;
}

ssize_t hw_pread_all(int fd, char *buf, size_t cap)
{
    if (cap == 0)
        return -EINVAL;
    return read_rest(fd, buf, cap, 0, true);
}

int hw_write_atomic(const char *path, const char *data, size_t len)
{
    return hw_write_replace(path, data, len, true);
}

/* The process's umask, read without changing it: umask(2) can only be read by setting it, which
 * races with threads that create files meanwhile (hwmon's sampler). Linux 4.7+ shows it in
 * /proc/self/status; without /proc, the most private answer. */
static mode_t current_umask(void)
{
    char buf[2048];
    if (hw_read_small(AT_FDCWD, "/proc/self/status", buf, sizeof buf) > 0) {
        const char *u = strstr(buf, "\nUmask:");
        if (u)
            return (mode_t)(strtoul(u + 8, NULL, 8) & 0777);
    }
    return 077;
}

/* What the replacement's mode is: the replaced file's, so that a user's chmod sticks; for a new
 * file, 0644 less the umask, as hw_open_file creates every other file. */
static mode_t replace_mode(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 07777;
    return 0644 & ~current_umask();
}

int hw_write_replace(const char *path, const char *data, size_t len, bool durable)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
        return -ENAMETOOLONG;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = hw_write_all(fd, data, len, NULL);
    if (rc == 0 && fchmod(fd, replace_mode(path)) != 0) /* mkostemp makes 0600 */
        rc = -errno;
    if (rc == 0 && durable && fsync(fd) != 0)
        rc = -errno;
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc != 0)
        unlink(tmp);
    return rc;
}

static int out_fail(int err, const char *reason, char *why, size_t cap)
{
    if (cap)
        snprintf(why, cap, "%s", reason ? reason : strerror(err));
    return -err;
}

int hw_write_output(const char *path, const char *data, size_t len, char *why, size_t cap)
{
    struct stat lst, st;
    if (lstat(path, &lst) != 0) {
        if (errno != ENOENT)
            return out_fail(errno, NULL, why, cap);
        int rc = hw_write_atomic(path, data, len); /* a new file */
        return rc < 0 ? out_fail(-rc, NULL, why, cap) : 0;
    }
    if (S_ISLNK(lst.st_mode) && lst.st_uid != geteuid() && lst.st_uid != 0) {
        char r[96];
        snprintf(r, sizeof r, "is a symbolic link owned by another user (uid %lu): not followed",
                 (unsigned long)lst.st_uid);
        return out_fail(EPERM, r, why, cap);
    }
    if (S_ISREG(lst.st_mode)) {
        int rc = hw_write_atomic(path, data, len);
        return rc < 0 ? out_fail(-rc, NULL, why, cap) : 0;
    }
    if (stat(path, &st) != 0) {
        if (errno != ENOENT || !S_ISLNK(lst.st_mode))
            return out_fail(errno, NULL, why, cap);
        int rc = hw_write_atomic(path, data, len); /* a dangling link of ours: made as a file */
        return rc < 0 ? out_fail(-rc, NULL, why, cap) : 0;
    }
    if (S_ISDIR(st.st_mode))
        return out_fail(EISDIR, NULL, why, cap);
    if (S_ISBLK(st.st_mode))
        return out_fail(EINVAL, "is a block device (not written)", why, cap);
    if (S_ISSOCK(st.st_mode))
        return out_fail(EINVAL, "is a socket", why, cap);
    if (S_ISREG(st.st_mode)) {
        /* a link to a regular file: the file is replaced, the link stays */
        char *real = realpath(path, NULL);
        if (real) {
            int rc = hw_write_atomic(real, data, len);
            free(real);
            return rc < 0 ? out_fail(-rc, NULL, why, cap) : 0;
        }
        /* no name reaches it (a deleted file behind /proc/self/fd/N): written into below */
    }
    /* a device, a FIFO (open waits for its reader, as tee's does) or a pipe */
    int fd;
    do
        fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISREG(st.st_mode) ? O_TRUNC : 0));
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return out_fail(errno, NULL, why, cap);
    int rc = hw_write_all(fd, data, len, NULL);
    if (close(fd) != 0 && rc == 0 && errno != EINTR)
        rc = -errno;
    return rc < 0 ? out_fail(-rc, NULL, why, cap) : 0;
}

int hw_mkdir_p(const char *path, size_t *made)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (made)
        *made = n;
    if (n == 0 || n >= sizeof tmp)
        return n == 0 ? -EINVAL : -ENAMETOOLONG;
    memcpy(tmp, path, n + 1);
    bool first = true;
    for (char *p = tmp + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(tmp, 0755) == 0) {
            if (first && made) { /* what existed ends where this component begins */
                const char *q = p;
                while (q > tmp && q[-1] != '/')
                    q--;
                *made = (size_t)(q - tmp);
            }
            first = false;
        } else if (errno != EEXIST) {
            return -errno;
        } else if (c == '\0') {
            struct stat st;
            if (stat(tmp, &st) < 0)
                return -errno;
            if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        }
        if (c == '\0')
            return 0;
        *p = c;
    }
}

void hw_rmdir_made(const char *path, size_t made)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (made >= n || n >= sizeof tmp)
        return;
    memcpy(tmp, path, n + 1);
    while (n > made) {
        if (rmdir(tmp) < 0)
            return; /* not empty (something else put a file there): keep it and its parents */
        while (n > made && tmp[n - 1] != '/')
            n--;
        while (n > made && tmp[n - 1] == '/')
            n--;
        tmp[n] = '\0';
    }
}

void hw_buf_init(struct hw_buf *b, char *storage, size_t cap)
{
    b->p = storage;
    b->cap = storage ? cap : 0;
    b->len = 0;
    b->heap = false;
    b->oom = false;
    b->spill = NULL;
    b->spill_ctx = NULL;
    b->spill_err = 0;
}

void hw_buf_free(struct hw_buf *b)
{
    if (b->heap)
        free(b->p);
    b->p = NULL;
    b->cap = b->len = 0;
    b->heap = false;
}

void hw_buf_reset(struct hw_buf *b)
{
    b->len = 0;
    b->oom = false;
}

void hw_buf_spill(struct hw_buf *b, size_t over)
{
    if (!b->spill || b->len < over || b->oom)
        return;
    int rc = b->spill(b->spill_ctx, b->p, b->len);
    if (rc < 0 && !b->spill_err)
        b->spill_err = rc;
    b->len = 0; /* handed over, or lost with an error that is kept */
}

/* This thread's failed growths (hw_alloc_failures). */
static _Thread_local unsigned long grow_failures;

unsigned long hw_alloc_failures(void)
{
    return grow_failures;
}

bool hw_grow(void *arr, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap : first;
    while (nc <= n) {
        if (nc > SIZE_MAX / 2)
            return false;
        nc *= 2;
    }
    if (nc > SIZE_MAX / elem)
        return false;
    void **p = arr;
    void *np = realloc(*p, nc * elem);
    if (!np) {
        grow_failures++;
        return false;
    }
    *p = np;
    *cap = nc;
    return true;
}

bool hw_buf_grow(struct hw_buf *b, size_t n)
{
    if (b->oom)
        return false;
    if (b->cap - b->len > n) /* keep one byte for a NUL */
        return true;
    size_t want = b->cap ? b->cap : 256;
    while (want - b->len <= n) {
        if (want > SIZE_MAX / 2) {
            b->oom = true;
            return false;
        }
        want *= 2;
    }
    char *np = b->heap ? realloc(b->p, want) : malloc(want);
    if (!np) {
        b->oom = true;
        grow_failures++;
        return false;
    }
    if (!b->heap && b->len)
        memcpy(np, b->p, b->len);
    b->p = np;
    b->cap = want;
    b->heap = true;
    return true;
}


void hw_buf_puts(struct hw_buf *b, const char *s)
{
    hw_buf_put(b, s, strlen(s));
}


void hw_buf_printf(struct hw_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[128];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        hw_buf_put(b, small, (size_t)n);
        return;
    }
    if (!hw_buf_reserve(b, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* One character of s[0..n) for a terminal: into out (4 bytes at most), its length in out; *used
 * gets the bytes of s it took. */
static size_t term_char(const char *s, size_t n, char *out, size_t *used)
{
    uint32_t cp;
    size_t k = hw_utf8_decode(s, n, &cp);
    if (k == 0 || k == HW_UTF8_SHORT) {
        *used = 1;
        memcpy(out, "\xEF\xBF\xBD", 3);
        return 3;
    }
    *used = k;
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
        out[0] = '?';
        return 1;
    }
    memcpy(out, s, k);
    return k;
}

size_t hw_buf_term(struct hw_buf *b, const char *s, size_t n, size_t max_chars)
{
    size_t chars = 0;
    while (s && n && *s && chars < max_chars) {
        char c[4];
        size_t used, len = term_char(s, n, c, &used);
        hw_buf_put(b, c, len);
        s += used;
        n -= used;
        chars++;
    }
    return chars;
}

const char *hw_term_str(const char *s, char *buf, size_t cap)
{
    size_t o = 0, n = s ? strlen(s) : 0;
    while (n) {
        char c[4];
        size_t used, len = term_char(s, n, c, &used);
        if (o + len >= cap)
            break;
        memcpy(buf + o, c, len);
        o += len;
        s += used;
        n -= used;
    }
    if (cap)
        buf[o < cap ? o : cap - 1] = '\0';
    return buf;
}

size_t hw_utf8_decode(const void *p, size_t n, uint32_t *cp)
{
    const unsigned char *s = p;
    if (!n)
        return HW_UTF8_SHORT;
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    uint32_t v;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        else if (c == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* past U+10FFFF */
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if (i >= n)
            return HW_UTF8_SHORT;
        if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xBF))
            return 0;
        v = v << 6 | (s[i] & 0x3Fu);
    }
    *cp = v;
    return len;
}

void hw_buf_u64(struct hw_buf *b, uint64_t v)
{
    char tmp[24];
    char *e = tmp + sizeof tmp, *p = e;
    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    hw_buf_put(b, p, (size_t)(e - p));
}

void hw_buf_i64(struct hw_buf *b, int64_t v)
{
    if (v < 0)
        hw_buf_putc(b, '-');
    hw_buf_u64(b, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

int hw_read_stream(int fd, int (*feed)(void *ctx, const void *buf, size_t n), void *ctx)
{
    enum { CHUNK = 256 * 1024 };
    char *buf = malloc(CHUNK);
    if (!buf)
        return -ENOMEM;
    int rc = 0;
    while (rc == 0) {
        ssize_t got = read(fd, buf, CHUNK);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (got == 0)
            break;
        rc = feed(ctx, buf, (size_t)got);
    }
    free(buf);
    return rc;
}

int hw_reopen_read(int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int fl = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOATIME; /* a follower's reads: no atime */
    for (;;) {
        int r = open(path, fl);
        if (r >= 0)
            return r;
        if (errno == EPERM && (fl & O_NOATIME)) /* O_NOATIME is the owner's only */
            fl &= ~O_NOATIME;
        else if (errno != EINTR)
            return -errno;
    }
}
