// What /forgot and /signup share (interface.md 6 /forgot 5, 11.4): a
// request that may queue a mail, counted per client (429 past the limit)
// and, within the address's mail limits, queued in the same transaction.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "auth/login/throttle.hpp"
#include "auth/policy.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

struct MailRequestLimits {
  std::vector<ThrottleCounter> per_client;  // client_counters(...)
  std::string mail_key;                     // reset_mail_key or signup_mail_key
  RateLimit mails_short;
  RateLimit mails_long;

  // Every key count_and_queue_mail counts (Database::write_together).
  std::vector<std::string> keys() const;
};

// What a request past the address's mail limits does instead of queueing
// its mail, in the same transaction (`mail` with its time set).
using PastMailLimit = void (*)(Transaction& tx, const OutboxRecord& mail);

// In the caller's write transaction: checks the per-client counters (not
// allowed: nothing written), counts the request in them, and, when the
// address's mail limits allow, counts the mail and enqueues `mail`, due
// after a random delay up to `jitter` from `now`. Past the mail limits the
// request is allowed all the same and no mail is queued (the caller's 200
// does not change); `past_limit`, when given, runs instead (a sign-up is
// recorded as the address's newest request: interface.md 11.5). The copy
// of `mail`'s password hash is wiped.
ThrottleVerdict count_and_queue_mail(Transaction& tx, const MailRequestLimits& limits,
                                     OutboxRecord mail, Millis now, Duration jitter,
                                     PastMailLimit past_limit = nullptr);

// A request that names only an address and may queue a mail for it
// (/forgot, /signin/email: interface.md 6 /forgot 2, 19.1), whole: one
// write transaction that counts it and, within the address's mail limits,
// queues `mail` (its kind and address set, no account: the account is
// found at delivery) and records `event_type` naming no account. The same
// statements with the same rows whether the address has an enabled
// account, a disabled one or none: nothing is looked up here (a lookup,
// and what would follow only for an account, would show in the response
// time, on PostgreSQL as round trips). It shares its COMMIT with the
// requests queued beside it: it writes only new rows and names the
// throttling keys it counts, which a batch locks first.
struct AddressMailOutcome {
  enum class Kind { accepted, throttled, unavailable } kind = Kind::unavailable;
  std::chrono::seconds retry_after{0};
};
boost::asio::awaitable<AddressMailOutcome> request_address_mail(AuthContext& ctx,
                                                                const MailRequestLimits& limits,
                                                                const OutboxRecord& mail,
                                                                const EventSource& source,
                                                                std::string_view event_type);

}  // namespace authd
