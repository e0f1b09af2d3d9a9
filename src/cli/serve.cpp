// `authd serve`: one service that owns its parts, runs until SIGTERM or
// SIGINT, then drains (interface.md 9.3); SIGHUP re-reads the TLS files
// (13.3). Its members are the parts in the order they start; what runs is
// stopped in reverse order, last started first stopped (StopOrder), before
// any part is destroyed, and the parts are destroyed in reverse order too.
#include <csignal>
#include <optional>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>

#include "api/api.hpp"
#include "auth/login/hash_kinds_watch.hpp"
#include "cli/commands.hpp"
#include "cli/housekeeping.hpp"
#include "cli/metric_sources.hpp"
#include "cli/serve_parts.hpp"
#include "config/config_file.hpp"
#include "core/log.hpp"
#include "crypto/hashing_pool.hpp"
#include "store/backends/open_store.hpp"
#include "store/batching/scheduled_database.hpp"

namespace authd {
namespace {

// The members are in the order the parts start (and, reversed, stop): the
// padding between them is the price of that order, paid once per process.
class ServeService {  // NOLINT(clang-analyzer-optin.performance.Padding)
 public:
  // Opens, makes and starts every part, in order, up to the bound listeners
  // and the running workers. Throws StartRefused when a setting stops the
  // start (what was made is destroyed again, in reverse order).
  explicit ServeService(const Config& config);
  ~ServeService() { stops_.run(); }
  ServeService(const ServeService&) = delete;
  ServeService& operator=(const ServeService&) = delete;

  // Says where it listens, serves until the drain is over, stops what runs;
  // the exit status.
  int serve();

 private:
  using Endpoint = boost::asio::ip::tcp::endpoint;

  void drain_on_signal();
  std::optional<Endpoint> listen_admin();
  void start_workers();
  void announce() const;

  const Config& config_;
  StopOrder stops_;  // filled as the parts below start
  StartChecks checks_;
  std::unique_ptr<Store> store_;
  int schema_;
  // After the store: beside a new SQLite database, its key file is created
  // now (interface.md 12.2).
  SecretKeys secret_keys_;
  PasswordHasher hasher_;
  HashingPool hashing_;
  ScheduledDatabase db_;
  // Both run from here on, so they stop last: the database first, then the
  // hashing pool. Every part that runs later writes through the one and
  // hashes on the other, and stops before them; a hash still running
  // touches no database, it resumes its request on a connection thread, and
  // those threads (io_threads_) are destroyed only after every stop.
  StartStep pools_stop_;
  // The floor under every 401 of /login follows the slowest kind of hash
  // stored: from the stored costs now, before the first login can arrive,
  // and measured and kept up to date in the background
  // (auth/login/hash_kinds_watch.hpp).
  HashKindsWatch hash_kinds_;
  StartStep stored_costs_;
  std::unique_ptr<MailTransport> transport_;
  // Background threads write through the group writer's queue (QueuedWriteStore).
  OutboxWorker outbox_;
  std::unique_ptr<WebhookWorker> webhooks_;
  AuthPolicy policy_;
  Housekeeping housekeeping_;
  // interface.md 17.12: opened before listening, so that the first ID
  // token and the first JWKS find their keys; re-read in the background.
  std::unique_ptr<SigningKeys> signing_keys_;
  // interface.md 18.1: discovered before listening; null without [[upstream]].
  std::unique_ptr<UpstreamRegistry> upstreams_;
  // The outbox worker is not woken by /forgot: it polls, and each mail is
  // due after a random delay (AuthPolicy::reset_mail_jitter).
  AuthContext auth_;
  Metrics metrics_;
  StartStep worker_metrics_;
  ApiContext api_;
  IoThreads io_threads_;
  HttpSettings public_settings_;
  Server server_;
  std::unique_ptr<Server> admin_server_;
  StartStep connection_metrics_;
  // Only now, with every start check passed and the listeners bound: a
  // start that fails turns webhooks neither on (with nobody to deliver)
  // nor off for the other instances (interface.md 14.4).
  StartStep webhooks_state_;
  // Before the port files exist: a SIGTERM sent as soon as a script sees
  // one must drain, not kill the process with the signal's default action.
  // (A drain asked for before listening leaves the accept loops at once.)
  boost::asio::signal_set signals_;
  boost::asio::signal_set hangup_;
  StartStep signal_handling_;
  Endpoint endpoint_;
  std::optional<Endpoint> admin_endpoint_;
  StartStep workers_;
};

ServeService::ServeService(const Config& config)
    : config_(config),
      checks_(checked_start(config, AUTHD_VERSION)),
      store_(open_store(config.database, config.store_options())),
      schema_(store_->migrate()),
      secret_keys_(secret_keys_or_refuse(config)),
      hasher_({config.argon2_memory_kib, config.argon2_iterations}),
      hashing_(hasher_, config.hash_worker_count(), config.hash_queue),
      db_(*store_, config.database_thread_count()),
      pools_stop_([this] {
        stops_.push([this] { hashing_.stop(); });
        stops_.push([this] { db_.stop(); });
      }),
      hash_kinds_(db_.for_background_threads(), hashing_, hasher_),
      stored_costs_([this] { hash_kinds_.start_with_stored_costs(); }),
      transport_(mail_transport_from(config)),
      outbox_(db_.for_background_threads(), *transport_,
              outbox_settings_from(config, checks_.mail_templates,
                                   secret_keys_.sealer ? &*secret_keys_.sealer : nullptr)),
      webhooks_(webhook_worker_or_refuse(config, db_.for_background_threads(), AUTHD_VERSION)),
      policy_(policy_from(config)),
      housekeeping_(db_.for_background_threads(),
                    {.prune_interval = config.prune_interval,
                     .throttle_window = policy_.longest_window(),
                     .event_retention = config.event_retention,
                     .providers_keeping_tokens = providers_keeping_tokens(config)}),
      signing_keys_(signing_keys_or_refuse(config, db_.for_background_threads(),
                                           secret_keys_.sealer ? &*secret_keys_.sealer : nullptr)),
      upstreams_(upstream_registry_or_refuse(config)),
      auth_{db_, hashing_, policy_, secret_keys_.sealer ? &*secret_keys_.sealer : nullptr,
            signing_keys_.get()},
      metrics_(route_labels()),
      worker_metrics_([this] {
        add_server_sources(metrics_, hashing_, outbox_);
        add_webhook_source(metrics_, webhooks_.get());
      }),
      api_{auth_, &metrics_, upstreams_.get()},
      io_threads_(config.io_thread_count()),
      public_settings_(http_settings_from(config, checks_.descriptors, checks_.tls)),
      server_(io_threads_, public_settings_, api_),
      admin_server_(admin_server_from(io_threads_, public_settings_, config, api_)),
      connection_metrics_([this] {
        add_connection_source(metrics_, {&server_, admin_server_.get()});
      }),
      webhooks_state_([this] {
        if (!record_webhooks_state(*store_, !config_.webhook_url.empty())) throw StartRefused{1};
      }),
      signals_(io_threads_.main(), SIGINT, SIGTERM),
      hangup_(io_threads_.main(), SIGHUP),
      signal_handling_([this] { drain_on_signal(); }),
      endpoint_(server_.listen()),
      admin_endpoint_(listen_admin()),
      workers_([this] { start_workers(); }) {}

void ServeService::drain_on_signal() {
  reload_on_hangup(hangup_, checks_.tls.get());
  signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log::info("draining", {{"signal", signal == SIGTERM ? "SIGTERM" : "SIGINT"}});
    // A waiting signal would keep the main thread's loop running.
    boost::system::error_code ignored;
    hangup_.cancel(ignored);
    server_.drain();
    if (admin_server_) admin_server_->drain();
  });
}

std::optional<ServeService::Endpoint> ServeService::listen_admin() {
  if (!admin_server_) return std::nullopt;
  return admin_server_->listen();
}

// Each worker's stop is pushed as it starts: they stop in reverse order.
void ServeService::start_workers() {
  outbox_.start();
  log::info("outbox_worker_started", {{"transport", config_.mail_transport}});
  stops_.push([this] {
    outbox_.stop();
    log::info("outbox_worker_stopped", {{"sent", outbox_.sent()},
                                        {"failures", outbox_.failures()},
                                        {"rejected", outbox_.rejected()}});
  });
  if (webhooks_) {
    webhooks_->start();
    log::info("webhook_worker_started", {{"url", redact_url_secrets(config_.webhook_url)}});
    stops_.push([this] {
      webhooks_->stop();
      log::info("webhook_worker_stopped",
                {{"delivered", webhooks_->delivered()}, {"failed", webhooks_->failed()}});
    });
  }
  housekeeping_.start();
  stops_.push([this] { housekeeping_.stop(); });
  hash_kinds_.start();
  stops_.push([this] { hash_kinds_.stop(); });
  if (signing_keys_) {
    signing_keys_->start();
    stops_.push([this] { signing_keys_->stop(); });
  }
}

void ServeService::announce() const {
  // The admin port first: a script that waits for the public port file
  // finds both.
  if (admin_endpoint_ && !config_.admin_port_file.empty())
    write_port_file(config_.admin_port_file, admin_endpoint_->port());
  if (!config_.port_file.empty()) write_port_file(config_.port_file, endpoint_.port());
  if (admin_endpoint_)
    log::info("admin_listening", {{"address", admin_endpoint_->address().to_string()},
                                  {"port", admin_endpoint_->port()}});
  log::info("listening", {{"address", endpoint_.address().to_string()},
                          {"port", endpoint_.port()},
                          {"schema_version", schema_},
                          {"database", redact_url_secrets(config_.database)}});
}

int ServeService::serve() {
  announce();
  io_threads_.run();

  // Past --drain-timeout: the requests still queued for a hash were cut
  // off with their connections, so their hashes are skipped, not worked
  // off, and the exit status says that requests were dropped.
  std::size_t dropped = server_.dropped_by_drain();
  if (admin_server_) dropped += admin_server_->dropped_by_drain();
  if (dropped > 0) hashing_.abandon_queued();
  log::info("drained");
  stops_.run();
  log::info("stopped", {{"dropped_connections", dropped}, {"skipped_hashes", hashing_.skipped()}});
  return dropped > 0 ? kExitDrainDropped : 0;
}

}  // namespace

int run_serve(const Config& given) {
  Config config = given;
  config.apply_oidc_defaults();
  std::optional<ServeService> service;
  try {
    service.emplace(config);
  } catch (const StartRefused& refused) {
    return refused.status;
  }
  return service->serve();
}

}  // namespace authd
