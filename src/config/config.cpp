#include "config/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <thread>

#include <CLI/CLI.hpp>

#include "config/config_file.hpp"
#include "config/option_groups.hpp"

namespace authd {

CLI::Option* add_duration(CLI::App& app, const std::string& name, Duration& target,
                          const std::string& env, const std::string& help) {
  return app
      .add_option_function<std::string>(
          name,
          [&target, name](const std::string& text) {
            auto parsed = parse_duration(text);
            if (!parsed || parsed->count() <= 0)
              throw CLI::ValidationError(name, "expected a duration such as 500ms, 10s, 15m, 24h");
            target = *parsed;
          },
          help)
      ->default_str(format_duration(target))
      ->envname(env)
      ->type_name("DURATION");
}

CLI::Option* add_limit(CLI::App& app, const std::string& name, RateLimit& target,
                       const std::string& env, const std::string& help) {
  return app
      .add_option_function<std::string>(
          name,
          [&target, name](const std::string& text) {
            auto parsed = parse_rate_limit(text);
            if (!parsed)
              throw CLI::ValidationError(
                  name, "expected COUNT/DURATION such as 10/15m, COUNT from 1 to " +
                            std::to_string(kMaxRateLimitCount));
            target = *parsed;
          },
          help)
      ->default_str(format_rate_limit(target))
      ->envname(env)
      ->type_name("COUNT/DURATION");
}

std::optional<std::pair<std::string, unsigned short>> parse_endpoint(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, port);
  if (ec != std::errc{} || end != last || first == last || port > 65535) return std::nullopt;
  return std::make_pair(host, static_cast<unsigned short>(port));
}

std::optional<std::pair<std::string, unsigned short>> Config::listen_endpoint() const {
  return parse_endpoint(listen);
}

namespace {

struct UrlParts {
  std::string scheme, host, port;  // scheme and host lower-cased; port as written, maybe empty
};

std::optional<UrlParts> url_parts(const std::string& url) {
  static const std::regex kUrl(
      R"((https?)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:([0-9]{1,5}))?(/.*)?)", std::regex::icase);
  std::smatch parts;
  if (!std::regex_match(url, parts, kUrl)) return std::nullopt;
  auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  return UrlParts{lower(parts[1].str()), lower(parts[2].str()), parts[4].str()};
}

}  // namespace

std::optional<std::string> Config::public_origin() const {
  auto parts = url_parts(public_url);
  if (!parts) return std::nullopt;
  std::string origin = parts->scheme + "://" + parts->host;
  if (parts->port.empty()) return origin;
  unsigned port = std::stoul(parts->port);
  if (port == 0 || port > 65535) return std::nullopt;
  if (port != (parts->scheme == "https" ? 443u : 80u)) origin += ":" + std::to_string(port);
  return origin;
}

bool Config::session_cookie_prefixed() const {
  const std::string& name = http.session_cookie.name;
  return name.rfind("__Host-", 0) == 0 || name.rfind("__Secure-", 0) == 0;
}

bool Config::public_url_is_loopback_http() const {
  auto parts = url_parts(public_url);
  if (!parts || parts->scheme != "http") return false;
  if (parts->host == "localhost") return true;
  std::string host = parts->host;
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  auto address = parse_ip_address(host);
  return address && address->is_loopback();
}

void Config::apply_oidc_defaults() {
  // An upstream sign-in (interface.md 18.2) ends in the session cookie, as
  // the provider's sign-in page does.
  if (!policy.oidc.on && upstreams.empty()) return;
  std::string issuer = public_url;
  while (!issuer.empty() && issuer.back() == '/') issuer.pop_back();
  if (policy.oidc.on) policy.oidc.issuer = issuer;
  if (!http.session_cookie.on())
    http.session_cookie.name =
        public_url_is_loopback_http() ? "authd_session" : "__Host-authd_session";
}

namespace {

// A domain an RP ID can be: labels of letters, digits and hyphens, and not
// an IP address (WebAuthn's RP ID is a registrable domain suffix).
bool is_rp_id(const std::string& host) {
  static const std::regex kDomain(
      R"(([a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)");
  return host.size() <= 253 && std::regex_match(host, kDomain) && !parse_ip_address(host);
}

// An origin a passkey may be used from (16.1.1): scheme://host[:port] with
// nothing after, https:// or http://localhost, its host the RP ID or below
// it. The origin as browsers write it, or nothing.
std::optional<std::string> passkey_origin(const std::string& text, const std::string& rp_id) {
  Config probe;
  probe.public_url = text;
  auto parts = url_parts(text);
  auto origin = probe.public_origin();
  if (!parts || !origin || *origin != text) return std::nullopt;
  if (parts->scheme == "http" && parts->host != "localhost") return std::nullopt;
  const std::string& host = parts->host;
  bool below = host.size() > rp_id.size() && host.ends_with("." + rp_id);
  if (host != rp_id && !below) return std::nullopt;
  return origin;
}

}  // namespace

Config::RelyingParty Config::webauthn_relying_party() const {
  RelyingParty party;
  auto public_parts = url_parts(public_url);
  std::string rp_id = webauthn_rp_id;
  if (rp_id.empty()) {
    if (!public_parts || !is_rp_id(public_parts->host)) return party;  // unavailable
    rp_id = public_parts->host;
  } else if (!is_rp_id(rp_id)) {
    party.problem_option = "--webauthn-rp-id";
    party.problem = "must be a domain name in lower case (not an IP address)";
    return party;
  }
  if (webauthn_origins.empty()) {
    auto origin = public_origin();
    std::optional<std::string> usable;
    if (origin) usable = passkey_origin(*origin, rp_id);
    if (!usable) {
      if (!webauthn_rp_id.empty()) {
        party.problem_option = "--webauthn-origins";
        party.problem = "required: the public URL's origin cannot use the RP ID";
      }
      return party;  // unavailable without it
    }
    party.origins.push_back(*usable);
  } else {
    std::string list = webauthn_origins;
    for (std::size_t start = 0; start <= list.size();) {
      std::size_t comma = std::min(list.find(',', start), list.size());
      std::string item = list.substr(start, comma - start);
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      auto origin = passkey_origin(item, rp_id);
      if (!origin) {
        party.problem_option = "--webauthn-origins";
        party.problem =
            "each must be https://HOST[:PORT] (or http://localhost[:PORT]) with HOST "
            "the RP ID or below it";
        return party;
      }
      party.origins.push_back(*origin);
      start = comma + 1;
    }
  }
  party.id = rp_id;
  return party;
}

StoreOptions Config::store_options() const {
  // The database threads, on PostgreSQL the two that batch logouts and
  // /forgot, one for each connection thread's batch of reads, and one each
  // for the outbox worker, the pruner and the /metrics counts, so that a
  // connection thread seldom waits for one.
  const std::size_t automatic = database_thread_count() + 2 + io_thread_count() + 3;
  return {database_pool_size != 0 ? database_pool_size : automatic, database_timeout,
          sqlite_read_cache_mib * 1024, database_pooler == "transaction"};
}

namespace {

// A configured thread count, or one per core for 0.
std::size_t or_cores(std::size_t configured) {
  if (configured != 0) return configured;
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

std::size_t Config::io_thread_count() const { return or_cores(io_threads); }

std::size_t Config::hash_worker_count() const { return or_cores(hash_workers); }

std::string Config::default_secret_key_file() const {
  constexpr std::string_view kSqlite = "sqlite:";
  if (database.rfind(kSqlite, 0) != 0) return {};
  return database.substr(kSqlite.size()) + ".key";
}

std::size_t Config::database_thread_count() const {
  if (database.rfind("sqlite:", 0) == 0) return 1;
  if (database_threads != 0) return database_threads;
  return 4;
}

void add_database_options(CLI::App& app, Config& c) {
  app.add_option("--config", c.config_file,
                 "TOML file of settings, keys named like the long flags (flags and environment "
                 "win over it)")
      ->envname("AUTHD_CONFIG")
      ->check(CLI::ExistingFile);
  app.add_option("--database", c.database,
                 "Database: sqlite:PATH (created on first start, mode 0600) or "
                 "postgresql://USER@HOST:PORT/DB (shared by several instances)")
      ->envname("AUTHD_DATABASE")
      ->capture_default_str();
  app.add_option("--database-pool-size", c.database_pool_size,
                 "PostgreSQL connections per process (0: database threads + io threads + 5)")
      ->envname("AUTHD_DATABASE_POOL_SIZE")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  add_duration(app, "--database-timeout", c.database_timeout, "AUTHD_DATABASE_TIMEOUT",
               "PostgreSQL: longest wait for a connect or a round trip before answering 503");
  // interface.md 20.3: a setting, not a detection: PgBouncer answers as
  // the server does, and a session pooler or none may keep what this mode
  // gives up.
  app.add_option("--database-pooler", c.database_pooler,
                 "PostgreSQL: none, or transaction when --database names a transaction "
                 "pooler (PgBouncer pool_mode=transaction): unnamed statements, no session state")
      ->envname("AUTHD_DATABASE_POOLER")
      ->check(CLI::IsMember({"none", "transaction"}))
      ->capture_default_str();
  // Accepted by every command, so that one configuration file serves them
  // all; only `serve` uses it (interface.md 14.4).
  app.add_option("--webhook-url", c.webhook_url,
                 "Where `authd serve` POSTs every event, signed (Standard Webhooks), whichever "
                 "process wrote it; empty: no webhooks. The other commands accept and ignore it")
      ->envname("AUTHD_WEBHOOK_URL");
  app.add_option("--log-level", c.log_level, "Log level: debug, info, warn or error")
      ->envname("AUTHD_LOG_LEVEL")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
      ->capture_default_str();
}

void add_password_options(CLI::App& app, Config& c) {
  app.add_option("--argon2-memory-kib", c.argon2_memory_kib,
                 "argon2id memory per hash in KiB (OWASP minimum 19456)")
      ->envname("AUTHD_ARGON2_MEMORY_KIB")
      ->check(CLI::Range(8, 4 * 1024 * 1024))
      ->capture_default_str();
  app.add_option("--argon2-iterations", c.argon2_iterations,
                 "argon2id passes over memory (OWASP minimum 2)")
      ->envname("AUTHD_ARGON2_ITERATIONS")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_flag("--allow-costly-hashes", c.allow_costly_hashes,
               "Accept stored password hashes (passwordHash, import) whose kind costs more than "
               "20 times the own argon2id to verify")
      ->envname("AUTHD_ALLOW_COSTLY_HASHES");
}

void add_serve_options(CLI::App& app, Config& c) {
  add_database_options(app, c);
  add_password_options(app, c);
  add_listener_options(app, c);
  add_connection_options(app, c);
  add_browser_and_proxy_options(app, c);
  add_tls_options(app, c);
  add_store_tuning_options(app, c);
  add_hashing_options(app, c);
  add_lifetime_options(app, c);
  add_throttling_options(app, c);
  add_signup_options(app, c);
  add_email_signin_options(app, c);
  add_oidc_options(app, c);
  add_second_factor_options(app, c);
  add_event_options(app, c);
  add_smtp_options(app, c);
  add_mail_delivery_options(app, c);
  add_notify_option(app, c);
}

std::vector<std::string> secret_options_in_argv(const CLI::App& command,
                                                const std::vector<std::string>& argv) {
  std::vector<std::string> found;
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || option->get_lnames().empty()) continue;
    const std::string& key = option->get_lnames().front();
    bool secret = is_secret_key(key) ||
                  ((key == "database" || key == "webhook-url") &&
                   redact_url_secrets(option->results().back()) != option->results().back());
    if (!secret) continue;
    const std::string flag = "--" + key;
    bool in_argv = std::any_of(argv.begin(), argv.end(), [&](const std::string& arg) {
      return arg == flag || arg.rfind(flag + "=", 0) == 0;
    });
    if (in_argv) found.push_back(flag);
  }
  return found;
}

}  // namespace authd
