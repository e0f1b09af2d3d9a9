// An allocator that zeroes memory before giving it back. Connection read
// buffers hold raw request bytes, passwords included; with this allocator
// they do not linger in freed heap memory.
#pragma once

#include <cstddef>
#include <new>

#include <sodium.h>

namespace authd {

template <class T>
struct WipingAllocator {
  using value_type = T;
  WipingAllocator() noexcept = default;
  template <class U>
  WipingAllocator(const WipingAllocator<U>&) noexcept {}  // NOLINT: rebinding is implicit

  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept {
    sodium_memzero(p, n * sizeof(T));
    ::operator delete(p);
  }
  template <class U>
  bool operator==(const WipingAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace authd
