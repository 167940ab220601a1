#ifndef MAPVEST_CCURL_SHIM_H
#define MAPVEST_CCURL_SHIM_H
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/* Typed, non-variadic wrappers: Swift cannot call C variadic functions. Only Shared/HTTPClient uses these. */

static inline CURLcode mapvest_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode mapvest_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
/** For string, object and slist options (the pointer is passed through unchanged). */
static inline CURLcode mapvest_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
/** For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
static inline CURLcode mapvest_curl_easy_setopt_write_callback(CURL *handle, CURLoption option,
                                                               curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
/** For CURLOPT_READFUNCTION (SMTP uploads). */
static inline CURLcode mapvest_curl_easy_setopt_read_callback(CURL *handle, curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}
static inline CURLcode mapvest_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *out) {
    return curl_easy_getinfo(handle, info, out);
}
static inline CURLcode mapvest_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *out) {
    return curl_easy_getinfo(handle, info, out);
}
static inline CURLMcode mapvest_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
/** The result code of a CURLMSG_DONE message (the union is awkward from Swift). */
static inline CURLcode mapvest_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
