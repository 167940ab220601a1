#ifndef MAPVEST_CMICROHTTPD_SHIM_H
#define MAPVEST_CMICROHTTPD_SHIM_H
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* Non-variadic wrappers: Swift cannot call C variadic functions. Only Shared/HTTPServer uses these. */

/** The URI log callback; its return value becomes the request's `*con_cls`. */
typedef void *(*mapvest_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/** MHD_start_daemon with the options the HTTP server uses. `addr` must point to a sockaddr_in or sockaddr_in6. */
static inline struct MHD_Daemon *mapvest_mhd_start_daemon(
    unsigned int flags, const struct sockaddr *addr, MHD_AccessHandlerCallback handler, void *handler_cls,
    mapvest_mhd_uri_log_callback uri_log, void *uri_log_cls, MHD_RequestCompletedCallback completed,
    void *completed_cls, MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int thread_pool_size, unsigned int connection_limit, unsigned int per_ip_connection_limit,
    unsigned int connection_timeout_seconds, size_t connection_memory_limit) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, addr,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_cls,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_END);
}

/** The socket of `connection`, or -1. */
static inline int mapvest_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/** The port the daemon is bound to, or 0. */
static inline uint16_t mapvest_mhd_bind_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/** The number of connections the daemon holds open now. */
static inline unsigned int mapvest_mhd_current_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/** Writes the peer IP of `connection` (IPv4-mapped IPv6 shown as IPv4) into `buffer`; returns 0 or -1. */
static inline int mapvest_mhd_client_address(struct MHD_Connection *connection, char *buffer, socklen_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return -1;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in4 = (const struct sockaddr_in *)(const void *)sa;
        return inet_ntop(AF_INET, &in4->sin_addr, buffer, size) == NULL ? -1 : 0;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
            return inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], buffer, size) == NULL ? -1 : 0;
        }
        return inet_ntop(AF_INET6, &in6->sin6_addr, buffer, size) == NULL ? -1 : 0;
    }
    return -1;
}

/* Header values cut short by a NUL. libmicrohttpd 0.9.75 ends each header line by writing NUL over its CR and LF
 * and measures names and values with strlen, so a value holding a NUL reaches the handler cut at it, with nothing
 * to tell. The head stays contiguous in the connection's read buffer, from the method to `header_size` bytes on, and
 * headers are listed in arrival order: between the end of a value as measured and the next header's name there
 * must be exactly the one or two NULs of its line end (the last header: its line end and the blank line's, two to
 * four). More bytes there are the rest of a cut value. A value ending in one NUL followed by a bare LF cannot be
 * told from CR LF; nothing but trailing NULs is lost then. */
struct mapvest_mhd_head_walk {
    const char *head_end;
    const char *line_end; /* where the previous line's text ended */
    int result;
};

/* True when [from, to) is `min`...`max` NUL bytes. */
static inline int mapvest_mhd_only_line_ends(const char *from, const char *to, long min, long max) {
    if (to - from < min || to - from > max) return 0;
    for (const char *p = from; p < to; p++) {
        if (*p != 0) return 0;
    }
    return 1;
}

static inline enum MHD_Result mapvest_mhd_walk_header(
    void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value, size_t value_size) {
    (void)kind;
    struct mapvest_mhd_head_walk *walk = cls;
    const char *text_end = value != NULL ? value + value_size : key + key_size;
    if (key == NULL || key < walk->line_end || text_end > walk->head_end || (value != NULL && value < key)) {
        walk->result = -1; /* not where the head lies (a folded line is rebuilt elsewhere): cannot tell */
        return MHD_NO;
    }
    if (!mapvest_mhd_only_line_ends(walk->line_end, key, 1, 2)) {
        walk->result = 1;
        return MHD_NO;
    }
    walk->line_end = text_end;
    return MHD_YES;
}

/** 1 when a NUL cut a header value of the request being read (call from the access handler's first call for it,
 *  with the method and version it was given), 0 when every value is whole, -1 when the head cannot be checked. */
static inline int mapvest_mhd_header_value_cut(
    struct MHD_Connection *connection, const char *method, const char *version) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (info == NULL || method == NULL || version == NULL) return -1;
    struct mapvest_mhd_head_walk walk = {method + info->header_size, version + strlen(version), 0};
    if (version < method || walk.line_end > walk.head_end) return -1;
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, mapvest_mhd_walk_header, &walk);
    if (walk.result != 0) return walk.result;
    return mapvest_mhd_only_line_ends(walk.line_end, walk.head_end, 2, 4) ? 0 : 1;
}

#endif
