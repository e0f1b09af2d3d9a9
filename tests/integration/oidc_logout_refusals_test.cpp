// interface.md 17.13: what RP-initiated logout refuses, on authd's own
// page with nothing ended and no redirect (an unregistered
// post_logout_redirect_uri, a hint authd did not sign, a client_id that is
// not the hint's), the confirmation's protection against cross-site
// submission, and the pages' headers. SQLite and PostgreSQL. The flows:
// oidc_logout_test.cpp.
#include "oidc_logout_support.hpp"

namespace authd::test {
namespace {

// ---- refusals: authd's own page, nothing ended, no redirect -------------------

// oidcc-rp-initiated-logout-bad-post-logout-redirect-uri: a URI not
// registered for the hint's client (another client's, or none) is never
// redirected to, whatever the session.
TEST(OidcLogout, Interface_17_13_oidcc_rp_initiated_logout_bad_post_logout_redirect_uri) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  nlohmann::json other =
      logout_client(authd, {{"postLogoutRedirectUris", {"https://other.example.com/out"}}});
  std::string hint = id_token_for(authd, client, cookie);
  for (const std::string& uri :
       {std::string("https://evil.example/"), std::string("https://other.example.com/out"),
        kPostLogout + "/", kPostLogout + "?x=1"}) {
    HttpResponse res = rp_logout(
        authd, {{"id_token_hint", hint}, {"post_logout_redirect_uri", uri}, {"state", "s"}},
        cookie);
    expect_own_page(res, uri);
    EXPECT_NE(res.body.find("Sign-out problem"), std::string::npos) << uri;
    EXPECT_EQ(res.header("Set-Cookie"), "") << uri;
    EXPECT_TRUE(is_live(authd, cookie)) << uri;
    HttpResponse forged = rp_confirm(
        authd, {{"token", "1.x"}, {"id_token_hint", hint}, {"post_logout_redirect_uri", uri}},
        cookie);
    expect_own_page(forged, "confirm " + uri);
  }
  HttpResponse no_hint = rp_logout(authd, {{"post_logout_redirect_uri", kPostLogout}}, cookie);
  expect_own_page(no_hint, "without a client");
  EXPECT_TRUE(events_of_type(authd, "logout").empty());
}

// oidcc-rp-initiated-logout-bad-id-token-hint / -modified-id-token-hint:
// a hint authd did not sign (altered, alg none, another provider's key
// under the same issuer) gets authd's error page.
TEST(OidcLogout, Interface_17_13_oidcc_rp_initiated_logout_bad_id_token_hint) {
  AuthdProcess authd(logout_args());
  AuthdProcess foreign(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  std::string hint = id_token_for(authd, client, cookie);
  nlohmann::json foreign_client = logout_client(foreign);
  std::string foreign_hint = id_token_for(foreign, foreign_client, signed_in(foreign));

  std::size_t dot = hint.find('.');
  std::size_t last = hint.rfind('.');
  nlohmann::json payload = jwt_payload(hint);
  payload["sub"] = "someone-else";
  std::string altered = hint.substr(0, dot + 1) + base64url(payload.dump()) + hint.substr(last);
  std::string none = base64url(std::string(R"({"alg":"none","typ":"JWT"})")) + "." +
                     hint.substr(dot + 1, last - dot - 1) + ".";
  std::string resigned_signature = hint.substr(0, last + 1) + "AAAA";
  for (const std::string& bad : {altered, none, resigned_signature, foreign_hint,
                                 std::string("not-a-jwt"), hint.substr(0, last)}) {
    HttpResponse res = rp_logout(authd, full_request(bad), cookie);
    expect_own_page(res, bad);
    EXPECT_TRUE(is_live(authd, cookie)) << bad;
  }
  EXPECT_TRUE(events_of_type(authd, "logout").empty());
}

// client_id, when sent with a hint, must be the hint's audience.
TEST(OidcLogout, Interface_17_13_ClientIdMustBeTheHintsAudience) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  nlohmann::json other = logout_client(authd);
  std::string hint = id_token_for(authd, client, cookie);
  HttpResponse res = rp_logout(
      authd, with(full_request(hint), "client_id", other["clientId"].get<std::string>()), cookie);
  expect_own_page(res, "another client_id");
  EXPECT_TRUE(is_live(authd, cookie));
  HttpResponse same = rp_logout(
      authd, with(full_request(hint), "client_id", client["clientId"].get<std::string>()), cookie);
  EXPECT_EQ(same.status, 302) << same.body;
  // Without a hint, an unknown client_id is refused too.
  std::string fresh = signed_in_again(authd);
  expect_own_page(rp_logout(authd, {{"client_id", "not-a-client"}}, fresh), "malformed client_id");
  expect_own_page(rp_logout(authd, {{"client_id", "00000000-0000-4000-8000-000000000000"}}, fresh),
                  "unknown client_id");
  expect_own_page(rp_logout(authd, {{"state", "a"}, {"state", "b"}}, fresh), "state twice");
  EXPECT_TRUE(is_live(authd, fresh));
}

// A hint whose client was deleted since names no registered URI: no
// redirect. It still says who signs out: its session ends on authd's page.
TEST(OidcLogout, Interface_17_13_HintOfADeletedClientNeverRedirects) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  std::string hint = id_token_for(authd, client, cookie);
  std::string key = admin::create_key(authd, "logout-tests");
  ASSERT_EQ(
      admin::call(authd, key, "DELETE", "/admin/clients/" + client["clientId"].get<std::string>())
          .status,
      204);
  expect_own_page(rp_logout(authd, full_request(hint), cookie), "the URI of a deleted client");
  EXPECT_TRUE(is_live(authd, cookie));
  HttpResponse out = rp_logout(authd, {{"id_token_hint", hint}}, cookie);
  EXPECT_EQ(out.status, 200) << out.body;
  EXPECT_EQ(out.header("Location"), "");
  EXPECT_NE(out.body.find(R"(<h1 id="heading">You are signed out</h1>)"), std::string::npos);
  EXPECT_FALSE(is_live(authd, cookie));
}

// ---- the confirmation is protected against cross-site submission -------------

// Refused (403, nothing ended): another Origin, no Origin, no token, a
// forged token, another session's token. A replay once the session ended
// ends nothing more.
TEST(OidcLogout, Interface_17_13_ConfirmationNeedsOwnOriginAndTheSessionsToken) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  std::string other = signed_in_again(authd);
  HttpResponse page = rp_logout(authd, {}, cookie);
  expect_confirmation_page(page, "page");
  auto token = form_fields(page.body).at(0);
  ASSERT_EQ(token.first, "token");
  std::string other_token = form_fields(rp_logout(authd, {}, other).body).at(0).second;

  EXPECT_EQ(rp_confirm(authd, {token}, cookie, "https://evil.example").status, 403);
  EXPECT_EQ(rp_confirm(authd, {token}, cookie, "null").status, 403);
  EXPECT_EQ(rp_confirm(authd, {token}, cookie, "").status, 403);
  EXPECT_EQ(rp_confirm(authd, {}, cookie).status, 403);
  EXPECT_EQ(rp_confirm(authd, {{"token", other_token}}, cookie).status, 403);
  std::string forged =
      token.second.substr(0, token.second.find('.') + 1) + base64url(std::string(32, 'x'));
  EXPECT_EQ(rp_confirm(authd, {{"token", forged}}, cookie).status, 403);
  std::string later = "99999999999" + token.second.substr(token.second.find('.'));
  EXPECT_EQ(rp_confirm(authd, {{"token", later}}, cookie).status, 403) << "the expiry is signed";
  EXPECT_TRUE(is_live(authd, cookie));
  EXPECT_TRUE(events_of_type(authd, "logout").empty());

  ASSERT_EQ(rp_confirm(authd, {token}, cookie).status, 200);
  EXPECT_FALSE(is_live(authd, cookie));
  EXPECT_TRUE(is_live(authd, other));
  HttpResponse replay = rp_confirm(authd, {token}, cookie);
  EXPECT_EQ(replay.status, 200) << "already signed out";
  EXPECT_EQ(events_of_type(authd, "logout").size(), 1u);
}

// ---- headers ----------------------------------------------------------------

TEST(OidcLogout, Interface_17_13_PagesHaveStrictHeaders) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  std::string hint = id_token_for(authd, client, cookie);
  std::string again = signed_in_again(authd);
  HttpResponse page = rp_logout(authd, full_request(hint), again);
  HttpResponse signed_out =
      rp_confirm(authd, form_fields(rp_logout(authd, {}, cookie).body), cookie);
  HttpResponse error = rp_logout(authd, {{"id_token_hint", "x"}}, again);
  for (const HttpResponse* res : {&page, &signed_out, &error}) {
    std::string csp = res->header("Content-Security-Policy");
    EXPECT_EQ(res->header("Content-Type"), "text/html; charset=utf-8");
    EXPECT_EQ(res->header("Cache-Control"), "no-store");
    EXPECT_EQ(res->header("X-Frame-Options"), "DENY");
    EXPECT_EQ(res->header("X-Content-Type-Options"), "nosniff");
    for (const char* directive :
         {"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"})
      EXPECT_NE(csp.find(directive), std::string::npos) << directive << " in " << csp;
    for (const char* loophole : {"'unsafe-inline'", "'unsafe-eval'", "*", "data:"})
      EXPECT_EQ(csp.find(loophole), std::string::npos) << loophole << " in " << csp;
    EXPECT_EQ(res->body.find("<script"), std::string::npos);
    EXPECT_EQ(res->body.find("style="), std::string::npos);
    EXPECT_EQ(res->body.find("{{"), std::string::npos);
  }
  EXPECT_NE(
      page.header("Content-Security-Policy").find("form-action 'self' https://app.example.com;"),
      std::string::npos)
      << page.header("Content-Security-Policy");
  EXPECT_EQ(page.header("Referrer-Policy"), "same-origin");
  EXPECT_EQ(signed_out.status, 200);
  EXPECT_NE(signed_out.header("Content-Security-Policy").find("form-action 'none'"),
            std::string::npos);
  EXPECT_EQ(error.status, 400);
}

}  // namespace
}  // namespace authd::test
