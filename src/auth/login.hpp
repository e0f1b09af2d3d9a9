// The login flow (interface.md 6 /login): throttle, verify, open a session.
#pragma once

#include <chrono>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/session.hpp"
#include "store/records.hpp"

namespace authd {

struct LoginOutcome {
  enum class Kind {
    success,
    invalid_credentials,  // unknown e-mail or wrong password: indistinguishable
    disabled,             // right password, disabled account
    throttled,
    busy,  // the hashing pool is saturated
    unavailable,
  } kind = Kind::unavailable;
  UserRecord user;                      // success
  std::string token;                    // success
  std::chrono::seconds retry_after{0};  // throttled
};

// `email` is canonical and valid, `password` valid (the API checked both).
// `password` is wiped before this returns. The origin's client address is
// what the per-client throttles count; the session records the origin.
boost::asio::awaitable<LoginOutcome> log_in(AuthContext& ctx, const std::string& email,
                                            std::string& password, const SessionOrigin& origin);

}  // namespace authd
