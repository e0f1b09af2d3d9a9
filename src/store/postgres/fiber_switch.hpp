// The read pipeline's fibers (read_pipeline.cpp) switch stacks with
// Boost.Context, behind AddressSanitizer's back: Debian's Boost.Context
// is built without its own notes (BOOST_USE_ASAN), and the sanitizer,
// which believes the thread still runs on its own stack, then refuses to
// clear the poison of the frames an exception unwinds on a fiber ("ignoring
// requested __asan_handle_no_return") and reports a later, good access to
// that memory as an overflow. FiberSwitch tells it of every switch
// (sanitizer/common_interface_defs.h); it compiles to the bare switch
// otherwise. The test: tests/unit/fiber_switch_test.cpp.
#pragma once

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define AUTHD_NOTE_FIBER_SWITCHES 1
#endif

namespace authd::postgres {

class FiberSwitch {
 public:
  // The fiber's stack, once allocated. A stack used before (the thread's
  // cache of them) is cleared of what its last fiber left: its final
  // frames never returned.
  void set_stack(const boost::context::stack_context& stack) {
    bottom_ = static_cast<const char*>(stack.sp) - stack.size;
    size_ = stack.size;
#if AUTHD_NOTE_FIBER_SWITCHES
    ASAN_UNPOISON_MEMORY_REGION(bottom_, size_);
#endif
  }

  // On the loop's stack: runs `fiber` until it switches back.
  boost::context::fiber resume_fiber(boost::context::fiber&& fiber) {
#if AUTHD_NOTE_FIBER_SWITCHES
    void* loop_fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&loop_fake_stack, bottom_, size_);
    boost::context::fiber back = std::move(fiber).resume();
    __sanitizer_finish_switch_fiber(loop_fake_stack, nullptr, nullptr);
    return back;
#else
    return std::move(fiber).resume();
#endif
  }

  // The first thing the fiber's function does; it learns the loop's stack.
  void entered() {
#if AUTHD_NOTE_FIBER_SWITCHES
    __sanitizer_finish_switch_fiber(nullptr, &loop_bottom_, &loop_size_);
#endif
  }

  // On the fiber's stack: runs the loop until it resumes this fiber.
  boost::context::fiber resume_loop(boost::context::fiber&& loop) {
#if AUTHD_NOTE_FIBER_SWITCHES
    __sanitizer_start_switch_fiber(&fake_stack_, loop_bottom_, loop_size_);
    boost::context::fiber back = std::move(loop).resume();
    __sanitizer_finish_switch_fiber(fake_stack_, &loop_bottom_, &loop_size_);
    return back;
#else
    return std::move(loop).resume();
#endif
  }

  // The last thing the fiber's function does: its next switch, as it
  // returns, is its last, and its stack is done with.
  void leaving() {
#if AUTHD_NOTE_FIBER_SWITCHES
    __sanitizer_start_switch_fiber(nullptr, loop_bottom_, loop_size_);
#endif
  }

 private:
  const void* bottom_ = nullptr;  // the fiber's stack
  std::size_t size_ = 0;
  void* fake_stack_ = nullptr;         // the sanitizer's, while the fiber is parked
  const void* loop_bottom_ = nullptr;  // the stack that resumed the fiber
  std::size_t loop_size_ = 0;
};

}  // namespace authd::postgres
