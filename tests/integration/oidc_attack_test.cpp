// interface.md 17.3-17.9 under attack, over real HTTP on SQLite and
// PostgreSQL: what a hostile browser, page or client tries against the
// provider (docs/design/threat-model/oidc-provider.md lists the threats).
#include "oidc_support.hpp"
#include "passkey_support.hpp"

namespace authd::test {
namespace {

using Parameters = std::vector<std::pair<std::string, std::string>>;

std::string attacker_signed_in(const AuthdProcess& authd) {
  authd.add_user(kEmail, kPassword);
  return authd.login(kEmail, kPassword);
}

Parameters replaced(Parameters parameters, const std::string& name, const std::string& value) {
  std::erase_if(parameters, [&](const auto& pair) { return pair.first == name; });
  parameters.emplace_back(name, value);
  return parameters;
}

HttpResponse post_consent(const AuthdProcess& authd, const std::string& id,
                          const std::string& cookie, const std::string& decision = "allow") {
  Headers headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                     {"Cookie", "authd_session=" + cookie},
                     {"Origin", kIssuer}};
  return send_request(authd.port(), "POST", "/oauth2/consent", headers,
                      "request=" + id + "&decision=" + decision);
}

// ---- 17.4, 17.5: re-authentication cannot be skipped ---------------------------

// A request that asks the user to sign in again (prompt=login, max_age=0)
// waits for a fresh sign-in. Its id must not buy a code with the old
// session through the consent page or its answer: whoever holds only a
// session cookie (a stolen one, an unlocked computer) would pass a step-up
// the relying party asked for.
TEST(OidcAttack, Interface_17_5_ConsentCannotSkipReauthentication) {
  AuthdProcess authd(oidc_args());
  std::string cookie = attacker_signed_in(authd);
  nlohmann::json client = register_client(authd, {{"firstParty", false}});
  for (auto [name, value] : {std::pair{"prompt", "login"}, std::pair{"max_age", "0"}}) {
    Pkce pkce;
    HttpResponse res =
        authorize(authd, replaced(code_request(client["clientId"], pkce), name, value), cookie);
    ASSERT_EQ(location_base(res), kIssuer + "/signin") << name << ": " << res.header("Location");
    std::string id = location_parameters(res)["request"];
    HttpResponse page = browser_get(authd, "/consent?request=" + id, cookie);
    EXPECT_EQ(location_base(page), kIssuer + "/signin") << name << ": " << page.status;
    HttpResponse answer = post_consent(authd, id, cookie);
    EXPECT_EQ(location_parameters(answer).count("code"), 0u)
        << name << ": " << answer.header("Location");
    EXPECT_EQ(location_base(answer), kIssuer + "/signin") << name;
  }
  EXPECT_TRUE(events_of_type(authd, "oauth.authorized").empty());
}

// ---- 17.4: parameters that are not text ----------------------------------------

// A parameter that is not well-formed UTF-8 or holds a NUL byte is refused
// as invalid_request (redirected, the state percent-encoded as sent); a
// client_id that is not one authd could have given is an unknown client.
// Neither is a 500, nor a code whose ID token cannot be written.
TEST(OidcAttack, Interface_17_4_ParametersThatAreNotTextAreInvalidRequest) {
  AuthdProcess authd(oidc_args());
  std::string cookie = attacker_signed_in(authd);
  nlohmann::json client = register_client(authd);
  for (std::string cookie_or_none : {std::string(), cookie}) {
    for (const char* name : {"state", "nonce", "login_hint", "scope"}) {
      for (std::string bad : {std::string("\xff\xfe"), std::string("a\0b", 3)}) {
        Pkce pkce;
        HttpResponse res = authorize(
            authd, replaced(code_request(client["clientId"], pkce), name, bad), cookie_or_none);
        std::string context = std::string(name) + (cookie_or_none.empty() ? "" : " signed in");
        ASSERT_EQ(res.status, 302) << context << ": " << res.body;
        EXPECT_EQ(location_base(res), kRedirect) << context;
        EXPECT_EQ(location_parameters(res)["error"], "invalid_request") << context;
        if (std::string(name) == "state") {
          EXPECT_EQ(location_parameters(res)["state"], bad);
        }
      }
    }
  }
  Pkce pkce;
  for (std::string bad : {std::string("\xff"), std::string("a\0b", 3)}) {
    HttpResponse res =
        authorize(authd, replaced(code_request(client["clientId"], pkce), "client_id", bad));
    EXPECT_EQ(res.status, 400) << res.body;
    EXPECT_EQ(res.header("Location"), "");
  }
  EXPECT_TRUE(events_of_type(authd, "oauth.authorized").empty());
}

// The token endpoint names a parameter sent twice in its error; one that
// is not UTF-8 still gets the JSON error, not a 500.
TEST(OidcAttack, Interface_17_7_ParametersThatAreNotTextAreInvalidRequest) {
  AuthdProcess authd(oidc_args());
  nlohmann::json client = register_client(authd);
  Headers form = {{"Content-Type", "application/x-www-form-urlencoded"}};
  for (const std::string& body :
       std::vector<std::string>{"%FF=1&%FF=2&grant_type=authorization_code",
                                "client_id=%FF&grant_type=authorization_code&code=x",
                                "client_id=" + client["clientId"].get<std::string>() +
                                    "&client_secret=%FF%00&grant_type=authorization_code"}) {
    HttpResponse res = send_request(authd.port(), "POST", "/oauth2/token", form, body);
    EXPECT_TRUE(res.status == 400 || res.status == 401) << body << ": " << res.status;
    EXPECT_TRUE(res.json().contains("error")) << body << ": " << res.body;
  }
}

// ---- 17.5: the waiting requests cannot be flooded ------------------------------

// Each authorization request that waits is a row (with its state, nonce
// and login_hint, up to the body limit) that nobody had to sign in to
// make. Storing one is counted per client address at --login-client-limit,
// as the passkey sign-in options are (16.3.1): past it, authd's own page,
// 429 with Retry-After, and nothing stored. A signed-in browser whose
// request is answered at once stores nothing and is not counted.
TEST(OidcAttack, Interface_17_5_WaitingRequestsAreCountedPerClient) {
  AuthdProcess authd(oidc_args({"--login-client-limit", "3/15m"}));
  std::string cookie = attacker_signed_in(authd);
  nlohmann::json client = register_client(authd);
  Pkce pkce;
  for (int i = 0; i < 3; ++i) {
    HttpResponse res = authorize(authd, code_request(client["clientId"], pkce));
    ASSERT_EQ(location_base(res), kIssuer + "/signin") << i << ": " << res.status;
  }
  HttpResponse flooded = authorize(authd, code_request(client["clientId"], pkce));
  EXPECT_EQ(flooded.status, 429) << flooded.header("Location");
  EXPECT_EQ(flooded.header("Location"), "");
  EXPECT_FALSE(flooded.header("Retry-After").empty());
  EXPECT_NE(flooded.header("Content-Type").find("text/html"), std::string::npos);
  HttpResponse answered = authorize(authd, code_request(client["clientId"], pkce), cookie);
  EXPECT_FALSE(location_parameters(answered)["code"].empty()) << answered.status;
}

// ---- 17.5.1: a waiting request follows the client's registration ---------------

// The operator takes a scope away from a client (PATCH /admin/clients):
// a request that waits from before must not be granted it on resumption,
// as it is not when the redirect URI is taken away.
TEST(OidcAttack, Interface_17_5_1_WaitingRequestLosesAScopeTheClientLost) {
  AuthdProcess authd(oidc_args());
  authd.add_user(kEmail, kPassword);
  nlohmann::json client = register_client(authd, {{"scopes", {"openid", "email"}}});
  Pkce pkce;
  HttpResponse res = authorize(authd, code_request(client["clientId"], pkce, "openid email"));
  ASSERT_EQ(location_base(res), kIssuer + "/signin") << res.header("Location");
  std::string id = location_parameters(res)["request"];
  std::string key = admin::create_key(authd, "attack");
  HttpResponse patched =
      admin::call(authd, key, "PATCH", "/admin/clients/" + client["clientId"].get<std::string>(),
                  nlohmann::json{{"scopes", {"openid"}}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  std::string cookie = authd.login(kEmail, kPassword);
  HttpResponse resumed = browser_get(authd, "/oauth2/authorize/resume?request=" + id, cookie);
  EXPECT_EQ(resumed.status, 400) << resumed.header("Location");
  EXPECT_EQ(location_parameters(resumed).count("code"), 0u);
  EXPECT_TRUE(events_of_type(authd, "oauth.authorized").empty());
}

}  // namespace
}  // namespace authd::test
