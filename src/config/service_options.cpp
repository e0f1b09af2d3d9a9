// The options of `authd serve` about the store, hashing, sessions,
// throttling and mail (config/option_groups.hpp).
#include <CLI/CLI.hpp>

#include "auth/events/notices.hpp"
#include "config/option_groups.hpp"

namespace authd {

void add_store_tuning_options(CLI::App& app, Config& c) {
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
}

void add_hashing_options(CLI::App& app, Config& c) {
  app.add_option("--hash-workers", c.hash_workers, "argon2id worker threads (0: one per core)")
      ->envname("AUTHD_HASH_WORKERS")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  app.add_option("--hash-queue", c.hash_queue,
                 "Hashing jobs that may wait for a worker; beyond it logins get 503")
      ->envname("AUTHD_HASH_QUEUE")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option_function<std::string>(
         "--argon2-warm-memory", [&c](const std::string& v) { c.argon2_warm_memory = v == "on"; },
         "Keep each hashing worker's argon2id memory mapped between hashes, wiped after each "
         "(on), or let libsodium map and unmap it for every hash (off)")
      ->envname("AUTHD_ARGON2_WARM_MEMORY")
      ->default_str("on")
      ->check(CLI::IsMember({"on", "off"}));
}

void add_lifetime_options(CLI::App& app, Config& c) {
  add_duration(app, "--session-lifetime", c.policy.session_lifetime, "AUTHD_SESSION_LIFETIME",
               "Absolute lifetime of a login session");
  add_duration(app, "--reset-token-lifetime", c.policy.reset_token_lifetime,
               "AUTHD_RESET_TOKEN_LIFETIME", "Validity of a password-reset link");
  add_duration(app, "--console-idle-timeout", c.policy.console_idle, "AUTHD_CONSOLE_IDLE_TIMEOUT",
               "A console session ends once unused this long (interface.md 21.2)");
}

void add_throttling_options(CLI::App& app, Config& c) {
  add_limit(app, "--login-email-limit", c.policy.login_failures_per_email,
            "AUTHD_LOGIN_EMAIL_LIMIT", "Failed logins per e-mail before 429");
  add_limit(app, "--login-client-limit", c.policy.login_failures_per_client,
            "AUTHD_LOGIN_CLIENT_LIMIT", "Failed logins per client address before 429");
  add_limit(app, "--forgot-client-limit", c.policy.forgot_requests_per_client,
            "AUTHD_FORGOT_CLIENT_LIMIT", "Valid /forgot requests per client address before 429");
  app.add_option("--ipv6-56-limit-factor", c.policy.ipv6_aggregates.per_56,
                 "The /56 around an IPv6 client's /64 may have this many times "
                 "--login-client-limit, --forgot-client-limit, --signup-client-limit and "
                 "--email-signin-client-limit, in the "
                 "same window (0: no /56 counter)")
      ->envname("AUTHD_IPV6_56_LIMIT_FACTOR")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--ipv6-48-limit-factor", c.policy.ipv6_aggregates.per_48,
                 "The /48 around an IPv6 client's /64 may have this many times "
                 "--login-client-limit, --forgot-client-limit, --signup-client-limit and "
                 "--email-signin-client-limit, in the "
                 "same window (0: no /48 counter)")
      ->envname("AUTHD_IPV6_48_LIMIT_FACTOR")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  add_limit(app, "--reset-mail-limit-short", c.policy.reset_mails_per_email_short,
            "AUTHD_RESET_MAIL_LIMIT_SHORT", "Reset mails per e-mail, short window");
  add_limit(app, "--reset-mail-limit-long", c.policy.reset_mails_per_email_long,
            "AUTHD_RESET_MAIL_LIMIT_LONG", "Reset mails per e-mail, long window");
  add_duration(app, "--reset-mail-delay", c.policy.reset_mail_jitter, "AUTHD_RESET_MAIL_DELAY",
               "A reset or sign-up mail is due after a random delay up to this (hides the "
               "worker's disk writes from the timing of /forgot and /signup)");
}

void add_signup_options(CLI::App& app, Config& c) {
  app.add_option_function<std::string>(
         "--signup", [&c](const std::string& v) { c.policy.signup_open = v == "open"; },
         "Self-service sign-up (POST /signup, POST and GET /verify): open or closed (the "
         "routes answer 404)")
      ->envname("AUTHD_SIGNUP")
      ->default_str("closed")
      ->check(CLI::IsMember({"open", "closed"}));
  add_duration(app, "--signup-token-lifetime", c.policy.signup_token_lifetime,
               "AUTHD_SIGNUP_TOKEN_LIFETIME", "Validity of a sign-up's verification link");
  add_limit(app, "--signup-client-limit", c.policy.signup_requests_per_client,
            "AUTHD_SIGNUP_CLIENT_LIMIT", "Valid /signup requests per client address before 429");
  add_limit(app, "--signup-mail-limit-short", c.policy.signup_mails_per_email_short,
            "AUTHD_SIGNUP_MAIL_LIMIT_SHORT", "Sign-up mails per e-mail, short window");
  add_limit(app, "--signup-mail-limit-long", c.policy.signup_mails_per_email_long,
            "AUTHD_SIGNUP_MAIL_LIMIT_LONG", "Sign-up mails per e-mail, long window");
}

void add_email_signin_options(CLI::App& app, Config& c) {
  app.add_option_function<std::string>(
         "--email-signin", [&c](const std::string& v) { c.policy.email_signin = v == "on"; },
         "Passwordless sign-in by mail (POST /signin/email, POST /signin/email/verify, the "
         "page GET /signin/email): on or off (the routes answer 404)")
      ->envname("AUTHD_EMAIL_SIGNIN")
      ->default_str("off")
      ->check(CLI::IsMember({"on", "off"}));
  add_limit(app, "--email-signin-client-limit", c.policy.email_signin_requests_per_client,
            "AUTHD_EMAIL_SIGNIN_CLIENT_LIMIT",
            "Valid /signin/email requests per client address before 429");
  add_limit(app, "--email-signin-mail-limit-short", c.policy.email_signin_mails_per_email_short,
            "AUTHD_EMAIL_SIGNIN_MAIL_LIMIT_SHORT", "Sign-in mails per e-mail, short window");
  add_limit(app, "--email-signin-mail-limit-long", c.policy.email_signin_mails_per_email_long,
            "AUTHD_EMAIL_SIGNIN_MAIL_LIMIT_LONG", "Sign-in mails per e-mail, long window");
}

void add_oidc_options(CLI::App& app, Config& c) {
  OidcSettings& oidc = c.policy.oidc;
  app.add_option_function<std::string>(
         "--oidc", [&oidc](const std::string& v) { oidc.on = v == "on"; },
         "The OpenID Connect provider (/oauth2/..., /.well-known/..., the sign-in page "
         "GET /signin): on or off (the routes answer 404). Needs a secret key "
         "(--secret-key-file) and turns cookie sessions on")
      ->envname("AUTHD_OIDC")
      ->default_str("off")
      ->check(CLI::IsMember({"on", "off"}));
  add_duration(app, "--oidc-id-token-ttl", oidc.id_token_ttl, "AUTHD_OIDC_ID_TOKEN_TTL",
               "Lifetime of an ID token");
  add_duration(app, "--oidc-access-token-ttl", oidc.access_token_ttl, "AUTHD_OIDC_ACCESS_TOKEN_TTL",
               "Lifetime of an OAuth access token");
  add_duration(app, "--oidc-refresh-idle", oidc.refresh_idle, "AUTHD_OIDC_REFRESH_IDLE",
               "How long a refresh token lives unused (each use issues the next one)");
  add_duration(app, "--oidc-refresh-max", oidc.refresh_max, "AUTHD_OIDC_REFRESH_MAX",
               "How long refresh tokens last at most from the sign-in they began with, used or "
               "not");
  add_duration(app, "--oidc-secret-overlap", oidc.secret_overlap, "AUTHD_OIDC_SECRET_OVERLAP",
               "How long a client's previous secret keeps working after a rotation");
  add_duration(app, "--oidc-key-prepublish", oidc.key_prepublish, "AUTHD_OIDC_KEY_PREPUBLISH",
               "How long the next signing keys are published before they sign");
  add_duration(app, "--oidc-key-rotation", oidc.key_rotation, "AUTHD_OIDC_KEY_ROTATION",
               "How long a signing key signs before the next one takes over");
}

void add_second_factor_options(CLI::App& app, Config& c) {
  app.add_option("--secret-key-file", c.secret_key_file,
                 "File of the key that seals TOTP secrets (64 hex digits, `openssl rand -hex "
                 "32`), kept outside the database; default with SQLite: DATABASE.key, created "
                 "0600 on first start. Required for second factors on PostgreSQL (every "
                 "instance reads the same file)")
      ->envname("AUTHD_SECRET_KEY_FILE");
  app.add_option("--previous-secret-key-file", c.previous_secret_key_file,
                 "During a key rotation: the former key, still accepted to open secrets it "
                 "sealed (each is sealed anew with the current key when next used, or by "
                 "`authd mfa reseal`)")
      ->envname("AUTHD_PREVIOUS_SECRET_KEY_FILE");
  app.add_option("--mfa-issuer", c.policy.mfa_issuer,
                 "The issuer authenticator apps show beside the account (otpauth:// URI)")
      ->envname("AUTHD_MFA_ISSUER")
      ->check([](const std::string& v) {
        return v.empty() || v.size() > 64 || v.find(':') != std::string::npos
                   ? std::string("1 to 64 characters, no colon")
                   : std::string();
      })
      ->capture_default_str();
  app.add_option("--webauthn-rp-id", c.webauthn_rp_id,
                 "Passkeys: the RP ID (a domain) they are bound to; default: the host of "
                 "--public-url (an IP address leaves passkeys off)")
      ->envname("AUTHD_WEBAUTHN_RP_ID");
  app.add_option("--webauthn-origins", c.webauthn_origins,
                 "Passkeys: comma-separated origins (https://HOST[:PORT]) whose pages may use "
                 "them; default: the origin of --public-url")
      ->envname("AUTHD_WEBAUTHN_ORIGINS");
}

void add_event_options(CLI::App& app, Config& c) {
  add_duration(app, "--event-retention", c.event_retention, "AUTHD_EVENT_RETENTION",
               "How long audit events are kept before they are pruned");
  app.add_option("--webhook-secret-file", c.webhook_secret_file,
                 "File of the webhook signing secret (whsec_ and base64, as Standard Webhooks "
                 "says); required with --webhook-url")
      ->envname("AUTHD_WEBHOOK_SECRET_FILE");
  app.add_option("--webhook-max-attempts", c.webhook_max_attempts,
                 "Attempts a webhook delivery gets before it is dead (kept, counted in "
                 "/metrics, listed and retried by `authd webhooks`)")
      ->envname("AUTHD_WEBHOOK_MAX_ATTEMPTS")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  add_duration(app, "--webhook-timeout", c.webhook_timeout, "AUTHD_WEBHOOK_TIMEOUT",
               "Time-out of one webhook delivery attempt, connection included");
  add_duration(app, "--webhook-claim-lease", c.webhook_claim_lease, "AUTHD_WEBHOOK_CLAIM_LEASE",
               "How long an attempt holds a webhook delivery before another may take it; must "
               "exceed --webhook-timeout");
  add_duration(app, "--webhook-first-retry", c.webhook_first_retry, "AUTHD_WEBHOOK_FIRST_RETRY",
               "Delay before a failed webhook delivery's first retry (doubled for each next one, "
               "up to an hour)");
  app.add_option("--webhook-queue-max", c.webhook_queue_max,
                 "Pending webhook deliveries past which the oldest login.failed ones are "
                 "dropped (counted in /metrics, logged); other events are never dropped")
      ->envname("AUTHD_WEBHOOK_QUEUE_MAX")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{100'000'000}))
      ->capture_default_str();
}

void add_smtp_options(CLI::App& app, Config& c) {
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
}

void add_mail_delivery_options(CLI::App& app, Config& c) {
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
  app.add_option("--mail-templates", c.mail_templates,
                 "Directory of mail templates (NAME.subject|text|html.mustache, "
                 "docs/reference/mail-templates.md), each replacing the built-in one of that name; "
                 "checked at start")
      ->envname("AUTHD_MAIL_TEMPLATES");
}

void add_notify_option(CLI::App& app, Config& c) {
  // A bad list is left to check_config: a bad_configuration, exit 2.
  app.add_option_function<std::string>(
         "--notify",
         [&c](const std::string& v) {
           c.notify = v;
           std::string problem;
           c.policy.notify = parse_notify_list(v, problem).value_or(NoticeSettings{});
         },
         "Notification mails to the account's address (interface.md 14.3): a comma-separated "
         "list of password-changed, email-changed, mfa-changed, or none")
      ->envname("AUTHD_NOTIFY")
      ->default_str(c.notify);
}

}  // namespace authd
