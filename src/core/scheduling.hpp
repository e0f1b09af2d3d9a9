// How authd's threads ask the Linux scheduler for the cores they share.
//
// On 2 cores a login flood keeps both cores busy with argon2 hashes, while a
// GET /me wakes its connection thread (and on PostgreSQL a database thread
// and the connection thread again; a logout, the SQLite writer too).
// Each wake-up that has to wait for a hash's time slice adds milliseconds to
// its latency. Two hints, both best effort (a kernel that does not know one
// ignores it), and neither raises a thread's priority above what the
// operator gave the process:
//  - the hashing workers run as SCHED_BATCH with nice 10: they still take
//    every idle cycle, but every other thread runs first;
//  - every other thread asks for a 0.1 ms time slice (EEVDF's latency hint,
//    Linux 6.12 and later: sched_attr.sched_runtime for SCHED_OTHER). A
//    thread with a short slice gets an early deadline when it wakes, so it
//    preempts a hash at once instead of at the end of the hash's slice.
// docs/performance.md has the measurements.
#pragma once

#include <cstdint>

namespace authd {

// For the calling thread; threads it starts afterwards inherit it. Only the
// slice changes (policy and nice stay; a real-time policy is left alone).
void prefer_short_time_slices();

// For a hashing worker (calling thread only): SCHED_BATCH, nice 10 or the
// thread's own if higher, the kernel's default slice.
void yield_to_other_threads();

struct ThreadScheduling {
  std::uint32_t policy = 0;
  int nice = 0;
  std::uint64_t slice_ns = 0;  // 0: the kernel's default
};

// The calling thread's settings, as the kernel reports them (tests).
ThreadScheduling current_thread_scheduling();

}  // namespace authd
