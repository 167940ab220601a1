#define _GNU_SOURCE
#include "CEventWait.h"

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <time.h>

int event_wait_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int event_wait_watch(int epfd, int fd, int add, int writable, uint64_t tag) {
    struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP | (writable ? EPOLLOUT : 0), .data.u64 = tag};
    return epoll_ctl(epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
}

int event_wait(int epfd, uint64_t *tags, uint32_t *flags, int capacity, int64_t timeout_ns) {
    enum { batch = 256 };
    struct epoll_event events[batch];
    if (capacity > batch) capacity = batch;
    /* epoll_wait's timeout is in milliseconds: wait on the epoll fd itself with ppoll's nanoseconds first. */
    struct pollfd one = {.fd = epfd, .events = POLLIN};
    struct timespec timeout = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
    int ready = ppoll(&one, 1, timeout_ns < 0 ? NULL : &timeout, NULL);
    if (ready <= 0) return ready < 0 && errno == EINTR ? 0 : ready;
    int n = epoll_wait(epfd, events, capacity, 0);
    if (n < 0) return errno == EINTR ? 0 : -1;
    for (int i = 0; i < n; i++) {
        uint32_t e = events[i].events;
        tags[i] = events[i].data.u64;
        flags[i] = (e & EPOLLIN ? EVENT_WAIT_READABLE : 0) | (e & EPOLLOUT ? EVENT_WAIT_WRITABLE : 0) |
                   (e & (EPOLLERR | EPOLLHUP | EPOLLRDHUP) ? EVENT_WAIT_CLOSED : 0);
    }
    return n;
}
