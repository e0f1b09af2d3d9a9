// interface.md sections 8 (storage) and 9 (operations): the database file,
// migrations, configuration, structured request logs without secrets, and a
// graceful drain on SIGTERM/SIGINT.
#include <signal.h>
#include <sys/stat.h>

#include <future>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace authd::test {
namespace {

std::vector<nlohmann::json> request_lines(const AuthdProcess& authd) {
  std::vector<nlohmann::json> requests;
  for (auto& line : log_lines(authd)) {
    if (line.value("event", "") == "request") requests.push_back(line);
  }
  return requests;
}

// Polls the log (bounded) until `event` appears (with `method`, when one is
// given); true when it did.
bool wait_for_log_event(const AuthdProcess& authd, const std::string& event,
                        const std::string& method = "") {
  for (int i = 0; i < 500; ++i) {
    for (auto& line : log_lines(authd)) {
      if (line.value("event", "") == event &&
          (method.empty() || line.value("method", "") == method))
        return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// 8.1: created on first start, and not readable by other users.
TEST(Storage, DatabaseFileIsCreatedOnFirstStartWithMode0600) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(fast_hashing());
  struct stat info {};
  ASSERT_EQ(::stat(authd.database_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
}

// 8.3: WAL with synchronous=FULL is set per connection; WAL shows on disk.
TEST(Storage, DatabaseRunsInWalMode) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(fast_hashing());
  EXPECT_EQ(authd.sql("PRAGMA journal_mode;"), "wal\n");
}

// 8.4: versioned migrations, applied at start and by `authd migrate`,
// idempotent.
TEST(Storage, MigrationsAreVersionedAndIdempotent) {
  AuthdProcess authd(fast_hashing());
  // Versions 1 to N, each once.
  const std::string applied = authd.sql("SELECT count(*) FROM schema_migrations;");
  EXPECT_NE(applied, "0\n");
  EXPECT_EQ(authd.sql("SELECT max(version) FROM schema_migrations;"), applied);
  std::string output;
  EXPECT_EQ(authd.cli({"migrate"}, "", &output), 0) << output;
  EXPECT_EQ(authd.cli({"migrate"}, "", &output), 0) << output;
  EXPECT_EQ(authd.sql("SELECT count(*) FROM schema_migrations;"), applied);
}

// 9.1: every option is documented by `authd serve --help`, with its
// environment variable.
TEST(Configuration, ServeHelpDocumentsEveryOptionWithItsEnvironmentVariable) {
  AuthdProcess authd(fast_hashing());
  std::string help;
  ASSERT_EQ(authd.cli({"serve", "--help"}, "", &help), 0);
  for (const char* option : {"--listen",
                             "--database",
                             "--public-url",
                             "--mail-transport",
                             "--mail-dir",
                             "--mail-from",
                             "--session-lifetime",
                             "--reset-token-lifetime",
                             "--argon2-memory-kib",
                             "--argon2-iterations",
                             "--hash-workers",
                             "--hash-queue",
                             "--login-email-limit",
                             "--login-client-limit",
                             "--forgot-client-limit",
                             "--reset-mail-limit-short",
                             "--reset-mail-limit-long",
                             "--max-body-bytes",
                             "--header-timeout",
                             "--idle-timeout",
                             "--log-level"}) {
    EXPECT_NE(help.find(option), std::string::npos) << option;
  }
  for (const char* env :
       {"AUTHD_LISTEN", "AUTHD_DATABASE", "AUTHD_PUBLIC_URL", "AUTHD_SESSION_LIFETIME",
        "AUTHD_HASH_QUEUE", "AUTHD_LOGIN_EMAIL_LIMIT"}) {
    EXPECT_NE(help.find(env), std::string::npos) << env;
  }
}

// 9.1: flags are validated; a bad value is an error that names the option.
TEST(Configuration, InvalidOptionValueIsRejectedNamingTheOption) {
  AuthdProcess authd(fast_hashing());
  std::string output;
  EXPECT_NE(authd.cli({"serve", "--session-lifetime", "forever"}, "", &output), 0);
  EXPECT_NE(output.find("--session-lifetime"), std::string::npos) << output;
}

// 9.1: flags win over AUTHD_* variables, also for the options that several
// subcommands share (CLI11 reads the environment for every subcommand).
TEST(Configuration, FlagsWinOverEnvironmentVariables) {
  AuthdProcess authd(fast_hashing());
  ::setenv("AUTHD_LOG_LEVEL", "error", 1);
  std::string output;
  int code = authd.cli({"migrate", "--log-level", "info"}, "", &output);
  ::unsetenv("AUTHD_LOG_LEVEL");
  EXPECT_EQ(code, 0) << output;
  EXPECT_NE(output.find("\"migrated\""), std::string::npos) << "the environment beat the flag";
}

// 9.1: the environment is used when no flag is given.
TEST(Configuration, EnvironmentVariableAppliesWithoutFlag) {
  AuthdProcess authd(fast_hashing());
  ::setenv("AUTHD_LOG_LEVEL", "warn", 1);
  std::string output;
  int code = authd.cli({"migrate"}, "", &output);  // logs "migrated" at info level
  ::unsetenv("AUTHD_LOG_LEVEL");
  EXPECT_EQ(code, 0) << output;
  EXPECT_EQ(output.find("migrated"), std::string::npos) << output;
}

// The request line logged for `request_id`, polling (bounded): a line is
// written just after its response is sent.
nlohmann::json request_line(const AuthdProcess& authd, const std::string& request_id) {
  for (int i = 0; i < 500; ++i) {
    for (auto& line : request_lines(authd)) {
      if (line.value("request_id", "") == request_id) return line;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return nullptr;
}

// 9.2: one structured line per request with method, route, status,
// latency, request id and client address.
TEST(Logging, OneStructuredLinePerRequest) {
  AuthdProcess authd(fast_hashing());
  send_request(authd.port(), "GET", "/healthz", {{"X-Request-Id", "probe-1"}});
  post_json(authd.port(), "/login", login_body("nobody@example.com", "whatever"),
            {{"X-Request-Id", "probe-2"}});
  send_request(authd.port(), "GET", "/nowhere?secret=1", {{"X-Request-Id", "probe-3"}});

  nlohmann::json login = request_line(authd, "probe-2");
  ASSERT_TRUE(login.is_object()) << authd.log_text();
  EXPECT_EQ(login["method"], "POST");
  EXPECT_EQ(login["route"], "/login");
  EXPECT_EQ(login["status"], 401);
  EXPECT_TRUE(login["latency_ms"].is_number());
  EXPECT_EQ(login["client"], "127.0.0.1");
  EXPECT_EQ(request_line(authd, "probe-1")["route"], "/healthz");
  // The route, never the raw target (which may carry anything).
  EXPECT_EQ(request_line(authd, "probe-3")["route"], "unmatched");
  EXPECT_EQ(authd.log_text().find("secret=1"), std::string::npos);
  // Exactly one line per request.
  std::size_t probe_lines = 0;
  for (auto& line : request_lines(authd)) {
    if (line.value("request_id", "").rfind("probe-", 0) == 0) ++probe_lines;
  }
  EXPECT_EQ(probe_lines, 3u);
}

// 9.2: never a password or a token, and e-mails masked, even at debug level.
TEST(Logging, NoPasswordTokenHashOrPlainEmailInLogs) {
  AuthdProcess authd([] {
    auto args = fast_hashing();
    args.insert(args.end(), {"--log-level", "debug"});
    return args;
  }());
  const std::string password = "Very-Secret-Passphrase-42";
  authd.add_user("carol@example.com", password);
  post_json(authd.port(), "/login", login_body("carol@example.com", "Wrong-Guess-Passphrase"));
  std::string token = authd.login("carol@example.com", password);
  ASSERT_FALSE(token.empty());
  get_with_token(authd.port(), "/me", token);
  post_json(authd.port(), "/forgot", R"({"email":"carol@example.com"})");
  std::string mail = authd.wait_for_mails(1).at(0);
  send_request(authd.port(), "POST", "/logout",
               {{"Authorization", "Bearer " + token}, {"X-Request-Id", "last-request"}});
  // Read the log once the last lines are surely written.
  ASSERT_TRUE(wait_for_log_event(authd, "mail_sent"));
  ASSERT_TRUE(request_line(authd, "last-request").is_object());

  std::string log = authd.log_text();
  EXPECT_EQ(log.find(password), std::string::npos);
  EXPECT_EQ(log.find("Wrong-Guess-Passphrase"), std::string::npos);
  EXPECT_EQ(log.find(token), std::string::npos);
  EXPECT_EQ(log.find("authd_"), std::string::npos);
  EXPECT_EQ(log.find("authdrt_"), std::string::npos);
  EXPECT_EQ(log.find("$argon2"), std::string::npos);
  EXPECT_EQ(log.find("carol@example.com"), std::string::npos);
  EXPECT_NE(log.find("c***@example.com"), std::string::npos);  // masked form is there
  // The reset token exists only in the mail itself.
  std::smatch link;
  ASSERT_TRUE(std::regex_search(mail, link, std::regex("token=(authdrt_[A-Za-z0-9_-]+)")));
  EXPECT_EQ(log.find(link[1].str()), std::string::npos);
}

// 9.3: SIGTERM drains: idle connections are closed, the process exits 0.
TEST(Lifecycle, SigtermWithIdleKeepAliveConnectionExitsCleanly) {
  AuthdProcess authd(fast_hashing());
  HttpConnection idle(authd.port());
  EXPECT_EQ(idle.request("GET", "/healthz").status, 200);  // now idle, kept alive
  authd.signal(SIGTERM);
  EXPECT_TRUE(idle.closed_by_server());
  EXPECT_EQ(authd.wait_exit(), 0);
}

// 9.3: a login in flight when SIGTERM arrives still completes with 200;
// connections made after the drain started are refused.
TEST(Lifecycle, SigtermLetsInFlightLoginFinishThenRefusesNewConnections) {
  // Slow hashing makes the login reliably still in flight at the signal.
  AuthdProcess authd({"--log-level", "debug", "--argon2-memory-kib", "65536", "--argon2-iterations",
                      "8", "--hash-workers", "1"});
  authd.add_user("dave@example.com", "correct horse battery staple");
  HttpConnection in_flight(authd.port());
  std::string body = login_body("dave@example.com", "correct horse battery staple");
  in_flight.send_raw(
      "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body);
  // The login, not the harness's /healthz probe, must be in flight.
  ASSERT_TRUE(wait_for_log_event(authd, "request_started", "POST"));
  authd.signal(SIGTERM);
  ASSERT_TRUE(wait_for_log_event(authd, "draining"));

  HttpResponse response = in_flight.read_response();
  EXPECT_EQ(response.status, 200);
  EXPECT_FALSE(response.header("Authorization").empty());
  EXPECT_FALSE(response.keep_alive);  // Connection: close while draining
  EXPECT_EQ(authd.wait_exit(), 0);
  EXPECT_THROW(HttpConnection late(authd.port()), std::exception);
}

// 9.3: SIGINT drains like SIGTERM.
TEST(Lifecycle, SigintDrainsLikeSigterm) {
  AuthdProcess authd(fast_hashing());
  authd.signal(SIGINT);
  EXPECT_EQ(authd.wait_exit(), 0);
}

}  // namespace
}  // namespace authd::test
