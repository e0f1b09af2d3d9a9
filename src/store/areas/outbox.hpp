// The outbox area: mail queued in the transaction that decided to send it,
// delivered later by the outbox worker (mail/outbox_worker.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

class OutboxStore {
 public:
  virtual ~OutboxStore() = default;

  virtual std::int64_t enqueue(const OutboxRecord& mail) = 0;
  // The same, for a caller that does not need the mail's id: on PostgreSQL
  // it costs no round trip of its own (as EventStore::add).
  virtual void add(const OutboxRecord& mail) = 0;
  // The `limit` oldest mails due at `now` that no worker holds, oldest
  // first; marks them held until `lease_until`. Two workers, of one instance
  // or of several, never claim the same mail under one lease.
  virtual std::vector<OutboxRecord> claim_due(Millis now, Millis lease_until,
                                              std::size_t limit) = 0;
  // The same for the unsent mail with the earliest next attempt, due or not
  // (the worker's relay probe, and its catching up once the relay is back).
  virtual std::optional<OutboxRecord> claim_pending(Millis now, Millis lease_until) = 0;
  // Marks a mail sent, if it is still held under the lease `claimed_until`
  // that its claim set; false when it is not (the lease ran out and another
  // claim took it, or it is gone).
  virtual bool mark_sent(std::int64_t mail_id, Millis at, Millis claimed_until) = 0;
  // Gives a claimed mail back unsent, if it is still held under
  // `claimed_until`: any worker may claim it again at once. Its attempts,
  // due time and last error stay as they were (it was not tried).
  virtual void release(std::int64_t mail_id, Millis claimed_until) = 0;
  // The same, due again only at `next_attempt_at` (no attempt counted).
  virtual void postpone(std::int64_t mail_id, Millis claimed_until, Millis next_attempt_at) = 0;
  virtual void reschedule(std::int64_t mail_id, int attempts, Millis next_attempt_at,
                          std::string_view last_error) = 0;
  virtual void remove(std::int64_t mail_id) = 0;
  // A sign-up request past the address's mail limit (interface.md 11.5):
  // stored as a row already handled (never claimed, pruned with the sent
  // mail), so that it still counts as the address's newest request.
  virtual void record_signup_request(const OutboxRecord& request) = 0;
  // The newest sign-up request of `email` that still holds its password
  // hash: an unsent sign-up mail, or a request recorded past the limit.
  virtual std::optional<OutboxRecord> newest_signup_request(std::string_view email) = 0;
  // Clears the password hashes of `email`'s sign-up requests (the account
  // exists now: they are no longer needed).
  virtual void forget_signup_requests(std::string_view email) = 0;
  // Every mail, sent or not, for the account `user_id` or addressed to
  // `email` (erasure, and an e-mail change voiding pending reset mails).
  virtual void remove_for(std::string_view user_id, std::string_view email) = 0;
  // Only the reset, sign-up and sign-in mails among those (an e-mail
  // change): a notice already queued, such as "your password was changed",
  // still goes.
  virtual void remove_links_for(std::string_view user_id, std::string_view email) = 0;
  virtual std::int64_t pending_count() = 0;  // not sent yet, held or not
  // Removes the mail sent at or before `sent_horizon`; unsent mail stays.
  virtual std::int64_t prune(Millis sent_horizon) = 0;
};

}  // namespace authd
