// The throttling statements of a batch of /forgot requests in one
// transaction
// (docs/design/performance-choices.md#postgresql-forgot-batches-share-statements),
// which each unit would otherwise send on its own: the counts the units ask for
// at one step go as one statement (shared_statement.hpp), and the events they
// add as one INSERT, sent ahead of the batch's next count, or of its COMMIT.
// Every event added before a count is thus stored before that count runs, as
// when each went ahead on its own: a unit still counts its own events, and a
// batch's units never count each other's (they name different keys,
// PostgresStore::no_key_named_twice). The keys' locks were taken first, in one
// statement (ThrottleEvents::lock_in_order).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "store/postgres/shared_statement.hpp"
#include "store/records.hpp"

namespace authd::postgres {

class Connection;

class SharedThrottle {
 public:
  // ThrottleStore::event_times, shared with the units that count at the
  // same step.
  std::vector<Millis> event_times(Connection& db, PipelineTurns& turns, std::string_view key,
                                  Millis after, int most);
  // The same, for a transaction alone: its own statement, for one key.
  static std::vector<Millis> event_times_alone(Connection& db, std::string_view key, Millis after,
                                               int most);

  // ThrottleStore::add_event: kept until the next count, or send_ahead.
  void add_event(std::string_view key, Millis at);
  // Sends the events added, to travel with the next awaited statement, in
  // one INSERT. Nothing when none were.
  void send_ahead(Connection& db);

 private:
  struct Ask {
    std::string key;
    Millis after = 0;
    int most = 0;
  };
  using Shared = SharedStatement<Ask, std::vector<Millis>>;
  void count(Connection& db, Shared::Group& group);

  Shared counts_;
  std::vector<std::string> keys_;  // the events added, not yet sent
  std::vector<std::string> ats_;
};

}  // namespace authd::postgres
