// Password recovery (interface.md 6 /forgot, 7.2): the request, answered the
// same way whether or not the account exists; the reset token, minted only
// when the outbox worker delivers the mail; and the reset itself.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "auth/mail_flows/mail_request.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

inline constexpr std::string_view kResetTokenPrefix = "authdrt_";
inline constexpr std::string_view kResetMailKind = "password_reset";

using ForgotOutcome = AddressMailOutcome;

// Counts the request per client and, within the address's mail limits,
// writes an outbox row keyed by the address, in the same transaction. The
// same work for every valid address: whether it has an account is decided
// only at delivery (mint_reset_token).
boost::asio::awaitable<ForgotOutcome> request_password_reset(AuthContext& ctx,
                                                             const std::string& email,
                                                             const EventSource& source);

// Runs in the worker's transaction at delivery time: finds the enabled
// account of the mail's address, mints a fresh reset token for it (voiding
// any older one) and returns it; nothing when the address has no enabled
// account (never had one, or it was disabled or deleted meanwhile).
std::optional<std::string> mint_reset_token(Transaction& tx, const OutboxRecord& mail, Millis now,
                                            Duration lifetime);

struct ResetOutcome {
  enum class Kind {
    ok,
    invalid_token,  // unknown, used, expired, or of a disabled account
    bad_password,   // breaks a rule that needs the account (equal to the e-mail)
    busy,           // the hashing pool is saturated
    unavailable,
  } kind = Kind::unavailable;
  UserRecord user;      // ok
  std::string problem;  // bad_password
};

// POST /reset after its body and the password's length were checked:
// checks the token, then the account's password rules, hashes the new
// password, then in one transaction (which checks the token again, as a
// concurrent reset may have used it) sets the password, consumes every reset
// token of the user, revokes every session and marks the e-mail verified.
// A bad password never uses the token up. `password` is wiped.
boost::asio::awaitable<ResetOutcome> reset_password(AuthContext& ctx, const std::string& token,
                                                    std::string& password,
                                                    const EventSource& source);

}  // namespace authd
