// core/scheduling: the hints that let connection threads preempt argon2
// hashes on shared cores (GET /me p99 while logins saturate the hashing
// pool) while both keep their share under saturation (fair sharing, equal
// nice values). Each case runs on a thread of its own,
// so that the test runner's threads keep their settings.
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

// Fair sharing: a worker weighs as much as any other thread (nice 0: a nice
// of 10 would leave logins a sixth of their rate under a GET /me load), but
// never preempts one when it wakes.
TEST(Scheduling, HashingWorkersKeepAnEqualWeightAsBatchWorkAndDropTheInheritedShortSlice) {
  ThreadScheduling worker;
  on_new_thread([&] {
    prefer_short_time_slices();  // as inherited from the server's main thread
    share_cores_as_batch_work();
    worker = current_thread_scheduling();
  });
  EXPECT_EQ(worker.policy, static_cast<std::uint32_t>(SCHED_BATCH));
  EXPECT_EQ(worker.nice, 0);
  EXPECT_NE(worker.slice_ns, 100'000u);
}

// An operator's nice value (systemd's Nice=) survives both hints: a worker
// ends up with neither a higher nor a lower priority than it had.
TEST(Scheduling, TheOperatorsNiceValueIsKept) {
  ThreadScheduling connection, worker;
  on_new_thread([&] {
    ASSERT_EQ(setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 5), 0);
    prefer_short_time_slices();
    connection = current_thread_scheduling();
  });
  on_new_thread([&] {
    ASSERT_EQ(setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 12), 0);
    share_cores_as_batch_work();
    worker = current_thread_scheduling();
  });
  EXPECT_EQ(connection.policy, static_cast<std::uint32_t>(SCHED_OTHER));
  EXPECT_EQ(connection.nice, 5);
  EXPECT_EQ(worker.policy, static_cast<std::uint32_t>(SCHED_BATCH));
  EXPECT_EQ(worker.nice, 12);
}

}  // namespace
}  // namespace authd
