// A thin RAII layer over libpq: one Connection per database thread,
// statements prepared once per connection and run with bound parameters.
//
// Every wait has a deadline, set by the store once per transaction, so a
// database that stops answering costs a request at most that deadline:
// libpq's asynchronous calls are driven by poll() on the connection's socket,
// and when the deadline passes the connection is dropped and the caller gets
// a TimedOutError (a BusyError: 503, not a hang). The server is told the
// same limits right after connecting (statement_timeout, lock_timeout and
// idle_in_transaction_session_timeout, by SET: never the startup `options`
// parameter, which poolers refuse), so that it ends, by itself, the work
// and the locks of a client that went away mid-transaction instead of
// holding them until TCP notices.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "crypto/random.hpp"
#include "store/postgres/hosts.hpp"
#include "store/postgres/params.hpp"
#include "store/store.hpp"

struct pg_conn;
struct pg_result;

namespace authd::postgres {

class PipelineTurns;

// The rows of one statement, in libpq's text format.
class Result {
 public:
  explicit Result(pg_result* result) : result_(result) {}
  Result(Result&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&& other) noexcept;
  ~Result();
  pg_result* get() const { return result_; }

  int rows() const;
  std::int64_t affected() const;  // rows changed by INSERT, UPDATE or DELETE

  std::string text(int row, int column) const;
  std::optional<std::string> optional_text(int row, int column) const;
  std::int64_t integer(int row, int column) const;
  std::optional<std::int64_t> optional_integer(int row, int column) const;
  bool boolean(int row, int column) const;
  Sha256Digest digest(int row, int column) const;
  std::optional<Sha256Digest> optional_digest(int row, int column) const;

 private:
  bool is_null(int row, int column) const;
  pg_result* result_;
};

// One row of a Result, read by column alone (store/user_columns.hpp).
class Row {
 public:
  Row(const Result& result, int row) : result_(result), row_(row) {}
  std::string text(int column) const { return result_.text(row_, column); }
  std::optional<std::string> optional_text(int column) const {
    return result_.optional_text(row_, column);
  }
  std::int64_t integer(int column) const { return result_.integer(row_, column); }
  std::optional<std::int64_t> optional_integer(int column) const {
    return result_.optional_integer(row_, column);
  }
  bool boolean(int column) const { return result_.boolean(row_, column); }
  Sha256Digest digest(int column) const { return result_.digest(row_, column); }
  std::optional<Sha256Digest> optional_digest(int column) const {
    return result_.optional_digest(row_, column);
  }

 private:
  const Result& result_;
  int row_;
};

// A statement broke a unique constraint (SQLSTATE 23505): for the area that
// can answer it ("that e-mail has an account"), not an error.
class UniqueViolation : public StoreError {
 public:
  using StoreError::StoreError;
};

// A statement broke a foreign key (SQLSTATE 23503): a row still refers to
// the one a DELETE removes.
class ForeignKeyViolation : public StoreError {
 public:
  using StoreError::StoreError;
};

// A wait on the database that ran past its deadline.
class TimedOutError : public BusyError {
 public:
  using BusyError::BusyError;
};

// Unavailable for a cause logged already: logged at debug level only, so
// that an outage is one warning, not one per waiting request.
class AlreadyReported : public BusyError {
 public:
  using BusyError::BusyError;
};

// A unit of a pipeline whose connection failed under an earlier unit of the
// same batch.
class LostUnderAnotherRead : public AlreadyReported {
 public:
  LostUnderAnotherRead()
      : AlreadyReported("query: the connection failed under another statement of its pipeline") {}
};

// How a connection is opened and what it may keep on the server.
struct ConnectSettings {
  // The server-side limits of each transaction (statement_timeout ...).
  std::chrono::milliseconds timeout{5000};
  // Behind a transaction pooler (PgBouncer's pool_mode = transaction,
  // interface.md 20.3), consecutive transactions may run on different
  // server sessions: nothing is kept in the session (no named prepared
  // statements, no SET), the limits are set in each write transaction
  // (SET LOCAL), and statements are unnamed (parsed for each run).
  bool transaction_pooler = false;
  // Given after the string (one host of several: hosts.hpp), and its index.
  HostSettings host;
  std::size_t host_index = 0;
};

class Connection {
 public:
  using Clock = std::chrono::steady_clock;

  // Connects to `url` (postgresql://... or libpq's keyword form) by
  // `deadline`. Throws BusyError when the server cannot be reached or is
  // not what target_session_attrs asks (TimedOutError when it did not
  // answer in time), and StoreError for a URL libpq cannot parse; no
  // message quotes the URL.
  Connection(const std::string& url, const ConnectSettings& settings, Clock::time_point deadline);
  // A direct connection with these limits (the tests' own).
  Connection(const std::string& url, std::chrono::milliseconds timeout, Clock::time_point deadline)
      : Connection(url, ConnectSettings{timeout, false, {}, 0}, deadline) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs a prepared statement. `sql` must be a string literal: statements
  // are prepared once per connection, keyed by the literal's address.
  Result run(const char* sql, const Params& params = {});
  // Runs the DELETE `sql` until it deletes nothing; the rows deleted in
  // all. Each run is a statement of its own, and under READ COMMITTED sees
  // the rows that writers it waited for committed meanwhile (a rotation in
  // flight's next token): a revocation that does not start from one user
  // takes them too.
  std::int64_t delete_until_none(const char* sql, const Params& params);
  // As `run`, for a statement whose best plan changes as its table grows
  // faster than ANALYZE follows (a throttle count): prepared again, and so
  // planned again from the table's present size, once its plan is older
  // than `replan_after`
  // (docs/design/performance-choices.md#postgresql-counts-planned-again).
  Result run_replanned(const char* sql, const Params& params);
  void set_replan_after(std::chrono::milliseconds interval) { replan_after_ = interval; }
  static constexpr std::chrono::milliseconds kReplanAfter{1000};
  // One statement without parameters (COMMIT, ROLLBACK, SAVEPOINT ...).
  void execute(const char* sql);
  // A statement whose answer nobody waits for (BEGIN, an event's INSERT):
  // it travels with the next statement that is awaited, in the same round
  // trip (libpq's pipeline mode), and that statement reports its failure.
  // Without parameters: sent as it is; with: prepared, as by `run`.
  void send_ahead(const char* sql);
  void send_ahead(const char* sql, const Params& params);
  // Several statements separated by semicolons (a migration), in the
  // simple query protocol.
  void execute_script(const char* sql);

  // False when the server has closed this idle connection (restarted, or
  // ended the session): found without a round trip, by whether the socket
  // has anything to read, since an idle session is sent nothing else.
  bool still_open_while_idle();

  // The time by which every following round trip must have its answer.
  void set_deadline(Clock::time_point deadline) { deadline_ = deadline; }

  // False once the connection failed at the protocol level (server gone,
  // deadline passed, or the server turned read-only: a demoted primary):
  // it must be dropped, not reused.
  bool usable() const { return !broken_; }
  // True once a round trip ran past its deadline: the server stopped
  // answering, and the pool's idle connections to it are likely stuck too.
  bool timed_out() const { return timed_out_; }
  // The server answered that it is read-only (a standby, or a pooler in
  // front of one): the host is no longer the primary.
  bool on_read_only_server() const { return read_only_server_; }
  // Which host of the --database string it is connected to (hosts.hpp).
  std::size_t host_index() const { return host_index_; }

  // Starts a write transaction: BEGIN READ WRITE, and behind a transaction
  // pooler the transaction's limits (SET LOCAL), sent ahead of its first
  // statement.
  void begin_write();

  // While set, a statement whose Sync is sent parks its read there until
  // the answers before its own are read (read_pipeline.hpp).
  void set_turns(PipelineTurns* turns) { turns_ = turns; }
  // The batch of reads this connection runs (each unit in transactions of
  // its own), or null.
  PipelineTurns* read_batch() const;
  // The batch of writes that share this connection's transaction, or null.
  PipelineTurns* transaction_batch() const;

  // How many Syncs this connection has sent: each one is an implicit
  // transaction of its own outside BEGIN, and a wake-up of the server.
  std::uint64_t syncs_sent() const { return syncs_sent_; }
  // How many statements this connection has run, each prepared statement
  // counted once for each time it ran (not for its PREPARE): each is a
  // parse, a plan or bind, and an executor start on the server.
  std::uint64_t statements_sent() const { return statements_sent_; }

 private:
  // Sends a Sync, then reads the results of every command sent since the
  // last one; returns the last command's, or throws the first failure.
  Result finish_pipeline(std::string_view what);
  void flush(std::string_view what);
  void send_plain(const char* sql);
  void send_with_params(const char* sql, const Params& params);
  void refuse_in_read_pipeline() const;
  void refuse_in_catch_handler() const;
  Result await_result(std::string_view what);
  pg_result* next_result(std::string_view what);
  [[noreturn]] void fail(const pg_result* result, std::string_view what);
  void wait_socket(short events, std::string_view what);
  [[noreturn]] void lost(std::string_view what);

  pg_conn* conn_ = nullptr;
  Clock::time_point deadline_;
  bool broken_ = false;
  bool timed_out_ = false;
  bool read_only_server_ = false;
  bool transaction_pooler_ = false;
  std::chrono::milliseconds timeout_;
  std::size_t host_index_ = 0;
  PipelineTurns* turns_ = nullptr;
  std::uint64_t syncs_sent_ = 0;
  std::uint64_t statements_sent_ = 0;
  std::unordered_map<const char*, std::string> prepared_;  // literal -> statement name
  // Sends the prepared statement `sql` (preparing it first, in the same
  // pipeline, when this connection has not yet, or when `replan` and its
  // plan is older than replan_after_).
  void send_prepared(const char* sql, const Params& params, bool replan = false);
  std::unordered_map<const char*, Clock::time_point> planned_at_;  // run_replanned's
  std::chrono::milliseconds replan_after_ = kReplanAfter;

  // A PREPARE sent in the current pipeline: remembered once answered.
  struct Preparing {
    int command;
    const char* sql;
    std::string name;
  };
  int sent_ = 0;  // commands sent in the current pipeline, answers not read yet
  std::vector<Preparing> preparing_;
  // Every PREPARE sent whose answer has not been read yet, whichever read
  // of a batch sent it: the reads sent after it use its name instead of
  // preparing the statement again under one nobody would deallocate.
  std::unordered_map<const char*, std::string> in_flight_;  // literal -> statement name
  int statements_named_ = 0;
};

}  // namespace authd::postgres
