// The memory of libsodium's argon2 calls, as far as authd_core knows it: a
// seam. libsodium maps that memory itself (mmap at the start of every hash,
// munmap at the end) and offers no allocator hook; a program may install
// hooks that keep it mapped on the hashing pool's threads instead. The authd
// executable installs those of crypto/warm_argon2_memory.hpp, which interpose
// mmap and munmap and are linked into it alone (--argon2-warm-memory). Without
// hooks (the tests, the fuzzers, `--argon2-warm-memory off`) every call below
// does nothing and libsodium behaves as it does by default.
#pragma once

#include <cstddef>
#include <cstdint>

namespace authd {

struct Argon2MemoryHooks {
  // The calling thread will keep its argon2 memory between hashes.
  void (*reuse_on_this_thread)() = nullptr;
  // A libsodium argon2 call starts on this thread, with the memory of its
  // parameters (m KiB, 0: unknown), and ends.
  void (*call_begins)(std::size_t memory_kib) noexcept = nullptr;
  void (*call_ends)() noexcept = nullptr;
  // Mappings handed back to libsodium again instead of mapped afresh.
  std::uint64_t (*reused_total)() noexcept = nullptr;
};

// Installs `hooks`; before any hashing thread starts (the hooks are read
// without a lock).
void install_argon2_memory_hooks(const Argon2MemoryHooks& hooks);

// Makes the argon2 computations of the calling thread reuse one memory
// mapping, kept mapped (and its pages warm) between hashes and wiped after
// each, when hooks are installed. The hashing pool's workers call it; other
// threads (the CLI, the start-up dummy hash) keep libsodium's behaviour.
// Idempotent.
void reuse_argon2_memory_on_this_thread();

// How many times libsodium was handed a kept mapping instead of a fresh one
// (0 without hooks), for GET /metrics.
std::uint64_t argon2_memory_reused_total();

// Marks the span of one libsodium argon2 call on this thread, with the size
// of the memory region it will map (0: unknown, nothing is reused).
class Argon2Call {
 public:
  explicit Argon2Call(std::size_t memory_kib) noexcept;
  ~Argon2Call();
  Argon2Call(const Argon2Call&) = delete;
  Argon2Call& operator=(const Argon2Call&) = delete;
};

}  // namespace authd
