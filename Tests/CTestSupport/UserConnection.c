#define _GNU_SOURCE
#include "CTestSupport.h"

#include "CUnixSocket.h"

#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

struct connect_as_job {
    const char *path;
    uint32_t uid;
    uint32_t gid;
    int result;
};

static void *connect_as_thread(void *context) {
    struct connect_as_job *job = context;
    gid_t groups[1] = {(gid_t)job->gid};
    // Raw system calls: glibc's wrappers would apply the change to every thread of the process.
    // Groups first, while this thread still has CAP_SETGID.
    if (syscall(SYS_setgroups, 1, groups) < 0 ||
        syscall(SYS_setresgid, -1, (gid_t)job->gid, -1) < 0 ||
        syscall(SYS_setresuid, -1, (uid_t)job->uid, -1) < 0) {
        job->result = -errno;
        return NULL;
    }
    job->result = alarmd_unix_connect(job->path);
    // The thread ends here, and its changed credentials with it.
    return NULL;
}

int alarmd_unix_connect_as(const char *path, uint32_t uid, uint32_t gid) {
    struct connect_as_job job = {.path = path, .uid = uid, .gid = gid, .result = -EINVAL};
    pthread_t thread;
    int created = pthread_create(&thread, NULL, connect_as_thread, &job);
    if (created != 0) return -created;
    pthread_join(thread, NULL);
    return job.result;
}
