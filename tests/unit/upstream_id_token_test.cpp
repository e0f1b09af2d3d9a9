// interface.md 18.2: the checks of an upstream's ID token
// (upstream/id_token.hpp), the return paths that may be followed
// (upstream/flows.hpp) and the endpoints authd may call
// (upstream/provider.hpp).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "crypto/jose.hpp"
#include "crypto/random.hpp"
#include "upstream/flows.hpp"
#include "upstream/id_token.hpp"
#include "upstream/provider.hpp"

namespace authd {
namespace {

constexpr std::int64_t kTokenNow = 1'800'000'000;

nlohmann::json good_claims() {
  return {
      {"iss", "https://idp.example.com"}, {"sub", "u-1"},  {"aud", "authd"}, {"iat", kTokenNow - 5},
      {"exp", kTokenNow + 300},           {"nonce", "n-1"}};
}

IdTokenExpectation expected() { return {"https://idp.example.com", "authd", "n-1", kTokenNow, 60}; }

struct Signer {
  jose::SigningKey key = jose::SigningKey::generate(jose::Alg::rs256, "k1");
  nlohmann::json jwks() const { return {{"keys", {nlohmann::json::parse(key.public_jwk())}}}; }
  std::string sign(const nlohmann::json& claims) const { return key.sign(claims.dump(), "JWT"); }
};

std::string unsigned_token(const nlohmann::json& header, const nlohmann::json& claims,
                           const std::string& signature) {
  return base64url(header.dump()) + "." + base64url(claims.dump()) + "." + signature;
}

TEST(UpstreamIdToken, Interface_18_2_ValidTokenPasses) {
  Signer signer;
  IdTokenCheck check = check_id_token(signer.sign(good_claims()), signer.jwks(), expected());
  EXPECT_TRUE(check.ok()) << check.refusal;
  EXPECT_EQ(check.claims["sub"], "u-1");
}

TEST(UpstreamIdToken, Interface_18_2_Es256Passes) {
  jose::SigningKey key = jose::SigningKey::generate(jose::Alg::es256, "e1");
  nlohmann::json jwks = {{"keys", {nlohmann::json::parse(key.public_jwk())}}};
  EXPECT_TRUE(check_id_token(key.sign(good_claims().dump(), "JWT"), jwks, expected()).ok());
}

TEST(UpstreamIdToken, Interface_18_2_AlgNoneIsRefused) {
  Signer signer;
  std::string token = unsigned_token({{"alg", "none"}}, good_claims(), "");
  EXPECT_EQ(check_id_token(token, signer.jwks(), expected()).refusal, "alg");
}

TEST(UpstreamIdToken, Interface_18_2_HmacIsRefused) {
  Signer signer;
  for (const char* alg : {"HS256", "HS384", "HS512"}) {
    std::string token = unsigned_token({{"alg", alg}, {"kid", "k1"}}, good_claims(), "c2ln");
    EXPECT_EQ(check_id_token(token, signer.jwks(), expected()).refusal, "alg") << alg;
  }
}

TEST(UpstreamIdToken, Interface_18_2_WrongClaimsAreRefused) {
  Signer signer;
  auto refusal = [&](const char* name, const nlohmann::json& value) {
    nlohmann::json claims = good_claims();
    claims[name] = value;
    return check_id_token(signer.sign(claims), signer.jwks(), expected()).refusal;
  };
  EXPECT_EQ(refusal("iss", "https://other.example.com"), "iss");
  EXPECT_EQ(refusal("aud", "someone-else"), "aud");
  EXPECT_EQ(refusal("aud", nlohmann::json::array({"authd", "other"})), "aud");  // no azp
  EXPECT_EQ(refusal("exp", kTokenNow - 61), "exp");
  EXPECT_EQ(refusal("iat", kTokenNow + 3600), "exp");
  EXPECT_EQ(refusal("nonce", "n-2"), "nonce");
  EXPECT_EQ(refusal("sub", ""), "sub");
  nlohmann::json no_nonce = good_claims();
  no_nonce.erase("nonce");
  EXPECT_EQ(check_id_token(signer.sign(no_nonce), signer.jwks(), expected()).refusal, "nonce");
  nlohmann::json azp = good_claims();
  azp["aud"] = {"authd", "other"};
  azp["azp"] = "authd";
  EXPECT_TRUE(check_id_token(signer.sign(azp), signer.jwks(), expected()).ok());
}

TEST(UpstreamIdToken, Interface_18_2_UnknownKidAndBadSignatureAreRefused) {
  Signer signer;
  Signer stranger;
  jose::SigningKey other = jose::SigningKey::generate(jose::Alg::rs256, "k2");
  EXPECT_EQ(
      check_id_token(other.sign(good_claims().dump(), "JWT"), signer.jwks(), expected()).refusal,
      "unknown_kid");
  // Same kid, another key: the signature fails.
  EXPECT_EQ(check_id_token(stranger.sign(good_claims()), signer.jwks(), expected()).refusal,
            "signature");
}

TEST(UpstreamReturnPath, Interface_18_2_OnlyPathsOfTheOwnOrigin) {
  EXPECT_TRUE(is_return_path("/"));
  EXPECT_TRUE(is_return_path("/account?tab=links"));
  for (const char* bad : {"", "//evil.example", "/\\evil.example", "https://evil.example", "evil",
                          "/a b", "/a\\b", "/\x01"})
    EXPECT_FALSE(is_return_path(bad)) << bad;
}

TEST(UpstreamProviderSettings, Interface_18_1_EndpointsAndNames) {
  EXPECT_TRUE(is_upstream_url("https://idp.example.com"));
  EXPECT_TRUE(is_upstream_url("http://127.0.0.1:9000/x"));
  EXPECT_TRUE(is_upstream_url("http://localhost/x"));
  EXPECT_FALSE(is_upstream_url("http://idp.example.com"));
  EXPECT_FALSE(is_upstream_url("http://127.0.0.1@evil.example/"));
  EXPECT_FALSE(is_upstream_url("ftp://idp.example.com"));
  EXPECT_TRUE(is_upstream_name("corp-2"));
  EXPECT_FALSE(is_upstream_name("Corp"));
  EXPECT_FALSE(is_upstream_name(std::string(33, 'a')));
  UpstreamProvider email;
  email.name = "email";
  EXPECT_NE(upstream_problem(email).find("name"), std::string::npos);
}

}  // namespace
}  // namespace authd
