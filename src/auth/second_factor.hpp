// The second factor at its point of use (interface.md 12.3): whether a
// login (or a change of the factor itself) brings a valid TOTP code or
// recovery code for the account's confirmed factor. Runs inside the write
// transaction that acts on the answer, so that the step or code is taken by
// the same commit that opens the session: two logins with one code cannot
// both get through, and a factor confirmed meanwhile is not missed.
#pragma once

#include <optional>
#include <string>

#include "core/time.hpp"

namespace authd {

class SecretSealer;
class Transaction;

// What the caller sent (each may be absent). Wiped by the caller.
struct SecondFactorInput {
  std::optional<std::string> otp;            // a TOTP code
  std::optional<std::string> recovery_code;  // a recovery code
  bool empty() const { return !otp && !recovery_code; }
};

enum class FactorCheck {
  not_enrolled,  // the account has no confirmed factor: nothing to check
  passed,        // the code was valid and is now used (its step, or the recovery code)
  refused,       // missing, wrong, or used before
  no_key,        // a confirmed factor, but no secret key to open it with (503)
};

// `sealer` may be null (no secret key configured). When the factor opens
// only with the previous key (a key rotation), it is sealed anew with the
// current one. `recovery_used` is set when a recovery code was the proof.
FactorCheck check_second_factor(Transaction& tx, const SecretSealer* sealer,
                                const std::string& user_id, const SecondFactorInput& input,
                                Millis now, bool* recovery_used = nullptr);

// The context a TOTP secret is sealed for: its account (a sealed secret
// moved to another account's row does not open there).
std::string totp_seal_context(const std::string& user_id);

// otpauth://totp/ISSUER:EMAIL?secret=...&issuer=ISSUER&algorithm=SHA1&digits=6&period=30
// (the Key Uri Format authenticator apps read), every part percent-encoded.
std::string otpauth_uri(const std::string& issuer, const std::string& email,
                        const std::string& base32_secret);

}  // namespace authd
