// The login flow (interface.md 6 /login): throttle, verify, open a session.
#pragma once

#include <chrono>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "auth/sessions/session.hpp"
#include "store/records.hpp"

namespace authd {

struct LoginOutcome {
  enum class Kind {
    success,
    invalid_credentials,  // unknown e-mail or wrong password: indistinguishable
    disabled,             // right password, disabled account
    // Right password, and the account's second factor missing, wrong or
    // used before (interface.md 12.3): 401 with Authd-Second-Factor.
    second_factor_required,
    throttled,
    busy,         // the hashing pool is saturated
    unavailable,  // the store, or a factor but no secret key to open it
  } kind = Kind::unavailable;
  UserRecord user;                      // success
  std::string token;                    // success
  std::chrono::seconds retry_after{0};  // throttled
  // second_factor_required: the factors the account has, as the
  // Authd-Second-Factor header lists them ("totp", "webauthn", "totp, webauthn").
  std::string second_factors;
};

// `email` is canonical and valid, `password` valid (the API checked both).
// `password` is wiped before this returns. The origin's client address is
// what the per-client throttles count; the session records the origin.
// Every outcome but busy and unavailable is recorded as an event
// (interface.md 14.1) from `source`.
// `second` is looked at only for an account with a confirmed factor.
boost::asio::awaitable<LoginOutcome> log_in(AuthContext& ctx, const std::string& email,
                                            std::string& password, const SessionOrigin& origin,
                                            const EventSource& source,
                                            const SecondFactorInput& second = {});

}  // namespace authd
