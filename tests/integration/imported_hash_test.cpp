// Password hashes imported from other systems (interface.md 10.5), through
// `authd user import` (10.6), on the real server, for every family of
// formats: each verifies on /login, the first success replaces it with
// argon2id (4.2) and a wrong password changes nothing; every imported kind
// is measured for the login floor (in the background); and a hash
// over a cap, malformed, or no hash at all is refused with a reason that
// never holds any of it. legacy_hash_login_test.cpp has bcrypt and Django's
// PBKDF2 in more detail, timing_test.cpp the time of their wrong passwords.
//
// The hashes are passlib's (Debian python3-passlib) for kPassword.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {
// Named, so that nothing here collides with the helpers of the tests
// compiled in the same unity batch.
namespace imported {

struct Hash {
  std::string hash;
  std::string kind;
};

const std::vector<Hash> kEveryFamily = {
    {"$2y$04$ExfJETrcfdPTNKC2MMqR/.CB5qbpendykRQQBVGM4CACRlFKg1ry2", "$2y$04"},
    {"$6$RPFPWmkXu89x1Nnu$8Aiskluj4RQf6ulrHWzXiMj31x6/"
     "iRAjHwWUUhprtqhsWuYuThY0uwbXCwStIXJZMYuz4fQxkOhsMld3jmTmr1",
     "$6$rounds=5000"},
    {"pbkdf2_sha256$1000$wApWEtjM7xpq$b4ni+rxGOSVotDRpzED1kqFeDJVodW3iPfAfh4MCbYI=",
     "pbkdf2_sha256$1000"},
    {"$scrypt$ln=6,r=8,p=1$A6C0FsJ4L0WIEcJ47/1faw$IcitrV8fI48XQD/Tf7TzJXPDTVKKDm7eLHB4qhHiTY4",
     "$scrypt$ln=6,r=8,p=1"},
    {"$argon2d$v=19$m=256,t=1,p=2$U0ppjbG2llJKKSWEsBYi5A$LVOCXOwyLrjqFznDEdf0Fw",
     "$argon2d$v=19$m=256,t=1,p=1"},  // lanes make no kind of their own
};

std::string email_of(std::size_t i) { return "imported" + std::to_string(i) + "@example.com"; }

std::string line_of(const std::string& email, const std::string& hash) {
  return nlohmann::json{{"email", email}, {"passwordHash", hash}}.dump() + "\n";
}

std::string stored(const AuthdProcess& authd, const std::string& email) {
  return without_trailing_newlines(
      authd.sql("SELECT password_hash FROM users WHERE email = '" + email + "'"));
}

int status_of_login(const AuthdProcess& authd, const std::string& email,
                    const std::string& password) {
  return post_json(authd.port(), "/login", login_body(email, password)).status;
}

// The log line of `event` whose `kind` is `kind`, or null.
nlohmann::json log_line_of_kind(const AuthdProcess& authd, const std::string& event,
                                const std::string& kind) {
  for (const nlohmann::json& line : log_lines(authd))
    if (line.value("event", "") == event && line.value("kind", "") == kind) return line;
  return nullptr;
}

// The same, waited for (bounded): kinds are measured in the background.
nlohmann::json wait_for_kind(const AuthdProcess& authd, const std::string& event,
                             const std::string& kind) {
  for (int i = 0; i < 750; ++i) {
    nlohmann::json line = log_line_of_kind(authd, event, kind);
    if (!line.is_null()) return line;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return nullptr;
}

}  // namespace imported

TEST(ImportedHash, Interface_10_5_EveryFamilyImportedLogsInAndIsReplacedByArgon2id) {
  AuthdProcess before(fast_hashing());
  std::string lines;
  for (std::size_t i = 0; i < imported::kEveryFamily.size(); ++i)
    lines += imported::line_of(imported::email_of(i), imported::kEveryFamily[i].hash);
  std::string output;
  ASSERT_EQ(before.cli({"user", "import", "-"}, lines, &output), 0) << output;
  EXPECT_NE(output.find("created 5, existing 0, invalid 0"), std::string::npos) << output;
  before.stop();

  // Restarted: every imported kind is measured, in the background. Each
  // wrong password below counts its kind's cost in failures, dozens of
  // times the tiny argon2id of fast_hashing(): the limits make room.
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(),
              {"--login-email-limit", "100000/15m", "--login-client-limit", "100000/15m"});
  AuthdProcess authd(args, before.database_url());
  ASSERT_TRUE(wait_for_log(authd, "\"listening\""));
  for (std::size_t i = 0; i < imported::kEveryFamily.size(); ++i) {
    const imported::Hash& hash = imported::kEveryFamily[i];
    const std::string email = imported::email_of(i);
    SCOPED_TRACE(hash.kind);
    EXPECT_EQ(imported::stored(authd, email), hash.hash) << "stored as it is";
    nlohmann::json measured = imported::wait_for_kind(authd, "hash_kind_measured", hash.kind);
    ASSERT_FALSE(measured.is_null()) << authd.log_text();
    EXPECT_GT(measured["relative_cost"].get<double>(), 0.0);

    // A wrong password: 401, and the hash stays as it was.
    EXPECT_EQ(imported::status_of_login(authd, email, "not the password"), 401);
    EXPECT_EQ(imported::stored(authd, email), hash.hash);
    // The right one: 200, and the hash is now argon2id of the server's parameters.
    EXPECT_EQ(imported::status_of_login(authd, email, kPassword), 200);
    std::string replaced = imported::stored(authd, email);
    EXPECT_EQ(replaced.rfind("$argon2id$v=19$m=64,t=1,p=1$", 0), 0u) << replaced;
    EXPECT_EQ(imported::status_of_login(authd, email, kPassword), 200);
    EXPECT_EQ(imported::stored(authd, email), replaced) << "re-hashed once only";
  }
  // Nothing of a salt or digest reached the log.
  for (const imported::Hash& hash : imported::kEveryFamily) {
    std::string digest = hash.hash.substr(hash.hash.rfind('$') + 1);
    EXPECT_EQ(authd.log_text().find(digest.substr(0, 12)), std::string::npos) << hash.kind;
  }
}

// An import's invalid lines name the format and the problem, and never any
// part of the hash (nor a password put where a hash belongs).
TEST(ImportedHash, Interface_10_5_HashesOverACapOrMalformedAreRefusedWithoutBeingEchoed) {
  const std::string bcrypt_salt = "ExfJETrcfdPTNKC2MMqR/.";
  const std::string bcrypt_digest = "CB5qbpendykRQQBVGM4CACRlFKg1ry2";
  const std::string scrypt_salt = "A6C0FsJ4L0WIEcJ47/1faw";
  const std::string scrypt_digest = "IcitrV8fI48XQD/Tf7TzJXPDTVKKDm7eLHB4qhHiTY4";
  const std::string import_text =
      imported::line_of("a@example.com", "$2y$16$" + bcrypt_salt + bcrypt_digest) +
      imported::line_of("b@example.com",
                        "$scrypt$ln=19,r=8,p=1$" + scrypt_salt + "$" + scrypt_digest) +
      imported::line_of("c@example.com", "$2y$04$" + bcrypt_salt + bcrypt_digest.substr(0, 20)) +
      imported::line_of("d@example.com", kPassword) +
      imported::line_of("e@example.com", "$2y$04$" + bcrypt_salt + bcrypt_digest);
  AuthdProcess authd(fast_hashing());
  std::string output;
  EXPECT_EQ(authd.cli({"user", "import", "-"}, import_text, &output), 1) << output;
  for (const char* expected : {"line 1: passwordHash: bcrypt cost 16 is over the cap of 15",
                               "line 2: passwordHash: scrypt memory (128 x r x N bytes) 512 MiB is "
                               "over the cap of 256 MiB",
                               "line 3: passwordHash: bcrypt salt and digest are not 53 characters",
                               "line 4: passwordHash: hash has characters no supported format has",
                               "created 1, existing 0, invalid 4"})
    EXPECT_NE(output.find(expected), std::string::npos) << expected << "\n" << output;
  for (const std::string& secret :
       {bcrypt_salt, bcrypt_digest, scrypt_salt, scrypt_digest, std::string("horse battery")}) {
    for (std::size_t i = 0; i + 6 <= secret.size(); ++i)
      EXPECT_EQ(output.find(secret.substr(i, 6)), std::string::npos) << secret << "\n" << output;
  }
  EXPECT_EQ(imported::stored(authd, "e@example.com"), "$2y$04$" + bcrypt_salt + bcrypt_digest);
  EXPECT_EQ(lines(authd.sql("SELECT kind FROM password_hash_kinds")),
            std::vector<std::string>{"$2y$04"});
}

}  // namespace
}  // namespace authd::test
