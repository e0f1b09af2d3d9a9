// GET /oauth2/jwks (interface.md 17.12): the public parts of the provider's
// signing keys -- the current, the next (published before they sign) and
// the retired ones whose signatures may still be valid -- from the key
// ring in memory (auth/oidc/signing_keys.hpp), never a private member.
#include "api/handlers.hpp"
#include "auth/oidc/signing_keys.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_oauth_jwks(ApiContext& ctx, ApiRequest& /*request*/) {
  ApiResponse response;
  // The route exists only with --oidc on, which makes the ring at start.
  response.body =
      ctx.auth.signing_keys != nullptr ? ctx.auth.signing_keys->jwks_json() : R"({"keys":[]})";
  // A next key is published --oidc-key-prepublish before it signs: a
  // relying party caching five minutes always knows it in time.
  response.headers.emplace_back("Cache-Control", "public, max-age=300");
  co_return response;
}

}  // namespace authd
