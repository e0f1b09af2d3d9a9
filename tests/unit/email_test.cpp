// auth/credentials/email: interface.md 3.1 (WHATWG "valid e-mail address", 1 to 254
// characters, no trimming, no quoted local parts, IP literals or non-ASCII)
// and 2.5 (canonical form: ASCII-lowercased).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "auth/credentials/email.hpp"

namespace authd {
namespace {

std::string repeat(char c, std::size_t n) { return std::string(n, c); }

// A syntactically valid address of exactly `length` characters:
// a 64-character local part and labels of at most 63 characters.
std::string address_of_length(std::size_t length) {
  std::string address = repeat('l', 64) + "@";
  while (address.size() < length) {
    std::size_t room = length - address.size();
    if (address.back() != '@') {
      if (room == 1) {  // no room for ".x": grow the local part instead
        address.insert(0, "l");
        break;
      }
      address += '.';
      --room;
    }
    address += repeat('d', std::min<std::size_t>(room, 63));
  }
  return address;
}

std::vector<std::string> valid_addresses() {
  return {
      "a@b",
      "first.last@example.com",
      "x+tag@sub.example.co",
      "!#$%&'*+/=?^_`{|}~-@example.com",
      "A@B.C",
      "Foo.Bar@Example.COM",
      "1@2",
      "user%example.com@example.org",
      "test/test@test.com",
      "=@b.c",
      "-@b.c",
      "_@b.c",
      "'@b.c",
      ".a@b.c",  // WHATWG puts no rule on dots in the local part
      "a.@b.c",
      "a..b@c.d",
      "a@1.2.3.4",  // digit-only labels, not an IP literal
      "a@b-c.d",
      "a@b--c.d",
      "a@xn--bcher-kva.example",
      "a@b0",
      "a@0b",
      "a@b.c.d.e.f.g",
      "a@" + repeat('b', 63) + ".c",  // longest label
      "a@" + repeat('b', 63),
      repeat('l', 100) + "@b.c",  // WHATWG has no local-part length limit
      "a@b.museum",
      address_of_length(254),     // longest address
      repeat('a', 250) + "@b.c",  // 254 characters
  };
}

std::vector<std::string> invalid_addresses() {
  return {
      "",
      "ab",
      "a.b.example.com",
      "a@b@c",
      "a@b@c.d",
      " a@b.c",
      "a@b.c ",
      "a @b.c",
      "a@ b.c",
      "\"a\"@b.c",
      "\"a b\"@c.d",
      "a@[127.0.0.1]",
      "a@[IPv6:::1]",
      "\xC3\xA9@b.c",  // é@b.c
      "a@\xC3\xA9.c",  // a@é.c
      "a@b.\xC3\xA9",
      "a@-b.c",
      "a@b-.c",
      "a@b.-c",
      "a@b.c-",
      "a@" + repeat('b', 64) + ".c",  // label of 64 characters
      "a@b." + repeat('d', 63) + "." + repeat('e', 64),
      "a@b..c",
      "a@b.c.",
      "a@.b.c",
      "a@.",
      address_of_length(255),
      repeat('a', 251) + "@b.c",  // 255 characters
      "a\t@b.c",
      "a@b\t.c",
      "\ta@b.c",
      "a(x)@b.c",
      "a@b.c(x)",
      "@b.c",
      "a@",
      "@",
      "a@b_c.d",
      "a,b@c.d",
      "a;b@c.d",
      "a:b@c.d",
      "a<b@c.d",
      "a>b@c.d",
      "a\\b@c.d",
      "a[b]@c.d",
      "a@b.c\n",
      "a@b.c\r\n",
      std::string("a\0@b.c", 6),
      std::string("a\0b@c.d", 7),  // JSON can carry a NUL as \u0000
      std::string("\0@b.c", 5),
      std::string("a@b.c\0", 6),
      "a@b c.d",
      "a@b+c.d",
      "a@b.c/",
      "a@b:25",
      "<a@b.c>",
      "A <a@b.c>",
  };
}

// interface.md 3.1: the table of valid addresses.
TEST(Email, WhatwgValidAddressesAreAccepted) {
  EXPECT_EQ(address_of_length(254).size(), 254u);
  auto table = valid_addresses();
  EXPECT_GE(table.size(), 25u);
  for (const std::string& address : table) {
    EXPECT_TRUE(is_valid_email(address)) << "[" << address << "] (" << address.size() << ")";
  }
}

// interface.md 3.1: the table of invalid addresses (surrounding white space,
// quoted local part, IP literal, non-ASCII, bad labels, over 254 characters).
TEST(Email, InvalidAddressesAreRejected) {
  EXPECT_EQ(address_of_length(255).size(), 255u);
  auto table = invalid_addresses();
  EXPECT_GE(table.size(), 25u);
  for (const std::string& address : table) {
    EXPECT_FALSE(is_valid_email(address)) << "[" << address << "] (" << address.size() << ")";
  }
}

// interface.md 3.1: 1 to 254 characters, the limit is exact.
TEST(Email, LengthLimitIs254Characters) {
  for (std::size_t length = 250; length <= 260; ++length) {
    std::string address = address_of_length(length);
    ASSERT_EQ(address.size(), length);
    EXPECT_EQ(is_valid_email(address), length <= 254) << length;
  }
}

// interface.md 2.5 and 3.1: canonical form lowercases ASCII letters only.
TEST(Email, CanonicalFormLowercasesAsciiOnly) {
  EXPECT_EQ(canonical_email("Foo.Bar@Example.COM"), "foo.bar@example.com");
  EXPECT_EQ(canonical_email("already@lower.case"), "already@lower.case");
  EXPECT_EQ(canonical_email("!#$%&'*+/=?^_`{|}~-@X"), "!#$%&'*+/=?^_`{|}~-@x");
  // Non-ASCII bytes (É = C3 89) are left exactly as they are.
  EXPECT_EQ(canonical_email("\xC3\x89"
                            "A@B"),
            "\xC3\x89"
            "a@b");
  EXPECT_EQ(canonical_email(""), "");
}

// interface.md 3.1: matching is case-insensitive, through the canonical form.
TEST(Email, CaseVariantsShareOneCanonicalForm) {
  EXPECT_EQ(canonical_email("ALICE@EXAMPLE.COM"), canonical_email("alice@example.com"));
  EXPECT_EQ(canonical_email("aLiCe@ExAmPlE.cOm"), canonical_email("Alice@Example.Com"));
}

// interface.md 9.2: logs mask e-mails; the whole local part never shows.
TEST(Email, MaskNeverShowsTheWholeLocalPart) {
  for (std::string local : {"a", "ab", "abc", "alice", "first.last", "x+tag"}) {
    std::string address = local + "@example.com";
    std::string masked = mask_email(address);
    auto at = masked.find('@');
    ASSERT_NE(at, std::string::npos) << masked;
    EXPECT_EQ(masked.substr(at), "@example.com") << masked;
    EXPECT_EQ(masked.substr(0, at).find(local), std::string::npos)
        << "local part '" << local << "' shows in " << masked;
  }
  EXPECT_EQ(mask_email("alice@example.com"), "a***@example.com");
  EXPECT_EQ(mask_email("not-an-address"), "***");
  EXPECT_EQ(mask_email("@example.com"), "***");
}

}  // namespace
}  // namespace authd
