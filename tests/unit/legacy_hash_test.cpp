// crypto/legacy_hash: password hashes imported from other systems
// (interface.md 10.5): every accepted format verifies hashes made by
// independent implementations (passlib, python-bcrypt, argon2-cffi, Django's
// format through hashlib, mkpasswd, libsodium), and passlib verifies the
// hashes authd makes of every kind; costs are capped; a refused hash is
// never echoed; a match is re-hashed with argon2id (4.2), a wrong password
// never is.
//
// The vectors: tests/support/legacy_hashes.tsv, made by
// tests/support/make_legacy_hashes.py, which these tests also run afresh.
#include <gtest/gtest.h>

#include <crypt.h>
#include <sodium.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "crypto/hash_kind.hpp"
#include "crypto/legacy_hash.hpp"
#include "crypto/password_hasher.hpp"
#include "source_paths.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;

// Other than every argon2id vector's parameters: each match is re-hashed.
const Argon2Params kCurrent{256, 1};
const std::string kCurrentPrefix = "$argon2id$v=19$m=256,t=1,p=1$";
const std::string kScript = test::source_path("tests/support/make_legacy_hashes.py");
const std::string kFixture = test::source_path("tests/support/legacy_hashes.tsv");

struct Vector {
  std::string source;  // who made it
  std::string password;
  std::string hash;
};

std::vector<Vector> parse_vectors(const std::string& text) {
  std::vector<Vector> vectors;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t first = line.find('\t');
    std::size_t second = line.find('\t', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    vectors.push_back({line.substr(0, first), line.substr(first + 1, second - first - 1),
                       line.substr(second + 1)});
  }
  return vectors;
}

// Runs Debian's python3 (where python3-passlib is, not a pyenv shim) on the
// script with `args`, `input` on stdin (passwords stay out of argv); its
// exit status and stdout.
std::pair<int, std::string> run_script(const std::string& args, const std::string& input) {
  fs::path file = fs::temp_directory_path() / ("authd-legacy-" + std::to_string(::getpid()));
  std::ofstream(file) << input;
  std::string command = "/usr/bin/python3 " + kScript + " " + args + " < " + file.string();
  std::FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[512];
  while (pipe != nullptr && std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  int status = pipe != nullptr ? ::pclose(pipe) : -1;
  fs::remove(file);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The checks every vector passes: accepted for import, has a kind, the
// right password matches and is re-hashed with argon2id, a wrong one does
// not match and changes nothing.
void expect_vector_verifies(const PasswordHasher& hasher, const Vector& v) {
  SCOPED_TRACE(v.source + ": " + v.hash);
  EXPECT_EQ(imported_hash_problem(v.hash), std::nullopt);
  EXPECT_TRUE(password_hash_kind(v.hash).has_value());
  VerifyResult right = hasher.verify(v.password, v.hash);
  EXPECT_TRUE(right.matches);
  EXPECT_EQ(right.upgraded_hash.rfind(kCurrentPrefix, 0), 0u) << right.upgraded_hash;
  EXPECT_TRUE(hasher.verify(v.password, right.upgraded_hash).matches);
  for (const std::string& wrong : {v.password + "!", std::string("wrong password")}) {
    VerifyResult result = hasher.verify(wrong, v.hash);
    EXPECT_FALSE(result.matches) << wrong;
    EXPECT_TRUE(result.upgraded_hash.empty()) << wrong;
  }
}

// Every source of make_legacy_hashes.py, so that a vector lost from the
// fixture (or the script) shows.
void expect_every_source(const std::vector<Vector>& vectors) {
  std::set<std::string> sources;
  for (const Vector& v : vectors) sources.insert(v.source);
  EXPECT_EQ(sources.size(), 25u);
}

TEST(LegacyHash, Interface_10_5_CommittedVectorsOfIndependentImplementationsVerify) {
  PasswordHasher hasher(kCurrent);
  std::vector<Vector> vectors = parse_vectors(read_file(kFixture));
  expect_every_source(vectors);
  for (const Vector& v : vectors) expect_vector_verifies(hasher, v);
}

// The same with vectors made now, with fresh salts (about 2 s).
TEST(LegacyHash, Interface_10_5_FreshVectorsOfIndependentImplementationsVerify) {
  auto [status, out] = run_script("", "");
  ASSERT_NE(status, 3) << "apt-get install python3-passlib python3-bcrypt python3-argon2 whois";
  ASSERT_EQ(status, 0) << out;
  PasswordHasher hasher(kCurrent);
  std::vector<Vector> vectors = parse_vectors(out);
  expect_every_source(vectors);
  for (const Vector& v : vectors) expect_vector_verifies(hasher, v);
}

// libsodium's own "$7$" (escrypt), another implementation than libxcrypt's.
TEST(LegacyHash, Interface_10_5_LibsodiumScryptHashesVerify) {
  const std::string password = "correct horse battery staple";
  char made[crypto_pwhash_scryptsalsa208sha256_STRBYTES];
  ASSERT_EQ(crypto_pwhash_scryptsalsa208sha256_str(made, password.data(), password.size(),
                                                   crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_MIN,
                                                   crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_MIN),
            0);
  PasswordHasher hasher(kCurrent);
  expect_vector_verifies(hasher, {"libsodium $7$", password, made});
}

// One kind of every format, cheap to verify, as password_hash_kind() writes them.
const std::vector<std::string> kKinds = {"$argon2id$v=19$m=64,t=1,p=2",
                                         "$argon2i$v=19$m=64,t=1,p=1",
                                         "$argon2d$v=19$m=64,t=1,p=1",
                                         "$argon2id$v=16$m=64,t=2,p=1",
                                         "$2a$04",
                                         "$2b$05",
                                         "$2y$04",
                                         "$7$46..../....",
                                         "$scrypt$ln=6,r=8,p=1",
                                         "$scrypt$ln=4,r=4,p=2",
                                         "pbkdf2_sha256$1000",
                                         "pbkdf2_sha1$1000",
                                         "$pbkdf2-sha256$1000",
                                         "$pbkdf2-sha512$1000",
                                         "$5$rounds=5000",
                                         "$5$rounds=1000",
                                         "$6$rounds=1000"};

// The login floor measures each stored kind on a hash of that kind
// (auth/login/hash_kinds_watch.hpp): hash_of_kind makes one of every kind, which
// reads back to that kind and verifies.
// An argon2 kind as the store writes it: lanes as one (they change nothing
// of the cost).
std::string lanes_as_one(const std::string& kind) {
  if (!kind.starts_with("$argon2")) return kind;
  return kind.substr(0, kind.rfind(",p=")) + ",p=1";
}

TEST(LegacyHash, Interface_10_5_AHashOfEveryKindCanBeMadeAndVerifies) {
  PasswordHasher hasher(kCurrent);
  for (const std::string& kind : kKinds) {
    SCOPED_TRACE(kind);
    std::optional<std::string> made = hasher.hash_of_kind(kind, "some password");
    ASSERT_TRUE(made.has_value());
    EXPECT_EQ(password_hash_kind(*made), lanes_as_one(kind)) << *made;
    EXPECT_EQ(imported_hash_problem(*made), std::nullopt) << *made;
    EXPECT_TRUE(hasher.verify("some password", *made).matches) << *made;
    EXPECT_FALSE(hasher.verify("some passwore", *made).matches) << *made;
    EXPECT_NE(hasher.hash_of_kind(kind, "some password"), made) << "a fresh salt each time";
  }
}

// The other direction: passlib (and, for Django's format, passlib's Django
// handlers) verifies the hashes authd makes of every kind.
TEST(LegacyHash, Interface_10_5_PasslibVerifiesTheHashesAuthdMakes) {
  PasswordHasher hasher(kCurrent);
  std::string input;
  for (const std::string& kind : kKinds) {
    std::optional<std::string> made = hasher.hash_of_kind(kind, "p\xC3\xA4ssword");
    ASSERT_TRUE(made.has_value()) << kind;
    input += "p\xC3\xA4ssword\t" + *made + "\n";
    input += "p\xC3\xA4sswore\t" + *made + "\n";
  }
  auto [status, out] = run_script("--verify", input);
  ASSERT_NE(status, 3) << "apt-get install python3-passlib python3-bcrypt python3-argon2";
  ASSERT_EQ(status, 0) << out;
  std::string expected;
  for (std::size_t i = 0; i < kKinds.size(); ++i) expected += "1\n0\n";
  EXPECT_EQ(out, expected) << input;
}

// The kind is the algorithm and cost alone: never the salt or the digest.
TEST(LegacyHash, Interface_10_5_KindIsAlgorithmAndCostNeverSaltOrDigest) {
  struct Case {
    std::string hash;
    std::string kind;
    std::string salt;
  };
  const std::vector<Case> cases = {
      {"$argon2d$v=19$m=64,t=1,p=2$s3auNaYUQqj1HuMco1TKeQ$msVXoGVNUT8tkfhNNHrPyg",
       "$argon2d$v=19$m=64,t=1,p=2", "s3auNaYUQqj1HuMco1TKeQ"},
      {"$2y$04$6qXKdIkf.rHTPdwCiQ9CCe.J1Jioa6NvJXP1ExoqlUwO76pPCpkOS", "$2y$04",
       "6qXKdIkf.rHTPdwCiQ9CCe"},
      {"$2a$05$DpIxdH.GbRhgsmsfaa142.qOAcdin0VIZZ1f.Y0nEbT.jCUHiM0lm", "$2a$05",
       "DpIxdH.GbRhgsmsfaa142."},
      {"$7$46..../.....fA6dw4IPvydNc85iioG2//m$/A7elVxix.tjYq8CIBh6BjsmbXKwwIT5uXhFCfS5436",
       "$7$46..../....", ".fA6dw4IPvydNc85iioG2//m"},
      {"$scrypt$ln=6,r=8,p=1$JsT4n5Nybu3du7d2rnXOWQ$oiw6p+DX8Oi+K+5fG+O/DVnHi0yStmcJeUiE2/mD350",
       "$scrypt$ln=6,r=8,p=1", "JsT4n5Nybu3du7d2rnXOWQ"},
      {"pbkdf2_sha256$1000$VK3FSTHMXCCY$XTEoR74qlo/HImo1QSHMMDnJVNCgmNF4mnxQR/VcELE=",
       "pbkdf2_sha256$1000", "VK3FSTHMXCCY"},
      {"pbkdf2_sha1$1000$D3HQTKKGVIXY$HVxUe8MVGHbVEp1zrJBhkoUO86E=", "pbkdf2_sha1$1000",
       "D3HQTKKGVIXY"},
      {"$pbkdf2-sha256$1000$h5By7n2PMWbsHWPMGaOUUg$cLkRAH/bkBDR8I7hPgrO87nTkzi/iuYcHEu/m94PHzg",
       "$pbkdf2-sha256$1000", "h5By7n2PMWbsHWPMGaOUUg"},
      {"$pbkdf2-sha512$1000$.F/LGaO09v5/L2WsNQagdA$XAE8JkfqaznIR9bFflaW8PzK7hbKderbVFEGAdHoA/"
       "y7BzAmtuJlzKpoacV.EqXiwxvKGNgzHZMBE8qd7cT4yg",
       "$pbkdf2-sha512$1000", ".F/LGaO09v5/L2WsNQagdA"},
      {"$5$rounds=1000$2C4bB9p5K8Q0d3un$/sZTLiDu5avALSxpPjFFLzMZqWwjuv3kzeA0.XiqCU4",
       "$5$rounds=1000", "2C4bB9p5K8Q0d3un"},
      // No "rounds=": SHA-crypt's 5000, written out.
      {"$5$1HhD70JAbsPiM3yv$19IyjPwv6RBVC1hAjxnh39FkA2kWC4.s9ZU44/tIBX5", "$5$rounds=5000",
       "1HhD70JAbsPiM3yv"},
      {"$6$rounds=1000$D.vGDWq..eZjLVYh$bCX1gzBP6xj7a.vk0W8yQY/1RqwDTTrw.fRLw4m3StN/"
       "tnFYdnoHYFqYFkIKMztjPL4mzAyfFeZ72sH9emOnT/",
       "$6$rounds=1000", "D.vGDWq..eZjLVYh"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(password_hash_kind(c.hash), lanes_as_one(c.kind)) << c.hash;
    ASSERT_NE(c.hash.find(c.salt), std::string::npos) << c.hash;
    for (std::size_t i = 0; i + 4 <= c.salt.size(); ++i)
      EXPECT_EQ(c.kind.find(c.salt.substr(i, 4)), std::string::npos) << c.hash;
  }
  // A malformed hash of a known format has no kind (it could not be
  // verified, so it costs nothing).
  EXPECT_EQ(password_hash_kind("$2y$04$6qXKdIkf.rHTPdwCiQ9CCe"), std::nullopt);
  EXPECT_EQ(password_hash_kind("$5$rounds=1000$2C4bB9p5K8Q0d3un$/sZT"), std::nullopt);
}

// interface.md 4.2 for imported hashes: the first login that matches
// replaces the hash with an argon2id hash of the current parameters, which
// needs no further re-hash; a wrong password changes nothing.
TEST(LegacyHash, Interface_4_2_ALegacyHashIsReplacedByArgon2idOnAMatchOnly) {
  PasswordHasher hasher(kCurrent);
  for (const char* kind : {"$2b$04", "$6$rounds=1000", "pbkdf2_sha256$1000", "$scrypt$ln=4,r=8,p=1",
                           "$argon2d$v=19$m=64,t=1,p=1"}) {
    SCOPED_TRACE(kind);
    std::optional<std::string> legacy = hasher.hash_of_kind(kind, "old password");
    ASSERT_TRUE(legacy.has_value());
    VerifyResult wrong = hasher.verify("old passwore", *legacy);
    EXPECT_FALSE(wrong.matches);
    EXPECT_TRUE(wrong.upgraded_hash.empty());
    VerifyResult right = hasher.verify("old password", *legacy);
    ASSERT_TRUE(right.matches);
    EXPECT_EQ(right.upgraded_hash.rfind(kCurrentPrefix, 0), 0u) << right.upgraded_hash;
    VerifyResult again = hasher.verify("old password", right.upgraded_hash);
    EXPECT_TRUE(again.matches);
    EXPECT_TRUE(again.upgraded_hash.empty());
  }
}

// Passwords are bytes. crypt(3) reads a C string, so a password with a NUL
// byte never matches a crypt format (it would match the hash of its part
// before the NUL); PBKDF2 and scrypt take the whole password.
TEST(LegacyHash, Interface_10_5_APasswordWithANulByteNeverMatchesACryptHash) {
  PasswordHasher hasher(kCurrent);
  const std::string with_nul("a\0b", 3);
  for (const char* kind : {"$2b$04", "$5$rounds=1000", "$7$46..../...."}) {
    std::optional<std::string> of_a = hasher.hash_of_kind(kind, "a");
    ASSERT_TRUE(of_a.has_value()) << kind;
    EXPECT_TRUE(hasher.verify("a", *of_a).matches) << kind;
    EXPECT_FALSE(hasher.verify(with_nul, *of_a).matches) << kind;
    EXPECT_FALSE(hasher.hash_of_kind(kind, with_nul).has_value()) << kind;
  }
  for (const char* kind : {"pbkdf2_sha256$1000", "$scrypt$ln=4,r=8,p=1"}) {
    std::optional<std::string> made = hasher.hash_of_kind(kind, with_nul);
    ASSERT_TRUE(made.has_value()) << kind;
    EXPECT_TRUE(hasher.verify(with_nul, *made).matches) << kind;
    EXPECT_FALSE(hasher.verify("a", *made).matches) << kind;
  }
}

// The parts of a refused hash that must never show in its problem.
struct Refused {
  std::string hash;
  std::vector<std::string> secret_parts;  // salt, digest: never echoed
};

// Refused with a detail naming the problem (`expected`, when given), which
// holds no part of the salt or digest (no 5 characters in a row).
void expect_refused(const Refused& r, const std::string& expected = "") {
  SCOPED_TRACE(r.hash);
  std::optional<std::string> problem = imported_hash_problem(r.hash);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->rfind("passwordHash: ", 0), 0u) << *problem;
  if (!expected.empty()) {
    EXPECT_EQ(*problem, "passwordHash: " + expected);
  }
  for (const std::string& part : r.secret_parts) {
    for (std::size_t i = 0; i + 5 <= part.size(); ++i)
      EXPECT_EQ(problem->find(part.substr(i, 5)), std::string::npos) << *problem;
  }
}

const std::string kBcryptSalt = "6qXKdIkf.rHTPdwCiQ9CCe";
const std::string kBcryptDigest = ".J1Jioa6NvJXP1ExoqlUwO76pPCpkOS";

TEST(LegacyHash, Interface_10_5_BcryptCostOverTheCapIsRefused) {
  for (const char* variant : {"$2a$", "$2b$", "$2y$"}) {
    EXPECT_EQ(imported_hash_problem(variant + std::string("15$") + kBcryptSalt + kBcryptDigest),
              std::nullopt);
    expect_refused(
        {variant + std::string("16$") + kBcryptSalt + kBcryptDigest, {kBcryptSalt, kBcryptDigest}},
        "bcrypt cost 16 is over the cap of 15");
  }
  expect_refused({"$2b$31$" + kBcryptSalt + kBcryptDigest, {kBcryptSalt, kBcryptDigest}},
                 "bcrypt cost 31 is over the cap of 15");
}

const std::string kArgon2Salt = "s3auNaYUQqj1HuMco1TKeQ";
const std::string kArgon2Digest = "msVXoGVNUT8tkfhNNHrPyg";

std::string argon2_hash(const std::string& algorithm, const std::string& parameters) {
  return "$" + algorithm + "$v=19$" + parameters + "$" + kArgon2Salt + "$" + kArgon2Digest;
}

// At most 256 MiB and 16 passes, whatever the variant and the lanes.
TEST(LegacyHash, Interface_10_5_Argon2MemoryAndPassesOverTheCapsAreRefused) {
  for (const char* algorithm : {"argon2id", "argon2i", "argon2d"}) {
    EXPECT_EQ(imported_hash_problem(argon2_hash(algorithm, "m=262144,t=16,p=1")), std::nullopt);
    EXPECT_EQ(imported_hash_problem(argon2_hash(algorithm, "m=262144,t=16,p=64")), std::nullopt);
    expect_refused({argon2_hash(algorithm, "m=262145,t=1,p=1"), {kArgon2Salt, kArgon2Digest}},
                   "argon2 memory m=262145 KiB is over the cap of 262144 KiB (256 MiB)");
    expect_refused({argon2_hash(algorithm, "m=65536,t=17,p=4"), {kArgon2Salt, kArgon2Digest}},
                   "argon2 passes t=17 are over the cap of 16");
  }
}

const std::string kScryptSalt = "JsT4n5Nybu3du7d2rnXOWQ";
const std::string kScryptDigest = "oiw6p+DX8Oi+K+5fG+O/DVnHi0yStmcJeUiE2/mD350";
const std::string k7Salt = ".fA6dw4IPvydNc85iioG2//m";
const std::string k7Digest = "/A7elVxix.tjYq8CIBh6BjsmbXKwwIT5uXhFCfS5436";

std::string crypt64(std::uint64_t value, int count) {
  static const std::string alphabet =
      "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string text;
  for (int i = 0; i < count; ++i) text += alphabet[(value >> (6 * i)) & 63];
  return text;
}

std::string scrypt_hash(bool crypt_form, unsigned ln, unsigned r, unsigned p) {
  if (crypt_form)
    return "$7$" + crypt64(ln, 1) + crypt64(r, 5) + crypt64(p, 5) + k7Salt + "$" + k7Digest;
  return "$scrypt$ln=" + std::to_string(ln) + ",r=" + std::to_string(r) +
         ",p=" + std::to_string(p) + "$" + kScryptSalt + "$" + kScryptDigest;
}

// 128 x r x N bytes at most 256 MiB; r x p at most 256; and 128 x N x r x p
// (the work) at most 1024 MiB, four passes over the memory cap.
TEST(LegacyHash, Interface_10_5_ScryptMemoryParallelismAndWorkOverTheCapsAreRefused) {
  for (bool crypt_form : {true, false}) {
    SCOPED_TRACE(crypt_form ? "$7$" : "$scrypt$");
    std::vector<std::string> parts = {kScryptSalt, kScryptDigest, k7Salt, k7Digest};
    EXPECT_EQ(imported_hash_problem(scrypt_hash(crypt_form, 18, 8, 1)), std::nullopt);
    EXPECT_EQ(imported_hash_problem(scrypt_hash(crypt_form, 20, 2, 1)), std::nullopt);
    expect_refused({scrypt_hash(crypt_form, 19, 8, 1), parts},
                   "scrypt memory (128 x r x N bytes) 512 MiB is over the cap of 256 MiB");
    expect_refused({scrypt_hash(crypt_form, 18, 9, 1), parts},
                   "scrypt memory (128 x r x N bytes) 288 MiB is over the cap of 256 MiB");
    expect_refused({scrypt_hash(crypt_form, 40, 8, 1), parts},
                   "scrypt memory (128 x r x N bytes) is over the cap of 256 MiB");
    EXPECT_EQ(imported_hash_problem(scrypt_hash(crypt_form, 4, 8, 32)), std::nullopt);
    expect_refused({scrypt_hash(crypt_form, 4, 8, 33), parts},
                   "scrypt r x p = 264 is over the cap of 256");
    EXPECT_EQ(imported_hash_problem(scrypt_hash(crypt_form, 18, 8, 4)), std::nullopt);
    expect_refused({scrypt_hash(crypt_form, 18, 8, 5), parts},
                   "scrypt work (128 x N x r x p bytes) is over the cap of 1024 MiB");
    EXPECT_EQ(imported_hash_problem(scrypt_hash(crypt_form, 10, 8, 32)), std::nullopt);
  }
}

const std::string kPbkdf2Salt = "h5By7n2PMWbsHWPMGaOUUg";
const std::string kPbkdf2Digest = "cLkRAH/bkBDR8I7hPgrO87nTkzi/iuYcHEu/m94PHzg";
const std::string kDjangoSalt = "VK3FSTHMXCCY";
const std::string kDjangoDigest = "XTEoR74qlo/HImo1QSHMMDnJVNCgmNF4mnxQR/VcELE=";

TEST(LegacyHash, Interface_10_5_Pbkdf2IterationsOverTheCapAreRefused) {
  std::vector<std::string> parts = {kPbkdf2Salt, kPbkdf2Digest, kDjangoSalt, kDjangoDigest};
  auto passlib = [](const std::string& n) {
    return "$pbkdf2-sha256$" + n + "$" + kPbkdf2Salt + "$" + kPbkdf2Digest;
  };
  auto django = [](const std::string& n) {
    return "pbkdf2_sha256$" + n + "$" + kDjangoSalt + "$" + kDjangoDigest;
  };
  EXPECT_EQ(imported_hash_problem(passlib("2000000")), std::nullopt);
  EXPECT_EQ(imported_hash_problem(django("2000000")), std::nullopt);
  expect_refused({passlib("2000001"), parts},
                 "PBKDF2 iterations 2000001 are over the cap of 2000000");
  expect_refused({django("2000001"), parts},
                 "PBKDF2 iterations 2000001 are over the cap of 2000000");
  // More digits than any integer: refused, and the number is not repeated.
  expect_refused({django(std::string(40, '9')), {kDjangoSalt, kDjangoDigest, std::string(40, '9')}},
                 "PBKDF2 iterations are over the cap of 2000000");
  expect_refused({passlib("18446744073709551616"), {kPbkdf2Salt, kPbkdf2Digest}},
                 "PBKDF2 iterations are over the cap of 2000000");
}

const std::string kShaSalt = "D.vGDWq..eZjLVYh";
const std::string kSha512Digest =
    "bCX1gzBP6xj7a.vk0W8yQY/1RqwDTTrw.fRLw4m3StN/tnFYdnoHYFqYFkIKMztjPL4mzAyfFeZ72sH9emOnT/";

TEST(LegacyHash, Interface_10_5_ShaCryptRoundsOverTheCapAreRefused) {
  auto sha512 = [](const std::string& rounds) {
    return "$6$rounds=" + rounds + "$" + kShaSalt + "$" + kSha512Digest;
  };
  EXPECT_EQ(imported_hash_problem(sha512("1000000")), std::nullopt);
  expect_refused({sha512("1000001"), {kShaSalt, kSha512Digest}},
                 "SHA-crypt rounds 1000001 are over the cap of 1000000");
  expect_refused({sha512("999999999999999999999999"), {kShaSalt, kSha512Digest}},
                 "SHA-crypt rounds are over the cap of 1000000");
}

// A stored hash over a cap (written around the import, say) is never
// verified at all: it cannot cost a login its time.
TEST(LegacyHash, Interface_10_5_AStoredHashOverACapNeverMatchesAndCostsNothing) {
  crypt_data data{};
  auto started = std::chrono::steady_clock::now();
  const char* made = crypt_rn("pw", "$5$rounds=1000001$saltsalt", &data, sizeof data);
  auto making = std::chrono::steady_clock::now() - started;
  ASSERT_NE(made, nullptr);
  std::string over_cap(made);
  ASSERT_EQ(over_cap.rfind("$5$rounds=1000001$", 0), 0u) << over_cap;

  PasswordHasher hasher(kCurrent);
  started = std::chrono::steady_clock::now();
  VerifyResult result = hasher.verify("pw", over_cap);
  auto verifying = std::chrono::steady_clock::now() - started;
  EXPECT_FALSE(result.matches);
  EXPECT_TRUE(result.upgraded_hash.empty());
  EXPECT_LT(verifying, making / 4) << "the hash was verified";
  EXPECT_FALSE(hasher.hash_of_kind("$5$rounds=1000001", "pw").has_value());
  EXPECT_FALSE(hasher.hash_of_kind("$2b$16", "pw").has_value());
  EXPECT_FALSE(hasher.hash_of_kind("$argon2d$v=19$m=262145,t=1,p=1", "pw").has_value());
}

// At the memory cap scrypt still verifies: the memory OpenSSL and libxcrypt
// are allowed is enough (one hash of 256 MiB each way, about a second).
TEST(LegacyHash, Interface_10_5_ScryptAtTheMemoryCapVerifies) {
  PasswordHasher hasher(kCurrent);
  const std::vector<std::string> kinds = {"$scrypt$ln=18,r=8,p=1",
                                          "$7$" + crypt64(18, 1) + crypt64(8, 5) + crypt64(1, 5)};
  for (const std::string& kind : kinds) {
    std::optional<std::string> made = hasher.hash_of_kind(kind, "pw");
    ASSERT_TRUE(made.has_value()) << kind;
    EXPECT_TRUE(hasher.verify("pw", *made).matches) << kind;
  }
}

// Malformed, truncated, of another format, overflowing: refused with a
// detail, never a match, never a crash or an exception.
TEST(LegacyHash, Interface_10_5_MalformedHashesAreRefusedWithoutCrash) {
  const std::string bcrypt_tail = kBcryptSalt + kBcryptDigest;
  const std::string argon2_rest = "$" + kArgon2Salt + "$" + kArgon2Digest;
  const std::string sha_rest = "$" + kShaSalt + "$" + kSha512Digest;
  const std::vector<Refused> cases = {
      {"", {}},
      {"correct horse battery staple", {"correct horse battery staple"}},
      {"hunter2", {"hunter2"}},
      {std::string(2000, 'a'), {}},
      {"$2b$04$" + bcrypt_tail + "\n", {kBcryptSalt, kBcryptDigest}},
      {"$2b$04$" + bcrypt_tail.substr(0, 52), {kBcryptSalt, kBcryptDigest}},  // truncated
      {"$2b$04$" + bcrypt_tail + "x", {kBcryptSalt, kBcryptDigest}},          // one too many
      {"$2b$4$" + bcrypt_tail, {kBcryptSalt, kBcryptDigest}},                 // one digit
      {"$2b$1a$" + bcrypt_tail, {kBcryptSalt, kBcryptDigest}},                // not a number
      {"$2b$03$" + bcrypt_tail, {kBcryptSalt, kBcryptDigest}},                // below bcrypt's 4
      {"$2x$04$" + bcrypt_tail, {kBcryptSalt, kBcryptDigest}},                // unsupported variant
      {"$2b$04$" + kBcryptSalt.substr(0, 21) + "f" + kBcryptDigest, {kBcryptDigest}},  // stray bits
      {"$2b$04$" + kBcryptSalt.substr(0, 10) + "+" + bcrypt_tail.substr(11), {kBcryptDigest}},
      {"$argon2id$v=19$m=64,t=1,p=1$" + kArgon2Salt, {kArgon2Salt}},  // no digest
      {"$argon2id$v=19$m=64,t=1,p=1$" + kArgon2Salt + "$" + kArgon2Digest.substr(0, 20),
       {kArgon2Salt, kArgon2Digest}},  // digest under 16 bytes
      {"$argon2id$v=19$m=64,t=1,p=1$!!!!!!!!!!!$" + kArgon2Digest, {kArgon2Digest}},
      {"$argon2id$v=19$m=64,t=1,p=1$" + kArgon2Salt + "$" + kArgon2Digest + "==",
       {kArgon2Salt, kArgon2Digest}},  // padding
      {"$argon2id$v=19$m=99999999999,t=1,p=1" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      {"$argon2id$v=18$m=64,t=1,p=1" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      // Found by fuzz_legacy_hash: PHC numbers have no leading zeros.
      {"$argon2id$v=16$m=64,t=1,p=02" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      {"$argon2d$v=19$m=064,t=1,p=1" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      {"$argon2id$v=19$m=8,t=1,p=2" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      {"$argon2id$v=19$m=64,t=0,p=1" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      {"$argon2id$v=19$m=64,t=1,p=0" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      {"$argon2id$m=64,t=1,p=1" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      {"$argon2x$v=19$m=64,t=1,p=1" + argon2_rest, {kArgon2Salt, kArgon2Digest}},
      {"$scrypt$ln=x,r=8,p=1$" + kScryptSalt + "$" + kScryptDigest, {kScryptSalt, kScryptDigest}},
      {"$scrypt$ln=16,r=1,p=1$" + kScryptSalt + "$" + kScryptDigest,
       {kScryptSalt, kScryptDigest}},  // N not below 2^(16 r)
      {"$scrypt$ln=0,r=8,p=1$" + kScryptSalt + "$" + kScryptDigest, {kScryptSalt, kScryptDigest}},
      {"$scrypt$ln=99999999999999999999,r=8,p=1$" + kScryptSalt + "$" + kScryptDigest,
       {kScryptSalt, kScryptDigest}},
      {"$scrypt$ln=6,r=99999999999999999999,p=1$" + kScryptSalt + "$" + kScryptDigest,
       {kScryptSalt, kScryptDigest}},
      {"$scrypt$ln=6,r=8,p=1$" + kScryptSalt + "$" + kScryptDigest.substr(0, 40),
       {kScryptSalt, kScryptDigest}},
      {"$scrypt$ln=6,r=8,p=1$" + kScryptSalt + "$" + kScryptDigest.substr(0, 32),
       {kScryptSalt, kScryptDigest}},  // 24 bytes: a prefix of the key, which would match
      {"$scrypt$ln=6,r=8,p=1$" + kScryptSalt, {kScryptSalt}},
      {"$7$46..../....$" + k7Digest, {k7Digest}},  // no salt
      // passlib's own "$7$" salts may hold '+', which libxcrypt refuses.
      {"$7$46..../....RYgRYmyNcS7F+B+jFKL0fg$" + k7Digest, {"RYgRYmyNcS7F", k7Digest}},
      {"$7$46..$" + k7Digest, {k7Digest}},
      {"$7$.6..../...." + k7Salt + "$" + k7Digest, {k7Salt, k7Digest}},  // N = 1
      {"$7$46..../...." + k7Salt + "$" + k7Digest.substr(1), {k7Salt, k7Digest}},
      {"pbkdf2_sha256$1000$" + kDjangoSalt + "$" + kDjangoDigest.substr(0, 43) + "!",
       {kDjangoSalt, kDjangoDigest}},
      {"pbkdf2_sha256$1000$" + kDjangoSalt + "$" + kDjangoDigest.substr(0, 43),
       {kDjangoSalt, kDjangoDigest}},  // padding missing
      {"pbkdf2_sha1$1000$" + kDjangoSalt + "$" + kDjangoDigest,
       {kDjangoSalt, kDjangoDigest}},  // SHA-256's length for SHA-1
      {"pbkdf2_sha256$01000$" + kDjangoSalt + "$" + kDjangoDigest, {kDjangoSalt, kDjangoDigest}},
      {"pbkdf2_sha256$0$" + kDjangoSalt + "$" + kDjangoDigest, {kDjangoSalt, kDjangoDigest}},
      {"pbkdf2_sha256$$" + kDjangoSalt + "$" + kDjangoDigest, {kDjangoSalt, kDjangoDigest}},
      {"pbkdf2_sha256$1000$$" + kDjangoDigest, {kDjangoDigest}},
      {"pbkdf2_sha512$1000$" + kDjangoSalt + "$" + kDjangoDigest, {kDjangoSalt, kDjangoDigest}},
      {"$pbkdf2$1000$" + kPbkdf2Salt + "$" + kPbkdf2Digest, {kPbkdf2Salt, kPbkdf2Digest}},
      {"$pbkdf2-sha256$1000$" + kPbkdf2Salt + "$" + kPbkdf2Digest + "=",
       {kPbkdf2Salt, kPbkdf2Digest}},
      {"$pbkdf2-sha256$1000$" + kPbkdf2Salt + "!$" + kPbkdf2Digest, {kPbkdf2Salt, kPbkdf2Digest}},
      {"$pbkdf2-sha512$1000$" + kPbkdf2Salt + "$" + kPbkdf2Digest, {kPbkdf2Salt, kPbkdf2Digest}},
      {"$6$rounds=999" + sha_rest, {kShaSalt, kSha512Digest}},
      {"$6$rounds=abc" + sha_rest, {kShaSalt, kSha512Digest}},
      {"$6$rounds=01000" + sha_rest, {kShaSalt, kSha512Digest}},
      {"$6$" + kShaSalt + "x$" + kSha512Digest, {kShaSalt, kSha512Digest}},  // 17 salt characters
      {"$6$sa:lt$" + kSha512Digest, {kSha512Digest}},
      {"$5$" + kShaSalt + "$" + kSha512Digest, {kShaSalt, kSha512Digest}},  // SHA-512's length
      {"$6$" + kShaSalt + "$" + kSha512Digest.substr(0, 85), {kShaSalt, kSha512Digest}},
      {"$1$saltsalt$qbdx8mJOgOKVgHhBESOGc/", {"qbdx8mJOgOKVgHhBESOGc"}},  // MD5-crypt
      {"$y$j9T$mpEJ2q88eP5sCrTXjvYHW/$HijuXw1e1uTAzR3zIAuhk1Oe9LDFdlMUFK0djHUfsg7",
       {"mpEJ2q88eP5sCrTXjvYHW", "HijuXw1e1uTAzR3zIAuhk1Oe9LDFdlMUFK0djHUfsg7"}},  // yescrypt
      {"{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", {"W6ph5Mm5Pz8GgiULbPgzG37mj9g"}},
      {std::string("$2b$04$\0", 8) + bcrypt_tail, {kBcryptSalt, kBcryptDigest}},
      {"$2b$04$" + kBcryptSalt + "\xC3\xA9" + kBcryptDigest.substr(2), {kBcryptSalt}},
  };
  PasswordHasher hasher(kCurrent);
  for (const Refused& r : cases) {
    expect_refused(r);
    VerifyResult result;
    EXPECT_NO_THROW(result = hasher.verify("correct horse battery staple", r.hash)) << r.hash;
    EXPECT_FALSE(result.matches) << r.hash;
    if (!r.hash.starts_with("$argon2")) {
      EXPECT_EQ(password_hash_kind(r.hash), std::nullopt) << r.hash;
    }
  }
}

// Every prefix of every vector: refused, or (when the cut leaves a
// well-formed hash, as a shorter argon2 digest can be: its length is free)
// never a match. A digest whose shorter forms are prefixes of the longer
// (PBKDF2, scrypt) has one length only, or a cut one would match.
TEST(LegacyHash, Interface_10_5_EveryTruncationOfAHashIsRefusedOrNeverMatches) {
  PasswordHasher hasher(kCurrent);
  for (const Vector& v : parse_vectors(read_file(kFixture))) {
    for (std::size_t length = 0; length < v.hash.size(); ++length) {
      std::string cut = v.hash.substr(0, length);
      if (imported_hash_problem(cut)) continue;
      EXPECT_FALSE(hasher.verify(v.password, cut).matches) << cut;
    }
  }
}

}  // namespace
}  // namespace authd
