#include "config/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

#include <CLI/CLI.hpp>

#include "config/config_file.hpp"

namespace authd {
namespace {

// A duration option ("10s", "15m", "24h") bound to a Duration field.
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

// A throttling limit option ("10/15m").
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

// An origin is scheme://host[:port], nothing more: no wildcard (a token
// that any site could use is what CORS exists to prevent), no path. It is
// stored as browsers send it (RFC 6454 serialisation): scheme and host in
// lower case, no port when it is the scheme's default, so that the exact
// comparison in http/cors.cpp matches what the operator meant.
CLI::Validator cors_origin_check() {
  return CLI::Validator(
      [](std::string& origin) -> std::string {
        static const std::regex kOrigin(
            R"((https?)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:([0-9]{1,5}))?)", std::regex::icase);
        if (origin == "*") return "a wildcard is not allowed: list each origin";
        std::smatch parts;
        if (!std::regex_match(origin, parts, kOrigin))
          return "'" + origin + "' is not an origin such as https://app.example.com";
        auto lower = [](std::string text) {
          for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          return text;
        };
        std::string scheme = lower(parts[1].str());
        std::string normalised = scheme + "://" + lower(parts[2].str());
        if (parts[4].matched) {
          unsigned port = std::stoul(parts[4].str());
          if (port == 0 || port > 65535) return "'" + origin + "' has no valid port (1 to 65535)";
          if (port != (scheme == "https" ? 443u : 80u)) normalised += ":" + std::to_string(port);
        }
        origin = normalised;
        return std::string();
      },
      "ORIGIN");
}

}  // namespace

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

StoreOptions Config::store_options() const {
  return {database_pool_size != 0 ? database_pool_size : database_thread_count() + 3,
          database_timeout, sqlite_read_cache_mib * 1024};
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
                 "PostgreSQL connections per process (0: database threads + 3)")
      ->envname("AUTHD_DATABASE_POOL_SIZE")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  add_duration(app, "--database-timeout", c.database_timeout, "AUTHD_DATABASE_TIMEOUT",
               "PostgreSQL: longest wait for a connect or a round trip before answering 503");
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
}

void add_serve_options(CLI::App& app, Config& c) {
  add_database_options(app, c);
  add_password_options(app, c);
  app.add_option("--listen", c.listen, "Address and port to listen on (port 0: any free port)")
      ->envname("AUTHD_LISTEN")
      ->capture_default_str();
  app.add_option("--base-path", c.http.base_path,
                 "Optional path prefix for every route, e.g. /auth")
      ->envname("AUTHD_BASE_PATH")
      ->check([](const std::string& v) {
        return v.empty() || (v.front() == '/' && v.back() != '/')
                   ? std::string()
                   : "must start with / and not end with /";
      });
  app.add_option("--public-url", c.public_url,
                 "Public base URL of authd, used in the links of reset mails")
      ->envname("AUTHD_PUBLIC_URL")
      ->capture_default_str();
  app.add_option("--port-file", c.port_file,
                 "Write the bound port to this file once listening (for scripts and tests)")
      ->envname("AUTHD_PORT_FILE");
  app.add_option("--admin-listen", c.admin_listen,
                 "Address and port of the management listener (/metrics, /healthz, admin "
                 "routes; port 0: any free port), or off")
      ->envname("AUTHD_ADMIN_LISTEN")
      ->check([](const std::string& v) {
        return v == "off" || parse_endpoint(v) ? std::string() : "expected HOST:PORT or off";
      })
      ->capture_default_str();
  app.add_option("--admin-port-file", c.admin_port_file,
                 "Write the management listener's bound port to this file once listening")
      ->envname("AUTHD_ADMIN_PORT_FILE");
  app.add_option("--max-connections", c.http.connection_limits.total,
                 "Open connections per listener; past it idle ones are closed to make room, "
                 "else new ones are closed at once")
      ->envname("AUTHD_MAX_CONNECTIONS")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--max-connections-per-client", c.http.connection_limits.per_client,
                 "Open connections per client address (an IPv6 /64); past it the client's idle "
                 "ones are closed to make room, else new ones are closed at once")
      ->envname("AUTHD_MAX_CONNECTIONS_PER_CLIENT")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--io-threads", c.io_threads, "Threads serving connections (0: one per core)")
      ->envname("AUTHD_IO_THREADS")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  app.add_option("--max-body-bytes", c.http.max_body, "Largest request body accepted (else 413)")
      ->envname("AUTHD_MAX_BODY_BYTES")
      ->check(CLI::Range(256, 1024 * 1024))
      ->capture_default_str();
  add_duration(app, "--header-timeout", c.http.header_timeout, "AUTHD_HEADER_TIMEOUT",
               "Time a client has to send a request's header and body");
  add_duration(app, "--idle-timeout", c.http.idle_timeout, "AUTHD_IDLE_TIMEOUT",
               "Idle keep-alive connections are closed after this");
  add_duration(app, "--drain-timeout", c.http.drain_timeout, "AUTHD_DRAIN_TIMEOUT",
               "On SIGTERM/SIGINT, longest wait for requests in flight");
  app.add_option("--cors-origins", c.http.cors_origins,
                 "Origins allowed to call authd from a browser, exactly as browsers send them "
                 "(https://app.example.com), comma-separated; none: CORS off")
      ->envname("AUTHD_CORS_ORIGINS")
      ->delimiter(',')
      ->transform(cors_origin_check());
  add_duration(app, "--cors-max-age", c.http.cors_max_age, "AUTHD_CORS_MAX_AGE",
               "How long browsers may cache a CORS preflight answer");
  app.add_option_function<std::vector<std::string>>(
         "--trusted-proxies",
         [&c](const std::vector<std::string>& texts) {
           c.http.trusted_proxies.clear();
           for (const std::string& text : texts) {
             auto network = IpNetwork::parse(text);
             if (!network)
               throw CLI::ValidationError("--trusted-proxies",
                                          "'" + text +
                                              "' is not a network such as 10.0.0.0/8, "
                                              "2001:db8::/32 or 127.0.0.1 (no host bits past the "
                                              "prefix)");
             c.http.trusted_proxies.push_back(*network);
           }
         },
         "Reverse proxies (CIDR networks, IPv4 or IPv6, comma-separated) whose X-Forwarded-For "
         "or Forwarded names the client; none: the TCP peer is the client")
      ->envname("AUTHD_TRUSTED_PROXIES")
      ->delimiter(',')
      ->type_name("CIDR");
  app.add_option("--sqlite-read-cache-mib", c.sqlite_read_cache_mib,
                 "SQLite: page cache of each read connection (at most one per io thread) in "
                 "MiB, filled as pages are read (0: SQLite's default, 2,000 KiB)")
      ->envname("AUTHD_SQLITE_READ_CACHE_MIB")
      ->check(CLI::Range(0, 64 * 1024))
      ->capture_default_str();
  app.add_option("--database-threads", c.database_threads,
                 "PostgreSQL: threads running database transactions (0: 4); SQLite runs its "
                 "reads on the connection threads and its writes on one writer thread")
      ->envname("AUTHD_DATABASE_THREADS")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  add_duration(app, "--prune-interval", c.prune_interval, "AUTHD_PRUNE_INTERVAL",
               "How often expired sessions, tokens and old counters are deleted");
  app.add_option("--hash-workers", c.hash_workers, "argon2id worker threads (0: one per core)")
      ->envname("AUTHD_HASH_WORKERS")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  app.add_option("--hash-queue", c.hash_queue,
                 "Hashing jobs that may wait for a worker; beyond it logins get 503")
      ->envname("AUTHD_HASH_QUEUE")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  add_duration(app, "--session-lifetime", c.policy.session_lifetime, "AUTHD_SESSION_LIFETIME",
               "Absolute lifetime of a login session");
  add_duration(app, "--reset-token-lifetime", c.policy.reset_token_lifetime,
               "AUTHD_RESET_TOKEN_LIFETIME", "Validity of a password-reset link");
  add_limit(app, "--login-email-limit", c.policy.login_failures_per_email,
            "AUTHD_LOGIN_EMAIL_LIMIT", "Failed logins per e-mail before 429");
  add_limit(app, "--login-client-limit", c.policy.login_failures_per_client,
            "AUTHD_LOGIN_CLIENT_LIMIT", "Failed logins per client address before 429");
  add_limit(app, "--forgot-client-limit", c.policy.forgot_requests_per_client,
            "AUTHD_FORGOT_CLIENT_LIMIT", "Valid /forgot requests per client address before 429");
  app.add_option("--ipv6-56-limit-factor", c.policy.ipv6_aggregates.per_56,
                 "The /56 around an IPv6 client's /64 may have this many times "
                 "--login-client-limit and --forgot-client-limit, in the same window (0: no /56 "
                 "counter)")
      ->envname("AUTHD_IPV6_56_LIMIT_FACTOR")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--ipv6-48-limit-factor", c.policy.ipv6_aggregates.per_48,
                 "The /48 around an IPv6 client's /64 may have this many times "
                 "--login-client-limit and --forgot-client-limit, in the same window (0: no /48 "
                 "counter)")
      ->envname("AUTHD_IPV6_48_LIMIT_FACTOR")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  add_limit(app, "--reset-mail-limit-short", c.policy.reset_mails_per_email_short,
            "AUTHD_RESET_MAIL_LIMIT_SHORT", "Reset mails per e-mail, short window");
  add_limit(app, "--reset-mail-limit-long", c.policy.reset_mails_per_email_long,
            "AUTHD_RESET_MAIL_LIMIT_LONG", "Reset mails per e-mail, long window");
  add_duration(app, "--reset-mail-delay", c.policy.reset_mail_jitter, "AUTHD_RESET_MAIL_DELAY",
               "A reset mail is due after a random delay up to this (hides the worker's disk "
               "writes from the timing of /forgot)");
  app.add_option("--mail-transport", c.mail_transport,
                 "How mail leaves: log (one .eml file per message in --mail-dir) or smtp "
                 "(--smtp-url)")
      ->envname("AUTHD_MAIL_TRANSPORT")
      ->check(CLI::IsMember({"log", "smtp"}))
      ->capture_default_str();
  app.add_option("--smtp-url", c.smtp.url,
                 "SMTP relay: smtp://host[:port] (STARTTLS) or smtps://host[:port] (implicit TLS)")
      ->envname("AUTHD_SMTP_URL")
      ->check([](const std::string& v) {
        return v.rfind("smtp://", 0) == 0 || v.rfind("smtps://", 0) == 0
                   ? std::string()
                   : "must start with smtp:// or smtps://";
      });
  app.add_option("--smtp-username", c.smtp.username, "SMTP AUTH user name (none: no AUTH)")
      ->envname("AUTHD_SMTP_USERNAME");
  app.add_option("--smtp-password", c.smtp.password,
                 "SMTP AUTH password (prefer the environment variable: argv is visible to "
                 "other local users)")
      ->envname("AUTHD_SMTP_PASSWORD");
  app.add_option_function<std::string>(
         "--smtp-starttls",
         [&c](const std::string& v) {
           using Mode = SmtpSettings::StartTls;
           c.smtp.starttls = v == "required"        ? Mode::required
                             : v == "opportunistic" ? Mode::opportunistic
                             : v == "off"           ? Mode::off
                                                    : Mode::automatic;
         },
         "STARTTLS on smtp:// URLs: auto (required, except opportunistic for a loopback "
         "relay), required, opportunistic or off")
      ->envname("AUTHD_SMTP_STARTTLS")
      ->default_str("auto")
      ->check(CLI::IsMember({"auto", "required", "opportunistic", "off"}));
  app.add_flag("--smtp-allow-plaintext", c.smtp_allow_plaintext,
               "Allow reset links to travel in clear to a relay on another machine (smtp:// with "
               "--smtp-starttls off or opportunistic); without it such a setting stops the start")
      ->envname("AUTHD_SMTP_ALLOW_PLAINTEXT");
  app.add_option("--smtp-ca-file", c.smtp.ca_file,
                 "PEM file of CA certificates to trust for the relay (default: the system's)")
      ->envname("AUTHD_SMTP_CA_FILE")
      ->check(CLI::ExistingFile);
  add_duration(app, "--smtp-timeout", c.smtp.timeout, "AUTHD_SMTP_TIMEOUT",
               "Time-out of one SMTP delivery, connection included");
  add_duration(app, "--mail-claim-lease", c.mail_claim_lease, "AUTHD_MAIL_CLAIM_LEASE",
               "How long a delivery attempt holds a mail; must exceed --smtp-timeout");
  app.add_option("--mail-concurrency", c.mail_concurrency,
                 "Mails delivered at once (each on its own SMTP connection)")
      ->envname("AUTHD_MAIL_CONCURRENCY")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--mail-dir", c.mail_dir, "Directory of the log mail transport")
      ->envname("AUTHD_MAIL_DIR")
      ->capture_default_str();
  app.add_option("--mail-from", c.mail_from, "From header of outgoing mail")
      ->envname("AUTHD_MAIL_FROM")
      ->capture_default_str();
}

std::vector<std::string> secret_options_in_argv(const CLI::App& command,
                                                const std::vector<std::string>& argv) {
  std::vector<std::string> found;
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || option->get_lnames().empty()) continue;
    const std::string& key = option->get_lnames().front();
    bool secret = is_secret_key(key) ||
                  (key == "database" &&
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
