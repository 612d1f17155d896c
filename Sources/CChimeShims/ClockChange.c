#include "CChimeShims.h"

#include <errno.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

// The largest time_t: the timer must never expire, only be cancelled (systemd's time-change fd does the same).
#define TIME_T_MAX ((time_t)((UINTMAX_C(1) << ((sizeof(time_t) << 3) - 1)) - 1))

int chime_clock_change_fd_create(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    int armed = chime_clock_change_fd_arm(fd);
    if (armed < 0) {
        close(fd);
        return armed;
    }
    return fd;
}

int chime_clock_change_fd_arm(int fd) {
    struct itimerspec value = { .it_value = { .tv_sec = TIME_T_MAX } };
    if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &value, NULL) < 0) {
        return errno == ECANCELED ? 1 : -errno;
    }
    return 0;
}

int chime_clock_change_fd_read(int fd) {
    uint64_t expirations;
    for (;;) {
        if (read(fd, &expirations, sizeof expirations) >= 0) {
            return 1;
        }
        switch (errno) {
        case EINTR:
            continue;
        case ECANCELED:
            return 1;
        case EAGAIN:
            return 0;
        default:
            return -errno;
        }
    }
}

#include <malloc.h>

int chime_release_free_memory(void) {
    return malloc_trim(0);
}

int chime_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

int chime_map_allocations_from(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
