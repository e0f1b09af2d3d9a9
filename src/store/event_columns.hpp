// The columns of an event row, and of a webhook delivery with its event, in
// the order both backends select them.
#pragma once

#include "store/records.hpp"

// A webhook delivery's columns (alias d), then the event's.
#define AUTHD_DELIVERY_COLUMNS \
  "d.attempts, d.next_attempt_at, d.delivered_at, d.dead_at, d.last_error, "

#define AUTHD_EVENT_COLUMNS \
  "seq, id, at, type, user_id, actor, client_address, user_agent, request_id, detail"

namespace authd {

// Reads an event from a row of AUTHD_EVENT_COLUMNS starting at `first`
// (a SQLite Statement or a PostgreSQL Row).
template <class Row>
EventRecord read_event_record(const Row& row, int first = 0) {
  EventRecord event;
  event.seq = row.integer(first);
  event.id = row.text(first + 1);
  event.at = row.integer(first + 2);
  event.type = row.text(first + 3);
  event.user_id = row.optional_text(first + 4);
  event.actor = row.text(first + 5);
  event.client_address = row.optional_text(first + 6);
  event.user_agent = row.optional_text(first + 7);
  event.request_id = row.optional_text(first + 8);
  event.detail = row.text(first + 9);
  return event;
}

// Reads a delivery from a row of AUTHD_DELIVERY_COLUMNS AUTHD_EVENT_COLUMNS.
template <class Row>
WebhookDeliveryRecord read_delivery_record(const Row& row) {
  WebhookDeliveryRecord delivery;
  delivery.attempts = static_cast<int>(row.integer(0));
  delivery.next_attempt_at = row.integer(1);
  delivery.delivered_at = row.optional_integer(2);
  delivery.dead_at = row.optional_integer(3);
  delivery.last_error = row.optional_text(4);
  delivery.event = read_event_record(row, 5);
  return delivery;
}

}  // namespace authd
