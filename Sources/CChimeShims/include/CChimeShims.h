#ifndef CHIME_SHIMS_H
#define CHIME_SHIMS_H

// Small C helpers for kernel interfaces that Swift's Glibc module does not export (sys/timerfd.h, pidfd_open,
// prctl), and for starting a child process, which happens between vfork and exec and so must be C.
// Every function returns -errno on failure.

/// Creates a file descriptor that becomes readable when CLOCK_REALTIME is set: a timerfd on CLOCK_REALTIME
/// (non-blocking, close-on-exec), armed by chime_clock_change_fd_arm so that it never expires.
/// Returns the descriptor, or -errno from timerfd_create or timerfd_settime.
int chime_clock_change_fd_create(void);

/// (Re-)arms the timerfd for the largest time_t with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, so that the
/// kernel cancels it when the wall clock is set discontinuously (settimeofday, clock_settime, adjtimex
/// ADJ_SETOFFSET, resume from suspend). Returns 0; 1 when the clock had been set since the last read (the timer
/// is armed all the same: timerfd_settime reports ECANCELED, see timerfd_create(2), NOTES); or -errno.
int chime_clock_change_fd_arm(int fd);

/// Reads the timerfd. Returns 1 when the clock was set since the last read (read fails with ECANCELED) or the
/// timer expired (only a clock set past the year 292277026596 can do that); 0 when there is nothing to read;
/// or -errno. A read that reports a change also clears it: the timer stays armed for the next one.
int chime_clock_change_fd_read(int fd);

#include <stdint.h>

/// A timerfd on CLOCK_REALTIME_ALARM (non-blocking, close-on-exec): like one on CLOCK_REALTIME, and it wakes the
/// system from suspend when it expires. Returns the descriptor, or -errno: EPERM without CAP_WAKE_ALARM, EINVAL on a
/// kernel without alarm timers.
int chime_alarm_fd_create(void);

/// Arms the alarm timerfd for an absolute wall-clock time, in microseconds since the epoch (TFD_TIMER_ABSTIME), or
/// disarms it when `microseconds` is 0 or less. Returns 0, or -errno.
int chime_alarm_fd_arm(int fd, int64_t microseconds);

/// Reads the alarm timerfd: 1 when it expired, 0 when there is nothing to read, or -errno.
int chime_alarm_fd_read(int fd);

/// How long the system has been suspended since it booted, in microseconds: CLOCK_BOOTTIME counts suspend,
/// CLOCK_MONOTONIC does not. Returns it, or -errno.
int64_t chime_time_asleep(void);

#include <sys/types.h>

/// Gives the free pages of malloc's heaps back to the system: malloc_trim(3) with no padding. Returns 1 when
/// memory was released, 0 otherwise.
int chime_release_free_memory(void);

/// Limits malloc to `count` arenas (mallopt M_ARENA_MAX) for the threads that come after; returns 1 on success.
/// glibc's default, eight per core, lets each of a long-running process's threads keep the freed memory of the
/// loads it once ran in an arena of its own.
int chime_limit_malloc_arenas(int count);

/// Makes malloc map every allocation of `bytes` or more on its own (mallopt M_MMAP_THRESHOLD), given back to the
/// system when freed, instead of glibc's threshold that rises to each such block freed, after which blocks of that
/// size come from the heaps and stay resident when freed; returns 1 on success.
int chime_map_allocations_from(int bytes);

/// Starts `path` (vfork and execve) as the leader of a new process group, every signal at its default disposition
/// and none blocked (the daemon ignores SIGHUP, SIGTERM and SIGINT, which a child would otherwise inherit), stdin,
/// stdout and stderr from the given descriptors, no other descriptor open, `directory` as its working directory
/// unless it is NULL, and SIGKILL as its parent-death signal (PR_SET_PDEATHSIG): it ends when the calling thread
/// does, so the caller's thread must outlive it. `argv` and `envp` end with NULL.
/// Returns 0 and stores the pid, or -errno (from the child, too: ENOENT, EACCES, ENOEXEC, ETXTBSY from the exec).
int chime_spawn(const char *path, char *const argv[], char *const envp[], const char *directory, int stdin_fd,
                int stdout_fd, int stderr_fd, pid_t *pid);

/// pipe2(2) with O_CLOEXEC, and O_NONBLOCK on both ends when `nonblocking` is not 0 (Glibc exports pipe(2) only).
/// Returns 0, or -errno.
int chime_pipe(int ends[2], int nonblocking);

/// Widens the pipe to hold at least `bytes` when it holds fewer (fcntl F_SETPIPE_SZ, which Glibc does not export)
/// and returns its size after, or -errno: the size it had when the system refuses (past
/// /proc/sys/fs/pipe-max-size, or the user's pipes past their limit).
int chime_widen_pipe(int fd, int bytes);

/// pidfd_open(2): a descriptor that polls readable once the process has exited. Returns it (close-on-exec), or
/// -errno.
int chime_pidfd_open(pid_t pid);

/// write(2) to a pipe whose reader may be gone, without the SIGPIPE that would end the daemon: SIGPIPE is blocked in
/// the calling thread around the write and, when the write raised one, taken off the thread's pending signals.
/// Returns the number of bytes written, or -errno (EPIPE when nobody reads).
long chime_write_without_sigpipe(int fd, const void *bytes, unsigned long count);

/// Empties the calling thread's ambient capability set (prctl(2) PR_CAP_AMBIENT_CLEAR_ALL): the programs it starts
/// from then on, and those started by threads it creates, inherit no capability. Its own permitted and effective
/// sets stay as they are. Returns 0, or -errno (EINVAL before Linux 4.3, which has no ambient set).
int chime_clear_ambient_capabilities(void);

#endif
