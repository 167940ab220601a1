# Groups exclusive per-request costs by library and kind (scripts/bench-cpu.sh --callgrind): reads the idle window's
# list (scaled to the request window) and then the request window's ("count  function [object]" per line, from
# callgrind_annotate), and prints per group the request window's instructions with the idle window's subtracted.
FNR == 1 { file++ }
/PROGRAM TOTALS/ { total[file] = $1; next }
{
  cost = $1; line = $0
  if (line ~ /memset/) g = "libc memset (libmicrohttpd's pool)"
  else if (line ~ /(malloc|_int_free|[^_]free|calloc|realloc|cfree|tcache|arena|unlink_chunk|swift_slowAlloc|swift_slowDealloc)/) g = "malloc/free"
  else if (line ~ /(memcpy|memmove)/) g = "libc memcpy/memmove"
  else if (line ~ /(pthread_mutex|mtx_lock|mtx_unlock|pthread_cond|cnd_|lll_|futex)/) g = "mutexes and condition variables"
  else if (line ~ /(printf|_IO_|strtol|strto)/) g = "libc formatting (printf/strtol; librdkafka's)"
  else if (line ~ /librdkafka/) g = "librdkafka (its own code)"
  else if (line ~ /libmicrohttpd/) g = "libmicrohttpd (its own code)"
  else if (line ~ /(libswift_Concurrency|libdispatch|swift_task|swift_job|swift_continuation)/) g = "Swift concurrency runtime and libdispatch"
  else if (line ~ /(swift_retain|swift_release|swift_bridgeObject|RefCounts|swift_allocObject|swift_deallocObject|swift_deallocClassInstance|swift_arrayDestroy|swift_beginAccess|swift_endAccess|swift_isUniquelyReferenced)/) g = "Swift ARC, object allocation, exclusivity"
  else if (line ~ /Hasher|hash4into/) g = "Swift hashing (String keys)"
  else if (line ~ /(libFoundation|Foundation)/) g = "Foundation"
  else if (line ~ /libswiftCore/) g = "Swift standard library (strings, arrays, generics)"
  else if (line ~ /(clock_gettime|__tls_get_addr|ld-linux|libc\.so)/) g = "libc other (clocks, TLS, syscall stubs)"
  else if (line ~ /(\$s[0-9]*HTTPServer|10HTTPServer)/) g = "ours: HTTPServer"
  else if (line ~ /(\$s[0-9]*GatewayKit|10GatewayKit)/) g = "ours: GatewayKit"
  else if (line ~ /(\$s5Kafka|5Kafka)/) g = "ours: Kafka wrapper"
  else if (line ~ /(9Messaging)/) g = "ours: Messaging"
  else if (line ~ /(7Runtime)/) g = "ours: Runtime (metrics, logging)"
  else g = "other (our other modules, specialisations of stdlib generics)"
  sum[g] += file == 1 ? -cost : cost
}
END {
  for (g in sum) printf "%9.1fk  %s\n", sum[g] / 1000, g
  printf "%9.1fk  total\n", (total[2] - total[1]) / 1000
}
