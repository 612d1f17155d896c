#define _GNU_SOURCE
#include "CChimeShims.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int chime_spawn(const char *path, char *const argv[], char *const envp[], const char *directory, int stdin_fd,
                int stdout_fd, int stderr_fd, pid_t *pid) {
    // The child reports a failure before or at exec through this pipe; an exec that works closes it (O_CLOEXEC).
    // Its write end is at 3 or above, out of the way of the three descriptors the child is given.
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) < 0) {
        return -errno;
    }
    int report = fcntl(ends[1], F_DUPFD_CLOEXEC, 3);
    int saved = errno;
    close(ends[1]);
    if (report < 0) {
        close(ends[0]);
        return -saved;
    }
    pid_t parent = getpid();
    sigset_t all, none, previous;
    sigfillset(&all);
    sigemptyset(&none);
    // No handler of the daemon's may run in the child, which shares this thread's memory until it execs.
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t child = vfork();
    if (child == 0) {
        struct sigaction fallback = {0};
        fallback.sa_handler = SIG_DFL;
        for (int signal = 1; signal < NSIG; signal++) {
            sigaction(signal, &fallback, NULL);
        }
        int failure = 0;
        // Killed by the kernel when the thread that started it ends, which only the end of chimed does while the
        // program runs (the thread waits for it): a delivery command does not go on after a SIGKILL of chimed.
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent) {
            failure = getppid() != parent ? ESRCH : errno;
        } else if (setpgid(0, 0) < 0 || dup2(stdin_fd, STDIN_FILENO) < 0 || dup2(stdout_fd, STDOUT_FILENO) < 0
                   || dup2(stderr_fd, STDERR_FILENO) < 0 || (report > 3 && close_range(3, report - 1, 0) < 0)
                   || close_range(report + 1, ~0U, 0) < 0 || (directory != NULL && chdir(directory) < 0)
                   || sigprocmask(SIG_SETMASK, &none, NULL) < 0) {
            failure = errno;
        } else {
            execve(path, argv, envp);
            failure = errno;
        }
        while (write(report, &failure, sizeof failure) < 0 && errno == EINTR) {
        }
        _exit(127);
    }
    saved = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    close(report);
    if (child < 0) {
        close(ends[0]);
        return -saved;
    }
    int failure = 0;
    ssize_t got;
    while ((got = read(ends[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
    }
    close(ends[0]);
    if (got == (ssize_t)sizeof failure) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        return -failure;
    }
    *pid = child;
    return 0;
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
