// interface.md 10.2: admin keys, made, listed and revoked with
// `authd admin-key create|list|revoke` on the database a running server
// uses, and what is stored of them.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"

// Inside authd::test::admin, not with a using-directive: the unity build
// puts several test files in one translation unit, and a directive in the
// shared unnamed namespace would reach the files after this one.
namespace authd::test::admin {
namespace {

std::string lowercase_text(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The JSON lines of `authd admin-key list` (stdout only).
std::vector<nlohmann::json> listed_keys(const AuthdProcess& authd, std::string* raw = nullptr) {
  KeyCommand listed = admin_key_command(authd, {"list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.out << listed.err;
  if (raw) *raw = listed.out;
  std::vector<nlohmann::json> keys;
  for (const std::string& line : lines(listed.out)) {
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
    EXPECT_TRUE(parsed.is_object()) << "not a JSON object: " << line;
    keys.push_back(parsed);
  }
  return keys;
}

nlohmann::json listed_key_named(const AuthdProcess& authd, const std::string& name) {
  for (const nlohmann::json& key : listed_keys(authd))
    if (key.value("name", "") == name) return key;
  return nullptr;
}

// interface.md 10.2: `create` prints the key alone on one line of stdout:
// `authdak_` and at least 43 base64url characters; each key is new, and
// the key works at once on the running server.
TEST(AdminKeys, Interface_10_2_3_CreatePrintsTheKeyAloneOnOneLineOfStdout) {
  AuthdProcess authd(fast_hashing());
  KeyCommand created = admin_key_command(authd, {"create", "--name", "ops", "--scope", "write"});
  ASSERT_EQ(created.exit_code, 0) << created.out << created.err;
  ASSERT_FALSE(created.out.empty());
  EXPECT_EQ(created.out.back(), '\n');
  std::string key = created.out.substr(0, created.out.size() - 1);
  EXPECT_EQ(key.find('\n'), std::string::npos) << created.out;
  EXPECT_TRUE(matches(key, admin_key_pattern())) << created.out;
  EXPECT_EQ(created.err.find(key.substr(8)), std::string::npos) << "the key on stderr too";

  std::string other = create_key(authd, "ops-2", "read");
  EXPECT_NE(other, key);
  EXPECT_NE(other.substr(8, 20), key.substr(8, 20));

  for (const std::string& k : {key, other}) {
    HttpResponse res = call(authd, k, "GET", "/admin/users");
    EXPECT_EQ(res.status, 200) << res.body;
  }
}

// interface.md 10.2: the key is stored only as its SHA-256 digest: no
// column of admin_keys holds the key or its random part, and one holds
// the digest.
TEST(AdminKeys, Interface_10_2_1_KeyIsStoredOnlyAsItsSha256Digest) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  ASSERT_EQ(call(authd, key, "GET", "/admin/users").status, 200);  // and its last use recorded
  std::map<std::string, std::vector<std::string>> every_table = stored_values_in_hex(authd);
  const std::vector<std::string>& stored = every_table["admin_keys"];
  ASSERT_FALSE(stored.empty()) << "no admin_keys rows?";
  const std::string secret_part = key.substr(8);
  bool digest_found = false;
  for (const std::string& value : stored) {
    EXPECT_EQ(value.find(hex_of(key)), std::string::npos) << "the key in clear";
    EXPECT_EQ(value.find(hex_of(secret_part)), std::string::npos) << "the key's random part";
    EXPECT_EQ(value.find(hex_of(secret_part.substr(0, 16))), std::string::npos)
        << "a part of the key";
    if (value == sha256_hex(key) || value == sha256_hex(secret_part)) digest_found = true;
  }
  EXPECT_TRUE(digest_found) << "no column holds SHA-256 of the key";
  // Nor anywhere else in the database.
  for (const auto& [table, values] : every_table) {
    if (table == "admin_keys") continue;
    for (const std::string& value : values)
      EXPECT_EQ(value.find(hex_of(secret_part)), std::string::npos) << "in " << table;
  }
}

// interface.md 10.2 and 9.2: the key appears in no log line, at any level,
// whether it is accepted or refused.
TEST(AdminKeys, Interface_10_2_1_KeyIsNeverLogged) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--log-level", "debug"});
  AuthdProcess authd(args);
  std::string key = create_key(authd, "ops", "read");
  EXPECT_EQ(call(authd, key, "GET", "/admin/users").status, 200);
  EXPECT_EQ(call(authd, key, "DELETE", "/admin/users/" + std::string(36, '0')).status, 403);
  EXPECT_EQ(call(authd, key + "x", "GET", "/admin/users").status, 401);
  EXPECT_EQ(
      call(authd, key, "GET", "/admin/users", std::nullopt, {{"X-Request-Id", "last"}}).status,
      200);
  ASSERT_TRUE(wait_for_log(authd, "\"last\""));
  std::string log = authd.log_text();
  for (const std::string& secret :
       {key.substr(8), key.substr(8, 16), sha256_hex(key), lowercase_text(sha256_hex(key)),
        sha256_hex(key.substr(8)), lowercase_text(sha256_hex(key.substr(8)))})
    EXPECT_EQ(log.find(secret), std::string::npos) << secret;
}

// interface.md 10.2: `list` prints one JSON object per key, exactly
// {name, scope, createdAt, lastUsedAt}, never the key or its digest;
// lastUsedAt is null until the key is used, then a timestamp.
TEST(AdminKeys, Interface_10_2_4_ListPrintsOneJsonObjectPerKeyWithoutSecrets) {
  AuthdProcess authd(fast_hashing());
  std::string writer = create_key(authd, "ops-writer", "write");
  std::string reader = create_key(authd, "ops.reader_1", "read");
  std::string raw;
  std::vector<nlohmann::json> keys = listed_keys(authd, &raw);
  ASSERT_EQ(keys.size(), 2u) << raw;
  std::map<std::string, std::string> scopes;
  for (const nlohmann::json& key : keys) {
    std::set<std::string> members;
    for (const auto& [name, value] : key.items()) members.insert(name);
    EXPECT_EQ(members, (std::set<std::string>{"name", "scope", "createdAt", "lastUsedAt"})) << key;
    ASSERT_TRUE(key["createdAt"].is_string()) << key;
    EXPECT_TRUE(matches(key["createdAt"].get<std::string>(), timestamp_pattern())) << key;
    EXPECT_TRUE(key["lastUsedAt"].is_null()) << key;
    scopes[key.value("name", "")] = key.value("scope", "");
  }
  EXPECT_EQ(scopes, (std::map<std::string, std::string>{{"ops-writer", "write"},
                                                        {"ops.reader_1", "read"}}));

  ASSERT_EQ(call(authd, reader, "GET", "/admin/users").status, 200);
  nlohmann::json used;
  ASSERT_TRUE(eventually([&] {
    used = listed_key_named(authd, "ops.reader_1");
    return used.is_object() && used["lastUsedAt"].is_string();
  })) << used;
  EXPECT_TRUE(matches(used["lastUsedAt"].get<std::string>(), timestamp_pattern())) << used;
  EXPECT_GE(used["lastUsedAt"].get<std::string>(), used["createdAt"].get<std::string>());
  EXPECT_TRUE(listed_key_named(authd, "ops-writer")["lastUsedAt"].is_null());

  ASSERT_EQ(admin_key_command(authd, {"list"}).exit_code, 0);
  listed_keys(authd, &raw);
  for (const std::string& key : {writer, reader}) {
    for (const std::string& secret :
         {key.substr(8), key.substr(8, 16), sha256_hex(key), lowercase_text(sha256_hex(key)),
          sha256_hex(key.substr(8)), lowercase_text(sha256_hex(key.substr(8)))})
      EXPECT_EQ(raw.find(secret), std::string::npos) << secret << " in " << raw;
  }
}

// interface.md 10.2: `revoke` ends a key at once, on the running server,
// with 401 invalid_token; other keys keep working; an unknown name exits 4.
TEST(AdminKeys, Interface_10_2_5_RevokedKeyGets401InvalidTokenAtOnce) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  std::string other = create_key(authd, "other", "read");
  ASSERT_EQ(call(authd, key, "GET", "/admin/users").status, 200);  // known, maybe cached

  KeyCommand revoked = admin_key_command(authd, {"revoke", "--name", "ops"});
  EXPECT_EQ(revoked.exit_code, 0) << revoked.out << revoked.err;
  for (int i = 0; i < 3; ++i) {
    HttpResponse res = call(authd, key, "GET", "/admin/users");
    expect_credentials_error(res, 401, kInvalidKey, "revoked key");
  }
  expect_credentials_error(
      call(authd, key, "POST", "/admin/users", nlohmann::json{{"email", "new@example.com"}}), 401,
      kInvalidKey, "revoked key, POST");
  EXPECT_EQ(call(authd, other, "GET", "/admin/users").status, 200);
  EXPECT_EQ(lines(authd.sql("select count(*) from users")), std::vector<std::string>{"0"});

  KeyCommand unknown = admin_key_command(authd, {"revoke", "--name", "nobody"});
  EXPECT_EQ(unknown.exit_code, 4) << unknown.out << unknown.err;
  EXPECT_EQ(call(authd, other, "GET", "/admin/users").status, 200);
}

// interface.md 10.2: names are 1 to 64 characters of A-Z a-z 0-9 . _ -
// (else exit 2), unique (exit 3); the scope is read or write (else exit 2).
// A refused command creates nothing.
TEST(AdminKeys, Interface_10_2_2_And_10_2_3_NamesAndScopesAreChecked) {
  AuthdProcess authd(fast_hashing());
  create_key(authd, "a", "read");
  create_key(authd, std::string(64, 'n'), "write");
  create_key(authd, "Ops.team_2-B", "write");

  for (const std::string& name :
       {std::string(""), std::string(65, 'n'), std::string("two words"), std::string("caf\xC3\xA9"),
        std::string("a/b"), std::string("a:b"), std::string("tab\there"),
        std::string("new\nline")}) {
    KeyCommand refused = admin_key_command(authd, {"create", "--name", name, "--scope", "read"});
    EXPECT_EQ(refused.exit_code, 2) << "name '" << name << "': " << refused.out << refused.err;
    EXPECT_TRUE(refused.out.find("authdak_") == std::string::npos) << refused.out;
  }
  for (const char* scope : {"admin", "", "READ WRITE", "readwrite"}) {
    KeyCommand refused = admin_key_command(authd, {"create", "--name", "b", "--scope", scope});
    EXPECT_EQ(refused.exit_code, 2) << "scope '" << scope << "': " << refused.out << refused.err;
    EXPECT_TRUE(refused.out.find("authdak_") == std::string::npos) << refused.out;
  }
  for (const char* name : {"a", "Ops.team_2-B"}) {
    KeyCommand taken = admin_key_command(authd, {"create", "--name", name, "--scope", "read"});
    EXPECT_EQ(taken.exit_code, 3) << name << ": " << taken.out << taken.err;
    EXPECT_TRUE(taken.out.find("authdak_") == std::string::npos) << taken.out;
  }
  std::set<std::string> names;
  for (const nlohmann::json& key : listed_keys(authd)) names.insert(key.value("name", ""));
  EXPECT_EQ(names, (std::set<std::string>{"a", std::string(64, 'n'), "Ops.team_2-B"}));
}

// interface.md 10.2.4: the list is ordered by name, whatever the order of
// creation.
TEST(AdminKeys, Interface_10_2_4_ListIsOrderedByName) {
  AuthdProcess authd(fast_hashing());
  for (const char* name : {"zeta", "alpha", "mid.key", "beta"}) create_key(authd, name, "read");
  std::vector<std::string> names;
  for (const nlohmann::json& key : listed_keys(authd)) names.push_back(key.value("name", ""));
  EXPECT_EQ(names, (std::vector<std::string>{"alpha", "beta", "mid.key", "zeta"}));
}

// interface.md 10.2.5: a revoked key's name may be given to a new key; the
// old key stays refused, the new one works.
TEST(AdminKeys, Interface_10_2_5_ARevokedNameMayBeGivenToANewKey) {
  AuthdProcess authd(fast_hashing());
  std::string old_key = create_key(authd, "ops", "write");
  ASSERT_EQ(admin_key_command(authd, {"revoke", "--name", "ops"}).exit_code, 0);
  std::string new_key = create_key(authd, "ops", "read");
  EXPECT_NE(new_key, old_key);
  expect_credentials_error(call(authd, old_key, "GET", "/admin/users"), 401, kInvalidKey,
                           "the revoked key");
  EXPECT_EQ(call(authd, new_key, "GET", "/admin/users").status, 200);
  std::vector<nlohmann::json> keys = listed_keys(authd);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0]["scope"], "read");
}

// interface.md 10.2.6: an admin key is no session token and a session
// token no admin key: each is refused on the other's routes as unknown.
TEST(AdminKeys, Interface_10_2_6_KeysAndSessionTokensAreNotInterchangeable) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  for (const char* route : {"/me", "/sessions"}) {
    HttpResponse res = get_with_token(authd.port(), route, key);
    EXPECT_EQ(res.status, 401) << route;
    EXPECT_EQ(res.header("WWW-Authenticate"), kInvalidKey) << route;
  }
  expect_credentials_error(call(authd, token, "GET", "/admin/users"), 401, kInvalidKey,
                           "a session token on an admin route");
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 200);
}

// interface.md 10.2: a read key reads; a write key reads and changes.
TEST(AdminKeys, Interface_10_2_7_ReadAndWriteScopes) {
  AuthdProcess authd(fast_hashing());
  std::string reader = create_key(authd, "reader", "read");
  std::string writer = create_key(authd, "writer", "write");
  nlohmann::json user = create_user(authd, writer, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  EXPECT_EQ(get_user(authd, reader, user["id"]), user);
  EXPECT_EQ(get_user(authd, writer, user["id"]), user);
  expect_error(
      call(authd, reader, "POST", "/admin/users", nlohmann::json{{"email", "b@example.com"}}), 403,
      "read key, POST /admin/users");
}

}  // namespace
}  // namespace authd::test::admin
