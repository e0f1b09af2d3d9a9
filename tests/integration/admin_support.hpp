// Helpers shared by the admin API's integration tests (interface.md section
// 10): admin keys made with `authd admin-key create` on a running server's
// database, requests to the management listener with a key, the admin view
// of a user, the error body, and reading every table of the database.
// Nothing here sleeps to wait for the server.
#pragma once

#include <sodium.h>

#include <chrono>
#include <ctime>
#include <iomanip>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test::admin {

// interface.md 10.2: `authdak_` and at least 256 bits in base64url.
inline const std::regex& admin_key_pattern() {
  static const std::regex pattern("^authdak_[A-Za-z0-9_-]{43,}$");
  return pattern;
}

// A UUID of any version, lowercase (a session's public id).
inline const std::regex& uuid_pattern() {
  static const std::regex pattern("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$");
  return pattern;
}

// `authd admin-key create --name NAME --scope SCOPE` on the server's
// database; its exit code, stdout and stderr kept apart.
struct KeyCommand {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline KeyCommand admin_key_command(const AuthdProcess& authd, std::vector<std::string> args) {
  KeyCommand result;
  args.insert(args.begin(), "admin-key");
  result.exit_code = authd.cli_streams(args, "", &result.out, &result.err);
  return result;
}

// Creates a key and returns it (the one line of stdout); fails the test
// when the command fails.
inline std::string create_key(const AuthdProcess& authd, const std::string& name,
                              const std::string& scope = "write") {
  KeyCommand created = admin_key_command(authd, {"create", "--name", name, "--scope", scope});
  EXPECT_EQ(created.exit_code, 0) << created.out << created.err;
  std::string key = without_trailing_newlines(created.out);
  EXPECT_TRUE(matches(key, admin_key_pattern())) << "stdout: " << created.out;
  return key;
}

// One request to the management listener with `key` as the bearer
// credentials (none when empty); a JSON body when given.
inline HttpResponse call(const AuthdProcess& authd, const std::string& key,
                         const std::string& method, const std::string& target,
                         const std::optional<std::string>& body = std::nullopt,
                         Headers extra = {}) {
  Headers headers;
  if (!key.empty()) headers.emplace_back("Authorization", "Bearer " + key);
  if (body) headers.emplace_back("Content-Type", "application/json");
  headers.insert(headers.end(), extra.begin(), extra.end());
  return send_request(authd.admin_port(), method, target, headers, body.value_or(""));
}

inline HttpResponse call(const AuthdProcess& authd, const std::string& key,
                         const std::string& method, const std::string& target,
                         const nlohmann::json& body) {
  return call(authd, key, method, target, std::optional<std::string>(body.dump()));
}

// interface.md 1.3: the message of each status the admin routes use.
inline std::string message_of(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized Error";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    default:
      return "?";
  }
}

// interface.md 1.2 and 1.3: a JSON error with exactly {code, message} (a
// 400 may add a string "detail"), Cache-Control: no-store. `context` names
// the request in failure messages.
inline void expect_error(const HttpResponse& res, int status, const std::string& context = "") {
  if (res.status != status) {
    ADD_FAILURE() << context << ": status " << res.status << ", expected " << status << " -> "
                  << res.body;
    return;
  }
  EXPECT_EQ(res.header("Content-Type"), "application/json") << context;
  EXPECT_EQ(res.header("Cache-Control"), "no-store") << context;
  nlohmann::json body = nlohmann::json::parse(res.body, nullptr, false);
  ASSERT_TRUE(body.is_object()) << context << " -> " << res.body;
  EXPECT_EQ(body["code"], status) << context << " -> " << res.body;
  EXPECT_EQ(body["message"], message_of(status)) << context << " -> " << res.body;
  for (const auto& [member, value] : body.items()) {
    bool allowed = member == "code" || member == "message" || (status == 400 && member == "detail");
    EXPECT_TRUE(allowed) << context << ": unexpected member " << member << " in " << res.body;
    if (member == "detail") {
      EXPECT_TRUE(value.is_string()) << context << " -> " << res.body;
    }
  }
}

// interface.md 6 /logout 1-3 on the admin routes: which WWW-Authenticate
// each credentials failure carries.
inline const std::string kNoCredentials = R"(Bearer realm="authd")";
inline const std::string kMalformedCredentials = R"(Bearer error="invalid_request")";
inline const std::string kInvalidKey = R"(Bearer error="invalid_token")";

inline void expect_credentials_error(const HttpResponse& res, int status,
                                     const std::string& challenge, const std::string& context) {
  expect_error(res, status, context);
  EXPECT_EQ(res.header_count("WWW-Authenticate"), 1u) << context;
  EXPECT_EQ(res.header("WWW-Authenticate"), challenge) << context;
}

// interface.md 10.3: the User of section 2 (all ten members) plus
// "disabled", "lastLoginAt" and "mfa" ([] for now), nothing else.
inline void expect_admin_user(const nlohmann::json& user) {
  ASSERT_TRUE(user.is_object()) << user;
  EXPECT_EQ(user.size(), 13u) << user;
  ASSERT_TRUE(user.contains("disabled")) << user;
  EXPECT_TRUE(user["disabled"].is_boolean()) << user;
  ASSERT_TRUE(user.contains("lastLoginAt")) << user;
  if (!user["lastLoginAt"].is_null()) {
    ASSERT_TRUE(user["lastLoginAt"].is_string()) << user;
    EXPECT_TRUE(matches(user["lastLoginAt"].get<std::string>(), timestamp_pattern())) << user;
  }
  ASSERT_TRUE(user.contains("mfa")) << user;
  EXPECT_EQ(user["mfa"], nlohmann::json::array()) << user;
  nlohmann::json plain = user;
  for (const char* member : {"disabled", "lastLoginAt", "mfa"}) plain.erase(member);
  expect_full_user(plain);
}

// POST /admin/users; 201 expected; the admin user it answers.
inline nlohmann::json create_user(const AuthdProcess& authd, const std::string& key,
                                  const nlohmann::json& body) {
  HttpResponse res = call(authd, key, "POST", "/admin/users", body);
  EXPECT_EQ(res.status, 201) << body.dump() << " -> " << res.body;
  if (res.status != 201) return nullptr;
  return res.json();
}

// GET /admin/users/{id}; 200 expected.
inline nlohmann::json get_user(const AuthdProcess& authd, const std::string& key,
                               const std::string& id) {
  HttpResponse res = call(authd, key, "GET", "/admin/users/" + id);
  EXPECT_EQ(res.status, 200) << id << " -> " << res.body;
  if (res.status != 200) return nullptr;
  return res.json();
}

// The time a timestamp of 2.4 names.
inline std::chrono::system_clock::time_point parse_timestamp(const std::string& text) {
  std::tm tm{};
  std::istringstream in(text.substr(0, 19));
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  auto seconds = std::chrono::system_clock::from_time_t(timegm(&tm));
  int millis = std::stoi(text.substr(20, 3));
  return seconds + std::chrono::milliseconds(millis);
}

// Polls the clock until it is past `timestamp`'s millisecond, so that a
// change made now gets a later timestamp (this machine's clock is the
// server's).
inline void wait_past(const std::string& timestamp) {
  auto after = parse_timestamp(timestamp) + std::chrono::milliseconds(2);
  while (std::chrono::system_clock::now() < after)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// Polls the clock until two milliseconds have passed: what happens next
// gets a later timestamp than what happened before.
inline void wait_a_millisecond() {
  auto after = std::chrono::system_clock::now() + std::chrono::milliseconds(2);
  while (std::chrono::system_clock::now() < after)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// Percent-encodes everything but unreserved characters (for query values).
inline std::string url_encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// An argon2id hash in PHC form of `password`, made by libsodium with the
// cheap parameters of fast_hashing() (64 KiB, one pass), as another system
// would hand it over.
inline std::string argon2id_hash(const std::string& password, unsigned long long passes = 1,
                                 std::size_t memory_kib = 64) {
  if (sodium_init() < 0) return "";
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), passes, memory_kib * 1024,
                            crypto_pwhash_ALG_ARGON2ID13) != 0)
    return "";
  return out;
}

// The tables of the server's database and their columns, read from the
// database's own catalogue (sqlite_master and pragma_table_info, or
// information_schema), not from a list kept here.
inline std::vector<std::string> table_names(const AuthdProcess& authd) {
  if (on_postgres())
    return lines(
        authd.sql("select table_name from information_schema.tables where table_schema = 'public' "
                  "and table_type = 'BASE TABLE' order by table_name"));
  return lines(
      authd.sql("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' "
                "order by name"));
}

inline std::vector<std::string> column_names(const AuthdProcess& authd, const std::string& table) {
  if (on_postgres())
    return lines(
        authd.sql("select column_name from information_schema.columns where table_schema = "
                  "'public' and table_name = '" +
                  table + "' order by ordinal_position"));
  return lines(authd.sql("select name from pragma_table_info('" + table + "')"));
}

// Rows of `table` whose `column`, read as text, contains `needle` (any
// letter case). `needle` must hold no LIKE wildcard (% or _).
inline long rows_containing(const AuthdProcess& authd, const std::string& table,
                            const std::string& column, std::string needle) {
  for (char& c : needle) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string> out =
      lines(authd.sql("select count(*) from \"" + table + "\" where lower(cast(\"" + column +
                      "\" as text)) like '%" + needle + "%'"));
  if (out.size() != 1) {
    ADD_FAILURE() << "cannot read " << table << "." << column;
    return -1;
  }
  return std::stol(out[0]);
}

// Every non-null value of `table`, each as the upper-case hex of its bytes
// (a text column's UTF-8, a BLOB's or BYTEA's bytes): what is stored, whatever
// the column's type.
inline std::vector<std::string> stored_values_in_hex(const AuthdProcess& authd,
                                                     const std::string& table) {
  std::vector<std::string> values;
  for (const std::string& column : column_names(authd, table)) {
    std::string expression = "hex(\"" + column + "\")";
    if (on_postgres()) {
      std::string type = without_trailing_newlines(
          authd.sql("select data_type from information_schema.columns where table_schema = "
                    "'public' and table_name = '" +
                    table + "' and column_name = '" + column + "'"));
      if (type != "bytea")
        expression = "upper(encode(convert_to(cast(\"" + column + "\" as text), 'UTF8'), 'hex'))";
    }
    for (const std::string& value :
         lines(authd.sql("select " + expression + " from \"" + table + "\"")))
      values.push_back(value);
  }
  return values;
}

// Upper-case hex of `text`'s bytes.
inline std::string hex_of(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

}  // namespace authd::test::admin
