/* Following run.jsonl as it is written (inotify, not polling), for the sampler's edge samples:
 * a phase's CPU, disk and network are read at its own begin and end when they are far enough
 * apart to matter (sampler.h). The lines go through the run directory's own reader (rundir's
 * readers.h), as summarize and the Prometheus export read them: one parser.
 *
 * The follower keeps to the name, as `tail -F` does: a rotation that renames or deletes
 * run.jsonl and lets a writer make it again (librunlog's rl_follow), or truncates it in place
 * (copytruncate), is noticed at the next read and said in the news; the old file is read to
 * its end first. */
#ifndef HWMON_FOLLOW_H
#define HWMON_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "readers.h"

/* What the lines read since the last call said. */
/* How many phases back a name is looked for: a step loop may cycle through that many (forward,
 * backward, optimizer...) without any of them counting as new. */
#define MON_FOLLOW_NAMES 8

struct mon_follow_news {
    unsigned begins, ends;
    /* begins of a phase whose name is not among the last MON_FOLLOW_NAMES phases begun (a
     * checkpoint among steps), and ends of such phases */
    unsigned fresh_begins, fresh_ends;
    double longest_end_s; /* the largest "seconds" of the phases that ended (0 if none) */
    /* the name now reaches another file, or was truncated: HW_LOG_HOW_* (NULL: neither) */
    const char *rotated;
    const char *previous; /* where the earlier lines are (hw_fd_whereabouts), or NULL */
    uint64_t bytes;       /* how far the old file had been read */
};

struct mon_follow {
    int fd;  /* run.jsonl, read-only (borrowed until a rotation, then our own) */
    bool own_fd;
    int dirfd; /* the run directory (borrowed) and the name in it; -1: no name to keep to */
    const char *name;
    int ifd; /* inotify, non-blocking; -1 when not following */
    int wd;  /* the watch on fd's file */
    struct rd_reader *r;
    struct rd_sink sink;
    struct rd_read_opts opts;
    struct rd_quality q;
    struct mon_follow_news news; /* filled by the reader's callbacks */
    /* the names (hashes) of the last phases begun, and of the fresh ones still open */
    uint64_t recent[MON_FOLLOW_NAMES], open_fresh[MON_FOLLOW_NAMES];
    unsigned recent_next, open_next;
    char previous[4096];
    char chunk[16384];
};

/* Follow fd (run.jsonl) from its current offset, and name in dirfd (both borrowed; dirfd -1:
 * the descriptor only). Returns 0, or -errno when inotify or the reader cannot be had (then
 * mon_follow_fd() is -1 and nothing is followed). */
int mon_follow_open(struct mon_follow *f, int fd, int dirfd, const char *name);
void mon_follow_close(struct mon_follow *f); /* also after a failed open */
/* The descriptor to poll for POLLIN; -1 when not following. */
static inline int mon_follow_fd(const struct mon_follow *f)
{
    return f->ifd;
}
/* Drain the inotify events, read what was appended since the last call, and look whether the
 * name still reaches the file (one fstatat). */
void mon_follow_read(struct mon_follow *f, struct mon_follow_news *news);

#endif
