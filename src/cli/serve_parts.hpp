// The parts of `authd serve` (cli/serve.cpp) as they are made from the
// configuration, and the two helpers that give the service its order: a
// step of the start in its place among the service's members, and the
// stops of what runs, last started first stopped.
#pragma once

#include <sys/resource.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/signal_set.hpp>

#include "auth/oidc/signing_keys.hpp"
#include "auth/policy.hpp"
#include "cli/secret_keys.hpp"
#include "config/config.hpp"
#include "http/server.hpp"
#include "http/tls.hpp"
#include "mail/outbox_worker.hpp"
#include "mail/templates.hpp"
#include "metrics/metrics.hpp"
#include "store/store.hpp"
#include "upstream/registry.hpp"
#include "webhooks/webhook_worker.hpp"

namespace authd {

// Thrown while the service starts when a setting stops the start: `status`
// is the exit status (2 for a bad setting). Not a std::exception: main's
// "fatal" is for the unexpected.
struct StartRefused {
  int status;
};

// A step of the start that is no part of its own: it runs when constructed,
// in its place among the service's members, so that the members read as
// the start in order.
struct StartStep {
  template <class Step>
  explicit StartStep(Step&& step) {
    std::forward<Step>(step)();
  }
};

// The stops of the parts that run, each pushed as its part starts; run()
// runs them in reverse order, last started first stopped, once.
class StopOrder {
 public:
  void push(std::function<void()> stop) { stops_.push_back(std::move(stop)); }
  void run() {
    while (!stops_.empty()) {
      std::function<void()> stop = std::move(stops_.back());
      stops_.pop_back();
      stop();
    }
  }

 private:
  std::vector<std::function<void()>> stops_;
};

// What the start checks before anything is opened: the settings (those that
// cannot work refuse the start, those that weaken what authd protects are
// said once), the TLS files and the mail templates. Then raises the file
// limit, logs "starting" with `version`, and returns what was loaded.
struct StartChecks {
  std::shared_ptr<TlsContexts> tls;                     // null: TLS off
  std::shared_ptr<const MailTemplates> mail_templates;  // null: the built-in set
  rlim_t descriptors = RLIM_INFINITY;                   // the descriptor limit in force
};
StartChecks checked_start(const Config& config, std::string_view version);  // throws StartRefused

// interface.md 12.2: the secret key; a configured key file that cannot be
// read refuses the start (logged).
SecretKeys secret_keys_or_refuse(const Config& config);

// interface.md 17.12: with --oidc on, the provider's key ring, the first
// pair made when the store has none and every key opened; null with --oidc
// off. A ring that cannot be read or opened refuses the start (logged).
std::unique_ptr<SigningKeys> signing_keys_or_refuse(const Config& c, Store& store,
                                                    const SecretSealer* sealer);

// interface.md 18.1: the [[upstream]] providers with their client secrets
// read, each oidc provider discovered (one that fails is logged and tried
// again in the background); null when none is configured. An unreadable
// secret file refuses the start (logged, without the secret).
std::unique_ptr<UpstreamRegistry> upstream_registry_or_refuse(const Config& c);
// interface.md 18.5.1: the names of the providers with keep-tokens = true.
std::vector<std::string> providers_keeping_tokens(const Config& c);

// The mail transport named by --mail-transport, and the outbox worker's
// settings.
std::unique_ptr<MailTransport> mail_transport_from(const Config& c);
OutboxSettings outbox_settings_from(const Config& c, std::shared_ptr<const MailTemplates> templates,
                                    const SecretSealer* sealer);

// interface.md 14.4: with --webhook-url, the worker that delivers the
// queue, its secret read now; null without. A secret that cannot be read
// refuses the start; the reason never quotes the file. Its User-Agent is
// authd/`version`.
std::unique_ptr<WebhookWorker> webhook_worker_or_refuse(const Config& c, Store& store,
                                                        std::string_view version);

// The flows' policy: --allow-costly-hashes and the WebAuthn relying party
// beside config.policy; says when passkeys are unavailable.
AuthPolicy policy_from(const Config& c);

// The public listener's settings: --listen, the HTTP limits, and TLS.
HttpSettings http_settings_from(const Config& c, rlim_t descriptors,
                                std::shared_ptr<TlsContexts> tls);
// The management listener (interface.md 10.1) on `io`, serving `api`;
// null with --admin-listen off.
std::unique_ptr<Server> admin_server_from(IoThreads& io, const HttpSettings& public_settings,
                                          const Config& c, ApiContext& api);

// The connection caps' work, summed over the listeners, for GET /metrics.
void add_connection_source(Metrics& metrics, std::vector<const Server*> servers);

// interface.md 13.3: each SIGHUP re-reads the TLS files (null: TLS off).
void reload_on_hangup(boost::asio::signal_set& hangup, TlsContexts* tls);

// Writes `port` to `path` atomically: readers see the whole file or none.
void write_port_file(const std::string& path, unsigned short port);

}  // namespace authd
