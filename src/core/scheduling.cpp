#include "core/scheduling.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace authd {
namespace {

// The first version of the kernel's struct sched_attr (48 bytes, Linux
// 3.14). glibc 2.36 has no wrapper, and <linux/sched/types.h> clashes
// with <sched.h>.
struct SchedAttr {
  std::uint32_t size = sizeof(SchedAttr);
  std::uint32_t sched_policy = 0;
  std::uint64_t sched_flags = 0;
  std::int32_t sched_nice = 0;
  std::uint32_t sched_priority = 0;
  std::uint64_t sched_runtime = 0;  // for SCHED_OTHER and SCHED_BATCH: the slice, in ns
  std::uint64_t sched_deadline = 0;
  std::uint64_t sched_period = 0;
};
static_assert(sizeof(SchedAttr) == 48);

constexpr std::uint64_t kShortSliceNs = 100'000;  // the kernel's minimum
constexpr std::uint64_t kResetOnFork = 0x01;      // SCHED_FLAG_RESET_ON_FORK, <linux/sched.h>

bool get_this_thread(SchedAttr& attr) {
  return ::syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0U) == 0;
}

bool set_this_thread(SchedAttr attr) {
  attr.size = sizeof attr;
  attr.sched_flags &= kResetOnFork;  // the only flag that applies here
  return ::syscall(SYS_sched_setattr, 0, &attr, 0U) == 0;
}

}  // namespace

// Only the slice changes: a policy or nice value the operator set (systemd's
// Nice=, CPUSchedulingPolicy=) stays, and a real-time policy is left alone.
void prefer_short_time_slices() {
  SchedAttr attr;
  if (!get_this_thread(attr)) return;
  if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH) return;
  attr.sched_runtime = kShortSliceNs;
  set_this_thread(attr);
}

// The nice value stays the thread's own (the operator's, if one was set):
// equal weights, so that under saturation the hashes get their share of
// the cores. Kernels without sched_setattr still get the policy.
void share_cores_as_batch_work() {
  SchedAttr attr;
  if (!get_this_thread(attr)) attr = SchedAttr{};
  attr.sched_policy = SCHED_BATCH;
  attr.sched_priority = 0;
  attr.sched_runtime = 0;  // the kernel's default slice, not the inherited short one
  if (set_this_thread(attr)) return;
  sched_param param{};
  sched_setscheduler(0, SCHED_BATCH, &param);  // 0: this thread
}

ThreadScheduling current_thread_scheduling() {
  SchedAttr attr;
  if (!get_this_thread(attr)) return {};
  return {attr.sched_policy, attr.sched_nice, attr.sched_runtime};
}

}  // namespace authd
