// Logging in with a password hash made by another system (interface.md
// 10.5): accounts imported with their bcrypt or Django PBKDF2 hash log in
// with their password, and the first success replaces the hash with an
// argon2id one of the server's parameters; a wrong password changes
// nothing. The vectors were made by independent implementations
// (python3-bcrypt, hashlib.pbkdf2_hmac in Django's format); the unit tests
// of crypto/legacy_hash cover every format. The timing of wrong passwords
// for such accounts is timing_test.cpp's.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// Both of kPassword ("correct horse battery staple").
const std::string kBcrypt = "$2b$10$Yf2bbyVmEjbpXzx2ZSTaEOorWvzVqpTcHV25ermKxvqPSfSiVZ7hm";
const std::string kDjangoPbkdf2 =
    "pbkdf2_sha256$1000$Zk7dyTcK1tq8wQ3P$41yaqlcijb6Fxs+6InpBmSbNrcB75iZpmRws2ZeimW4=";

std::string import_line(const std::string& email, const std::string& hash) {
  return nlohmann::json{{"email", email}, {"passwordHash", hash}}.dump() + "\n";
}

std::string stored_hash(const AuthdProcess& authd, const std::string& email) {
  return without_trailing_newlines(
      authd.sql("select password_hash from users where email = '" + email + "'"));
}

HttpResponse log_in(const AuthdProcess& authd, const std::string& email,
                    const std::string& password) {
  return post_json(authd.port(), "/login",
                   nlohmann::json{{"email", email}, {"password", password}}.dump());
}

TEST(LegacyHashes, Interface_10_5_ImportedAccountsLogInAndTheFirstSuccessUpgradesToArgon2id) {
  AuthdProcess authd(fast_hashing());
  std::string output;
  ASSERT_EQ(
      authd.cli({"user", "import", "-"},
                import_line("b@example.com", kBcrypt) + import_line("d@example.com", kDjangoPbkdf2),
                &output),
      0)
      << output;
  EXPECT_NE(output.find("created 2, existing 0, invalid 0"), std::string::npos) << output;
  for (const std::string email : {"b@example.com", "d@example.com"}) {
    SCOPED_TRACE(email);
    EXPECT_EQ(stored_hash(authd, email).rfind("$argon2id$", 0), std::string::npos);
    HttpResponse ok = log_in(authd, email, kPassword);
    EXPECT_EQ(ok.status, 200) << ok.body;
    EXPECT_EQ(stored_hash(authd, email).rfind("$argon2id$v=19$", 0), 0u);
    // The upgraded hash still takes the password.
    EXPECT_EQ(log_in(authd, email, kPassword).status, 200);
  }
}

TEST(LegacyHashes, Interface_10_5_AWrongPasswordNeverChangesALegacyHash) {
  // A wrong password at bcrypt counts its cost in failures, hundreds of
  // times the tiny argon2id of fast_hashing() (10.5): the limits make room.
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(),
              {"--login-email-limit", "100000/15m", "--login-client-limit", "100000/15m"});
  AuthdProcess authd(args);
  std::string output;
  ASSERT_EQ(authd.cli({"user", "import", "-"}, import_line("b@example.com", kBcrypt), &output), 0)
      << output;
  EXPECT_EQ(log_in(authd, "b@example.com", "not the password").status, 401);
  EXPECT_EQ(log_in(authd, "b@example.com", kPassword.substr(1)).status, 401);
  EXPECT_EQ(stored_hash(authd, "b@example.com"), kBcrypt);
}

}  // namespace
}  // namespace authd::test
