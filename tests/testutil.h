/* Helpers shared by the CUnit test programs: temporary directories, running the built
 * programs with arguments/environment/stdin and capturing what they print, reading files. */
#ifndef HWRUN_TESTUTIL_H
#define HWRUN_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Defined by each test program: adds its suites to the CUnit registry (th_add_suite). */
void cu_register_all(void);

/* CU_add_suite, with the suite's time limit in seconds: `prog -l` lists "name timeout" per
 * suite, which is how CTest finds the suites (tests/CMakeLists.txt, hwrun_add_cunit): a suite
 * added here is a CTest test without a word in CMake. */
struct CU_Suite;
struct CU_Suite *th_add_suite(const char *name, int (*init)(void), int (*clean)(void),
                              int timeout_s);

/* Path of a built program or data dir, from the environment CTest sets (HWRUN_RUNLOG_BIN,
 * HWRUN_HWMON_BIN, HWRUN_SUMMARIZE_BIN, HWRUN_FAKE_SMI, HWRUN_TESTDATA, HWRUN_SHARED_DIR,
 * HWRUN_SOURCE_DIR). Aborts the test program with a message if unset. */
const char *th_env(const char *name);

/* mkdtemp under $TMPDIR (or /tmp); returns a malloc'd path. th_rmtree removes it again. */
char *th_tmpdir(const char *tag);
void th_rmtree(const char *path);

/* A finished program: exit status (0..255, 128+N when killed by signal N) and its output. */
struct th_result {
    int status;
    char *out; /* stdout, NUL-terminated, malloc'd */
    size_t out_len;
    char *err; /* stderr */
    size_t err_len;
};

/* Run argv[0] (a path) with argv, extra environment entries env ("K=V", NULL-terminated, may be
 * NULL; an entry "K=" with nothing after '=' removes K), stdin from in_data (NULL: /dev/null),
 * killing it after timeout_s seconds. Returns 0 or -errno. */
int th_run(char *const argv[], char *const env[], const char *in_data, double timeout_s,
           struct th_result *r);
void th_result_free(struct th_result *r);

/* Start a program in the background with stdout/stderr to the given files (NULL: /dev/null).
 * Returns its pid or -errno. */
pid_t th_spawn(char *const argv[], char *const env[], const char *out_path, const char *err_path);
/* waitpid with a timeout; returns the status as th_result.status, or -ETIMEDOUT. */
int th_wait(pid_t pid, double timeout_s);

/* Read a whole file (malloc'd, NUL-terminated). NULL on error. */
char *th_read_file(const char *path, size_t *len);
/* Write/append a whole file. Returns 0 or -errno. */
int th_write_file(const char *path, const char *data, size_t len);
/* Count '\n' in a string. */
size_t th_count_lines(const char *s);
/* asprintf that aborts on failure. */
char *th_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Sleep for s seconds (EINTR-safe). */
void th_sleep(double s);
/* Does process pid exist (and is not a zombie)? */
bool th_pid_alive(pid_t pid);

/* The test cannot run here (a tool or file it needs is absent): say why on stderr and make the
 * test program exit with TH_SKIP_STATUS, which CTest reports as "Skipped", never "Passed".
 * Under CI (the CI environment variable set and not "0"/"false") nothing may skip: the skip is
 * recorded as a failure of the calling test instead. The caller returns after it. */
#define TH_SKIP_STATUS 77
#define th_skip(why) th_skip_at((why), __FILE__, __LINE__)
void th_skip_at(const char *why, const char *file, int line);
/* Did a test of this program skip? */
bool th_skipped(void);
/* Is this a CI run (see th_skip)? */
bool th_in_ci(void);

/* The absolute path of a python3 >= 3.11 (sys.executable of python3 on PATH), resolved once;
 * NULL when there is none. */
const char *th_python3(void);

/* A comma-decimal locale for the locale tests: "de_DE.UTF-8", after making it loadable in this
 * process and the programs it starts (when the system has not got it: compiled once with
 * localedef, from Debian's `locales`, into $HWRUN_BUILD_DIR/test-locale, and LOCPATH set). NULL
 * when it cannot be had (the caller skips, saying why). Changes no locale of this process. */
const char *th_comma_locale(void);

/* The live pytyche oracle: the path of $HWRUN_SHARED_DIR/oracle/pytyche_summary.py (malloc'd) when
 * that file exists and python3 >= 3.11 runs it, else NULL (a clone without ../shared). Tests
 * compare with the golden data in testdata/pytyche/ always, and with the live oracle in addition. */
char *th_pytyche_oracle(void);

#endif
