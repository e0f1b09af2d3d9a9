// Test harness for integration tests: starts the real `authd` binary on an
// ephemeral port with a fresh database in a temporary directory, and talks
// real HTTP to it over loopback. Nothing here sleeps to wait for the server:
// it polls the port file, then /healthz.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace authd::test {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
  int status = 0;
  std::multimap<std::string, std::string> headers;  // names lowercased
  std::string body;
  bool keep_alive = true;

  std::string header(const std::string& name) const;  // first value or ""
  std::size_t header_count(const std::string& name) const;
  nlohmann::json json() const;  // throws if the body is not JSON
};

// One TCP connection to the server (keep-alive).
class HttpConnection {
 public:
  explicit HttpConnection(unsigned short port);
  // From `source_address` (any of 127.0.0.0/8 works on Linux): several
  // clients with addresses of their own, without a network.
  HttpConnection(unsigned short port, const std::string& source_address);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  HttpResponse request(const std::string& method, const std::string& target,
                       const Headers& headers = {}, const std::string& body = "");
  // Sends bytes as they are (for malformed or hostile requests).
  void send_raw(const std::string& bytes);
  // Reads one response; status 0 when the server closed the connection first.
  HttpResponse read_response();
  // True when the server has closed the connection (reads EOF or a reset).
  bool closed_by_server();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;  // freed even when the constructor throws
};

// One-shot helpers (a fresh connection per call).
HttpResponse send_request(unsigned short port, const std::string& method, const std::string& target,
                          const Headers& headers = {}, const std::string& body = "");
HttpResponse post_json(unsigned short port, const std::string& target, const std::string& body,
                       const Headers& extra_headers = {});
HttpResponse get_with_token(unsigned short port, const std::string& target,
                            const std::string& token);
HttpResponse post_with_token(unsigned short port, const std::string& target,
                             const std::string& token);
std::string login_body(const std::string& email, const std::string& password);

// The backend the integration tests run against. By default each server gets
// a fresh SQLite file; when AUTHD_TEST_POSTGRES names a PostgreSQL server
// (scripts/with-postgres.sh), each gets a fresh database there instead.
bool on_postgres();
// A fresh, empty PostgreSQL database on that server; its URL.
std::string fresh_postgres_database();
// Runs AUTHD_TEST_POSTGRES_CONTROL (pg_ctl) with `args`, e.g. {"restart",
// "-m", "immediate"}; fails the test when it fails.
void control_postgres(const std::vector<std::string>& args);

// On PostgreSQL no key file is made beside the database (interface.md
// 12.2): every server of a test process gets this one as its
// --secret-key-file (unless the test gives its own), as every instance of
// a deployment reads the same file. Made once per test process.
std::string postgres_secret_key_file();

// interface.md 14.1.4: fails the running test when an event of this
// server's database holds what looks like a password, token, hash, code or
// secret. Every AuthdProcess runs it when it ends, so the whole suite is
// scanned.
class AuthdProcess;
void expect_no_secret_in_events(const AuthdProcess& authd);

// First line of a test about the SQLite file itself (its mode, WAL, the
// backup command): skipped, with the reason, in the PostgreSQL run.
#define AUTHD_SQLITE_ONLY()         \
  if (::authd::test::on_postgres()) \
  GTEST_SKIP() << "about the SQLite file: not applicable on PostgreSQL"

// First line of a test that needs PostgreSQL (several instances on one
// database): skipped, with the reason, in the SQLite run.
#define AUTHD_POSTGRES_ONLY()        \
  if (!::authd::test::on_postgres()) \
  GTEST_SKIP() << "needs AUTHD_TEST_POSTGRES (scripts/with-postgres.sh)"

// A running `authd serve` with its own directory, database and mail folder.
class AuthdProcess {
 public:
  // `extra_args` are appended to `authd serve ...`; tests lower the argon2
  // cost only where the test is about something else than hashing.
  explicit AuthdProcess(std::vector<std::string> extra_args = {});
  // A server on an existing database (a second instance beside another).
  AuthdProcess(std::vector<std::string> extra_args, std::string database_url);
  ~AuthdProcess();
  AuthdProcess(const AuthdProcess&) = delete;
  AuthdProcess& operator=(const AuthdProcess&) = delete;

  unsigned short port() const { return port_; }
  // The management listener's port (/metrics, admin routes); 0 when off.
  unsigned short admin_port() const { return admin_port_; }
  const std::string& directory() const { return directory_; }
  std::string database_path() const { return directory_ + "/authd.db"; }  // SQLite only
  const std::string& database_url() const { return database_url_; }
  std::string mail_directory() const { return directory_ + "/mail"; }
  std::string log_text() const;  // everything authd wrote to stderr/stdout

  void start();      // (re)starts on the same directory and database
  void kill_hard();  // SIGKILL, as a crash would
  int stop();        // SIGTERM; returns the exit status
  void signal(int signo);
  int wait_exit();  // waits for the process; returns its exit status
  bool running() const { return pid_ > 0; }
  int pid() const { return pid_; }
  // The largest resident set the process has had so far (VmHWM), in KiB.
  long peak_rss_kib() const;

  // Runs `authd <args> --database <this server's database>` with `input` on stdin;
  // returns the exit code; stdout goes to `output` when given.
  int cli(std::vector<std::string> args, const std::string& input = "",
          std::string* output = nullptr) const;
  // The same, with standard output and standard error kept apart (for
  // commands whose stdout is read by scripts, such as `authd admin-key create`).
  int cli_streams(std::vector<std::string> args, const std::string& input, std::string* out,
                  std::string* err) const;
  // `authd user add` with the given password; fails the test if it fails.
  void add_user(const std::string& email, const std::string& password,
                std::vector<std::string> extra = {}) const;

  // Logs in and returns the bearer token (empty when login failed).
  std::string login(const std::string& email, const std::string& password) const;

  // The .eml files in the mail directory, oldest first (content).
  std::vector<std::string> mails() const;
  // Polls until at least `count` mails exist (bounded); returns them.
  std::vector<std::string> wait_for_mails(std::size_t count) const;

  // A one-off SQL query on the database (sqlite3 or psql, unaligned, "|"
  // between columns), for checking what is stored at rest. Returns its
  // output. Keep queries in the SQL both dialects share; hex(BLOB) works on
  // both (the test databases on PostgreSQL get a hex(bytea) function).
  std::string sql(const std::string& query) const;

 private:
  void wait_until_ready();
  int run_cli(std::vector<std::string> args, const std::string& input, std::string* out,
              std::string* err, bool separate) const;

  std::vector<std::string> extra_args_;
  std::string directory_;
  std::string database_url_;
  int pid_ = -1;
  unsigned short port_ = 0;
  unsigned short admin_port_ = 0;
};

// An SMTP receiver (tests/support/smtp_sink.py on Debian's aiosmtpd) in its
// own directory; every message it accepts becomes one .eml file there.
class SmtpSink {
 public:
  struct Options {
    unsigned short port = 0;                     // 0: any free port
    int fail_first = 0;                          // answer 451 to this many deliveries first
    std::vector<std::string> refuse_recipients;  // answer 550 to RCPT TO for these
    std::string auth;                            // "user:password": AUTH required
    std::string tls_cert;                        // PEM files: offer (and require) STARTTLS
    std::string tls_key;
    int delay_ms = 0;               // wait before answering each message
    double hold_reply_seconds = 0;  // store each message, then wait this long before the 250
  };
  explicit SmtpSink(Options options);
  SmtpSink() : SmtpSink(Options{}) {}
  ~SmtpSink();
  SmtpSink(const SmtpSink&) = delete;
  SmtpSink& operator=(const SmtpSink&) = delete;

  unsigned short port() const { return port_; }
  std::string url() const { return "smtp://127.0.0.1:" + std::to_string(port_); }
  // authd's arguments for delivering here (no STARTTLS: the sink has no TLS).
  std::vector<std::string> authd_args() const;

  std::vector<std::string> mails() const;  // oldest first
  // The most messages it ever had in progress at once (0: none yet).
  int max_concurrent() const;
  // Polls until at least `count` mails arrived (bounded); returns them.
  std::vector<std::string> wait_for_mails(std::size_t count) const;
  void stop();

 private:
  std::string directory_;
  int pid_ = -1;
  unsigned short port_ = 0;
};

// Another client of a server's database (the sqlite3 or psql shell) that
// holds a transaction open, and with it the locks that `sql` takes, until
// release(): a database that is briefly unavailable to authd, without
// touching the database server that other tests share. The constructor
// returns once the locks are held.
class HeldLock {
 public:
  HeldLock(const AuthdProcess& authd, const std::string& sql);
  ~HeldLock() { release(); }
  HeldLock(const HeldLock&) = delete;
  HeldLock& operator=(const HeldLock&) = delete;

  void release();  // rolls the transaction back and ends the client

  // Runs `sql` in the held transaction, as the next step of a writer that
  // holds the lock, and returns what the client printed for it (an error
  // such as "deadlock detected" included).
  std::string then(const std::string& sql);
  // The same in two halves, for a step that waits for a lock: start()
  // sends it, finish() waits for it to end and returns what it printed.
  void start(const std::string& sql);
  std::string finish();
  // PostgreSQL: the client's backend process id (asked while idle).
  std::string backend_pid();

 private:
  std::string output_path() const { return directory_ + "/client.out"; }

  std::string directory_;
  int input_ = -1;  // the client's standard input
  int pid_ = -1;
  int steps_ = 0;
  std::string pending_;  // the marker of the step started, before its output
  std::string pending_output_;
  bool sqlite_ = false;
};

// PostgreSQL: polls (bounded) until a backend of the server's database
// waits for a lock that `held` holds; false if none came to.
bool waits_for(const AuthdProcess& authd, HeldLock& held);
// PostgreSQL: polls (bounded) until the backend `pid` waits for a lock.
bool waits_for_a_lock(const AuthdProcess& authd, const std::string& pid);

// PostgreSQL (interface.md 8.2): plays another writer. Takes `first_lock`
// in a transaction, lets `request` start and waits until it waits for that
// lock, then runs `next_step` in the same transaction and commits. Returns
// the request's answer. Fails the test when `next_step` met a deadlock:
// the request held what `next_step` needs while it waited for `first_lock`.
HttpResponse answer_beside_a_writer(const AuthdProcess& authd, const std::string& first_lock,
                                    const std::string& next_step,
                                    const std::function<HttpResponse()>& request);

// PostgreSQL (interface.md 8.2): plays an account's change, as a password
// change, a reset, disabling or erasing an account runs it: locks the row
// of `user_id`, lets `request` start and waits until it waits for that lock,
// then deletes the user's rows of `table` in the same transaction and
// commits. Returns the request's answer. Fails the test when the delete
// met a deadlock: the request held a row of `table` while it waited for the
// user's (PostgreSQL then ends one of the two, a second later).
HttpResponse answer_beside_an_account_change(const AuthdProcess& authd, const std::string& user_id,
                                             const std::string& table,
                                             const std::function<HttpResponse()>& request);

// PostgreSQL (interface.md 8.2): plays an account's change against the
// outbox worker: locks the row of `user_id`, runs `queue_mail` (a request
// that queues a mail to `email`), waits until the worker's claim took that
// mail (it then waits for the held account, or has given the mail back:
// the debug line `mails_held_back`, so authd runs with --log-level debug),
// deletes the mails to `email` in the same transaction, as an erasure
// does, and commits. Returns what the client printed for the
// delete ("ERROR: deadlock detected" when it lost a deadlock).
std::string mails_deleted_beside_a_claim(const AuthdProcess& authd, const std::string& user_id,
                                         const std::string& email,
                                         const std::function<void()>& queue_mail);

// A TCP port on 127.0.0.1 held by a socket that is bound but not listening:
// connections to it are refused, and no other process can take it until
// release(), which is called just before a server is started on it.
class ReservedPort {
 public:
  ReservedPort();
  ~ReservedPort() { release(); }
  ReservedPort(const ReservedPort&) = delete;
  ReservedPort& operator=(const ReservedPort&) = delete;

  unsigned short port() const { return port_; }
  void release();

 private:
  int fd_ = -1;
  unsigned short port_ = 0;
};

// The value of an unlabelled sample (a counter or gauge) of the management
// listener's /metrics; -1 when absent.
double metric(const AuthdProcess& authd, const std::string& name);

// Every complete line of a server's log, parsed (each must be JSON). A last
// line still being written (no newline yet) is left for the next read.
std::vector<nlohmann::json> log_lines(const AuthdProcess& authd);

// Arguments that make hashing cheap, for tests that are not about hashing.
std::vector<std::string> fast_hashing();

}  // namespace authd::test
