// interface.md 18.2.5, 18.2.6, 18.3.7: an upstream sign-in of an account
// with a second factor asks for the factor before the session opens. The
// account is linked to the evil IdP's subject while it has no factor yet
// (18.4), then enrols TOTP (12); each test then plays a new browser that
// signs in through the IdP and answers the factor. TOTP codes come from
// oathtool (mfa_support.hpp). SQLite and PostgreSQL.
#include <memory>

#include <gtest/gtest.h>

#include "mfa_support.hpp"
#include "oidc_support.hpp"
#include "passkey_support.hpp"
#include "upstream_browser.hpp"
#include "upstream_doubles.hpp"

namespace authd::test {
namespace {

const std::string kFactorPage = "/signin/upstream/second-factor";

// POST /signin/upstream/second-factor from authd's own page: JSON, the
// page's Origin, the browser's cookies.
HttpResponse answer_factor(Browser& browser, const AuthdProcess& authd,
                           const nlohmann::json& body) {
  Headers headers = browser.headers();
  headers.emplace_back("Content-Type", "application/json");
  headers.emplace_back("Origin", kPublic);
  HttpResponse response = send_request(authd.port(), "POST", kFactorPage, headers, body.dump());
  browser.keep(response);
  return response;
}

class UpstreamSecondFactor : public ::testing::Test {
 protected:
  void SetUp() override {
    idp_ = std::make_unique<UpstreamDouble>("evil_idp.mjs", "authd-evil", kEvilCallback);
    idp_->control("PUT", "/_test/account",
                  {{"sub", "corp-1"}, {"email", kEmail}, {"email_verified", true}});
  }

  // authd with sign-up closed; kEmail linked to corp-1, then given TOTP
  // (unless `totp` is false: the caller gives it its factor).
  std::unique_ptr<AuthdProcess> start(std::vector<std::string> more = {}, bool totp = true) {
    auto authd = std::make_unique<AuthdProcess>(
        upstream_args(evil_table(*idp_, false) + table_extra_, more));
    authd->add_user(kEmail, kPassword);
    Browser owner;
    HttpResponse login = post_json(authd->port(), "/login", login_body(kEmail, kPassword));
    EXPECT_EQ(login.status, 200) << login.body;
    owner.keep(login);
    token_ = authd->login(kEmail, kPassword);
    HttpResponse link = send_request(authd->port(), "POST", "/identities/evil",
                                     {{"Authorization", "Bearer " + token_}});
    EXPECT_EQ(link.status, 200) << link.body;
    owner.keep(link);
    EXPECT_EQ(owner.get(*authd, through_idp(link.json()["location"])).status, 302);
    if (!totp) return authd;
    nlohmann::json started = begin_enrolment(*authd, token_);
    secret_ = started.value("secret", "");
    HttpResponse confirmed =
        mfa_call(*authd, token_, "/mfa/totp/confirm", {{"code", code_in_steps(secret_, -1)}});
    EXPECT_EQ(confirmed.status, 200) << confirmed.body;
    if (confirmed.status == 200)
      recovery_codes_ = confirmed.json()["recoveryCodes"].get<std::vector<std::string>>();
    return authd;
  }

  // A new browser through the IdP to the callback: its answer.
  HttpResponse upstream_sign_in(Browser& browser, const AuthdProcess& authd,
                                const std::string& start = "/signin/evil") {
    return browser.get(authd, through_idp(start_at(browser, authd, start)));
  }

  std::unique_ptr<UpstreamDouble> idp_;
  std::string table_extra_;  // more keys for the provider's table
  std::string token_;
  std::string secret_;
  std::vector<std::string> recovery_codes_;
};

TEST_F(UpstreamSecondFactor, Interface_18_3_7_TotpAfterTheUpstreamOpensTheSession) {
  auto authd = start();
  Browser browser;
  HttpResponse back = upstream_sign_in(browser, *authd);
  ASSERT_EQ(back.status, 302) << back.body;
  EXPECT_EQ(back.header("Location"), kPublic + kFactorPage);
  EXPECT_TRUE(browser.cookies["authd_session"].empty());
  // The binder stays, for the wait only.
  EXPECT_NE(set_cookie_line(back, "authd_upstream").find("Max-Age=300"), std::string::npos);
  EXPECT_FALSE(browser.cookies["authd_upstream"].empty());

  HttpResponse page = browser.get(*authd, kFactorPage);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_NE(page.body.find("data-factors=\"totp\""), std::string::npos) << page.body;
  EXPECT_NE(page.header("Content-Security-Policy").find("frame-ancestors 'none'"),
            std::string::npos);
  EXPECT_EQ(page.header("X-Frame-Options"), "DENY");

  HttpResponse done = answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}});
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(done.json()["location"], kPublic + "/signed-in");
  EXPECT_FALSE(browser.cookies["authd_session"].empty());
  EXPECT_TRUE(browser.cookies["authd_upstream"].empty());
  EXPECT_EQ(me(*authd, browser)["email"], kEmail);
  EXPECT_NE(authd->sql("SELECT amr FROM sessions").find("fed otp mfa"), std::string::npos);
  std::string succeeded = events_of(*authd, "login.succeeded");
  EXPECT_NE(succeeded.find("\"secondFactor\":\"totp\""), std::string::npos) << succeeded;
  EXPECT_NE(succeeded.find("\"provider\":\"evil\""), std::string::npos) << succeeded;
  // 18.2.6: where a flow with nowhere to go back to ends.
  HttpResponse landing = send_request(authd->port(), "GET", "/signed-in");
  EXPECT_EQ(landing.status, 200);
  EXPECT_NE(landing.body.find("You are signed in"), std::string::npos);
}

// interface.md 8.2: the factor's try takes the address's login throttle key
// before the account's row, in /login's order (which knows the address
// first); the other order met a /login in flight in a deadlock.
TEST_F(UpstreamSecondFactor, Interface_8_2_TheFactorTakesTheLoginKeyBeforeTheAccount) {
  AUTHD_POSTGRES_ONLY();
  auto authd = start();
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  HttpResponse done = answer_beside_a_writer(
      *authd,
      "SELECT pg_advisory_xact_lock(hashtextextended('login:email:" + std::string(kEmail) +
          "', 0))",
      "SELECT id FROM users WHERE email = '" + std::string(kEmail) + "' FOR UPDATE", [&] {
        return answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}});
      });
  EXPECT_EQ(done.status, 200) << done.body;
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_RecoveryCodeServesAsTheFactor) {
  auto authd = start();
  ASSERT_FALSE(recovery_codes_.empty());
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  HttpResponse done = answer_factor(browser, *authd, {{"recoveryCode", recovery_codes_[0]}});
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(me(*authd, browser)["email"], kEmail);
  std::string succeeded = events_of(*authd, "login.succeeded");
  EXPECT_NE(succeeded.find("\"secondFactor\":\"recovery_code\""), std::string::npos);
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_WrongCodeIs401AndCountsAsFailedLogin) {
  auto authd = start({"--login-email-limit", "2/15m"});
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  HttpResponse missing = answer_factor(browser, *authd, nlohmann::json::object());
  EXPECT_EQ(missing.status, 401) << missing.body;
  EXPECT_EQ(missing.header("Authd-Second-Factor"), "totp");
  HttpResponse wrong = answer_factor(browser, *authd, {{"otp", "000000"}});
  EXPECT_EQ(wrong.status, 401) << wrong.body;
  EXPECT_TRUE(browser.cookies["authd_session"].empty());
  std::string failed = events_of(*authd, "login.failed");
  EXPECT_NE(failed.find("\"reason\":\"second_factor\""), std::string::npos) << failed;
  EXPECT_NE(failed.find("\"provider\":\"evil\""), std::string::npos) << failed;
  // The address's failed logins (6 /login): the third is over the limit,
  // even with the right code, and /login with the password is too.
  HttpResponse over = answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}});
  EXPECT_EQ(over.status, 429) << over.body;
  EXPECT_EQ(login_with(*authd, {{"otp", code_in_steps(secret_, 0)}}).status, 429);
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_FiveWrongTriesVoidTheFlow) {
  auto authd = start();
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(answer_factor(browser, *authd, {{"otp", "000000"}}).status, 401) << i;
  HttpResponse after = answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}});
  EXPECT_EQ(after.status, 400) << after.body;
  EXPECT_EQ(after.json()["code"], 400) << after.body;  // authd's JSON error (2.5)
  EXPECT_TRUE(browser.cookies["authd_session"].empty());
  EXPECT_EQ(browser.get(*authd, kFactorPage).status, 400);
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_AnotherBrowserIsRefused) {
  auto authd = start();
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  Browser other;  // no binder
  EXPECT_EQ(answer_factor(other, *authd, {{"otp", code_in_steps(secret_, 0)}}).status, 400);
  other.cookies["authd_upstream"] = "not-the-flows-binder";
  EXPECT_EQ(answer_factor(other, *authd, {{"otp", code_in_steps(secret_, 0)}}).status, 400);
  EXPECT_EQ(other.get(*authd, kFactorPage).status, 400);
  // Not from authd's own page (no Origin): refused before anything.
  Headers foreign = browser.headers();
  foreign.emplace_back("Content-Type", "application/json");
  EXPECT_EQ(send_request(authd->port(), "POST", kFactorPage, foreign, "{}").status, 403);
  // The flow's own browser still gets through.
  EXPECT_EQ(answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}}).status, 200);
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_ExpiredWaitIsRefused) {
  auto authd = start();
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  // Five minutes later: the wait's end moved into the past.
  authd->sql("UPDATE upstream_flows SET awaiting_until = awaiting_until - 300001");
  EXPECT_EQ(answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}}).status, 400);
  EXPECT_TRUE(browser.cookies["authd_session"].empty());
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_UsedFlowCannotBeReplayed) {
  auto authd = start();
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  const std::string binder = browser.cookies["authd_upstream"];
  ASSERT_EQ(answer_factor(browser, *authd, {{"recoveryCode", recovery_codes_[0]}}).status, 200);
  Browser replay;
  replay.cookies["authd_upstream"] = binder;
  EXPECT_EQ(answer_factor(replay, *authd, {{"recoveryCode", recovery_codes_[1]}}).status, 400);
  EXPECT_TRUE(replay.cookies["authd_session"].empty());
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_WaitingAuthorizationRequestContinuesAfterFactor) {
  auto authd = start({"--oidc", "on"});
  nlohmann::json client = register_client(*authd);
  Pkce pkce;
  HttpResponse waiting = authorize(*authd, code_request(client["clientId"], pkce));
  ASSERT_EQ(waiting.status, 302) << waiting.body;
  std::string request_id = location_parameters(waiting)["request"];
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd, "/signin/evil?request=" + request_id).status, 302);
  HttpResponse done = answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}});
  ASSERT_EQ(done.status, 200) << done.body;
  SplitUrl resume = split_url(done.json()["location"]);
  EXPECT_EQ(resume.target, "/oauth2/authorize/resume?request=" + request_id);
  HttpResponse coded = browser.get(*authd, resume.target);
  ASSERT_EQ(coded.status, 302) << coded.body;
  std::string code = location_parameters(coded)["code"];
  ASSERT_FALSE(code.empty()) << coded.header("Location");
  HttpResponse tokens = exchange_code(*authd, client, code, pkce);
  ASSERT_EQ(tokens.status, 200) << tokens.body;
  nlohmann::json claims = jwt_payload(tokens.json()["id_token"]);
  EXPECT_EQ(claims["amr"], nlohmann::json::array({"fed", "otp", "mfa"})) << claims.dump();
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_AccountDisabledMeanwhileIsRefused) {
  auto authd = start();
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  authd->sql("UPDATE users SET disabled = TRUE");
  HttpResponse refused = answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}});
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_TRUE(browser.cookies["authd_session"].empty());
  std::string failed = events_of(*authd, "login.failed");
  EXPECT_NE(failed.find("\"reason\":\"disabled\""), std::string::npos) << failed;
  // The flow is over.
  authd->sql("UPDATE users SET disabled = FALSE");
  EXPECT_EQ(answer_factor(browser, *authd, {{"otp", code_in_steps(secret_, 0)}}).status, 400);
}

TEST_F(UpstreamSecondFactor, Interface_18_3_7_PasskeyServesAsTheFactor) {
  auto authd = start({"--webauthn-rp-id", kRpId, "--webauthn-origins", kOrigin}, false);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(*authd, token_, device).status, 201);
  Browser browser;
  ASSERT_EQ(upstream_sign_in(browser, *authd).status, 302);
  HttpResponse page = browser.get(*authd, kFactorPage);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_NE(page.body.find("id=\"second-factor-passkey\""), std::string::npos) << page.body;

  // An assertion for another origin: refused (16.7.2), counted.
  Tamper elsewhere;
  elsewhere.origin = "https://evil.example";
  HttpResponse wrong = answer_factor(
      browser, *authd, {{"webauthn", device.get(request_options(*authd), kOrigin, elsewhere)}});
  EXPECT_EQ(wrong.status, 401) << wrong.body;
  EXPECT_EQ(wrong.header("Authd-Second-Factor"), "webauthn");
  HttpResponse done =
      answer_factor(browser, *authd, {{"webauthn", device.get(request_options(*authd), kOrigin)}});
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(me(*authd, browser)["email"], kEmail);
  EXPECT_NE(authd->sql("SELECT amr FROM sessions").find("fed hwk mfa"), std::string::npos);
  std::string succeeded = events_of(*authd, "login.succeeded");
  EXPECT_NE(succeeded.find("\"secondFactor\":\"webauthn\""), std::string::npos) << succeeded;
  EXPECT_NE(succeeded.find("\"passkeyId\""), std::string::npos) << succeeded;
}

// 18.5.1: a sign-in that waits for the account's second factor keeps the
// provider's tokens on the link at once; only the session waits.
TEST_F(UpstreamSecondFactor, Interface_18_5_ASignInThatWaitsForTheFactorKeepsTheTokens) {
  table_extra_ = "keep-tokens = true\n";
  auto authd = start();
  // What the link itself kept (18.2.3) is cleared, to see the sign-in's.
  authd->sql("UPDATE identities SET kept_tokens = NULL, tokens_kept_at = NULL");
  Browser browser;
  HttpResponse back = upstream_sign_in(browser, *authd);
  ASSERT_EQ(back.status, 302) << back.body;
  EXPECT_EQ(back.header("Location"), kPublic + kFactorPage);
  EXPECT_TRUE(browser.cookies["authd_session"].empty());
  EXPECT_EQ(without_trailing_newlines(
                authd->sql("SELECT count(*) FROM identities WHERE kept_tokens IS NOT NULL")),
            "1");
}

}  // namespace
}  // namespace authd::test
