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

}  // namespace
}  // namespace authd::test
