/* Readiness waits for the load generator: epoll, woken by a nanosecond timeout. Swift's Glibc module declares
 * neither epoll nor ppoll(2), so this header wraps them. */
#ifndef C_EVENT_WAIT_H
#define C_EVENT_WAIT_H

#include <stdint.h>

/** Bits of an event's flags. */
enum { EVENT_WAIT_READABLE = 1, EVENT_WAIT_WRITABLE = 2, EVENT_WAIT_CLOSED = 4 };

/** A new epoll instance (close-on-exec), or -1 with errno set. */
int event_wait_create(void);

/** Watches `fd` for readability, and for writability when `writable` is non-zero; `tag` comes back with its events.
 * `add` is non-zero the first time, zero to change the watch. A closed fd is forgotten by itself. 0 or -1. */
int event_wait_watch(int epfd, int fd, int add, int writable, uint64_t tag);

/** Waits up to `timeout_ns` for ready fds and writes up to `capacity` of them into `tags` and `flags`.
 * Returns how many (0 on timeout or a signal), or -1 with errno set. */
int event_wait(int epfd, uint64_t *tags, uint32_t *flags, int capacity, int64_t timeout_ns);

#endif
