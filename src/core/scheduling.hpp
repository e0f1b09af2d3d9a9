// How authd's threads ask the Linux scheduler for the cores they share.
//
// On 2 cores a login flood keeps both cores busy with argon2 hashes, while a
// GET /me wakes its connection thread (and on PostgreSQL a database thread
// and the connection thread again; a logout, the SQLite writer too).
// Each wake-up that has to wait for a hash's time slice adds milliseconds to
// its latency. Yet when token checks and logins both try to take the whole
// machine, each should keep about half of it (fair sharing).
// Two hints, both best effort (a kernel that does not know one ignores
// it), and neither changes a thread's nice value, so that threads share
// the cores by equal weights under saturation:
//  - every thread but the hashing workers asks for a 0.1 ms time slice
//    (EEVDF's latency hint, Linux 6.12 and later: sched_attr.sched_runtime
//    for SCHED_OTHER). A thread with a short slice gets an early deadline
//    when it wakes, so it preempts a hash at once instead of at the end of
//    the hash's slice: latency comes from the slice, not from a priority;
//  - the hashing workers run as SCHED_BATCH with the kernel's default
//    slice: a worker that wakes never preempts another thread.
// docs/design/performance-choices.md#sharing-the-cores has the measurements.
#pragma once

#include <cstdint>

namespace authd {

// For the calling thread; threads it starts afterwards inherit it. Only the
// slice changes (policy and nice stay; a real-time policy is left alone).
void prefer_short_time_slices();

// For a hashing worker (calling thread only): SCHED_BATCH, the thread's own
// nice value, the kernel's default slice.
void share_cores_as_batch_work();

struct ThreadScheduling {
  std::uint32_t policy = 0;
  int nice = 0;
  std::uint64_t slice_ns = 0;  // 0: the kernel's default
};

// The calling thread's settings, as the kernel reports them (tests).
ThreadScheduling current_thread_scheduling();

}  // namespace authd
