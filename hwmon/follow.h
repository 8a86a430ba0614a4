/* Following run.jsonl as it is written (inotify, not polling), for the sampler's edge samples:
 * a phase's CPU, disk and network are read at its own begin and end when they are far enough
 * apart to matter (sampler.h). The lines go through the run directory's own reader (rundir's
 * readers.h), as summarize and the Prometheus export read them: one parser. */
#ifndef HWMON_FOLLOW_H
#define HWMON_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "readers.h"

/* What the lines read since the last call said. */
struct mon_follow_news {
    unsigned begins, ends;
    double longest_end_s; /* the largest "seconds" of the phases that ended (0 if none) */
};

struct mon_follow {
    int fd;  /* run.jsonl, read-only (borrowed) */
    int ifd; /* inotify, non-blocking; -1 when not following */
    struct rd_reader *r;
    struct rd_sink sink;
    struct rd_read_opts opts;
    struct rd_quality q;
    struct mon_follow_news news; /* filled by the reader's callbacks */
    char chunk[16384];
};

/* Follow fd (run.jsonl) from its current offset. Returns 0, or -errno when inotify or the reader
 * cannot be had (then mon_follow_fd() is -1 and nothing is followed). */
int mon_follow_open(struct mon_follow *f, int fd);
void mon_follow_close(struct mon_follow *f); /* also after a failed open */
/* The descriptor to poll for POLLIN; -1 when not following. */
static inline int mon_follow_fd(const struct mon_follow *f)
{
    return f->ifd;
}
/* Drain the inotify events and read what was appended since the last call. */
void mon_follow_read(struct mon_follow *f, struct mon_follow_news *news);

#endif
