// interface.md 17.2-17.5: the authorization code flow with PKCE, end to end
// over real HTTP on SQLite and PostgreSQL: the authorization endpoint and
// its own error page, the waiting request and its resumption, consent. The
// code, the token endpoint and userinfo: oidc_tokens_test.cpp.
// Names follow the OpenID Foundation's Basic OP conformance modules where
// one covers the rule (oidcc-...).
#include <thread>

#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test {
namespace {

// ---- 17.2 ---------------------------------------------------------------------

TEST(OidcFlow, Interface_17_2_OffTheProviderRoutesAre404) {
  AuthdProcess authd(fast_hashing());
  for (const char* path : {"/oauth2/authorize", "/oauth2/token", "/oauth2/userinfo",
                           "/oauth2/authorize/resume", "/consent", "/consents"}) {
    EXPECT_EQ(send_request(authd.port(), "GET", path).status, 404) << path;
  }
}

// ---- 17.4 the authorization endpoint -----------------------------------------

// oidcc-server: the whole flow. A signed-in browser gets a code at once
// (a first-party client asks no consent); the code buys an access token and
// an ID token whose claims are those of 17.8; userinfo answers the user.
TEST(OidcFlow, Interface_17_4_oidcc_server_CodeFlowWithPkce) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  HttpResponse res = authorize(authd, code_request(client["clientId"], pkce), cookie);
  ASSERT_EQ(res.status, 302) << res.body;
  EXPECT_EQ(location_base(res), kRedirect);
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  auto parameters = location_parameters(res);
  EXPECT_EQ(parameters["state"], "st-123");
  EXPECT_EQ(parameters["iss"], kIssuer);  // RFC 9207
  ASSERT_EQ(parameters["code"].rfind("authdac_", 0), 0u) << parameters["code"];

  HttpResponse tokens = exchange_code(authd, client, parameters["code"], pkce);
  ASSERT_EQ(tokens.status, 200) << tokens.body;
  EXPECT_EQ(tokens.header("Cache-Control"), "no-store");
  EXPECT_EQ(tokens.header("Pragma"), "no-cache");
  nlohmann::json body = tokens.json();
  EXPECT_EQ(body["token_type"], "Bearer");
  EXPECT_EQ(body["expires_in"], 600);
  EXPECT_EQ(body["scope"], "openid email");
  ASSERT_EQ(body["access_token"].get<std::string>().rfind("authdat_", 0), 0u);

  std::string id_token = body["id_token"];
  nlohmann::json header = jwt_header(id_token);
  EXPECT_EQ(header["alg"], "RS256");
  EXPECT_EQ(header["typ"], "JWT");
  EXPECT_TRUE(header["kid"].is_string());
  nlohmann::json claims = jwt_payload(id_token);
  nlohmann::json me = get_with_token(authd.port(), "/me", cookie).json();
  EXPECT_EQ(claims["iss"], kIssuer);
  EXPECT_EQ(claims["sub"], me["id"]);
  EXPECT_EQ(claims["aud"], client["clientId"]);
  EXPECT_EQ(claims["azp"], client["clientId"]);
  EXPECT_EQ(claims["nonce"], "n-456");
  EXPECT_EQ(claims["email"], kEmail);
  EXPECT_EQ(claims["email_verified"], false);
  EXPECT_EQ(claims["amr"], nlohmann::json::array({"pwd"}));
  EXPECT_EQ(claims["exp"].get<std::int64_t>() - claims["iat"].get<std::int64_t>(), 600);
  EXPECT_LE(claims["auth_time"].get<std::int64_t>(), claims["iat"].get<std::int64_t>());
  nlohmann::json sessions = get_with_token(authd.port(), "/sessions", cookie).json();
  EXPECT_EQ(claims["sid"], sessions["sessions"][0]["id"]);
  EXPECT_FALSE(claims.contains("name"));  // no profile scope

  HttpResponse info = get_with_token(authd.port(), "/oauth2/userinfo", body["access_token"]);
  ASSERT_EQ(info.status, 200) << info.body;
  EXPECT_EQ(info.json(),
            (nlohmann::json{{"sub", me["id"]}, {"email", kEmail}, {"email_verified", false}}));
  EXPECT_EQ(events_of_type(authd, "oauth.authorized").size(), 1u);
  expect_no_secret_in_events(authd);
}

// oidcc-ensure-redirect-uri-in-authorization-request, and every other
// doubt about the client or its redirect URI: authd's own page, never a
// redirect (17.4).
TEST(OidcFlow, Interface_17_4_oidcc_ensure_redirect_uri_in_authorization_request) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  auto request = code_request(client["clientId"], pkce);
  expect_own_page(authorize(authd, with(request, "redirect_uri", std::nullopt)), "no redirect_uri");
  for (const char* wrong :
       {"https://app.example.com/callback/", "https://app.example.com/callback?x=1",
        "https://app.example.com/callbac", "https://app.example.com:444/callback",
        "http://app.example.com/callback", "https://APP.example.com/callback",
        "https://app.example.com/callback#frag", "https://evil.example/callback"})
    expect_own_page(authorize(authd, with(request, "redirect_uri", wrong)), wrong);
  expect_own_page(authorize(authd, with(request, "client_id", std::nullopt)), "no client_id");
  expect_own_page(authorize(authd, with(request, "client_id", new_uuid_v4())), "unknown client");
  auto twice = request;
  twice.emplace_back("redirect_uri", kRedirect);
  expect_own_page(authorize(authd, twice), "redirect_uri twice");
}

// Errors about the rest of the request go back to the client (RFC 6749
// 4.1.2.1), with the state and iss.
TEST(OidcFlow, Interface_17_4_ErrorsAreRedirectedWithStateAndIss) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  auto request = code_request(client["clientId"], pkce);
  expect_error_redirect(authorize(authd, with(request, "response_type", std::nullopt), cookie),
                        "invalid_request", "no response_type");
  for (const char* type : {"token", "id_token", "code id_token", "none"})
    expect_error_redirect(authorize(authd, with(request, "response_type", type), cookie),
                          "unsupported_response_type", type);
  expect_error_redirect(authorize(authd, with(request, "code_challenge", std::nullopt), cookie),
                        "invalid_request", "no PKCE");
  expect_error_redirect(authorize(authd, with(request, "code_challenge_method", "plain"), cookie),
                        "invalid_request", "plain PKCE");
  expect_error_redirect(
      authorize(authd, with(request, "code_challenge_method", std::nullopt), cookie),
      "invalid_request", "no method");
  expect_error_redirect(
      authorize(authd, with(request, "request", "eyJhbGciOiJub25lIn0.e30."), cookie),
      "request_not_supported", "request object");
  expect_error_redirect(
      authorize(authd, with(request, "request_uri", "https://app.example.com/r"), cookie),
      "request_uri_not_supported", "request_uri");
  expect_error_redirect(authorize(authd, with(request, "prompt", "none login"), cookie),
                        "invalid_request", "prompt none and login");
  expect_error_redirect(authorize(authd, with(request, "max_age", "-1"), cookie), "invalid_request",
                        "negative max_age");
  auto twice = request;
  twice.emplace_back("scope", "openid");
  HttpResponse res = authorize(authd, twice, cookie);
  EXPECT_EQ(location_parameters(res)["error"], "invalid_request");
  EXPECT_TRUE(events_of_type(authd, "oauth.authorized").empty());
}

// oidcc-scope-email and the scopes a client may have (17.3, 17.4): a scope
// outside the client's is invalid_scope; one authd does not know is
// ignored (Core 3.1.2.1).
TEST(OidcFlow, Interface_17_4_oidcc_scope_email_AndScopesOfTheClient) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json narrow = register_client(authd, {{"scopes", {"openid", "profile"}}});
  Pkce pkce;
  expect_error_redirect(
      authorize(authd, code_request(narrow["clientId"], pkce, "openid email"), cookie),
      "invalid_scope", "email not allowed");
  nlohmann::json client = register_client(authd);
  std::string code = code_for(authd, client, cookie, pkce, "openid email unknown-scope");
  nlohmann::json tokens = exchange_code(authd, client, code, pkce).json();
  EXPECT_EQ(tokens["scope"], "openid email");
  nlohmann::json info =
      get_with_token(authd.port(), "/oauth2/userinfo", tokens["access_token"]).json();
  EXPECT_EQ(info["email"], kEmail);
  EXPECT_TRUE(info.contains("email_verified"));
}

// oidcc-prompt-none-not-logged-in: login_required, and nothing waits.
TEST(OidcFlow, Interface_17_4_oidcc_prompt_none_not_logged_in) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  auto request = with(code_request(client["clientId"], pkce), "prompt", "none");
  expect_error_redirect(authorize(authd, request), "login_required", "no cookie");
  expect_error_redirect(authorize(authd, request, "authd_unknown-session"), "login_required",
                        "unknown cookie");
  EXPECT_EQ(authd.sql("select count(*) from oauth_authorization_requests"), "0\n");
}

// oidcc-prompt-none-logged-in: a code at once.
TEST(OidcFlow, Interface_17_4_oidcc_prompt_none_logged_in) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  HttpResponse res =
      authorize(authd, with(code_request(client["clientId"], pkce), "prompt", "none"), cookie);
  EXPECT_FALSE(location_parameters(res)["code"].empty()) << res.header("Location");
}

// ---- 17.5 the waiting request ------------------------------------------------

// Without a session the request waits server side and the browser goes to
// the sign-in page with an opaque id; once signed in, resuming gives the
// code. The request's parameters are not in the sign-in page's URL.
TEST(OidcFlow, Interface_17_5_WithoutASessionTheRequestWaitsForTheSignIn) {
  AuthdProcess authd(oidc_args());
  authd.add_user(kEmail, kPassword);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  auto request = with(code_request(client["clientId"], pkce), "login_hint", kEmail);
  HttpResponse res = authorize(authd, request);
  ASSERT_EQ(res.status, 302) << res.body;
  EXPECT_EQ(location_base(res), kIssuer + "/signin");
  auto parameters = location_parameters(res);
  std::string id = parameters["request"];
  EXPECT_EQ(id.rfind("authdar_", 0), 0u) << res.header("Location");
  EXPECT_EQ(parameters["login_hint"], kEmail);
  EXPECT_EQ(res.header("Location").find("st-123"), std::string::npos);
  EXPECT_EQ(res.header("Location").find(pkce.challenge()), std::string::npos);
  EXPECT_EQ(authd.sql("select count(*) from oauth_authorization_requests"), "1\n");

  // Still signed out: back to the sign-in page.
  HttpResponse again = browser_get(authd, "/oauth2/authorize/resume?request=" + id);
  EXPECT_EQ(location_base(again), kIssuer + "/signin");

  std::string cookie = authd.login(kEmail, kPassword);
  HttpResponse resumed = browser_get(authd, "/oauth2/authorize/resume?request=" + id, cookie);
  ASSERT_EQ(resumed.status, 302) << resumed.body;
  EXPECT_EQ(location_base(resumed), kRedirect);
  auto answer = location_parameters(resumed);
  EXPECT_EQ(answer["state"], "st-123");
  EXPECT_EQ(exchange_code(authd, client, answer["code"], pkce).status, 200);

  // Answered: the request is gone, and its id shows authd's own page.
  EXPECT_EQ(authd.sql("select count(*) from oauth_authorization_requests"), "0\n");
  expect_own_page(browser_get(authd, "/oauth2/authorize/resume?request=" + id, cookie),
                  "answered request");
  expect_own_page(browser_get(authd, "/oauth2/authorize/resume?request=authdar_nope", cookie),
                  "unknown request");
}

// A waiting request is answered once: eight resumptions at once (a double
// click, a reload) give one code; the others authd's own page.
TEST(OidcFlow, Interface_17_5_AWaitingRequestIsAnsweredOnce) {
  AuthdProcess authd(oidc_args());
  authd.add_user(kEmail, kPassword);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  std::string id =
      location_parameters(authorize(authd, code_request(client["clientId"], pkce)))["request"];
  ASSERT_FALSE(id.empty());
  std::string cookie = authd.login(kEmail, kPassword);
  std::vector<HttpResponse> answers(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < answers.size(); ++i)
    threads.emplace_back([&, i] {
      answers[i] = browser_get(authd, "/oauth2/authorize/resume?request=" + id, cookie);
    });
  for (std::thread& thread : threads) thread.join();
  int codes = 0;
  for (const HttpResponse& answer : answers) {
    if (answer.status == 302 && !location_parameters(answer)["code"].empty())
      ++codes;
    else
      expect_own_page(answer, "a second answer");
  }
  EXPECT_EQ(codes, 1);
  EXPECT_EQ(events_of_type(authd, "oauth.authorized").size(), 1u);
}

// oidcc-prompt-login: a live session is not enough; one opened after the
// request is.
TEST(OidcFlow, Interface_17_4_oidcc_prompt_login) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  HttpResponse res =
      authorize(authd, with(code_request(client["clientId"], pkce), "prompt", "login"), cookie);
  ASSERT_EQ(location_base(res), kIssuer + "/signin") << res.header("Location");
  std::string id = location_parameters(res)["request"];
  HttpResponse old = browser_get(authd, "/oauth2/authorize/resume?request=" + id, cookie);
  EXPECT_EQ(location_base(old), kIssuer + "/signin");
  std::string fresh = authd.login(kEmail, kPassword);
  HttpResponse resumed = browser_get(authd, "/oauth2/authorize/resume?request=" + id, fresh);
  std::string code = location_parameters(resumed)["code"];
  ASSERT_FALSE(code.empty()) << resumed.header("Location");
  nlohmann::json claims =
      jwt_payload(exchange_code(authd, client, code, pkce).json()["id_token"].get<std::string>());
  nlohmann::json sessions = get_with_token(authd.port(), "/sessions", fresh).json()["sessions"];
  auto current = std::find_if(sessions.begin(), sessions.end(),
                              [](const nlohmann::json& s) { return s["current"] == true; });
  ASSERT_NE(current, sessions.end()) << sessions.dump();
  EXPECT_EQ(claims["sid"], (*current)["id"]) << "the fresh session's, not the old one's";
}

// oidcc-max-age-1 (with 0, so that no test waits): a session older than
// max_age must sign in again; auth_time is in the ID token.
TEST(OidcFlow, Interface_17_4_oidcc_max_age) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  HttpResponse res =
      authorize(authd, with(code_request(client["clientId"], pkce), "max_age", "0"), cookie);
  ASSERT_EQ(location_base(res), kIssuer + "/signin") << res.header("Location");
  HttpResponse wide =
      authorize(authd, with(code_request(client["clientId"], pkce), "max_age", "86400"), cookie);
  std::string code = location_parameters(wide)["code"];
  ASSERT_FALSE(code.empty()) << wide.header("Location");
  nlohmann::json claims =
      jwt_payload(exchange_code(authd, client, code, pkce).json()["id_token"].get<std::string>());
  EXPECT_TRUE(claims["auth_time"].is_number_integer());
}

// ---- 17.5 consent ------------------------------------------------------------

// A third-party client gets the consent page; allowing gives the code and
// is remembered for the same or fewer scopes, asked again for more; GET
// /consents lists it and DELETE /consents/{clientId} withdraws it with the
// client's access tokens.
TEST(OidcFlow, Interface_17_5_ThirdPartyClientsAskConsentOnce) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd, {{"firstParty", false}, {"name", "Third <App>"}});
  Pkce pkce;
  HttpResponse res = authorize(authd, code_request(client["clientId"], pkce), cookie);
  ASSERT_EQ(location_base(res), kIssuer + "/consent") << res.header("Location");
  std::string id = location_parameters(res)["request"];
  HttpResponse page = browser_get(authd, "/consent?request=" + id, cookie);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_NE(page.body.find("Third &lt;App&gt;"), std::string::npos) << page.body;
  EXPECT_EQ(page.body.find("Third <App>"), std::string::npos);

  Headers form = {{"Content-Type", "application/x-www-form-urlencoded"},
                  {"Cookie", "authd_session=" + cookie}};
  Headers foreign = form;
  foreign.emplace_back("Origin", "https://evil.example");
  EXPECT_EQ(send_request(authd.port(), "POST", "/oauth2/consent", foreign,
                         "request=" + id + "&decision=allow")
                .status,
            403);
  Headers own = form;
  own.emplace_back("Origin", kIssuer);
  HttpResponse allowed = send_request(authd.port(), "POST", "/oauth2/consent", own,
                                      "request=" + id + "&decision=allow");
  ASSERT_EQ(allowed.status, 302) << allowed.body;
  std::string code = location_parameters(allowed)["code"];
  ASSERT_FALSE(code.empty()) << allowed.header("Location");
  std::string access = exchange_code(authd, client, code, pkce).json()["access_token"];
  EXPECT_EQ(events_of_type(authd, "oauth.consent_granted").size(), 1u);

  // Remembered: the same scopes, or fewer, need no page.
  EXPECT_FALSE(code_for(authd, client, cookie, pkce, "openid").empty());
  // More scopes: asked again.
  HttpResponse more =
      authorize(authd, code_request(client["clientId"], pkce, "openid email profile"), cookie);
  EXPECT_EQ(location_base(more), kIssuer + "/consent");

  HttpResponse listed = get_with_token(authd.port(), "/consents", cookie);
  ASSERT_EQ(listed.status, 200) << listed.body;
  nlohmann::json consents = listed.json()["consents"];
  ASSERT_EQ(consents.size(), 1u);
  EXPECT_EQ(consents[0]["clientId"], client["clientId"]);
  EXPECT_EQ(consents[0]["clientName"], "Third <App>");
  EXPECT_EQ(consents[0]["scopes"], nlohmann::json::array({"email", "openid"}));

  HttpResponse withdrawn =
      send_request(authd.port(), "DELETE", "/consents/" + client["clientId"].get<std::string>(),
                   {{"Authorization", "Bearer " + cookie}});
  EXPECT_EQ(withdrawn.status, 204) << withdrawn.body;
  EXPECT_EQ(get_with_token(authd.port(), "/oauth2/userinfo", access).status, 401);
  EXPECT_EQ(events_of_type(authd, "oauth.consent_revoked").size(), 1u);
  EXPECT_EQ(
      send_request(authd.port(), "DELETE", "/consents/" + client["clientId"].get<std::string>(),
                   {{"Authorization", "Bearer " + cookie}})
          .status,
      404);
  HttpResponse after = authorize(authd, code_request(client["clientId"], pkce, "openid"), cookie);
  EXPECT_EQ(location_base(after), kIssuer + "/consent");
}

// Denying: access_denied to the client. prompt=none without consent:
// consent_required.
TEST(OidcFlow, Interface_17_5_DeniedConsentAndPromptNoneWithoutConsent) {
  AuthdProcess authd(oidc_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = register_client(authd, {{"firstParty", false}});
  Pkce pkce;
  expect_error_redirect(
      authorize(authd, with(code_request(client["clientId"], pkce), "prompt", "none"), cookie),
      "consent_required", "prompt=none");
  HttpResponse res = authorize(authd, code_request(client["clientId"], pkce), cookie);
  std::string id = location_parameters(res)["request"];
  HttpResponse denied = send_request(authd.port(), "POST", "/oauth2/consent",
                                     {{"Content-Type", "application/x-www-form-urlencoded"},
                                      {"Cookie", "authd_session=" + cookie},
                                      {"Origin", kIssuer}},
                                     "request=" + id + "&decision=deny");
  expect_error_redirect(denied, "access_denied", "deny");
  EXPECT_TRUE(events_of_type(authd, "oauth.consent_granted").empty());
}

}  // namespace
}  // namespace authd::test
