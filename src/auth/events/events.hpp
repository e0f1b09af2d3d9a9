// The audit trail (interface.md 14.1): what the flows record, and how an
// event reads in GET /admin/events, `authd events` and the webhooks.
//
// An event is written by record_event inside the transaction of the change
// it records, so that a change is never committed without its event nor an
// event without its change; while the database says webhooks are on,
// its delivery is queued by the same write, whichever process writes it
// (store/areas/events.hpp). The detail of an event is chosen by
// each flow from values that are never secret: ids, names, reasons, counts,
// masked e-mails. No password, token, hash, code or secret key is ever
// passed to it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/duration.hpp"
#include "core/time.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

// Who caused an event and from where.
struct EventSource {
  std::string actor = "system";  // "self", "admin:NAME", "cli" or "system"
  std::string client_address;    // empty: none (the CLI, the system)
  std::optional<std::string> user_agent;
  std::string request_id;  // empty: none
};

// The actors of interface.md 14.1.
inline constexpr std::string_view kActorSelf = "self";
inline constexpr std::string_view kActorCli = "cli";
inline constexpr std::string_view kActorSystem = "system";
std::string admin_actor(std::string_view key_name);  // "admin:NAME"

// Appends one event of `type` about `user_id` (none: no account matched).
void record_event(Transaction& tx, const EventSource& source, std::string_view type,
                  const std::optional<std::string>& user_id, const nlohmann::json& detail,
                  Millis at);

// An event of a request for an address (/forgot, /signup): no account is
// looked up, since the lookup's work would tell in the response time
// whether the address has one (interface.md 6 /forgot 2, measured by the
// Timing tests); userId is null and the detail holds the address masked.
void record_event_for_address(Transaction& tx, const EventSource& source, std::string_view type,
                              std::string_view canonical_email, nlohmann::json detail, Millis at);

// A request refused by a throttle (a 429 of /login or /webauthn/login):
// one login.failed event per throttle key and window (interface.md 14.1),
// so that a flood cannot fill the disk. count_throttled adds this refusal
// to the count of `key`'s open event and returns true, or returns false
// when none is open; then record_throttled appends one, with `detail`,
// "reason": "throttled" and "count": 1, open for `window` from `at`. Its
// webhook delivery is due once the window has closed (and
// kThrottledDeliveryGrace more, for a refusal still committing), so that
// it carries the final count. Both run in the throttle's transaction,
// which on PostgreSQL holds the key's lock: the count is exact.
inline constexpr Duration kThrottledDeliveryGrace = std::chrono::seconds(5);
bool count_throttled(Transaction& tx, std::string_view key, Millis at);
void record_throttled(Transaction& tx, const EventSource& source, std::string_view key,
                      Duration window, const std::optional<std::string>& user_id,
                      nlohmann::json detail, Millis at);

// An event as the admin API, the CLI and the webhooks show it.
nlohmann::json event_json(const EventRecord& event);

}  // namespace authd
