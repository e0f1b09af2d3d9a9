// store/postgres/fiber_switch.hpp: an exception thrown and caught on a read
// fiber's stack leaves nothing that AddressSanitizer later takes for an
// overflow. Without the notes of FiberSwitch, the sanitized build
// (scripts/test-sanitized.sh) aborts here, as authd did in the fault
// campaign (interface.md 20.2) when a read failed over. In other builds
// it runs the same switches, with nothing to check but that they return.
#include "store/postgres/fiber_switch.hpp"

#include <gtest/gtest.h>

#include <boost/context/protected_fixedsize_stack.hpp>

#include <cstring>
#include <stdexcept>

#include "store/postgres/read_pipeline.hpp"

namespace authd::postgres {
namespace fiber_switch_test {
namespace {

namespace ctx = boost::context;

// Keeps what it is given out of the optimizer's reach.
void keep(volatile char* bytes) { bytes[0] = 1; }

[[gnu::noinline]] void thrower(int depth) {
  char frame[64];
  keep(frame);
  if (depth == 0) throw std::runtime_error("a read failed");
  thrower(depth - 1);
}

// Poisoned redzones between locals, several frames deep, then unwound.
[[gnu::noinline]] int throw_and_catch() {
  try {
    thrower(8);
  } catch (const std::runtime_error&) {
    return 1;
  }
  return 0;
}

// A frame that covers the stack the thrower's frames took: an access the
// sanitizer checks (memset) finds their redzones if they are still poisoned.
[[gnu::noinline]] void use_the_stack_again() {
  char area[8192];
  std::memset(area, 0x5a, sizeof area);
  keep(area);
}

// One stack, kept, as the pipeline's StackCache does.
struct OneStack {
  ctx::stack_context* stack;
  ctx::stack_context allocate() { return *stack; }
  void deallocate(ctx::stack_context&) noexcept {}
};

TEST(ReadFiberStacks, Interface_20_2_AnExceptionOnAReadFiberLeavesNoPoisonBehind) {
  ctx::protected_fixedsize_stack maker(kReadFiberStackBytes);
  ctx::stack_context stack = maker.allocate();
  FiberSwitch fiber_switch;
  fiber_switch.set_stack(stack);
  int caught = 0;
  int parked = 0;
  // Twice on the same stack: the second fiber finds what the first left.
  for (int run = 0; run < 2; ++run) {
    ctx::fiber fiber(std::allocator_arg, OneStack{&stack}, [&](ctx::fiber&& loop) {
      fiber_switch.entered();
      caught += throw_and_catch();
      loop = fiber_switch.resume_loop(std::move(loop));  // parks, as a read does
      use_the_stack_again();
      caught += throw_and_catch();
      use_the_stack_again();
      fiber_switch.leaving();
      return std::move(loop);
    });
    fiber = fiber_switch.resume_fiber(std::move(fiber));
    ++parked;
    fiber = fiber_switch.resume_fiber(std::move(fiber));
    EXPECT_FALSE(fiber) << "the fiber has returned";
  }
  EXPECT_EQ(caught, 4);
  EXPECT_EQ(parked, 2);
  maker.deallocate(stack);
}

}  // namespace
}  // namespace fiber_switch_test
}  // namespace authd::postgres
