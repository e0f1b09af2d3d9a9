// Self-service sign-up (interface.md 11.4-11.5): the request, answered the
// same way whether or not the address has an account; the verification
// token, minted only when the outbox worker delivers the mail; and the
// verification, which creates the account and opens its first session.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/sessions/session.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

inline constexpr std::string_view kSignupTokenPrefix = "authdsu_";
inline constexpr std::string_view kSignupMailKind = "signup";
// A sign-up past its address's mail limit, kept as its newest request
// (interface.md 11.5): an outbox row that is no mail.
inline constexpr std::string_view kSignupRequestKind = "signup_request";

struct SignupOutcome {
  enum class Kind { accepted, throttled, busy, unavailable } kind = Kind::unavailable;
  std::chrono::seconds retry_after{0};
};

// `email` is canonical and valid, `password` follows interface.md 3.3 (the
// API checked both), `display_name` passed profile_problem. Hashes the
// password on the hashing pool, then counts the request per client and,
// within the address's mail limits, writes an outbox row with the pending
// sign-up, in one transaction. The same work for every address: whether it
// has an account is decided only at delivery (prepare_signup_mail).
// `password` is wiped.
boost::asio::awaitable<SignupOutcome> request_signup(AuthContext& ctx, const std::string& email,
                                                     std::string& password,
                                                     const std::optional<std::string>& display_name,
                                                     const EventSource& source);

// What a sign-up mail says, decided in the worker's transaction at delivery.
struct SignupMail {
  bool account_exists = false;  // the address has an account: no token, nothing pending
  std::string token;            // otherwise the verification token, stored as its digest
  // The request whose password the link takes (the address's newest): when
  // and from which client address it was asked for, which the mail says.
  Millis requested_at = 0;
  std::string requested_by;
  bool dropped() const { return !account_exists && token.empty(); }
};

// Runs in the worker's transaction at delivery time: when the mail's
// address has no account, stores the pending sign-up, with the password of
// the address's newest request (interface.md 11.5), under a fresh token's
// digest (voiding an older one of the address) and returns the token.
SignupMail prepare_signup_mail(Transaction& tx, const OutboxRecord& mail, Millis now,
                               Duration lifetime);

struct VerifyOutcome {
  enum class Kind {
    created,
    invalid_token,  // unknown, used, expired, or the address has an account now
    wrong_proof,    // not the password chosen at the sign-up: counted, the token stays
    throttled,      // the address's or the client's login failures: 429
    busy,           // the hashing pool is saturated: 503
    unavailable,
  } kind = Kind::unavailable;
  std::chrono::seconds retry_after{0};  // throttled
  UserRecord user;                      // created
  std::string token;                    // created: the new session's bearer token
};

// POST /verify (interface.md 11.5): `password` must be the one chosen at
// the sign-up of `token`, proved on the hashing pool and counted as a login
// of its address. Then, in one transaction, takes the pending sign-up,
// creates its account (e-mail verified), and opens a session that records
// `origin` as a login's does (interface.md 11.2). `password` is wiped.
boost::asio::awaitable<VerifyOutcome> verify_signup(AuthContext& ctx, const std::string& token,
                                                    std::string& password,
                                                    const SessionOrigin& origin,
                                                    const EventSource& source);

}  // namespace authd
