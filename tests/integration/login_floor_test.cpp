// The floor under failed logins (interface.md 6 /login 2 and 10.5): which
// kinds of stored hashes the server measures, and when. The time itself is
// measured by timing_test.cpp; these check, without timing, that a start
// begins with the stored costs and measures in the background, that a kind
// stored while the server runs is measured soon after, and that a kind no
// hash has any more is dropped (auth/login/hash_kinds_watch.hpp).
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

// Starting never waits for a kind to be measured: the floor starts from the
// stored costs (none yet here), the server listens, and the kind is
// measured in the background; its cost is then stored with it, measured
// against the server's own kind, and the next start takes it from there.
TEST(LoginFloor, Interface_10_5_StartingNeverWaitsForAKindToBeMeasured) {
  AuthdProcess before(fast_hashing());
  add_user_hashed_at(before, kEmail, "256", "2");
  before.stop();

  AuthdProcess authd(fast_hashing(), before.database_url());
  ASSERT_TRUE(wait_for_log(authd, "\"listening\""));
  std::vector<nlohmann::json> started = log_lines(authd);
  std::size_t floor_line = position_of(authd, "login_floor");
  ASSERT_LT(floor_line, position_of(authd, "listening")) << authd.log_text();
  EXPECT_EQ(started[floor_line]["unmeasured"], 1) << started[floor_line];
  EXPECT_EQ(started[floor_line]["kinds"], 1) << started[floor_line];

  ASSERT_TRUE(wait_for_log(authd, "hash_kind_measured")) << authd.log_text();
  nlohmann::json measured = kind_line(authd, "hash_kind_measured", "$argon2id$v=19$m=256,t=2,p=1");
  ASSERT_FALSE(measured.is_null()) << authd.log_text();
  EXPECT_GT(measured["relative_cost"].get<double>(), 0.0);
  EXPECT_EQ(lines(authd.sql("SELECT cost_basis FROM password_hash_kinds WHERE "
                            "relative_cost_milli IS NOT NULL")),
            std::vector<std::string>{"$argon2id$v=19$m=64,t=1,p=1"});
  // Only the kind: nothing of the salt or the digest reaches the log.
  std::string stored = without_trailing_newlines(authd.sql("select password_hash from users"));
  std::string salt_and_digest = stored.substr(std::string("$argon2id$v=19$m=256,t=2,p=1$").size());
  EXPECT_EQ(authd.log_text().find(salt_and_digest.substr(0, 10)), std::string::npos);
  authd.stop();

  AuthdProcess again(fast_hashing(), before.database_url());
  ASSERT_TRUE(wait_for_log(again, "\"listening\""));
  std::vector<nlohmann::json> restarted = log_lines(again);
  EXPECT_EQ(restarted[position_of(again, "login_floor")]["unmeasured"], 0) << again.log_text();
}

// A kind that no stored hash has any more (its accounts deleted) is dropped
// from the set, and from the floor, by the watch's first reading.
TEST(LoginFloor, Interface_10_5_AKindNoStoredHashHasIsDropped) {
  AuthdProcess before(fast_hashing());
  add_user_hashed_at(before, kEmail, "256", "2");
  before.stop();
  before.sql("DELETE FROM users");
  EXPECT_EQ(lines(before.sql("SELECT kind FROM password_hash_kinds")),
            std::vector<std::string>{"$argon2id$v=19$m=256,t=2,p=1"});

  AuthdProcess authd(fast_hashing(), before.database_url());
  ASSERT_TRUE(wait_for_log(authd, "hash_kind_dropped")) << authd.log_text();
  EXPECT_FALSE(kind_line(authd, "hash_kind_dropped", "$argon2id$v=19$m=256,t=2,p=1").is_null());
  EXPECT_TRUE(lines(authd.sql("SELECT kind FROM password_hash_kinds")).empty());
}

TEST(LoginFloor, Interface_10_5_AKindStoredWhileTheServerRunsIsMeasuredSoonAfter) {
  AuthdProcess authd(fast_hashing());
  // Another kind, written beside the running server (as another instance or
  // the CLI with other parameters would).
  add_user_hashed_at(authd, kEmail, "128", "3");
  EXPECT_EQ(lines(authd.sql("select kind from password_hash_kinds")),
            std::vector<std::string>{"$argon2id$v=19$m=128,t=3,p=1"});
  // Measured at the watch's next reading of the set (every 10 s).
  EXPECT_TRUE(wait_for_log(authd, "$argon2id$v=19$m=128,t=3,p=1")) << authd.log_text();
  EXPECT_FALSE(kind_line(authd, "hash_kind_measured", "$argon2id$v=19$m=128,t=3,p=1").is_null());
}

}  // namespace
}  // namespace authd::test
