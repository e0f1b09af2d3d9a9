// The webhooks area (interface.md 14.4): the durable queue of deliveries,
// one per event, written by EventStore::append in the event's transaction
// while the database says webhooks are on (set by `authd serve`, read by
// every writer, the CLI's commands too), and drained by the webhook worker
// (webhooks/). A delivery is claimed
// under a lease (FOR UPDATE SKIP LOCKED on PostgreSQL), so that one
// instance of several sends it at a time; one whose lease ran out (its
// instance died) is claimed again: at least once.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

class WebhookStore {
 public:
  virtual ~WebhookStore() = default;

  // The oldest delivery due at `now`, neither delivered nor dead, that no
  // worker holds; held until `lease_until`.
  virtual std::optional<WebhookDeliveryRecord> claim_due(Millis now, Millis lease_until) = 0;
  // Marks it delivered if still held under the lease `claimed_until`.
  virtual bool mark_delivered(std::int64_t event_seq, Millis at, Millis claimed_until) = 0;
  // After a failed attempt: the attempt is counted, the lease released.
  // Like mark_delivered, only while still held under `claimed_until`: a
  // worker whose lease ran out must not undo a newer claim.
  virtual bool reschedule(std::int64_t event_seq, Millis claimed_until, int attempts,
                          Millis next_attempt_at, std::string_view last_error) = 0;
  // After the last attempt allowed: kept, never tried again unless retried.
  virtual bool mark_dead(std::int64_t event_seq, Millis claimed_until, int attempts, Millis at,
                         std::string_view last_error) = 0;
  // Whether events appended from now on queue their delivery: `authd
  // serve` sets it from its --webhook-url at start. Events written while
  // it is off are never queued later. Returns whether it was on.
  virtual bool set_delivering(bool on) = 0;
  // Bounds the queue (--webhook-queue-max): when more than `most`
  // deliveries are pending, drops the oldest pending login.failed ones
  // that no worker holds at `now`, at most as many as are over; never
  // another type. Returns how many were dropped.
  virtual std::int64_t drop_over(std::int64_t most, Millis now) = 0;
  virtual std::int64_t pending_count() = 0;  // neither delivered nor dead
  virtual std::int64_t dead_count() = 0;
  // The dead deliveries, oldest first, at most `limit` (the CLI).
  virtual std::vector<WebhookDeliveryRecord> dead(int limit) = 0;
  // Makes the dead deliveries due again with a fresh count; returns how many.
  virtual std::int64_t retry_dead(Millis now) = 0;
};

}  // namespace authd
