// Fuzz target: raw bytes on a real TCP connection to the real HTTP front end
// (http/server.cpp and http/exchange.cpp: Beast parsing, limits, framing and smuggling checks,
// X-Request-Id, CORS and preflights, the request metrics), the router (404/405/415) and every
// handler behind it, down to the domain and a real SQLite store (GET /metrics included). One server
// lives for the whole run; each input is one connection: the bytes are written, the client
// half-closes and reads every response until the server closes. ASan and UBSan watch the server's
// code in this same process.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "api/api.hpp"
#include "auth/admin/accounts.hpp"
#include "auth/policy.hpp"
#include "core/log.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/password_hasher.hpp"
#include "http/server.hpp"
#include "metrics/metrics.hpp"
#include "store/backends/open_store.hpp"
#include "store/batching/scheduled_database.hpp"

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// An account the seed corpus logs in to (its login body is in the corpus).
constexpr const char* kEmail = "fuzz@example.com";
constexpr const char* kPassword = "fuzz-password-1";

std::string temporary_directory() {
  // tmpfs when there is one: SQLite's fsync per write stays cheap.
  std::string base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
  std::string pattern = base + "/authd-fuzz-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  return pattern;
}

struct Fixture {
  Fixture()
      : directory(temporary_directory()),
        store(authd::open_store("sqlite:" + directory + "/authd.db")),
        hasher(authd::Argon2Params{64, 1}),
        hashing(hasher, 1, 64),
        db(*store, 1),
        policy(make_policy()),
        auth{db, hashing, policy},
        metrics(authd::route_labels()),
        api{auth, &metrics},
        server(threads, settings(), api) {
    store->migrate();
    std::string password = kPassword;
    authd::Accounts accounts(*store, hasher, {.actor = std::string(authd::kActorCli)});
    accounts.create({.email = kEmail}, password);
    // A reading source, as the real server has, so that a scrape renders
    // one too.
    metrics.add_source([this](std::vector<authd::MetricReading>& out) {
      out.push_back({"authd_hashing_queue_depth", "Hashing jobs waiting.", "gauge",
                     static_cast<double>(hashing.queue_depth())});
    });
    port = server.listen().port();
  }
  ~Fixture() {
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  }

  static authd::AuthPolicy make_policy() {
    // Throttling would soon answer every login with 429 and hide the code
    // behind it from the fuzzer.
    authd::AuthPolicy p;
    authd::RateLimit unlimited{1'000'000'000, std::chrono::minutes(1)};
    p.login_failures_per_email = unlimited;
    p.login_failures_per_client = unlimited;
    p.forgot_requests_per_client = unlimited;
    return p;
  }
  static authd::HttpSettings settings() {
    authd::HttpSettings s;
    s.host = "127.0.0.1";
    s.port = 0;
    // Every input ends with a half-close, so no request waits for these;
    // short anyway, so that a bug there costs seconds, not the whole run.
    s.header_timeout = std::chrono::seconds(2);
    s.idle_timeout = std::chrono::seconds(2);
    // CORS on, so that preflights and the CORS headers are fuzzed too (the
    // seed corpus sends this origin).
    s.cors_origins = {"https://app.example"};
    return s;
  }

  std::string directory;
  std::unique_ptr<authd::Store> store;
  authd::PasswordHasher hasher;
  authd::HashingPool hashing;
  authd::ScheduledDatabase db;
  authd::AuthPolicy policy;
  authd::AuthContext auth;
  authd::Metrics metrics;  // GET /metrics and the request counters
  authd::ApiContext api;
  authd::IoThreads threads{1};  // one context, run here by the fuzzer's own loop
  asio::io_context& io = threads.main();
  authd::Server server;
  unsigned short port = 0;
};

asio::awaitable<void> client(unsigned short port, const std::uint8_t* data, std::size_t size,
                             bool& done) {
  boost::system::error_code ec;
  auto executor = co_await asio::this_coro::executor;
  tcp::socket socket(executor);
  tcp::endpoint endpoint(asio::ip::address_v4::loopback(), port);
  co_await socket.async_connect(endpoint, asio::redirect_error(asio::use_awaitable, ec));
  if (!ec) {
    co_await asio::async_write(socket, asio::buffer(data, size),
                               asio::redirect_error(asio::use_awaitable, ec));
    socket.shutdown(tcp::socket::shutdown_send, ec);
    // Every response, until the server closes the connection.
    char sink[16384];
    while (true) {
      co_await socket.async_read_some(asio::buffer(sink),
                                      asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
    }
  }
  done = true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  authd::log::init("error", std::chrono::microseconds(0));  // a handler_failed (500) still shows
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture* fixture = new Fixture();  // lives for the whole run
  bool done = false;
  asio::co_spawn(fixture->io, client(fixture->port, data, size, done), asio::detached);
  fixture->io.restart();
  while (!done) fixture->io.run_one();
  // Let the server's side of the connection finish too.
  fixture->io.poll();
  return 0;
}
