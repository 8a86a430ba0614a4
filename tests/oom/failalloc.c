/* Allocation failure on demand, for the whole program: it is linked with
 * -Wl,--wrap=malloc,... (tests/oom/CMakeLists.txt), so every call the program's own objects
 * (the static libraries included) make to these functions comes here. Disarmed, each passes
 * straight to the C library's; armed, the fail_at-th call from arming fails (fail_at 0: none
 * fails, the calls are only counted). Allocations made inside shared libraries (json-c, the C
 * library's own) are not seen: they fail no more often than they do today. */
#include "failalloc.h"

#include <errno.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

static atomic_bool armed;
static atomic_ulong calls, fail_at;

static bool trace; /* $HWRUN_OOM_TRACE: the failing call's stack on stderr */

void fa_arm(unsigned long nth)
{
    void *pc[2];
    trace = getenv("HWRUN_OOM_TRACE") != NULL;
    if (trace)
        backtrace(pc, 2); /* its first call loads libgcc, which allocates: not while armed */
    atomic_store(&calls, 0);
    atomic_store(&fail_at, nth);
    atomic_store(&armed, true);
}

unsigned long fa_disarm(void)
{
    atomic_store(&armed, false);
    return atomic_load(&calls);
}

/* Whether this call is the one to fail. */
static bool fails(void)
{
    if (!atomic_load(&armed))
        return false;
    unsigned long k = atomic_fetch_add(&calls, 1) + 1;
    if (k != atomic_load(&fail_at))
        return false;
    errno = ENOMEM;
    if (trace) {
        void *pc[32];
        int n = backtrace(pc, 32);
        backtrace_symbols_fd(pc, n, STDERR_FILENO);
    }
    return true;
}

void *__wrap_malloc(size_t n)
{
    return fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return fails() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fails() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return fails() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
    return fails() ? NULL : __real_strndup(s, n);
}

int fa_in_child(int (*fn)(void *arg, void *shared), void *arg, void *out, size_t size)
{
    void *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return -1;
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid == 0) {
        int st = fn(arg, shared);
        fflush(NULL);
        _exit(st);
    }
    int ws = -1;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid)
        ws = -1;
    memcpy(out, shared, size);
    munmap(shared, size);
    return ws;
}
