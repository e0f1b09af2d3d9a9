// interface.md 17.4, 17.7, 17.8: the OpenID Foundation's Basic OP
// conformance modules that the flow tests (oidc_flow_test.cpp) do not name:
// requests with parameters authd accepts and ignores, POST to the
// authorization endpoint, client_secret_post, and the claims of each scope.
// Each test is named after its module.
#include "oidc_support.hpp"

namespace authd::test {
namespace {

class OidcConformance : public ::testing::Test {
 protected:
  OidcConformance() : authd_(oidc_args()) {
    authd_.add_user(kEmail, kPassword);
    cookie_ = authd_.login(kEmail, kPassword);
    client_ = register_client(authd_);
  }

  // The code of a request with `parameters`, redeemed: the token answer.
  nlohmann::json tokens_for(const std::vector<std::pair<std::string, std::string>>& parameters) {
    HttpResponse res = authorize(authd_, parameters, cookie_);
    EXPECT_EQ(res.status, 302) << res.body;
    std::string code = location_parameters(res)["code"];
    EXPECT_FALSE(code.empty()) << res.header("Location");
    HttpResponse tokens = exchange_code(authd_, client_, code, pkce_);
    EXPECT_EQ(tokens.status, 200) << tokens.body;
    return tokens.status == 200 ? tokens.json() : nlohmann::json::object();
  }

  nlohmann::json userinfo_for(const std::string& scope) {
    nlohmann::json tokens = tokens_for(code_request(client_["clientId"], pkce_, scope));
    HttpResponse info = get_with_token(authd_.port(), "/oauth2/userinfo", tokens["access_token"]);
    EXPECT_EQ(info.status, 200) << info.body;
    return info.json();
  }

  std::vector<std::pair<std::string, std::string>> request(const std::string& scope = "openid") {
    return code_request(client_["clientId"], pkce_, scope);
  }

  AuthdProcess authd_;
  std::string cookie_;
  nlohmann::json client_;
  Pkce pkce_;
};

TEST_F(OidcConformance, Interface_17_4_oidcc_response_type_missing) {
  HttpResponse res = authorize(authd_, with(request(), "response_type", std::nullopt), cookie_);
  ASSERT_EQ(res.status, 302) << res.body;
  EXPECT_EQ(location_parameters(res)["error"], "invalid_request");
}

TEST_F(OidcConformance, Interface_17_8_oidcc_ensure_request_without_nonce_succeeds_for_code_flow) {
  nlohmann::json tokens = tokens_for(with(request(), "nonce", std::nullopt));
  EXPECT_FALSE(jwt_payload(tokens["id_token"]).contains("nonce"));
}

// Parameters authd accepts and may ignore (17.4): unknown ones, display,
// ui_locales, claims_locales, acr_values, id_token_hint, claims.
TEST_F(OidcConformance, Interface_17_4_oidcc_ensure_request_with_unknown_parameter_succeeds) {
  tokens_for(with(request(), "extra", "value"));
}
TEST_F(OidcConformance, Interface_17_4_oidcc_display_page_and_popup) {
  tokens_for(with(request(), "display", "page"));
  tokens_for(with(request(), "display", "popup"));
}
TEST_F(OidcConformance, Interface_17_4_oidcc_ui_locales_and_claims_locales) {
  tokens_for(with(with(request(), "ui_locales", "se"), "claims_locales", "se"));
}
TEST_F(OidcConformance, Interface_17_4_oidcc_ensure_request_with_acr_values_succeeds) {
  nlohmann::json tokens = tokens_for(with(request(), "acr_values", "1 2"));
  EXPECT_FALSE(jwt_payload(tokens["id_token"]).contains("acr"));  // authd knows none
}
TEST_F(OidcConformance, Interface_17_4_oidcc_id_token_hint) {
  std::string hint = tokens_for(request())["id_token"];
  tokens_for(with(with(request(), "id_token_hint", hint), "prompt", "none"));
}
TEST_F(OidcConformance, Interface_17_4_oidcc_claims_essential) {
  tokens_for(with(request(), "claims", R"({"userinfo":{"name":{"essential":true}}})"));
}

// The same request as a form POST (Core 3.1.2.1).
TEST_F(OidcConformance, Interface_17_4_oidcc_ensure_post_request_succeeds) {
  HttpResponse res = send_request(authd_.port(), "POST", "/oauth2/authorize",
                                  {{"Content-Type", "application/x-www-form-urlencoded"},
                                   {"Cookie", "authd_session=" + cookie_}},
                                  form_encoded(request()));
  ASSERT_EQ(res.status, 302) << res.body;
  EXPECT_FALSE(location_parameters(res)["code"].empty()) << res.header("Location");
}

TEST_F(OidcConformance, Interface_17_4_oidcc_login_hint) {
  HttpResponse res = authorize(authd_, with(request(), "login_hint", kEmail));  // no session
  ASSERT_EQ(location_base(res), kIssuer + "/signin") << res.header("Location");
  EXPECT_EQ(location_parameters(res)["login_hint"], kEmail);
}

TEST_F(OidcConformance, Interface_17_4_oidcc_ensure_other_scope_order_succeeds) {
  EXPECT_EQ(tokens_for(request("email openid"))["scope"], "email openid");
}

// client_secret_post (17.3): the credentials in the body.
TEST_F(OidcConformance, Interface_17_7_oidcc_server_client_secret_post) {
  HttpResponse res = authorize(authd_, request(), cookie_);
  std::string code = location_parameters(res)["code"];
  HttpResponse tokens = token_request(authd_, {{"grant_type", "authorization_code"},
                                               {"code", code},
                                               {"redirect_uri", kRedirect},
                                               {"code_verifier", pkce_.verifier},
                                               {"client_id", client_["clientId"]},
                                               {"client_secret", client_["clientSecret"]}});
  EXPECT_EQ(tokens.status, 200) << tokens.body;
}

// The claims of each scope (17.8), from userinfo.
TEST_F(OidcConformance, Interface_17_8_oidcc_scope_profile) {
  nlohmann::json info = userinfo_for("openid profile");
  EXPECT_TRUE(info["updated_at"].is_number_integer()) << info.dump();
  EXPECT_FALSE(info.contains("email"));
}

TEST_F(OidcConformance, Interface_17_8_oidcc_scope_phone_and_all) {
  std::string key = admin::create_key(authd_, "phone");
  nlohmann::json user = show_user(authd_, kEmail);
  HttpResponse patched =
      admin::call(authd_, key, "PATCH", "/admin/users/" + user["id"].get<std::string>(),
                  nlohmann::json{{"phone", "+15555550100"}, {"displayName", "Alice"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  nlohmann::json phone = userinfo_for("openid phone");
  EXPECT_EQ(phone["phone_number"], "+15555550100");
  EXPECT_EQ(phone["phone_number_verified"], false);
  nlohmann::json all = userinfo_for("openid profile email phone");
  for (const char* claim : {"sub", "name", "updated_at", "email", "email_verified", "phone_number",
                            "phone_number_verified"})
    EXPECT_TRUE(all.contains(claim)) << claim << ": " << all.dump();
  EXPECT_EQ(all["name"], "Alice");
}

}  // namespace
}  // namespace authd::test
