// Reading the audit trail (interface.md 14.2): GET /admin/events and
// `authd events` take the same filters, checked here, and page newest
// first with an opaque cursor (the seq of the last event shown).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "store/records.hpp"
#include "store/store.hpp"

namespace authd {

inline constexpr int kDefaultEventPage = 100;
inline constexpr int kLargestEventPage = 1000;

// Every type of interface.md 14.1.
bool is_event_type(std::string_view type);

// The filters as given (a member absent when not given); the filter, or
// nothing with `problem` naming the bad member ("since: ...").
struct EventQuery {
  std::optional<std::string> user_id;
  std::optional<std::string> type;
  std::optional<std::string> since;  // RFC 3339
  std::optional<std::string> limit;
  std::optional<std::string> cursor;
};
std::optional<EventFilter> event_filter(const EventQuery& query, std::string& problem);

struct EventPage {
  bool ok = false;
  std::vector<EventRecord> events;
  std::optional<std::string> next_cursor;  // when more follow
};

boost::asio::awaitable<EventPage> list_events(AuthContext& ctx, const EventFilter& filter);
EventPage list_events(Store& store, const EventFilter& filter);  // the CLI

}  // namespace authd
