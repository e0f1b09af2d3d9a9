// Warm argon2 memory: libc's mmap and munmap replaced so that the hashing
// pool's threads keep libsodium's argon2 memory mapped between hashes
// (docs/design/performance-choices.md#warm-argon2-memory). Built as its own
// CMake library (authd_warm_argon2), linked into the authd executable and its
// own test only: every program that links it has its mmap and munmap replaced,
// so nothing else does. It rests on an undocumented detail of libsodium (the
// argon2 memory is one mmap(MAP_POPULATE) of exactly m KiB per call, and its
// munmap is what wipes it); should libsodium change that, the interposer lets
// every call through and authd_argon2_memory_reused_total stops moving.
#pragma once

// Not under the sanitizers: their runtimes intercept mmap themselves. Here,
// not in the .cpp, so that a test can tell (tests/integration/metrics_test.cpp
// includes this header without linking the library).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AUTHD_WARM_ARGON2 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define AUTHD_WARM_ARGON2 0
#endif
#endif
#ifndef AUTHD_WARM_ARGON2
#define AUTHD_WARM_ARGON2 1
#endif

#include <cstddef>

namespace authd {

// False in builds that cannot reuse the memory (the sanitizers').
inline constexpr bool kWarmArgon2MemoryBuilt = AUTHD_WARM_ARGON2 != 0;
inline constexpr std::size_t kKeepAnyArgon2Memory = std::size_t{1} << 40;  // KiB

// Installs the hooks of crypto/argon2_memory.hpp that keep the memory warm
// on the threads that ask for it; before any hashing thread starts. Not
// called (`--argon2-warm-memory off`), the interposed mmap and munmap pass
// every call straight to the kernel: libsodium's own behaviour. Does nothing
// where !kWarmArgon2MemoryBuilt.
//
// Memory of more than `keep_at_most_kib` (the server's own argon2 memory)
// is never kept: a verification of a dearer stored kind (interface.md 10.5)
// maps its memory from the kernel and gives it back when it ends, and the
// worker keeps its own-sized mapping meanwhile. Settable again at any time
// (the tests do).
void install_warm_argon2_memory(std::size_t keep_at_most_kib = kKeepAnyArgon2Memory);
void keep_warm_argon2_memory_up_to(std::size_t kib);

// The size of the calling thread's kept mapping, in bytes (0: none).
std::size_t warm_argon2_memory_kept_on_this_thread();

}  // namespace authd
