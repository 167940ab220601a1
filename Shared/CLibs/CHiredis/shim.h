#ifndef MAPVEST_CHIREDIS_SHIM_H
#define MAPVEST_CHIREDIS_SHIM_H
#include <sys/time.h>
#include <hiredis/hiredis.h>

/* The context's error text (a fixed char array, awkward to read from Swift as a tuple). */
static inline const char *mv_redis_errstr(const redisContext *c) { return c->errstr; }

/* The i-th element of an array reply (NULL when out of range). */
static inline redisReply *mv_redis_reply_element(const redisReply *r, size_t i) {
    return (r->element != NULL && i < r->elements) ? r->element[i] : NULL;
}
#endif
