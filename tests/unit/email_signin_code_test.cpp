// How a sign-in mail's code is stored (interface.md 19.2): a digest keyed
// under the secret key when there is one, bound to the mail's token, and
// still accepted under the previous key during a rotation.
#include <gtest/gtest.h>

#include "auth/mail_flows/email_signin.hpp"
#include "crypto/random.hpp"
#include "crypto/sealed_secrets.hpp"

namespace authd {
namespace {

SecretKey key_of(std::uint8_t fill) {
  std::array<std::uint8_t, 32> bytes{};
  bytes.fill(fill);
  return SecretKey(bytes);
}

TEST(EmailSigninCode, Interface_19_2_TheCodesDigestIsKeyedUnderTheSecretKey) {
  const Sha256Digest token_digest = sha256("authdsi_example");
  const SecretSealer sealer(key_of(1));
  const SecretSealer other(key_of(2));
  const Sha256Digest keyed = code_digest(&sealer, token_digest, "04839201");
  // Not what a copy of the database could compute: neither the unkeyed
  // digest nor the one under another key.
  EXPECT_NE(keyed, code_digest(nullptr, token_digest, "04839201"));
  EXPECT_NE(keyed, code_digest(&other, token_digest, "04839201"));
  EXPECT_NE(keyed, sha256("04839201"));
  // The same code and mail give the same digest; another code or another
  // mail another one.
  EXPECT_EQ(keyed, code_digest(&sealer, token_digest, "04839201"));
  EXPECT_NE(keyed, code_digest(&sealer, token_digest, "04839202"));
  EXPECT_NE(keyed, code_digest(&sealer, sha256("authdsi_other"), "04839201"));
}

TEST(EmailSigninCode, Interface_19_2_WithoutAKeyTheDigestIsSha256OfTheTokenDigestAndTheCode) {
  const Sha256Digest token_digest = sha256("authdsi_example");
  std::string message(reinterpret_cast<const char*>(token_digest.data()), token_digest.size());
  message += "04839201";
  EXPECT_EQ(code_digest(nullptr, token_digest, "04839201"), sha256(message));
  EXPECT_FALSE(previous_code_digest(nullptr, token_digest, "04839201"));
}

TEST(EmailSigninCode, Interface_19_2_ACodeMintedUnderThePreviousKeyIsStillRecognised) {
  const Sha256Digest token_digest = sha256("authdsi_example");
  const SecretSealer before(key_of(1));
  const SecretSealer rotated(key_of(2), key_of(1));
  const Sha256Digest minted = code_digest(&before, token_digest, "12345678");
  EXPECT_NE(code_digest(&rotated, token_digest, "12345678"), minted);
  EXPECT_EQ(previous_code_digest(&rotated, token_digest, "12345678"), minted);
  EXPECT_FALSE(previous_code_digest(&before, token_digest, "12345678"));
}

}  // namespace
}  // namespace authd
