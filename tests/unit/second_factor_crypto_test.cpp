// The second factor's parts (interface.md 12): TOTP codes against RFC 6238's
// own test vectors (liboath computes them), the step window, secrets sealed
// with a key outside the database (12.2), and recovery codes (12.1).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "auth/second_factor/recovery_codes.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "core/wipe.hpp"
#include "crypto/sealed_secrets.hpp"
#include "crypto/totp.hpp"
#include "temp_directory.hpp"

namespace authd {
namespace {

// RFC 6238 appendix B, SHA-1, with the shared secret "12345678901234567890":
// the 8-digit codes' last 6 digits (a 6-digit code is the same number mod
// 10^6).
TEST(Totp, Interface_12_3_CodesAreRfc6238Sha1With30SecondStepsAnd6Digits) {
  const std::string secret = "12345678901234567890";
  const std::pair<std::int64_t, const char*> vectors[] = {
      {59, "287082"},         {1111111109, "081804"}, {1111111111, "050471"},
      {1234567890, "005924"}, {2000000000, "279037"}, {20000000000, "353130"},
  };
  for (const auto& [time, code] : vectors)
    EXPECT_EQ(totp_code(secret, totp_step(time)), code) << time;
}

TEST(Totp, Interface_12_1_SecretIs160BitsInBase32) {
  EXPECT_EQ(base32_secret("12345678901234567890"), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  std::string secret = new_totp_secret();
  EXPECT_EQ(secret.size(), 20u);
  EXPECT_TRUE(std::regex_match(base32_secret(secret), std::regex("^[A-Z2-7]{32}$")));
  EXPECT_NE(new_totp_secret(), secret);
}

// 12.3: the current step and one either side; nothing further; only six
// ASCII digits.
TEST(Totp, Interface_12_3_CurrentStepAndOneEitherSideAreAccepted) {
  const std::string secret = "12345678901234567890";
  const std::int64_t now = 1000;
  for (std::int64_t delta = -1; delta <= 1; ++delta)
    EXPECT_EQ(matching_totp_step(secret, totp_code(secret, now + delta), now), now + delta);
  EXPECT_FALSE(matching_totp_step(secret, totp_code(secret, now - 2), now));
  EXPECT_FALSE(matching_totp_step(secret, totp_code(secret, now + 2), now));
  std::string code = totp_code(secret, now);
  EXPECT_FALSE(matching_totp_step(secret, code + "0", now));
  EXPECT_FALSE(matching_totp_step(secret, code.substr(1), now));
  EXPECT_FALSE(matching_totp_step(secret, " " + code.substr(1), now));
  EXPECT_FALSE(matching_totp_step(secret, "", now));
}

TEST(Totp, StepsAreFloorOfThirtySeconds) {
  EXPECT_EQ(totp_step(0), 0);
  EXPECT_EQ(totp_step(29), 0);
  EXPECT_EQ(totp_step(30), 1);
  EXPECT_EQ(totp_step(-1), -1);
}

SecretKey key_of(std::uint8_t fill) {
  std::array<std::uint8_t, 32> bytes{};
  bytes.fill(fill);
  return SecretKey(bytes);
}

// 12.2: what is stored names its key but holds neither the key nor the
// secret; it opens only with the key, for the account it was sealed for,
// unaltered.
TEST(SealedSecrets, Interface_12_2_SealedSecretOpensOnlyWithItsKeyAndAccount) {
  SecretSealer sealer(key_of(1));
  const std::string secret = "12345678901234567890";
  std::string sealed = sealer.seal(secret, totp_seal_context("user-a"));
  EXPECT_EQ(sealed.rfind("v1." + sealer.current_key_id() + ".", 0), 0u) << sealed;
  EXPECT_EQ(sealed.find(secret), std::string::npos);
  EXPECT_EQ(sealed.find(base32_secret(secret)), std::string::npos);
  EXPECT_NE(sealer.seal(secret, totp_seal_context("user-a")), sealed);  // a fresh nonce each time

  auto opened = sealer.open(sealed, totp_seal_context("user-a"));
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->plaintext, secret);
  EXPECT_FALSE(opened->by_previous_key);

  EXPECT_FALSE(sealer.open(sealed, totp_seal_context("user-b")));  // another account's row
  EXPECT_FALSE(SecretSealer(key_of(2)).open(sealed, totp_seal_context("user-a")));  // no key
  std::string altered = sealed;
  altered[altered.size() - 3] = altered[altered.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(sealer.open(altered, totp_seal_context("user-a")));
  EXPECT_FALSE(sealer.open("v1.", totp_seal_context("user-a")));
  EXPECT_FALSE(sealer.open("", totp_seal_context("user-a")));
}

// 12.2, key rotation: the previous key still opens what it sealed, and
// says so, so that the secret is sealed anew with the current key.
TEST(SealedSecrets, Interface_12_2_PreviousKeyOpensDuringRotation) {
  std::string sealed = SecretSealer(key_of(1)).seal("secret", "ctx");
  SecretSealer rotated(key_of(2), key_of(1));
  auto opened = rotated.open(sealed, "ctx");
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->plaintext, "secret");
  EXPECT_TRUE(opened->by_previous_key);
  EXPECT_FALSE(rotated.open(rotated.seal("secret", "ctx"), "ctx")->by_previous_key);
  EXPECT_FALSE(SecretSealer(key_of(2)).open(sealed, "ctx"));  // once the old key is gone
}

// 12.2: the key file is created 0600, once, and read back; a file readable
// by everyone, or that is not a key, is refused.
TEST(SealedSecrets, Interface_12_2_KeyFileIsCreated0600AndReadBack) {
  test::TempDirectory dir;
  std::string path = dir.file("authd.db.key");
  std::string problem;
  ASSERT_TRUE(create_secret_key_file(path, problem)) << problem;
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_FALSE(create_secret_key_file(path, problem));  // never replaced

  auto key = read_secret_key_file(path, problem);
  ASSERT_TRUE(key) << problem;
  auto again = read_secret_key_file(path, problem);
  ASSERT_TRUE(again);
  EXPECT_EQ(key->id, again->id);
  std::string sealed = SecretSealer(*key).seal("x", "c");
  EXPECT_EQ(SecretSealer(*again).open(sealed, "c")->plaintext, "x");

  ::chmod(path.c_str(), 0644);
  EXPECT_FALSE(read_secret_key_file(path, problem));
  EXPECT_NE(problem.find("readable by every user"), std::string::npos) << problem;

  std::string other = dir.file("bad.key");
  std::ofstream(other) << "not a key\n";
  ::chmod(other.c_str(), 0600);
  problem.clear();
  EXPECT_FALSE(read_secret_key_file(other, problem));
  EXPECT_EQ(problem.find("not a key\n"), std::string::npos);  // the content is never echoed
  EXPECT_FALSE(read_secret_key_file(dir.file("missing.key"), problem));
}

// 12.2.2: a process starting beside another that is creating the key file
// never sees the file without its key (it would stop with "not a key", and
// a crash at that moment would leave an empty key file behind for good).
TEST(SealedSecrets, Interface_12_2_KeyFileIsNeverSeenWithoutItsKey) {
  for (int round = 0; round < 20; ++round) {
    test::TempDirectory dir;
    std::string path = dir.file("authd.db.key");
    std::atomic<bool> done{false};
    std::string creation_problem;
    std::thread creator([&] {
      EXPECT_TRUE(create_secret_key_file(path, creation_problem)) << creation_problem;
      done = true;
    });
    struct stat info {};
    while (::stat(path.c_str(), &info) != 0 && !done) {
    }
    std::string problem;
    EXPECT_TRUE(read_secret_key_file(path, problem)) << round << ": " << problem;
    creator.join();
  }
}

// A guard made before its optional got a value wipes that value too (the
// handlers make the guard, then read the member from the body).
TEST(Wipe, GuardOfAnOptionalWipesAValueAssignedLater) {
  std::optional<std::string> secret;
  {
    WipeOnExit wipe_secret(secret);
    secret = "a recovery code long enough for the heap";
  }
  ASSERT_TRUE(secret);
  EXPECT_EQ(*secret, std::string(secret->size(), '\0'));
}

// 12.1: ten codes, distinct, 80 bits each in base32 groups; stored as
// digests; case, hyphens and spaces do not matter when typed.
TEST(RecoveryCodes, Interface_12_1_TenDistinctCodesStoredAsDigests) {
  std::vector<std::string> codes = new_recovery_codes();
  ASSERT_EQ(codes.size(), 10u);
  std::set<std::string> distinct(codes.begin(), codes.end());
  EXPECT_EQ(distinct.size(), 10u);
  const std::regex shape("^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$");
  for (const std::string& code : codes) {
    EXPECT_TRUE(std::regex_match(code, shape)) << code;
    auto digest = recovery_code_digest(code);
    ASSERT_TRUE(digest);
    std::string typed;
    for (char c : code)
      if (c != '-') typed += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(recovery_code_digest(typed), digest);
    EXPECT_EQ(recovery_code_digest(code.substr(0, 9) + " " + code.substr(10)), digest);
  }
  EXPECT_FALSE(recovery_code_digest(codes[0].substr(1)));
  EXPECT_FALSE(recovery_code_digest(codes[0] + "a"));
  EXPECT_FALSE(recovery_code_digest("0000-0000-0000-0000"));  // 0 is not base32
  EXPECT_FALSE(recovery_code_digest(""));
}

TEST(SecondFactor, Interface_12_1_OtpauthUriEncodesIssuerAndAccount) {
  EXPECT_EQ(otpauth_uri("authd", "ada+1@example.com", "GEZDGNBV"),
            "otpauth://totp/authd:ada%2B1%40example.com?secret=GEZDGNBV&issuer=authd"
            "&algorithm=SHA1&digits=6&period=30");
  EXPECT_EQ(otpauth_uri("Acme Corp", "a@b.c", "X").substr(0, 29), "otpauth://totp/Acme%20Corp:a%");
}

}  // namespace
}  // namespace authd
