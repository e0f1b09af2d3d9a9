// Passwordless sign-in by mail (interface.md 19): the request, answered the
// same way whether or not the address has an enabled account; the link's
// token and the code, minted only when the outbox worker delivers the mail;
// and the verification of either, which opens a session as a login does.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "auth/mail_flows/mail_request.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "auth/sessions/session.hpp"
#include "core/wipe.hpp"
#include "store/records.hpp"

namespace authd {

class SecretSealer;
class Transaction;

inline constexpr std::string_view kSigninTokenPrefix = "authdsi_";
inline constexpr std::string_view kEmailSigninMailKind = "email_signin";
inline constexpr int kSigninCodeDigits = 8;
inline constexpr int kSigninWrongCodesPerMail = 5;
// How long a sign-in mail's link and code work (interface.md 19.2).
inline constexpr std::chrono::minutes kSigninMailLifetime{15};

using EmailSigninRequestOutcome = AddressMailOutcome;

// POST /signin/email (interface.md 19.1), `email` canonical and valid:
// counts the request per client and, within the address's mail limits,
// writes an outbox row keyed by the address, in one transaction: the same
// statements whether or not it has an account (decided at delivery).
boost::asio::awaitable<EmailSigninRequestOutcome> request_email_signin(AuthContext& ctx,
                                                                       const std::string& email,
                                                                       const EventSource& source);

// What a sign-in mail says, decided in the worker's transaction at delivery
// (interface.md 19.2, 19.5).
struct EmailSigninMail {
  enum class Kind { dropped, signin, signup_invitation } kind = Kind::dropped;
  std::string token;  // signin
  std::string code;   // signin: 8 digits
};

// Runs in the worker's transaction at delivery: for an enabled account,
// mints the link's token and the code and stores their digests as the
// account's only live sign-in mail; for an address without an account, a
// sign-up invitation when `signup_open`; otherwise nothing to send.
// `sealer` keys the code's digest (null: unkeyed, see code_digest).
EmailSigninMail prepare_email_signin_mail(Transaction& tx, const OutboxRecord& mail, Millis now,
                                          const SecretSealer* sealer, bool signup_open);

// The code's digest as stored: HMAC-SHA-256 under a key derived from the
// secret key (12.2) of the token's digest and the code, so that a copy of
// the database alone cannot try the 10^8 codes; without a secret key, a
// SHA-256 of the same, which it can (docs/design/threat-model/).
Sha256Digest code_digest(const SecretSealer* sealer, const Sha256Digest& token_digest,
                         std::string_view code);
// The same under the previous secret key, during a rotation (12.2.3):
// nothing when there is none.
std::optional<Sha256Digest> previous_code_digest(const SecretSealer* sealer,
                                                 const Sha256Digest& token_digest,
                                                 std::string_view code);

// What POST /signin/email/verify proves: the link's token, or the address
// and the code.
// Wipes its secrets when it goes.
struct EmailProof {
  std::optional<std::string> token;
  std::string email;  // canonical, with `code`
  std::string code;

  EmailProof() = default;
  EmailProof(EmailProof&&) = default;
  EmailProof& operator=(EmailProof&&) = default;
  EmailProof(const EmailProof&) = delete;
  EmailProof& operator=(const EmailProof&) = delete;
  ~EmailProof() {
    if (token) wipe(*token);
    wipe(code);
  }
};

struct EmailSigninOutcome {
  enum class Kind {
    success,
    invalid_proof,           // unknown, used or expired mail, or a wrong code: 401
    second_factor_required,  // right proof, factor missing or wrong: 401 with the header
    disabled,                // right proof, disabled account: 403
    throttled,               // the address's or client's failed logins: 429
    unavailable,             // the store, or a factor but no secret key: 503
  } kind = Kind::unavailable;
  UserRecord user;                      // success
  std::string token;                    // success: the session's bearer token
  std::chrono::seconds retry_after{0};  // throttled
  std::string second_factors;           // second_factor_required: the header's value
};

// POST /signin/email/verify (interface.md 19.3, 19.4). `proof` and `second`
// are the caller's (`second`'s strings wiped by it).
boost::asio::awaitable<EmailSigninOutcome> verify_email_signin(AuthContext& ctx,
                                                               const EmailProof& proof,
                                                               const SessionOrigin& origin,
                                                               const EventSource& source,
                                                               const SecondFactorInput& second);

}  // namespace authd
