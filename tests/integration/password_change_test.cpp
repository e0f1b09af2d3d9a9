// interface.md 11.1: POST /password, the caller's own password change, over
// real HTTP: the order of its checks, the login throttles it shares, what
// a success changes (the hash, the other sessions, reset tokens) and what
// it keeps (the caller's session), and no secret in its log or answers.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

std::string change_body(const std::string& current, const std::string& proposed) {
  return nlohmann::json{{"currentPassword", current}, {"newPassword", proposed}}.dump();
}

HttpResponse change(const AuthdProcess& authd, const std::string& token, const std::string& body,
                    const Headers& more = {}) {
  Headers headers = {{"Authorization", "Bearer " + token}};
  headers.insert(headers.end(), more.begin(), more.end());
  return post_json(authd.port(), "/password", body, headers);
}

std::vector<std::string> with_mail(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1ms"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// interface.md 11.1: 200 with the full User (updatedAt moved); the new
// password logs in and the old one does not; the caller's session stays,
// every other session of the user is revoked, another user's is not; a
// pending reset token is void; the new hash is argon2id.
TEST(PasswordChange, Interface_11_1_SuccessKeepsTheCallersSessionOnlyAndVoidsResetTokens) {
  AuthdProcess authd(with_mail());
  auto [caller, other] = user_with_two_sessions(authd);
  authd.add_user("bob@example.com", kPassword);
  std::string bob = authd.login("bob@example.com", kPassword);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  std::string reset_token = reset_token_in(mails[0]);
  ASSERT_FALSE(reset_token.empty());
  nlohmann::json before = get_with_token(authd.port(), "/me", caller).json();

  HttpResponse res = change(authd, caller, change_body(kPassword, kNewPassword));
  ASSERT_EQ(res.status, 200) << res.body;
  expect_full_user(res.json());
  EXPECT_EQ(res.json()["email"], kEmail);
  EXPECT_EQ(res.json()["id"], before["id"]);
  EXPECT_NE(res.json()["updatedAt"], before["updatedAt"]);
  EXPECT_TRUE(res.header("Authorization").empty());

  EXPECT_EQ(get_with_token(authd.port(), "/me", caller).json(), res.json());
  HttpResponse other_me = get_with_token(authd.port(), "/me", other);
  EXPECT_EQ(other_me.status, 401);
  EXPECT_EQ(other_me.header("WWW-Authenticate"), R"(Bearer error="invalid_token")");
  EXPECT_EQ(get_with_token(authd.port(), "/me", bob).status, 200);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 401);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kNewPassword)).status, 200);
  EXPECT_EQ(
      post_json(authd.port(), "/reset", reset_body(reset_token, "yet another passphrase")).status,
      401);
  std::string hash = without_trailing_newlines(
      authd.sql("select password_hash from users where email = '" + kEmail + "'"));
  EXPECT_EQ(hash.rfind("$argon2id$v=19$", 0), 0u) << hash;
  // interface.md 10.5: the store records the new hash's kind.
  std::string kind = hash.substr(0, hash.find('$', hash.find("p=")));
  EXPECT_EQ(
      lines(authd.sql("select count(*) from password_hash_kinds where kind = '" + kind + "'")),
      std::vector<std::string>{"1"});
}

// interface.md 11.1 and 1.10: the body's shape and the new password's rules
// (3.3) are 400, before the credentials are looked at; nothing changes and
// nothing is counted by the throttles.
TEST(PasswordChange, Interface_11_1_BodyShapeAndNewPasswordRulesAre400) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  const std::vector<std::string> bodies = {
      "not json",
      "[]",
      R"({"currentPassword":"correct horse battery staple"})",
      R"({"newPassword":"a brand new passphrase"})",
      R"({"currentPassword":1,"newPassword":"a brand new passphrase"})",
      R"({"currentPassword":"correct horse battery staple","newPassword":null})",
      R"({"currentPassword":"x","newPassword":"a brand new passphrase","newPassword":"b"})",
      change_body(kPassword, "short"),
      change_body(kPassword, "1234567"),
      change_body(kPassword, std::string(256, 'n')),
      change_body("", kNewPassword),
      change_body(std::string(256, 'c'), kNewPassword),
      change_body(kPassword, kEmail),
      change_body(kPassword, "ALICE@Example.COM"),
  };
  for (int round = 0; round < 2; ++round) {
    for (const std::string& body : bodies) {
      HttpResponse res = change(authd, token, body);
      EXPECT_EQ(res.status, 400) << body;
      EXPECT_EQ(res.json()["code"], 400) << body;
      EXPECT_EQ(res.json()["message"], "Bad Request") << body;
    }
  }
  // Before the credentials: the same 400 with no token at all.
  HttpResponse anonymous = post_json(authd.port(), "/password", change_body(kPassword, "short"));
  EXPECT_EQ(anonymous.status, 400);
  EXPECT_TRUE(anonymous.header("WWW-Authenticate").empty());
  // Not JSON as a media type: 415 (1.6).
  EXPECT_EQ(send_request(authd.port(), "POST", "/password",
                         {{"Authorization", "Bearer " + token}, {"Content-Type", "text/plain"}},
                         change_body(kPassword, kNewPassword))
                .status,
            415);
  // 28 refused requests counted nothing: the change still goes through.
  EXPECT_EQ(lines(authd.sql("select count(*) from throttle_events")),
            std::vector<std::string>{"0"});
  EXPECT_EQ(change(authd, token, change_body(kPassword, kNewPassword)).status, 200);
}

// interface.md 11.1: a wrong current password is 403, changes nothing, and
// counts as a failed login of the account's e-mail: after 10, the 11th
// attempt gets 429 with Retry-After, even with the right password, and so
// does /login for that e-mail. The body's 400 still comes first.
TEST(PasswordChange, Interface_11_1_WrongCurrentPasswordIs403AndCountsAsAFailedLogin) {
  AuthdProcess authd(fast_hashing());
  auto [caller, other] = user_with_two_sessions(authd);
  for (int i = 0; i < 10; ++i) {
    HttpResponse wrong = change(authd, caller, change_body("wrong password", kNewPassword));
    ASSERT_EQ(wrong.status, 403) << "attempt " << i + 1 << ": " << wrong.body;
    EXPECT_EQ(wrong.body, R"({"code":403,"message":"Forbidden"})");
  }
  HttpResponse blocked = change(authd, caller, change_body(kPassword, kNewPassword));
  EXPECT_EQ(blocked.status, 429) << blocked.body;
  EXPECT_EQ(blocked.body, R"({"code":429,"message":"Too Many Requests"})");
  expect_retry_after(blocked, 900);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 429);
  EXPECT_EQ(change(authd, caller, change_body(kPassword, "short")).status, 400);
  // Nothing changed: both sessions live, the password the same.
  EXPECT_EQ(get_with_token(authd.port(), "/me", other).status, 200);
  EXPECT_EQ(get_with_token(authd.port(), "/me", caller).status, 200);
}

// interface.md 11.1: a wrong current password counts for the client
// address too (6 /login 4: across e-mails), and failed logins throttle
// /password: both directions of one set of counters.
TEST(PasswordChange, Interface_11_1_WrongCurrentPasswordCountsForTheClientAddress) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--login-client-limit", "3/15m"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string alice = authd.login(kEmail, kPassword);
  std::string bob = authd.login("bob@example.com", kPassword);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(change(authd, alice, change_body("wrong password", kNewPassword)).status, 403);
  ASSERT_EQ(
      post_json(authd.port(), "/login", login_body("nobody@example.com", "wrong password")).status,
      401);
  // Three failures from this client: bob's right password is throttled.
  HttpResponse blocked = change(authd, bob, change_body(kPassword, kNewPassword));
  EXPECT_EQ(blocked.status, 429);
  expect_retry_after(blocked, 900);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body("bob@example.com", kPassword)).status,
            429);
  EXPECT_EQ(
      lines(authd.sql("select count(*) from throttle_events where key like 'login:client:%'")),
      std::vector<std::string>{"3"});
}

// interface.md 11.1: a success clears the e-mail's count, as a login's does.
TEST(PasswordChange, Interface_11_1_SuccessClearsTheEmailsCount) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  for (int i = 0; i < 9; ++i)
    ASSERT_EQ(change(authd, token, change_body("wrong password", kNewPassword)).status, 403);
  ASSERT_EQ(change(authd, token, change_body(kPassword, kNewPassword)).status, 200);
  for (int i = 0; i < 9; ++i)
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kNewPassword)).status, 200);
}

// interface.md 11.1 and 9.2: at debug level, neither password nor the
// token of a change, right or wrong, appears in the log or in an answer.
TEST(PasswordChange, Interface_11_1_NoPasswordOrTokenInTheLogOrAnswers) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--log-level", "debug"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  const std::string wrong = "Wrong-Current-Guess-7";
  const std::string proposed = "Secret-New-Passphrase-8";
  std::vector<HttpResponse> answers = {
      change(authd, token, change_body(wrong, proposed)),
      change(authd, token, change_body(kPassword, proposed.substr(0, 5))),
      change(authd, token, change_body(kPassword, proposed), {{"X-Request-Id", "last"}}),
  };
  EXPECT_EQ(answers[0].status, 403);
  EXPECT_EQ(answers[1].status, 400);
  EXPECT_EQ(answers[2].status, 200);
  ASSERT_TRUE(eventually([&] { return authd.log_text().find("\"last\"") != std::string::npos; }));
  std::string log = authd.log_text();
  const std::string hash = without_trailing_newlines(authd.sql("select password_hash from users"));
  for (const std::string& secret : {kPassword, wrong, proposed, proposed.substr(0, 5), token,
                                    token.substr(token.find('_') + 1), hash}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << "in the log: " << secret;
    for (const HttpResponse& res : answers)
      EXPECT_EQ(res.body.find(secret), std::string::npos) << "in an answer: " << secret;
  }
}

}  // namespace
}  // namespace authd::test
