/* Preloaded into processes profiled under Valgrind 3.19 (scripts/bench-cpu.sh --callgrind). libdispatch's main
 * loop calls sigsuspend() with a mask in read-only memory; Valgrind 3.19 edits that mask in place and dies with
 * SIGSEGV. This passes a writable copy instead; the behaviour is otherwise the same. */
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (long)(_NSIG / 8));
}
