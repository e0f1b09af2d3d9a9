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
    // The console's sign-in (interface.md 21.2), right password: the
    // account holds no operator grant, or has no TOTP factor to pass.
    not_operator,
    second_factor_missing,
    busy,         // the hashing pool is saturated
    unavailable,  // the store, or a factor but no secret key to open it
  } kind = Kind::unavailable;
  UserRecord user;                      // success
  std::string token;                    // success
  std::chrono::seconds retry_after{0};  // throttled
  // second_factor_required: the factors the account has, as the
  // Authd-Second-Factor header lists them ("totp", "webauthn", "totp, webauthn").
  std::string second_factors;
  std::string operator_scope;  // a console sign-in's success: "read" or "write"
};

// The console's sign-in (interface.md 21.2) is a login with more rules: the
// account must hold an operator grant and pass its TOTP factor (or a
// recovery code; passkeys do not count: docs/design/decisions/console.md),
// and what opens is a console session, not a session of the API. Its
// token is the outcome's `token`.
struct ConsoleLogin {
  Duration idle;      // --console-idle-timeout
  Duration lifetime;  // the absolute end, whatever the use
};

inline constexpr std::string_view kConsoleTokenPrefix = "authdop_";

// `email` is canonical and valid, `password` valid (the API checked both).
// `password` is wiped before this returns. The origin's client address is
// what the per-client throttles count; the session records the origin.
// Every outcome but busy and unavailable is recorded as an event
// (interface.md 14.1) from `source`.
// `second` is looked at only for an account with a confirmed factor.
boost::asio::awaitable<LoginOutcome> log_in(AuthContext& ctx, const std::string& email,
                                            std::string& password, const SessionOrigin& origin,
                                            const EventSource& source,
                                            const SecondFactorInput& second = {},
                                            const ConsoleLogin* console = nullptr);

}  // namespace authd
