#include "auth/mail_flows/mail_request.hpp"

#include <sodium.h>

#include "core/wipe.hpp"
#include "store/transaction.hpp"

namespace authd {
namespace {

Millis random_delay(Duration most) {
  if (most.count() <= 0) return 0;
  return randombytes_uniform(static_cast<std::uint32_t>(most.count()) + 1);
}

}  // namespace

std::vector<std::string> MailRequestLimits::keys() const {
  std::vector<std::string> keys;
  for (const ThrottleCounter& counter : per_client) keys.push_back(counter.key);
  keys.push_back(mail_key);
  return keys;
}

ThrottleVerdict count_and_queue_mail(Transaction& tx, const MailRequestLimits& limits,
                                     OutboxRecord mail, Millis now, Duration jitter,
                                     PastMailLimit past_limit) {
  WipeOnExit wipe_hash(mail.password_hash);
  ThrottleVerdict verdict = check_throttles(tx, limits.per_client, now);
  if (!verdict.allowed) return verdict;
  for (const ThrottleCounter& counter : limits.per_client)
    tx.throttle().add_event(counter.key, now);

  mail.created_at = now;
  auto [short_term, long_term] =
      check_throttles(tx, limits.mail_key, now, limits.mails_short, limits.mails_long);
  if (!short_term.allowed || !long_term.allowed) {  // no mail enqueued
    if (past_limit) past_limit(tx, mail);
    return verdict;
  }
  tx.throttle().add_event(limits.mail_key, now);
  mail.next_attempt_at = now + random_delay(jitter);
  tx.outbox().add(mail);
  return verdict;
}

}  // namespace authd
