#include "auth/second_factor/second_factor.hpp"

#include "auth/events/notices.hpp"
#include "auth/second_factor/passkey_factor.hpp"
#include "auth/second_factor/recovery_codes.hpp"
#include "core/percent_encoding.hpp"
#include "core/wipe.hpp"
#include "crypto/sealed_secrets.hpp"
#include "crypto/totp.hpp"
#include "store/transaction.hpp"

namespace authd {

std::optional<std::int64_t> totp_code_step(Transaction& tx, const SecretSealer& sealer,
                                           const TotpFactorRecord& factor, const std::string& code,
                                           Millis now, bool reseal) {
  auto opened = sealer.open(factor.sealed_secret, totp_seal_context(factor.user_id));
  if (!opened) return std::nullopt;  // altered, or sealed by a key we do not have
  WipeOnExit wipe_secret(opened->plaintext);
  std::optional<std::int64_t> step =
      matching_totp_step(opened->plaintext, code, totp_step(now / 1000));
  if (reseal && opened->by_previous_key)
    tx.second_factors().reseal_totp(
        factor.user_id, factor.sealed_secret,
        sealer.seal(opened->plaintext, totp_seal_context(factor.user_id)));
  return step;
}

std::string second_factor_list(const FactorVerdict& verdict) {
  std::string list = verdict.has_totp ? "totp" : "";
  if (verdict.has_passkeys) list += verdict.has_totp ? ", webauthn" : "webauthn";
  return list;
}

FactorVerdict check_second_factor(Transaction& tx, const SecretSealer* sealer,
                                  const std::string& user_id, const SecondFactorInput& input,
                                  Millis now, const webauthn::RelyingParty* passkeys) {
  FactorVerdict verdict;
  std::optional<TotpFactorRecord> factor = tx.second_factors().totp_of(user_id);
  verdict.has_totp = factor && factor->confirmed();
  verdict.has_passkeys = passkeys != nullptr && tx.passkeys().count_of(user_id) > 0;
  if (!verdict.has_totp && !verdict.has_passkeys) return verdict;  // not_enrolled
  if (verdict.has_passkeys && input.passkey) {
    PasskeyUse use = use_passkey(tx, *passkeys, *input.passkey, &user_id, now);
    if (!use.failed) {
      verdict.check = FactorCheck::passed_with_passkey;
      verdict.passkey_id = use.passkey->id;
      return verdict;
    }
    verdict.passkey_failed = use.failed;
  }
  // A confirmed TOTP and no key to open it: 503 (interface.md 12.2.2).
  verdict.check =
      verdict.has_totp && sealer == nullptr ? FactorCheck::no_key : FactorCheck::refused;
  if (verdict.check == FactorCheck::no_key) return verdict;
  if (verdict.has_totp && input.otp) {
    std::optional<std::int64_t> step = totp_code_step(tx, *sealer, *factor, *input.otp, now, true);
    // The step is taken only if no newer or equal one was: a replay fails.
    if (step && tx.second_factors().accept_totp_step(user_id, *step)) {
      verdict.check = FactorCheck::passed;
      return verdict;
    }
  }
  if (input.recovery_code) {
    std::optional<Sha256Digest> digest = recovery_code_digest(*input.recovery_code);
    if (digest && tx.second_factors().use_recovery_code(user_id, *digest))
      verdict.check = FactorCheck::passed_with_recovery_code;
  }
  return verdict;
}

void remove_second_factors(Transaction& tx, const EventSource& source, const NoticeSettings& notify,
                           const UserRecord& user, Millis now) {
  std::optional<TotpFactorRecord> factor = tx.second_factors().totp_of(user.id);
  tx.second_factors().remove_all(user.id);
  std::int64_t passkeys = tx.passkeys().remove_all_of(user.id);
  bool totp = factor && factor->confirmed();  // a pending one never guarded a login
  if (totp) record_event(tx, source, "mfa.disabled", user.id, {{"factor", "totp"}}, now);
  if (passkeys > 0)
    record_event(tx, source, "mfa.disabled", user.id,
                 {{"factor", "webauthn"}, {"passkeys", passkeys}}, now);
  // One mail per kind removed: each speaks of what it was (an app, passkeys).
  if (totp)
    queue_notice(tx, notify, {NoticeTopic::mfa_disabled, NoticeActor::admin}, user, user.email,
                 now);
  if (passkeys > 0)
    queue_notice(tx, notify, {NoticeTopic::passkey_removed, NoticeActor::admin}, user, user.email,
                 now);
}

void record_recovery_code_used(Transaction& tx, const EventSource& source,
                               const std::string& user_id, Millis now) {
  std::int64_t left = tx.second_factors().recovery_codes_left(user_id);
  record_event(tx, source, "recovery_code.used", user_id, {{"remaining", left}}, now);
}

std::string totp_seal_context(const std::string& user_id) { return "authd totp " + user_id; }

std::string otpauth_uri(const std::string& issuer, const std::string& email,
                        const std::string& base32_secret) {
  std::string issuer_part = percent_encode(issuer);
  return "otpauth://totp/" + issuer_part + ":" + percent_encode(email) +
         "?secret=" + base32_secret + "&issuer=" + issuer_part +
         "&algorithm=SHA1&digits=6&period=30";
}

}  // namespace authd
