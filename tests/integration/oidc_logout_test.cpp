// interface.md 17.13: RP-initiated logout (OpenID Connect RP-Initiated
// Logout 1.0) over real HTTP, on SQLite and PostgreSQL: GET and POST
// /oauth2/logout, the confirmation page and POST /oauth2/logout/confirm,
// the "You are signed out" page, the redirect to a registered
// post_logout_redirect_uri, and discovery's end_session_endpoint. Names
// follow the OpenID Foundation's RP-initiated logout OP modules where one
// covers the rule (oidcc-rp-initiated-logout-...). The refusals, the
// confirmation's protection and the pages' headers:
// oidc_logout_refusals_test.cpp. What the page does in a browser:
// tests/browser/oidc_logout_page.test.mjs.
#include <chrono>
#include <thread>

#include "oidc_logout_support.hpp"

namespace authd::test {
namespace {

// ---- the hint names the live session ----------------------------------------

// oidcc-rp-initiated-logout: the application signs its own user out. No
// page: the session (row and cookie) ends at once, the browser goes back
// with state, and the logout event names the client.
TEST(OidcLogout, Interface_17_13_oidcc_rp_initiated_logout_HintOfTheLiveSessionEndsItAtOnce) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  std::string hint = id_token_for(authd, client, cookie);
  HttpResponse res = rp_logout(authd, full_request(hint), cookie);
  ASSERT_EQ(res.status, 302) << res.body;
  EXPECT_EQ(res.header("Location"), kPostLogout + "?state=s%20t%261");
  EXPECT_EQ(location_parameters(res)["state"], "s t&1");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  expect_cookie_cleared(res, "live session");
  EXPECT_FALSE(is_live(authd, cookie));
  std::vector<nlohmann::json> events = events_of_type(authd, "logout");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["detail"]["clientId"], client["clientId"]);
  EXPECT_EQ(events[0]["actor"], "self");

  // oidcc-rp-initiated-logout-no-state, and a registered URI with a query
  // of its own (...-query-added-to-post-logout-redirect-uri): kept, state
  // added to it.
  std::string with_query = kPostLogout + "?from=authd";
  nlohmann::json second = logout_client(authd, {{"postLogoutRedirectUris", {with_query}}});
  std::string again = signed_in_again(authd);
  HttpResponse no_state = rp_logout(authd,
                                    {{"id_token_hint", id_token_for(authd, second, again)},
                                     {"post_logout_redirect_uri", with_query}},
                                    again);
  ASSERT_EQ(no_state.status, 302) << no_state.body;
  EXPECT_EQ(no_state.header("Location"), with_query);
  std::string third = signed_in_again(authd);
  HttpResponse with_state = rp_logout(authd,
                                      {{"id_token_hint", id_token_for(authd, second, third)},
                                       {"post_logout_redirect_uri", with_query},
                                       {"state", "x"}},
                                      third);
  EXPECT_EQ(with_state.header("Location"), with_query + "&state=x");
}

// RP-Initiated Logout 1.0, 2: a hint is accepted expired (it only says
// who asks). The ID token lives 1 s; the test waits until its exp has
// passed by the clock authd reads too.
TEST(OidcLogout, Interface_17_13_AnExpiredHintIsAccepted) {
  std::vector<std::string> args = logout_args();
  args.insert(args.end(), {"--oidc-id-token-ttl", "1s"});
  AuthdProcess authd(args);
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  std::string hint = id_token_for(authd, client, cookie);
  auto exp =
      std::chrono::sys_seconds(std::chrono::seconds(jwt_payload(hint)["exp"].get<std::int64_t>()));
  while (std::chrono::system_clock::now() <= exp + std::chrono::milliseconds(50))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  HttpResponse res = rp_logout(authd, full_request(hint), cookie);
  ASSERT_EQ(res.status, 302) << res.body;
  EXPECT_EQ(location_base(res), kPostLogout);
  EXPECT_FALSE(is_live(authd, cookie));
}

// ---- a hint of another or an ended session -----------------------------------

// The hint's session ended (the user signed out, then in again): the
// browser's live session is another one, so authd asks first; confirmed,
// the session ends and the browser goes back with state.
TEST(OidcLogout, Interface_17_13_HintOfAnEndedSessionAsksThenRedirects) {
  AuthdProcess authd(logout_args());
  std::string first = signed_in(authd);
  nlohmann::json client = logout_client(authd, {{"name", "Shop <One>"}});
  std::string hint = id_token_for(authd, client, first);
  ASSERT_EQ(post_with_token(authd.port(), "/logout", first).status, 200);
  std::string cookie = signed_in_again(authd);

  HttpResponse page = rp_logout(authd, full_request(hint), cookie);
  expect_confirmation_page(page, "ended session");
  EXPECT_NE(page.body.find(R"(<span id="client-name">Shop &lt;One&gt;</span>)"), std::string::npos)
      << page.body;
  EXPECT_EQ(page.header("Set-Cookie"), "");
  EXPECT_TRUE(is_live(authd, cookie)) << "nothing ends before the confirmation";
  auto fields = form_fields(page.body);
  ASSERT_EQ(fields.size(), 4u) << page.body;
  EXPECT_EQ(fields[0].first, "token");
  EXPECT_EQ(fields[1], (std::pair<std::string, std::string>{"id_token_hint", hint}));
  EXPECT_EQ(fields[2].second, kPostLogout);
  EXPECT_EQ(fields[3].first, "state");

  HttpResponse done = rp_confirm(authd, plus(full_request(hint), fields[0]), cookie);
  ASSERT_EQ(done.status, 303) << done.body;
  EXPECT_EQ(done.header("Location"), kPostLogout + "?state=s%20t%261");
  expect_cookie_cleared(done, "confirmed");
  EXPECT_FALSE(is_live(authd, cookie));
  std::vector<nlohmann::json> events = events_of_type(authd, "logout");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["detail"]["clientId"], client["clientId"]);
}

// Another session of the same user, still live, is not the browser's:
// asked first too, and only the browser's session ends.
TEST(OidcLogout, Interface_17_13_HintOfAnotherLiveSessionEndsOnlyTheBrowsers) {
  AuthdProcess authd(logout_args());
  std::string other = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  std::string hint = id_token_for(authd, client, other);
  std::string cookie = signed_in_again(authd);
  HttpResponse page = rp_logout(authd, full_request(hint), cookie);
  expect_confirmation_page(page, "another session");
  HttpResponse done =
      rp_confirm(authd, plus(full_request(hint), form_fields(page.body).at(0)), cookie);
  ASSERT_EQ(done.status, 303) << done.body;
  EXPECT_FALSE(is_live(authd, cookie));
  EXPECT_TRUE(is_live(authd, other));
}

// A browser with no session: nothing to end or confirm; a verified hint
// with a registered URI goes back at once.
TEST(OidcLogout, Interface_17_13_NoSessionInTheBrowserGoesBackAtOnce) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  std::string hint = id_token_for(authd, client, cookie);
  HttpResponse res = rp_logout(authd, full_request(hint));
  ASSERT_EQ(res.status, 302) << res.body;
  EXPECT_EQ(location_base(res), kPostLogout);
  EXPECT_TRUE(is_live(authd, cookie)) << "not this browser's session";
  HttpResponse plain = rp_logout(authd, {});
  EXPECT_EQ(plain.status, 200);
  EXPECT_NE(plain.body.find(R"(<h1 id="heading">You are signed out</h1>)"), std::string::npos);
}

// ---- no hint ----------------------------------------------------------------

// oidcc-rp-initiated-logout-no-params and -no-id-token-hint: authd asks;
// confirmed, the session ends on "You are signed out", never a redirect,
// even to a URI registered for client_id (only a hint's client is known
// to have asked).
TEST(OidcLogout, Interface_17_13_oidcc_rp_initiated_logout_no_id_token_hint_AsksNeverRedirects) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  const std::vector<std::vector<std::pair<std::string, std::string>>> requests = {
      {},
      {{"client_id", client["clientId"]},
       {"post_logout_redirect_uri", kPostLogout},
       {"state", "st"}},
  };
  for (const auto& request : requests) {
    std::string context = "parameters: " + std::to_string(request.size());
    HttpResponse page = rp_logout(authd, request, cookie);
    expect_confirmation_page(page, context);
    EXPECT_TRUE(is_live(authd, cookie)) << context;
    auto fields = form_fields(page.body);
    ASSERT_EQ(fields.size(), request.size() + 1) << context;
    HttpResponse done = rp_confirm(authd, fields, cookie);
    ASSERT_EQ(done.status, 200) << context << ": " << done.body;
    EXPECT_EQ(done.header("Location"), "") << context;
    EXPECT_NE(done.body.find(R"(<h1 id="heading">You are signed out</h1>)"), std::string::npos)
        << context;
    expect_cookie_cleared(done, context);
    EXPECT_FALSE(is_live(authd, cookie)) << context;
    std::vector<nlohmann::json> events = events_of_type(authd, "logout");
    ASSERT_FALSE(events.empty()) << context;
    EXPECT_EQ(events[0]["detail"].contains("clientId"), !request.empty()) << context;
    cookie = signed_in_again(authd);
  }
}

// ---- POST, discovery ----------------------------------------------------------

// The spec asks for POST too. From the application's page the SameSite=Lax
// cookie is not sent: authd answers with the same request as a GET, which
// carries it.
TEST(OidcLogout, Interface_17_13_PostIsServedToo) {
  AuthdProcess authd(logout_args());
  std::string cookie = signed_in(authd);
  nlohmann::json client = logout_client(authd);
  std::string hint = id_token_for(authd, client, cookie);
  Headers form = {{"Content-Type", "application/x-www-form-urlencoded"},
                  {"Origin", "https://app.example.com"}};
  HttpResponse cross =
      send_request(authd.port(), "POST", "/oauth2/logout", form, form_encoded(full_request(hint)));
  ASSERT_EQ(cross.status, 303) << cross.body;
  std::string location = cross.header("Location");
  ASSERT_EQ(location.rfind(kIssuer + "/oauth2/logout?", 0), 0u) << location;
  EXPECT_TRUE(is_live(authd, cookie));
  HttpResponse followed = browser_get(authd, location.substr(kIssuer.size()), cookie);
  ASSERT_EQ(followed.status, 302) << followed.body;
  EXPECT_EQ(followed.header("Location"), kPostLogout + "?state=s%20t%261");
  EXPECT_FALSE(is_live(authd, cookie));

  std::string again = signed_in_again(authd);
  form.emplace_back("Cookie", "authd_session=" + again);
  HttpResponse with_cookie =
      send_request(authd.port(), "POST", "/oauth2/logout", form,
                   form_encoded(full_request(id_token_for(authd, client, again))));
  EXPECT_EQ(with_cookie.status, 303) << with_cookie.body;  // a POST's answer
  EXPECT_EQ(location_base(with_cookie), kPostLogout);
  EXPECT_FALSE(is_live(authd, again));
}

TEST(OidcLogout, Interface_17_13_DiscoveryNamesTheEndSessionEndpoint) {
  AuthdProcess authd(logout_args());
  HttpResponse res = send_request(authd.port(), "GET", "/.well-known/openid-configuration");
  ASSERT_EQ(res.status, 200);
  EXPECT_EQ(res.json()["end_session_endpoint"], kIssuer + "/oauth2/logout");
  AuthdProcess off(fast_hashing());
  EXPECT_EQ(send_request(off.port(), "GET", "/oauth2/logout").status, 404);
  EXPECT_EQ(send_request(off.port(), "POST", "/oauth2/logout/confirm").status, 404);
}

// The pages' headers (17.5's, as the consent page's): strict CSP with no
// script at all, no framing, no caching; the confirmation's form-action
// allows the redirect its answer makes, and its Referrer-Policy lets its
// POST carry authd's Origin.
}  // namespace
}  // namespace authd::test
