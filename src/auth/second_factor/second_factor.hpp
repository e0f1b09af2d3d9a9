// The second factor at its point of use (interface.md 12.3): whether a
// login (or a change of the factor itself) brings a valid TOTP code or
// recovery code for the account's confirmed factor. Runs inside the write
// transaction that acts on the answer, so that the step or code is taken by
// the same commit that opens the session: two logins with one code cannot
// both get through, and a factor confirmed meanwhile is not missed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "auth/events/events.hpp"
#include "auth/policy.hpp"
#include "core/time.hpp"
#include "crypto/webauthn.hpp"
#include "store/records.hpp"

namespace authd {

class SecretSealer;
class Transaction;

// What the caller sent (each may be absent). Wiped by the caller.
struct SecondFactorInput {
  std::optional<std::string> otp;            // a TOTP code
  std::optional<std::string> recovery_code;  // a recovery code
  // A passkey's assertion (interface.md 16.4), for a challenge of
  // POST /webauthn/login/options.
  std::optional<webauthn::AssertionResponse> passkey;
  bool empty() const { return !otp && !recovery_code && !passkey; }
};

enum class FactorCheck {
  not_enrolled,               // the account has no confirmed factor: nothing to check
  passed,                     // the TOTP code was valid and its step is now used
  passed_with_recovery_code,  // a recovery code was valid and is now used up
  passed_with_passkey,        // a passkey's assertion was valid (its challenge taken)
  refused,                    // missing, wrong, or used before
  no_key,                     // a confirmed factor, but no secret key to open it with (503)
};

// The verdict, and what the account has (the header of a refusal lists it:
// interface.md 16.4.2).
struct FactorVerdict {
  FactorCheck check = FactorCheck::not_enrolled;
  bool has_totp = false;                          // a confirmed TOTP factor
  bool has_passkeys = false;                      // counted only when passkeys are asked about
  std::string passkey_id;                         // passed_with_passkey: the passkey used
  std::optional<webauthn::Check> passkey_failed;  // a passkey was offered and failed this check
};

// `sealer` may be null (no secret key configured). When the factor opens
// only with the previous key (a key rotation), it is sealed anew with the
// current one. With `passkeys` (the relying party; a login), the account's
// passkeys are second factors too (16.4.1); without, only the TOTP factor
// and its recovery codes are (the routes of 12.1).
// The factors the account has, as Authd-Second-Factor lists them: "totp",
// "webauthn" or "totp, webauthn" (interface.md 12.3.2, 16.4.2).
std::string second_factor_list(const FactorVerdict& verdict);

FactorVerdict check_second_factor(Transaction& tx, const SecretSealer* sealer,
                                  const std::string& user_id, const SecondFactorInput& input,
                                  Millis now, const webauthn::RelyingParty* passkeys = nullptr);

// Every second factor of the account removed, pending or confirmed: its
// TOTP factor, recovery codes and passkeys (interface.md 12.4, 16.6.3), an
// operator's doing. Each kind that guarded logins is recorded (mfa.disabled)
// and the owner told once.
void remove_second_factors(Transaction& tx, const EventSource& source, const NoticeSettings& notify,
                           const UserRecord& user, Millis now);

// The event of a recovery code used up (interface.md 14.1), with how many
// are left, in the transaction that used it.
void record_recovery_code_used(Transaction& tx, const EventSource& source,
                               const std::string& user_id, Millis now);

struct TotpFactorRecord;

// The time step whose code `code` is, in the window of `now` (12.3.3), for
// the factor's secret; nothing when it does not match or the secret does
// not open. Nothing is written: the caller takes the step. With `reseal`,
// a secret that opened only with the previous key is sealed anew with the
// current one (not while confirming: the confirmation names the sealed
// secret it was read with).
std::optional<std::int64_t> totp_code_step(Transaction& tx, const SecretSealer& sealer,
                                           const TotpFactorRecord& factor, const std::string& code,
                                           Millis now, bool reseal);

// The context a TOTP secret is sealed for: its account (a sealed secret
// moved to another account's row does not open there).
std::string totp_seal_context(const std::string& user_id);

// otpauth://totp/ISSUER:EMAIL?secret=...&issuer=ISSUER&algorithm=SHA1&digits=6&period=30
// (the Key Uri Format authenticator apps read), every part percent-encoded.
std::string otpauth_uri(const std::string& issuer, const std::string& email,
                        const std::string& base32_secret);

}  // namespace authd
