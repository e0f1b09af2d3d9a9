// The provider's key ring (interface.md 17.12, auth/oidc/signing_keys.hpp)
// over a store held in memory: the first pair made and sealed, every
// instance on the same keys, signatures checked by an independent JOSE
// implementation (python3-jwcrypto) against the JWKS, and the rotation's
// steps at chosen times (published, signing, retired, removed).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "auth/oidc/signing_key_ring.hpp"
#include "auth/oidc/signing_keys.hpp"
#include "crypto/sealed_secrets.hpp"
#include "memory_signing_keys.hpp"
#include "source_paths.hpp"
#include "temp_directory.hpp"

namespace authd {
namespace oidc_signing_keys_test {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

SecretKey filled_key(std::uint8_t fill) {
  std::array<std::uint8_t, 32> bytes{};
  bytes.fill(fill);
  return SecretKey(bytes);
}

const SigningKeySettings kSettings{
    .prepublish = hours(24), .rotation = hours(24 * 90), .longest_token_ttl = minutes(10)};

Millis millis_of(Duration d) { return d.count(); }

nlohmann::json jwks_of(const SigningKeys& keys) {
  return nlohmann::json::parse(keys.jwks_json())["keys"];
}

std::string header_kid(const std::string& compact) {
  std::optional<std::string> header = from_base64url(compact.substr(0, compact.find('.')));
  return nlohmann::json::parse(header.value_or("{}")).value("kid", "");
}

// python3-jwcrypto (Debian's) checks `tokens` against `jwks`
// (tests/support/verify_jws.py): its exit status and what it printed.
std::pair<int, std::string> jwcrypto_verifies(const std::string& jwks,
                                              const std::vector<std::string>& tokens) {
  test::TempDirectory dir;
  std::ofstream(dir.file("jwks.json")) << jwks;
  std::ofstream list(dir.file("tokens"));
  for (const std::string& token : tokens) list << token << "\n";
  list.close();
  std::string command = "/usr/bin/python3 " + test::source_path("tests/support/verify_jws.py") +
                        " " + dir.file("jwks.json") + " " + dir.file("tokens");
  std::FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[1024];
  while (pipe != nullptr && std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  int status = pipe != nullptr ? ::pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class SigningKeysTest : public ::testing::Test {
 protected:
  test::MemoryKeyStore store;
  SecretSealer sealer{filled_key(1)};
};

TEST_F(SigningKeysTest, Interface_17_12_FirstStartMakesOneSealedPairPerAlgorithm) {
  SigningKeys keys(store, sealer, kSettings);
  ASSERT_TRUE(keys.start_with_keys());

  nlohmann::json published = jwks_of(keys);
  ASSERT_EQ(published.size(), 2u);
  std::set<std::string> algs{published[0]["alg"], published[1]["alg"]};
  EXPECT_EQ(algs, (std::set<std::string>{"RS256", "ES256"}));
  EXPECT_NE(published[0]["kid"], published[1]["kid"]);
  for (const nlohmann::json& jwk : published)
    for (const char* secret : {"d", "p", "q", "dp", "dq", "qi"}) EXPECT_FALSE(jwk.contains(secret));

  ASSERT_EQ(store.keys.rows.size(), 2u);
  for (const SigningKeyRecord& row : store.keys.rows) {
    EXPECT_EQ(row.generation, 1);
    EXPECT_EQ(row.sealed_private.find("\"d\""), std::string::npos);
    EXPECT_EQ(row.sealed_private.rfind("v1." + sealer.current_key_id() + ".", 0), 0u);
    // Bound to its kid: it opens under its own context only.
    auto opened = sealer.open(row.sealed_private, "oidc-signing-key:" + row.kid);
    ASSERT_TRUE(opened.has_value());
    EXPECT_TRUE(nlohmann::json::parse(opened->plaintext).contains("d"));
    EXPECT_FALSE(sealer.open(row.sealed_private, "oidc-signing-key:other").has_value());
  }
}

TEST_F(SigningKeysTest, Interface_17_12_EveryInstanceSignsWithTheStoredKeys) {
  SigningKeys first(store, sealer, kSettings);
  ASSERT_TRUE(first.start_with_keys());
  SigningKeys second(store, sealer, kSettings);
  ASSERT_TRUE(second.start_with_keys());
  EXPECT_EQ(store.keys.rows.size(), 2u);
  EXPECT_EQ(first.jwks_json(), second.jwks_json());
  EXPECT_EQ(header_kid(first.sign("RS256", {{"a", 1}})),
            header_kid(second.sign("RS256", {{"a", 1}})));
}

// The signatures as a relying party checks them: an implementation that
// shares no code with libcjose, the key found by the header's kid in the
// JWKS, for both algorithms; and it refuses an altered token.
TEST_F(SigningKeysTest, Interface_17_12_oidcc_idtoken_rs256_and_es256_VerifiedByJwcrypto) {
  SigningKeys keys(store, sealer, kSettings);
  ASSERT_TRUE(keys.start_with_keys());
  nlohmann::json claims = {{"iss", "https://id.example.com"}, {"sub", "u1"}, {"aud", "c1"}};
  std::string rs256 = keys.sign("RS256", claims);
  std::string es256 = keys.sign("ES256", claims);

  auto [status, out] = jwcrypto_verifies(keys.jwks_json(), {rs256, es256});
  ASSERT_NE(status, 3) << "apt-get install python3-jwcrypto";
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("ok RS256 " + header_kid(rs256) + " " + claims.dump()), std::string::npos)
      << out;
  EXPECT_NE(out.find("ok ES256 " + header_kid(es256) + " " + claims.dump()), std::string::npos)
      << out;

  std::string altered = es256;
  altered[altered.size() - 5] = altered[altered.size() - 5] == 'A' ? 'B' : 'A';
  auto [refused, why] = jwcrypto_verifies(keys.jwks_json(), {altered});
  EXPECT_EQ(refused, 1) << why;
}

TEST_F(SigningKeysTest, Interface_17_12_SignNamesTheCurrentKeyAndTypAndRefusesOtherAlgs) {
  SigningKeys keys(store, sealer, kSettings);
  ASSERT_TRUE(keys.start_with_keys());
  std::string compact = keys.sign("ES256", {{"sub", "u1"}}, "at+jwt");
  std::optional<std::string> header = from_base64url(compact.substr(0, compact.find('.')));
  nlohmann::json parsed = nlohmann::json::parse(header.value_or("{}"));
  EXPECT_EQ(parsed["alg"], "ES256");
  EXPECT_EQ(parsed["typ"], "at+jwt");
  for (const nlohmann::json& jwk : jwks_of(keys)) {
    if (jwk["alg"] != "ES256") continue;
    EXPECT_EQ(parsed["kid"], jwk["kid"]);
    EXPECT_EQ(jose::verify(compact, jwk.dump()), R"({"sub":"u1"})");
  }
  EXPECT_THROW((void)keys.sign("HS256", {}), std::invalid_argument);
  EXPECT_THROW((void)keys.sign("none", {}), std::invalid_argument);
}

// The rotation's steps, each decided at a chosen time.
TEST_F(SigningKeysTest, Interface_17_12_RotationPublishesThenSignsThenRetiresThenRemoves) {
  const Millis t0 = 1'800'000'000'000;
  auto apply_at = [&](Millis at) {
    RingPlan plan = plan_ring(store.keys.list(), sealer, kSettings, at);
    EXPECT_TRUE(apply_plan(store.keys, plan, kSettings, at));
    return plan;
  };
  EXPECT_EQ(apply_at(t0).inserts.size(), 2u);  // the first pair
  const Millis not_due = t0 + millis_of(kSettings.rotation - kSettings.prepublish) - 1;
  EXPECT_FALSE(plan_ring(store.keys.list(), sealer, kSettings, not_due).any());

  // Due: the next pair, published now, signing after the prepublish time.
  const Millis due = not_due + 1;
  RingPlan next = apply_at(due);
  ASSERT_EQ(next.inserts.size(), 2u);
  for (const SigningKeyRecord& key : next.inserts) {
    EXPECT_EQ(key.generation, 2);
    EXPECT_EQ(key.signs_from, due + millis_of(kSettings.prepublish));
  }
  EXPECT_FALSE(plan_ring(store.keys.list(), sealer, kSettings, due).any());  // made once
  auto ring = open_ring(store.keys.list(), sealer, due);
  EXPECT_EQ(nlohmann::json::parse(ring->jwks)["keys"].size(), 4u);
  EXPECT_EQ(ring->current(jose::Alg::rs256, due)->record.generation, 1);
  const Millis switch_at = due + millis_of(kSettings.prepublish);
  EXPECT_EQ(ring->current(jose::Alg::rs256, switch_at)->record.generation, 2);
  EXPECT_EQ(ring->current(jose::Alg::es256, switch_at)->record.generation, 2);

  // Signing: the old pair retired, published until what it signed expired.
  RingPlan retire = apply_at(switch_at);
  EXPECT_EQ(retire.retire.size(), 2u);
  EXPECT_TRUE(retire.inserts.empty());
  const Millis remove_after =
      switch_at + millis_of(kSettings.longest_token_ttl) + millis_of(minutes(1));
  for (const SigningKeyRecord& row : store.keys.rows) {
    EXPECT_EQ(row.remove_after,
              row.generation == 1 ? std::optional<Millis>(remove_after) : std::nullopt);
  }
  EXPECT_EQ(
      nlohmann::json::parse(open_ring(store.keys.list(), sealer, remove_after - 1)->jwks)["keys"]
          .size(),
      4u);

  // Then gone from the JWKS and the store.
  EXPECT_EQ(nlohmann::json::parse(open_ring(store.keys.list(), sealer, remove_after)->jwks)["keys"]
                .size(),
            2u);
  EXPECT_TRUE(apply_at(remove_after).prune);
  EXPECT_EQ(store.keys.rows.size(), 2u);
  for (const SigningKeyRecord& row : store.keys.rows) EXPECT_EQ(row.generation, 2);
}

TEST_F(SigningKeysTest, Interface_17_12_OfTwoInstancesMakingAGenerationOneWins) {
  const Millis now = 1'800'000'000'000;
  RingPlan first = plan_ring({}, sealer, kSettings, now);
  RingPlan second = plan_ring({}, sealer, kSettings, now);
  EXPECT_TRUE(apply_plan(store.keys, first, kSettings, now));
  EXPECT_FALSE(apply_plan(store.keys, second, kSettings, now));
  ASSERT_EQ(store.keys.rows.size(), 2u);
  EXPECT_EQ(store.keys.rows[0].kid, first.inserts[0].kid);
  EXPECT_EQ(store.keys.rows[1].kid, first.inserts[1].kid);
}

// interface.md 12.2.3: after a secret key rotation, the keys sealed with
// the previous key are sealed anew with the current one.
TEST_F(SigningKeysTest, Interface_17_12_KeysSealedWithThePreviousSecretKeyAreResealed) {
  {
    SigningKeys keys(store, sealer, kSettings);
    ASSERT_TRUE(keys.start_with_keys());
  }
  SecretSealer rotated(filled_key(2), filled_key(1));
  SigningKeys keys(store, rotated, kSettings);
  ASSERT_TRUE(keys.start_with_keys());
  for (const SigningKeyRecord& row : store.keys.rows)
    EXPECT_EQ(row.sealed_private.rfind("v1." + rotated.current_key_id() + ".", 0), 0u);
  SecretSealer new_key_only(filled_key(2));
  SigningKeys after(store, new_key_only, kSettings);
  EXPECT_TRUE(after.start_with_keys());
}

TEST_F(SigningKeysTest, Interface_17_12_AStartWhoseSecretKeyCannotOpenTheKeysIsRefused) {
  {
    SigningKeys keys(store, sealer, kSettings);
    ASSERT_TRUE(keys.start_with_keys());
  }
  SecretSealer other(filled_key(9));
  SigningKeys keys(store, other, kSettings);
  EXPECT_FALSE(keys.start_with_keys());
  EXPECT_EQ(store.keys.rows.size(), 2u);  // nothing made over them
}

}  // namespace
}  // namespace oidc_signing_keys_test
}  // namespace authd
