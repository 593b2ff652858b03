// POSIX functions the sources call that emscripten's C library (3.1.6, built without threads) does not define.
// They are reached only by the reference kernels of `infracalc verify` (plugins/kernels/thread_team.cpp), never by a
// batch record; each fails the way the caller already handles.
#include <cerrno>
#include <ctime>
#include <pthread.h>

extern "C" {

/// No per-thread CPU clock: ENOENT, which ThreadTeam takes as "use CLOCK_MONOTONIC". (A page starts no threads:
/// std::thread throws before any worker exists.)
int pthread_getcpuclockid(pthread_t, clockid_t*) { return ENOENT; }

}  // extern "C"
