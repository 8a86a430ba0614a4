/* Files: EINTR-safe writes and reads, opening a run's files as what they must be (relative to
 * a directory, no link followed), atomic replacement, directories made and removed. The line
 * buffer is buf.h's, the UTF-8 decoder utf8.h's.
 *
 * Every writer in hwrun builds one whole line and hands it to hw_write_all(), so a line is one
 * write(2) on an O_APPEND descriptor: readers and tail -f never see half of it. */
#ifndef HWRUN_IO_H
#define HWRUN_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Write all len bytes, retrying on EINTR and short writes. Returns 0 or -errno. If some bytes
 * were written before the error, *written (when not NULL) says how many. */
int hw_write_all(int fd, const void *buf, size_t len, size_t *written);

/* Append one line (or a few whole lines) to a file that this process alone appends to (hwmon's
 * sample files). A write cut short (a full disk) is cut back off the file, as redis's AOF writer
 * does, so the file always ends with a whole line and the next one starts clean. Returns 0 or
 * -errno (the write's). */
int hw_append_whole(int fd, const void *buf, size_t len);

/* How hw_open_file opens a file to append to. */
enum hw_open_how {
    HW_OPEN_CREATE = 1 << 0,  /* create it when missing (mode 0644, less the umask) */
    HW_OPEN_EXCL = 1 << 1,    /* create it; -EEXIST when anything at all stands at the name */
    HW_OPEN_RDWR = 1 << 2,    /* read-write (children.c looks at a file's last byte) */
    HW_OPEN_OWNED = 1 << 3,   /* an existing file must be the effective user's, with one link */
    HW_OPEN_FOLLOW = 1 << 4,  /* follow a symbolic link at the last component */
    HW_OPEN_CHARDEV = 1 << 5, /* a character device (/dev/null) will do as well */
    HW_OPEN_READ = 1 << 6,    /* read only, from the start (summarize's readers) */
};

/* Open name, relative to dirfd (AT_FDCWD: a plain path), to append to (HW_OPEN_READ: to read), as what a log or a sample
 * file must be: a regular file (HW_OPEN_CHARDEV: or a character device), never reached through a
 * symbolic link at the last component (unless HW_OPEN_FOLLOW), and never waited on: a FIFO is
 * refused, not opened, so that a stop signal is never stuck behind open(2) (SQLite's
 * robust_open, systemd's openat discipline). EINTR is retried. Returns the fd (close-on-exec,
 * O_APPEND) or -errno: -ELOOP a symbolic link, -EEXIST (HW_OPEN_EXCL) the name is taken, -EINVAL
 * not a regular file, -EPERM (HW_OPEN_OWNED) another user's file or a hard link to another name.
 * hw_open_reason() turns a refusal into words. */
int hw_open_file(int dirfd, const char *name, unsigned how);
/* The file open at fd, opened again to be read from its start with an offset of its own
 * (through /proc/self/fd: the very file, whatever its name has become). Returns the new
 * descriptor (close-on-exec) or -errno. */
int hw_reopen_read(int fd);

/* Where the file open at fd lives now that a name no longer reaches it (a log rotated away):
 * its name in the directory dirfd when it is still there (run.jsonl.1), else its path (moved to
 * another directory), else NULL (deleted, or /proc cannot say). The result is in buf. */
const char *hw_fd_whereabouts(int fd, int dirfd, char *buf, size_t cap);

/* Why hw_open_file(dirfd, name, ...) failed with err, in words for a message ("is a FIFO", "is a
 * symbolic link", "has 2 links", "belongs to another user"; strerror for the other errors). The
 * result is in buf (or a static string). */
const char *hw_open_reason(int dirfd, const char *name, int err, char *buf, size_t cap);

/* Read fd to its end in 256 KiB chunks, handing each to feed(ctx, buf, n) (EINTR retried).
 * Returns 0 at the end, -errno of a failed read, -ENOMEM, or feed's first negative return. */
int hw_read_stream(int fd, int (*feed)(void *ctx, const void *buf, size_t n), void *ctx);

/* Whether a byte stays as it is in a file or label name made from outside text (a host, a run
 * directory's name, a job id): [A-Za-z0-9._-]; every other byte becomes '_'. */
static inline bool hw_name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
}

/* Read a small file relative to dirfd (AT_FDCWD for plain paths) into buf, NUL-terminated.
 * Returns the length or -errno; -ENOENT/-ESRCH mean a process went away, which is normal. */
ssize_t hw_read_small(int dirfd, const char *name, char *buf, size_t cap);

/* pread from offset 0 of an already open file (kept-open /proc files), NUL-terminated.
 * Returns the length or -errno. */
ssize_t hw_pread_all(int fd, char *buf, size_t cap);

/* Replace path with data atomically: write a temporary file beside it, fsync, and rename(2) over
 * path, so a reader sees the old file or the new one, never half of one, and a failure leaves no
 * temporary file behind. The file keeps the mode of the one it replaces; a new one gets 0644
 * less the umask. Returns 0 or -errno. */
int hw_write_atomic(const char *path, const char *data, size_t len);
/* The same, with the fsync only when durable: for a file that is rewritten every few seconds
 * and worthless after a power cut (the Prometheus export), where the fsync is most of the cost. */
int hw_write_replace(const char *path, const char *data, size_t len, bool durable);

/* A report written where the user asked (summarize -o FILE, --html FILE), as `sort -o` and
 * `tee` do: a regular file (or a new one) is replaced atomically (hw_write_atomic); something
 * that is not a regular file (a character device such as /dev/null or a terminal, a FIFO, a
 * pipe reached through /proc/self/fd/N or /dev/stdout) is opened and written into, never
 * replaced. A symbolic link is followed only when the user or root owns it (the system's
 * /dev/stdout); to a regular file, the file it leads to is replaced and the link stays. A
 * directory, block device or socket is refused. Returns 0 or -errno; on failure why (of cap
 * bytes) says what went wrong in words ("is a block device", or strerror). */
int hw_write_output(const char *path, const char *data, size_t len, char *why, size_t cap);

/* mkdir -p with mode 0755. Returns 0 or -errno. *made (may be NULL) is the length of the prefix of
 * path that existed before (every directory below it was made by this call; == strlen(path) when
 * nothing was made), so that a start that fails can remove what it made (hw_rmdir_made). */
int hw_mkdir_p(const char *path, size_t *made);
/* Remove the directories hw_mkdir_p(path, &made) made, deepest first, as far as they are empty. */
void hw_rmdir_made(const char *path, size_t made);

#endif
