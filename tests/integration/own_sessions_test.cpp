// interface.md 11.2 and 11.3: the caller's own sessions, listed and ended,
// over real HTTP: what a session records at login (client address,
// User-Agent), its public id, and the 404 that tells nothing of ids that
// are not the caller's.
#include <gtest/gtest.h>

#include <set>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

std::string login_from(const AuthdProcess& authd, const std::string& email,
                       const std::optional<std::string>& user_agent) {
  Headers headers;
  if (user_agent) headers.emplace_back("User-Agent", *user_agent);
  HttpResponse res = post_json(authd.port(), "/login", login_body(email, kPassword), headers);
  EXPECT_EQ(res.status, 200) << res.body;
  return token_of(res);
}

nlohmann::json sessions_of(const AuthdProcess& authd, const std::string& token) {
  HttpResponse res = get_with_token(authd.port(), "/sessions", token);
  EXPECT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  return res.json()["sessions"];
}

HttpResponse end_session(const AuthdProcess& authd, const std::string& token,
                         const std::string& id) {
  return send_request(authd.port(), "DELETE", "/sessions/" + id,
                      {{"Authorization", "Bearer " + token}});
}

// The public id of the caller's current session.
std::string current_id(const AuthdProcess& authd, const std::string& token) {
  for (const nlohmann::json& s : sessions_of(authd, token))
    if (s["current"] == true) return s["id"];
  ADD_FAILURE() << "no current session";
  return "";
}

// interface.md 11.2: the caller's live sessions, newest first, each with
// exactly its six members; a revoked session and another user's are left
// out; `current` marks the caller's own.
TEST(OwnSessions, Interface_11_2_SessionsListsTheCallersLiveSessionsNewestFirst) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string first = login_from(authd, kEmail, "first agent/1.0");
  std::string gone = login_from(authd, kEmail, "logged out");
  std::string third = login_from(authd, kEmail, std::nullopt);
  login_from(authd, "bob@example.com", "bob's agent");
  ASSERT_EQ(post_with_token(authd.port(), "/logout", gone).status, 200);

  nlohmann::json sessions = sessions_of(authd, first);
  ASSERT_EQ(sessions.size(), 2u) << sessions.dump();
  std::set<std::string> ids;
  for (const nlohmann::json& s : sessions) {
    std::set<std::string> members;
    for (const auto& [key, value] : s.items()) members.insert(key);
    EXPECT_EQ(members, (std::set<std::string>{"id", "createdAt", "expiresAt", "clientAddress",
                                              "userAgent", "current"}));
    EXPECT_TRUE(matches(s["id"], std::regex("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                                            "[0-9a-f]{12}$")))
        << s["id"];
    EXPECT_TRUE(matches(s["createdAt"], timestamp_pattern())) << s.dump();
    EXPECT_TRUE(matches(s["expiresAt"], timestamp_pattern())) << s.dump();
    EXPECT_LT(s["createdAt"].get<std::string>(), s["expiresAt"].get<std::string>());
    EXPECT_EQ(s["clientAddress"], "127.0.0.1");
    ids.insert(s["id"]);
  }
  EXPECT_EQ(ids.size(), 2u);
  // Newest first: the third login, then the first.
  EXPECT_EQ(sessions[0]["userAgent"], nullptr);
  EXPECT_EQ(sessions[0]["current"], false);
  EXPECT_EQ(sessions[1]["userAgent"], "first agent/1.0");
  EXPECT_EQ(sessions[1]["current"], true);
  EXPECT_GE(sessions[0]["createdAt"].get<std::string>(),
            sessions[1]["createdAt"].get<std::string>());
  // The same list from the other session, with `current` moved.
  nlohmann::json from_third = sessions_of(authd, third);
  ASSERT_EQ(from_third.size(), 2u);
  EXPECT_EQ(from_third[0]["id"], sessions[0]["id"]);
  EXPECT_EQ(from_third[0]["current"], true);
  EXPECT_EQ(from_third[1]["current"], false);
}

// interface.md 11.2: the User-Agent's first 256 bytes (a character that
// the 256th byte would cut is left out whole, bytes that are not UTF-8
// become U+FFFD), escaped so that the answer stays valid JSON.
TEST(OwnSessions, Interface_11_2_UserAgentIsItsFirst256BytesAsValidJson) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  const std::string quoted = R"(Agent "quoted" \ back\slash	tab)";
  const std::string long_ascii = std::string(300, 'a');
  const std::string cut_character = std::string(255, 'b') + "\xC3\xA9";  // 'é' at bytes 256-257
  const std::string not_utf8 = "caf\xE9 \xFF";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {quoted, quoted},
      {long_ascii, std::string(256, 'a')},
      {cut_character, std::string(255, 'b')},
      {not_utf8, "caf\xEF\xBF\xBD \xEF\xBF\xBD"},
  };
  for (const auto& [sent, shown] : cases) {
    std::string token = login_from(authd, kEmail, sent);
    HttpResponse res = get_with_token(authd.port(), "/sessions", token);
    ASSERT_EQ(res.status, 200);
    nlohmann::json sessions = res.json();  // throws unless valid JSON
    bool found = false;
    for (const nlohmann::json& s : sessions["sessions"])
      if (s["current"] == true) {
        EXPECT_EQ(s["userAgent"], shown) << sent;
        found = true;
      }
    EXPECT_TRUE(found);
  }
}

// interface.md 11.2 and 10.4: a session's id is neither its token nor the
// token's digest, nor anything that contains them.
TEST(OwnSessions, Interface_11_2_SessionIdIsNotTheTokenNorItsDigest) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  HttpResponse res = get_with_token(authd.port(), "/sessions", token);
  ASSERT_EQ(res.status, 200);
  std::string digest = sha256_hex(token);
  std::string lower_digest = digest;
  for (char& c : lower_digest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string& secret :
       {token, token.substr(token.find('_') + 1), digest, lower_digest, lower_digest.substr(0, 12)})
    EXPECT_EQ(res.body.find(secret), std::string::npos) << secret;
}

// interface.md 11.3: DELETE /sessions/{id} of one of the caller's own
// sessions is 204 with no body; that session is revoked durably (after a
// crash too), the caller's stays; the same id again is 404.
TEST(OwnSessions, Interface_11_3_DeletingOwnSessionIs204AndRevokesItDurably) {
  AuthdProcess authd(fast_hashing());
  auto [caller, other] = user_with_two_sessions(authd);
  std::string other_id = current_id(authd, other);
  ASSERT_FALSE(other_id.empty());

  HttpResponse res = end_session(authd, caller, other_id);
  EXPECT_EQ(res.status, 204);
  EXPECT_TRUE(res.body.empty());
  EXPECT_EQ(get_with_token(authd.port(), "/me", other).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/me", caller).status, 200);
  nlohmann::json left = sessions_of(authd, caller);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]["current"], true);

  HttpResponse again = end_session(authd, caller, other_id);
  EXPECT_EQ(again.status, 404);
  EXPECT_EQ(again.body, R"({"code":404,"message":"Not Found"})");

  authd.kill_hard();
  authd.start();
  EXPECT_EQ(get_with_token(authd.port(), "/me", other).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/me", caller).status, 200);
}

// interface.md 11.3: ids are UUIDs, compared whatever their case; the
// caller's own current session may be ended too (a logout).
TEST(OwnSessions, Interface_11_3_OwnIdInUpperCaseAndTheCurrentSessionEnd) {
  AuthdProcess authd(fast_hashing());
  auto [caller, other] = user_with_two_sessions(authd);
  std::string other_id = current_id(authd, other);
  std::string upper = other_id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(end_session(authd, caller, upper).status, 204);
  EXPECT_EQ(get_with_token(authd.port(), "/me", other).status, 401);
  EXPECT_EQ(end_session(authd, caller, current_id(authd, caller)).status, 204);
  EXPECT_EQ(get_with_token(authd.port(), "/me", caller).status, 401);
}

// interface.md 11.3: another user's session id, an unknown id and a
// malformed one get the same 404, and nothing is revoked.
TEST(OwnSessions, Interface_11_3_AnotherUsersSessionIdIs404) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string alice = authd.login(kEmail, kPassword);
  std::string bob = authd.login("bob@example.com", kPassword);
  std::string bob_id = current_id(authd, bob);
  ASSERT_FALSE(bob_id.empty());
  for (const std::string& id :
       {bob_id, std::string("01234567-89ab-4def-8123-456789abcdef"), std::string("not-a-uuid"),
        std::string("%00"), sha256_hex(bob), std::string(200, 'f')}) {
    HttpResponse res = end_session(authd, alice, id);
    EXPECT_EQ(res.status, 404) << id;
    EXPECT_EQ(res.body, R"({"code":404,"message":"Not Found"})") << id;
  }
  EXPECT_EQ(get_with_token(authd.port(), "/me", bob).status, 200);
  EXPECT_EQ(get_with_token(authd.port(), "/me", alice).status, 200);
  EXPECT_EQ(sessions_of(authd, bob).size(), 1u);
}

// interface.md 11.3: DELETE /sessions is 204 and revokes every session of
// the caller but the current one; another user's sessions stay.
TEST(OwnSessions, Interface_11_3_DeletingSessionsRevokesAllButTheCurrent) {
  AuthdProcess authd(fast_hashing());
  auto [caller, other] = user_with_two_sessions(authd);
  std::string third = authd.login(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string bob = authd.login("bob@example.com", kPassword);
  HttpResponse res =
      send_request(authd.port(), "DELETE", "/sessions", {{"Authorization", "Bearer " + caller}});
  EXPECT_EQ(res.status, 204);
  EXPECT_TRUE(res.body.empty());
  EXPECT_EQ(get_with_token(authd.port(), "/me", other).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/me", third).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/me", caller).status, 200);
  EXPECT_EQ(get_with_token(authd.port(), "/me", bob).status, 200);
  nlohmann::json left = sessions_of(authd, caller);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]["current"], true);
  // Nothing else to end: still 204.
  EXPECT_EQ(
      send_request(authd.port(), "DELETE", "/sessions", {{"Authorization", "Bearer " + caller}})
          .status,
      204);
}

// interface.md 1.4: the account's paths answer other methods with 405 and
// the methods they have; paths beside them are unknown (404).
TEST(OwnSessions, Interface_1_4_AccountPathsAnswerOtherMethodsWith405) {
  AuthdProcess authd(fast_hashing());
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"PUT", "/sessions", "GET, DELETE"},
      {"POST", "/sessions", "GET, DELETE"},
      {"GET", "/sessions/01234567-89ab-4def-8123-456789abcdef", "DELETE"},
      {"POST", "/sessions/anything", "DELETE"},
      {"GET", "/password", "POST"},
  };
  for (const auto& [method, path, allow] : cases) {
    HttpResponse res = send_request(authd.port(), method, path);
    EXPECT_EQ(res.status, 405) << method << " " << path;
    EXPECT_EQ(res.header("Allow"), allow) << method << " " << path;
  }
  for (const char* path : {"/sessions/", "/sessions/a/b", "/session", "/sessions/a/"}) {
    HttpResponse res = send_request(authd.port(), "DELETE", path);
    EXPECT_EQ(res.status, 404) << path;
  }
}

}  // namespace
}  // namespace authd::test
