// The key ring over a real SQLite store (interface.md 17.12): `authd oidc
// rotate-keys` publishes the next pair (with its event, kids only), --now
// makes it sign at once and retires the current pair; the signatures of
// every step verify with python3-jwcrypto against the JWKS.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "auth/events/events.hpp"
#include "auth/oidc/signing_keys.hpp"
#include "crypto/random.hpp"
#include "crypto/sealed_secrets.hpp"
#include "source_paths.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "temp_directory.hpp"

namespace authd {
namespace {

std::string kid_in_header(const std::string& compact) {
  std::optional<std::string> header = from_base64url(compact.substr(0, compact.find('.')));
  return nlohmann::json::parse(header.value_or("{}")).value("kid", "");
}

std::set<std::string> published_kids(const SigningKeys& keys) {
  std::set<std::string> kids;
  const nlohmann::json jwks = nlohmann::json::parse(keys.jwks_json());
  for (const nlohmann::json& jwk : jwks["keys"]) kids.insert(jwk["kid"].get<std::string>());
  return kids;
}

// Exit status of tests/support/verify_jws.py (python3-jwcrypto) on them.
int verified_by_jwcrypto(const std::string& jwks, const std::vector<std::string>& tokens,
                         std::string& out) {
  test::TempDirectory dir;
  std::ofstream(dir.file("jwks.json")) << jwks;
  std::ofstream list(dir.file("tokens"));
  for (const std::string& token : tokens) list << token << "\n";
  list.close();
  std::string command = "/usr/bin/python3 " + test::source_path("tests/support/verify_jws.py") +
                        " " + dir.file("jwks.json") + " " + dir.file("tokens");
  std::FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[1024];
  while (pipe != nullptr && std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  int status = pipe != nullptr ? ::pclose(pipe) : -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class SigningKeysOnSqlite : public ::testing::Test {
 protected:
  void SetUp() override { store.migrate(); }

  std::vector<EventRecord> rotation_events() {
    std::vector<EventRecord> events;
    EventFilter filter;
    filter.type = "oidc.signing_keys_rotated";
    auto work = [&](Transaction& tx) { events = tx.events().list(filter); };
    EXPECT_EQ(store.run(Store::Mode::read, work), StoreStatus::ok);
    return events;
  }

  test::TempDirectory dir;
  sqlite::SqliteStore store{dir.file("authd.db")};
  SecretSealer sealer{SecretKey(std::array<std::uint8_t, 32>{7})};
  SigningKeySettings settings{.prepublish = std::chrono::hours(24),
                              .rotation = std::chrono::hours(24 * 90),
                              .longest_token_ttl = std::chrono::minutes(10)};
};

TEST_F(SigningKeysOnSqlite, Interface_17_12_RotateKeysPublishesTheNextPairThenNowMakesItSign) {
  SigningKeys keys(store, sealer, settings);
  ASSERT_TRUE(keys.start_with_keys());
  const std::set<std::string> first = published_kids(keys);
  ASSERT_EQ(first.size(), 2u);
  const nlohmann::json claims = {{"sub", "u1"}};
  std::vector<std::string> tokens = {keys.sign("RS256", claims), keys.sign("ES256", claims)};

  EventSource cli;
  cli.actor = "cli";
  RotationResult next = rotate_signing_keys(store, sealer, settings, false, cli);
  ASSERT_TRUE(next.ok);
  ASSERT_EQ(next.made.size(), 2u);
  EXPECT_TRUE(next.retired.empty());
  ASSERT_TRUE(keys.refresh());
  EXPECT_EQ(published_kids(keys).size(), 4u);
  // Published, not signing yet.
  EXPECT_TRUE(first.contains(kid_in_header(keys.sign("RS256", claims))));
  EXPECT_TRUE(first.contains(kid_in_header(keys.sign("ES256", claims))));

  RotationResult now = rotate_signing_keys(store, sealer, settings, true, cli);
  ASSERT_TRUE(now.ok);
  EXPECT_EQ(now.retired.size(), 4u);  // the current pair and the one never used
  ASSERT_TRUE(keys.refresh());
  EXPECT_EQ(published_kids(keys).size(), 6u);  // retired keys stay until their tokens expire
  std::string rs256 = keys.sign("RS256", claims);
  std::string es256 = keys.sign("ES256", claims);
  const std::set<std::string> made(now.made.begin(), now.made.end());
  EXPECT_TRUE(made.contains(kid_in_header(rs256)));
  EXPECT_TRUE(made.contains(kid_in_header(es256)));
  tokens.insert(tokens.end(), {rs256, es256});

  std::string out;
  int status = verified_by_jwcrypto(keys.jwks_json(), tokens, out);
  ASSERT_NE(status, 3) << "apt-get install python3-jwcrypto";
  EXPECT_EQ(status, 0) << out;

  std::vector<EventRecord> events = rotation_events();
  ASSERT_EQ(events.size(), 2u);
  for (const EventRecord& event : events) {
    EXPECT_EQ(event.actor, "cli");
    nlohmann::json detail = nlohmann::json::parse(event.detail);
    EXPECT_EQ(detail["kids"].size(), 2u);
    EXPECT_EQ(event.detail.find("\"d\""), std::string::npos);
    EXPECT_EQ(event.detail.find("v1."), std::string::npos);
  }
}

}  // namespace
}  // namespace authd
