#include "crypto/argon2_memory.hpp"

namespace authd {
namespace {

// Set once before the hashing threads start, read by them afterwards.
Argon2MemoryHooks g_hooks;

}  // namespace

void install_argon2_memory_hooks(const Argon2MemoryHooks& hooks) { g_hooks = hooks; }

void reuse_argon2_memory_on_this_thread() {
  if (g_hooks.reuse_on_this_thread != nullptr) g_hooks.reuse_on_this_thread();
}

std::uint64_t argon2_memory_reused_total() {
  return g_hooks.reused_total != nullptr ? g_hooks.reused_total() : 0;
}

Argon2Call::Argon2Call(std::size_t memory_kib) noexcept {
  if (g_hooks.call_begins != nullptr) g_hooks.call_begins(memory_kib);
}

Argon2Call::~Argon2Call() {
  if (g_hooks.call_ends != nullptr) g_hooks.call_ends();
}

}  // namespace authd
