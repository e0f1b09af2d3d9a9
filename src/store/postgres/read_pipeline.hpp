// Many read transactions on one connection, their statements sharing round
// trips (docs/design/performance-choices.md#postgresql-reads-in-one-pipeline).
//
// The domain's transactions are synchronous closures: a read asks for a
// statement's rows and goes on with them. Each read here runs as a fiber
// (Boost.Context) on the calling thread. When it has sent a statement and
// its Sync, it parks instead of waiting for the answer, so that the next
// read can send its own; once every read has sent what it can, they are
// resumed in the order their Syncs went out, each reading its own answer
// from the connection as libpq's pipeline mode returns them, in order.
// One thread, one connection and one wake-up of the server then serve a
// whole batch instead of one read each.
//
// Each statement still has a Sync of its own: it runs in its own implicit
// transaction, as a read alone does (postgres_store.cpp), and a statement
// that fails fails only its own read.
//
// Reads that look up a session's user share one statement instead
// (shared_sessions.hpp): GET /me's lookup is most of a read batch, and
// PostgreSQL serves ten keys in one statement for about the work of two.
// Userinfo's access-token lookups do the same (shared_access_tokens.hpp),
// and so do the client lookups and the throttle counts of client
// authentication (shared_oauth_clients.hpp, shared_throttle.hpp).
//
// A batch of logouts or /forgot requests runs the same way inside its one
// transaction (PostgresStore::run_together): there a Sync does not end the
// transaction, and a statement that fails fails the whole batch anyway.
// Their throttle counts share statements too (shared_throttle.hpp), and
// the rows they only add (throttle and audit events, mails) go as one
// INSERT per table. Units that name the same throttling key (one client
// address's requests) take it one after the other, in the batch's order,
// each parked until the one before lets it go.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <span>

#include "store/store.hpp"

namespace authd::postgres {

class Connection;
class EventBatch;
class MailBatch;
class SharedAccessTokens;
class SharedOAuthClients;
class SharedSessions;
class SharedThrottle;

// What a connection in a read pipeline does once a statement and its Sync
// are sent: give the thread to the next read until its answer is due.
class PipelineTurns {
 public:
  virtual void wait_for_answer() = 0;
  // True when the units share one transaction, which any failure undoes as
  // a whole: a statement sent ahead may then be answered with another
  // unit's (Connection::send_ahead).
  virtual bool one_transaction() const = 0;
  // Parks the running read until every other read of the batch has sent
  // its statement, finished, or parked here too; the reads parked here are
  // then resumed in the order they came, before any answer is read.
  virtual void wait_for_company() = 0;
  // Parks the running read behind the one that reads the answer it shares
  // (shared_statement.hpp). It is resumed once that one has it, before
  // the reads waiting for company: it may then join their company.
  virtual void wait_behind() = 0;
  // Called by the read that read a shared answer: `waiting_behind` reads
  // parked by wait_behind can go on with it.
  virtual void answer_read(std::size_t waiting_behind) = 0;
  // The place in the batch of the unit running now.
  virtual std::size_t running_unit() const = 0;
  // Parks the running unit until another calls give_turn for it (its turn
  // on a throttling key it shares with units before it: shared_throttle.hpp).
  virtual void wait_for_turn() = 0;
  // The unit parked by wait_for_turn goes on, before the next answer is
  // read, as the reads waiting for company do.
  virtual void give_turn(std::size_t unit) = 0;
  // The batch's session lookups, shared by its reads.
  virtual SharedSessions& shared_sessions() = 0;
  // The batch's access-token lookups (userinfo), shared likewise.
  virtual SharedAccessTokens& shared_access_tokens() = 0;
  // The batch's client lookups (client authentication), shared likewise.
  virtual SharedOAuthClients& shared_oauth_clients() = 0;
  // The batch's throttle counts (a read batch's too) and, in one
  // transaction, its events.
  virtual SharedThrottle& throttle() = 0;
  // The audit events and the mails of a batch in one transaction, each
  // sent as one INSERT once every unit has finished.
  virtual EventBatch& events() = 0;
  virtual MailBatch& mails() = 0;

 protected:
  ~PipelineTurns() = default;
};

// `run_unit` runs one unit's work on `connection` and sets its outcome;
// it must not throw. Returns once every unit has finished. `one_transaction`:
// the units run inside one transaction the caller began (see above), and
// their events are then sent ahead of the caller's next statement, its
// COMMIT, which reports their failure. The units that name one throttling
// key take it in their order (TransactionUnit::lock_keys,
// SharedThrottle::take_turn).
void run_in_one_pipeline(Connection& connection, std::span<TransactionUnit> units,
                         bool one_transaction,
                         const std::function<void(TransactionUnit&)>& run_unit);

// Takes the units' errors (leaving none set); the one that failed the
// batch: the first that is a unit's own, not a LostUnderAnotherRead, which
// only says that another unit's wait failed first (a deadline passed,
// the server went away), whatever the units' order. Null when none failed.
std::exception_ptr take_first_cause(std::span<TransactionUnit> units);

// The bound of a fiber's stack: the domain's read closures and libpq need
// a few KiB; a guard page below it turns an overflow into a crash, never
// into another fiber's memory.
inline constexpr std::size_t kReadFiberStackBytes = std::size_t{256} * 1024;

}  // namespace authd::postgres
