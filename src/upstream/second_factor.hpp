// The second factor of an upstream sign-in (interface.md 18.2.5, 18.3.7):
// the upstream proved the first factor; an account with a confirmed
// second factor (12, 16) gets its session only once the same browser
// brings that factor too. The callback leaves the flow waiting (the
// account, 5 minutes, no wrong try yet), found again by the digest of the
// binder cookie; POST /signin/upstream/second-factor checks the factor as
// /login does (the same throttle, at most kUpstreamFactorTries wrong tries)
// and opens the session as the callback would have.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "auth/sessions/session.hpp"
#include "store/areas/upstream_flows.hpp"

namespace authd {

inline constexpr auto kUpstreamFactorWait = std::chrono::minutes(5);
inline constexpr int kUpstreamFactorTries = 5;

// At the callback: the taken flow `flow` waits for the second factor of
// `user_id`. False when the store failed (503).
boost::asio::awaitable<bool> await_upstream_second_factor(AuthContext& ctx,
                                                          const UpstreamFlowRecord& flow,
                                                          const std::string& user_id);

// What the page asks for: the factors of the waiting flow's account.
struct AwaitedFactors {
  enum class Kind { ok, no_flow, unavailable } kind = Kind::unavailable;
  bool totp = false;
  bool passkey = false;
};
boost::asio::awaitable<AwaitedFactors> awaited_factors(AuthContext& ctx,
                                                       const std::optional<std::string>& binder);

struct UpstreamFactorOutcome {
  enum class Kind {
    signed_in,    // the factor passed: the session is open, the flow used up
    refused,      // missing or wrong: 401 with the header (counted)
    no_flow,      // none waits for this browser, or it expired or is void: 400
    disabled,     // the account was disabled meanwhile: 403
    throttled,    // the address's or client's failed logins: 429
    unavailable,  // the store, or a factor but no secret key: 503
  } kind = Kind::unavailable;
  std::string second_factors;           // refused: Authd-Second-Factor's value
  std::chrono::seconds retry_after{0};  // throttled
  UpstreamFlowRecord flow;              // signed_in: where the flow goes on
  UserRecord user;                      // signed_in
  std::string token;                    // signed_in: the session's (wiped by the caller)
};

// `binder`: the cookie's value (none: no cookie); `second` is the caller's.
boost::asio::awaitable<UpstreamFactorOutcome> finish_upstream_second_factor(
    AuthContext& ctx, const std::optional<std::string>& binder, const SecondFactorInput& second,
    const SessionOrigin& origin, const EventSource& source);

}  // namespace authd
