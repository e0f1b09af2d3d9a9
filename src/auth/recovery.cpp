#include "auth/recovery.hpp"

#include <sodium.h>

#include "auth/throttle.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

Millis random_delay(Duration most) {
  if (most.count() <= 0) return 0;
  return randombytes_uniform(static_cast<std::uint32_t>(most.count()) + 1);
}

}  // namespace

boost::asio::awaitable<ForgotOutcome> request_password_reset(AuthContext& ctx,
                                                             const std::string& email,
                                                             const std::string& client_address) {
  const AuthPolicy& policy = ctx.policy;
  const std::string client_key = forgot_client_key(client_address);
  const std::string mail_key = reset_mail_key(email);
  Millis now = now_millis();
  ThrottleVerdict verdict;

  // One write transaction whatever the account, so that an existing and an
  // unknown e-mail cost the same (one commit) and cannot be told apart.
  auto work = [&](Transaction& tx) {
    verdict = check_throttle(tx, client_key, now, policy.forgot_requests_per_client);
    if (!verdict.allowed) return;
    tx.insert_event(client_key, now);

    auto user = tx.user_by_email(email);
    if (!user || user->disabled) return;
    bool mail_allowed =
        check_throttle(tx, mail_key, now, policy.reset_mails_per_email_short).allowed &&
        check_throttle(tx, mail_key, now, policy.reset_mails_per_email_long).allowed;
    if (!mail_allowed) return;  // answered 200 all the same; nothing is enqueued
    tx.insert_event(mail_key, now);
    OutboxRecord mail;
    mail.kind = std::string(kResetMailKind);
    mail.user_id = user->id;
    mail.email = user->email;
    mail.created_at = now;
    mail.next_attempt_at = now + random_delay(policy.reset_mail_jitter);
    tx.enqueue_mail(mail);
  };
  StoreStatus status = co_await ctx.db.write(work);

  if (status != StoreStatus::ok) co_return ForgotOutcome{};
  if (!verdict.allowed)
    co_return ForgotOutcome{ForgotOutcome::Kind::throttled, verdict.retry_after};
  co_return ForgotOutcome{ForgotOutcome::Kind::accepted, {}};
}

std::optional<std::string> mint_reset_token(Transaction& tx, const OutboxRecord& mail, Millis now,
                                            Duration lifetime) {
  auto user = tx.user_by_id(mail.user_id);
  if (!user || user->disabled) return std::nullopt;
  std::string token = new_secret_token(kResetTokenPrefix);
  tx.replace_reset_token({sha256(token), user->id, now, now + lifetime.count()});
  return token;
}

}  // namespace authd
