#include "config/config_checks.hpp"

#include <optional>

#include "auth/events/notices.hpp"
#include "http/client_address.hpp"
#include "mail/transport.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

ConfigFinding bad_configuration(const std::string& option, const std::string& reason) {
  return {ConfigFinding::Severity::error,
          "bad_configuration",
          {{"option", option}, {"reason", reason}}};
}

// The settings of --mail-transport smtp that cannot work or would send
// secrets in clear: at most one error (each check assumes the ones before
// passed), or the warning that the operator allowed reset links in clear.
std::optional<ConfigFinding> check_smtp(const Config& c) {
  if (c.smtp.url.empty())
    return bad_configuration("--smtp-url", "required with --mail-transport smtp");
  // A delivery still under way when its lease ends would be sent twice.
  if (c.mail_claim_lease <= c.smtp.timeout)
    return bad_configuration("--mail-claim-lease", "must exceed --smtp-timeout");
  // Credentials never cross the network in clear: plain or opportunistic
  // SMTP (which an attacker on the path can strip) with AUTH is refused
  // unless the relay is on this machine.
  using Mode = SmtpSettings::StartTls;
  bool may_be_clear = c.smtp.url.rfind("smtp://", 0) == 0 &&
                      (c.smtp.starttls == Mode::off || c.smtp.starttls == Mode::opportunistic);
  if (!may_be_clear || is_loopback_smtp_host(c.smtp.url)) return std::nullopt;
  if (!c.smtp.username.empty())
    return bad_configuration("--smtp-starttls",
                             "SMTP credentials would travel in clear to a remote relay; use "
                             "required, or an smtps:// URL");
  // Nor do reset links, unless the operator says so: a link is a password
  // for whoever reads it on the way.
  if (!c.smtp_allow_plaintext)
    return bad_configuration("--smtp-starttls",
                             "reset links would travel in clear to a remote relay; use required, "
                             "an smtps:// URL, or --smtp-allow-plaintext to accept that");
  return ConfigFinding{
      ConfigFinding::Severity::warning,
      "smtp_plaintext_allowed",
      {{"reason", "reset links may travel in clear to the relay (--smtp-allow-plaintext)"}}};
}

// interface.md 14.4: webhooks need their secret (read at start, in
// cli/serve.cpp) and an http(s) URL; an attempt must end within its lease,
// or a live attempt could be claimed and sent again by another.
void check_webhooks(const Config& c, std::vector<ConfigFinding>& findings) {
  if (c.webhook_url.empty()) return;
  bool https = c.webhook_url.rfind("https://", 0) == 0;
  if (!https && c.webhook_url.rfind("http://", 0) != 0)
    findings.push_back(bad_configuration("--webhook-url", "must be an http:// or https:// URL"));
  if (c.webhook_secret_file.empty())
    findings.push_back(bad_configuration("--webhook-secret-file", "required with --webhook-url"));
  if (c.webhook_claim_lease <= c.webhook_timeout)
    findings.push_back(bad_configuration("--webhook-claim-lease", "must exceed --webhook-timeout"));
  if (!https && !is_loopback_smtp_host(c.webhook_url))
    findings.push_back({ConfigFinding::Severity::warning,
                        "webhook_url_not_https",
                        {{"reason",
                          "events (account ids, client addresses) would travel in clear to "
                          "another machine: use https://"}}});
}

// Settings that work but weaken what authd protects: a database reached
// without verified TLS, proxies trusted to name any client.
void check_database_and_proxies(const Config& c, std::vector<ConfigFinding>& findings) {
  using Severity = ConfigFinding::Severity;
  if (auto risk = database_transport_risk(c.database)) {
    findings.push_back({Severity::warning,
                        "database_connection_unverified",
                        {{"host", risk->host},
                         {"sslmode", risk->sslmode},
                         {"reason",
                          "the database is on another machine and sslmode is not verify-full: the "
                          "connection may be read or redirected on the network"}}});
  }
  for (const IpNetwork& network : c.http.trusted_proxies) {
    if (network.contains_everything())
      findings.push_back(
          {Severity::warning,
           "trusted_proxies_include_everyone",
           {{"network", network.to_string()},
            {"reason", "any client can name itself in X-Forwarded-For or Forwarded"}}});
  }
  // interface.md 13.2: with no trusted proxy every connection would be closed.
  if (c.http.proxy_protocol && c.http.trusted_proxies.empty())
    findings.push_back(bad_configuration(
        "--proxy-protocol", "needs --trusted-proxies: only their connections are accepted"));
}

void check_tls(const Config& c, std::vector<ConfigFinding>& findings) {
  // interface.md 13.3: a certificate is served with its key.
  if (c.tls_cert.empty() != c.tls_key.empty())
    findings.push_back(bad_configuration(c.tls_cert.empty() ? "--tls-cert" : "--tls-key",
                                         "--tls-cert and --tls-key go together"));
  if (c.tls_on() && c.public_url.rfind("http://", 0) == 0)
    findings.push_back({ConfigFinding::Severity::warning,
                        "public_url_not_https",
                        {{"public_url", c.public_url},
                         {"reason",
                          "the listeners speak HTTPS only: links in mails and the "
                          "allowed origin should be https://"}}});
}

void check_session_cookie(const Config& c, std::vector<ConfigFinding>& findings) {
  // interface.md 13.5: the cookie's Origin check needs the public origin.
  if (c.http.session_cookie.on() && !c.public_origin())
    findings.push_back(
        bad_configuration("--public-url",
                          "--session-cookie needs a public URL such as https://auth.example.com "
                          "(its origin is the one allowed to send the cookie)"));
  // interface.md 13.5: a cookie without the `__Host-` prefix can be
  // overwritten by a sibling host of the public URL's (cookie tossing).
  auto origin = c.public_origin();
  if (c.http.session_cookie.on() && origin && origin->rfind("https://", 0) == 0 &&
      c.http.session_cookie.name.rfind("__Host-", 0) != 0)
    findings.push_back({ConfigFinding::Severity::warning,
                        "session_cookie_without_host_prefix",
                        {{"session_cookie", c.http.session_cookie.name},
                         {"reason",
                          "a page on another host of the same site can set a cookie of this "
                          "name for authd's host (cookie tossing); name it __Host-" +
                              c.http.session_cookie.name}}});
}

// interface.md 18.1: the redirect URIs at the upstreams are under the
// public URL, https:// (or http:// on a loopback host, for tests).
void check_upstreams(const Config& c, std::vector<ConfigFinding>& findings) {
  if (c.upstreams.empty()) return;
  std::optional<std::string> origin = c.public_origin();
  if (!origin || (origin->rfind("https://", 0) != 0 && !c.public_url_is_loopback_http()))
    findings.push_back(bad_configuration(
        "--public-url",
        "[[upstream]] providers need an https:// public URL (their redirect URIs are under it), "
        "or http:// on a loopback host"));
}

// interface.md 17.2: an issuer is https://, or http:// on a loopback host.
void check_oidc(const Config& c, std::vector<ConfigFinding>& findings) {
  if (!c.policy.oidc.on) return;
  std::optional<std::string> origin = c.public_origin();
  if (!origin || (origin->rfind("https://", 0) != 0 && !c.public_url_is_loopback_http()))
    findings.push_back(
        bad_configuration("--public-url",
                          "--oidc on needs an https:// public URL (the issuer), or http:// on a "
                          "loopback host for development"));
}

void check_password_hashing(const Config& c, std::vector<ConfigFinding>& findings) {
  if (c.argon2_memory_kib < 19456 || c.argon2_iterations < 2) {
    findings.push_back({ConfigFinding::Severity::warning,
                        "weak_password_hashing",
                        {{"argon2_memory_kib", c.argon2_memory_kib},
                         {"argon2_iterations", c.argon2_iterations},
                         {"owasp_minimum", "m=19456 KiB, t=2"}}});
  }
}

// --notify, the mail transport (SMTP) and webhooks.
void check_notifications(const Config& c, std::vector<ConfigFinding>& findings) {
  std::string notify_problem;
  if (!parse_notify_list(c.notify, notify_problem))
    findings.push_back(bad_configuration("--notify", notify_problem));
  if (c.mail_transport != "log") {
    if (auto smtp = check_smtp(c)) findings.push_back(std::move(*smtp));
  }
  check_webhooks(c, findings);
}

}  // namespace

// Each group appends its findings; the order of the calls is the order they
// are logged in.
std::vector<ConfigFinding> check_config(const Config& c) {
  std::vector<ConfigFinding> findings;
  if (!c.listen_endpoint())
    findings.push_back({ConfigFinding::Severity::error,
                        "bad_configuration",
                        {{"option", "--listen"}, {"value", c.listen}}});
  check_database_and_proxies(c, findings);
  check_tls(c, findings);
  check_session_cookie(c, findings);
  check_oidc(c, findings);
  check_upstreams(c, findings);
  check_password_hashing(c, findings);
  check_notifications(c, findings);
  Config::RelyingParty party = c.webauthn_relying_party();
  if (!party.problem_option.empty())
    findings.push_back(bad_configuration(party.problem_option, party.problem));
  return findings;
}

}  // namespace authd
