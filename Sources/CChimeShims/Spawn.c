#define _GNU_SOURCE
#include "CChimeShims.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int chime_spawn(const char *path, char *const argv[], char *const envp[], const char *directory, int stdin_fd,
                int stdout_fd, int stderr_fd, pid_t *pid) {
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_t actions;
    int result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        return -result;
    }
    result = posix_spawn_file_actions_init(&actions);
    if (result != 0) {
        posix_spawnattr_destroy(&attributes);
        return -result;
    }
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    if ((result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF
                                                            | POSIX_SPAWN_SETSIGMASK)) == 0
        && (result = posix_spawnattr_setpgroup(&attributes, 0)) == 0
        && (result = posix_spawnattr_setsigdefault(&attributes, &all)) == 0
        && (result = posix_spawnattr_setsigmask(&attributes, &none)) == 0
        && (result = posix_spawn_file_actions_adddup2(&actions, stdin_fd, STDIN_FILENO)) == 0
        && (result = posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO)) == 0
        && (result = posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO)) == 0
        && (result = posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1)) == 0
        && (directory == NULL || (result = posix_spawn_file_actions_addchdir_np(&actions, directory)) == 0)) {
        result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    }
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return -result;
}

int chime_pipe(int ends[2], int nonblocking) {
    return pipe2(ends, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0)) < 0 ? -errno : 0;
}

int chime_widen_pipe(int fd, int bytes) {
    int size = fcntl(fd, F_GETPIPE_SZ);
    if (size >= 0 && bytes > size && fcntl(fd, F_SETPIPE_SZ, bytes) >= 0) size = fcntl(fd, F_GETPIPE_SZ);
    return size < 0 ? -errno : size;
}

int chime_pidfd_open(pid_t pid) {
    long fd = syscall(SYS_pidfd_open, pid, 0);
    return fd < 0 ? -errno : (int)fd;
}

long chime_write_without_sigpipe(int fd, const void *bytes, unsigned long count) {
    sigset_t pipe_only, previous, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    // Already pending for another reason: not ours to take away.
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
    long written = write(fd, bytes, count);
    int saved = errno;
    if (written < 0 && saved == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return written < 0 ? -saved : written;
}
