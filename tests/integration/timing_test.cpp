// Timing side channels (interface.md 6 /login 2, 6 /forgot 2, 10.5, 11.4
// and 19.1): from the response time, a client cannot tell an unknown e-mail
// from a wrong password on /login, whatever the stored hash, nor an existing
// account from a disabled or an unknown one on /forgot or /signin/email,
// nor an address with an account from a new one on /signup. Run on both
// backends (scripts/with-postgres.sh).
//
// Statistical, and built not to flake: samples of the cases interleaved
// round by round in a rotating order (so that drift and noise of a shared
// machine hit every case alike), warm-up rounds discarded, medians
// compared. /login compares medians with a generous bound (half the larger
// one plus 2 ms): its cases differ by a whole hash or nothing. /forgot's
// cases differ by a database round trip or nothing, so it compares the
// trimmed mean of per-round differences with a bound a few standard errors
// wide and below one round trip (timing_statistics.hpp).
#include <algorithm>
#include <array>
#include <chrono>

#include "contract_support.hpp"
#include "harness.hpp"
#include "mfa_support.hpp"
#include "timing_statistics.hpp"

namespace authd::test {
namespace {

using Clock = std::chrono::steady_clock;

// Time of one request on a keep-alive connection, in milliseconds; the
// status must be `expected` (else the comparison would be meaningless).
double timed_post(HttpConnection& connection, const std::string& target, const std::string& body,
                  int expected) {
  auto started = Clock::now();
  HttpResponse res =
      connection.request("POST", target, {{"Content-Type", "application/json"}}, body);
  auto elapsed = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  EXPECT_EQ(res.status, expected) << target << " " << res.body;
  return elapsed;
}

// `share` of the larger median, plus 2 ms.
void expect_indistinguishable(const std::string& what, double a, double b, double share = 0.5) {
  double bound = share * std::max(a, b) + 2.0;
  EXPECT_LE(std::abs(a - b), bound) << what << ": medians " << a << " ms and " << b << " ms";
}

// Samples of unknown e-mail against wrong password on `authd`, interleaved;
// the medians, in that order.
std::pair<double, double> login_failure_medians(const AuthdProcess& authd,
                                                const std::string& email) {
  const std::string unknown_login = login_body("nobody@example.com", "a wrong password");
  const std::string wrong_password = login_body(email, "a wrong password");
  std::array<std::unique_ptr<HttpConnection>, 2> connections;
  for (auto& c : connections) c = std::make_unique<HttpConnection>(authd.port());
  std::array<std::vector<double>, 2> samples;
  constexpr int kWarmUp = 3;
  constexpr int kRounds = 41;
  for (int round = 0; round < kWarmUp + kRounds; ++round) {
    for (int i = 0; i < 2; ++i) {
      auto which = static_cast<std::size_t>((round + i) % 2);  // rotating order
      double ms = timed_post(*connections[which], "/login",
                             which == 0 ? unknown_login : wrong_password, 401);
      if (round >= kWarmUp) samples[which].push_back(ms);
    }
  }
  return {median(samples[0]), median(samples[1])};
}

// 6 /login 2 at the default argon2id cost: the unknown e-mail's dummy hash
// costs what the account's hash costs.
TEST(Timing, Interface_6_Login_2_UnknownEmailAndWrongPasswordTakeTheSameTime) {
  AuthdProcess authd({"--login-email-limit", "10000/1m", "--login-client-limit", "10000/1m"});
  authd.add_user(kEmail, kPassword);  // hashed with the same default cost

  auto [login_unknown, login_wrong] = login_failure_medians(authd, kEmail);
  // The comparison means something only if a hash costs clearly more than
  // the bound's absolute slack.
  EXPECT_GT(std::min(login_unknown, login_wrong), 5.0) << "the default hash is unexpectedly cheap";
  expect_indistinguishable("/login unknown e-mail vs wrong password", login_unknown, login_wrong);
  RecordProperty("login_unknown_ms", std::to_string(login_unknown));
  RecordProperty("login_wrong_password_ms", std::to_string(login_wrong));
}

// 6 /login 2 and 10.5 when the account's hash is of another kind than the
// server's: the account is hashed (by the CLI) under `account` argon2
// parameters, then the server restarts under `server` ones, as after an
// operator changed --argon2-*. A wrong password for it must take the time
// of an unknown e-mail, whose dummy hash has the server's parameters.
void expect_other_kind_answers_like_unknown(const std::vector<std::string>& account,
                                            const std::vector<std::string>& server) {
  const std::vector<std::string> limits = {"--login-email-limit", "10000/1m",
                                           "--login-client-limit", "10000/1m"};
  AuthdProcess before(limits);
  std::vector<std::string> add = {"user", "add", "--email", kEmail};
  add.insert(add.end(), account.begin(), account.end());
  std::string output;
  ASSERT_EQ(before.cli(add, kPassword, &output), 0) << output;
  before.stop();

  std::vector<std::string> args = limits;
  args.insert(args.end(), server.begin(), server.end());
  AuthdProcess authd(args, before.database_url());
  std::string kind = "$argon2id$v=19$m=" + account[1] + ",t=" + account[3] + ",p=1$";
  ASSERT_EQ(authd.sql("select password_hash from users").rfind(kind, 0), 0u);
  ASSERT_TRUE(wait_for_log(authd, "hash_kind_measured"));  // in the background

  auto [login_unknown, login_wrong] = login_failure_medians(authd, kEmail);
  EXPECT_GT(std::min(login_unknown, login_wrong), 5.0) << "hashes unexpectedly cheap";
  // Tighter than the same-kind test's bound: without the floor the two
  // differ by a factor of four or more, with it both wait for the same
  // floor and differ by noise only.
  expect_indistinguishable("/login unknown e-mail vs wrong password, stored hash of another kind",
                           login_unknown, login_wrong, 0.25);
  ::testing::Test::RecordProperty("login_unknown_ms", std::to_string(login_unknown));
  ::testing::Test::RecordProperty("login_wrong_password_ms", std::to_string(login_wrong));
  // Nothing changed the stored hash (a wrong password never re-hashes).
  EXPECT_EQ(authd.sql("select password_hash from users").rfind(kind, 0), 0u);
}

// The account's hash is several times cheaper to verify than the server's
// (4 MiB and one pass against the default 19 MiB and two: the operator
// raised the parameters, and the account has not logged in since).
TEST(Timing, Interface_6_Login_2_WrongPasswordForACheaperStoredHashTakesTheTimeOfAnUnknownEmail) {
  expect_other_kind_answers_like_unknown(
      {"--argon2-memory-kib", "4096", "--argon2-iterations", "1"},
      {"--argon2-memory-kib", "19456", "--argon2-iterations", "2"});
}

// The account's hash is several times dearer than the server's (the
// operator lowered the parameters, or the hash came from elsewhere).
TEST(Timing, Interface_6_Login_2_WrongPasswordForADearerStoredHashTakesTheTimeOfAnUnknownEmail) {
  expect_other_kind_answers_like_unknown(
      {"--argon2-memory-kib", "19456", "--argon2-iterations", "2"},
      {"--argon2-memory-kib", "4096", "--argon2-iterations", "1"});
}

// 6 /login 2 and 10.5 for a hash made by another system: the account is
// imported with `hash` (of kPassword) before the server starts, and its kind
// measured (in the background) before the rounds begin. A wrong password for it must take the
// time of an unknown e-mail, and change nothing.
void expect_imported_hash_answers_like_unknown(const std::string& hash) {
  const std::vector<std::string> limits = {"--login-email-limit", "10000/1m",
                                           "--login-client-limit", "10000/1m"};
  AuthdProcess before(limits);
  std::string output;
  std::string line = nlohmann::json{{"email", kEmail}, {"passwordHash", hash}}.dump() + "\n";
  ASSERT_EQ(before.cli({"user", "import", "-"}, line, &output), 0) << output;
  before.stop();

  AuthdProcess authd(limits, before.database_url());
  ASSERT_TRUE(wait_for_log(authd, "hash_kind_measured"));  // in the background
  auto [login_unknown, login_wrong] = login_failure_medians(authd, kEmail);
  EXPECT_GT(std::min(login_unknown, login_wrong), 5.0) << "hashes unexpectedly cheap";
  expect_indistinguishable("/login unknown e-mail vs wrong password, imported legacy hash",
                           login_unknown, login_wrong, 0.25);
  ::testing::Test::RecordProperty("login_unknown_ms", std::to_string(login_unknown));
  ::testing::Test::RecordProperty("login_wrong_password_ms", std::to_string(login_wrong));
  EXPECT_EQ(without_trailing_newlines(authd.sql("select password_hash from users")), hash);
}

// bcrypt at cost 10 (python3-bcrypt): dearer than the default argon2id.
TEST(Timing, Interface_10_5_WrongPasswordForABcryptAccountTakesTheTimeOfAnUnknownEmail) {
  expect_imported_hash_answers_like_unknown(
      "$2b$10$Yf2bbyVmEjbpXzx2ZSTaEOorWvzVqpTcHV25ermKxvqPSfSiVZ7hm");
}

// Django's PBKDF2-SHA256 at 1,000 iterations (hashlib): far cheaper than
// argon2id, the case an attacker would look for.
TEST(Timing, Interface_10_5_WrongPasswordForAPbkdf2AccountTakesTheTimeOfAnUnknownEmail) {
  expect_imported_hash_answers_like_unknown(
      "pbkdf2_sha256$1000$Zk7dyTcK1tq8wQ3P$41yaqlcijb6Fxs+6InpBmSbNrcB75iZpmRws2ZeimW4=");
}

// This test database commits without waiting for the WAL flush. On a
// shared virtual machine the flush takes from 0.1 to 5 ms and often ends
// on a kernel tick (4 ms), which would swallow the round trip the tests of
// /forgot and /signup must see; the statements, which are what differs
// between the cases, are unchanged. (A restart: the server's pooled
// connections were opened with the old setting.)
void commit_without_flush_on_postgres(AuthdProcess& authd) {
  if (!on_postgres()) return;
  authd.sql(
      "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = off', "
      "current_database()); END $$");
  authd.stop();
  authd.start();
}

// A request that names only an address and queues a mail for every one
// (/forgot, /signin/email) takes the same time for an address with an
// enabled account, one with a disabled account and one with none.
// `flags` lift the request's limits and hold its mails an hour; `mail_key`
// is the namespace of its mail-limit counter ("mail:reset:"). One
// connection for all three cases, so that they differ only by the address.
void expect_addresses_take_the_same_time(const std::vector<std::string>& flags,
                                         const std::string& path, const std::string& mail_key,
                                         const std::string& name) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), flags.begin(), flags.end());
  AuthdProcess authd(args);
  commit_without_flush_on_postgres(authd);
  authd.add_user(kEmail, kPassword);
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});

  const std::array<std::string, 3> bodies = {forgot_body(kEmail), forgot_body("carol@example.com"),
                                             forgot_body("nobody@example.com")};
  HttpConnection connection(authd.port());
  std::array<std::vector<double>, 3> samples;
  constexpr int kWarmUp = 50;
  constexpr int kRounds = 5000;
  for (int round = 0; round < kWarmUp + kRounds; ++round) {
    std::array<double, 3> ms{};
    for (int i = 0; i < 3; ++i) {
      auto which = static_cast<std::size_t>((round + i) % 3);  // rotating order
      ms[which] = timed_post(connection, path, bodies[which], 200);
    }
    if (round < kWarmUp) continue;
    for (std::size_t which = 0; which < 3; ++which) samples[which].push_back(ms[which]);
  }

  // Every request enqueued its mail, whatever the address (or the samples
  // would compare a write with a no-op): one mail-limit event each, written
  // with the outbox row. (Rows, not events, are counted by the worker: a
  // few mails fall due during the run, and the worker drops those of the
  // disabled and the unknown address.)
  const std::string each = "|" + std::to_string(kWarmUp + kRounds);
  EXPECT_EQ(lines(authd.sql("select key, count(*) from throttle_events where key like 'mail:%' "
                            "group by key order by key")),
            (std::vector<std::string>{mail_key + "alice@example.com" + each,
                                      mail_key + "carol@example.com" + each,
                                      mail_key + "nobody@example.com" + each}));

  PairedComparison enabled = compare_paired(samples[0], samples[2]);
  PairedComparison disabled = compare_paired(samples[1], samples[2]);
  ::testing::Test::RecordProperty(name + "_enabled_ms", std::to_string(median(samples[0])));
  ::testing::Test::RecordProperty(name + "_disabled_ms", std::to_string(median(samples[1])));
  ::testing::Test::RecordProperty(name + "_unknown_ms", std::to_string(median(samples[2])));
  ::testing::Test::RecordProperty(name + "_enabled_minus_unknown_ms",
                                  std::to_string(enabled.difference));
  ::testing::Test::RecordProperty(name + "_disabled_minus_unknown_ms",
                                  std::to_string(disabled.difference));
  ::testing::Test::RecordProperty(name + "_bound_ms", std::to_string(enabled.bound));
  expect_same_time(path + " enabled account vs no account", enabled);
  expect_same_time(path + " disabled account vs no account", disabled);
}

// 6 /forgot 2: an address with an enabled account, one with a disabled
// account and one with none cost the same statements, so the same time, on
// SQLite and on PostgreSQL (where one more statement is one more round
// trip). Every request here enqueues a mail (limits out of the way); the
// mails are due in up to an hour, so that the outbox worker's work stays
// out of the samples (the jitter that hides it from later requests is
// another matter:
// docs/design/threat-model/mail-and-signup.md#forgot-does-the-same-work-for-every-address).
TEST(Timing, Interface_6_Forgot_2_EnabledDisabledAndUnknownAddressesTakeTheSameTime) {
  expect_addresses_take_the_same_time(
      {"--forgot-client-limit", "10000/100ms", "--reset-mail-limit-short", "10000/100ms",
       "--reset-mail-limit-long", "10000/100ms", "--reset-mail-delay", "1h"},
      "/forgot", "mail:reset:", "forgot");
}

// 19.1: POST /signin/email for an address with an enabled account, one
// with a disabled account and one with none cost the same statements, so
// the same time, on SQLite and on PostgreSQL: the account is looked up
// only at delivery (here up to an hour away). Measured as /forgot's.
TEST(Timing, Interface_19_1_EmailSigninTakesTheSameTimeForEnabledDisabledAndUnknownAddresses) {
  expect_addresses_take_the_same_time(
      {"--email-signin", "on", "--email-signin-client-limit", "10000/100ms",
       "--email-signin-mail-limit-short", "10000/100ms", "--email-signin-mail-limit-long",
       "10000/100ms", "--reset-mail-delay", "1h"},
      "/signin/email", "mail:signin:", "email_signin");
}

// 11.4: a sign-up for an address that has an account and one for a new
// address cost the same: the password is hashed in both cases, and the
// same rows are queued (the account is looked up only at delivery, here
// an hour away), on SQLite and on PostgreSQL. Measured as /forgot's.
TEST(Timing, Interface_11_4_SignupTakesTheSameTimeForANewAndAnExistingAddress) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--signup", "open", "--signup-client-limit", "10000/100ms",
                           "--signup-mail-limit-short", "10000/100ms", "--signup-mail-limit-long",
                           "10000/100ms", "--reset-mail-delay", "1h"});
  AuthdProcess authd(args);
  commit_without_flush_on_postgres(authd);
  authd.add_user(kEmail, kPassword);

  auto body = [](const std::string& email) {
    return nlohmann::json{{"email", email}, {"password", "a sign-up passphrase"}}.dump();
  };
  const std::array<std::string, 2> bodies = {body(kEmail), body("newcomer@example.com")};
  HttpConnection connection(authd.port());
  std::array<std::vector<double>, 2> samples;
  constexpr int kWarmUp = 50;
  constexpr int kRounds = 4000;
  for (int round = 0; round < kWarmUp + kRounds; ++round) {
    std::array<double, 2> ms{};
    for (int i = 0; i < 2; ++i) {
      auto which = static_cast<std::size_t>((round + i) % 2);  // rotating order
      ms[which] = timed_post(connection, "/signup", bodies[which], 200);
    }
    if (round < kWarmUp) continue;
    for (std::size_t which = 0; which < 2; ++which) samples[which].push_back(ms[which]);
  }

  // Every request queued its sign-up, whatever the address.
  const std::size_t each = kWarmUp + kRounds;
  EXPECT_EQ(lines(authd.sql("select key, count(*) from throttle_events where key like 'mail:%' "
                            "group by key order by key")),
            (std::vector<std::string>{"mail:signup:alice@example.com|" + std::to_string(each),
                                      "mail:signup:newcomer@example.com|" + std::to_string(each)}));

  PairedComparison existing = compare_paired(samples[0], samples[1]);
  RecordProperty("signup_existing_ms", std::to_string(median(samples[0])));
  RecordProperty("signup_new_ms", std::to_string(median(samples[1])));
  RecordProperty("signup_existing_minus_new_ms", std::to_string(existing.difference));
  RecordProperty("signup_bound_ms", std::to_string(existing.bound));
  expect_same_time("/signup existing account vs new address", existing);
}

}  // namespace
}  // namespace authd::test

namespace authd::test {
namespace {

// interface.md 12.3: for an account with a second factor, a wrong code
// and no code after the right password cost the same as each other and as
// a wrong password: the 401 leaves at the floor in every case, so that the
// factor shows only in the header of a right password's answer.
TEST(Timing, Interface_12_3_WrongCodeMissingCodeAndWrongPasswordTakeTheSameTime) {
  AuthdProcess authd({"--login-email-limit", "10000/1m", "--login-client-limit", "10000/1m"});
  Enrolled enrolled = enrolled_account(authd);
  ASSERT_FALSE(enrolled.secret.empty());
  const std::string bodies[] = {
      nlohmann::json{{"email", kEmail}, {"password", "a wrong password"}, {"otp", "000000"}}.dump(),
      nlohmann::json{{"email", kEmail}, {"password", kPassword}}.dump(),
      nlohmann::json{{"email", kEmail}, {"password", kPassword}, {"otp", "000000"}}.dump(),
  };
  std::array<std::unique_ptr<HttpConnection>, 3> connections;
  for (auto& c : connections) c = std::make_unique<HttpConnection>(authd.port());
  std::array<std::vector<double>, 3> samples;
  constexpr int kWarmUp = 3;
  constexpr int kRounds = 31;
  for (int round = 0; round < kWarmUp + kRounds; ++round) {
    for (int i = 0; i < 3; ++i) {
      auto which = static_cast<std::size_t>((round + i) % 3);  // rotating order
      double ms = timed_post(*connections[which], "/login", bodies[which], 401);
      if (round >= kWarmUp) samples[which].push_back(ms);
    }
  }
  double wrong_password = median(samples[0]);
  double missing_code = median(samples[1]);
  double wrong_code = median(samples[2]);
  EXPECT_GT(std::min({wrong_password, missing_code, wrong_code}), 5.0)
      << "hashes unexpectedly cheap";
  expect_indistinguishable("/login missing code vs wrong code", missing_code, wrong_code, 0.25);
  expect_indistinguishable("/login wrong password vs missing code", wrong_password, missing_code,
                           0.25);
  RecordProperty("login_wrong_password_ms", std::to_string(wrong_password));
  RecordProperty("login_missing_code_ms", std::to_string(missing_code));
  RecordProperty("login_wrong_code_ms", std::to_string(wrong_code));
}

}  // namespace
}  // namespace authd::test
