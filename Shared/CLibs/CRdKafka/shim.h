#ifndef MAPVEST_CRDKAFKA_SHIM_H
#define MAPVEST_CRDKAFKA_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/* Macros with casts do not import into Swift. */
static const int32_t MV_PARTITION_UA = RD_KAFKA_PARTITION_UA;
static const int64_t MV_OFFSET_END = RD_KAFKA_OFFSET_END;
static const int64_t MV_OFFSET_BEGINNING = RD_KAFKA_OFFSET_BEGINNING;
static const int64_t MV_OFFSET_INVALID = RD_KAFKA_OFFSET_INVALID;

/*
 * Produces one message through the non-variadic rd_kafka_produceva().
 * The key and value are copied (RD_KAFKA_MSG_F_COPY). On success librdkafka owns `headers`;
 * on failure (non-NULL result) the caller still owns them and must destroy them.
 * A NULL `key` produces a message without a key; `partition` may be MV_PARTITION_UA.
 */
static inline rd_kafka_error_t *mv_produce(rd_kafka_t *rk, const char *topic, int32_t partition,
                                           const void *key, size_t key_len,
                                           const void *value, size_t value_len,
                                           rd_kafka_headers_t *headers, void *msg_opaque) {
    rd_kafka_vu_t vu[7];
    size_t n = 0;
    vu[n].vtype = RD_KAFKA_VTYPE_TOPIC;
    vu[n++].u.cstr = topic;
    vu[n].vtype = RD_KAFKA_VTYPE_PARTITION;
    vu[n++].u.i32 = partition;
    vu[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
    vu[n++].u.i = RD_KAFKA_MSG_F_COPY;
    vu[n].vtype = RD_KAFKA_VTYPE_VALUE;
    vu[n].u.mem.ptr = (void *)value;
    vu[n++].u.mem.size = value_len;
    if (key != NULL) {
        vu[n].vtype = RD_KAFKA_VTYPE_KEY;
        vu[n].u.mem.ptr = (void *)key;
        vu[n++].u.mem.size = key_len;
    }
    if (headers != NULL) {
        vu[n].vtype = RD_KAFKA_VTYPE_HEADERS;
        vu[n++].u.headers = headers;
    }
    vu[n].vtype = RD_KAFKA_VTYPE_OPAQUE;
    vu[n++].u.ptr = msg_opaque;
    return rd_kafka_produceva(rk, vu, n);
}

#endif
