#ifndef CHIME_SHIMS_H
#define CHIME_SHIMS_H

// Small C helpers for kernel interfaces that Swift's Glibc module does not export (sys/timerfd.h).
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

#endif
