#include "auth/login/login_events.hpp"

#include "auth/credentials/email.hpp"
#include "store/transaction.hpp"

namespace authd {

void record_failed_login(Transaction& tx, const EventSource& source,
                         const std::optional<UserRecord>& user, const std::string& email,
                         const char* reason, Millis now) {
  nlohmann::json detail = {{"reason", reason}};
  if (!user) detail["email"] = mask_email(email);
  record_event(tx, source, "login.failed", user ? std::optional(user->id) : std::nullopt, detail,
               now);
}

void record_throttled_login(Transaction& tx, const EventSource& source,
                            const ThrottleCounter& refused_by, const std::string& email,
                            Millis now) {
  if (count_throttled(tx, refused_by.key, now)) return;
  std::optional<std::string> user_id;
  nlohmann::json detail = {{"throttle", "client"}};
  if (refused_by.key == login_email_key(email)) {
    detail["throttle"] = "email";
    if (std::optional<UserRecord> user = tx.users().by_email(email)) {
      user_id = user->id;
    } else {
      detail["email"] = mask_email(email);
    }
  }
  record_throttled(tx, source, refused_by.key, refused_by.limit.window, user_id, detail, now);
}

SettledFactor settle_second_factor(Transaction& tx, const EventSource& source,
                                   const FactorVerdict& verdict, const ReservedFailure& reserved,
                                   const std::string& user_id, Millis now,
                                   const nlohmann::json& more) {
  SettledFactor settled;
  switch (verdict.check) {
    case FactorCheck::refused: {  // a failed login: the reservation stays
      settled.kind = SettledFactor::Kind::refused;
      settled.header = second_factor_list(verdict);
      nlohmann::json detail = {{"reason", "second_factor"}};
      if (verdict.passkey_failed) detail["check"] = webauthn::check_name(*verdict.passkey_failed);
      detail.update(more);
      record_event(tx, source, "login.failed", user_id, detail, now);
      break;
    }
    case FactorCheck::no_key:
      reserved.release(tx);
      settled.kind = SettledFactor::Kind::no_key;
      break;
    case FactorCheck::passed_with_recovery_code:
      settled.used = "recovery_code";
      record_recovery_code_used(tx, source, user_id, now);
      break;
    case FactorCheck::passed:
      settled.used = "totp";
      break;
    case FactorCheck::passed_with_passkey:
      settled.used = "webauthn";
      break;
    case FactorCheck::not_enrolled:
      break;
  }
  return settled;
}

void record_succeeded_login(Transaction& tx, const EventSource& source, const std::string& user_id,
                            const SessionRecord& session, const FactorVerdict& verdict,
                            const char* factor_used, const char* method, Millis now) {
  nlohmann::json detail = {{"sessionId", session.public_id}};
  detail["secondFactor"] = factor_used != nullptr ? nlohmann::json(factor_used) : nullptr;
  if (!verdict.passkey_id.empty()) detail["passkeyId"] = verdict.passkey_id;
  detail["method"] = method;
  record_event(tx, source, "login.succeeded", user_id, detail, now);
}

}  // namespace authd
