// Password hashes imported from other systems (interface.md 10.5) on the
// real server: a stored hash of each format verifies on /login and is
// replaced by argon2id on the first success (4.2), never on a wrong
// password; its kind is measured for the login floor before the server
// listens; and a wrong password for it takes the time of an unknown e-mail
// (6 /login 2). The admin API and `authd user import` that will store such
// hashes are not built here: the tests write the hash, and its kind, into
// the database as the store does for them.
//
// The hashes are passlib's (Debian python3-passlib) for kPassword.
#include <algorithm>
#include <array>
#include <chrono>
#include <memory>

#include "contract_support.hpp"
#include "harness.hpp"
#include "timing_statistics.hpp"

namespace authd::test {
namespace {

struct Imported {
  std::string hash;
  std::string kind;
};

const std::vector<Imported> kImported = {
    {"$2y$04$ExfJETrcfdPTNKC2MMqR/.CB5qbpendykRQQBVGM4CACRlFKg1ry2", "$2y$04"},
    {"$6$RPFPWmkXu89x1Nnu$8Aiskluj4RQf6ulrHWzXiMj31x6/"
     "iRAjHwWUUhprtqhsWuYuThY0uwbXCwStIXJZMYuz4fQxkOhsMld3jmTmr1",
     "$6$rounds=5000"},
    {"pbkdf2_sha256$1000$wApWEtjM7xpq$b4ni+rxGOSVotDRpzED1kqFeDJVodW3iPfAfh4MCbYI=",
     "pbkdf2_sha256$1000"},
    {"$scrypt$ln=6,r=8,p=1$A6C0FsJ4L0WIEcJ47/1faw$IcitrV8fI48XQD/Tf7TzJXPDTVKKDm7eLHB4qhHiTY4",
     "$scrypt$ln=6,r=8,p=1"},
    {"$argon2d$v=19$m=256,t=1,p=2$U0ppjbG2llJKKSWEsBYi5A$LVOCXOwyLrjqFznDEdf0Fw",
     "$argon2d$v=19$m=256,t=1,p=2"},
};

std::string email_of(std::size_t i) { return "imported" + std::to_string(i) + "@example.com"; }

// Stores `hash` as the password hash of `email`, and its kind, as the
// store does when it writes a hash (SQL both dialects share).
void import_hash(const AuthdProcess& authd, const std::string& email, const Imported& imported) {
  authd.sql("UPDATE users SET password_hash = '" + imported.hash + "' WHERE email = '" + email +
            "'");
  authd.sql("INSERT INTO password_hash_kinds (kind) VALUES ('" + imported.kind +
            "') ON CONFLICT (kind) DO NOTHING");
}

std::string stored_hash(const AuthdProcess& authd, const std::string& email) {
  return without_trailing_newlines(
      authd.sql("SELECT password_hash FROM users WHERE email = '" + email + "'"));
}

// The log line of `event` whose `kind` is `kind`, or null.
nlohmann::json measured_line(const AuthdProcess& authd, const std::string& event,
                             const std::string& kind) {
  for (const nlohmann::json& line : log_lines(authd))
    if (line.value("event", "") == event && line.value("kind", "") == kind) return line;
  return nullptr;
}

TEST(ImportedHash, Interface_10_5_AnImportedHashVerifiesAndTheFirstLoginReplacesItWithArgon2id) {
  AuthdProcess before(fast_hashing());
  for (std::size_t i = 0; i < kImported.size(); ++i) {
    before.add_user(email_of(i), "a placeholder password");
    import_hash(before, email_of(i), kImported[i]);
  }
  before.stop();

  // Restarted: every imported kind is measured before the server listens.
  AuthdProcess authd(fast_hashing(), before.database_url());
  ASSERT_TRUE(wait_for_log(authd, "\"listening\""));
  for (std::size_t i = 0; i < kImported.size(); ++i) {
    const Imported& imported = kImported[i];
    SCOPED_TRACE(imported.kind);
    nlohmann::json measured = measured_line(authd, "hash_kind_measured", imported.kind);
    ASSERT_FALSE(measured.is_null()) << authd.log_text();
    EXPECT_GT(measured["relative_cost"].get<double>(), 0.0);

    // A wrong password: 401, and the hash stays as it was.
    EXPECT_TRUE(authd.login(email_of(i), "not the password").empty());
    EXPECT_EQ(stored_hash(authd, email_of(i)), imported.hash);
    // The right one: 200, and the hash is now argon2id of the server's parameters.
    EXPECT_FALSE(authd.login(email_of(i), kPassword).empty());
    std::string replaced = stored_hash(authd, email_of(i));
    EXPECT_EQ(replaced.rfind("$argon2id$v=19$m=64,t=1,p=1$", 0), 0u) << replaced;
    EXPECT_FALSE(authd.login(email_of(i), kPassword).empty());
    EXPECT_EQ(stored_hash(authd, email_of(i)), replaced) << "re-hashed once only";
  }
  // Nothing of a salt or digest reached the log.
  for (const Imported& imported : kImported) {
    std::string digest = imported.hash.substr(imported.hash.rfind('$') + 1);
    EXPECT_EQ(authd.log_text().find(digest.substr(0, 12)), std::string::npos) << imported.kind;
  }
}

// Time of one request on a keep-alive connection, in milliseconds.
double timed_login(HttpConnection& connection, const std::string& body) {
  auto started = std::chrono::steady_clock::now();
  HttpResponse res =
      connection.request("POST", "/login", {{"Content-Type", "application/json"}}, body);
  auto elapsed =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(res.status, 401) << res.body;
  return elapsed;
}

// 6 /login 2 with an imported hash of `imported` kind beside the server's
// default argon2id (19 MiB, t = 2): a wrong password for it and an unknown
// e-mail, interleaved, medians within a quarter of the larger plus 2 ms (as
// timing_test.cpp compares argon2 kinds).
void expect_imported_answers_like_unknown(const Imported& imported) {
  const std::vector<std::string> args = {"--login-email-limit", "10000/1m", "--login-client-limit",
                                         "10000/1m"};
  AuthdProcess before(args);
  before.add_user(kEmail, "a placeholder password");
  import_hash(before, kEmail, imported);
  before.stop();
  AuthdProcess authd(args, before.database_url());
  ASSERT_TRUE(wait_for_log(authd, "\"listening\""));
  ASSERT_FALSE(measured_line(authd, "hash_kind_measured", imported.kind).is_null());

  const std::array<std::string, 2> bodies = {login_body("nobody@example.com", "a wrong password"),
                                             login_body(kEmail, "a wrong password")};
  std::array<std::unique_ptr<HttpConnection>, 2> connections;
  for (auto& c : connections) c = std::make_unique<HttpConnection>(authd.port());
  std::array<std::vector<double>, 2> samples;
  constexpr int kWarmUp = 3;
  constexpr int kRounds = 41;
  for (int round = 0; round < kWarmUp + kRounds; ++round) {
    for (int i = 0; i < 2; ++i) {
      auto which = static_cast<std::size_t>((round + i) % 2);  // rotating order
      double ms = timed_login(*connections[which], bodies[which]);
      if (round >= kWarmUp) samples[which].push_back(ms);
    }
  }
  double unknown = median(samples[0]);
  double wrong = median(samples[1]);
  EXPECT_GT(std::min(unknown, wrong), 5.0) << "hashes unexpectedly cheap";
  EXPECT_LE(std::abs(unknown - wrong), 0.25 * std::max(unknown, wrong) + 2.0)
      << "medians " << unknown << " ms (unknown e-mail) and " << wrong << " ms (wrong password)";
  ::testing::Test::RecordProperty("login_unknown_ms", std::to_string(unknown));
  ::testing::Test::RecordProperty("login_wrong_password_ms", std::to_string(wrong));
  EXPECT_EQ(stored_hash(authd, kEmail), imported.hash) << "a wrong password never re-hashes";
}

// SHA-512-crypt with 5000 rounds: a few milliseconds, several times cheaper
// than the server's argon2id.
TEST(ImportedHash,
     Interface_6_Login_2_WrongPasswordForACheaperImportedHashTakesTheTimeOfAnUnknownEmail) {
  expect_imported_answers_like_unknown(
      {"$6$RPFPWmkXu89x1Nnu$8Aiskluj4RQf6ulrHWzXiMj31x6/"
       "iRAjHwWUUhprtqhsWuYuThY0uwbXCwStIXJZMYuz4fQxkOhsMld3jmTmr1",
       "$6$rounds=5000"});
}

// bcrypt cost 10: several times dearer than the server's argon2id.
TEST(ImportedHash,
     Interface_6_Login_2_WrongPasswordForADearerImportedHashTakesTheTimeOfAnUnknownEmail) {
  expect_imported_answers_like_unknown(
      {"$2b$10$vvA/jczdt.s1K88WvyH6Xe9V3WONc8acxKCH47bBVsdfJo/HB/.Zu", "$2b$10"});
}

}  // namespace
}  // namespace authd::test
