/* Helpers for hwmon's tests: run the built hwmon against the fake nvidia-smi, read its run
 * directory (events from run.jsonl through json-c, CSV line counts), watch processes. */
#ifndef HWMON_HWTEST_H
#define HWMON_HWTEST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "testutil.h"

/* argv for hwmon: hwmon_argv(dir, "-i", "0.1", ..., NULL) prepends the binary and
 * "-q --nvidia-smi FAKE -o dir". Returns a malloc'd NULL-terminated array (free with free()). */
char **ht_argv(const char *dir, ...);
/* The same without --nvidia-smi (for PATH tests) */
char **ht_argv_nosmi(const char *dir, ...);

/* Run hwmon to completion; returns its exit status (or -1 on a harness failure). The captured
 * stderr is printed when it is not empty and show_err is set. */
int ht_run(char **argv, char *const env[], double timeout_s, struct th_result *res);

/* The nth (0-based) event named name in dir/run.jsonl, parsed (caller puts it), or NULL. */
json_object *ht_event(const char *dir, const char *name, int nth);
int ht_count_events(const char *dir, const char *name);
/* data.key of an event as int64 / string (NULL if absent). */
long long ht_data_int(json_object *ev, const char *key);
const char *ht_data_str(json_object *ev, const char *key);
json_object *ht_data(json_object *ev, const char *key);

/* A summary's members: o.key (NULL if absent or o NULL), as a number (NAN: absent or null),
 * as a string ("" if absent or not a string). */
json_object *ht_get(json_object *o, const char *key);
double ht_num(json_object *o, const char *key);
const char *ht_str(json_object *o, const char *key);

/* Lines in dir/file (0 if missing). */
size_t ht_lines(const char *dir, const char *file);

/* Pids of the long-running nvidia-smi children (query loops and dmon) logged in a
 * FAKE_SMI_LOG file; returns how many were stored into pids (at most cap). */
size_t ht_smi_loop_pids(const char *log, pid_t *pids, size_t cap);
/* Count of lines in the FAKE_SMI_LOG whose argv contains needle. */
size_t ht_smi_starts(const char *log, const char *needle);

/* Number of zombie children of pid right now. */
int ht_zombie_children(pid_t pid);

/* A shell command for a job hwmon wraps: it returns once the run's file (beside $RUNLOG_FILE)
 * holds at least n lines, or after 60 s, and always succeeds (the test's own count then says).
 * A job that lasts until what a test counts was written, not for a time a loaded machine fills
 * with fewer rows. Free it. */
char *ht_job_wait_lines(const char *file, int n);

/* Poll until fn(arg) or timeout; returns the last fn result. */
bool ht_wait_until(bool (*fn)(void *), void *arg, double timeout_s);
/* Poll until dir/file holds at least n lines (ht_lines), or timeout; whether it does. */
bool ht_wait_lines(const char *dir, const char *file, size_t n, double timeout_s);


#endif
