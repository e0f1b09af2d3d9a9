// crypto/random: interface.md 5.1 (opaque tokens: 256 bits from the CSPRNG,
// base64url without padding, a recognisable prefix; only the SHA-256 digest
// is stored) and 2.3 (ids are UUIDs, version 7).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include <sodium.h>

#include "crypto/random.hpp"

namespace authd {
namespace {

std::string hex(const Sha256Digest& digest) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (auto b : digest) {
    out += digits[b >> 4];
    out += digits[b & 0x0F];
  }
  return out;
}

std::string b64(std::string_view text) {
  return base64url(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

// interface.md 5.1: prefix, then 256 bits in base64url without padding.
TEST(Token, SecretTokenHasPrefixAnd256BitsOfBase64url) {
  const std::regex shape("^authd_[A-Za-z0-9_-]{43}$");
  std::string token = new_secret_token("authd_");
  EXPECT_TRUE(std::regex_match(token, shape)) << token.size();

  std::string body = token.substr(6);
  unsigned char decoded[64];
  std::size_t decoded_size = 0;
  ASSERT_EQ(sodium_base642bin(decoded, sizeof decoded, body.data(), body.size(), nullptr,
                              &decoded_size, nullptr, sodium_base64_VARIANT_URLSAFE_NO_PADDING),
            0);
  EXPECT_EQ(decoded_size, 32u);
}

// interface.md 5.1: tokens come from the CSPRNG, so they never repeat.
TEST(Token, SecretTokensDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) seen.insert(new_secret_token("authd_"));
  EXPECT_EQ(seen.size(), 100u);
}

// interface.md 5.1: the stored digest is SHA-256 (FIPS 180-2 test vectors).
TEST(Token, Sha256MatchesKnownVectors) {
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// interface.md 5.1: base64url without padding (RFC 4648 section 10 vectors).
TEST(Token, Base64urlMatchesRfc4648Vectors) {
  EXPECT_EQ(b64(""), "");
  EXPECT_EQ(b64("f"), "Zg");
  EXPECT_EQ(b64("fo"), "Zm8");
  EXPECT_EQ(b64("foo"), "Zm9v");
  EXPECT_EQ(b64("foob"), "Zm9vYg");
  EXPECT_EQ(b64("fooba"), "Zm9vYmE");
  EXPECT_EQ(b64("foobar"), "Zm9vYmFy");
  // The URL-safe alphabet: 62 and 63 are '-' and '_', not '+' and '/'.
  const std::uint8_t high[] = {0xFB, 0xFF, 0xBF};
  EXPECT_EQ(base64url(high, sizeof high), "-_-_");
}

// interface.md 5.1: secrets compare in constant time, and only if equal length.
TEST(Token, ConstantTimeEqual) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "abcd"));
  EXPECT_FALSE(constant_time_equal("abc", ""));
}

// interface.md 2.3: a UUID of version 7 and the RFC 9562 variant.
TEST(Uuid, Version7Format) {
  const std::regex shape("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  for (int i = 0; i < 50; ++i) {
    std::string id = new_uuid_v7(1'700'000'000'000 + i);
    EXPECT_TRUE(std::regex_match(id, shape)) << id;
  }
}

// interface.md 2.3: the first 48 bits are the Unix milliseconds, big-endian.
TEST(Uuid, Version7CarriesTheMilliseconds) {
  EXPECT_EQ(new_uuid_v7(0x0123456789AB).substr(0, 13), "01234567-89ab");
  EXPECT_EQ(new_uuid_v7(0).substr(0, 13), "00000000-0000");
}

// interface.md 2.3: time-ordered: later milliseconds sort later as text.
TEST(Uuid, Version7IsTimeOrdered) {
  std::string previous = new_uuid_v7(1'700'000'000'000);
  for (std::int64_t ms : {1'700'000'000'001LL, 1'700'000'000'255LL, 1'700'000'000'256LL,
                          1'700'000'065'536LL, 1'800'000'000'000LL, 4'000'000'000'000LL}) {
    std::string next = new_uuid_v7(ms);
    EXPECT_LT(previous, next) << ms;
    previous = next;
  }
}

// Two ids minted in the same millisecond still differ (random bits).
TEST(Uuid, SameMillisecondIdsDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) seen.insert(new_uuid_v7(1'700'000'000'000));
  EXPECT_EQ(seen.size(), 100u);
}

// interface.md 10.4: account ids increase with every account created, within
// one millisecond too (and when the clock steps back), so that listing by id
// is listing in creation order.
TEST(Uuid, Interface_10_4_AccountIdsIncreaseWithinOneMillisecond) {
  const std::regex shape("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  std::string previous = new_account_id(1'750'000'000'000);
  for (int i = 0; i < 20'000; ++i) {
    std::int64_t ms = 1'750'000'000'000 + (i / 5000) - (i % 7 == 0 ? 3 : 0);
    std::string next = new_account_id(ms);
    ASSERT_TRUE(std::regex_match(next, shape)) << next;
    ASSERT_LT(previous, next) << i;
    previous = next;
  }
}

}  // namespace
}  // namespace authd
