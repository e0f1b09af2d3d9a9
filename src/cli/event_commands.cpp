// `authd events` (interface.md 14.2): what GET /admin/events answers, as
// one JSON object per line, newest first, with the same filters; every
// page is read until --limit events are printed (all, by default).
#include <iostream>
#include <memory>

#include "auth/events/event_log.hpp"
#include "auth/events/events.hpp"
#include "cli/commands.hpp"
#include "config/option_groups.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

struct EventsOptions {
  EventQuery query;
  std::optional<long> limit;  // none: every event that matches
};

int print_events(const Config& config, const EventsOptions& options) {
  EventQuery first_page = options.query;
  std::string problem;
  std::optional<EventFilter> filter = event_filter(first_page, problem);
  if (!filter) {
    std::cerr << "error: " << problem << "\n";
    return 2;
  }
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  long left = options.limit.value_or(-1);
  while (left != 0) {
    filter->limit =
        left > 0 && left < kLargestEventPage ? static_cast<int>(left) : kLargestEventPage;
    EventPage page = list_events(*store, *filter);
    if (!page.ok) {
      std::cerr << "error: the database did not answer\n";
      return 1;
    }
    for (const EventRecord& event : page.events) std::cout << event_json(event).dump() << "\n";
    if (left > 0) left -= static_cast<long>(page.events.size());
    if (!page.next_cursor) break;
    filter->before_seq = page.events.back().seq;
  }
  return 0;
}

}  // namespace

void add_events_command(CommandRegistry& commands) {
  auto options = std::make_shared<EventsOptions>();
  commands.add(
      {.name = "events",
       .help = "The audit trail as JSON lines, newest first (interface.md 14.2)",
       .options =
           [options](CLI::App& command, Config& config) {
             add_database_options(command, config);
             command.add_option("--user-id", options->query.user_id, "Only this account's events");
             command.add_option("--type", options->query.type, "Only events of this type");
             command.add_option("--since", options->query.since,
                                "Only events at or after this RFC 3339 time");
             command
                 .add_option("--limit", options->limit, "At most this many events (default: all)")
                 ->check(CLI::PositiveNumber);
           },
       .run = [options](const Config& c) { return print_events(c, *options); }});
}

}  // namespace authd
