// interface.md 5.3 (lifetime) and 6 /logout, with GET /me (7.1) and the
// account's own routes (11.1-11.3), which answer the same statuses for the
// same credentials. Over real HTTP.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

struct BearerRoute {
  const char* method;
  const char* path;
  const char* body = "";  // a valid one where the route checks its body first (1.10)
};
constexpr BearerRoute kBearerRoutes[] = {
    {"POST", "/logout"},
    {"GET", "/me"},
    {"POST", "/password",
     R"({"currentPassword":"correct horse battery staple","newPassword":"a new passphrase"})"},
    {"GET", "/sessions"},
    {"DELETE", "/sessions"},
    {"DELETE", "/sessions/01234567-89ab-4def-8123-456789abcdef"},
};

HttpResponse call(unsigned short port, const BearerRoute& route, Headers headers) {
  std::string body = route.body;
  if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
  return send_request(port, route.method, route.path, headers, body);
}

// interface.md 6 /logout 1 (and 7.1 for /me): no Authorization header, or
// another scheme: 401 with the realm challenge.
TEST(Session, Interface_6_Logout_1_MissingOrOtherSchemeIs401WithRealm) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  const std::vector<Headers> cases = {
      {},
      {{"Authorization", "Basic YWxpY2U6cGFzc3dvcmQ="}},
      {{"Authorization", "Basic xxx"}},
      {{"Authorization", "Token " + token}},
      {{"Authorization", "Bearertoken " + token}},
  };
  for (const BearerRoute& route : kBearerRoutes) {
    for (const Headers& headers : cases) {
      HttpResponse res = call(authd.port(), route, headers);
      std::string what =
          std::string(route.path) + (headers.empty() ? " (none)" : " " + headers[0].second);
      EXPECT_EQ(res.status, 401) << what;
      EXPECT_EQ(res.body, unauthorized_body()) << what;
      EXPECT_EQ(res.header("WWW-Authenticate"), R"(Bearer realm="authd")") << what;
    }
  }
  // None of these touched the session.
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 200);
}

// interface.md 6 /logout 2: Bearer with missing or malformed credentials,
// or several Authorization headers: 400, error="invalid_request".
TEST(Session, Interface_6_Logout_2_MalformedBearerIs400InvalidRequest) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  const std::vector<Headers> cases = {
      {{"Authorization", "Bearer"}},
      {{"Authorization", "Bearer "}},
      {{"Authorization", "Bearer\t" + token}},
      {{"Authorization", "Bearer a b"}},
      {{"Authorization", "Bearer " + token + " extra"}},
      {{"Authorization", "Bearer to\"ken"}},
      {{"Authorization", "Bearer =abc"}},
      {{"Authorization", "Bearer " + token}, {"Authorization", "Bearer " + token}},
      {{"Authorization", "Bearer " + token}, {"Authorization", "Basic xxx"}},
  };
  for (const BearerRoute& route : kBearerRoutes) {
    for (const Headers& headers : cases) {
      HttpResponse res = call(authd.port(), route, headers);
      std::string what = std::string(route.path) + " " + nlohmann::json(headers).dump();
      EXPECT_EQ(res.status, 400) << what;
      EXPECT_EQ(res.json()["code"], 400) << what;
      EXPECT_EQ(res.json()["message"], "Bad Request") << what;
      EXPECT_EQ(res.header("WWW-Authenticate"), R"(Bearer error="invalid_request")") << what;
    }
  }
  // The token itself is still valid: a malformed request revokes nothing.
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 200);
}

// interface.md 6 /logout 3: unknown token: 401, error="invalid_token".
TEST(Session, Interface_6_Logout_3_UnknownTokenIs401InvalidToken) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  std::string forged = token.substr(0, token.size() - 1) + (token.back() == 'A' ? "B" : "A");
  for (const BearerRoute& route : kBearerRoutes) {
    for (const std::string& bad : {forged, std::string("authd_unknown"), std::string("x")}) {
      HttpResponse res = call(authd.port(), route, {{"Authorization", "Bearer " + bad}});
      EXPECT_EQ(res.status, 401) << route.path << " " << bad;
      EXPECT_EQ(res.body, unauthorized_body());
      EXPECT_EQ(res.header("WWW-Authenticate"), R"(Bearer error="invalid_token")");
    }
  }
}

// interface.md 6 /logout 2: the scheme is case-insensitive and one or more
// spaces may separate it from the token.
TEST(Session, Interface_6_Logout_2_SchemeCaseInsensitiveAndSeveralSpaces) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  for (const std::string& value : {"bearer " + token, "BEARER " + token, "BeArEr   " + token}) {
    HttpResponse me = send_request(authd.port(), "GET", "/me", {{"Authorization", value}});
    EXPECT_EQ(me.status, 200) << value;
  }
  HttpResponse logout =
      send_request(authd.port(), "POST", "/logout", {{"Authorization", "bearer  " + token}});
  EXPECT_EQ(logout.status, 200);
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 401);
}

// interface.md 6 /logout 4: a valid token: 200 with the full User, the
// session is gone (same token: 401), other sessions stay valid.
TEST(Session, Interface_6_Logout_4_RevokesThisSessionOnly) {
  AuthdProcess authd(fast_hashing());
  auto [first, second] = user_with_two_sessions(authd);
  ASSERT_FALSE(first.empty() || second.empty());

  HttpResponse logout = post_with_token(authd.port(), "/logout", first);
  ASSERT_EQ(logout.status, 200) << logout.body;
  expect_full_user(logout.json());
  EXPECT_EQ(logout.json()["email"], kEmail);
  EXPECT_TRUE(logout.header("Authorization").empty());

  HttpResponse again = post_with_token(authd.port(), "/logout", first);
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(again.header("WWW-Authenticate"), R"(Bearer error="invalid_token")");
  EXPECT_EQ(get_with_token(authd.port(), "/me", first).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/me", second).status, 200);
  EXPECT_EQ(lines(authd.sql("select hex(token_digest) from sessions where revoked_at is null")),
            std::vector<std::string>{sha256_hex(second)});
}

// interface.md 6 /logout 4: disabling an account revokes all its sessions;
// enabling it again does not bring them back.
TEST(Session, Interface_6_Logout_4_DisablingRevokesAllSessions) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string first = authd.login(kEmail, kPassword);
  std::string second = authd.login(kEmail, kPassword);
  std::string bob = authd.login("bob@example.com", kPassword);
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());

  cli_json(authd, {"user", "disable", "--email", kEmail});
  for (const std::string& token : {first, second}) {
    EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 401);
    EXPECT_EQ(post_with_token(authd.port(), "/logout", token).status, 401);
  }
  cli_json(authd, {"user", "enable", "--email", kEmail});
  for (const std::string& token : {first, second}) {
    HttpResponse me = get_with_token(authd.port(), "/me", token);
    EXPECT_EQ(me.status, 401);
    EXPECT_EQ(me.header("WWW-Authenticate"), R"(Bearer error="invalid_token")");
  }
  EXPECT_EQ(get_with_token(authd.port(), "/me", bob).status, 200);
  EXPECT_FALSE(authd.login(kEmail, kPassword).empty());
}

// interface.md 6 /logout 5: a request body, of any type, is ignored.
TEST(Session, Interface_6_Logout_5_RequestBodyIsIgnored) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string first = authd.login(kEmail, kPassword);
  std::string second = authd.login(kEmail, kPassword);
  HttpResponse text = send_request(
      authd.port(), "POST", "/logout",
      {{"Authorization", "Bearer " + first}, {"Content-Type", "text/plain"}}, "not json at all");
  EXPECT_EQ(text.status, 200) << text.body;
  HttpResponse json =
      send_request(authd.port(), "POST", "/logout",
                   {{"Authorization", "Bearer " + second}, {"Content-Type", "application/json"}},
                   R"({"token":"something else","a":1,"a":2})");
  EXPECT_EQ(json.status, 200) << json.body;
  EXPECT_EQ(get_with_token(authd.port(), "/me", second).status, 401);
}

// interface.md 7.1: GET /me answers 200 with the full User for a live token.
TEST(Session, Interface_7_1_MeReturnsTheFullUser) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword, {"--display-name", "Alice"});
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  HttpResponse me = get_with_token(authd.port(), "/me", token_of(login));
  ASSERT_EQ(me.status, 200);
  expect_full_user(me.json());
  EXPECT_EQ(me.json(), login.json());
  EXPECT_EQ(me.header("Cache-Control"), "no-store");
  // Reading the session changes nothing.
  EXPECT_EQ(get_with_token(authd.port(), "/me", token_of(login)).json(), login.json());
}

// interface.md 5.3: a token past its lifetime is refused like an unknown
// one (the wait lets time pass; it does not wait for the server).
TEST(Session, Interface_5_3_ExpiredTokenIsRefused) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--session-lifetime", "2s", "--prune-interval", "200ms"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(get_with_token(authd.port(), "/me", token).status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  for (const BearerRoute& route : kBearerRoutes) {
    HttpResponse res = call(authd.port(), route, {{"Authorization", "Bearer " + token}});
    EXPECT_EQ(res.status, 401) << route.path;
    EXPECT_EQ(res.body, unauthorized_body());
    EXPECT_EQ(res.header("WWW-Authenticate"), R"(Bearer error="invalid_token")");
  }
  // Expired rows are pruned in the background.
  EXPECT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from sessions where hex(token_digest) = '" +
                           sha256_hex(token) + "'")) == std::vector<std::string>{"0"};
  }));
  // A fresh login works again.
  EXPECT_FALSE(authd.login(kEmail, kPassword).empty());
}

}  // namespace
}  // namespace authd::test
