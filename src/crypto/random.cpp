#include "crypto/random.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include <sodium.h>

namespace authd {

void init_crypto() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
}

Sha256Digest sha256(std::string_view data) {
  Sha256Digest out{};
  crypto_hash_sha256(out.data(), reinterpret_cast<const unsigned char*>(data.data()), data.size());
  return out;
}

std::string base64url(const std::uint8_t* data, std::size_t size) {
  constexpr int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string out(sodium_base64_ENCODED_LEN(size, variant), '\0');
  sodium_bin2base64(out.data(), out.size(), data, size, variant);
  out.resize(out.size() - 1);  // drop the terminating NUL libsodium writes
  return out;
}

std::optional<std::string> from_base64url(std::string_view text) {
  std::string bytes(text.size() * 3 / 4 + 1, '\0');
  std::size_t length = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(bytes.data()), bytes.size(), text.data(),
                        text.size(), nullptr, &length, &end,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      end != text.data() + text.size())
    return std::nullopt;
  bytes.resize(length);
  return bytes;
}

std::string new_secret_token(std::string_view prefix) {
  std::array<std::uint8_t, 32> bytes{};
  randombytes_buf(bytes.data(), bytes.size());
  // Encoded in place, in one allocation of the final size: appending a
  // separately encoded string would leave that copy of the token, and the
  // buffer outgrown, in freed memory.
  constexpr int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  const std::size_t encoded = sodium_base64_ENCODED_LEN(bytes.size(), variant);  // with its NUL
  std::string token(prefix.size() + encoded, '\0');
  std::copy(prefix.begin(), prefix.end(), token.begin());
  sodium_bin2base64(token.data() + prefix.size(), encoded, bytes.data(), bytes.size(), variant);
  token.resize(token.size() - 1);  // drop the terminating NUL libsodium writes
  sodium_memzero(bytes.data(), bytes.size());
  return token;
}

namespace {

// 8-4-4-4-12 lowercase hex digits, with the version and RFC 9562's variant set.
std::string uuid_text(std::array<std::uint8_t, 16> b, std::uint8_t version) {
  b[6] = static_cast<std::uint8_t>((version << 4) | (b[6] & 0x0F));
  b[8] = static_cast<std::uint8_t>(0x80 | (b[8] & 0x3F));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(36);
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += kHex[b[i] >> 4];
    text += kHex[b[i] & 0x0F];
  }
  return text;
}

}  // namespace

std::string uuid_v7(std::int64_t unix_millis, const UuidRandomBits& random) {
  std::array<std::uint8_t, 16> b{};
  std::copy(random.begin(), random.end(), b.begin() + 6);
  auto ms = static_cast<std::uint64_t>(unix_millis);
  for (int i = 0; i < 6; ++i) b[i] = static_cast<std::uint8_t>(ms >> (8 * (5 - i)));
  return uuid_text(b, 7);
}

std::string new_uuid_v7(std::int64_t unix_millis) {
  UuidRandomBits random{};
  randombytes_buf(random.data(), random.size());
  return uuid_v7(unix_millis, random);
}

namespace {

// The 74 random bits of a UUIDv7 as one number: `high` holds the top 12
// (rand_a), `low` the other 62 (rand_b).
struct RandomBits74 {
  std::uint64_t high = 0;
  std::uint64_t low = 0;

  static constexpr std::uint64_t kLowMask = (std::uint64_t{1} << 62) - 1;
  static constexpr std::uint64_t kHighMask = (std::uint64_t{1} << 12) - 1;

  UuidRandomBits bytes() const {
    // uuid_v7 keeps bytes[0] & 0x0F, bytes[1], bytes[2] & 0x3F, bytes[3..9].
    UuidRandomBits b{};
    b[0] = static_cast<std::uint8_t>(high >> 8);
    b[1] = static_cast<std::uint8_t>(high);
    b[2] = static_cast<std::uint8_t>(low >> 56);
    for (int i = 0; i < 7; ++i) b[3 + i] = static_cast<std::uint8_t>(low >> (8 * (6 - i)));
    return b;
  }
  // False when the 74 bits overflowed.
  bool add(std::uint64_t increment) {
    low += increment;
    if (low <= kLowMask) return true;
    low &= kLowMask;
    return ++high <= kHighMask;
  }
};

RandomBits74 fresh_random_bits() {
  RandomBits74 bits;
  randombytes_buf(&bits.high, sizeof bits.high);
  randombytes_buf(&bits.low, sizeof bits.low);
  // The top bit of rand_a stays clear: room to count up within a millisecond.
  bits.high &= RandomBits74::kHighMask >> 1;
  bits.low &= RandomBits74::kLowMask;
  return bits;
}

}  // namespace

std::string new_account_id(std::int64_t unix_millis) {
  static std::mutex mutex;
  static std::int64_t last_millis = -1;
  static RandomBits74 last;
  std::lock_guard lock(mutex);
  if (unix_millis > last_millis) {
    last_millis = unix_millis;
    last = fresh_random_bits();
  } else {
    // Same (or an earlier) millisecond: the previous id's bits plus 1 to
    // 2^32, still unguessable from the previous id; on the rare overflow,
    // the next millisecond.
    std::uint32_t increment = randombytes_random();
    if (!last.add(std::uint64_t{increment} + 1)) {
      ++last_millis;
      last = fresh_random_bits();
    }
  }
  return uuid_v7(last_millis, last.bytes());
}

std::string new_uuid_v4() {
  std::array<std::uint8_t, 16> random{};
  randombytes_buf(random.data(), random.size());
  return uuid_text(random, 4);
}

bool is_canonical_uuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace authd
