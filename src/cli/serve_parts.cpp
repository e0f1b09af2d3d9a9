// The parts of `authd serve` as they are made from the configuration
// (cli/serve_parts.hpp).
#include "cli/serve_parts.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>

#include "config/config_checks.hpp"
#include "config/config_file.hpp"
#include "config/upstream_config.hpp"
#include "core/log.hpp"
#include "core/scheduling.hpp"

namespace authd {
namespace {

// Thousands of concurrent clients need thousands of descriptors; the usual
// soft limit is 1024, so take what the hard limit allows. Returns the limit
// in force.
rlim_t raise_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return RLIM_INFINITY;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur;
}

// The connection caps, lowered to what the descriptor limit allows for
// both listeners beside the database, log and mail descriptors: a cap the
// process cannot reach would let accept() fail instead.
ConnectionRegistry::Limits connection_limits_within(ConnectionRegistry::Limits limits,
                                                    rlim_t descriptors) {
  constexpr rlim_t kReserved = 128;
  if (descriptors == RLIM_INFINITY || descriptors / 2 > limits.total + kReserved) return limits;
  std::size_t fitting = descriptors / 2 > kReserved * 2 ? descriptors / 2 - kReserved : kReserved;
  log::warn("max_connections_lowered", {{"configured", limits.total},
                                        {"descriptor_limit", static_cast<std::size_t>(descriptors)},
                                        {"max_connections", fitting}});
  limits.total = fitting;
  limits.per_client = std::min(limits.per_client, fitting);
  return limits;
}

// The management listener's (interface.md 10.1): --admin-listen, the same
// limits, and neither the public path prefix nor CORS nor the session
// cookie of the public API; only the console's cookie (21.2).
HttpSettings admin_settings_from(const HttpSettings& public_settings, const Config& c) {
  HttpSettings admin = public_settings;
  auto endpoint = parse_endpoint(c.admin_listen);
  admin.listener = Listener::management;
  admin.host = endpoint->first;
  admin.port = endpoint->second;
  admin.base_path.clear();
  admin.cors_origins.clear();
  admin.session_cookie = {};
  // The console's own (interface.md 21.2): host-only, and with the
  // __Host- prefix when it can have Secure.
  admin.console_cookie = admin.tls != nullptr ? ConsoleCookie{"__Host-authd_console", true}
                                              : ConsoleCookie{"authd_console", false};
  // Operators and Prometheus reach the management listener directly.
  admin.proxy_protocol = false;
  return admin;
}

// The certificate a listener serves from now on, in the log: an operator
// sees what a reload took, and when it expires.
void log_certificate(std::string_view event, TlsContexts& tls) {
  TlsCertificateInfo info = certificate_info(*tls.current());
  log::info(event, {{"certificate", tls.files().certificate},
                    {"subject", info.subject},
                    {"not_after", info.not_after}});
  if (info.expired)
    log::warn("tls_certificate_expired",
              {{"certificate", tls.files().certificate}, {"not_after", info.not_after}});
}

// interface.md 13.3: the TLS files, loaded before anything listens; null
// when TLS is off. A file that fails to load stops the start like any bad
// setting (the caller exits with 2); the reason never quotes the file.
std::optional<std::shared_ptr<TlsContexts>> load_tls(const Config& c) {
  if (!c.tls_on()) return std::shared_ptr<TlsContexts>();
  std::shared_ptr<TlsContexts> tls;
  try {
    tls = std::make_shared<TlsContexts>(TlsFiles{c.tls_cert, c.tls_key});
  } catch (const std::exception& e) {
    log::error("bad_configuration", {{"option", "--tls-cert/--tls-key"}, {"reason", e.what()}});
    return std::nullopt;
  }
  struct stat key {};
  if (::stat(c.tls_key.c_str(), &key) == 0 && (key.st_mode & S_IRWXO) != 0)
    log::warn(
        "tls_key_readable_by_others",
        {{"key", c.tls_key},
         {"reason",
          "any local user may read the private key: chmod 600 (or 640 with a group of its own)"}});
  log_certificate("tls_loaded", *tls);
  return tls;
}

// The mail templates (--mail-templates over the built-in set), read and
// parsed before anything starts: a template that would fail at delivery
// stops the start instead (the caller exits with 2). Null: the built-in set.
std::optional<std::shared_ptr<const MailTemplates>> load_mail_templates(const Config& c) {
  if (c.mail_templates.empty()) return std::shared_ptr<const MailTemplates>();
  std::string error;
  std::optional<MailTemplates> templates = MailTemplates::load(c.mail_templates, error);
  if (!templates) {
    log::error("bad_configuration", {{"option", "--mail-templates"}, {"reason", error}});
    return std::nullopt;
  }
  log::info("mail_templates_loaded", {{"directory", c.mail_templates}});
  return std::make_shared<const MailTemplates>(std::move(*templates));
}

// Logs the findings of check_config of one severity; true when there was any.
bool log_findings(const std::vector<ConfigFinding>& findings, ConfigFinding::Severity severity) {
  bool any = false;
  for (const ConfigFinding& finding : findings) {
    if (finding.severity != severity) continue;
    any = true;
    if (severity == ConfigFinding::Severity::error)
      log::error(finding.event, finding.fields);
    else
      log::warn(finding.event, finding.fields);
  }
  return any;
}

}  // namespace

StartChecks checked_start(const Config& config, std::string_view version) {
  // Settings that cannot work stop the start before anything is opened;
  // those that work but weaken what authd protects are said once.
  std::vector<ConfigFinding> findings = check_config(config);
  if (log_findings(findings, ConfigFinding::Severity::error)) throw StartRefused{2};
  std::optional<std::shared_ptr<TlsContexts>> tls = load_tls(config);
  if (!tls) throw StartRefused{2};
  std::optional<std::shared_ptr<const MailTemplates>> mail_templates = load_mail_templates(config);
  if (!mail_templates) throw StartRefused{2};
  rlim_t descriptors = raise_file_limit();
  prefer_short_time_slices();  // before any other thread starts: they inherit it
  log::info("starting", {{"version", version},
                         {"pid", static_cast<long>(::getpid())},
                         {"config_file", config.config_file}});

  log_findings(findings, ConfigFinding::Severity::warning);
  return {std::move(*tls), std::move(*mail_templates), descriptors};
}

SecretKeys secret_keys_or_refuse(const Config& config) {
  SecretKeys keys = open_secret_keys(config);
  if (!keys.ok) throw StartRefused{2};
  return keys;
}

// Its settings were checked by check_config.
std::unique_ptr<MailTransport> mail_transport_from(const Config& c) {
  if (c.mail_transport == "log") return make_log_transport(c.mail_dir);
  return make_smtp_transport(c.smtp);
}

OutboxSettings outbox_settings_from(const Config& c, std::shared_ptr<const MailTemplates> templates,
                                    const SecretSealer* sealer) {
  return {.from = c.mail_from,
          .public_url = c.public_url,
          .reset_token_lifetime = c.policy.reset_token_lifetime,
          .signup_token_lifetime = c.policy.signup_token_lifetime,
          .signup_open = c.policy.signup_open,
          .sealer = sealer,
          .lease = c.mail_claim_lease,
          .send_timeout = c.smtp.timeout,
          .concurrency = c.mail_concurrency,
          .templates = std::move(templates)};
}

std::unique_ptr<WebhookWorker> webhook_worker_or_refuse(const Config& c, Store& store,
                                                        std::string_view version) {
  if (c.webhook_url.empty()) return nullptr;
  std::string problem;
  std::optional<WebhookKey> key = read_webhook_secret_file(c.webhook_secret_file, problem);
  if (!key) {
    log::error("bad_configuration", {{"option", "--webhook-secret-file"}, {"reason", problem}});
    throw StartRefused{2};
  }
  return std::make_unique<WebhookWorker>(
      store, std::move(*key),
      WebhookSettings{.url = c.webhook_url,
                      .max_attempts = c.webhook_max_attempts,
                      .timeout = c.webhook_timeout,
                      .lease = c.webhook_claim_lease,
                      .first_retry = c.webhook_first_retry,
                      .queue_max = c.webhook_queue_max,
                      .user_agent = "authd/" + std::string(version)});
}

std::unique_ptr<SigningKeys> signing_keys_or_refuse(const Config& c, Store& store,
                                                    const SecretSealer* sealer) {
  if (!c.policy.oidc.on) return nullptr;
  // open_secret_keys refused --oidc on without a key already.
  if (sealer == nullptr) throw StartRefused{2};
  const OidcSettings& oidc = c.policy.oidc;
  auto keys = std::make_unique<SigningKeys>(
      store, *sealer,
      SigningKeySettings{.prepublish = oidc.key_prepublish,
                         .rotation = oidc.key_rotation,
                         .longest_token_ttl = std::max(oidc.id_token_ttl, oidc.access_token_ttl)});
  if (!keys->start_with_keys()) throw StartRefused{1};
  return keys;
}

std::unique_ptr<UpstreamRegistry> upstream_registry_or_refuse(const Config& c) {
  if (c.upstreams.empty()) return nullptr;
  std::vector<UpstreamProvider> providers = c.upstreams;
  try {
    load_upstream_secrets(providers);
  } catch (const std::runtime_error& e) {
    log::error("bad_configuration", {{"option", "[[upstream]]"}, {"reason", e.what()}});
    throw StartRefused{2};
  }
  std::string public_url = c.public_url;
  while (!public_url.empty() && public_url.back() == '/') public_url.pop_back();
  auto registry = std::make_unique<UpstreamRegistry>(std::move(providers), public_url);
  registry->start();
  return registry;
}

std::vector<std::string> providers_keeping_tokens(const Config& c) {
  std::vector<std::string> names;
  for (const UpstreamProvider& p : c.upstreams)
    if (p.keep_tokens) names.push_back(p.name);
  return names;
}

AuthPolicy policy_from(const Config& c) {
  AuthPolicy policy = c.policy;
  policy.allow_costly_hashes = c.allow_costly_hashes;
  Config::RelyingParty party = c.webauthn_relying_party();  // checked: no problem left
  policy.webauthn = {party.id, party.origins};
  if (party.id.empty())
    log::warn("passkeys_unavailable",
              {{"reason",
                "no RP ID: --public-url's host is an IP address, or its origin is "
                "plain http:// off localhost; set --webauthn-rp-id"}});
  return policy;
}

HttpSettings http_settings_from(const Config& c, rlim_t descriptors,
                                std::shared_ptr<TlsContexts> tls) {
  HttpSettings http = c.http;
  auto endpoint = c.listen_endpoint();
  http.host = endpoint->first;
  http.port = endpoint->second;
  http.connection_limits = connection_limits_within(c.http.connection_limits, descriptors);
  // interface.md 13.5 (config_checks.cpp refused an unreadable public URL).
  http.public_origin = c.public_origin().value_or("");
  http.session_cookie.secure = c.session_cookie_secure();
  http.tls = std::move(tls);
  return http;
}

std::unique_ptr<Server> admin_server_from(IoThreads& io, const HttpSettings& public_settings,
                                          const Config& c, ApiContext& api) {
  if (c.admin_listen == "off") return nullptr;
  return std::make_unique<Server>(io, admin_settings_from(public_settings, c), api);
}

void add_connection_source(Metrics& metrics, std::vector<const Server*> servers) {
  metrics.add_source([servers = std::move(servers)](std::vector<MetricReading>& out) {
    double open = 0, refused_total = 0, refused_client = 0, idle_closed = 0;
    for (const Server* server : servers) {
      if (server == nullptr) continue;  // --admin-listen off
      open += static_cast<double>(server->connections().open());
      refused_total += static_cast<double>(server->connections().refused_total());
      refused_client += static_cast<double>(server->connections().refused_per_client());
      idle_closed += static_cast<double>(server->connections().idle_closed());
    }
    out.push_back(
        {"authd_connections_open", "Open client connections, on every listener.", "gauge", open});
    out.push_back({"authd_connections_refused_max_total",
                   "New connections closed unanswered: --max-connections was reached and no "
                   "connection was idle.",
                   "counter", refused_total});
    out.push_back({"authd_connections_refused_per_client_total",
                   "New connections closed unanswered: their client had "
                   "--max-connections-per-client open and none idle.",
                   "counter", refused_client});
    out.push_back({"authd_connections_idle_closed_total",
                   "Idle connections closed to make room under a connection cap.", "counter",
                   idle_closed});
  });
}

// Connections open or accepted meanwhile are served throughout. A file that
// fails keeps the certificate in force. Without TLS there is nothing to
// re-read, and the signal no longer ends the process as its default action
// would.
void reload_on_hangup(boost::asio::signal_set& hangup, TlsContexts* tls) {
  hangup.async_wait([&hangup, tls](const boost::system::error_code& ec, int) {
    if (ec) return;  // cancelled: draining
    if (tls == nullptr) {
      log::info("reload_ignored", {{"reason", "no --tls-cert: nothing to re-read"}});
    } else if (std::string failure = tls->reload(); !failure.empty()) {
      log::error("tls_reload_failed",
                 {{"reason", failure}, {"kept", "the certificate loaded before"}});
    } else {
      log_certificate("tls_reloaded", *tls);
    }
    reload_on_hangup(hangup, tls);
  });
}

void write_port_file(const std::string& path, unsigned short port) {
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << port << "\n";
  }
  std::rename(temporary.c_str(), path.c_str());  // readers see the whole file or none
}

}  // namespace authd
