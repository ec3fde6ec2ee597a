// alarmvm-freeze-thread PID THREAD-NAME: stops one thread of a running process and keeps it
// stopped until the process ends, as a system call that never returns would. The watchdog
// episode (guest/vm-test) stops alarmd's wall-clock timer thread, `alarmd-timer`, this way and
// expects systemd to restart the daemon.
//
// PTRACE_SEIZE and PTRACE_INTERRUPT stop that one thread (a SIGSTOP, even sent to one thread
// with tgkill, stops the whole process); a tracee is resumed when its tracer exits, so this
// program stays until the thread is gone. It prints "stopped TID" once the thread is in its
// ptrace stop, then exits 0 when the thread ends (the process was killed), 1 on an error.
// Built static on the host by run-vm: the guest has no compiler and no gdb.
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

// The id of the thread of `pid` whose name (/proc/PID/task/TID/comm) is `name`, or -1.
static pid_t find_thread(pid_t pid, const char *name) {
    char tasks[64];
    snprintf(tasks, sizeof tasks, "/proc/%d/task", (int)pid);
    DIR *directory = opendir(tasks);
    if (!directory) return -1;
    pid_t found = -1;
    struct dirent *entry;
    while (found < 0 && (entry = readdir(directory))) {
        if (entry->d_name[0] == '.') continue;
        char path[sizeof tasks + sizeof entry->d_name + 8], comm[64] = "";
        snprintf(path, sizeof path, "%s/%s/comm", tasks, entry->d_name);
        FILE *file = fopen(path, "r");
        if (!file) continue;
        if (fgets(comm, sizeof comm, file)) comm[strcspn(comm, "\n")] = '\0';
        fclose(file);
        if (strcmp(comm, name) == 0) found = (pid_t)atoi(entry->d_name);
    }
    closedir(directory);
    return found;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s PID THREAD-NAME\n", argv[0]);
        return 64;
    }
    pid_t pid = (pid_t)atoi(argv[1]);
    pid_t tid = find_thread(pid, argv[2]);
    if (tid < 0) {
        fprintf(stderr, "no thread named %s in process %d\n", argv[2], (int)pid);
        return 1;
    }
    if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
        perror("PTRACE_SEIZE");
        return 1;
    }
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) {
        perror("PTRACE_INTERRUPT");
        return 1;
    }
    int status;
    while (waitpid(tid, &status, __WALL) < 0) {
        if (errno != EINTR) {
            perror("waitpid");
            return 1;
        }
    }
    if (!WIFSTOPPED(status)) {
        fprintf(stderr, "thread %d ended before it stopped\n", (int)tid);
        return 1;
    }
    printf("stopped %d\n", (int)tid);
    fflush(stdout);
    // Every later stop (a signal meant for this thread) leaves it stopped: it is never resumed.
    for (;;) {
        if (waitpid(tid, &status, __WALL) < 0) {
            if (errno == EINTR) continue;
            return errno == ECHILD ? 0 : 1;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) return 0;
    }
}
