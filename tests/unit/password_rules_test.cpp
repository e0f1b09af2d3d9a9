// auth/credentials/password_rules: interface.md 3.2 (login password: 1 to 255 code
// points, any content) and 3.3 (new password: 8 to 255 code points, not the
// account's e-mail).
#include <gtest/gtest.h>

#include <string>

#include "auth/credentials/password_rules.hpp"

namespace authd {
namespace {

const std::string kEmoji = "\xF0\x9F\x98\x80";  // U+1F600, 4 bytes in UTF-8
const std::string kEuro = "\xE2\x82\xAC";       // U+20AC, 3 bytes
const std::string kEAcute = "\xC3\xA9";         // U+00E9, 2 bytes

std::string times(const std::string& unit, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += unit;
  return out;
}

// interface.md 3.2: 255 emoji are fine, 256 are not (code points, not bytes).
TEST(PasswordRules, LoginPasswordOf255EmojiIsValidAnd256IsNot) {
  EXPECT_TRUE(is_valid_login_password(times(kEmoji, 255)));
  EXPECT_FALSE(is_valid_login_password(times(kEmoji, 256)));
}

// interface.md 3.2: at least one code point.
TEST(PasswordRules, LoginPasswordNeedsOneCodePoint) {
  EXPECT_FALSE(is_valid_login_password(""));
  EXPECT_TRUE(is_valid_login_password("x"));
  EXPECT_TRUE(is_valid_login_password(kEmoji));
  EXPECT_TRUE(is_valid_login_password(" "));  // any content, never trimmed
}

// interface.md 3.2: two- and three-byte characters count once each.
TEST(PasswordRules, LoginPasswordCountsMultiByteCharactersOnce) {
  EXPECT_TRUE(is_valid_login_password(times(kEAcute, 255)));
  EXPECT_FALSE(is_valid_login_password(times(kEAcute, 256)));
  EXPECT_TRUE(is_valid_login_password(times(kEuro, 255)));
  EXPECT_FALSE(is_valid_login_password(times(kEuro, 256)));
  std::string mixed = times("a" + kEAcute + kEuro + kEmoji, 63) + "abc";  // 255 code points
  EXPECT_TRUE(is_valid_login_password(mixed));
  EXPECT_FALSE(is_valid_login_password(mixed + "d"));
  EXPECT_TRUE(is_valid_login_password(times("a", 255)));
  EXPECT_FALSE(is_valid_login_password(times("a", 256)));
}

// interface.md 3.3: a new password has 8 to 255 code points.
TEST(PasswordRules, NewPasswordIs8To255CodePoints) {
  const std::string email = "alice@example.com";
  EXPECT_TRUE(new_password_problem("", email).has_value());
  EXPECT_TRUE(new_password_problem("1234567", email).has_value());
  EXPECT_FALSE(new_password_problem("12345678", email).has_value());
  EXPECT_TRUE(new_password_problem(times(kEmoji, 7), email).has_value());  // 28 bytes, 7 chars
  EXPECT_FALSE(new_password_problem(times(kEmoji, 8), email).has_value());
  EXPECT_FALSE(new_password_problem(times(kEmoji, 255), email).has_value());
  EXPECT_TRUE(new_password_problem(times(kEmoji, 256), email).has_value());
  EXPECT_FALSE(new_password_problem(times(kEAcute, 255), email).has_value());
  EXPECT_TRUE(new_password_problem(times(kEuro, 256), email).has_value());

  EXPECT_TRUE(new_password_length_problem("1234567").has_value());
  EXPECT_FALSE(new_password_length_problem("12345678").has_value());
  EXPECT_FALSE(new_password_length_problem(times("a", 255)).has_value());
  EXPECT_TRUE(new_password_length_problem(times("a", 256)).has_value());
}

// interface.md 3.3: not the account's e-mail, compared case-insensitively.
TEST(PasswordRules, NewPasswordMustNotBeTheEmail) {
  const std::string email = "alice@example.com";
  EXPECT_TRUE(new_password_problem("alice@example.com", email).has_value());
  EXPECT_TRUE(new_password_problem("ALICE@Example.COM", email).has_value());
  EXPECT_FALSE(new_password_problem("alice@example.co", email).has_value());
  EXPECT_FALSE(new_password_problem("alice@example.com ", email).has_value());
  EXPECT_FALSE(new_password_problem("correct horse battery", email).has_value());
}

// interface.md 1.3 and the security habits: a reason never quotes the password.
TEST(PasswordRules, ProblemNeverQuotesThePassword) {
  for (std::string password :
       {std::string("short"), times("s3cr3t", 50), std::string("bob@example.org")}) {
    auto problem = new_password_problem(password, "bob@example.org");
    ASSERT_TRUE(problem.has_value()) << password;
    EXPECT_EQ(problem->find(password), std::string::npos) << *problem;
    EXPECT_EQ(problem->rfind("password:", 0), 0u) << *problem;
  }
}

}  // namespace
}  // namespace authd
