// The provider's signing keys and signatures as libcjose makes them
// (interface.md 17.12, crypto/jose.hpp): RSA 2048 and P-256 keys, their
// public JWK without a private member, the private JWK that is sealed, and
// compact JWS with the header {alg, kid, typ}, checked by libcjose. The
// check by an independent implementation (python3-jwcrypto) is in
// oidc_signing_keys_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "crypto/jose.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

using jose::Alg;

nlohmann::json jws_part(const std::string& compact, int index) {
  std::size_t start = 0;
  for (int i = 0; i < index; ++i) start = compact.find('.', start) + 1;
  std::size_t end = compact.find('.', start);
  std::optional<std::string> decoded = from_base64url(compact.substr(start, end - start));
  EXPECT_TRUE(decoded.has_value());
  return nlohmann::json::parse(decoded.value_or("null"));
}

class Jose : public ::testing::TestWithParam<Alg> {};

TEST_P(Jose, Interface_17_12_oidcc_idtoken_signature_SignsCompactJwsThatVerifies) {
  const std::string kid = jose::new_kid();
  jose::SigningKey key = jose::SigningKey::generate(GetParam(), kid);
  const std::string payload = R"({"iss":"https://id.example.com","sub":"u1"})";
  std::string compact = key.sign(payload, "JWT");

  EXPECT_EQ(std::count(compact.begin(), compact.end(), '.'), 2);
  nlohmann::json header = jws_part(compact, 0);
  EXPECT_EQ(header,
            (nlohmann::json{{"alg", jose::alg_name(GetParam())}, {"kid", kid}, {"typ", "JWT"}}));
  EXPECT_EQ(jose::verify(compact, key.public_jwk()), payload);

  // Another key of the same kind does not verify it; nor does a changed payload.
  jose::SigningKey other = jose::SigningKey::generate(GetParam(), jose::new_kid());
  EXPECT_EQ(jose::verify(compact, other.public_jwk()), std::nullopt);
  std::string altered = compact;
  std::size_t dot = altered.find('.');
  altered[dot + 2] = altered[dot + 2] == 'A' ? 'B' : 'A';
  EXPECT_EQ(jose::verify(altered, key.public_jwk()), std::nullopt);
}

TEST_P(Jose, Interface_17_12_PublicJwkHasThePublicMembersOnly) {
  const std::string kid = jose::new_kid();
  jose::SigningKey key = jose::SigningKey::generate(GetParam(), kid);
  nlohmann::json jwk = nlohmann::json::parse(key.public_jwk());
  for (const char* secret : {"d", "p", "q", "dp", "dq", "qi"})
    EXPECT_FALSE(jwk.contains(secret)) << secret << " in " << jwk.dump();
  EXPECT_EQ(jwk["kid"], kid);
  EXPECT_EQ(jwk["use"], "sig");
  EXPECT_EQ(jwk["alg"], jose::alg_name(GetParam()));
  if (GetParam() == Alg::rs256) {
    EXPECT_EQ(jwk["kty"], "RSA");
    EXPECT_EQ(from_base64url(jwk["n"].get<std::string>()).value_or("").size(), 256u);  // 2048 bits
    EXPECT_EQ(jwk["e"], "AQAB");
  } else {
    EXPECT_EQ(jwk["kty"], "EC");
    EXPECT_EQ(jwk["crv"], "P-256");
    EXPECT_EQ(from_base64url(jwk["x"].get<std::string>()).value_or("").size(), 32u);
    EXPECT_EQ(from_base64url(jwk["y"].get<std::string>()).value_or("").size(), 32u);
  }
}

TEST_P(Jose, Interface_17_12_PrivateJwkImportsAndSignsForThePublicOne) {
  const std::string kid = jose::new_kid();
  jose::SigningKey key = jose::SigningKey::generate(GetParam(), kid);
  std::string private_jwk = key.private_jwk();
  EXPECT_TRUE(nlohmann::json::parse(private_jwk).contains("d"));

  std::optional<jose::SigningKey> imported =
      jose::SigningKey::import_private(private_jwk, GetParam(), kid);
  ASSERT_TRUE(imported.has_value());
  EXPECT_EQ(jose::verify(imported->sign("{}", "JWT"), key.public_jwk()), "{}");
  EXPECT_EQ(imported->public_jwk(), key.public_jwk());
}

TEST_P(Jose, Interface_17_12_ImportRefusesAPublicKeyAnotherKidOrAnotherAlg) {
  const std::string kid = jose::new_kid();
  jose::SigningKey key = jose::SigningKey::generate(GetParam(), kid);
  const Alg other = GetParam() == Alg::rs256 ? Alg::es256 : Alg::rs256;
  EXPECT_FALSE(jose::SigningKey::import_private(key.public_jwk(), GetParam(), kid).has_value());
  EXPECT_FALSE(
      jose::SigningKey::import_private(key.private_jwk(), GetParam(), "another").has_value());
  EXPECT_FALSE(jose::SigningKey::import_private(key.private_jwk(), other, kid).has_value());
  EXPECT_FALSE(jose::SigningKey::import_private("not json", GetParam(), kid).has_value());
}

std::string alg_test_name(const ::testing::TestParamInfo<Alg>& param) {
  return std::string(jose::alg_name(param.param));
}

INSTANTIATE_TEST_SUITE_P(RS256AndES256, Jose, ::testing::Values(Alg::rs256, Alg::es256),
                         alg_test_name);

TEST(JoseVerify, Interface_17_12_AJwsUnderAnotherKindOfKeyDoesNotVerify) {
  jose::SigningKey rsa = jose::SigningKey::generate(Alg::rs256, jose::new_kid());
  jose::SigningKey ec = jose::SigningKey::generate(Alg::es256, jose::new_kid());
  EXPECT_EQ(jose::verify(rsa.sign("{}", "JWT"), ec.public_jwk()), std::nullopt);
  EXPECT_EQ(jose::verify(ec.sign("{}", "JWT"), rsa.public_jwk()), std::nullopt);
}

TEST(JoseKid, Interface_17_12_KidIs16RandomBytesInBase64url) {
  std::string a = jose::new_kid();
  std::string b = jose::new_kid();
  EXPECT_EQ(from_base64url(a).value_or("").size(), 16u);
  EXPECT_EQ(a.size(), 22u);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace authd
