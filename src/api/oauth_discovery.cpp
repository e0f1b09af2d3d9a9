// GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0) and
// GET /.well-known/oauth-authorization-server (RFC 8414): one metadata
// document, listing only what authd implements (interface.md 17.2).
// Every endpoint is the issuer (--public-url, with its path prefix if any)
// followed by the route's path.
#include <nlohmann/json.hpp>

#include "api/handlers.hpp"

namespace authd {
namespace {

std::string metadata(const OidcSettings& oidc) {
  const std::string& issuer = oidc.issuer;
  nlohmann::json document = {
      {"issuer", issuer},
      {"authorization_endpoint", issuer + "/oauth2/authorize"},
      {"token_endpoint", issuer + "/oauth2/token"},
      {"userinfo_endpoint", issuer + "/oauth2/userinfo"},
      {"jwks_uri", issuer + "/oauth2/jwks"},
      // interface.md 17.13: RP-Initiated Logout 1.0.
      {"end_session_endpoint", issuer + "/oauth2/logout"},
      {"introspection_endpoint", issuer + "/oauth2/introspect"},
      {"introspection_endpoint_auth_methods_supported",
       {"client_secret_basic", "client_secret_post"}},
      {"revocation_endpoint", issuer + "/oauth2/revoke"},
      {"scopes_supported", {"openid", "profile", "email", "phone", "offline_access"}},
      {"response_types_supported", {"code"}},
      {"response_modes_supported", {"query"}},
      {"grant_types_supported", {"authorization_code", "refresh_token", "client_credentials"}},
      {"subject_types_supported", {"public"}},
      {"id_token_signing_alg_values_supported", {"RS256", "ES256"}},
      {"token_endpoint_auth_methods_supported",
       {"client_secret_basic", "client_secret_post", "none"}},
      // 17.11: the revocation endpoint authenticates clients as the token
      // endpoint does.
      {"revocation_endpoint_auth_methods_supported",
       {"client_secret_basic", "client_secret_post", "none"}},
      {"code_challenge_methods_supported", {"S256"}},
      // interface.md 17.8: the ID token's and userinfo's claims; never acr.
      {"claims_supported",
       {"sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "azp", "sid", "amr", "email",
        "email_verified", "name", "picture", "updated_at", "phone_number",
        "phone_number_verified"}},
      {"prompt_values_supported", {"none", "login", "consent", "select_account"}},
      {"authorization_response_iss_parameter_supported", true},
      {"request_parameter_supported", false},
      {"request_uri_parameter_supported", false},
      {"claims_parameter_supported", false},
  };
  return document.dump();
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_oauth_discovery(ApiContext& ctx,
                                                           ApiRequest& /*request*/) {
  ApiResponse response;
  response.body = metadata(ctx.auth.policy.oidc);
  response.headers.emplace_back("Cache-Control", "public, max-age=300");
  co_return response;
}

}  // namespace authd
