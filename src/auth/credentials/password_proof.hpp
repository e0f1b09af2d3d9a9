// The current password as proof of an account's owner, where a bearer
// token alone must not be enough (adding a second factor or a passkey,
// removing a passkey: interface.md 12.1, 16.2.1, 16.5.2). The attempt is
// counted as a failed login of the account's e-mail and of the client up
// front, in the login throttles themselves (6 /login 4), so that a stolen
// token gives no more guesses than the login form does; the caller clears
// the count in the commit that acts on a right password.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/login/throttle.hpp"
#include "store/records.hpp"

namespace authd {

struct PasswordProof {
  enum class Kind {
    right,        // the reservation is to be cleared (clear_on_success) by the caller
    wrong,        // counted, and stays counted: 403
    throttled,    // 429 after retry_after
    busy,         // the hashing pool is saturated: 503
    unavailable,  // the store failed: 503
  } kind = Kind::unavailable;
  std::chrono::seconds retry_after{0};
  ReservedFailure reserved;
};

// A place in the hashing pool first (nothing is written for a request the
// pool cannot take), the reservation, then the verification. `password` is
// wiped.
boost::asio::awaitable<PasswordProof> prove_password(AuthContext& ctx, const UserRecord& user,
                                                     std::string& password,
                                                     const std::string& client_address);

// The same for a password that is not an account's yet: a pending
// sign-up's (interface.md 11.5), counted as a login of its address.
boost::asio::awaitable<PasswordProof> prove_password(AuthContext& ctx,
                                                     const std::string& canonical_email,
                                                     const std::optional<std::string>& phc,
                                                     std::string& password,
                                                     const std::string& client_address);

// The reservation alone, for a proof that is not a password (a TOTP code
// or a recovery code: 12.1.2-12.1.4): kind right when it may go on.
boost::asio::awaitable<PasswordProof> reserve_proof_attempt(AuthContext& ctx,
                                                            const UserRecord& user,
                                                            const std::string& client_address);
// The same for the password hash `phc` of `canonical_email` (a failure is
// charged by its kind's cost: interface.md 10.5).
boost::asio::awaitable<PasswordProof> reserve_proof_attempt(AuthContext& ctx,
                                                            const std::string& canonical_email,
                                                            const std::optional<std::string>& phc,
                                                            const std::string& client_address);

// What a flow answers when the proof does not let it go on: its outcome's
// kind (wrong_proof, throttled, busy or unavailable) and wait. False when
// the password was right.
template <class Outcome>
bool stopped_by(const PasswordProof& proof, Outcome& outcome) {
  switch (proof.kind) {
    case PasswordProof::Kind::right:
      return false;
    case PasswordProof::Kind::wrong:
      outcome.kind = Outcome::Kind::wrong_proof;
      break;
    case PasswordProof::Kind::throttled:
      outcome.kind = Outcome::Kind::throttled;
      outcome.retry_after = proof.retry_after;
      break;
    case PasswordProof::Kind::busy:
      outcome.kind = Outcome::Kind::busy;
      break;
    case PasswordProof::Kind::unavailable:
      outcome.kind = Outcome::Kind::unavailable;
      break;
  }
  return true;
}

}  // namespace authd
