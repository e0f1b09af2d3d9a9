// interface.md 18.1, 18.2, 18.5: sign-in through upstream identity
// providers, against the test doubles of tests/interop/upstream/ (an
// OpenID provider that signs, or forges on demand, its ID token; a
// GitHub-shaped OAuth 2 server). The tests play the browser: they follow
// each redirect by hand, carrying the cookies, on SQLite and PostgreSQL.
#include <filesystem>
#include <fstream>
#include <memory>

#include <gtest/gtest.h>

#include "oidc_support.hpp"
#include "upstream_browser.hpp"
#include "upstream_doubles.hpp"

namespace authd::test {
namespace {

class UpstreamOidc : public ::testing::Test {
 protected:
  void SetUp() override {
    idp_ = std::make_unique<UpstreamDouble>("evil_idp.mjs", "authd-evil", kEvilCallback);
    idp_->control("PUT", "/_test/account",
                  {{"sub", "corp-1"},
                   {"email", "Dana@Corp.Example"},
                   {"email_verified", true},
                   {"name", "Dana"}});
  }
  std::unique_ptr<UpstreamDouble> idp_;
};

TEST_F(UpstreamOidc, Interface_18_2_SignUpThroughOidcUpstreamOpensFederatedSession) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, true)));
  Browser browser;
  std::string authorization = start_at(browser, authd, "/signin/evil");
  // 18.2: state, nonce and PKCE S256, bound by an HttpOnly cookie.
  EXPECT_EQ(query_value(authorization, "code_challenge_method"), "S256");
  EXPECT_FALSE(query_value(authorization, "nonce").empty());
  EXPECT_FALSE(query_value(authorization, "state").empty());
  EXPECT_EQ(query_value(authorization, "redirect_uri"), kEvilCallback);
  ASSERT_FALSE(browser.cookies["authd_upstream"].empty());
  HttpResponse started = send_request(authd.port(), "GET", "/signin/evil");
  EXPECT_NE(set_cookie_line(started, "authd_upstream").find("HttpOnly"), std::string::npos);

  HttpResponse back = browser.get(authd, through_idp(authorization));
  ASSERT_EQ(back.status, 302) << back.body;
  EXPECT_EQ(back.header("Location"), kPublic + "/signed-in");  // 18.2.6
  EXPECT_FALSE(browser.cookies["authd_session"].empty());
  nlohmann::json user = me(authd, browser);
  EXPECT_EQ(user["email"], "dana@corp.example");
  // 18.5: the session is federated (RFC 8176 "fed").
  EXPECT_EQ(authd.sql("SELECT amr FROM sessions"), "fed\n");
  std::string succeeded = events_of(authd, "login.succeeded");
  EXPECT_NE(succeeded.find("\"method\":\"upstream\""), std::string::npos) << succeeded;
  EXPECT_NE(succeeded.find("\"provider\":\"evil\""), std::string::npos) << succeeded;

  // A second sign-in finds the link: the same account.
  Browser again;
  ASSERT_EQ(again.get(authd, through_idp(start_at(again, authd, "/signin/evil"))).status, 302);
  EXPECT_EQ(me(authd, again)["id"], user["id"]);
}

TEST_F(UpstreamOidc, Interface_18_2_StateIsSingleUse) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, true)));
  Browser browser;
  std::string callback = through_idp(start_at(browser, authd, "/signin/evil"));
  Headers cookies = browser.headers();
  ASSERT_EQ(browser.get(authd, callback).status, 302);
  HttpResponse replayed = send_request(authd.port(), "GET", callback, cookies);
  EXPECT_EQ(replayed.status, 400) << replayed.body;
  EXPECT_TRUE(set_cookie_value(replayed, "authd_session").empty());
}

TEST_F(UpstreamOidc, Interface_18_2_CallbackFromAnotherBrowserIsRefused) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, true)));
  Browser victim;
  std::string callback = through_idp(start_at(victim, authd, "/signin/evil"));
  Browser attacker;  // no binder cookie
  HttpResponse without = attacker.get(authd, callback);
  EXPECT_EQ(without.status, 400) << without.body;
  EXPECT_TRUE(attacker.cookies["authd_session"].empty());

  Browser other;  // another flow's binder
  std::string own = through_idp(start_at(other, authd, "/signin/evil"));
  (void)own;
  HttpResponse with_other = other.get(authd, callback);
  EXPECT_EQ(with_other.status, 400) << with_other.body;
  EXPECT_EQ(authd.sql("SELECT count(*) FROM users"), "0\n");
}

TEST_F(UpstreamOidc, Interface_18_2_ForgedIdTokensAreRefused) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, true)));
  for (const char* mode : {"alg-none", "hs256-public-key", "wrong-iss", "wrong-aud", "expired",
                           "wrong-nonce", "no-nonce", "bad-signature", "unknown-kid"}) {
    SCOPED_TRACE(mode);
    idp_->control("POST", "/_test/mode", {{"mode", mode}});
    Browser browser;
    HttpResponse back = browser.get(authd, through_idp(start_at(browser, authd, "/signin/evil")));
    EXPECT_EQ(back.status, 502) << back.body;
    EXPECT_TRUE(browser.cookies["authd_session"].empty());
  }
  EXPECT_EQ(authd.sql("SELECT count(*) FROM users"), "0\n");
  EXPECT_EQ(authd.sql("SELECT count(*) FROM sessions"), "0\n");
}

TEST_F(UpstreamOidc, Interface_18_2_UpstreamErrorTextIsNeverShown) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, true)));
  idp_->control("POST", "/_test/mode", {{"mode", "error-markup"}});
  Browser browser;
  HttpResponse back = browser.get(authd, through_idp(start_at(browser, authd, "/signin/evil")));
  EXPECT_EQ(back.status, 502);
  EXPECT_EQ(back.body.find("injected"), std::string::npos) << back.body;
  EXPECT_EQ(back.body.find("onerror"), std::string::npos);
}

TEST_F(UpstreamOidc, Interface_18_2_ReturnPathIsRelativeToThePublicUrl) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, true)));
  for (const char* bad : {"//evil.example/x", "https%3A%2F%2Fevil.example", "/%5Cevil.example",
                          "%2F%2Fevil.example", "relative/path", "/%5C%5Cevil.example"}) {
    SCOPED_TRACE(bad);
    HttpResponse refused =
        send_request(authd.port(), "GET", std::string("/signin/evil?return=") + bad);
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_TRUE(refused.header("Location").empty());
  }
  Browser browser;
  HttpResponse back =
      browser.get(authd, through_idp(start_at(browser, authd, "/signin/evil?return=%2Faccount")));
  ASSERT_EQ(back.status, 302) << back.body;
  EXPECT_EQ(back.header("Location"), kPublic + "/account");
}

TEST_F(UpstreamOidc, Interface_18_3_ClosedSignupCreatesNoAccount) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, false)));
  Browser browser;
  HttpResponse back = browser.get(authd, through_idp(start_at(browser, authd, "/signin/evil")));
  EXPECT_EQ(back.status, 403) << back.body;
  EXPECT_EQ(authd.sql("SELECT count(*) FROM users"), "0\n");
  std::string failed = events_of(authd, "login.failed");
  EXPECT_NE(failed.find("upstream_signup_closed"), std::string::npos) << failed;
}

TEST_F(UpstreamOidc, Interface_18_2_ContinuesTheWaitingAuthorizationRequestWithAmrFed) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, true), {"--oidc", "on"}));
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  HttpResponse waiting = authorize(authd, code_request(client["clientId"], pkce));
  ASSERT_EQ(waiting.status, 302) << waiting.body;
  std::string request_id = location_parameters(waiting)["request"];
  ASSERT_FALSE(request_id.empty()) << waiting.header("Location");

  Browser browser;
  HttpResponse back = browser.get(
      authd, through_idp(start_at(browser, authd, "/signin/evil?request=" + request_id)));
  ASSERT_EQ(back.status, 302) << back.body;
  SplitUrl resume = split_url(back.header("Location"));
  EXPECT_EQ(resume.target, "/oauth2/authorize/resume?request=" + request_id);
  HttpResponse coded = browser.get(authd, resume.target);
  ASSERT_EQ(coded.status, 302) << coded.body;
  std::string code = location_parameters(coded)["code"];
  ASSERT_FALSE(code.empty()) << coded.header("Location");
  HttpResponse tokens = exchange_code(authd, client, code, pkce);
  ASSERT_EQ(tokens.status, 200) << tokens.body;
  nlohmann::json claims = jwt_payload(tokens.json()["id_token"]);
  EXPECT_EQ(claims["amr"], nlohmann::json::array({"fed"})) << claims.dump();
}

TEST_F(UpstreamOidc, Interface_18_2_SignInPageShowsOneButtonPerProvider) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, true), {"--oidc", "on"}));
  HttpResponse page = send_request(authd.port(), "GET", "/signin?request=r%3C1%26x");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("id=\"upstream-evil\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("href=\"signin/evil?request=r%3C1%26x\""), std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find(">Company account<"), std::string::npos);
}

TEST_F(UpstreamOidc, Interface_18_4_LinkWhileSignedIn) {
  AuthdProcess authd(upstream_args(evil_table(*idp_, false)));
  authd.add_user(kEmail, kPassword);
  Browser browser;
  HttpResponse login =
      send_request(authd.port(), "POST", "/login", {{"Content-Type", "application/json"}},
                   login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  browser.keep(login);
  HttpResponse started = send_request(authd.port(), "POST", "/identities/evil",
                                      {{"Authorization", login.header("Authorization")}});
  ASSERT_EQ(started.status, 200) << started.body;
  browser.keep(started);
  std::string location = started.json()["location"];
  HttpResponse back = browser.get(authd, through_idp(location));
  ASSERT_EQ(back.status, 302) << back.body;
  EXPECT_EQ(back.header("Location"), kPublic + "/signed-in");  // no return path: 18.2.6
  EXPECT_EQ(authd.sql("SELECT provider, subject FROM identities"), "evil|corp-1\n");

  // Now the upstream signs in to that account (sign-up is closed).
  Browser later;
  ASSERT_EQ(later.get(authd, through_idp(start_at(later, authd, "/signin/evil"))).status, 302);
  EXPECT_EQ(me(authd, later)["email"], kEmail);
}

TEST(UpstreamGithub, Interface_18_1_GithubShapedOauth2Provider) {
  UpstreamDouble gh("github_double.mjs", "authd-github", kGithubCallback);
  AuthdProcess authd(upstream_args(github_table(gh)));
  Browser browser;
  std::string authorization = start_at(browser, authd, "/signin/github");
  EXPECT_EQ(query_value(authorization, "scope"), "read:user user:email");
  HttpResponse back = browser.get(authd, through_github(authorization, "private"));
  ASSERT_EQ(back.status, 302) << back.body;
  // The e-mail came from /user/emails (the public one is null), verified.
  nlohmann::json user = me(authd, browser);
  EXPECT_EQ(user["email"], "octo-private@github.example");
  EXPECT_FALSE(user["emailVerifiedAt"].is_null()) << user.dump();
  EXPECT_EQ(authd.sql("SELECT subject FROM identities WHERE provider = 'github'"), "1001\n");
}

TEST(UpstreamConfig, Interface_18_1_TableErrorsNameTheKeyAndSecretsAreRedacted) {
  std::string secret = write_upstream_conf_file("corp.secret", "top-secret-value\n");
  std::string bad = write_upstream_conf_file("bad.toml",
                                             "[[upstream]]\nname = \"corp\"\nkind = \"oidc\"\n"
                                             "issuer = \"http://idp.example.com\"\nclient-id = "
                                             "\"authd\"\nclient-secret-file = \"" +
                                                 secret + "\"\nlabel = \"Corp\"\n");
  AuthdProcess authd(fast_hashing());
  std::string out, err;
  EXPECT_EQ(authd.cli_streams({"config", "--config", bad}, "", &out, &err), 2);
  EXPECT_NE(err.find("key 'issuer'"), std::string::npos) << err;
  std::string typo =
      write_upstream_conf_file("typo.toml", "[[upstream]]\nname = \"corp\"\nclient-idd = \"x\"\n");
  EXPECT_EQ(authd.cli_streams({"config", "--config", typo}, "", &out, &err), 2);
  EXPECT_NE(err.find("client-idd"), std::string::npos) << err;

  std::string good = write_upstream_conf_file("good.toml",
                                              "[[upstream]]\nname = \"corp\"\nissuer = "
                                              "\"https://idp.example.com\"\nclient-id = \"authd\"\n"
                                              "client-secret-file = \"" +
                                                  secret + "\"\nlabel = \"Corp\"\n");
  ASSERT_EQ(authd.cli_streams({"config", "--config", good}, "", &out, &err), 0) << err;
  EXPECT_NE(out.find("[[upstream]]"), std::string::npos) << out;
  EXPECT_EQ(out.find(secret), std::string::npos);
  EXPECT_EQ(out.find("top-secret-value"), std::string::npos);
}

}  // namespace
}  // namespace authd::test
