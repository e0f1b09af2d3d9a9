// The upstream provider's tokens kept on a link (interface.md 18.5): only
// for a provider configured with `keep-tokens = true`, and then only
// sealed as the TOTP secrets are (12.2, crypto/sealed_secrets.hpp), bound
// to the link's id. Each successful sign-in or link through the provider
// replaces them; with `keep-tokens` off, it deletes what an earlier
// setting kept. Only the admin API reads them
// (GET /admin/identities/{id}/tokens): never the user's own session
// (docs/design/decisions/upstream-identity-providers.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "core/time.hpp"

namespace authd {

// The token endpoint's answer (RFC 6749 5.1), as kept. Wipes its secrets
// when it goes.
struct UpstreamTokens {
  std::string token_type;
  std::string access_token;
  std::optional<Millis> expires_at;  // from `expires_in`, when the answer had it
  std::string scope;                 // "" when the answer named none
  std::string refresh_token;         // "" when none
  std::string id_token;              // "" when none (oauth2 providers)

  UpstreamTokens() = default;
  UpstreamTokens(UpstreamTokens&&) = default;
  UpstreamTokens& operator=(UpstreamTokens&&) = default;
  UpstreamTokens(const UpstreamTokens&) = delete;
  UpstreamTokens& operator=(const UpstreamTokens&) = delete;
  ~UpstreamTokens();
};

// The context a link's tokens are sealed for: a sealed value copied to
// another link's row does not open there.
std::string kept_tokens_seal_context(std::string_view identity_id);

// At the end of a successful sign-in or link through `provider` for its
// `subject` (18.2.2): seals `tokens` onto the link, replacing what it
// kept; with no tokens (keep-tokens off), deletes what it kept. Without a
// secret key nothing can be sealed: the link keeps nothing then (serve
// refuses to start in that case, so this is only a safeguard). Failures
// are logged, never the tokens; the sign-in stands either way.
boost::asio::awaitable<void> keep_upstream_tokens(AuthContext& ctx, std::string_view provider,
                                                  std::string_view subject,
                                                  const std::optional<UpstreamTokens>& tokens);

struct KeptTokensRead {
  enum class Kind {
    ok,
    not_found,  // no such link, it keeps nothing, or they do not open with the key
    unavailable,
  } kind = Kind::unavailable;
  UpstreamTokens tokens;
  Millis stored_at = 0;
};

// GET /admin/identities/{id}/tokens: the tokens kept on the link, opened.
boost::asio::awaitable<KeptTokensRead> read_kept_tokens(AuthContext& ctx, std::string_view id);

}  // namespace authd
