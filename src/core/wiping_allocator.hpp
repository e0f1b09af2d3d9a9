// An allocator that zeroes memory before giving it back. Connection read
// buffers and parsed header fields hold raw request bytes, passwords and
// tokens included, as do the strings of a parsed JSON body; with this
// allocator they do not linger in freed heap memory (also the copies left
// behind when a buffer grows). A short string kept inside its object (the
// small-string optimisation) is not heap memory: see
// docs/design/threat-model/secrets-and-data.md#secrets-in-memory-and-on-disk.
#pragma once

#include <cstddef>
#include <new>
#include <string>

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

// A string whose heap buffers are wiped when freed.
using WipedString = std::basic_string<char, std::char_traits<char>, WipingAllocator<char>>;

}  // namespace authd
