// interface.md 7.2: POST /reset with the token of a reset mail. Real HTTP,
// real mails (the log transport); the SMTP path is in smtp_test.cpp.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// Mails become due at once, so tests wait only for the worker's poll.
std::vector<std::string> reset_args(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1ms"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Asks for a reset mail for `email` and returns the token of its link;
// `mails_before` is how many mails the directory held before.
std::string mailed_token(const AuthdProcess& authd, const std::string& email,
                         std::size_t mails_before = 0) {
  EXPECT_EQ(post_json(authd.port(), "/forgot", forgot_body(email)).status, 200);
  auto mails = authd.wait_for_mails(mails_before + 1);
  if (mails.size() != mails_before + 1) {
    ADD_FAILURE() << "no reset mail arrived";
    return "";
  }
  return reset_token_in(mails.back());
}

HttpResponse reset(const AuthdProcess& authd, const std::string& token,
                   const std::string& password) {
  return post_json(authd.port(), "/reset", reset_body(token, password));
}

// interface.md 7.2: the new password works and the old one does not, the
// token is consumed, every session of the user is revoked, emailVerifiedAt
// is set, and the answer is the full User.
TEST(Reset, Interface_7_2_SetsPasswordConsumesTokenRevokesSessionsVerifiesEmail) {
  AuthdProcess authd(reset_args());
  auto [first_session, second_session] = user_with_two_sessions(authd);
  nlohmann::json before = show_user(authd, kEmail);
  ASSERT_TRUE(before["emailVerifiedAt"].is_null()) << before;
  std::string token = mailed_token(authd, kEmail);
  ASSERT_FALSE(token.empty());

  HttpResponse res = reset(authd, token, kNewPassword);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json user = res.json();
  expect_full_user(user);
  EXPECT_EQ(user["email"], kEmail);
  EXPECT_EQ(user["id"], before["id"]);
  EXPECT_TRUE(user["emailVerifiedAt"].is_string()) << user;
  EXPECT_NE(user["updatedAt"], before["updatedAt"]);
  EXPECT_EQ(show_user(authd, kEmail)["emailVerifiedAt"], user["emailVerifiedAt"]);

  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 401);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kNewPassword)).status, 200);
  for (const std::string& session : {first_session, second_session})
    EXPECT_EQ(get_with_token(authd.port(), "/me", session).status, 401);

  // The token works once.
  HttpResponse again = reset(authd, token, "yet another passphrase");
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(again.body, unauthorized_body());
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kNewPassword)).status, 200);
  EXPECT_EQ(lines(authd.sql("select count(*) from reset_tokens")), std::vector<std::string>{"0"});
}

// interface.md 7.2: an e-mail already verified keeps its first verification time.
TEST(Reset, Interface_7_2_KeepsAnEarlierEmailVerification) {
  AuthdProcess authd(reset_args());
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(authd.cli({"user", "verify-email", "--email", kEmail}), 0);
  nlohmann::json verified = show_user(authd, kEmail)["emailVerifiedAt"];
  ASSERT_TRUE(verified.is_string());
  HttpResponse res = reset(authd, mailed_token(authd, kEmail), kNewPassword);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.json()["emailVerifiedAt"], verified);
}

// interface.md 7.2: body shape and password length (400) come before the
// token (401); a 400 carries a detail and never uses the token up.
TEST(Reset, Interface_7_2_BodyAndLengthAre400BeforeTheToken) {
  AuthdProcess authd(reset_args());
  authd.add_user(kEmail, kPassword);
  std::string token = mailed_token(authd, kEmail);
  const std::string unknown = "authdrt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  const std::vector<std::string> bad_bodies = {
      R"({"password": "a brand new passphrase"})",
      R"({"token": "TOKEN"})",
      R"({"token": "", "password": "a brand new passphrase"})",
      R"({"token": "TOKEN", "password": ""})",
      R"({"token": 7, "password": "a brand new passphrase"})",
      R"({"token": "TOKEN", "password": null})",
      R"({"token": ["TOKEN"], "password": "a brand new passphrase"})",
      R"({"token": "TOKEN", "password": "short"})",
      R"({"token": "UNKNOWN", "password": "short"})",
      R"({"token": "TOKEN", "password": "TOO_LONG"})",
      R"(["TOKEN", "a brand new passphrase"])",
      R"({"token": "TOKEN", "token": "TOKEN", "password": "a brand new passphrase"})",
  };
  for (std::string body : bad_bodies) {
    for (auto [name, value] :
         {std::pair{std::string("UNKNOWN"), unknown}, std::pair{std::string("TOKEN"), token},
          std::pair{std::string("TOO_LONG"), emoji(256)}}) {
      for (auto at = body.find(name); at != std::string::npos; at = body.find(name))
        body.replace(at, name.size(), value);
    }
    HttpResponse res = post_json(authd.port(), "/reset", body);
    EXPECT_EQ(res.status, 400) << body;
    EXPECT_EQ(res.json()["message"], "Bad Request") << body;
    EXPECT_TRUE(res.json()["detail"].is_string()) << res.body;
  }
  // 8 code points (multi-byte ones) is long enough: the rule counts code points.
  EXPECT_EQ(reset(authd, unknown, emoji(8)).status, 401);

  // None of those used the token up.
  EXPECT_EQ(reset(authd, token, kNewPassword).status, 200);
}

// interface.md 7.2: the token is checked before the rule that the password
// differs from the e-mail; that 400 leaves the token usable.
TEST(Reset, Interface_7_2_PasswordEqualToEmailIs400AfterTheToken) {
  AuthdProcess authd(reset_args());
  authd.add_user(kEmail, kPassword);
  const std::string unknown = "authdrt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  EXPECT_EQ(reset(authd, unknown, kEmail).status, 401);

  std::string token = mailed_token(authd, kEmail);
  for (const std::string& same : {kEmail, std::string("ALICE@Example.COM")}) {
    HttpResponse res = reset(authd, token, same);
    EXPECT_EQ(res.status, 400) << same;
    EXPECT_NE(res.json().value("detail", "").find("e-mail"), std::string::npos) << res.body;
  }
  EXPECT_EQ(reset(authd, token, kNewPassword).status, 200);
  EXPECT_EQ(authd.login(kEmail, kEmail), "");
}

// interface.md 7.2: unknown or malformed tokens, and session tokens, are 401.
TEST(Reset, Interface_7_2_UnknownTokenIs401) {
  AuthdProcess authd(reset_args());
  authd.add_user(kEmail, kPassword);
  std::string session = authd.login(kEmail, kPassword);
  for (const std::string& token :
       {std::string("authdrt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), std::string("x"),
        session, std::string("authdrt_") + std::string(300, 'A')}) {
    HttpResponse res = reset(authd, token, kNewPassword);
    EXPECT_EQ(res.status, 401) << token;
    EXPECT_EQ(res.body, unauthorized_body());
  }
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 7.2: an expired token is 401 (and the password is unchanged).
TEST(Reset, Interface_7_2_ExpiredTokenIs401) {
  AuthdProcess authd(reset_args({"--reset-token-lifetime", "1ms"}));
  authd.add_user(kEmail, kPassword);
  std::string token = mailed_token(authd, kEmail);
  EXPECT_EQ(reset(authd, token, kNewPassword).status, 401);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 7.2: a token of a disabled account is 401, and disabling
// voids it for good (enabling again does not bring it back).
TEST(Reset, Interface_7_2_TokenOfDisabledAccountIs401) {
  AuthdProcess authd(reset_args());
  authd.add_user(kEmail, kPassword);
  std::string token = mailed_token(authd, kEmail);
  ASSERT_EQ(authd.cli({"user", "disable", "--email", kEmail}), 0);
  EXPECT_EQ(reset(authd, token, kNewPassword).status, 401);
  ASSERT_EQ(authd.cli({"user", "enable", "--email", kEmail}), 0);
  EXPECT_EQ(reset(authd, token, kNewPassword).status, 401);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 6 /forgot 3: a newer mail's token voids the older one.
TEST(Reset, Interface_6_Forgot_3_NewerMailVoidsOlderToken) {
  AuthdProcess authd(reset_args({"--reset-mail-limit-short", "5/1m"}));
  authd.add_user(kEmail, kPassword);
  std::string older = mailed_token(authd, kEmail, 0);
  std::string newer = mailed_token(authd, kEmail, 1);
  ASSERT_NE(older, newer);
  EXPECT_EQ(reset(authd, older, kNewPassword).status, 401);
  EXPECT_EQ(reset(authd, newer, kNewPassword).status, 200);
}

// A completed reset proves control of the address: it lifts the lockout
// that failed guesses put on the e-mail (interface.md 6 /login 4), so the
// owner can log in at once with the new password.
TEST(Reset, ResetLiftsTheEmailLockout) {
  AuthdProcess authd(reset_args({"--login-email-limit", "3/15m"}));
  authd.add_user(kEmail, kPassword);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong guess")).status, 401);
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 429);
  ASSERT_EQ(reset(authd, mailed_token(authd, kEmail), kNewPassword).status, 200);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kNewPassword)).status, 200);
}

// interface.md 7.2 (single use) under concurrency: of many simultaneous
// resets with one token, exactly one succeeds.
TEST(Reset, Interface_7_2_ConcurrentResetsWithOneTokenSucceedOnce) {
  AuthdProcess authd(reset_args());
  authd.add_user(kEmail, kPassword);
  std::string token = mailed_token(authd, kEmail);
  constexpr int kClients = 8;
  std::atomic<int> ok{0}, unauthorized{0}, other{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      int status = reset(authd, token, kNewPassword + std::to_string(i)).status;
      (status == 200 ? ok : status == 401 ? unauthorized : other)++;
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(unauthorized.load(), kClients - 1);
  EXPECT_EQ(other.load(), 0);
}

// interface.md 1.6 and 1.4: /reset takes JSON only.
TEST(Reset, Interface_1_6_ResetWithoutJsonIs415) {
  AuthdProcess authd(reset_args());
  HttpResponse res = send_request(authd.port(), "POST", "/reset", {{"Content-Type", "text/plain"}},
                                  R"({"token":"x","password":"a brand new passphrase"})");
  EXPECT_EQ(res.status, 415);
}

}  // namespace
}  // namespace authd::test
