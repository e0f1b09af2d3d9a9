#include "store/postgres/postgres_store.hpp"

#include <limits>
#include <utility>

#include "core/log.hpp"
#include "crypto/hash_kind.hpp"
#include "store/migrations.hpp"
#include "store/postgres/connection.hpp"

namespace authd::postgres {
namespace {

// Refused without trying, right after a failed connect: the failure that
// started it was logged, so these are logged at debug level only (a client
// retrying in a loop would otherwise flood the log during an outage).
class StillDownError : public BusyError {
 public:
  StillDownError() : BusyError("database unreachable a moment ago; not retrying yet") {}
};

// A macro so that it concatenates into string literals: the connection
// prepares statements keyed by the literal's address.
#define AUTHD_USER_COLUMNS                                                        \
  "id, email, password_hash, phone, photo_url, display_name, email_verified_at, " \
  "phone_verified_at, disabled, created_at, updated_at"

// GET /me's and logout's lookup: the session's user, then its expiry. The
// subquery names only user_id and expires_at, so the user's columns need no
// qualifier; the session's primary key drives the join.
#define AUTHD_SESSION_USER_SQL                                              \
  "SELECT " AUTHD_USER_COLUMNS                                              \
  ", expires_at FROM users JOIN (SELECT user_id, expires_at FROM sessions " \
  "WHERE token_digest = $1 AND revoked_at IS NULL) AS s ON users.id = s.user_id"
constexpr int kSessionExpiresColumn = 11;  // after the user's 11 columns

UserRecord read_user(const Result& row) {
  UserRecord user;
  user.id = row.text(0, 0);
  user.email = row.text(0, 1);
  user.password_hash = row.optional_text(0, 2);
  user.phone = row.optional_text(0, 3);
  user.photo_url = row.optional_text(0, 4);
  user.display_name = row.optional_text(0, 5);
  user.email_verified_at = row.optional_integer(0, 6);
  user.phone_verified_at = row.optional_integer(0, 7);
  user.disabled = row.boolean(0, 8);
  user.created_at = row.integer(0, 9);
  user.updated_at = row.integer(0, 10);
  return user;
}

// Parameters $2 to $9: the columns that an update may change.
Params& add_user_fields(Params& params, const UserRecord& u) {
  return params.text(u.email)
      .text(u.password_hash)
      .text(u.phone)
      .text(u.photo_url)
      .text(u.display_name)
      .integer(u.email_verified_at)
      .integer(u.phone_verified_at)
      .boolean(u.disabled);
}

// How the write transactions keep the domain's read-then-write steps
// atomic across instances (READ COMMITTED, no retry loop needed):
// - the rows a write transaction reads in order to change them (a user, a
//   reset token) are read FOR UPDATE: a concurrent writer waits, then sees
//   the committed result (the second of two resets with one token finds
//   no token). Always a user's row before its token's, never the reverse,
//   so writers cannot deadlock;
// - a throttling key is locked with a transaction-scoped advisory lock
//   before its events are counted, so two instances cannot both count 9
//   and both let a 10th guess through;
// - the outbox is claimed with FOR UPDATE SKIP LOCKED.
class PostgresTransaction final : public Transaction {
 public:
  PostgresTransaction(Connection& db, Store::Mode mode)
      : db_(db), locking_(mode == Store::Mode::write) {}

  std::optional<UserRecord> user_by_email(std::string_view email) override {
    Params params;
    params.text(email);
    Result rows =
        locking_ ? db_.run("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE email = $1 FOR UPDATE",
                           params)
                 : db_.run("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE email = $1", params);
    if (rows.rows() == 0) return std::nullopt;
    return read_user(rows);
  }

  std::optional<UserRecord> user_by_id(std::string_view id) override {
    Params params;
    params.text(id);
    Result rows =
        locking_
            ? db_.run("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE id = $1 FOR UPDATE", params)
            : db_.run("SELECT " AUTHD_USER_COLUMNS " FROM users WHERE id = $1", params);
    if (rows.rows() == 0) return std::nullopt;
    return read_user(rows);
  }

  bool insert_user(const UserRecord& u) override {
    Params params;
    params.text(u.id);
    add_user_fields(params, u).integer(u.created_at).integer(u.updated_at);
    bool inserted = db_.run("INSERT INTO users (" AUTHD_USER_COLUMNS
                            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
                            "ON CONFLICT (email) DO NOTHING",
                            params)
                        .affected() == 1;
    if (inserted && u.password_hash) record_hash_kind(*u.password_hash);
    return inserted;
  }

  void update_user(const UserRecord& u) override {
    Params params;
    params.text(u.id);
    add_user_fields(params, u).integer(u.updated_at);
    db_.run(
        "UPDATE users SET email = $2, password_hash = $3, phone = $4, photo_url = $5, "
        "display_name = $6, email_verified_at = $7, phone_verified_at = $8, disabled = $9, "
        "updated_at = $10 WHERE id = $1",
        params);
    if (u.password_hash) record_hash_kind(*u.password_hash);
  }

  void replace_password_hash(std::string_view user_id, std::string_view phc) override {
    Params params;
    params.text(user_id).text(phc);
    db_.run("UPDATE users SET password_hash = $2 WHERE id = $1", params);
    record_hash_kind(phc);
  }

  std::vector<std::string> password_hash_kinds() override {
    Result rows = db_.run("SELECT kind FROM password_hash_kinds ORDER BY kind");
    std::vector<std::string> kinds;
    kinds.reserve(static_cast<std::size_t>(rows.rows()));
    for (int i = 0; i < rows.rows(); ++i) kinds.push_back(rows.text(i, 0));
    return kinds;
  }

  std::vector<Millis> event_times(std::string_view key, Millis after, int most) override {
    Params params;
    params.text(key);
    // A separate statement: a READ COMMITTED statement sees what was
    // committed when it started, so the count must start after the lock.
    if (locking_) db_.run("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", params);
    params.integer(after).integer(most);
    // Plan: Index Only Scan Backward using throttle_events_by_key, stopped
    // by the LIMIT: no sort, `most` rows at most.
    Result rows = db_.run(
        "SELECT at FROM throttle_events WHERE key = $1 AND at > $2 ORDER BY at DESC LIMIT $3",
        params);
    std::vector<Millis> times(static_cast<std::size_t>(rows.rows()));
    for (int i = 0; i < rows.rows(); ++i)  // newest first: fill from the back
      times[times.size() - 1 - static_cast<std::size_t>(i)] = rows.integer(i, 0);
    return times;
  }

  std::int64_t insert_event(std::string_view key, Millis at) override {
    Params params;
    params.text(key).integer(at);
    return db_.run("INSERT INTO throttle_events (key, at) VALUES ($1, $2) RETURNING id", params)
        .integer(0, 0);
  }

  void delete_event(std::int64_t event_id) override {
    Params params;
    params.integer(event_id);
    db_.run("DELETE FROM throttle_events WHERE id = $1", params);
  }

  void delete_events(std::string_view key) override {
    Params params;
    params.text(key);
    db_.run("DELETE FROM throttle_events WHERE key = $1", params);
  }

  void insert_session(const SessionRecord& s) override {
    Params params;
    params.digest(s.token_digest).text(s.user_id).integer(s.created_at).integer(s.expires_at);
    db_.run(
        "INSERT INTO sessions (token_digest, user_id, created_at, expires_at) "
        "VALUES ($1, $2, $3, $4)",
        params);
  }

  std::optional<SessionUser> session_user(const Sha256Digest& digest) override {
    Params params;
    params.digest(digest);
    Result rows = locking_ ? db_.run(AUTHD_SESSION_USER_SQL " FOR UPDATE OF users", params)
                           : db_.run(AUTHD_SESSION_USER_SQL, params);
    if (rows.rows() == 0) return std::nullopt;
    return SessionUser{read_user(rows), rows.integer(0, kSessionExpiresColumn)};
  }

  // A DELETE, not SQLite's mark: during a rolling upgrade an instance of a
  // release before migration 2 reads sessions without looking at revoked_at,
  // and must not find a logged-out token. (PostgreSQL's DELETE writes no index
  // entries, so the mark would save little here.)
  bool revoke_session(const Sha256Digest& digest, Millis /*now*/) override {
    Params params;
    params.digest(digest);
    return db_.run("DELETE FROM sessions WHERE token_digest = $1", params).affected() == 1;
  }

  void delete_sessions_of_user(std::string_view user_id) override {
    Params params;
    params.text(user_id);
    db_.run("DELETE FROM sessions WHERE user_id = $1", params);
  }

  std::int64_t live_session_count(Millis now) override {
    Params params;
    params.integer(now);
    return db_
        .run("SELECT count(*) FROM sessions WHERE expires_at > $1 AND revoked_at IS NULL", params)
        .integer(0, 0);
  }

  std::int64_t enqueue_mail(const OutboxRecord& m) override {
    Params params;
    params.text(m.kind).text(m.user_id).text(m.email).integer(m.created_at);
    params.integer(static_cast<std::int64_t>(m.attempts)).integer(m.next_attempt_at);
    return db_
        .run(
            "INSERT INTO outbox (kind, user_id, email, created_at, attempts, next_attempt_at) "
            "VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            params)
        .integer(0, 0);
  }

  std::optional<OutboxRecord> claim_due_mail(Millis now, Millis lease_until) override {
    return claim_mail(now, now, lease_until);
  }

  std::optional<OutboxRecord> claim_pending_mail(Millis now, Millis lease_until) override {
    return claim_mail(now, std::numeric_limits<Millis>::max(), lease_until);
  }

  // The unsent, unclaimed mail due at `due_by` with the earliest next attempt.
  std::optional<OutboxRecord> claim_mail(Millis now, Millis due_by, Millis lease_until) {
    // SKIP LOCKED: a mail another instance is claiming right now is passed
    // over, not waited for; one statement finds, locks and leases it.
    Params params;
    params.integer(now).integer(lease_until).integer(due_by);
    Result rows = db_.run(
        "UPDATE outbox SET claimed_until = $2 WHERE id = ("
        " SELECT id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= $3"
        " AND (claimed_until IS NULL OR claimed_until <= $1)"
        " ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) "
        "RETURNING id, kind, user_id, email, created_at, attempts, next_attempt_at",
        params);
    if (rows.rows() == 0) return std::nullopt;
    return OutboxRecord{rows.integer(0, 0), rows.text(0, 1),
                        rows.text(0, 2),    rows.text(0, 3),
                        rows.integer(0, 4), static_cast<int>(rows.integer(0, 5)),
                        rows.integer(0, 6)};
  }

  bool mark_mail_sent(std::int64_t mail_id, Millis at, Millis claimed_until) override {
    Params params;
    params.integer(mail_id).integer(at).integer(claimed_until);
    return db_.run(
                  "UPDATE outbox SET sent_at = $2, claimed_until = NULL, last_error = NULL "
                  "WHERE id = $1 AND claimed_until = $3 AND sent_at IS NULL",
                  params)
               .affected() == 1;
  }

  void reschedule_mail(std::int64_t mail_id, int attempts, Millis next_attempt_at,
                       std::string_view last_error) override {
    Params params;
    params.integer(mail_id).integer(static_cast<std::int64_t>(attempts)).integer(next_attempt_at);
    params.text(last_error);
    db_.run(
        "UPDATE outbox SET attempts = $2, next_attempt_at = $3, claimed_until = NULL, "
        "last_error = $4 WHERE id = $1",
        params);
  }

  void delete_mail(std::int64_t mail_id) override {
    Params params;
    params.integer(mail_id);
    db_.run("DELETE FROM outbox WHERE id = $1", params);
  }

  std::int64_t pending_mail_count() override {
    return db_.run("SELECT count(*) FROM outbox WHERE sent_at IS NULL").integer(0, 0);
  }

  void replace_reset_token(const ResetTokenRecord& t) override {
    // One statement, so that two workers minting for one user at once
    // cannot both pass a DELETE and then collide on the INSERT.
    Params params;
    params.digest(t.token_digest).text(t.user_id).integer(t.created_at).integer(t.expires_at);
    db_.run(
        "INSERT INTO reset_tokens (token_digest, user_id, created_at, expires_at) "
        "VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO UPDATE SET "
        "token_digest = EXCLUDED.token_digest, created_at = EXCLUDED.created_at, "
        "expires_at = EXCLUDED.expires_at",
        params);
  }

  std::optional<ResetTokenRecord> reset_token_by_digest(const Sha256Digest& digest) override {
    Params params;
    params.digest(digest);
    if (locking_) {
      // Lock order: the user's row, then the token's, as every other writer
      // of tokens does (minting, set-password), so that no two writers can
      // wait on each other in a cycle. After the wait the token is read
      // again: a concurrent reset may have used it meanwhile.
      Result owner = db_.run("SELECT user_id FROM reset_tokens WHERE token_digest = $1", params);
      if (owner.rows() == 0) return std::nullopt;
      Params user;
      user.text(owner.text(0, 0));
      db_.run("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", user);
    }
    Result rows = locking_ ? db_.run(
                                 "SELECT token_digest, user_id, created_at, expires_at "
                                 "FROM reset_tokens WHERE token_digest = $1 FOR UPDATE",
                                 params)
                           : db_.run(
                                 "SELECT token_digest, user_id, created_at, expires_at "
                                 "FROM reset_tokens WHERE token_digest = $1",
                                 params);
    if (rows.rows() == 0) return std::nullopt;
    return ResetTokenRecord{rows.digest(0, 0), rows.text(0, 1), rows.integer(0, 2),
                            rows.integer(0, 3)};
  }

  void delete_reset_tokens_of_user(std::string_view user_id) override {
    Params params;
    params.text(user_id);
    db_.run("DELETE FROM reset_tokens WHERE user_id = $1", params);
  }

  std::int64_t prune(Millis now, Millis event_horizon, Millis sent_mail_horizon) override {
    const std::pair<const char*, Millis> deletions[] = {
        {"DELETE FROM sessions WHERE expires_at <= $1", now},
        {"DELETE FROM reset_tokens WHERE expires_at <= $1", now},
        {"DELETE FROM throttle_events WHERE at <= $1", event_horizon},
        {"DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at <= $1", sent_mail_horizon},
    };
    std::int64_t removed = 0;
    for (const auto& [sql, horizon] : deletions) {
      Params params;
      params.integer(horizon);
      removed += db_.run(sql, params).affected();
    }
    return removed;
  }

 private:
  // One statement that changes nothing when the kind is listed already (a
  // concurrent first insert of the same kind is waited for, then ignored).
  void record_hash_kind(std::string_view phc) {
    std::optional<std::string> kind = password_hash_kind(phc);
    if (!kind) return;
    Params params;
    params.text(*kind);
    db_.run("INSERT INTO password_hash_kinds (kind) VALUES ($1) ON CONFLICT (kind) DO NOTHING",
            params);
  }

  Connection& db_;
  bool locking_;
};

void rollback_quietly(Connection& connection) {
  if (!connection.usable()) return;  // the server rolls back a dropped session
  try {
    connection.execute("ROLLBACK");
  } catch (const StoreError&) {
    // The connection is marked unusable and will be dropped.
  }
}

}  // namespace

// A connection taken from the pool; goes back (or is dropped, when broken)
// at the end of its scope.
class PostgresStore::Lease {
 public:
  Lease(PostgresStore& store, std::unique_ptr<Connection> connection, bool reused)
      : store_(store), connection_(std::move(connection)), reused_(reused) {}
  Lease(Lease&& other) noexcept
      : store_(other.store_), connection_(std::move(other.connection_)), reused_(other.reused_) {}
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease() {
    if (connection_) store_.release(std::move(connection_));
  }
  void give_back() {
    if (connection_) store_.release(std::move(connection_));
  }
  Connection& operator*() { return *connection_; }
  Connection* operator->() { return connection_.get(); }
  bool reused() const { return reused_; }

 private:
  PostgresStore& store_;
  std::unique_ptr<Connection> connection_;
  bool reused_;
};

PostgresStore::PostgresStore(std::string url, std::size_t pool_size,
                             std::chrono::milliseconds timeout)
    : url_(std::move(url)), pool_size_(std::max<std::size_t>(pool_size, 1)), timeout_(timeout) {
  acquire(Clock::now() + timeout_);  // connect once now; the lease returns it to the pool
}

PostgresStore::~PostgresStore() = default;

std::unique_ptr<Connection> PostgresStore::connect(Clock::time_point deadline) {
  auto give_slot_back = [this](bool timed_out) {
    std::lock_guard lock(mutex_);
    --open_;
    // A refused connection costs nothing to try again; a server that does
    // not answer would cost every request its whole deadline.
    if (timed_out) reconnect_after_ = Clock::now() + std::chrono::milliseconds(250);
    available_.notify_one();
  };
  try {
    return std::make_unique<Connection>(url_, timeout_, deadline);
  } catch (const TimedOutError&) {
    give_slot_back(true);
    throw;
  } catch (...) {
    give_slot_back(false);
    throw;
  }
}

PostgresStore::Lease PostgresStore::acquire(Clock::time_point deadline) {
  {
    std::unique_lock lock(mutex_);
    if (!available_.wait_until(lock, deadline,
                               [&] { return !idle_.empty() || open_ < pool_size_; }))
      throw TimedOutError("every database connection stayed in use");
    if (!idle_.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      connection->set_deadline(deadline);
      return Lease(*this, std::move(connection), true);
    }
    if (Clock::now() < reconnect_after_) throw StillDownError();
    ++open_;
  }
  return Lease(*this, connect(deadline), false);
}

void PostgresStore::release(std::unique_ptr<Connection> connection) {
  std::lock_guard lock(mutex_);
  if (connection->usable()) {
    idle_.push_back(std::move(connection));
  } else {
    --open_;
  }
  available_.notify_one();
}

void PostgresStore::drop_idle() {
  std::vector<std::unique_ptr<Connection>> dropped;  // closed outside the lock
  std::lock_guard lock(mutex_);
  open_ -= idle_.size();
  dropped.swap(idle_);
  available_.notify_all();
}

PostgresStore::Lease PostgresStore::begin(Mode mode, Clock::time_point deadline) {
  const char* begin_sql = mode == Mode::write ? "BEGIN" : "BEGIN READ ONLY";
  Lease connection = acquire(deadline);
  try {
    connection->execute(begin_sql);
    return connection;
  } catch (const BusyError&) {
    // A pooled connection that died while idle: the server restarted or
    // dropped us, and the other idle ones went the same way. Nothing has
    // run yet, so start over once on a fresh connection, after handing the
    // dead one back (a pool of one has no other slot).
    if (!connection.reused() || connection->usable()) throw;
  }
  connection.give_back();
  drop_idle();
  Lease fresh = acquire(deadline);
  fresh->execute(begin_sql);
  return fresh;
}

StoreStatus PostgresStore::run(Mode mode, const std::function<void(Transaction&)>& work) {
  try {
    // One deadline for the whole transaction: waiting for a connection,
    // connecting, every statement and the COMMIT.
    Lease connection = begin(mode, Clock::now() + timeout_);
    try {
      PostgresTransaction tx(*connection, mode);
      work(tx);
      connection->execute("COMMIT");  // durable when it returns (synchronous_commit)
    } catch (...) {
      rollback_quietly(*connection);
      throw;
    }
    return StoreStatus::ok;
  } catch (const StillDownError& e) {
    log::debug("store_busy", {{"error", e.what()}});
    return StoreStatus::unavailable;
  } catch (const BusyError& e) {
    log::warn("store_busy", {{"error", e.what()}});
    return StoreStatus::unavailable;
  } catch (const StoreError& e) {
    log::error("store_error", {{"error", e.what()}});
    return StoreStatus::failed;
  }
}

int PostgresStore::migrate() {
  Lease connection = acquire(Clock::now() + timeout_);
  // A migration may wait for another instance's, and a future one may
  // build an index on a large table: no request-sized limits here.
  connection->set_deadline(Clock::now() + std::chrono::minutes(30));
  connection->execute("BEGIN");
  connection->execute("SET LOCAL statement_timeout = 0");
  connection->execute("SET LOCAL lock_timeout = 0");
  int version = 0;
  std::vector<const Migration*> applied;  // logged once committed
  try {
    // Instances starting together migrate one after the other; the lock
    // comes before the table exists, so it is an advisory one.
    connection->execute("SELECT pg_advisory_xact_lock(hashtextextended('authd migrations', 0))");
    connection->execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at BIGINT NOT NULL)");
    version = static_cast<int>(
        connection->run("SELECT coalesce(max(version), 0) FROM schema_migrations").integer(0, 0));
    for (const Migration& m : migrations()) {
      if (m.version <= version) continue;
      connection->execute(m.postgres_sql);
      Params params;
      params.integer(m.version).text(m.description).integer(now_millis());
      connection->run(
          "INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)",
          params);
      version = m.version;
      applied.push_back(&m);
    }
    connection->execute("COMMIT");
  } catch (...) {
    rollback_quietly(*connection);
    throw;
  }
  log_applied(applied);
  return version;
}

}  // namespace authd::postgres

#undef AUTHD_SESSION_USER_SQL  // the two stores spell parameters differently
