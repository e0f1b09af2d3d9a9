// A sign-in or a link through an upstream provider (interface.md 18.2),
// from the redirect to the session:
//
// 1. start_upstream_flow: a random `state` (sent through the upstream)
//    and a random binder (the browser's HttpOnly cookie) are minted; only
//    their digests are stored (migration 18). The PKCE verifier (S256) and
//    the nonce are derived from both, so that neither is stored and only
//    the browser that holds the cookie can complete the exchange.
// 2. take_upstream_flow: the callback's state is taken once (single use),
//    and must come with the binder of the same browser, before expiry.
// 3. The code is exchanged and the answer verified (UpstreamRegistry).
// 4. complete_upstream_sign_in / complete_upstream_link: the linking rules
//    (auth/upstream/linking.hpp) and the session, amr "fed" (RFC 8176).
#pragma once

#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "auth/sessions/session.hpp"
#include "auth/upstream/linking.hpp"
#include "store/areas/upstream_flows.hpp"
#include "upstream/registry.hpp"

namespace authd {

inline constexpr auto kUpstreamFlowLifetime = std::chrono::minutes(10);
inline constexpr std::string_view kUpstreamPurposeSignIn = "signin";
inline constexpr std::string_view kUpstreamPurposeLink = "link";

// What a flow is for, and where it goes back to.
struct UpstreamFlowIntent {
  std::string purpose{kUpstreamPurposeSignIn};
  std::string user_id;      // a link's account
  std::string request_id;   // a waiting authorization request (17.5)
  std::string return_path;  // relative to the public URL (is_return_path)
};

// A path on authd's own origin: one '/' then no second '/' or '\' at its
// start (never "//host" nor "/\host"), no scheme, no control characters,
// at most 512 bytes. Anything else could send the browser elsewhere (an
// open redirect).
bool is_return_path(std::string_view path);

struct UpstreamStart {
  enum class Kind { ok, not_ready, unavailable } kind = Kind::unavailable;
  std::string location;  // the upstream's authorization URL
  std::string binder;    // the cookie's value (a secret: wiped by the caller)
};

boost::asio::awaitable<UpstreamStart> start_upstream_flow(AuthContext& ctx,
                                                          UpstreamRegistry& registry,
                                                          const UpstreamProvider& provider,
                                                          const UpstreamFlowIntent& intent);

struct UpstreamCallback {
  enum class Kind {
    ok,
    unknown_state,  // no such flow (or another provider's)
    replayed,       // used before
    expired,
    wrong_browser,  // no binder cookie, or another browser's
    refused,        // the upstream answered an error, or its answer failed a check
    unavailable,
  } kind = Kind::unavailable;
  UpstreamFlowRecord flow;                 // from unknown_state on: what was stored
  UpstreamIdentity identity;               // ok
  std::optional<UpstreamTokens> tokens{};  // ok, for a provider with keep-tokens (18.5)
  std::string refusal;                     // refused: a fixed word for events and logs
};

// The callback's `state`, the binder cookie (none: no cookie), and the
// upstream's `code` (none: it answered `error`).
boost::asio::awaitable<UpstreamCallback> finish_upstream_flow(
    AuthContext& ctx, UpstreamRegistry& registry, const UpstreamProvider& provider,
    const std::string& state, const std::optional<std::string>& binder,
    const std::optional<std::string>& code);

struct UpstreamSession {
  enum class Kind {
    signed_in,
    refused,                 // the linking rules refused (outcome says why)
    second_factor_required,  // the account (user) has a second factor: ask for it (18.2.5)
    unavailable,
  } kind = Kind::unavailable;
  UpstreamSignInOutcome outcome = UpstreamSignInOutcome::unavailable;
  std::optional<UserRecord> user;
  std::string token;  // the session's (wiped by the caller)
};

boost::asio::awaitable<UpstreamSession> complete_upstream_sign_in(AuthContext& ctx,
                                                                  const UpstreamProvider& provider,
                                                                  const UpstreamIdentity& identity,
                                                                  const SessionOrigin& origin,
                                                                  const EventSource& source);

boost::asio::awaitable<LinkOutcome> complete_upstream_link(AuthContext& ctx,
                                                           const UpstreamProvider& provider,
                                                           const std::string& user_id,
                                                           const UpstreamIdentity& identity,
                                                           const EventSource& source);

}  // namespace authd
