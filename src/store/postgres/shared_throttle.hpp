// The throttling statements of a batch of /forgot requests in one
// transaction
// (docs/design/performance-choices.md#postgresql-forgot-batches-share-statements),
// which each unit would otherwise send on its own: the counts the units ask for
// at one step go as one statement (shared_statement.hpp), and the events they
// add as one INSERT, sent ahead of the batch's next count, or of its COMMIT.
// Every event added before a count is thus stored before that count runs, as
// when each went ahead on its own: a unit still counts its own events. The
// keys' locks were taken first, in one statement
// (ThrottleEvents::lock_in_order).
//
// Units that name the same key (one client address's requests) count it in
// the batch's order, exactly as if each ran after the other
// (docs/design/performance-choices.md#postgresql-one-address-shares-its-batch):
// a unit's first use of such a key waits for its turn, which comes when every
// unit before it that names the key has let it go (finished, or said that it
// counts there no more: ThrottleStore::done_with). The key's events, read once
// under the batch's lock, are then known to the transaction, and the next
// units' counts of it are answered from them and the events added since,
// without a statement: the requests of one address ride one round trip and
// one COMMIT instead of one each.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/postgres/shared_statement.hpp"
#include "store/records.hpp"
#include "store/store.hpp"

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

  // The keys that two units or more of the batch name, and in what order
  // the units take them (their order in the batch).
  void order_keys(std::span<const TransactionUnit> units);
  // Before the running unit counts, adds or deletes events of `key`: parks
  // it until its turn on the key. A unit that comes back to a key it has
  // let go fails (the batch is undone, and each unit runs alone).
  void take_turn(PipelineTurns& turns, std::string_view key);
  // The running unit counts no more on `key` (ThrottleStore::done_with);
  // release_all: `unit` has finished.
  void release(PipelineTurns& turns, std::string_view key);
  void release_all(PipelineTurns& turns, std::size_t unit) noexcept;
  // An event the transaction stored itself (insert_event), and the events
  // it deleted: what it knows of the keys' events follows.
  void note_inserted(std::string_view key, Millis at);
  void forget(std::string_view key);
  void forget_all() { known_.clear(); }

 private:
  // A key named by two units or more: the units in order, which of them
  // have let it go, and the first that has not.
  struct KeyTurns {
    std::vector<std::size_t> units;
    std::vector<bool> released;
    std::vector<bool> waiting;
    std::size_t next = 0;
  };
  // What the transaction knows of a shared key's events: every event later
  // than `after` (complete) or the newest of them, at least `most`.
  struct Known {
    Millis after = 0;
    int most = 0;
    bool complete = false;
    std::vector<Millis> times;  // ascending
  };
  void release_at(PipelineTurns& turns, KeyTurns& key, std::size_t place) noexcept;
  std::optional<std::vector<Millis>> known_times(std::string_view key, Millis after,
                                                 int most) const;
  void learn(const std::string& key, Millis after, int most, const std::vector<Millis>& times);
  void note_added(std::string_view key, Millis at);

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
  std::map<std::string, KeyTurns, std::less<>> turns_;  // the shared keys only
  std::map<std::string, Known, std::less<>> known_;
};

}  // namespace authd::postgres
