#include "auth/mail_flows/mail_request.hpp"

#include <sodium.h>

#include "core/wipe.hpp"
#include "store/database.hpp"
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
  std::vector<std::string> client_keys;
  for (const ThrottleCounter& counter : limits.per_client) {
    tx.throttle().add_event(counter.key, now);
    client_keys.push_back(counter.key);
  }
  // The client's counters are done with: the next request of a batch from
  // the same client counts there now, beside this one's mail count
  // (ThrottleStore::done_with), not after its whole transaction.
  tx.throttle().done_with(client_keys);

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

boost::asio::awaitable<AddressMailOutcome> request_address_mail(AuthContext& ctx,
                                                                const MailRequestLimits& limits,
                                                                const OutboxRecord& mail,
                                                                const EventSource& source,
                                                                std::string_view event_type) {
  ThrottleVerdict verdict;
  // Run again, it only assigns `verdict` again.
  auto work = [&](Transaction& tx) {
    Millis now = now_millis();
    verdict = count_and_queue_mail(tx, limits, mail, now, ctx.policy.reset_mail_jitter);
    if (verdict.allowed) record_event_for_address(tx, source, event_type, mail.email, {}, now);
  };
  StoreStatus status = co_await ctx.db.write_together(work, limits.keys());

  if (status != StoreStatus::ok) co_return AddressMailOutcome{};
  if (!verdict.allowed)
    co_return AddressMailOutcome{AddressMailOutcome::Kind::throttled, verdict.retry_after};
  co_return AddressMailOutcome{AddressMailOutcome::Kind::accepted, {}};
}

}  // namespace authd
