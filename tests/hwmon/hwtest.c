/* Helpers for hwmon's tests (see hwtest.h). */
#include "hwtest.h"

#include <math.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char **build(const char *dir, bool smi, va_list ap)
{
    size_t cap = 64, n = 0;
    char **a = calloc(cap, sizeof *a);
    a[n++] = (char *)th_env("HWRUN_HWMON_BIN");
    a[n++] = "-q";
    if (smi) {
        a[n++] = "--nvidia-smi";
        a[n++] = (char *)th_env("HWRUN_FAKE_SMI");
    }
    a[n++] = "-o";
    a[n++] = (char *)dir;
    const char *s;
    while ((s = va_arg(ap, const char *)) && n < cap - 1)
        a[n++] = (char *)s;
    a[n] = NULL;
    return a;
}

char **ht_argv(const char *dir, ...)
{
    va_list ap;
    va_start(ap, dir);
    char **a = build(dir, true, ap);
    va_end(ap);
    return a;
}

char **ht_argv_nosmi(const char *dir, ...)
{
    va_list ap;
    va_start(ap, dir);
    char **a = build(dir, false, ap);
    va_end(ap);
    return a;
}

int ht_run(char **argv, char *const env[], double timeout_s, struct th_result *res)
{
    struct th_result local;
    struct th_result *r = res ? res : &local;
    if (th_run(argv, env, NULL, timeout_s, r) < 0)
        return -1;
    if (r->err_len)
        fprintf(stderr, "[hwmon stderr] %s", r->err);
    int st = r->status;
    if (!res)
        th_result_free(&local);
    return st;
}

json_object *ht_event(const char *dir, const char *name, int nth)
{
    char *path = th_fmt("%s/run.jsonl", dir);
    char *text = th_read_file(path, NULL);
    free(path);
    if (!text)
        return NULL;
    json_object *found = NULL;
    int seen = 0;
    for (char *line = text; line && *line && !found;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        json_object *o = json_tokener_parse(line);
        json_object *ev;
        if (o && json_object_object_get_ex(o, "event", &ev) &&
            strcmp(json_object_get_string(ev), name) == 0 && seen++ == nth)
            found = o;
        else if (o)
            json_object_put(o);
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return found;
}

int ht_count_events(const char *dir, const char *name)
{
    int n = 0;
    json_object *o;
    while ((o = ht_event(dir, name, n))) {
        json_object_put(o);
        n++;
    }
    return n;
}

json_object *ht_data(json_object *ev, const char *key)
{
    json_object *d, *v;
    if (!ev || !json_object_object_get_ex(ev, "data", &d) || !json_object_object_get_ex(d, key, &v))
        return NULL;
    return v;
}

long long ht_data_int(json_object *ev, const char *key)
{
    json_object *v = ht_data(ev, key);
    return v ? (long long)json_object_get_int64(v) : -999999;
}

const char *ht_data_str(json_object *ev, const char *key)
{
    json_object *v = ht_data(ev, key);
    return v ? json_object_get_string(v) : NULL;
}

size_t ht_lines(const char *dir, const char *file)
{
    char *path = th_fmt("%s/%s", dir, file);
    char *text = th_read_file(path, NULL);
    free(path);
    size_t n = text ? th_count_lines(text) : 0;
    free(text);
    return n;
}

static size_t scan_log(const char *log, const char *needle, pid_t *pids, size_t cap)
{
    char *text = th_read_file(log, NULL);
    if (!text)
        return 0;
    size_t n = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        bool match =
            needle ? strstr(line, needle) != NULL : (strstr(line, " -l") || strstr(line, " dmon"));
        if (match) {
            if (pids && n < cap)
                pids[n] = (pid_t)strtol(line, NULL, 10);
            n++;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return pids && n > cap ? cap : n;
}

size_t ht_smi_loop_pids(const char *log, pid_t *pids, size_t cap)
{
    return scan_log(log, NULL, pids, cap);
}

size_t ht_smi_starts(const char *log, const char *needle)
{
    return scan_log(log, needle, NULL, 0);
}

int ht_zombie_children(pid_t pid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char *path = th_fmt("/proc/%s/stat", e->d_name);
        char *text = th_read_file(path, NULL);
        free(path);
        if (!text)
            continue;
        char *p = strrchr(text, ')');
        if (p && p[1] == ' ') {
            char state = p[2];
            long ppid = strtol(p + 4, NULL, 10);
            if (ppid == pid && state == 'Z')
                n++;
        }
        free(text);
    }
    closedir(d);
    return n;
}

char *ht_job_wait_lines(const char *file, int n)
{
    return th_fmt("timeout 60 sh -c 'f=\"$(dirname \"$RUNLOG_FILE\")/%s\"; until [ \"$(cat "
                  "\"$f\" 2>/dev/null | wc -l)\" -ge %d ]; do sleep 0.05; done'; true",
                  file, n);
}

/* The deadline is elapsed time: under load each sleep overruns, so counting steps would wait
 * longer than the test says. */
bool ht_wait_until(bool (*fn)(void *), void *arg, double timeout_s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (fn(arg))
            return true;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= timeout_s)
            return fn(arg);
        th_sleep(0.02);
    }
}

struct lines_wait {
    const char *dir, *file;
    size_t n;
};

static bool lines_there(void *arg)
{
    const struct lines_wait *w = arg;
    return ht_lines(w->dir, w->file) >= w->n;
}

bool ht_wait_lines(const char *dir, const char *file, size_t n, double timeout_s)
{
    struct lines_wait w = {dir, file, n};
    return ht_wait_until(lines_there, &w, timeout_s);
}


json_object *ht_get(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o)
        json_object_object_get_ex(o, key, &v);
    return v;
}

double ht_num(json_object *o, const char *key)
{
    json_object *v = ht_get(o, key);
    return v && !json_object_is_type(v, json_type_null) ? json_object_get_double(v) : NAN;
}

const char *ht_str(json_object *o, const char *key)
{
    json_object *v = ht_get(o, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}
