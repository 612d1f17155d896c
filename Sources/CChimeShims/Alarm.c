#include "CChimeShims.h"

#include <errno.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int chime_alarm_fd_create(void) {
    int fd = timerfd_create(CLOCK_REALTIME_ALARM, TFD_NONBLOCK | TFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int chime_alarm_fd_arm(int fd, int64_t microseconds) {
    struct itimerspec value = { 0 };
    if (microseconds > 0) {
        value.it_value.tv_sec = (time_t)(microseconds / 1000000);
        value.it_value.tv_nsec = (long)(microseconds % 1000000) * 1000;
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &value, NULL) < 0 ? -errno : 0;
}

int chime_alarm_fd_read(int fd) {
    // A timerfd is read the same whatever its clock; this one, without TFD_TIMER_CANCEL_ON_SET, never reports
    // ECANCELED.
    return chime_clock_change_fd_read(fd);
}

int64_t chime_time_asleep(void) {
    struct timespec boot, monotonic;
    if (clock_gettime(CLOCK_BOOTTIME, &boot) < 0 || clock_gettime(CLOCK_MONOTONIC, &monotonic) < 0) {
        return -errno;
    }
    return ((int64_t)boot.tv_sec - monotonic.tv_sec) * 1000000 + (boot.tv_nsec - monotonic.tv_nsec) / 1000;
}
