// core/scheduling: the hints that keep connection threads ahead of argon2
// hashes on shared cores (issue 5: GET /me p99 while logins saturate the
// hashing pool). Each case runs on a thread of its own, so that the test
// runner's threads keep their settings.
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <thread>

#include "core/scheduling.hpp"

namespace authd {
namespace {

template <class Body>
void on_new_thread(Body body) {
  std::thread thread(body);
  thread.join();
}

// Linux reports a fair thread's slice in sched_runtime only where it takes
// a slice request (EEVDF, 6.12 and later); older kernels report 0.
bool kernel_takes_slice_requests() {
  bool takes = false;
  on_new_thread([&] { takes = current_thread_scheduling().slice_ns != 0; });
  return takes;
}

TEST(Scheduling, ConnectionThreadsAndTheThreadsTheyStartAskForShortSlices) {
  if (!kernel_takes_slice_requests()) GTEST_SKIP() << "this kernel takes no slice requests";
  ThreadScheduling self, child;
  on_new_thread([&] {
    prefer_short_time_slices();
    self = current_thread_scheduling();
    on_new_thread([&] { child = current_thread_scheduling(); });
  });
  EXPECT_EQ(self.policy, static_cast<std::uint32_t>(SCHED_OTHER));
  EXPECT_EQ(self.nice, 0);
  EXPECT_EQ(self.slice_ns, 100'000u);
  EXPECT_EQ(child.slice_ns, 100'000u);  // inherited: serve() sets it before starting threads
}

TEST(Scheduling, HashingWorkersYieldAndDropTheInheritedShortSlice) {
  ThreadScheduling worker;
  on_new_thread([&] {
    prefer_short_time_slices();  // as inherited from the server's main thread
    yield_to_other_threads();
    worker = current_thread_scheduling();
  });
  EXPECT_EQ(worker.policy, static_cast<std::uint32_t>(SCHED_BATCH));
  EXPECT_EQ(worker.nice, 10);
  EXPECT_NE(worker.slice_ns, 100'000u);
}

// An operator's nice value (systemd's Nice=) survives both hints, and a
// worker never ends up with a higher priority than it had.
TEST(Scheduling, TheOperatorsNiceValueIsKept) {
  ThreadScheduling connection, worker;
  on_new_thread([&] {
    ASSERT_EQ(setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 5), 0);
    prefer_short_time_slices();
    connection = current_thread_scheduling();
  });
  on_new_thread([&] {
    ASSERT_EQ(setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 12), 0);
    yield_to_other_threads();
    worker = current_thread_scheduling();
  });
  EXPECT_EQ(connection.policy, static_cast<std::uint32_t>(SCHED_OTHER));
  EXPECT_EQ(connection.nice, 5);
  EXPECT_EQ(worker.policy, static_cast<std::uint32_t>(SCHED_BATCH));
  EXPECT_EQ(worker.nice, 12);
}

}  // namespace
}  // namespace authd
