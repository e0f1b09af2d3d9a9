#include "harness.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "http_message.hpp"
#include "source_paths.hpp"
#include "tls_client.hpp"

namespace authd::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// Polls `ready` every 20 ms for at most `limit`; true when it became true.
template <class Predicate>
bool poll(Predicate ready, std::chrono::milliseconds limit = std::chrono::seconds(15)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ready();
}

// fork + exec with stdin from `input_fd` (or /dev/null) and stdout/stderr
// to `output_path` (appended); stderr to `error_path` instead when given.
int spawn(const std::vector<std::string>& args, const std::string& output_path, int input_fd,
          const std::string& cwd, const std::string& error_path = "") {
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    int err =
        error_path.empty() ? out : ::open(error_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    int in = input_fd >= 0 ? input_fd : ::open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int exit_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// The contents of the .eml files of a directory, in name order.
std::vector<std::string> eml_files_in(const std::string& directory) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    if (entry.path().extension() == ".eml") names.push_back(entry.path().string());
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> contents;
  for (const auto& name : names) contents.push_back(read_file(name));
  return contents;
}

std::string make_temporary_directory() {
  char pattern[] = "/tmp/authd-test-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

void remove_unless_kept(const std::string& directory) {
  if (std::getenv("AUTHD_KEEP_TEST_DIRS") != nullptr) return;
  std::error_code ec;
  std::filesystem::remove_all(directory, ec);
}

}  // namespace

HttpResponse convert(WireResponse& res) {
  HttpResponse out;
  out.status = static_cast<int>(res.result_int());
  for (const auto& field : res) {
    out.headers.emplace(lower(std::string(field.name_string())), std::string(field.value()));
  }
  out.body = res.body();
  out.keep_alive = res.keep_alive();
  return out;
}

WireRequest make_request(const std::string& method, const std::string& target,
                         const Headers& headers, const std::string& body) {
  WireRequest req;
  req.method_string(method);
  req.target(target);
  req.version(11);
  req.set(http::field::host, "127.0.0.1");
  for (const auto& [name, value] : headers) req.insert(name, value);
  if (!body.empty() || method == "POST") {
    req.body() = body;
    req.prepare_payload();
  }
  return req;
}

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(lower(name));
  return it == headers.end() ? "" : it->second;
}

std::size_t HttpResponse::header_count(const std::string& name) const {
  return headers.count(lower(name));
}

nlohmann::json HttpResponse::json() const { return nlohmann::json::parse(body); }

struct HttpConnection::Impl {
  asio::io_context io;
  tcp::socket socket{io};
  beast::flat_buffer buffer;
};

HttpConnection::HttpConnection(unsigned short port) : impl_(std::make_unique<Impl>()) {
  impl_->socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
}

HttpConnection::HttpConnection(unsigned short port, const std::string& source_address)
    : impl_(std::make_unique<Impl>()) {
  impl_->socket.open(tcp::v4());
  impl_->socket.bind(tcp::endpoint(asio::ip::make_address(source_address), 0));
  impl_->socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
}

HttpConnection::~HttpConnection() = default;

void HttpConnection::send_raw(const std::string& bytes) {
  asio::write(impl_->socket, asio::buffer(bytes));
}

HttpResponse HttpConnection::read_response() {
  http::response_parser<http::string_body> parser;
  parser.body_limit(1 << 20);
  boost::system::error_code ec;
  http::read(impl_->socket, impl_->buffer, parser, ec);
  if (ec) return HttpResponse{};  // status 0: closed or broken
  return convert(parser.get());
}

HttpResponse HttpConnection::request(const std::string& method, const std::string& target,
                                     const Headers& headers, const std::string& body) {
  http::write(impl_->socket, make_request(method, target, headers, body));
  return read_response();
}

bool HttpConnection::closed_by_server() {
  char byte;
  boost::system::error_code ec;
  if (impl_->buffer.size() > 0) return false;
  impl_->socket.read_some(asio::buffer(&byte, 1), ec);
  return ec == asio::error::eof || ec == asio::error::connection_reset;
}

HttpResponse send_request(unsigned short port, const std::string& method, const std::string& target,
                          const Headers& headers, const std::string& body) {
  HttpConnection connection(port);
  return connection.request(method, target, headers, body);
}

HttpResponse post_json(unsigned short port, const std::string& target, const std::string& body,
                       const Headers& extra_headers) {
  Headers headers = {{"Content-Type", "application/json"}};
  headers.insert(headers.end(), extra_headers.begin(), extra_headers.end());
  return send_request(port, "POST", target, headers, body);
}

HttpResponse get_with_token(unsigned short port, const std::string& target,
                            const std::string& token) {
  return send_request(port, "GET", target, {{"Authorization", "Bearer " + token}});
}

HttpResponse post_with_token(unsigned short port, const std::string& target,
                             const std::string& token) {
  return send_request(port, "POST", target, {{"Authorization", "Bearer " + token}});
}

std::string login_body(const std::string& email, const std::string& password) {
  return nlohmann::json{{"email", email}, {"password", password}}.dump();
}

std::vector<std::string> fast_hashing() {
  return {"--argon2-memory-kib", "64", "--argon2-iterations", "1"};
}

bool on_postgres() {
  const char* server = std::getenv("AUTHD_TEST_POSTGRES");
  return server != nullptr && *server != '\0';
}

namespace {

// Runs a program to completion with its output in `output_path`; its exit status.
int run_to_end(const std::vector<std::string>& args, const std::string& output_path) {
  int pid = spawn(args, output_path, -1, "");
  int status = 0;
  waitpid(pid, &status, 0);
  return exit_status(status);
}

void psql(const std::string& database_url, const std::string& sql) {
  std::string log = make_temporary_directory();
  int code = run_to_end(
      {"/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database_url, "-c", sql},
      log + "/psql.out");
  std::string output = read_file(log + "/psql.out");
  remove_unless_kept(log);
  if (code != 0) throw std::runtime_error("psql failed: " + output);
}

}  // namespace

std::string fresh_postgres_database() {
  const std::string server = std::getenv("AUTHD_TEST_POSTGRES");
  // Unique across the test processes that ctest runs in parallel.
  // Not "authd_": the tests look for that prefix (a token's) in logs.
  std::string name = "authdtest_" + std::to_string(::getpid()) + "_" +
                     std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  psql(server + "/postgres", "CREATE DATABASE " + name);
  std::string url = server + "/" + name;
  // SQLite's hex(), so that the tests' queries read the same on both.
  psql(url,
       "CREATE FUNCTION hex(bytea) RETURNS text LANGUAGE sql IMMUTABLE "
       "AS $$ SELECT upper(encode($1, 'hex')) $$");
  return url;
}

void control_postgres(const std::vector<std::string>& args) {
  const char* control = std::getenv("AUTHD_TEST_POSTGRES_CONTROL");
  if (control == nullptr) throw std::runtime_error("AUTHD_TEST_POSTGRES_CONTROL is not set");
  std::vector<std::string> argv = {"/bin/bash", control};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string log = make_temporary_directory();
  int code = run_to_end(argv, log + "/control.out");
  std::string output = read_file(log + "/control.out");
  remove_unless_kept(log);
  if (code != 0) throw std::runtime_error("pg_ctl failed: " + output);
}

AuthdProcess::AuthdProcess(std::vector<std::string> extra_args)
    : extra_args_(std::move(extra_args)), directory_(make_temporary_directory()) {
  database_url_ = on_postgres() ? fresh_postgres_database() : "sqlite:" + database_path();
  start();
}

AuthdProcess::AuthdProcess(std::vector<std::string> extra_args, std::string database_url)
    : extra_args_(std::move(extra_args)),
      directory_(make_temporary_directory()),
      database_url_(std::move(database_url)) {
  start();
}

// interface.md 14.1.4 over the whole suite: whatever a test did, no event
// it left (and so no webhook body, which is an event as GET /admin/events
// shows it) holds a password, token, hash, code or secret.
void expect_no_secret_in_events(const AuthdProcess& authd) {
  std::string events = authd.sql(
      "select type || ' ' || actor || ' ' || coalesce(user_agent, '') || ' ' || detail "
      "from events");
  static const std::regex kSecret(
      R"(\$argon2|\$2[aby]\$|\$pbkdf2|\$scrypt|\$[156]\$|authd_|authdrt_|authdsu_|authdsi_|)"
      R"(authdak_|whsec_|otpauth:|"\d{6}"|"\d{8}"|[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}|)"
      R"(correct horse battery staple|a brand new passphrase)");
  std::smatch found;
  if (std::regex_search(events, found, kSecret))
    ADD_FAILURE() << "an event holds what looks like a secret (" << found.str() << "):\n" << events;
}

AuthdProcess::~AuthdProcess() {
  if (!database_url_.empty()) {
    try {
      expect_no_secret_in_events(*this);
    } catch (const std::exception&) {
      // A database the test removed or broke on purpose has nothing to scan.
    }
  }
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  remove_unless_kept(directory_);
}

std::string postgres_secret_key_file() {
  static const std::string path = [] {
    std::string directory = make_temporary_directory();
    std::string file = directory + "/secret.key";
    std::string command = "umask 077 && openssl rand -hex 32 > " + file;
    if (std::system(command.c_str()) != 0) throw std::runtime_error("openssl rand failed");
    return file;
  }();
  return path;
}

void AuthdProcess::start() {
  std::string port_file = directory_ + "/port";
  std::string admin_port_file = directory_ + "/admin_port";
  std::filesystem::remove(port_file);
  std::filesystem::remove(admin_port_file);
  std::vector<std::string> args = {authd_binary(), "serve",         "--listen",   "127.0.0.1:0",
                                   "--port-file",  port_file,       "--database", database_url_,
                                   "--mail-dir",   mail_directory()};
  // The public URL, unless the test sets its own (--oidc on refuses an
  // http:// one that is not loopback: interface.md 17.2).
  if (std::find(extra_args_.begin(), extra_args_.end(), "--public-url") == extra_args_.end())
    args.insert(args.end(), {"--public-url", "http://authd.test"});
  // The management listener on a free port too, unless the test sets it.
  if (std::find(extra_args_.begin(), extra_args_.end(), "--admin-listen") == extra_args_.end())
    args.insert(args.end(),
                {"--admin-listen", "127.0.0.1:0", "--admin-port-file", admin_port_file});
  if (on_postgres() &&
      std::find(extra_args_.begin(), extra_args_.end(), "--secret-key-file") == extra_args_.end())
    args.insert(args.end(), {"--secret-key-file", postgres_secret_key_file()});
  args.insert(args.end(), extra_args_.begin(), extra_args_.end());
  pid_ = spawn(args, directory_ + "/authd.log", -1, directory_);
  wait_until_ready();
}

long AuthdProcess::peak_rss_kib() const {
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  ADD_FAILURE() << "no VmHWM for pid " << pid_;
  return 0;
}

void AuthdProcess::wait_until_ready() {
  std::string port_file = directory_ + "/port";
  // A start measures the login floor with the server's own argon2 settings
  // before it listens: with the shutdown tests' slow hashes (64 MiB, 40
  // passes) that alone took 8 to 11 s on 2 busy cores. The wait ends as
  // soon as the port is written, so a longer limit costs nothing then.
  constexpr std::chrono::seconds kStartLimit{60};
  bool has_port = poll(
      [&] {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          pid_ = -1;
          throw std::runtime_error("authd exited at start:\n" + log_text());
        }
        std::string text = read_file(port_file);
        if (text.empty() || text.back() != '\n') return false;
        port_ = static_cast<unsigned short>(std::stoi(text));
        return true;
      },
      kStartLimit);
  if (!has_port) throw std::runtime_error("authd did not start:\n" + log_text());
  // Written before the public one, when the management listener is on.
  std::string admin_port = read_file(directory_ + "/admin_port");
  admin_port_ = admin_port.empty() ? 0 : static_cast<unsigned short>(std::stoi(admin_port));
  // Behind the PROXY protocol (interface.md 13.2) the public listener
  // answers only connections that start with its header: ask the
  // management listener, which never takes one.
  bool proxied =
      std::find(extra_args_.begin(), extra_args_.end(), "--proxy-protocol") != extra_args_.end();
  unsigned short health_port = proxied && admin_port_ != 0 ? admin_port_ : port_;
  // interface.md 13.3: with a certificate both listeners speak HTTPS only.
  bool https = std::find(extra_args_.begin(), extra_args_.end(), "--tls-cert") != extra_args_.end();
  bool healthy = poll([&] {
    try {
      if (https) return TlsConnection(health_port).request("GET", "/healthz").status == 200;
      return send_request(health_port, "GET", "/healthz").status == 200;
    } catch (const std::exception&) {
      return false;
    }
  });
  if (!healthy) throw std::runtime_error("authd never became healthy:\n" + log_text());
}

std::string AuthdProcess::log_text() const { return read_file(directory_ + "/authd.log"); }

double metric(const AuthdProcess& authd, const std::string& name) {
  std::istringstream lines(send_request(authd.admin_port(), "GET", "/metrics").body);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  return -1;
}

std::vector<nlohmann::json> log_lines(const AuthdProcess& authd) {
  std::vector<nlohmann::json> lines;
  std::string text = authd.log_text();
  text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));  // every line is JSON
  }
  return lines;
}

void AuthdProcess::kill_hard() {
  signal(SIGKILL);
  wait_exit();
}

void AuthdProcess::signal(int signo) {
  if (pid_ > 0) ::kill(pid_, signo);
}

int AuthdProcess::wait_exit() {
  if (pid_ <= 0) return -1;
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return exit_status(status);
}

int AuthdProcess::stop() {
  signal(SIGTERM);
  return wait_exit();
}

int AuthdProcess::cli(std::vector<std::string> args, const std::string& input,
                      std::string* output) const {
  return run_cli(std::move(args), input, output, nullptr, false);
}

int AuthdProcess::cli_streams(std::vector<std::string> args, const std::string& input,
                              std::string* out, std::string* err) const {
  return run_cli(std::move(args), input, out, err, true);
}

int AuthdProcess::run_cli(std::vector<std::string> args, const std::string& input, std::string* out,
                          std::string* err, bool separate) const {
  std::vector<std::string> argv = {authd_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--database");
  argv.push_back(database_url_);
  std::string input_path = directory_ + "/cli.in";
  {
    std::ofstream in(input_path, std::ios::trunc | std::ios::binary);
    in << input;
  }
  ::chmod(input_path.c_str(), 0600);
  std::string output_path = directory_ + "/cli.out";
  std::string error_path = separate ? directory_ + "/cli.err" : "";
  std::filesystem::remove(output_path);
  if (separate) std::filesystem::remove(error_path);
  int input_fd = ::open(input_path.c_str(), O_RDONLY);
  int pid = spawn(argv, output_path, input_fd, directory_, error_path);
  ::close(input_fd);
  int status = 0;
  waitpid(pid, &status, 0);
  std::filesystem::remove(input_path);
  if (out) *out = read_file(output_path);
  if (err && separate) *err = read_file(error_path);
  return exit_status(status);
}

void AuthdProcess::add_user(const std::string& email, const std::string& password,
                            std::vector<std::string> extra) const {
  std::vector<std::string> args = {"user", "add", "--email", email};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<std::string> hashing = fast_hashing();
  // The user's hash is made with the server's parameters when the server
  // runs with fast hashing, so that logins do not trigger a re-hash.
  if (std::find(extra_args_.begin(), extra_args_.end(), "--argon2-memory-kib") != extra_args_.end())
    args.insert(args.end(), hashing.begin(), hashing.end());
  std::string output;
  int code = cli(args, password, &output);
  if (code != 0) throw std::runtime_error("user add failed: " + output);
}

std::string AuthdProcess::login(const std::string& email, const std::string& password) const {
  HttpResponse res = post_json(port_, "/login", login_body(email, password));
  if (res.status != 200) return "";
  std::string value = res.header("Authorization");
  const std::string prefix = "Bearer ";
  return value.rfind(prefix, 0) == 0 ? value.substr(prefix.size()) : "";
}

std::vector<std::string> AuthdProcess::mails() const { return eml_files_in(mail_directory()); }

std::vector<std::string> AuthdProcess::wait_for_mails(std::size_t count) const {
  poll([&] { return mails().size() >= count; });
  return mails();
}

std::string AuthdProcess::sql(const std::string& query) const {
  std::string output_path = directory_ + "/sql.out";
  std::filesystem::remove(output_path);
  if (database_url_.rfind("sqlite:", 0) == 0) {
    // The URL's file: a server started on another's database has none of its own.
    // The shell waits for a lock rather than fail at once: authd's writer
    // (a request, the pruner, the event indexer) may hold it just then.
    run_to_end({"/usr/bin/sqlite3", "-cmd", ".timeout 5000", database_url_.substr(7), query},
               output_path);
  } else {
    run_to_end({"/usr/bin/psql", "-X", "-A", "-t", "-q", "-d", database_url_, "-c", query},
               output_path);
  }
  return read_file(output_path);
}

SmtpSink::SmtpSink(Options options) : directory_(make_temporary_directory()) {
  std::string port_file = directory_ + "/port";
  std::vector<std::string> args = {"/usr/bin/python3", source_path("tests/support/smtp_sink.py"),
                                   "--mail-dir",       directory_ + "/mail",
                                   "--port-file",      port_file,
                                   "--port",           std::to_string(options.port),
                                   "--fail-first",     std::to_string(options.fail_first)};
  if (!options.auth.empty()) args.insert(args.end(), {"--auth", options.auth});
  for (const std::string& address : options.refuse_recipients)
    args.insert(args.end(), {"--refuse-recipient", address});
  if (!options.tls_cert.empty())
    args.insert(args.end(), {"--tls-cert", options.tls_cert, "--tls-key", options.tls_key});
  if (options.delay_ms > 0)
    args.insert(args.end(), {"--delay-ms", std::to_string(options.delay_ms)});
  if (options.hold_reply_seconds > 0)
    args.insert(args.end(), {"--hold-reply", std::to_string(options.hold_reply_seconds)});
  pid_ = spawn(args, directory_ + "/sink.log", -1, "");
  bool ready = poll([&] {
    std::string text = read_file(port_file);
    if (text.empty() || text.back() != '\n') return false;
    port_ = static_cast<unsigned short>(std::stoi(text));
    return true;
  });
  if (!ready) {
    stop();
    throw std::runtime_error("the SMTP sink did not start:\n" +
                             read_file(directory_ + "/sink.log"));
  }
}

int SmtpSink::max_concurrent() const {
  std::string text = read_file(directory_ + "/max-concurrent");
  return text.empty() ? 0 : std::stoi(text);
}

SmtpSink::~SmtpSink() {
  stop();
  remove_unless_kept(directory_);
}

void SmtpSink::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::vector<std::string> SmtpSink::authd_args() const {
  return {"--mail-transport", "smtp", "--smtp-url", url(), "--smtp-starttls", "off"};
}

std::vector<std::string> SmtpSink::mails() const { return eml_files_in(directory_ + "/mail"); }

std::vector<std::string> SmtpSink::wait_for_mails(std::size_t count) const {
  poll([&] { return mails().size() >= count; });
  return mails();
}

HeldLock::HeldLock(const AuthdProcess& authd, const std::string& sql)
    : directory_(make_temporary_directory()) {
  ::signal(SIGPIPE, SIG_IGN);  // a client that died must fail the test, not kill it
  int fds[2];
  // Close-on-exec: the client must see end-of-file once we close our end.
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  input_ = fds[1];
  const std::string& url = authd.database_url();
  std::vector<std::string> args;
  std::string script;
  if (url.rfind("sqlite:", 0) == 0) {
    // The shell waits for a lock (authd's writer may hold it for a batch).
    args = {"/usr/bin/sqlite3", url.substr(7)};
    script = ".timeout 5000\n" + sql + ";\n.print HELD\n";
    sqlite_ = true;
  } else {
    args = {"/usr/bin/psql", "-X", "-q", "-d", url};
    script = sql + ";\n\\echo HELD\n";
  }
  std::string output = output_path();
  pid_ = spawn(args, output, fds[0], "");
  ::close(fds[0]);
  if (::write(input_, script.data(), script.size()) != static_cast<ssize_t>(script.size()))
    throw std::runtime_error("cannot talk to the database client");
  if (!poll([&] { return read_file(output).find("HELD") != std::string::npos; })) {
    release();
    throw std::runtime_error("the lock was not taken: " + read_file(output));
  }
}

void HeldLock::start(const std::string& sql) {
  pending_output_ = read_file(output_path());
  pending_ = "STEP" + std::to_string(++steps_) + "DONE";
  const std::string script = sql + (sqlite_ ? ";\n.print " : ";\n\\echo ") + pending_ + "\n";
  if (input_ < 0 ||
      ::write(input_, script.data(), script.size()) != static_cast<ssize_t>(script.size()))
    throw std::runtime_error("cannot talk to the database client");
}

std::string HeldLock::finish() {
  if (!poll([&] { return read_file(output_path()).find(pending_) != std::string::npos; }))
    throw std::runtime_error("the step did not finish: " + read_file(output_path()));
  std::string output = read_file(output_path()).substr(pending_output_.size());
  return output.substr(0, output.find(pending_));
}

std::string HeldLock::then(const std::string& sql) {
  start(sql);
  return finish();
}

std::string HeldLock::backend_pid() {
  std::string out = then("SELECT 'pid=' || pg_backend_pid()");
  std::size_t at = out.find("pid=");
  if (at == std::string::npos) throw std::runtime_error("no backend pid: " + out);
  at += 4;
  return out.substr(at, out.find_first_not_of("0123456789", at) - at);
}

namespace {

// Backends of the server's database that wait for a lock `holder` holds.
int blocked_by(const AuthdProcess& authd, const std::string& holder) {
  return std::atoi(authd
                       .sql("SELECT count(*) FROM pg_stat_activity WHERE " + holder +
                            " = ANY(pg_blocking_pids(pid))")
                       .c_str());
}

}  // namespace

bool waits_for(const AuthdProcess& authd, HeldLock& held) {
  const std::string holder = held.backend_pid();
  return poll([&] { return blocked_by(authd, holder) > 0; });
}

bool waits_for_a_lock(const AuthdProcess& authd, const std::string& pid) {
  return poll([&] {
    return authd.sql("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid +
                     " AND cardinality(pg_blocking_pids(pid)) > 0") == "1\n";
  });
}

HttpResponse answer_beside_a_writer(const AuthdProcess& authd, const std::string& first_lock,
                                    const std::string& next_step,
                                    const std::function<HttpResponse()>& request) {
  HeldLock writer(authd, "BEGIN; " + first_lock);
  HttpResponse answer;
  std::thread in_flight([&] { answer = request(); });
  try {
    EXPECT_TRUE(waits_for(authd, writer)) << "the request never waited";
    std::string next = writer.then(next_step);
    EXPECT_EQ(next.find("ERROR"), std::string::npos) << next;
    writer.then("COMMIT");
  } catch (...) {
    writer.release();  // the request may be waiting for the held lock
    in_flight.join();
    throw;
  }
  in_flight.join();
  return answer;
}

HttpResponse answer_beside_an_account_change(const AuthdProcess& authd, const std::string& user_id,
                                             const std::string& table,
                                             const std::function<HttpResponse()>& request) {
  return answer_beside_a_writer(
      authd, "SELECT id FROM users WHERE id = '" + user_id + "' FOR UPDATE",
      "DELETE FROM " + table + " WHERE user_id = '" + user_id + "'", request);
}

std::string mails_deleted_beside_a_claim(const AuthdProcess& authd, const std::string& user_id,
                                         const std::string& email,
                                         const std::function<void()>& queue_mail) {
  HeldLock change(authd, "BEGIN; SELECT id FROM users WHERE id = '" + user_id + "' FOR UPDATE");
  const std::string holder = change.backend_pid();
  queue_mail();
  auto given_back = [&] { return authd.log_text().find("mails_held_back") != std::string::npos; };
  EXPECT_TRUE(poll([&] { return blocked_by(authd, holder) > 0 || given_back(); }))
      << "the worker never took the mail";
  std::string deleted = change.then("DELETE FROM outbox WHERE email = '" + email + "'");
  change.then("COMMIT");
  return deleted;
}

void HeldLock::release() {
  if (input_ >= 0) {
    const std::string rollback = "ROLLBACK;\n";
    [[maybe_unused]] ssize_t ignored = ::write(input_, rollback.data(), rollback.size());
    ::close(input_);  // end of input: the client exits
    input_ = -1;
  }
  if (pid_ > 0) {
    // A client whose statement waits for a lock (another client's, which
    // the test releases next) reads neither; it is killed, not awaited.
    int status = 0;
    if (!poll([&] { return waitpid(pid_, &status, WNOHANG) == pid_; }, std::chrono::seconds(2))) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  if (!directory_.empty()) remove_unless_kept(directory_);
  directory_.clear();
}

ReservedPort::ReservedPort() {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("cannot reserve a port");
  port_ = ntohs(address.sin_port);
}

void ReservedPort::release() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace authd::test
