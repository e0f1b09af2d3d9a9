// core/utf8.hpp: utf8_prefix keeps at most N bytes of well-formed UTF-8
// (a User-Agent's first 256 bytes, interface.md 11.2).
#include <gtest/gtest.h>

#include "core/utf8.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

TEST(Utf8Prefix, Interface_11_2_AtMostTheLimitAndAlwaysWellFormed) {
  const std::string fffd = "\xEF\xBF\xBD";
  const std::pair<std::string, std::string> cases[] = {
      {"", ""},
      {"Mozilla", "Mozilla"},
      {std::string(10, 'a'), std::string(8, 'a')},
      {"abcdefg\xC3\xA9", "abcdefg"},         // é would end at byte 9
      {"abcdef\xC3\xA9x", "abcdef\xC3\xA9"},  // exactly 8 bytes, é whole
      {"ab\xF0\x9F\x98\x80"
       "cd",
       "ab\xF0\x9F\x98\x80"
       "cd"},  // 4-byte emoji
      {"abcde\xF0\x9F\x98\x80", "abcde"},
      {"a\xFF"
       "b",
       "a" + fffd + "b"},                    // not UTF-8 at all
      {"a\xC3", "a" + fffd},                 // a truncated sequence
      {"a\xC0\xAF", "a" + fffd + fffd},      // an overlong '/'
      {"a\xED\xA0\x80", "a" + fffd + fffd},  // a surrogate (fits 2 of 3)
      {"abcdef\xFF", "abcdef"},              // U+FFFD would not fit
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(utf8_prefix(in, 8), out) << in;
  EXPECT_EQ(utf8_prefix(std::string(300, 'x'), 256), std::string(256, 'x'));
}

TEST(Utf8SequenceLength, StrictUtf8) {
  EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
  EXPECT_EQ(utf8_sequence_length("\xC3\xA9", 0), 2u);
  EXPECT_EQ(utf8_sequence_length("\xE2\x82\xAC", 0), 3u);
  EXPECT_EQ(utf8_sequence_length("\xF4\x8F\xBF\xBF", 0), 4u);
  EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80", 0), 0u);  // above U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\xE0\x80\x80", 0), 0u);      // overlong
  EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);              // a lone continuation
  EXPECT_EQ(utf8_sequence_length("x\xC3", 1), 0u);             // cut short
}

// A session's public id (interface.md 11.2): a version 4 UUID in the form
// authd writes every UUID, never twice the same.
TEST(Uuid, Interface_11_2_NewUuidV4IsCanonicalRandomAndVersion4) {
  init_crypto();
  std::string a = new_uuid_v4();
  std::string b = new_uuid_v4();
  EXPECT_NE(a, b);
  for (const std::string& id : {a, b}) {
    EXPECT_TRUE(is_canonical_uuid(id)) << id;
    EXPECT_EQ(id[14], '4') << id;
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;
  }
  EXPECT_TRUE(is_canonical_uuid(new_uuid_v7(1'700'000'000'000)));
  EXPECT_FALSE(is_canonical_uuid("01234567-89AB-4DEF-8123-456789ABCDEF"));  // upper case
  EXPECT_FALSE(is_canonical_uuid("0123456789ab-4def-8123-456789abcdef0"));
  EXPECT_FALSE(is_canonical_uuid("01234567-89ab-4def-8123-456789abcde"));
  EXPECT_FALSE(is_canonical_uuid(""));
}

}  // namespace
}  // namespace authd
