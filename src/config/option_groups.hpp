// The groups of `authd serve`'s options, each declared by its own function
// (config.cpp composes them in add_serve_options, in the order --help lists
// them), and the helpers for the option kinds they share. Internal to
// src/config/.
#pragma once

#include <string>

#include "config/config.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace authd {

// A duration option ("10s", "15m", "24h") bound to a Duration field.
CLI::Option* add_duration(CLI::App& app, const std::string& name, Duration& target,
                          const std::string& env, const std::string& help);
// A throttling limit option ("10/15m").
CLI::Option* add_limit(CLI::App& app, const std::string& name, RateLimit& target,
                       const std::string& env, const std::string& help);

// network_options.cpp
// Where the listeners listen, and what the public one is called.
void add_listener_options(CLI::App& app, Config& c);
// Connection caps, threads, body size and time-outs of both listeners.
void add_connection_options(CLI::App& app, Config& c);
// Browsers (CORS) and reverse proxies in front of authd.
void add_browser_and_proxy_options(CLI::App& app, Config& c);
// HTTPS on both listeners (interface.md 13.3).
void add_tls_options(CLI::App& app, Config& c);

// service_options.cpp
// The store's tuning beyond add_database_options: caches, threads, pruning.
void add_store_tuning_options(CLI::App& app, Config& c);
// The hashing pool.
void add_hashing_options(CLI::App& app, Config& c);
// How long sessions and reset links live.
void add_lifetime_options(CLI::App& app, Config& c);
// Throttling of logins, /forgot and reset mails.
void add_throttling_options(CLI::App& app, Config& c);
// Self-service sign-up (interface.md 11.4-11.5): --signup and its token
// lifetime and limits.
void add_signup_options(CLI::App& app, Config& c);
// Passwordless sign-in by mail (interface.md 19): --email-signin and its
// limits.
void add_email_signin_options(CLI::App& app, Config& c);
// The OpenID Connect provider (interface.md 17): --oidc and its lifetimes.
void add_oidc_options(CLI::App& app, Config& c);
// The second factor (interface.md 12): the key TOTP secrets are sealed
// with, the previous one during a rotation, and the issuer apps show.
void add_second_factor_options(CLI::App& app, Config& c);
// The audit trail and webhooks (interface.md 14): retention, and the
// webhooks' secret, attempts and queue bound (--webhook-url is a database
// option, accepted by every command so that one file serves them all).
void add_event_options(CLI::App& app, Config& c);
// How mail leaves: the transport, and the SMTP relay's settings.
void add_smtp_options(CLI::App& app, Config& c);
// The outbox worker's deliveries, and the mail itself.
void add_mail_delivery_options(CLI::App& app, Config& c);

}  // namespace authd
