#include "http/request_id.hpp"

#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstring>

#include "core/time.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

// Request ids are not secrets, only unique: each thread draws the CSPRNG's
// bytes 4 KiB at a time instead of making a getrandom call per request.
UuidRandomBits next_request_id_bits() {
  static constexpr std::size_t kPoolSize = 4096 - 4096 % sizeof(UuidRandomBits);
  thread_local std::array<std::uint8_t, kPoolSize> pool;
  thread_local std::size_t used = kPoolSize;
  if (used == kPoolSize) {
    randombytes_buf(pool.data(), pool.size());
    used = 0;
  }
  UuidRandomBits bits;
  std::memcpy(bits.data(), pool.data() + used, bits.size());
  used += bits.size();
  return bits;
}

}  // namespace

bool is_acceptable_request_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              (c != '\0' && std::strchr("._:-", c) != nullptr);
    if (!ok) return false;
  }
  return true;
}

std::string choose_request_id(const std::vector<std::string_view>& client_values) {
  if (client_values.size() == 1 && is_acceptable_request_id(client_values.front()))
    return std::string(client_values.front());
  return uuid_v7(now_millis(), next_request_id_bits());
}

}  // namespace authd
