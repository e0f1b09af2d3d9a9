#include "store/postgres/connection.hpp"

#include <libpq-fe.h>
#include <poll.h>
#include <sodium.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "core/log.hpp"
#include "store/store.hpp"

namespace authd::postgres {
namespace {

// SQLSTATEs that say "not now" rather than "wrong": the request gets a 503
// and may be retried. Classes 08 (connection), 53 (resources) and 57P
// (server shutting down or starting), serialization failures and
// deadlocks, a statement cancelled by statement_timeout, a lock not granted
// within lock_timeout, a session ended by idle_in_transaction_session_timeout,
// and a read-only server (a standby after a failover).
bool is_transient(std::string_view state) {
  return state.starts_with("08") || state.starts_with("53") || state.starts_with("57P") ||
         state == "40001" || state == "40P01" || state == "57014" || state == "55P03" ||
         state == "25P03" || state == "25006";
}

// The session's server-side limits, in libpq's "options" form. The lock
// wait gives up a little before the client's deadline, so that a request
// stuck behind a lock gets a clean error on a connection that stays usable.
std::string server_limits(std::chrono::milliseconds timeout) {
  auto ms = [](std::chrono::milliseconds d) {
    return std::to_string(std::max<long>(d.count(), 1));
  };
  return "-c statement_timeout=" + ms(timeout) + " -c lock_timeout=" + ms(timeout * 9 / 10) +
         " -c idle_in_transaction_session_timeout=" + ms(timeout) +
         // Result::digest reads BYTEA in the hex format, whatever the server's default.
         " -c bytea_output=hex";
}

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

// --- Params

Params& Params::add(std::optional<std::string> value, int format) {
  lengths_.push_back(value ? static_cast<int>(value->size()) : 0);
  formats_.push_back(format);
  values_.push_back(std::move(value));
  return *this;
}

Params& Params::text(std::string_view value) { return add(std::string(value), 0); }
Params& Params::text(const std::optional<std::string>& value) { return add(value, 0); }
Params& Params::integer(std::int64_t value) { return add(std::to_string(value), 0); }
Params& Params::integer(const std::optional<std::int64_t>& value) {
  return add(value ? std::optional<std::string>(std::to_string(*value)) : std::nullopt, 0);
}
Params& Params::boolean(bool value) { return add(value ? "true" : "false", 0); }
Params& Params::digest(const Sha256Digest& value) {
  return add(std::string(value.begin(), value.end()), 1);
}

std::vector<const char*> Params::pointers() const {
  std::vector<const char*> pointers;
  pointers.reserve(values_.size());
  for (const auto& value : values_) pointers.push_back(value ? value->data() : nullptr);
  return pointers;
}

// --- Result

Result::~Result() {
  if (result_) PQclear(result_);
}

Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_) PQclear(result_);
    result_ = other.result_;
    other.result_ = nullptr;
  }
  return *this;
}

int Result::rows() const { return PQntuples(result_); }

std::int64_t Result::affected() const {
  const char* text = PQcmdTuples(result_);
  std::int64_t count = 0;
  std::from_chars(text, text + std::strlen(text), count);
  return count;
}

bool Result::is_null(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }

std::string Result::text(int row, int column) const {
  return {PQgetvalue(result_, row, column),
          static_cast<std::size_t>(PQgetlength(result_, row, column))};
}

std::optional<std::string> Result::optional_text(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return text(row, column);
}

std::int64_t Result::integer(int row, int column) const {
  const char* text = PQgetvalue(result_, row, column);
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text, text + std::strlen(text), value);
  if (error != std::errc()) throw StoreError("not an integer in a result column");
  return value;
}

std::optional<std::int64_t> Result::optional_integer(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return integer(row, column);
}

bool Result::boolean(int row, int column) const {
  return std::strcmp(PQgetvalue(result_, row, column), "t") == 0;
}

Sha256Digest Result::digest(int row, int column) const {
  // BYTEA in the text format: "\x" then two hex digits a byte.
  std::string_view text(PQgetvalue(result_, row, column));
  Sha256Digest digest{};
  std::size_t length = 0;
  if (!text.starts_with("\\x") ||
      sodium_hex2bin(digest.data(), digest.size(), text.data() + 2, text.size() - 2, nullptr,
                     &length, nullptr) != 0 ||
      length != digest.size())
    throw StoreError("not a SHA-256 digest in a result column");
  return digest;
}

// --- Connection

Connection::Connection(const std::string& url, std::chrono::milliseconds timeout,
                       Clock::time_point deadline)
    : deadline_(deadline) {
  // Defaults first: settings in the URL itself win over them.
  std::string options = server_limits(timeout);
  const char* keys[] = {"application_name", "client_encoding", "options", "dbname", nullptr};
  const char* values[] = {"authd", "UTF8", options.c_str(), url.c_str(), nullptr};
  conn_ = PQconnectStartParams(keys, values, /*expand_dbname=*/1);
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
      throw TimedOutError(std::string(what) + ": no answer from the database in time");
    }
    pollfd descriptor{fd, events, 0};
    int ready = ::poll(&descriptor, 1, static_cast<int>(left.count()));
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR) lost(what);
  }
}

Result Connection::await_result(std::string_view what) {
  for (;;) {  // send what libpq has buffered
    int flushed = PQflush(conn_);
    if (flushed == 0) break;
    if (flushed < 0) lost(what);
    wait_socket(POLLIN | POLLOUT, what);
    if (!PQconsumeInput(conn_)) lost(what);
  }
  // Read every result of the command; keep the first error, else the last.
  // Owned by a Result at once, so that a throw while waiting frees it.
  Result owner(nullptr);
  PGresult* kept = nullptr;
  for (;;) {
    while (PQisBusy(conn_)) {
      wait_socket(POLLIN, what);
      if (!PQconsumeInput(conn_)) lost(what);
    }
    PGresult* next = PQgetResult(conn_);
    if (!next) break;
    if (kept && PQresultStatus(kept) == PGRES_FATAL_ERROR) {
      PQclear(next);
    } else {
      owner = Result(next);
      kept = next;
    }
  }
  if (!kept) lost(what);
  if (PQresultStatus(kept) != PGRES_FATAL_ERROR) return owner;

  // Only the SQLSTATE and the primary message: the detail may quote the
  // row's values (an e-mail), which must not reach a log.
  const char* state = PQresultErrorField(kept, PG_DIAG_SQLSTATE);
  std::string message = std::string(what) + ": " +
                        trimmed(PQresultErrorField(kept, PG_DIAG_MESSAGE_PRIMARY)) + " (SQLSTATE " +
                        (state ? state : "none") + ")";
  if (!state || PQstatus(conn_) == CONNECTION_BAD || std::string_view(state).starts_with("08") ||
      std::string_view(state).starts_with("57P"))
    broken_ = true;
  if (broken_ || is_transient(state)) throw BusyError(message);
  if (std::string_view(state) == "23505") throw UniqueViolation(message);
  throw StoreError(message);
}

Result Connection::run(const char* sql, const Params& params) {
  auto prepared = prepared_.find(sql);
  if (prepared == prepared_.end()) {
    std::string name = "statement_" + std::to_string(prepared_.size() + 1);
    if (!PQsendPrepare(conn_, name.c_str(), sql, 0, nullptr)) lost("prepare");
    await_result("prepare");
    prepared = prepared_.emplace(sql, std::move(name)).first;
  }
  std::vector<const char*> values = params.pointers();
  if (!PQsendQueryPrepared(conn_, prepared->second.c_str(), params.count(), values.data(),
                           params.lengths(), params.formats(), /*resultFormat=*/0))
    lost("query");
  return await_result("query");
}

void Connection::execute(const char* sql) {
  if (!PQsendQuery(conn_, sql)) lost("query");
  await_result("query");
}

}  // namespace authd::postgres
