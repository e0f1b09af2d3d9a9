// Helpers shared by the admin API's integration tests (interface.md section
// 10): admin keys made with `authd admin-key create` on a running server's
// database, requests to the management listener with a key, the admin view
// of a user, the error body, and reading every table of the database.
// Nothing here sleeps to wait for the server.
#pragma once

#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <map>
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

// One column of a table of the server's database, as its own catalogue
// (sqlite_master and pragma_table_info, or information_schema) lists it,
// not as a list kept here says.
struct StoredColumn {
  std::string table;
  std::string name;
  bool bytes = false;  // BYTEA on PostgreSQL
};

// Every column of every table, in one query: the scans below read the whole
// database several times per test, and one psql run per column took the
// erasure test past its time limit on a loaded machine.
inline std::vector<StoredColumn> stored_columns(const AuthdProcess& authd) {
  std::string listed =
      on_postgres() ? authd.sql(
                          "select c.table_name || '|' || c.column_name || '|' || c.data_type "
                          "from information_schema.columns c join information_schema.tables t "
                          "using (table_schema, table_name) where c.table_schema = 'public' and "
                          "t.table_type = 'BASE TABLE' order by c.table_name, c.ordinal_position")
                    : authd.sql(
                          "select m.name || '|' || p.name || '|' || p.type from sqlite_master m, "
                          "pragma_table_info(m.name) p where m.type = 'table' and m.name not like "
                          "'sqlite_%' order by m.name, p.cid");
  std::vector<StoredColumn> columns;
  for (const std::string& line : lines(listed)) {
    std::size_t first = line.find('|');
    std::size_t second = line.find('|', first + 1);
    if (first == std::string::npos || second == std::string::npos) {
      ADD_FAILURE() << "unexpected catalogue line: " << line;
      continue;
    }
    columns.push_back({line.substr(0, first), line.substr(first + 1, second - first - 1),
                       on_postgres() && line.substr(second + 1) == "bytea"});
  }
  EXPECT_FALSE(columns.empty()) << "no columns listed";
  return columns;
}

// The columns above, grouped by table, in table order.
inline std::vector<std::pair<std::string, std::vector<StoredColumn>>> columns_by_table(
    const AuthdProcess& authd) {
  std::vector<std::pair<std::string, std::vector<StoredColumn>>> tables;
  for (StoredColumn& column : stored_columns(authd)) {
    if (tables.empty() || tables.back().first != column.table) tables.push_back({column.table, {}});
    tables.back().second.push_back(std::move(column));
  }
  return tables;
}

inline std::string quoted_name(const std::string& name) { return "\"" + name + "\""; }

// "table.column" -> the rows of that column which, read as text, contain
// `needle` (any letter case); columns with none are left out. One query for
// the whole database: a count per column, one line per table. `needle` must
// hold no LIKE wildcard (% or _) and no quote.
inline std::map<std::string, long> rows_containing(const AuthdProcess& authd, std::string needle) {
  for (char& c : needle) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto tables = columns_by_table(authd);
  std::string query;
  for (const auto& [table, columns] : tables) {
    if (!query.empty()) query += " union all ";
    query += "select '" + table + "'";
    for (const StoredColumn& column : columns)
      query += " || '|' || count(case when lower(cast(" + quoted_name(column.name) +
               " as text)) like '%" + needle + "%' then 1 end)";
    query += " from " + quoted_name(table);
  }
  std::map<std::string, long> found;
  std::size_t tables_read = 0;
  for (const std::string& line : lines(authd.sql(query))) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    for (std::string field; std::getline(in, field, '|');) fields.push_back(field);
    auto table = std::find_if(tables.begin(), tables.end(), [&](const auto& t) {
      return !fields.empty() && t.first == fields[0];
    });
    if (table == tables.end() || fields.size() != table->second.size() + 1) {
      ADD_FAILURE() << "unexpected line: " << line;
      continue;
    }
    ++tables_read;
    for (std::size_t i = 0; i < table->second.size(); ++i)
      if (long rows = std::stol(fields[i + 1]); rows != 0)
        found[table->first + "." + table->second[i].name] = rows;
  }
  EXPECT_EQ(tables_read, tables.size()) << "cannot read every table";
  return found;
}

// Every non-null value of every table, each as the upper-case hex of its
// bytes (a text column's UTF-8, a BLOB's or BYTEA's bytes): what is stored,
// whatever the column's type. One query per table.
inline std::map<std::string, std::vector<std::string>> stored_values_in_hex(
    const AuthdProcess& authd) {
  std::map<std::string, std::vector<std::string>> values;
  for (const auto& [table, columns] : columns_by_table(authd)) {
    std::string query;
    for (const StoredColumn& column : columns) {
      std::string name = quoted_name(column.name);
      // hex(): SQLite's, or the one the test databases on PostgreSQL get.
      std::string expression =
          !on_postgres() || column.bytes
              ? "hex(" + name + ")"
              : "upper(encode(convert_to(cast(" + name + " as text), 'UTF8'), 'hex'))";
      if (!query.empty()) query += " union all ";
      query += "select " + expression + " from " + quoted_name(table);
    }
    values[table] = lines(authd.sql(query));
    for (const std::string& value : values[table])
      if (value.find_first_not_of("0123456789ABCDEF") != std::string::npos)
        ADD_FAILURE() << "cannot read " << table << ": " << value;
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
