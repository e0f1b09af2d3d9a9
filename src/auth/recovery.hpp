// Password recovery (decisions.md 6 /forgot): the request, answered the same
// way whether or not the account exists, and the reset token, minted only
// when the outbox worker delivers the mail.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

inline constexpr std::string_view kResetTokenPrefix = "authdrt_";
inline constexpr std::string_view kResetMailKind = "password_reset";

struct ForgotOutcome {
  enum class Kind { accepted, throttled, unavailable } kind = Kind::unavailable;
  std::chrono::seconds retry_after{0};
};

// Counts the request per client; for an existing, enabled account within its
// mail limits, writes an outbox row in the same transaction.
boost::asio::awaitable<ForgotOutcome> request_password_reset(AuthContext& ctx,
                                                             const std::string& email,
                                                             const std::string& client_address);

// Runs in the worker's transaction at delivery time: mints a fresh reset
// token for the mail's account (voiding any older one) and returns it, or
// nothing when the account was disabled or deleted meanwhile.
std::optional<std::string> mint_reset_token(Transaction& tx, const OutboxRecord& mail, Millis now,
                                            Duration lifetime);

}  // namespace authd
