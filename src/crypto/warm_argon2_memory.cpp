#include "crypto/warm_argon2_memory.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <sodium.h>

#include "crypto/argon2_memory.hpp"

// libsodium maps the argon2 working memory (19 MiB by default) with
// mmap(MAP_POPULATE) at the start of every hash and unmaps it at the end. The
// kernel then has to fault in and zero 4,864 fresh pages per hash, which on a
// virtual machine costs about as much system time as the hash's own
// computation (docs/design/performance-choices.md#warm-argon2-memory).
// libsodium offers no allocator hook, and interface.md 4.1 keeps libsodium, so
// authd interposes the two calls, for the hashing pool's threads only and only
// while they are inside libsodium's argon2 (the Argon2Call marker of
// crypto/argon2_memory.hpp): the anonymous private mapping libsodium asks for
// (exactly the call's m KiB, with MAP_POPULATE, as libsodium maps it; any other
// mapping, such as an allocator growing its heap for libsodium's small malloc
// in the same call, goes to the kernel) is the thread's kept mapping, and its
// munmap wipes the memory (libsodium relies on munmap for that) instead of
// returning it. Every other mmap and munmap of the process, and these two calls
// on any other thread, go straight to the kernel. argon2 overwrites every block
// before reading it, so reusing memory changes no result
// (tests/warm_argon2/warm_argon2_memory_test.cpp checks the hashes against the
// reference implementation).

namespace authd {
namespace {

// Trivially constructed and destroyed, so that the interposed mmap may read
// it from any thread at any time (even before or after C++ thread-local
// constructors run).
struct WarmMemory {
  bool enabled = false;          // this thread reuses its mapping
  std::size_t expected_len = 0;  // inside a libsodium argon2 call: its m KiB in bytes, else 0
  void* base = nullptr;
  std::size_t size = 0;
};
constinit thread_local WarmMemory t_warm{};

// Mappings handed back to libsodium again (authd_argon2_memory_reused_total).
constinit std::atomic<std::uint64_t> g_reused{0};
// The largest mapping a thread keeps, in bytes.
constinit std::atomic<std::size_t> g_keep_bytes{kKeepAnyArgon2Memory * 1024};

[[maybe_unused]] void* kernel_mmap(void* addr, std::size_t len, int prot, int flags, int fd,
                                   off_t offset) {
  // The raw system call returns the mapping's address as a long.
  return reinterpret_cast<void*>(  // NOLINT(performance-no-int-to-ptr)
      ::syscall(SYS_mmap, addr, len, prot, flags, fd, offset));
}

[[maybe_unused]] int kernel_munmap(void* addr, std::size_t len) {
  return static_cast<int>(::syscall(SYS_munmap, addr, len));
}

// Unmaps the thread's kept mapping when the thread ends.
struct WarmMemoryRelease {
  ~WarmMemoryRelease() {
    if (t_warm.base != nullptr) kernel_munmap(t_warm.base, t_warm.size);
    t_warm = WarmMemory{};
  }
};

void reuse_on_this_thread() {
  if (t_warm.enabled) return;
  thread_local WarmMemoryRelease release;  // constructed once per thread
  (void)release;
  t_warm.enabled = true;
}

void call_begins(std::size_t memory_kib) noexcept {
  t_warm.expected_len = t_warm.enabled ? memory_kib * 1024 : 0;
}

void call_ends() noexcept { t_warm.expected_len = 0; }

std::uint64_t reused_total() noexcept { return g_reused.load(std::memory_order_relaxed); }

}  // namespace

void keep_warm_argon2_memory_up_to(std::size_t kib) {
  g_keep_bytes.store(kib * 1024, std::memory_order_relaxed);
}

std::size_t warm_argon2_memory_kept_on_this_thread() { return t_warm.size; }

void install_warm_argon2_memory(std::size_t keep_at_most_kib) {
  if (!kWarmArgon2MemoryBuilt) return;
  keep_warm_argon2_memory_up_to(keep_at_most_kib);
  install_argon2_memory_hooks({.reuse_on_this_thread = reuse_on_this_thread,
                               .call_begins = call_begins,
                               .call_ends = call_ends,
                               .reused_total = reused_total});
}

}  // namespace authd

#if AUTHD_WARM_ARGON2
extern "C" void* mmap(void* addr, std::size_t len, int prot, int flags, int fd,
                      off_t offset) noexcept {
  authd::WarmMemory& warm = authd::t_warm;
  bool argon2_memory = warm.expected_len != 0 && len == warm.expected_len && addr == nullptr &&
                       fd == -1 && (flags & MAP_ANONYMOUS) != 0 && (flags & MAP_PRIVATE) != 0 &&
                       (flags & MAP_POPULATE) != 0;
  // Dearer than the server's own kind: the kernel's, given back by the
  // munmap at its end (which then does not match the kept mapping).
  bool kept = argon2_memory && len <= authd::g_keep_bytes.load(std::memory_order_relaxed);
  if (!kept) return authd::kernel_mmap(addr, len, prot, flags, fd, offset);
  if (warm.base != nullptr && warm.size != len) {  // other parameters: remap
    authd::kernel_munmap(warm.base, warm.size);
    warm.base = nullptr;
  }
  if (warm.base != nullptr) {
    authd::g_reused.fetch_add(1, std::memory_order_relaxed);
    return warm.base;
  }
  void* base = authd::kernel_mmap(nullptr, len, prot, flags, fd, offset);
  if (base == MAP_FAILED) return base;
  warm.base = base;
  warm.size = len;
  return base;
}

extern "C" int munmap(void* addr, std::size_t len) noexcept {
  authd::WarmMemory& warm = authd::t_warm;
  if (warm.expected_len != 0 && addr == warm.base && len == warm.size) {
    sodium_memzero(addr, len);  // what returning the pages to the kernel did
    return 0;
  }
  return authd::kernel_munmap(addr, len);
}
#endif
