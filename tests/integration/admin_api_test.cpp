// interface.md 10.1, 10.2 and 1.10 on the admin routes: where they are
// served, how their credentials are read, the order in which the rules
// answer, and what a read key may not do.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"

// Inside authd::test::admin, not with a using-directive: the unity build
// puts several test files in one translation unit, and a directive in the
// shared unnamed namespace would reach the files after this one.
namespace authd::test::admin {
namespace {

const std::string kApiUnknownId = "01890a5d-ac96-774b-bcce-b302099a8057";

std::set<std::string> allowed_methods(const HttpResponse& res) {
  std::set<std::string> methods;
  std::string value = res.header("Allow");
  std::string current;
  for (char c : value + ",") {
    if (c == ',') {
      if (!current.empty()) methods.insert(current);
      current.clear();
    } else if (c != ' ') {
      current += c;
    }
  }
  return methods;
}

// Every admin route with a method that changes something, and a valid body,
// in an order in which each still finds its target.
struct AdminChange {
  std::string method;
  std::string target;
  std::optional<nlohmann::json> body;
};

std::vector<AdminChange> every_admin_change(const std::string& user_id,
                                            const std::string& session_id) {
  return {
      {"POST", "/admin/users", nlohmann::json{{"email", "new@example.com"}}},
      {"PATCH", "/admin/users/" + user_id, nlohmann::json{{"displayName", "Changed"}}},
      {"DELETE", "/admin/sessions/" + session_id, std::nullopt},
      {"DELETE", "/admin/users/" + user_id + "/sessions", std::nullopt},
      {"DELETE", "/admin/users/" + user_id + "/mfa", std::nullopt},
      {"PUT", "/admin/users/" + user_id + "/password", nlohmann::json{{"password", kNewPassword}}},
      {"DELETE", "/admin/users/" + user_id, std::nullopt},
  };
}

HttpResponse send_change(const AuthdProcess& authd, const std::string& key,
                         const AdminChange& change) {
  if (change.body) return call(authd, key, change.method, change.target, *change.body);
  return call(authd, key, change.method, change.target);
}

// interface.md 10.1: the admin routes are served on the management
// listener only; the public listener answers 404 to /admin/... (even with
// a valid key) and to /metrics. /metrics and /healthz need no credentials.
TEST(AdminApi, Interface_10_1_1_AdminRoutesAreServedOnTheManagementListenerOnly) {
  AuthdProcess authd(fast_hashing());
  ASSERT_NE(authd.admin_port(), 0);
  std::string key = create_key(authd, "ops", "write");
  nlohmann::json user = create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  const std::string id = user["id"];

  Headers with_key = {{"Authorization", "Bearer " + key}};
  Headers json_with_key = {{"Authorization", "Bearer " + key},
                           {"Content-Type", "application/json"}};
  const std::vector<std::tuple<std::string, std::string, Headers, std::string>> public_requests = {
      {"GET", "/admin/users", with_key, ""},
      {"GET", "/admin/users", {}, ""},
      {"POST", "/admin/users", json_with_key, R"({"email":"bob@example.com"})"},
      {"GET", "/admin/users/" + id, with_key, ""},
      {"PATCH", "/admin/users/" + id, json_with_key, R"({"displayName":"x"})"},
      {"DELETE", "/admin/users/" + id, with_key, ""},
      {"GET", "/admin/users/" + id + "/sessions", with_key, ""},
      {"DELETE", "/admin/users/" + id + "/mfa", with_key, ""},
      {"GET", "/metrics", {}, ""},
  };
  for (const auto& [method, target, headers, body] : public_requests) {
    HttpResponse res = send_request(authd.port(), method, target, headers, body);
    expect_error(res, 404, "public " + method + " " + target);
  }
  // Nothing of that reached the admin routes.
  nlohmann::json after = get_user(authd, key, id);
  EXPECT_EQ(after, user);

  HttpResponse metrics = send_request(authd.admin_port(), "GET", "/metrics");
  EXPECT_EQ(metrics.status, 200);
  HttpResponse health = send_request(authd.admin_port(), "GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
}

// interface.md 10.1: `--admin-listen off`: no management listener, and the
// public listener still knows no /admin/... path.
TEST(AdminApi, Interface_10_1_1_AdminListenOffServesNoAdminRoutes) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--admin-listen", "off"});
  AuthdProcess authd(args);
  EXPECT_EQ(authd.admin_port(), 0);
  std::string key = create_key(authd, "ops", "write");
  expect_error(
      send_request(authd.port(), "GET", "/admin/users", {{"Authorization", "Bearer " + key}}), 404,
      "public /admin/users");
}

// interface.md 10.1 and 1.2: every admin answer carries Cache-Control:
// no-store and is JSON.
TEST(AdminApi, Interface_10_4_1_AdminAnswersAreJsonAndNoStore) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  HttpResponse created =
      call(authd, key, "POST", "/admin/users", nlohmann::json{{"email", kEmail}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json()["id"];
  std::vector<HttpResponse> answers = {
      created,
      call(authd, key, "GET", "/admin/users"),
      call(authd, key, "GET", "/admin/users?email=" + url_encode(kEmail)),
      call(authd, key, "GET", "/admin/users/" + id),
      call(authd, key, "PATCH", "/admin/users/" + id, nlohmann::json{{"displayName", "A"}}),
      call(authd, key, "GET", "/admin/users/" + id + "/sessions"),
      call(authd, key, "PUT", "/admin/users/" + id + "/password",
           nlohmann::json{{"password", kPassword}}),
  };
  for (const HttpResponse& res : answers) {
    EXPECT_LT(res.status, 300) << res.body;
    EXPECT_EQ(res.header("Content-Type"), "application/json") << res.body;
    EXPECT_EQ(res.header("Cache-Control"), "no-store") << res.body;
    EXPECT_FALSE(res.header("X-Request-Id").empty());
    EXPECT_NO_THROW(res.json()) << res.body;
  }
  for (const std::string& target :
       {"/admin/users/" + id + "/sessions", "/admin/users/" + id + "/mfa", "/admin/users/" + id}) {
    HttpResponse res = call(authd, key, "DELETE", target);
    EXPECT_EQ(res.status, 204) << target << " " << res.body;
    EXPECT_TRUE(res.body.empty()) << target;
    EXPECT_EQ(res.header("Cache-Control"), "no-store") << target;
  }
}

// interface.md 10.2 with 6 /logout 1-3: no Authorization or another
// scheme: 401 realm; malformed Bearer credentials or two Authorization
// headers: 400 invalid_request; an unknown key (or a user's session
// token): 401 invalid_token. The scheme is matched in any letter case.
TEST(AdminApi, Interface_10_2_6_CredentialsAreReadLikeBearerTokens) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  authd.add_user(kEmail, kPassword);
  std::string session_token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(session_token.empty());
  const std::string bob = R"({"email":"bob@example.com"})";

  for (const auto& [method, target, body] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"GET", "/admin/users", ""},
           {"POST", "/admin/users", bob},
           {"GET", "/admin/users/" + kApiUnknownId, ""},
           {"DELETE", "/admin/sessions/" + kApiUnknownId, ""}}) {
    auto request = [&, method = method, target = target, body = body](Headers headers) {
      if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
      return send_request(authd.admin_port(), method, target, headers, body);
    };
    const std::string what = method + " " + target;
    expect_credentials_error(request({}), 401, kNoCredentials, what + " without Authorization");
    expect_credentials_error(request({{"Authorization", "Basic b3BzOnNlY3JldA=="}}), 401,
                             kNoCredentials, what + " Basic");
    expect_credentials_error(request({{"Authorization", "Token " + key}}), 401, kNoCredentials,
                             what + " Token scheme");
    for (const std::string& malformed :
         {std::string("Bearer"), "Bearer\t" + key, "Bearer " + key + " extra",
          "Bearer " + key + ",x", std::string("Bearer ke$y"), std::string("Bearer a=b"),
          std::string("Bearer \xC3\xA9t\xC3\xA9")}) {
      HttpResponse res = request({{"Authorization", malformed}});
      expect_credentials_error(res, 400, kMalformedCredentials, what + " '" + malformed + "'");
      nlohmann::json answer = nlohmann::json::parse(res.body, nullptr, false);
      if (answer.is_object() && answer.contains("detail")) {
        EXPECT_EQ(answer["detail"], "authorization: malformed bearer credentials") << res.body;
      }
    }
    expect_credentials_error(
        request({{"Authorization", "Bearer " + key}, {"Authorization", "Bearer " + key}}), 400,
        kMalformedCredentials, what + " two Authorization headers");
    for (const std::string& unknown :
         {"authdak_" + std::string(43, 'A'), key.substr(0, key.size() - 1) + "x", key.substr(8),
          session_token, std::string("abc")}) {
      expect_credentials_error(request({{"Authorization", "Bearer " + unknown}}), 401, kInvalidKey,
                               what + " unknown key " + unknown);
    }
  }
  // The scheme in any letter case, and more than one space before the key.
  for (const char* scheme : {"bearer ", "BEARER ", "Bearer   "}) {
    HttpResponse res =
        send_request(authd.admin_port(), "GET", "/admin/users", {{"Authorization", scheme + key}});
    EXPECT_EQ(res.status, 200) << "'" << scheme << "' " << res.body;
  }
  // None of the refused requests created anything.
  EXPECT_EQ(lines(authd.sql("select count(*) from users")), std::vector<std::string>{"1"});
}

// interface.md 10.2: a read key reads everything and changes nothing: 403
// on every POST, PATCH, PUT and DELETE, with nothing changed; the write key
// then does each of them.
TEST(AdminApi, Interface_10_2_7_ReadKeyGets403OnEveryChange) {
  AuthdProcess authd(fast_hashing());
  std::string reader = create_key(authd, "reader", "read");
  std::string writer = create_key(authd, "writer", "write");
  nlohmann::json user = create_user(authd, writer, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  const std::string id = user["id"];
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  HttpResponse sessions = call(authd, reader, "GET", "/admin/users/" + id + "/sessions");
  ASSERT_EQ(sessions.status, 200) << sessions.body;
  ASSERT_EQ(sessions.json()["sessions"].size(), 1u) << sessions.body;
  const std::string session_id = sessions.json()["sessions"][0]["id"];
  nlohmann::json before = get_user(authd, reader, id);

  for (const AdminChange& change : every_admin_change(id, session_id)) {
    HttpResponse res = send_change(authd, reader, change);
    expect_error(res, 403, "read key: " + change.method + " " + change.target);
    EXPECT_EQ(res.header("WWW-Authenticate"), "") << change.method << " " << change.target;
  }
  EXPECT_EQ(get_user(authd, reader, id), before);
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 200);
  EXPECT_EQ(lines(authd.sql("select count(*) from users")), std::vector<std::string>{"1"});

  // The write key may do each (in an order where each still has its target).
  for (const AdminChange& change : every_admin_change(id, session_id)) {
    HttpResponse res = send_change(authd, writer, change);
    EXPECT_GE(res.status, 200) << change.method << " " << change.target << " " << res.body;
    EXPECT_LT(res.status, 300) << change.method << " " << change.target << " " << res.body;
  }
  EXPECT_EQ(call(authd, reader, "GET", "/admin/users/" + id).status, 404);
}

// interface.md 1.10 on the admin routes: 404 unknown path, then 405 with
// Allow, then 415, then 400 for the body, then the credentials (400/401),
// then the scope (403), then the outcome (404, 409).
TEST(AdminApi, Interface_10_4_2_And_1_10_AdminRulesAnswerInTheirOrder) {
  AuthdProcess authd(fast_hashing());
  std::string reader = create_key(authd, "reader", "read");
  std::string writer = create_key(authd, "writer", "write");
  nlohmann::json user = create_user(authd, writer, {{"email", kEmail}});
  ASSERT_TRUE(user.is_object());
  const std::string id = user["id"];

  // 2. A body over the limit (1.5): 413, before anything else.
  const std::string huge =
      R"({"email":"bob@example.com","displayName":")" + std::string(20 * 1024, 'x') + R"("})";
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"POST", "/admin/users"},
                                                        {"PATCH", "/admin/users/" + id},
                                                        {"POST", "/admin/nothing"},
                                                        {"GET", "/admin/users"}}) {
    expect_error(call(authd, "", method, path, std::optional<std::string>(huge)), 413,
                 method + " " + path + " over the limit");
  }

  // 3. Unknown paths, whatever the method or credentials.
  for (const std::string& path :
       {std::string("/admin"), std::string("/admin/"), std::string("/admin/nothing"),
        std::string("/admin/users/") + id + "/nothing", std::string("/admin/users/") + id + "/",
        std::string("/admin/users/") + id + "/sessions/" + kApiUnknownId,
        std::string("/admin/sessions"), std::string("/admin/users/a/b/c/d"),
        std::string("/admin/events/1")}) {
    expect_error(send_request(authd.admin_port(), "GET", path), 404, "GET " + path);
    expect_error(call(authd, writer, "DELETE", path), 404, "DELETE " + path);
  }

  // 4. Known paths, other methods: 405 with Allow, before any credentials.
  const std::vector<std::tuple<std::string, std::string, std::set<std::string>>> wrong_methods = {
      {"PUT", "/admin/users", {"GET", "POST"}},
      {"DELETE", "/admin/users", {"GET", "POST"}},
      {"PATCH", "/admin/users", {"GET", "POST"}},
      {"POST", "/admin/users/" + id, {"GET", "PATCH", "DELETE"}},
      {"PUT", "/admin/users/" + id, {"GET", "PATCH", "DELETE"}},
      {"GET", "/admin/users/" + id + "/password", {"PUT"}},
      {"POST", "/admin/users/" + id + "/password", {"PUT"}},
      {"POST", "/admin/users/" + id + "/sessions", {"GET", "DELETE"}},
      {"GET", "/admin/sessions/" + kApiUnknownId, {"DELETE"}},
      {"GET", "/admin/users/" + id + "/mfa", {"DELETE"}},
  };
  for (const auto& [method, path, allowed] : wrong_methods) {
    for (const std::string& key : {std::string(), reader, std::string("not-a-key")}) {
      HttpResponse res = call(authd, key, method, path);
      expect_error(res, 405, method + " " + path);
      EXPECT_EQ(allowed_methods(res), allowed)
          << method << " " << path << ": " << res.header("Allow");
    }
  }

  // 5. Routes with a JSON body need application/json: 415 before the body
  // and the credentials.
  const std::vector<std::pair<std::string, std::string>> json_routes = {
      {"POST", "/admin/users"},
      {"PATCH", "/admin/users/" + id},
      {"PUT", "/admin/users/" + id + "/password"},
  };
  for (const auto& [method, path] : json_routes) {
    for (const Headers& headers :
         {Headers{}, Headers{{"Content-Type", "text/plain"}},
          Headers{{"Content-Type", "application/x-www-form-urlencoded"}},
          Headers{{"Content-Type", "application/json"}, {"Content-Type", "application/json"}}}) {
      expect_error(send_request(authd.admin_port(), method, path, headers, "not json"), 415,
                   method + " " + path + " without credentials");
      Headers keyed = headers;
      keyed.emplace_back("Authorization", "Bearer " + reader);
      expect_error(send_request(authd.admin_port(), method, path, keyed, R"({"email":1})"), 415,
                   method + " " + path + " read key");
    }
    // Parameters and letter case are fine (1.6): the answer is not a 415.
    HttpResponse ok = send_request(authd.admin_port(), method, path,
                                   {{"Content-Type", "Application/JSON; charset=utf-8"}}, "{}");
    EXPECT_NE(ok.status, 415) << method << " " << path;
  }

  // 6. An invalid body: 400, before the credentials and the scope.
  const std::vector<std::pair<std::string, std::string>> invalid = {
      {"POST", "/admin/users"},
      {"PATCH", "/admin/users/" + id},
      {"PUT", "/admin/users/" + id + "/password"},
      {"PATCH", "/admin/users/" + kApiUnknownId},
      {"PUT", "/admin/users/" + kApiUnknownId + "/password"},
  };
  for (const auto& [method, path] : invalid) {
    for (const std::string& key : {std::string(), std::string("authdak_unknown"), reader}) {
      HttpResponse res = call(authd, key, method, path, std::optional<std::string>("[1,2]"));
      expect_error(res, 400, method + " " + path + " key '" + key.substr(0, 10) + "'");
      EXPECT_EQ(res.header("WWW-Authenticate"), "") << method << " " << path;
    }
  }

  // 7. Credentials before the scope and the outcome.
  const std::vector<AdminChange> changes = {
      {"DELETE", "/admin/users/" + kApiUnknownId, std::nullopt},
      {"PATCH", "/admin/users/" + kApiUnknownId, nlohmann::json{{"displayName", "x"}}},
      {"POST", "/admin/users", nlohmann::json{{"email", kEmail}}},  // would be 409
  };
  for (const AdminChange& change : changes) {
    expect_credentials_error(send_change(authd, "", change), 401, kNoCredentials,
                             change.method + " " + change.target);
    expect_credentials_error(send_change(authd, "authdak_" + std::string(43, 'z'), change), 401,
                             kInvalidKey, change.method + " " + change.target);
    // 8. The scope before the outcome.
    expect_error(send_change(authd, reader, change), 403, change.method + " " + change.target);
  }
  // 6. The query of GET /admin/users, after the key and its scope.
  expect_credentials_error(call(authd, "", "GET", "/admin/users?limit=0"), 401, kNoCredentials,
                           "bad query without a key");
  expect_error(call(authd, reader, "GET", "/admin/users?limit=0"), 400, "bad query, read key");
  // 7. The outcome: an unknown id before the password's rule of PUT...
  expect_error(call(authd, writer, "PUT", "/admin/users/" + kApiUnknownId + "/password",
                    nlohmann::json{{"password", kEmail}}),
               404, "PUT unknown id with the e-mail as password");
  expect_error(call(authd, writer, "PUT", "/admin/users/" + id + "/password",
                    nlohmann::json{{"password", "ALICE@example.com"}}),
               400, "PUT with the account's e-mail as password");
  // ... while POST's password rules are body rules: 400 before the 409.
  expect_error(call(authd, writer, "POST", "/admin/users",
                    nlohmann::json{{"email", kEmail}, {"password", "short"}}),
               400, "POST taken e-mail, short password");
  expect_error(call(authd, writer, "POST", "/admin/users",
                    nlohmann::json{{"email", kEmail}, {"password", kEmail}}),
               400, "POST taken e-mail, the e-mail as password");
  // 9. The outcome.
  expect_error(send_change(authd, writer, changes[0]), 404, "DELETE unknown");
  expect_error(send_change(authd, writer, changes[1]), 404, "PATCH unknown");
  HttpResponse conflict = send_change(authd, writer, changes[2]);
  expect_error(conflict, 409, "POST existing e-mail");
  EXPECT_EQ(conflict.body, R"({"code":409,"message":"Conflict"})");
  expect_error(call(authd, reader, "GET", "/admin/users/" + kApiUnknownId), 404, "GET unknown");
  expect_credentials_error(call(authd, "", "GET", "/admin/users/" + kApiUnknownId), 401,
                           kNoCredentials, "GET unknown without credentials");
}

// interface.md 10.4.1: no admin route is throttled: a flood of unknown
// keys and invalid bodies, well past every throttling limit, gets 401 and
// 400, never 429, and a valid key still works.
TEST(AdminApi, Interface_10_4_1_NoAdminRouteIsThrottled) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--login-client-limit", "5/15m", "--forgot-client-limit", "5/15m"});
  AuthdProcess authd(args);
  std::string key = create_key(authd, "ops", "write");
  std::multiset<int> statuses;
  for (int i = 0; i < 30; ++i) {
    statuses.insert(call(authd, "authdak_" + std::string(43, static_cast<char>('a' + i % 26)),
                         "GET", "/admin/users")
                        .status);
    statuses.insert(
        call(authd, key, "POST", "/admin/users", std::optional<std::string>("not json")).status);
    statuses.insert(call(authd, key, "POST", "/admin/users",
                         nlohmann::json{{"email", "u" + std::to_string(i) + "@example.com"},
                                        {"password", kPassword}})
                        .status);
  }
  EXPECT_EQ(statuses.count(401), 30u);
  EXPECT_EQ(statuses.count(400), 30u);
  EXPECT_EQ(statuses.count(201), 30u);
  EXPECT_EQ(call(authd, key, "GET", "/admin/users").status, 200);
}

// interface.md 10.4.2: ids in paths are UUIDs read in any letter case and
// answered in lower case: a user's and a session's id in upper case name
// the same user and session.
TEST(AdminApi, Interface_10_4_2_IdsAreReadInAnyLetterCase) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  nlohmann::json user = create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  auto upper = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
  };
  const std::string id = user["id"];
  const std::string id_upper = upper(id);
  ASSERT_NE(id_upper, id);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  user = get_user(authd, key, id);

  HttpResponse got = call(authd, key, "GET", "/admin/users/" + id_upper);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.json(), user);
  EXPECT_EQ(got.json()["id"], id);  // answered in lower case
  HttpResponse sessions = call(authd, key, "GET", "/admin/users/" + id_upper + "/sessions");
  ASSERT_EQ(sessions.status, 200) << sessions.body;
  const nlohmann::json listed = sessions.json()["sessions"];
  ASSERT_EQ(listed.size(), 1u);
  const std::string session_id = listed[0]["id"];
  HttpResponse patched =
      call(authd, key, "PATCH", "/admin/users/" + id_upper, nlohmann::json{{"displayName", "A"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json()["id"], id);
  EXPECT_EQ(call(authd, key, "DELETE", "/admin/sessions/" + upper(session_id)).status, 204);
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 401);
  EXPECT_EQ(call(authd, key, "DELETE", "/admin/users/" + id_upper + "/mfa").status, 204);
  EXPECT_EQ(call(authd, key, "DELETE", "/admin/users/" + id_upper).status, 204);
  EXPECT_EQ(call(authd, key, "GET", "/admin/users/" + id).status, 404);
}

// interface.md 9.2, 10.4 and 7.4: at debug level, the admin routes' log
// lines hold no e-mail address in clear, no password, no hash and no key,
// and neither does /metrics, whose requests are counted by route pattern
// (no user id in it either).
TEST(AdminApi, Interface_9_2_And_10_2_1_NoAddressSecretOrIdInTheLogOrMetrics) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--log-level", "debug"});
  AuthdProcess authd(args);
  std::string key = create_key(authd, "ops", "write");
  const std::string password = "Secret-Admin-Passphrase-1";
  const std::string other_password = "Secret-Admin-Passphrase-2";
  const std::string hash = argon2id_hash("Secret-Imported-Passphrase-3");
  const std::string email = "zed.secretive@example.com";
  const std::string moved = "zed.moved@example.com";
  HttpResponse created = call(authd, key, "POST", "/admin/users",
                              nlohmann::json{{"email", email}, {"password", password}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json()["id"];
  HttpResponse imported =
      call(authd, key, "POST", "/admin/users",
           nlohmann::json{{"email", "imported@example.com"}, {"passwordHash", hash}});
  ASSERT_EQ(imported.status, 201) << imported.body;
  const std::string imported_id = imported.json()["id"];
  EXPECT_EQ(call(authd, key, "POST", "/admin/users",
                 nlohmann::json{{"email", "weak@example.com"}, {"password", "Secret7"}})
                .status,
            400);
  EXPECT_EQ(call(authd, key, "GET", "/admin/users?email=" + url_encode(email)).status, 200);
  EXPECT_EQ(call(authd, key, "GET", "/admin/users?email=" + email).status, 200);
  EXPECT_EQ(call(authd, key, "GET", "/admin/users/" + id).status, 200);
  EXPECT_EQ(call(authd, key, "GET", "/admin/users/" + id + "/sessions").status, 200);
  EXPECT_EQ(
      call(authd, key, "PATCH", "/admin/users/" + id, nlohmann::json{{"email", moved}}).status,
      200);
  EXPECT_EQ(call(authd, key, "PUT", "/admin/users/" + id + "/password",
                 nlohmann::json{{"password", other_password}})
                .status,
            200);
  EXPECT_EQ(call(authd, key, "DELETE", "/admin/users/" + imported_id, std::nullopt,
                 {{"X-Request-Id", "last"}})
                .status,
            204);
  ASSERT_TRUE(wait_for_log(authd, "\"last\""));
  std::string log = authd.log_text();
  std::string metrics = send_request(authd.admin_port(), "GET", "/metrics").body;
  for (const std::string& secret :
       {email, moved, std::string("imported@example.com"), std::string("weak@example.com"),
        url_encode(email), password, other_password, std::string("Secret7"), hash,
        hash.substr(hash.rfind('$') + 1), key.substr(8)}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << "in the log: " << secret;
    EXPECT_EQ(metrics.find(secret), std::string::npos) << "in /metrics: " << secret;
  }
  for (const std::string& user_id : {id, imported_id})
    EXPECT_EQ(metrics.find(user_id), std::string::npos) << "in /metrics: " << user_id;
}

}  // namespace
}  // namespace authd::test::admin
