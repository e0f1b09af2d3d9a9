// POST /password (interface.md 11.1): the caller changes their own password,
// proving the current one. A wrong current password is a failed login of
// the account's e-mail and of the client: it counts in the login throttles.
#pragma once

#include <chrono>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/records.hpp"

namespace authd {

struct PasswordChangeOutcome {
  enum class Kind {
    ok,
    invalid_token,   // unknown, expired or revoked (or the account disabled)
    bad_password,    // the new password breaks a rule that needs the account
    throttled,       // the login throttles of the e-mail or the client
    wrong_password,  // the current password does not match: 403
    busy,            // the hashing pool is saturated
    unavailable,
  } kind = Kind::unavailable;
  UserRecord user;                      // ok
  std::string problem;                  // bad_password
  std::chrono::seconds retry_after{0};  // throttled
};

// After the body's shape and the new password's length were checked (the
// API's 400s): the token, the rules that need the account, the throttles,
// the current password on the hashing pool, then in one transaction the
// new hash, reset tokens voided, and every other session of the user
// revoked; the caller's session stays. Both passwords are wiped.
boost::asio::awaitable<PasswordChangeOutcome> change_password(AuthContext& ctx,
                                                              const std::string& token,
                                                              std::string& current_password,
                                                              std::string& new_password,
                                                              const EventSource& source);

}  // namespace authd
