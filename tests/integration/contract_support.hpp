// Small helpers shared by the integration tests of interface.md sections 2
// to 8: patterns for the User record and tokens, what is stored at rest, and
// the operator CLI's JSON output. Nothing here sleeps to wait for the server.
#pragma once

#include <sodium.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace authd::test {

// interface.md 2.3: a UUID, version 7.
// The account most tests use.
const std::string kEmail = "alice@example.com";
const std::string kPassword = "correct horse battery staple";
// A password set by a reset.
const std::string kNewPassword = "a brand new passphrase";

// `authd user add` with kPassword, hashed at the given argon2id cost, so
// that the account's hash is a kind of its own (interface.md 10.5).
inline void add_user_hashed_at(const AuthdProcess& authd, const std::string& email,
                               const std::string& memory_kib, const std::string& iterations) {
  std::string output;
  ASSERT_EQ(authd.cli({"user", "add", "--email", email, "--argon2-memory-kib", memory_kib,
                       "--argon2-iterations", iterations},
                      kPassword, &output),
            0)
      << output;
}

inline std::string forgot_body(const std::string& email) {
  return nlohmann::json{{"email", email}}.dump();
}

// The reset token in a mail's link to the harness's public URL ("" when
// there is none).
inline std::string reset_token_in(const std::string& mail) {
  std::smatch found;
  static const std::regex link(R"(http://authd\.test/reset#token=([A-Za-z0-9_-]+))");
  if (!std::regex_search(mail, found, link)) return "";
  return found[1];
}

inline std::string reset_body(const std::string& token, const std::string& password) {
  return nlohmann::json{{"token", token}, {"password", password}}.dump();
}

// Creates the test account and logs in twice: two live sessions.
inline std::pair<std::string, std::string> user_with_two_sessions(const AuthdProcess& authd) {
  authd.add_user(kEmail, kPassword);
  std::string first = authd.login(kEmail, kPassword);
  std::string second = authd.login(kEmail, kPassword);
  EXPECT_FALSE(first.empty());
  EXPECT_FALSE(second.empty());
  return {first, second};
}

inline const std::regex& uuid_v7_pattern() {
  static const std::regex pattern(
      "^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  return pattern;
}

// interface.md 2.4: RFC 3339, UTC, milliseconds.
inline const std::regex& timestamp_pattern() {
  static const std::regex pattern(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$)");
  return pattern;
}

// interface.md 5.1: prefix of 2 to 9 lowercase letters or digits, '_', then
// base64url without padding of at least 256 bits (43 characters).
inline const std::regex& token_pattern() {
  static const std::regex pattern("^[a-z0-9]{2,9}_[A-Za-z0-9_-]{43,}$");
  return pattern;
}

inline bool matches(const std::string& text, const std::regex& pattern) {
  return std::regex_match(text, pattern);
}

// Upper-case hex of SHA-256, as SQLite's hex() prints a blob.
inline std::string sha256_hex(const std::string& text) {
  if (sodium_init() < 0) return "";
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : digest) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

inline std::string without_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// Non-empty lines of a sqlite3 or psql output.
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every byte authd keeps at rest: the database file and its write-ahead log.
inline std::string stored_bytes(const AuthdProcess& authd) {
  return file_bytes(authd.database_path()) + file_bytes(authd.database_path() + "-wal");
}

// Polls `ready` every 20 ms for at most 15 s (for background work of the
// server, such as the outbox worker); true when it became true.
template <class Predicate>
bool eventually(Predicate ready) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ready();
}

// Runs an operator command and parses the User it prints (JSON on stdout).
inline nlohmann::json cli_json(const AuthdProcess& authd, const std::vector<std::string>& args,
                               const std::string& input = "") {
  std::string output;
  int code = authd.cli(args, input, &output);
  EXPECT_EQ(code, 0) << output;
  auto brace = output.find('{');
  if (brace == std::string::npos) return nullptr;
  nlohmann::json parsed = nlohmann::json::parse(output.substr(brace), nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << output;
  return parsed;
}

inline nlohmann::json show_user(const AuthdProcess& authd, const std::string& email) {
  return cli_json(authd, {"user", "show", "--email", email});
}

// The body every 401 carries (interface.md 1.3).
inline std::string unauthorized_body() { return R"({"code":401,"message":"Unauthorized Error"})"; }

// interface.md 2.1-2.4: all ten fields, password null, id a UUIDv7, the
// timestamps in RFC 3339 UTC with milliseconds (or null where allowed).
inline void expect_full_user(const nlohmann::json& user) {
  ASSERT_TRUE(user.is_object()) << user;
  static const char* const kFields[] = {
      "id",          "email",           "password",        "phone",     "photoUrl",
      "displayName", "emailVerifiedAt", "phoneVerifiedAt", "updatedAt", "createdAt"};
  for (const char* field : kFields) EXPECT_TRUE(user.contains(field)) << field << " in " << user;
  EXPECT_EQ(user.size(), 10u) << user;
  EXPECT_TRUE(user["password"].is_null()) << user;
  ASSERT_TRUE(user["id"].is_string()) << user;
  EXPECT_TRUE(matches(user["id"].get<std::string>(), uuid_v7_pattern())) << user["id"];
  ASSERT_TRUE(user["email"].is_string()) << user;
  ASSERT_TRUE(user["createdAt"].is_string()) << user;
  for (const char* field : {"createdAt", "updatedAt", "emailVerifiedAt", "phoneVerifiedAt"}) {
    if (user[field].is_null()) continue;
    ASSERT_TRUE(user[field].is_string()) << field << " in " << user;
    EXPECT_TRUE(matches(user[field].get<std::string>(), timestamp_pattern()))
        << field << ": " << user[field];
  }
  for (const char* field : {"phone", "photoUrl", "displayName"}) {
    EXPECT_TRUE(user[field].is_null() || user[field].is_string()) << field << " in " << user;
  }
}

// The bearer token of a login response ("" when absent).
inline std::string token_of(const HttpResponse& response) {
  std::string value = response.header("Authorization");
  const std::string prefix = "Bearer ";
  return value.rfind(prefix, 0) == 0 ? value.substr(prefix.size()) : "";
}

// `count` copies of U+1F600 (one code point, four UTF-8 bytes).
inline std::string emoji(std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += "\xF0\x9F\x98\x80";
  return out;
}

// Polls authd's log until it contains `text` (bounded); false if it never did.
inline bool wait_for_log(const AuthdProcess& authd, const std::string& text) {
  for (int i = 0; i < 750; ++i) {
    if (authd.log_text().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A Retry-After of integer seconds, above 0 and at most `most`.
inline void expect_retry_after(const HttpResponse& response, long most) {
  std::string value = response.header("Retry-After");
  ASSERT_FALSE(value.empty()) << "no Retry-After";
  ASSERT_TRUE(std::regex_match(value, std::regex("^[0-9]+$"))) << value;
  long seconds = std::stol(value);
  EXPECT_GT(seconds, 0);
  EXPECT_LE(seconds, most);
}

}  // namespace authd::test
