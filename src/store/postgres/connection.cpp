#include "store/postgres/connection.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>
#include <exception>
#include <iterator>
#include <utility>

#include "core/log.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/session_settings.hpp"
#include "store/postgres/sqlstate.hpp"
#include "store/store.hpp"

namespace authd::postgres {
namespace {

// TCP settings unless the string sets its own: a server that vanished
// (a host down, a partition) is noticed on an idle pooled connection within
// about 11 s by keepalives (5 s idle, then 3 probes 2 s apart), and on one
// waiting for an acknowledgement within 10 s by tcp_user_timeout. A server
// that is up but stopped answering keeps its TCP alive: the deadline of
// each round trip notices that one.
constexpr const char* kTcpKeys[] = {"keepalives", "keepalives_idle", "keepalives_interval",
                                    "keepalives_count", "tcp_user_timeout"};
constexpr const char* kTcpValues[] = {"1", "5", "2", "3", "10000"};

// The server's notices ("relation already exists, skipping") go to the log
// at debug level instead of libpq's default, a raw line on stderr that would
// break the JSON log.
void log_notice(void*, const PGresult* notice) {
  const char* message = PQresultErrorField(notice, PG_DIAG_MESSAGE_PRIMARY);
  log::debug("database_notice", {{"message", message ? message : ""}});
}

// libpq's own messages end with a newline.
std::string trimmed(const char* message) {
  std::string text = message ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

// --- Connection

Connection::Connection(const std::string& url, const ConnectSettings& settings,
                       Clock::time_point deadline)
    : deadline_(deadline),
      transaction_pooler_(settings.transaction_pooler),
      timeout_(settings.timeout),
      host_index_(settings.host_index) {
  // Defaults first: settings in the URL itself win over them; a host of a
  // multi-host string, last, wins over the URL's list.
  std::vector<const char*> keys = {"application_name", "client_encoding"};
  std::vector<const char*> values = {"authd", "UTF8"};
  keys.insert(keys.end(), std::begin(kTcpKeys), std::end(kTcpKeys));
  values.insert(values.end(), std::begin(kTcpValues), std::end(kTcpValues));
  keys.push_back("dbname");
  values.push_back(url.c_str());
  for (const auto& [key, value] : settings.host) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  conn_ = PQconnectStartParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (!conn_) throw BusyError("database connection: out of memory");
  try {
    if (PQstatus(conn_) == CONNECTION_BAD) {
      // Failing before any network step means libpq could not parse the
      // URL, and its message may quote the URL, password included.
      throw StoreError(
          "the --database URL could not be parsed (libpq's message is not shown: it may "
          "quote the password)");
    }
    PQsetErrorVerbosity(conn_, PQERRORS_TERSE);  // no DETAIL in PQerrorMessage
    PostgresPollingStatusType state = PGRES_POLLING_WRITING;
    while (state != PGRES_POLLING_OK) {
      if (state == PGRES_POLLING_FAILED) lost("connect");
      wait_socket(state == PGRES_POLLING_READING ? POLLIN : POLLOUT, "connect");
      state = PQconnectPoll(conn_);
    }
    if (PQsetnonblocking(conn_, 1) != 0) lost("connect");
    PQsetNoticeReceiver(conn_, log_notice, nullptr);
    // Every statement in pipeline mode: what needs no answer of its own
    // (BEGIN) travels with the next statement (send_ahead).
    if (PQenterPipelineMode(conn_) != 1) lost("connect");
    if (!transaction_pooler_) {
      send_with_params(kSessionSettings, session_limits(timeout_));
      finish_pipeline("connect");
    }
  } catch (...) {
    PQfinish(conn_);  // no destructor runs for a half-built object
    throw;
  }
}

Connection::~Connection() { PQfinish(conn_); }

void Connection::lost(std::string_view what) {
  broken_ = true;
  throw BusyError(std::string(what) + ": " + trimmed(PQerrorMessage(conn_)));
}

void Connection::wait_socket(short events, std::string_view what) {
  for (;;) {
    int fd = PQsocket(conn_);
    if (fd < 0) lost(what);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
    if (left.count() <= 0) {
      broken_ = true;  // the server may still be working on it: never reuse
      timed_out_ = true;
      throw TimedOutError(std::string(what) + ": no answer from the database in time");
    }
    pollfd descriptor{fd, events, 0};
    int ready = ::poll(&descriptor, 1, static_cast<int>(left.count()));
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR) lost(what);
  }
}

void Connection::flush(std::string_view what) {
  for (;;) {  // send what libpq has buffered
    int flushed = PQflush(conn_);
    if (flushed == 0) return;
    if (flushed < 0) lost(what);
    wait_socket(POLLIN | POLLOUT, what);
    if (!PQconsumeInput(conn_)) lost(what);
  }
}

pg_result* Connection::next_result(std::string_view what) {
  while (PQisBusy(conn_)) {
    wait_socket(POLLIN, what);
    if (!PQconsumeInput(conn_)) lost(what);
  }
  return PQgetResult(conn_);
}

void Connection::fail(const pg_result* result, std::string_view what) {
  // Only the SQLSTATE and the primary message: the detail may quote the
  // row's values (an e-mail), which must not reach a log.
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  std::string message = std::string(what) + ": " +
                        trimmed(PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY)) +
                        " (SQLSTATE " + (state ? state : "none") + ")";
  // A read-only server is a standby now, after a failover: a new
  // connection finds the primary (target_session_attrs), this one never
  // will. It says so with 25006 to a write, or with 0A000 to BEGIN READ
  // WRITE ("cannot set transaction read-write mode during recovery"),
  // which is how authd's writes start; no other statement of authd's
  // uses a feature a server could lack.
  read_only_server_ = state && is_read_only_server(state);
  if (!state || PQstatus(conn_) == CONNECTION_BAD || ends_the_session(state) || read_only_server_)
    broken_ = true;
  if (broken_ || is_transient(state)) throw BusyError(message);
  if (std::string_view(state) == "23505") throw UniqueViolation(message);
  if (std::string_view(state) == "23503") throw ForeignKeyViolation(message);
  throw StoreError(message);
}

// In pipeline mode each command's results end with a null; the Sync's
// own result closes the pipeline. After a failure the server skips the
// commands that follow it up to the Sync (PGRES_PIPELINE_ABORTED), so the
// first failure is the one reported.
Result Connection::finish_pipeline(std::string_view what) {
  const int commands = std::exchange(sent_, 0);
  std::vector<Preparing> preparing = std::exchange(preparing_, {});
  auto next_preparing = preparing.begin();
  if (PQpipelineSync(conn_) != 1) lost(what);
  ++syncs_sent_;
  if (turns_ != nullptr) {
    // Reads sent after this one go out before its answer is read. Should
    // the wait fail, the answer would be left for the next read to take:
    // the connection is not used again.
    struct BreakUnlessWaited {
      bool& broken;
      bool waited = false;
      ~BreakUnlessWaited() {
        if (!waited) broken = true;
      }
    } guard{broken_};
    turns_->wait_for_answer();
    guard.waited = true;
    if (broken_) throw LostUnderAnotherRead();
  }
  flush(what);
  Result last(nullptr);
  Result failure(nullptr);
  int command = 0;  // whose results are being read
  for (;;) {
    pg_result* next = next_result(what);
    if (next == nullptr) {
      // A command is done. More nulls than commands means the connection
      // broke under libpq (it gives no Sync then): never wait forever.
      if (++command > commands) lost(what);
      continue;
    }
    Result owned(next);
    ExecStatusType status = PQresultStatus(next);
    if (status == PGRES_PIPELINE_SYNC) break;
    // A PREPARE's answer: remembered when it succeeded; one that failed or
    // was skipped is prepared again at the statement's next use.
    if (next_preparing != preparing.end() && next_preparing->command == command) {
      auto in_flight = in_flight_.find(next_preparing->sql);
      if (in_flight != in_flight_.end() && in_flight->second == next_preparing->name)
        in_flight_.erase(in_flight);
      if (status == PGRES_COMMAND_OK)
        prepared_.insert_or_assign(next_preparing->sql, std::move(next_preparing->name));
      ++next_preparing;
    }
    if (status == PGRES_FATAL_ERROR) {
      if (!failure.get()) failure = std::move(owned);
    } else if (status != PGRES_PIPELINE_ABORTED && command == commands - 1) {
      last = std::move(owned);
    }
  }
  if (failure.get()) fail(failure.get(), what);
  if (!last.get()) lost(what);
  return last;
}

Result Connection::await_result(std::string_view what) {
  flush(what);
  // Read every result of the command; keep the first error, else the last.
  // Owned by a Result at once, so that a throw while waiting frees it.
  Result owner(nullptr);
  for (pg_result* next = next_result(what); next != nullptr; next = next_result(what)) {
    if (owner.get() && PQresultStatus(owner.get()) == PGRES_FATAL_ERROR) {
      PQclear(next);
    } else {
      owner = Result(next);
    }
  }
  if (!owner.get()) lost(what);
  if (PQresultStatus(owner.get()) == PGRES_FATAL_ERROR) fail(owner.get(), what);
  return owner;
}

void Connection::send_prepared(const char* sql, const Params& params, bool replan) {
  // Behind a transaction pooler a named statement would stay on a server
  // session this connection may not get again: parsed for each run.
  if (transaction_pooler_) return send_with_params(sql, params);
  refuse_in_catch_handler();
  auto prepared = prepared_.find(sql);
  const std::string* name = nullptr;
  if (replan && prepared != prepared_.end() && Clock::now() - planned_at_[sql] >= replan_after_) {
    // Dropped in the same round trip; the new one gets a plan of its own.
    const std::string deallocate = "DEALLOCATE " + prepared->second;
    if (!PQsendQueryParams(conn_, deallocate.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0))
      lost("query");
    ++sent_;
    prepared_.erase(prepared);
    prepared = prepared_.end();
  }
  auto in_flight = in_flight_.find(sql);
  if (prepared != prepared_.end()) {
    name = &prepared->second;
  } else if (in_flight != in_flight_.end()) {
    name = &in_flight->second;  // prepared ahead of this, in the same pipeline
  } else {
    // Prepared in the same round trip as its first run; remembered once
    // the server has answered that it has it.
    const Preparing& pending = preparing_.emplace_back(
        Preparing{sent_, sql, "statement_" + std::to_string(++statements_named_)});
    name = &in_flight_.insert_or_assign(sql, pending.name).first->second;
    if (!PQsendPrepare(conn_, name->c_str(), sql, 0, nullptr)) lost("prepare");
    ++sent_;
    if (replan) planned_at_[sql] = Clock::now();
  }
  std::vector<const char*> values = params.pointers();
  if (!PQsendQueryPrepared(conn_, name->c_str(), params.count(), values.data(), params.lengths(),
                           params.formats(), /*resultFormat=*/0))
    lost("query");
  ++sent_;
  ++statements_sent_;
}

Result Connection::run(const char* sql, const Params& params) {
  send_prepared(sql, params);
  return finish_pipeline("query");
}

Result Connection::run_replanned(const char* sql, const Params& params) {
  send_prepared(sql, params, /*replan=*/true);
  return finish_pipeline("query");
}

// A fiber parked inside a catch handler shares the thread's record of the
// exceptions being handled with the others (read_pipeline.cpp): refused
// before anything is sent, so that no answer is left for another unit.
void Connection::refuse_in_catch_handler() const {
  if (turns_ != nullptr && std::current_exception())
    throw StoreError("a statement was run in a catch handler inside a pipeline");
}

PipelineTurns* Connection::read_batch() const {
  return turns_ != nullptr && !turns_->one_transaction() ? turns_ : nullptr;
}

PipelineTurns* Connection::transaction_batch() const {
  return turns_ != nullptr && turns_->one_transaction() ? turns_ : nullptr;
}

// A statement sent ahead is answered with the next awaited one: in a read
// pipeline that would be the next read's answer, so reads may not. Units
// that share one transaction may: any failure undoes all of them.
void Connection::refuse_in_read_pipeline() const {
  if (read_batch() != nullptr) throw StoreError("a read sent a statement ahead of its answer");
}

void Connection::begin_write() {
  send_ahead("BEGIN READ WRITE");
  if (transaction_pooler_) send_ahead(kTransactionSettings, session_limits(timeout_));
}

void Connection::send_ahead(const char* sql, const Params& params) {
  refuse_in_read_pipeline();
  send_prepared(sql, params);
}

void Connection::send_ahead(const char* sql) {
  refuse_in_read_pipeline();
  send_plain(sql);
}

// An unnamed statement: parsed and planned for this one run.
void Connection::send_with_params(const char* sql, const Params& params) {
  refuse_in_catch_handler();
  std::vector<const char*> values = params.pointers();
  if (!PQsendQueryParams(conn_, sql, params.count(), nullptr, values.data(), params.lengths(),
                         params.formats(), /*resultFormat=*/0))
    lost("query");
  ++sent_;
  ++statements_sent_;
}

void Connection::send_plain(const char* sql) {
  refuse_in_catch_handler();
  if (!PQsendQueryParams(conn_, sql, 0, nullptr, nullptr, nullptr, nullptr, 0)) lost("query");
  ++sent_;
  ++statements_sent_;
}

void Connection::execute(const char* sql) {
  send_plain(sql);
  finish_pipeline("query");
}

void Connection::execute_script(const char* sql) {
  if (sent_ != 0) finish_pipeline("query");  // what was sent ahead goes first
  if (PQexitPipelineMode(conn_) != 1) lost("query");
  try {
    if (!PQsendQuery(conn_, sql)) lost("query");
    await_result("query");
  } catch (const BusyError&) {
    throw;  // broken: dropped, never reused
  } catch (...) {
    if (PQenterPipelineMode(conn_) != 1) broken_ = true;
    throw;
  }
  if (PQenterPipelineMode(conn_) != 1) lost("query");
}

bool Connection::still_open_while_idle() {
  if (broken_) return false;
  int fd = PQsocket(conn_);
  if (fd < 0) return false;
  // An idle session is sent nothing; whatever can be read now is the
  // server's goodbye (an error before it closed, or the end of the
  // stream), or the socket failed. A false alarm (a TLS session ticket not
  // read yet) costs one reconnect.
  pollfd descriptor{fd, POLLIN, 0};
  if (::poll(&descriptor, 1, 0) == 0) return true;
  broken_ = true;
  return false;
}

std::int64_t Connection::delete_until_none(const char* sql, const Params& params) {
  std::int64_t total = 0;
  for (std::int64_t deleted = run(sql, params).affected(); deleted > 0;
       deleted = run(sql, params).affected())
    total += deleted;
  return total;
}

}  // namespace authd::postgres
