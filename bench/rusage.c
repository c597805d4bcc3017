/* rusage: runs a command as its child and writes the command's own resource
 * usage to a file, for bench/e2e.py.
 *
 *   rusage OUT COMMAND [ARG...]
 *
 * OUT gets one line: wall-clock seconds (fork to exit), user and system CPU
 * seconds, and peak resident set size in KiB (`ru_maxrss`). The exit status
 * is the command's (128 + the signal for a command killed by one).
 *
 * Why a launcher: when a process execs a program, Linux keeps the peak RSS
 * of the memory it had before (`setmax_mm_hiwater_rss` in fs/exec.c), so a
 * command spawned straight from Python reports at least the Python
 * interpreter's RSS (10 to 15 MB) as its peak. Forked from this small
 * program, its peak is its own (plus this program's, under a megabyte). */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: rusage OUT COMMAND [ARG...]\n");
        return 2;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) {
        perror("rusage: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("rusage: exec");
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) {
        perror("rusage: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) {
        perror("rusage: cannot write OUT");
        return 2;
    }
    double wall = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    fprintf(out, "%.6f %.6f %.6f %ld\n", wall, seconds(usage.ru_utime), seconds(usage.ru_stime),
            usage.ru_maxrss);
    if (fclose(out) != 0) {
        perror("rusage: cannot write OUT");
        return 2;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
