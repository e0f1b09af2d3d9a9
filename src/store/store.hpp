// The storage interface. Domain code runs inside a transaction and calls the
// primitives of `Transaction`; each backend (store/sqlite, later postgres)
// implements them with prepared statements. A transaction either commits
// durably as a whole or not at all.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

// Thrown by store implementations only; `Store::run` turns it into a
// StoreStatus, so it never crosses into the domain's callers.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The database is there but could not be reached in time (locked, down).
class BusyError : public StoreError {
 public:
  using StoreError::StoreError;
};

class Transaction {
 public:
  virtual ~Transaction() = default;

  // Users
  virtual std::optional<UserRecord> user_by_email(std::string_view canonical_email) = 0;
  virtual std::optional<UserRecord> user_by_id(std::string_view id) = 0;
  virtual bool insert_user(const UserRecord& user) = 0;  // false: e-mail taken
  virtual void update_user(const UserRecord& user) = 0;  // every column but id and created_at
  // Changes only the hash: a transparent upgrade is not a change of the record.
  virtual void replace_password_hash(std::string_view user_id, std::string_view phc) = 0;
  // The kinds of the password hashes stored (crypto/hash_kind.hpp: algorithm
  // and parameters, never a salt or digest). The three writes above add the
  // kind of the hash they store, in their transaction; a kind stays listed
  // after its last hash is gone (the floor it raises is then only higher
  // than it needs to be).
  virtual std::vector<std::string> password_hash_kinds() = 0;

  // Throttling events: one row per counted attempt, keyed by e.g. "login:email:a@b.c".
  // The times of the newest `most` events of `key` later than `after`,
  // ascending: one backward range scan of the (key, at) index, so a throttle
  // check reads at most its limit's count of rows however many attempts
  // were made.
  virtual std::vector<Millis> event_times(std::string_view key, Millis after, int most) = 0;
  virtual std::int64_t insert_event(std::string_view key, Millis at) = 0;
  virtual void delete_event(std::int64_t event_id) = 0;
  virtual void delete_events(std::string_view key) = 0;

  // Sessions. A revoked session is never found again; it stays in storage
  // until the pruner removes it with the expired ones.
  virtual void insert_session(const SessionRecord& session) = 0;
  // The user of the unrevoked session with this digest, expired or not, in
  // one statement (a session and then its user took two). In a write
  // transaction the user's row is locked, as by user_by_id.
  virtual std::optional<SessionUser> session_user(const Sha256Digest& digest) = 0;
  // POST /logout. False when no unrevoked session has that digest.
  virtual bool revoke_session(const Sha256Digest& digest, Millis now) = 0;
  virtual void delete_sessions_of_user(std::string_view user_id) = 0;
  // Sessions neither revoked nor expired at `now` (GET /metrics).
  virtual std::int64_t live_session_count(Millis now) = 0;

  // Mail outbox
  virtual std::int64_t enqueue_mail(const OutboxRecord& mail) = 0;
  // The oldest mail due at `now` that no worker holds; marks it held until `lease_until`.
  virtual std::optional<OutboxRecord> claim_due_mail(Millis now, Millis lease_until) = 0;
  // The same for the unsent mail with the earliest next attempt, due or not
  // (the outbox worker's relay probe, and its catching up once the relay is
  // back).
  virtual std::optional<OutboxRecord> claim_pending_mail(Millis now, Millis lease_until) = 0;
  // Marks a mail sent, if it is still held under the lease `claimed_until`
  // that its claim set; false when it is not (the lease ran out and another
  // claim took it, or it is gone).
  virtual bool mark_mail_sent(std::int64_t mail_id, Millis at, Millis claimed_until) = 0;
  virtual void reschedule_mail(std::int64_t mail_id, int attempts, Millis next_attempt_at,
                               std::string_view last_error) = 0;
  virtual void delete_mail(std::int64_t mail_id) = 0;
  virtual std::int64_t pending_mail_count() = 0;

  // Reset tokens (one live token per user: inserting voids the older one)
  virtual void replace_reset_token(const ResetTokenRecord& token) = 0;
  virtual std::optional<ResetTokenRecord> reset_token_by_digest(const Sha256Digest& digest) = 0;
  virtual void delete_reset_tokens_of_user(std::string_view user_id) = 0;

  // Housekeeping: removes what can no longer matter; returns rows removed.
  virtual std::int64_t prune(Millis now, Millis event_horizon, Millis sent_mail_horizon) = 0;
};

enum class StoreStatus {
  ok,
  unavailable,  // the database cannot be reached or is locked for too long
  failed,       // anything else: a bug or a corrupt database
};

class Store {
 public:
  enum class Mode { read, write };
  virtual ~Store() = default;

  // Runs `work` in one transaction on the calling thread and commits it
  // durably (or rolls back if `work` throws). Thread-safe.
  virtual StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) = 0;

  // Group commit. A backend with a single writer and an expensive durable
  // commit (SQLite: one fsync per COMMIT) returns true, and then receives
  // the server's concurrent writes in batches through `run_writes`: each
  // unit runs in order as if in its own write transaction and is undone
  // alone if it throws, but all share one durable commit, and none is
  // reported done before that commit has returned. Other backends keep one
  // transaction per write (the default below).
  struct BatchUnit {
    const std::function<void(Transaction&)>* work = nullptr;
    StoreStatus status = StoreStatus::failed;
    std::exception_ptr error;  // an exception other than StoreError, for the caller
  };
  virtual bool group_commit() const { return false; }
  virtual void run_writes(std::span<BatchUnit> units) { run_each(Mode::write, units); }

  // Group reads: a backend whose read transactions cost more to open than
  // to run (SQLite: file-lock system calls) returns true, and then receives
  // concurrent reads in batches through `run_reads`, all in one read
  // transaction begun after the last of them was queued. Work run in
  // Mode::read must not write: it is not undone alone.
  virtual bool group_reads() const { return false; }
  virtual void run_reads(std::span<BatchUnit> units) { run_each(Mode::read, units); }

  // The defaults of run_writes and run_reads: one transaction per unit.
  void run_each(Mode mode, std::span<BatchUnit> units) {
    for (BatchUnit& unit : units) {
      try {
        unit.status = run(mode, *unit.work);
      } catch (...) {
        unit.error = std::current_exception();
      }
    }
  }

  // Applies pending schema migrations; returns the schema version.
  virtual int migrate() = 0;

  // True when the database answers a trivial query (a read transaction).
  virtual bool healthy() {
    return run(Mode::read, [](Transaction& tx) { tx.pending_mail_count(); }) == StoreStatus::ok;
  }
};

}  // namespace authd
