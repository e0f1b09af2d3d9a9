// authd's own JWTs verified (interface.md 17.9, auth/oidc/jwt_verify.hpp):
// libcjose checks the signature with the ring key the header names, then
// typ, iss and exp. A forged signature, alg none, another typ, an unknown
// or a next key, another issuer and an expired token are refused; a retired
// key still published verifies.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "auth/oidc/jwt_verify.hpp"
#include "auth/oidc/signing_key_ring.hpp"
#include "crypto/random.hpp"
#include "crypto/sealed_secrets.hpp"

namespace authd {
namespace oidc_jwt_verify_test {
namespace {

constexpr std::string_view kJwtIssuer = "https://id.example.com";
constexpr Millis kJwtNow = 1'800'000'000'000;

SecretKey filled_key(std::uint8_t fill) {
  std::array<std::uint8_t, 32> bytes{};
  bytes.fill(fill);
  return SecretKey(bytes);
}

nlohmann::json claims(Millis exp_at = kJwtNow + 600'000) {
  return {{"iss", kJwtIssuer}, {"sub", "u1"}, {"exp", exp_at / 1000}, {"jti", "j1"}};
}

class JwtVerify : public ::testing::Test {
 protected:
  void SetUp() override {
    // Generation 1 retired (still published), 2 current, 3 next.
    SigningKeyRecord retired =
        make_signing_key(jose::Alg::rs256, 1, kJwtNow - 100'000, sealer, kJwtNow);
    retired.retired_at = kJwtNow - 50'000;
    retired.remove_after = kJwtNow + 600'000;
    stored = {retired, make_signing_key(jose::Alg::rs256, 2, kJwtNow - 50'000, sealer, kJwtNow),
              make_signing_key(jose::Alg::es256, 2, kJwtNow - 50'000, sealer, kJwtNow),
              make_signing_key(jose::Alg::rs256, 3, kJwtNow + 100'000, sealer, kJwtNow)};
    ring = open_ring(stored, sealer, kJwtNow);
    ASSERT_EQ(ring->keys.size(), 4u);
  }

  const jose::SigningKey& key(std::size_t index) const { return ring->keys.at(index).key; }

  std::optional<VerifiedJwt> verify(const std::string& compact, bool accept_expired = false,
                                    std::string_view typ = "at+jwt") const {
    return verify_own_jwt(*ring, kJwtIssuer, compact, typ, kJwtNow, accept_expired);
  }

  SecretSealer sealer{filled_key(3)};
  std::vector<SigningKeyRecord> stored;
  std::shared_ptr<SigningKeyRing> ring;
};

TEST_F(JwtVerify, Interface_17_9_CurrentKeyVerifiesAndAnswersHeaderAndClaims) {
  for (std::size_t index : {1u, 2u}) {
    std::optional<VerifiedJwt> jwt = verify(key(index).sign(claims().dump(), "at+jwt"));
    ASSERT_TRUE(jwt.has_value());
    EXPECT_EQ(jwt->kid, key(index).kid());
    EXPECT_EQ(jwt->alg, jose::alg_name(key(index).alg()));
    EXPECT_EQ(jwt->claims, claims());
  }
}

TEST_F(JwtVerify, Interface_17_12_RetiredKeyStillVerifies) {
  EXPECT_TRUE(verify(key(0).sign(claims().dump(), "at+jwt")).has_value());
}

TEST_F(JwtVerify, Interface_17_12_NextKeyThatSignedNothingYetIsRefused) {
  EXPECT_FALSE(verify(key(3).sign(claims().dump(), "at+jwt")).has_value());
}

TEST_F(JwtVerify, Interface_17_9_UnknownKidIsRefused) {
  jose::SigningKey stranger = jose::SigningKey::generate(jose::Alg::rs256, jose::new_kid());
  EXPECT_FALSE(verify(stranger.sign(claims().dump(), "at+jwt")).has_value());
  // A stranger's key that claims the current key's kid: its signature fails.
  jose::SigningKey impostor = jose::SigningKey::generate(jose::Alg::rs256, key(1).kid());
  EXPECT_FALSE(verify(impostor.sign(claims().dump(), "at+jwt")).has_value());
}

TEST_F(JwtVerify, Interface_17_9_ForgedSignatureIsRefused) {
  std::string compact = key(1).sign(claims().dump(), "at+jwt");
  std::size_t dot = compact.find('.');
  std::size_t second = compact.find('.', dot + 1);
  nlohmann::json widened = claims();
  widened["sub"] = "admin";
  std::string forged =
      compact.substr(0, dot + 1) + base64url(widened.dump()) + compact.substr(second);
  EXPECT_FALSE(verify(forged).has_value());
  // A character inside the signature, not its last: the last one also
  // carries bits that decode to nothing (A and B can be the same bytes).
  std::string flipped = compact;
  char& inside = flipped[second + 10];
  inside = inside == 'A' ? 'B' : 'A';
  EXPECT_FALSE(verify(flipped).has_value());
}

TEST_F(JwtVerify, Interface_17_9_AlgNoneIsRefused) {
  nlohmann::json header = {{"alg", "none"}, {"kid", key(1).kid()}, {"typ", "at+jwt"}};
  std::string unsigned_jwt = base64url(header.dump()) + "." + base64url(claims().dump()) + ".";
  EXPECT_FALSE(verify(unsigned_jwt).has_value());
}

TEST_F(JwtVerify, Interface_17_9_AnotherTypIsRefused) {
  std::string id_token = key(1).sign(claims().dump(), "JWT");
  EXPECT_FALSE(verify(id_token).has_value());
  EXPECT_TRUE(verify(id_token, false, "JWT").has_value());
  EXPECT_TRUE(verify(key(1).sign(claims().dump(), "application/at+jwt")).has_value());
}

TEST_F(JwtVerify, Interface_17_9_AnotherIssuerIsRefused) {
  nlohmann::json foreign = claims();
  foreign["iss"] = "https://other.example.com";
  EXPECT_FALSE(verify(key(1).sign(foreign.dump(), "at+jwt")).has_value());
  foreign.erase("iss");
  EXPECT_FALSE(verify(key(1).sign(foreign.dump(), "at+jwt")).has_value());
}

TEST_F(JwtVerify, Interface_17_9_ExpiredIsRefusedUnlessAccepted) {
  std::string expired = key(1).sign(claims(kJwtNow - 1000).dump(), "at+jwt");
  EXPECT_FALSE(verify(expired).has_value());
  EXPECT_TRUE(verify(expired, true).has_value());
  nlohmann::json no_exp = claims();
  no_exp.erase("exp");
  EXPECT_FALSE(verify(key(1).sign(no_exp.dump(), "at+jwt"), true).has_value());
}

TEST_F(JwtVerify, Interface_17_9_GarbageIsRefused) {
  for (const char* text : {"", "a.b.c", "not a jwt", "..", "eyJ.eyJ.sig"})
    EXPECT_FALSE(verify(text).has_value()) << text;
}

}  // namespace
}  // namespace oidc_jwt_verify_test
}  // namespace authd
