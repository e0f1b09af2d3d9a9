// The events of a login attempt (interface.md 14.1), shared by every way
// to sign in with an address: a password (/login) and a mail's link or code
// (/signin/email/verify).
#pragma once

#include <optional>
#include <string>

#include "auth/events/events.hpp"
#include "auth/login/throttle.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

// login.failed: the account's id, or, when no account has the address, the
// address masked; `reason` as the event's detail says it.
void record_failed_login(Transaction& tx, const EventSource& source,
                         const std::optional<UserRecord>& user, const std::string& email,
                         const char* reason, Millis now);

// A 429: counted in its key's open event, or the first of its key's window.
// An e-mail's event names the account (or the address masked); a client's
// names none, since it counts the refusals of every address that client
// tried. A refusal that counts looks no account up.
void record_throttled_login(Transaction& tx, const EventSource& source,
                            const ThrottleCounter& refused_by, const std::string& email,
                            Millis now);

// How a sign-in's second factor settles, in the transaction that opens the
// session (interface.md 12.3, 16.4).
struct SettledFactor {
  enum class Kind {
    passed,   // no factor, or a valid one (taken by this commit)
    refused,  // a failed login: the reservation stays, login.failed recorded
    no_key,   // a factor but no secret key: a 503, not a guess (released)
  } kind = Kind::passed;
  const char* used = nullptr;  // passed: "totp", "recovery_code", "webauthn"; null: no factor
  std::string header;          // refused: Authd-Second-Factor's value
};
// `more`: members added to a refusal's login.failed (an upstream sign-in's
// method and provider, 18.2.5).
SettledFactor settle_second_factor(Transaction& tx, const EventSource& source,
                                   const FactorVerdict& verdict, const ReservedFailure& reserved,
                                   const std::string& user_id, Millis now,
                                   const nlohmann::json& more = nlohmann::json::object());

// login.succeeded with the session opened, the factor used and the way the
// first factor was proved (`method`: "password", "email_link", ...).
void record_succeeded_login(Transaction& tx, const EventSource& source, const std::string& user_id,
                            const SessionRecord& session, const FactorVerdict& verdict,
                            const char* factor_used, const char* method, Millis now);

}  // namespace authd
