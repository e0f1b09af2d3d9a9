// core/ascii: the one case-insensitive compare of protocol text (header
// values, auth schemes, media types), independent of the C locale.
#include <gtest/gtest.h>

#include <clocale>
#include <string>

#include "core/ascii.hpp"

namespace authd {
namespace {

TEST(Ascii, LowersOnlyAToZ) {
  EXPECT_EQ(ascii_lower('A'), 'a');
  EXPECT_EQ(ascii_lower('Z'), 'z');
  EXPECT_EQ(ascii_lower('a'), 'a');
  for (char c : {'@', '[', '`', '{', '0', '-', '\0', '\xc3', '\x80', '\xff'})
    EXPECT_EQ(ascii_lower(c), c) << static_cast<int>(c);
}

TEST(Ascii, EqualsIgnoringCaseFoldsLettersOnly) {
  EXPECT_TRUE(equals_ignoring_case("chunked", "CHUNKED"));
  EXPECT_TRUE(equals_ignoring_case("Bearer", "bEaReR"));
  EXPECT_TRUE(equals_ignoring_case("100-Continue", "100-continue"));
  EXPECT_TRUE(equals_ignoring_case("", ""));
  EXPECT_FALSE(equals_ignoring_case("chunked", "chunke"));
  EXPECT_FALSE(equals_ignoring_case("chunked", "chunked "));
  EXPECT_FALSE(equals_ignoring_case("chunked", ""));
  // '@' and '`' sit next to 'A' and 'a': no off-by-one in the fold.
  EXPECT_FALSE(equals_ignoring_case("@", "`"));
  EXPECT_FALSE(equals_ignoring_case("[", "{"));
  // Bytes above ASCII compare as themselves: "É" (UTF-8) is not "é".
  EXPECT_FALSE(equals_ignoring_case("\xc3\x89", "\xc3\xa9"));
}

TEST(Ascii, IsAConstantExpression) {
  static_assert(equals_ignoring_case("Application/JSON", "application/json"));
  static_assert(!equals_ignoring_case("application/json", "application/jsonp"));
  static_assert(ascii_lower('Q') == 'q');
}

// Whatever locale the process runs in (std::tolower would follow it).
TEST(Ascii, IgnoresTheLocale) {
  const char* previous = std::setlocale(LC_CTYPE, nullptr);
  std::string saved = previous != nullptr ? previous : "C";
  for (const char* name : {"tr_TR.UTF-8", "tr_TR.ISO-8859-9", "C.UTF-8", "C"}) {
    if (std::setlocale(LC_CTYPE, name) == nullptr) continue;
    EXPECT_TRUE(equals_ignoring_case("CHUNKED", "chunked")) << name;
    EXPECT_TRUE(equals_ignoring_case("IDENTITY", "identity")) << name;
    EXPECT_FALSE(equals_ignoring_case("\xdd", "i")) << name;  // Latin-5 dotted capital I
  }
  std::setlocale(LC_CTYPE, saved.c_str());
}

}  // namespace
}  // namespace authd
