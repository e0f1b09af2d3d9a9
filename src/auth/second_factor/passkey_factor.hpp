// A passkey's assertion at its point of use (interface.md 16.3.2, 16.4.1),
// inside the write transaction that acts on it: the challenge it names is
// taken (whatever the outcome: a challenge is used once), the passkey it
// names is read, the assertion verified (crypto/webauthn.hpp), and the new
// signature counter written, so that of two uses of one challenge or one
// counter value, on any instance, one passes.
#pragma once

#include <optional>
#include <string>

#include "core/time.hpp"
#include "crypto/webauthn.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

struct PasskeyUse {
  std::optional<webauthn::Check> failed;  // nothing: passed
  std::optional<PasskeyRecord> passkey;   // the registered passkey it names, if any
  // A sign-in's (no `account`): the passkey's account, read (locked on
  // PostgreSQL) before the passkey's row is written, the order every
  // writer of a user's rows takes (store/postgres/transaction.hpp).
  std::optional<UserRecord> owner;
};

// `account`: the account whose passkey it must be (a second factor: user
// verification not required), or null (a sign-in: any account's, user
// verification required).
PasskeyUse use_passkey(Transaction& tx, const webauthn::RelyingParty& rp,
                       const webauthn::AssertionResponse& response, const std::string* account,
                       Millis now);

// Takes the challenge an assertion names, if any, and nothing else: for a
// login that ends before its second factor is looked at (a wrong password,
// the throttle), so that the assertion cannot be sent again (16.4.2).
void spend_passkey_challenge(Transaction& tx,
                             const std::optional<webauthn::AssertionResponse>& response,
                             Millis now);

// How long a challenge may be answered (interface.md 16.6.2), also the
// options' timeout.
inline constexpr Millis kPasskeyChallengeLifetime = Millis{5} * 60 * 1000;

// A new challenge of 32 random bytes, stored as its digest for `purpose`
// (registration for `user_id`; "" for a sign-in) until the lifetime ends.
// Returns the bytes.
std::string issue_passkey_challenge(Transaction& tx, ChallengePurpose purpose,
                                    const std::string& user_id, Millis now);

}  // namespace authd
