// crypto/password_hasher: interface.md 4.1 (argon2id, PHC string format,
// through libsodium; defaults at least m = 19 MiB, t = 2, p = 1) and 4.2 (a
// hash under older parameters or a weaker algorithm is re-hashed on login).
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <thread>

#include <sodium.h>

#include "crypto/argon2_memory.hpp"
#include "crypto/password_hasher.hpp"

namespace authd {
namespace {

const Argon2Params kFast{64, 1};  // 64 KiB, t = 1: fast enough for unit tests
const Argon2Params kOther{128, 2};

std::string phc_prefix(const Argon2Params& p) {
  return "$argon2id$v=19$m=" + std::to_string(p.memory_kib) + ",t=" + std::to_string(p.iterations) +
         ",p=1$";
}

// interface.md 4.1: a PHC argon2id string with the configured m and t, p = 1.
TEST(PasswordHasher, HashIsPhcArgon2idWithTheConfiguredParameters) {
  PasswordHasher hasher(kFast);
  std::string phc = hasher.hash("correct horse battery staple");
  EXPECT_EQ(phc.rfind(phc_prefix(kFast), 0), 0u) << phc;
  std::regex shape(R"(^\$argon2id\$v=19\$m=64,t=1,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$)");
  EXPECT_TRUE(std::regex_match(phc, shape)) << phc;
  EXPECT_EQ(phc.find("correct horse"), std::string::npos);
}

// interface.md 4.1: the defaults are OWASP's minimum, m = 19 MiB, t = 2.
TEST(PasswordHasher, DefaultsAreOwaspMinimum) {
  Argon2Params defaults;
  EXPECT_EQ(defaults.memory_kib, 19456u);
  EXPECT_EQ(defaults.iterations, 2u);
  PasswordHasher hasher(defaults);
  std::string phc = hasher.hash("pw");
  EXPECT_EQ(phc.rfind("$argon2id$v=19$m=19456,t=2,p=1$", 0), 0u) << phc;
  EXPECT_TRUE(hasher.verify("pw", phc).matches);
}

// Each hash has its own salt.
TEST(PasswordHasher, SamePasswordHashesDifferently) {
  PasswordHasher hasher(kFast);
  EXPECT_NE(hasher.hash("same"), hasher.hash("same"));
}

// interface.md 4.1: the right password verifies, a wrong one does not, and
// a current hash needs no upgrade.
TEST(PasswordHasher, VerifiesRightAndRejectsWrongPassword) {
  PasswordHasher hasher(kFast);
  std::string phc = hasher.hash("s3cret password");
  auto right = hasher.verify("s3cret password", phc);
  EXPECT_TRUE(right.matches);
  EXPECT_TRUE(right.upgraded_hash.empty());
  for (const char* wrong : {"s3cret passwor", "S3cret password", "s3cret password ", ""}) {
    auto result = hasher.verify(wrong, phc);
    EXPECT_FALSE(result.matches) << wrong;
    EXPECT_TRUE(result.upgraded_hash.empty()) << wrong;
  }
}

// Passwords are bytes, never normalised: é precomposed and decomposed differ.
TEST(PasswordHasher, PasswordsAreNotNormalised) {
  PasswordHasher hasher(kFast);
  std::string phc = hasher.hash("caf\xC3\xA9");  // U+00E9
  EXPECT_TRUE(hasher.verify("caf\xC3\xA9", phc).matches);
  EXPECT_FALSE(hasher.verify("cafe\xCC\x81", phc).matches);  // e + U+0301
  std::string with_nul("a\0b", 3);
  std::string phc_nul = hasher.hash(with_nul);
  EXPECT_TRUE(hasher.verify(with_nul, phc_nul).matches);
  EXPECT_FALSE(hasher.verify("a", phc_nul).matches);
}

// interface.md 4.2: a hash made with other parameters matches and comes
// back re-hashed with the current ones.
TEST(PasswordHasher, OlderParametersAreUpgradedOnMatch) {
  PasswordHasher old_hasher(kOther);
  PasswordHasher hasher(kFast);
  std::string old_phc = old_hasher.hash("pw-to-upgrade");

  auto result = hasher.verify("pw-to-upgrade", old_phc);
  EXPECT_TRUE(result.matches);
  ASSERT_FALSE(result.upgraded_hash.empty());
  EXPECT_EQ(result.upgraded_hash.rfind(phc_prefix(kFast), 0), 0u) << result.upgraded_hash;
  auto again = hasher.verify("pw-to-upgrade", result.upgraded_hash);
  EXPECT_TRUE(again.matches);
  EXPECT_TRUE(again.upgraded_hash.empty());

  // A wrong password is never "upgraded".
  auto wrong = hasher.verify("not-the-password", old_phc);
  EXPECT_FALSE(wrong.matches);
  EXPECT_TRUE(wrong.upgraded_hash.empty());
}

// interface.md 4.2: a weaker algorithm (argon2i) verifies and is upgraded to argon2id.
TEST(PasswordHasher, Argon2iIsUpgradedToArgon2id) {
  const std::string password = "legacy password";
  char legacy[crypto_pwhash_argon2i_STRBYTES];
  ASSERT_EQ(crypto_pwhash_argon2i_str(legacy, password.data(), password.size(),
                                      crypto_pwhash_argon2i_OPSLIMIT_MIN, 64 * 1024),
            0);
  ASSERT_EQ(std::string(legacy).rfind("$argon2i$", 0), 0u) << legacy;

  PasswordHasher hasher(kFast);
  auto result = hasher.verify(password, legacy);
  EXPECT_TRUE(result.matches);
  ASSERT_FALSE(result.upgraded_hash.empty());
  EXPECT_EQ(result.upgraded_hash.rfind(phc_prefix(kFast), 0), 0u) << result.upgraded_hash;
  EXPECT_TRUE(hasher.verify(password, result.upgraded_hash).matches);

  EXPECT_FALSE(hasher.verify("wrong", legacy).matches);
}

// Garbage in the stored hash is a non-match, never a crash or an exception.
TEST(PasswordHasher, MalformedStoredHashNeverMatches) {
  PasswordHasher hasher(kFast);
  std::string phc = hasher.hash("pw");
  for (std::string stored : {std::string(""), std::string("pw"), std::string("$argon2id$"),
                             phc.substr(0, phc.size() - 5), std::string("$2b$10$abcdefghijk"),
                             std::string("$argon2id$v=19$m=64,t=1,p=1$$")}) {
    VerifyResult result;
    EXPECT_NO_THROW(result = hasher.verify("pw", stored)) << stored;
    EXPECT_FALSE(result.matches) << stored;
  }
}

// interface.md 6 /login 2: the dummy verification (unknown e-mail) never
// throws, whatever the input.
TEST(PasswordHasher, VerifyDummyNeverThrows) {
  PasswordHasher hasher(kFast);
  EXPECT_NO_THROW(hasher.verify_dummy(""));
  EXPECT_NO_THROW(hasher.verify_dummy("password"));
  EXPECT_NO_THROW(hasher.verify_dummy(std::string(1024, 'x')));
  EXPECT_NO_THROW(hasher.verify_dummy(std::string("a\0b", 3)));
}

// Parameters below libsodium's minimum are refused at construction.
TEST(PasswordHasher, RefusesParametersBelowTheMinimum) {
  EXPECT_THROW(PasswordHasher(Argon2Params{64, 0}), std::invalid_argument);
  EXPECT_THROW(PasswordHasher(Argon2Params{4, 1}), std::invalid_argument);
}

// The warm argon2 memory (crypto/warm_argon2_memory.hpp) is linked into the
// authd executable and tests/warm_argon2 only: in this program a thread that
// asks for it keeps libsodium's own mapping per hash, and nothing is counted.
TEST(PasswordHasher, WithoutTheWarmMemoryLibraryAHashingThreadReusesNothing) {
  PasswordHasher hasher(kFast);
  std::thread worker([&] {
    reuse_argon2_memory_on_this_thread();
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(hasher.verify("pw", hasher.hash("pw")).matches);
  });
  worker.join();
  EXPECT_EQ(argon2_memory_reused_total(), 0u);
}

}  // namespace
}  // namespace authd
