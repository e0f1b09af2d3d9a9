// authd's configuration: one plain struct, filled once from flags and AUTHD_*
// environment variables (flags win), validated, then passed down. No part of
// authd reads the environment or argv anywhere else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "auth/policy.hpp"
#include "core/duration.hpp"
#include "http/server.hpp"
#include "mail/transport.hpp"
#include "store/backends/open_store.hpp"
#include "upstream/provider.hpp"

namespace CLI {
class App;
}

namespace authd {

struct Config {
  // Network. `http` holds the HTTP limits and time-outs; its host and port
  // come from `listen`.
  std::string listen = "127.0.0.1:8080";
  HttpSettings http;
  // localhost, not 127.0.0.1: a host name can be a WebAuthn RP ID, so a first
  // start has passkeys (interface.md 16.1); listening stays on 127.0.0.1.
  std::string public_url = "http://localhost:8080";
  std::string port_file;  // written with the bound port once listening
  // The management listener (interface.md 10.1): "HOST:PORT" or "off".
  std::string admin_listen = "127.0.0.1:8081";
  std::string admin_port_file;
  std::size_t io_threads = 0;  // 0: one per core
  // interface.md 13.3: PEM files; both set, or neither (plain HTTP).
  std::string tls_cert;
  std::string tls_key;

  // Storage
  std::string database = "sqlite:authd.db";
  // 0: automatic, see database_thread_count().
  std::size_t database_threads = 0;
  // PostgreSQL only: connections per process (0: database threads +
  // connection threads + 5, see store_options()) and the deadline of each
  // round trip.
  std::size_t database_pool_size = 0;
  Duration database_timeout = std::chrono::seconds(5);
  // PostgreSQL only: "none" or "transaction" (interface.md 20.3).
  std::string database_pooler = "none";
  // SQLite only: the page cache of each read connection (one per io thread at most), in MiB
  // (docs/design/performance-choices.md#the-read-connections-page-cache).
  std::size_t sqlite_read_cache_mib = 32;
  Duration prune_interval = std::chrono::minutes(5);

  // Passwords
  std::size_t argon2_memory_kib = 19456;  // KiB: 19 MiB, the OWASP minimum
  unsigned argon2_iterations = 2;
  std::size_t hash_workers = 0;  // 0: one per core
  std::size_t hash_queue = 64;
  // The hashing workers keep their argon2 memory mapped between hashes
  // (crypto/warm_argon2_memory.hpp); off: libsodium maps it for each hash.
  bool argon2_warm_memory = true;
  // Stored hashes whose kind costs more than 20 times the own kind to
  // verify are refused as new hashes (admin API, import) unless this is set
  // (interface.md 10.5).
  bool allow_costly_hashes = false;

  // Sessions, reset tokens and throttling: the domain's rules.
  AuthPolicy policy;

  // The second factor (interface.md 12.2): the key that seals TOTP secrets
  // (empty: DATABASE.key beside a SQLite database, none on PostgreSQL), and
  // the previous key during a rotation.
  // The audit trail and webhooks (interface.md 14): how long events are
  // kept; where `authd serve` POSTs them (empty: no webhooks; the
  // database then says so to every writer, 14.4), the file of the signing
  // secret, and how many attempts a delivery gets before it is dead.
  Duration event_retention = std::chrono::hours(24 * 90);
  std::string webhook_url;
  std::string webhook_secret_file;
  int webhook_max_attempts = 12;
  // One attempt's time-out, the lease that holds a delivery while it is
  // tried (must exceed the time-out), and the first retry's delay (then
  // doubled, up to an hour).
  Duration webhook_timeout = std::chrono::seconds(10);
  Duration webhook_claim_lease = std::chrono::minutes(1);
  Duration webhook_first_retry = std::chrono::seconds(5);
  // Pending deliveries past which the oldest login.failed are dropped.
  std::int64_t webhook_queue_max = 10'000;

  std::string secret_key_file;
  std::string previous_secret_key_file;
  // The key file of a SQLite database when --secret-key-file is not given;
  // empty on PostgreSQL.
  std::string default_secret_key_file() const;
  // Mail
  std::string mail_transport = "log";
  std::string mail_dir = "mail";
  std::string mail_from = "authd <no-reply@localhost>";
  SmtpSettings smtp;  // when mail_transport is "smtp"
  // Lets reset links go in clear (smtp:// with STARTTLS off or
  // opportunistic) to a relay on another machine; refused at start without.
  bool smtp_allow_plaintext = false;
  // How long one delivery attempt may hold a mail before it is tried again
  // (after a crash mid-delivery); longer than the SMTP time-out.
  Duration mail_claim_lease = std::chrono::minutes(2);
  std::size_t mail_concurrency = 4;  // deliveries at once
  // --mail-templates: a directory of templates that replace built-in ones
  // of the same name (mail/templates.hpp); empty: the built-in set.
  std::string mail_templates;
  // --notify as given; policy.notify holds what it means. Kept as text so
  // that check_config can refuse a bad list as a bad_configuration (exit 2).
  std::string notify = "password-changed,email-changed,mfa-changed";

  std::string log_level = "info";

  // --config / AUTHD_CONFIG: a TOML file of the same settings, below flags
  // and environment in precedence (config/config_file.hpp).
  std::string config_file;
  // interface.md 18.1: the file's [[upstream]] tables (no flag can say a
  // list of providers); their secrets are read by `authd serve` at start.
  std::vector<UpstreamProvider> upstreams;

  StoreOptions store_options() const;
  // The database pool's threads. On PostgreSQL --database-threads, or 4, as
  // each thread waits out a network round trip. On SQLite always 1: reads
  // run in batches on the connection threads and writes on the group-commit
  // writer (store/batching/scheduled_database.cpp), so the pool only runs
  // the health check. The slow reads of a /metrics refresh run beside it
  // (Database::read_aside).
  std::size_t database_thread_count() const;
  // The connection threads: --io-threads, or one per core. Each also runs
  // its requests' reads (store/batching/scheduled_database.cpp).
  std::size_t io_thread_count() const;
  // The hashing pool's workers: --hash-workers, or one per core.
  std::size_t hash_worker_count() const;

  // "host:port" split; nothing when malformed.
  std::optional<std::pair<std::string, unsigned short>> listen_endpoint() const;

  // The public URL's origin as browsers send it in Origin (scheme and host
  // in lower case, the port only when not the scheme's default); nothing
  // when the URL is not http(s)://host[:port][/path].
  std::optional<std::string> public_origin() const;
  // The public URL is http:// on a loopback host (127.0.0.0/8, [::1],
  // localhost): the only case where the session cookie goes without
  // `Secure` (interface.md 13.5).
  bool public_url_is_loopback_http() const;
  // interface.md 17.2, 17.5: with --oidc on, the issuer is the public URL
  // without a trailing slash, and cookie sessions are on (default name
  // `__Host-authd_session`, or `authd_session` on a loopback http:// URL).
  void apply_oidc_defaults();

  // Passkeys (interface.md 16.1): --webauthn-rp-id and --webauthn-origins
  // as given (empty: from --public-url).
  std::string webauthn_rp_id;
  std::string webauthn_origins;
  struct RelyingParty {
    std::string id;  // empty: passkeys unavailable (16.1.2), or `problem`
    std::vector<std::string> origins;
    std::string problem_option;  // set when a given option is wrong: the start is refused
    std::string problem;
  };
  // The RP ID and origins, each checked (16.1.1). Derived from --public-url
  // when not given; a public URL that cannot name one (an IP address, or
  // plain http:// off localhost) leaves passkeys unavailable, not an error.
  RelyingParty webauthn_relying_party() const;
  // --tls-cert and --tls-key are given: the listeners speak HTTPS only.
  bool tls_on() const { return !tls_cert.empty() || !tls_key.empty(); }
  // The session cookie's name has a prefix that browsers accept only with
  // Secure (`__Host-`, `__Secure-`; RFC 6265bis 4.1.3).
  bool session_cookie_prefixed() const;
  // The session cookie's Secure attribute: always over HTTPS (13.3) and
  // for a prefixed name (13.5: without it no browser keeps the cookie),
  // otherwise unless the public URL is loopback http (13.5).
  bool session_cookie_secure() const {
    return tls_on() || session_cookie_prefixed() || !public_url_is_loopback_http();
  }
};

// "HOST:PORT" or "[V6]:PORT" split; nothing when malformed.
std::optional<std::pair<std::string, unsigned short>> parse_endpoint(const std::string& text);

// Options shared by every command that opens the database.
void add_database_options(CLI::App& command, Config& config);
// Options for hashing passwords (serve and the user commands).
void add_password_options(CLI::App& command, Config& config);
// --notify (interface.md 14.3): serve, and the user commands that change a
// password or a second factor.
void add_notify_option(CLI::App& command, Config& config);
// Everything `authd serve` takes.
void add_serve_options(CLI::App& command, Config& config);

// The options of `command` that carry a secret (the SMTP password, a
// database URL with a password in it) and were given in `argv`, where every
// local user can read them (ps, /proc/PID/cmdline), rather than in the
// environment or the configuration file; their names ("--smtp-password").
// CLI11 takes a value from the environment only when the flag is absent,
// and the file's values are applied as defaults, so an option is from argv
// when CLI11 counted it and argv names it.
std::vector<std::string> secret_options_in_argv(const CLI::App& command,
                                                const std::vector<std::string>& argv);

}  // namespace authd
