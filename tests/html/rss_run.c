/* rss_run: run a command and say what it took, for gen_measure (gen.h). A child's peak RSS
 * (wait4's ru_maxrss) starts from the RSS of the process that forked it (Linux keeps it across
 * execve): a test program of tens of MiB would hide a small summarize. This program is small,
 * so the command it forks is measured from about a MiB.
 *
 *   rss_run RESULT OUT CMD [ARG]...
 *
 * CMD's standard output goes to OUT (created; "-" for /dev/null), its standard error to
 * /dev/null; RESULT gets "MAXRSS_KIB WALL_S STATUS CPU_S\n" (STATUS -1: it did not exit;
 * CPU_S: user + system). Exit status
 * 0, or 1 when CMD could not be run or RESULT not written. */
#define _GNU_SOURCE /* built without hwrun_flags: wait4, O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fputs("usage: rss_run RESULT OUT CMD [ARG]...\n", stderr);
        return 2;
    }
    const char *out = strcmp(argv[2], "-") ? argv[2] : "/dev/null";
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        perror(out);
        return 1;
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (dup2(fd, 1) < 0 || null < 0 || dup2(null, 2) < 0)
            _exit(126);
        execv(argv[3], argv + 3);
        _exit(127);
    }
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    close(fd);
    int st;
    struct rusage ru;
    pid_t w;
    while ((w = wait4(pid, &st, 0, &ru)) < 0 && errno == EINTR)
        ;
    if (w < 0) {
        perror("wait4");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    FILE *r = fopen(argv[1], "w");
    if (!r)
        return 1;
    fprintf(r, "%ld %.6f %d %.6f\n", ru.ru_maxrss,
            (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9,
            WIFEXITED(st) ? WEXITSTATUS(st) : -1,
            (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6);
    return fclose(r) == 0 ? 0 : 1;
}
