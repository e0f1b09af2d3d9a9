// `authd serve`: wires the parts together, runs until SIGTERM or SIGINT, then
// drains (decisions.md 9.3).
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "api/api.hpp"
#include "auth/hash_kinds_watch.hpp"
#include "cli/commands.hpp"
#include "config/config_file.hpp"
#include "core/log.hpp"
#include "core/periodic_thread.hpp"
#include "core/scheduling.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/random.hpp"
#include "http/server.hpp"
#include "mail/outbox_worker.hpp"
#include "metrics/sources.hpp"
#include "store/database.hpp"
#include "store/open_store.hpp"

namespace authd {
namespace {

std::size_t or_cores(std::size_t configured) {
  if (configured != 0) return configured;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Thousands of concurrent clients need thousands of descriptors; the usual
// soft limit is 1024, so take what the hard limit allows.
void raise_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// The HTTP settings with the host and port of --listen.
HttpSettings http_settings_from(const Config& c) {
  HttpSettings http = c.http;
  auto endpoint = c.listen_endpoint();
  http.host = endpoint->first;
  http.port = endpoint->second;
  return http;
}

// The mail transport named by --mail-transport, or nothing (and a logged
// reason) when its settings cannot work.
std::unique_ptr<MailTransport> mail_transport_from(const Config& c) {
  if (c.mail_transport == "log") return make_log_transport(c.mail_dir);
  if (c.smtp.url.empty()) {
    log::error("bad_configuration",
               {{"option", "--smtp-url"}, {"reason", "required with --mail-transport smtp"}});
    return nullptr;
  }
  // A delivery still under way when its lease ends would be sent twice.
  if (c.mail_claim_lease <= c.smtp.timeout) {
    log::error("bad_configuration",
               {{"option", "--mail-claim-lease"}, {"reason", "must exceed --smtp-timeout"}});
    return nullptr;
  }
  // Credentials never cross the network in clear: plain or opportunistic
  // SMTP (which an attacker on the path can strip) with AUTH is refused
  // unless the relay is on this machine.
  using Mode = SmtpSettings::StartTls;
  bool may_be_clear = c.smtp.url.rfind("smtp://", 0) == 0 &&
                      (c.smtp.starttls == Mode::off || c.smtp.starttls == Mode::opportunistic);
  if (!c.smtp.username.empty() && may_be_clear && !is_loopback_smtp_host(c.smtp.url)) {
    log::error("bad_configuration",
               {{"option", "--smtp-starttls"},
                {"reason",
                 "SMTP credentials would travel in clear to a remote relay; use "
                 "required, or an smtps:// URL"}});
    return nullptr;
  }
  return make_smtp_transport(c.smtp);
}

void write_port_file(const std::string& path, unsigned short port) {
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << port << "\n";
  }
  std::rename(temporary.c_str(), path.c_str());  // readers see the whole file or none
}

}  // namespace

int run_serve(const Config& config) {
  if (!config.listen_endpoint()) {
    log::error("bad_configuration", {{"option", "--listen"}, {"value", config.listen}});
    return 2;
  }
  raise_file_limit();
  prefer_short_time_slices();  // before any other thread starts: they inherit it
  log::info("starting", {{"version", AUTHD_VERSION},
                         {"pid", static_cast<long>(::getpid())},
                         {"config_file", config.config_file}});

  std::unique_ptr<Store> store = open_store(config.database, config.store_options());
  int schema = store->migrate();

  PasswordHasher hasher({config.argon2_memory_kib, config.argon2_iterations});
  if (config.argon2_memory_kib < 19456 || config.argon2_iterations < 2) {
    log::warn("weak_password_hashing", {{"argon2_memory_kib", config.argon2_memory_kib},
                                        {"argon2_iterations", config.argon2_iterations},
                                        {"owasp_minimum", "m=19456 KiB, t=2"}});
  }
  HashingPool hashing(hasher, or_cores(config.hash_workers), config.hash_queue);
  Database db(*store, config.database_thread_count());
  // The floor under every 401 of /login follows the slowest kind of hash
  // stored: measured now, before the first login can arrive, and kept up to
  // date in the background (auth/hash_kinds_watch.hpp).
  HashKindsWatch hash_kinds(db.for_background_threads(), hashing, hasher);
  hash_kinds.measure_all();

  auto transport = mail_transport_from(config);
  if (!transport) return 2;
  // Background threads write through the group writer's queue (QueuedWriteStore).
  Store& background_store = db.for_background_threads();
  OutboxWorker outbox(background_store, *transport,
                      {.from = config.mail_from,
                       .public_url = config.public_url,
                       .reset_token_lifetime = config.policy.reset_token_lifetime,
                       .lease = config.mail_claim_lease});
  const AuthPolicy& policy = config.policy;
  PeriodicThread pruner(config.prune_interval, [&] {
    Millis now = now_millis();
    std::int64_t removed = 0;
    background_store.run(Store::Mode::write, [&](Transaction& tx) {
      removed = tx.prune(now, now - policy.longest_window().count(),
                         now - std::chrono::milliseconds(std::chrono::hours(24)).count());
    });
    if (removed > 0) log::debug("pruned", {{"rows", removed}});
  });

  // The outbox worker is not woken by /forgot: it polls, and each mail is
  // due after a random delay (AuthPolicy::reset_mail_jitter).
  AuthContext auth{db, hashing, policy};
  Metrics metrics(route_labels());
  add_server_sources(metrics, hashing, outbox);
  ApiContext api{auth, &metrics};
  IoThreads io_threads(or_cores(config.io_threads));
  Server server(io_threads, http_settings_from(config), api);
  auto endpoint = server.listen();
  outbox.start();
  log::info("outbox_worker_started", {{"transport", config.mail_transport}});
  pruner.start();
  hash_kinds.start();
  if (!config.port_file.empty()) write_port_file(config.port_file, endpoint.port());
  log::info("listening", {{"address", endpoint.address().to_string()},
                          {"port", endpoint.port()},
                          {"schema_version", schema},
                          {"database", redact_url_secrets(config.database)}});

  boost::asio::signal_set signals(io_threads.main(), SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log::info("draining", {{"signal", signal == SIGTERM ? "SIGTERM" : "SIGINT"}});
    server.drain();
  });

  io_threads.run();

  log::info("drained");
  outbox.stop();
  log::info(
      "outbox_worker_stopped",
      {{"sent", outbox.sent()}, {"failures", outbox.failures()}, {"rejected", outbox.rejected()}});
  pruner.stop();
  hash_kinds.stop();
  hashing.stop();
  db.stop();
  log::info("stopped");
  return 0;
}

int run_migrate(const Config& config) {
  auto store = open_store(config.database, config.store_options());
  int version = store->migrate();
  log::info("migrated",
            {{"schema_version", version}, {"database", redact_url_secrets(config.database)}});
  return 0;
}

}  // namespace authd
