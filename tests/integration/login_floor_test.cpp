// The floor under failed logins (interface.md 6 /login 2 and 10.5, issue 19):
// which kinds of stored hashes the server measures, and when. The time
// itself is measured by timing_test.cpp; these check, without timing, that
// every kind stored is measured before the server listens, and that a kind
// stored while it runs is measured soon after (auth/hash_kinds_watch.hpp).
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// The log line of `event` whose `kind` is `kind`, or null.
nlohmann::json kind_line(const AuthdProcess& authd, const std::string& event,
                         const std::string& kind) {
  for (const nlohmann::json& line : log_lines(authd))
    if (line.value("event", "") == event && line.value("kind", "") == kind) return line;
  return nullptr;
}

std::size_t position_of(const AuthdProcess& authd, const std::string& event) {
  std::vector<nlohmann::json> lines = log_lines(authd);
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].value("event", "") == event) return i;
  return lines.size();
}

TEST(LoginFloor, Interface_10_5_EveryStoredKindIsMeasuredBeforeTheServerListens) {
  AuthdProcess before(fast_hashing());
  std::string output;
  ASSERT_EQ(before.cli({"user", "add", "--email", kEmail, "--argon2-memory-kib", "256",
                        "--argon2-iterations", "2"},
                       kPassword, &output),
            0)
      << output;
  before.stop();

  AuthdProcess authd(fast_hashing(), before.database_url());
  ASSERT_TRUE(wait_for_log(authd, "\"listening\""));
  nlohmann::json measured = kind_line(authd, "hash_kind_measured", "$argon2id$v=19$m=256,t=2,p=1");
  ASSERT_FALSE(measured.is_null()) << authd.log_text();
  EXPECT_GT(measured["relative_cost"].get<double>(), 0.0);
  EXPECT_LT(position_of(authd, "hash_kind_measured"), position_of(authd, "listening"));
  EXPECT_LT(position_of(authd, "login_floor"), position_of(authd, "listening"));
  // Only the kind: nothing of the salt or the digest reaches the log.
  std::string stored = without_trailing_newlines(authd.sql("select password_hash from users"));
  std::string salt_and_digest = stored.substr(std::string("$argon2id$v=19$m=256,t=2,p=1$").size());
  EXPECT_EQ(authd.log_text().find(salt_and_digest.substr(0, 10)), std::string::npos);
}

TEST(LoginFloor, Interface_10_5_AKindStoredWhileTheServerRunsIsMeasuredSoonAfter) {
  AuthdProcess authd(fast_hashing());
  // Another kind, written beside the running server (as another instance or
  // the CLI with other parameters would).
  std::string output;
  ASSERT_EQ(authd.cli({"user", "add", "--email", kEmail, "--argon2-memory-kib", "128",
                       "--argon2-iterations", "3"},
                      kPassword, &output),
            0)
      << output;
  EXPECT_EQ(lines(authd.sql("select kind from password_hash_kinds")),
            std::vector<std::string>{"$argon2id$v=19$m=128,t=3,p=1"});
  // Measured at the watch's next reading of the set (every 10 s).
  EXPECT_TRUE(wait_for_log(authd, "$argon2id$v=19$m=128,t=3,p=1")) << authd.log_text();
  EXPECT_FALSE(kind_line(authd, "hash_kind_measured", "$argon2id$v=19$m=128,t=3,p=1").is_null());
}

}  // namespace
}  // namespace authd::test
