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

void set_this_thread(std::uint32_t policy, int nice, std::uint64_t slice_ns) {
  SchedAttr attr;
  attr.sched_policy = policy;
  attr.sched_nice = nice;
  attr.sched_runtime = slice_ns;
  ::syscall(SYS_sched_setattr, 0, &attr, 0U);  // 0: this thread; best effort
}

}  // namespace

void prefer_short_time_slices() { set_this_thread(SCHED_OTHER, 0, kShortSliceNs); }

void yield_to_other_threads() { set_this_thread(SCHED_BATCH, 10, 0); }

ThreadScheduling current_thread_scheduling() {
  SchedAttr attr;
  if (::syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0U) != 0) return {};
  return {attr.sched_policy, attr.sched_nice, attr.sched_runtime};
}

}  // namespace authd
