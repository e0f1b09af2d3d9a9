// The account's own second-factor routes (interface.md 12.1): enrolment
// with the current password, confirmation with a first code, removal, and a
// new set of recovery codes. Every proof (the password, a code) counts as a
// failed login of the account's e-mail and of the client until it succeeds,
// in the login throttles themselves (interface.md 6 /login 4): a stolen
// token gives no more guesses than the login form does.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"

namespace authd {

struct FactorOutcome {
  enum class Kind {
    ok,
    invalid_token,  // unknown, expired or revoked (or the account disabled): 401
    throttled,      // the login throttles of the e-mail or the client: 429
    wrong_proof,    // wrong password or code: 403
    conflict,       // a confirmed factor already (enrol), or none to act on: 409
    busy,           // the hashing pool is saturated: 503
    unavailable,    // the store, or no secret key configured: 503
  } kind = Kind::unavailable;
  std::chrono::seconds retry_after{0};  // throttled
  // POST /mfa/totp
  std::string secret_base32;
  std::string otpauth_uri;
  // POST /mfa/totp/confirm and /mfa/recovery-codes: shown only here.
  std::vector<std::string> recovery_codes;
};

// POST /mfa/totp: a new pending factor, after the current password.
boost::asio::awaitable<FactorOutcome> enroll_totp(AuthContext& ctx, const std::string& token,
                                                  std::string& password, const EventSource& source);

// POST /mfa/totp/confirm: a code of the pending factor confirms it.
boost::asio::awaitable<FactorOutcome> confirm_totp(AuthContext& ctx, const std::string& token,
                                                   std::string& code, const EventSource& source);

// POST /mfa/totp/remove: a current TOTP code or a recovery code of the
// confirmed factor, then the factor and its recovery codes removed.
boost::asio::awaitable<FactorOutcome> remove_totp(AuthContext& ctx, const std::string& token,
                                                  std::string& code, const EventSource& source);

// POST /mfa/recovery-codes: the same proof, then a new set of recovery codes.
boost::asio::awaitable<FactorOutcome> renew_recovery_codes(AuthContext& ctx,
                                                           const std::string& token,
                                                           std::string& code,
                                                           const EventSource& source);

}  // namespace authd
