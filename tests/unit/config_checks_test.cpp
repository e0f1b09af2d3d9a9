// config/config_checks: the settings of `authd serve` checked against each
// other before anything starts, one rule per test. Through the real binary
// (exit code and log): tests/integration/startup_checks_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config_checks.hpp"
#include "http/client_address.hpp"

namespace authd {
namespace {

using Severity = ConfigFinding::Severity;

std::vector<ConfigFinding> of_severity(const std::vector<ConfigFinding>& findings,
                                       Severity severity) {
  std::vector<ConfigFinding> matching;
  for (const ConfigFinding& finding : findings)
    if (finding.severity == severity) matching.push_back(finding);
  return matching;
}

std::vector<ConfigFinding> errors(const Config& config) {
  return of_severity(check_config(config), Severity::error);
}

std::vector<ConfigFinding> warnings(const Config& config) {
  return of_severity(check_config(config), Severity::warning);
}

// The one error of `config`, or a failed test.
ConfigFinding the_error(const Config& config) {
  std::vector<ConfigFinding> found = errors(config);
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? ConfigFinding{} : found.front();
}

// The option that the one error of `config` (a bad_configuration line) names.
std::string refused_option(const Config& config) {
  ConfigFinding error = the_error(config);
  EXPECT_EQ(error.event, "bad_configuration");
  return error.fields.value("option", "");
}

// Why: the reason of that error.
std::string refusal_reason(const Config& config) {
  return the_error(config).fields.value("reason", "");
}

// --mail-transport smtp to a relay on another machine, STARTTLS `mode`.
Config remote_smtp(SmtpSettings::StartTls mode) {
  Config c;
  c.mail_transport = "smtp";
  c.smtp.url = "smtp://mail.example.com:587";
  c.smtp.starttls = mode;
  return c;
}

TEST(ConfigChecks, TheDefaultsHaveNoFinding) { EXPECT_TRUE(check_config(Config{}).empty()); }

TEST(ConfigChecks, AListenAddressThatIsNotHostColonPortStopsTheStart) {
  Config c;
  c.listen = "localhost";
  EXPECT_EQ(refused_option(c), "--listen");
  EXPECT_EQ(the_error(c).fields["value"], "localhost");
  c.listen = "[::1]:0";
  EXPECT_TRUE(errors(c).empty());
}

TEST(ConfigChecks, TheSmtpTransportNeedsARelayUrl) {
  Config c;
  c.mail_transport = "smtp";
  EXPECT_EQ(refused_option(c), "--smtp-url");
}

// The log transport uses none of the SMTP settings, so none is checked.
TEST(ConfigChecks, TheLogTransportIgnoresTheSmtpSettings) {
  Config c = remote_smtp(SmtpSettings::StartTls::off);
  c.smtp.username = "mailer";
  c.mail_claim_lease = c.smtp.timeout;
  c.mail_transport = "log";
  EXPECT_TRUE(check_config(c).empty());
}

// 6 /forgot 4: a delivery still under way when its lease ends would be
// claimed again and sent twice.
TEST(ConfigChecks, Interface_6_Forgot_4_TheMailLeaseMustExceedTheSmtpTimeout) {
  Config c = remote_smtp(SmtpSettings::StartTls::required);
  c.mail_claim_lease = c.smtp.timeout;
  EXPECT_EQ(refused_option(c), "--mail-claim-lease");
  c.mail_claim_lease = c.smtp.timeout + std::chrono::seconds(1);
  EXPECT_TRUE(check_config(c).empty());
}

// 6 /forgot 3: plain or opportunistic SMTP (STARTTLS can be stripped by
// anyone on the path) to a remote relay would carry reset links in clear.
TEST(ConfigChecks, Interface_6_Forgot_3_ResetLinksInClearToARemoteRelayAreRefused) {
  for (auto mode : {SmtpSettings::StartTls::off, SmtpSettings::StartTls::opportunistic}) {
    EXPECT_EQ(refused_option(remote_smtp(mode)), "--smtp-starttls");
    EXPECT_NE(refusal_reason(remote_smtp(mode)).find("--smtp-allow-plaintext"), std::string::npos);
  }
}

// 6 /forgot 3: the explicit flag accepts it, said once as a warning.
TEST(ConfigChecks, Interface_6_Forgot_3_PlaintextAllowedExplicitlyIsAWarning) {
  Config c = remote_smtp(SmtpSettings::StartTls::off);
  c.smtp_allow_plaintext = true;
  EXPECT_TRUE(errors(c).empty());
  std::vector<ConfigFinding> found = warnings(c);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].event, "smtp_plaintext_allowed");
}

// 6 /forgot 3: STARTTLS required (also what auto means for a remote relay),
// implicit TLS, or a relay on this machine: nothing travels in clear.
TEST(ConfigChecks, Interface_6_Forgot_3_TlsOrALoopbackRelayNeedsNoFlag) {
  using Mode = SmtpSettings::StartTls;
  EXPECT_TRUE(check_config(remote_smtp(Mode::automatic)).empty());
  EXPECT_TRUE(check_config(remote_smtp(Mode::required)).empty());
  Config implicit_tls = remote_smtp(Mode::off);
  implicit_tls.smtp.url = "smtps://mail.example.com:465";
  EXPECT_TRUE(check_config(implicit_tls).empty());
  for (const char* url : {"smtp://127.0.0.1:25", "smtp://[::1]:25", "smtp://localhost:25"}) {
    Config loopback = remote_smtp(Mode::off);
    loopback.smtp.url = url;
    loopback.smtp.username = "mailer";
    EXPECT_TRUE(check_config(loopback).empty()) << url;
  }
}

// SMTP credentials never go in clear to a remote relay, not even with
// --smtp-allow-plaintext (which speaks for the reset links only).
TEST(ConfigChecks, SmtpCredentialsInClearToARemoteRelayAreRefusedEvenWithThePlaintextFlag) {
  for (bool allowed : {false, true}) {
    Config c = remote_smtp(SmtpSettings::StartTls::opportunistic);
    c.smtp.username = "mailer";
    c.smtp_allow_plaintext = allowed;
    EXPECT_EQ(refused_option(c), "--smtp-starttls");
    EXPECT_NE(refusal_reason(c).find("credentials"), std::string::npos);
    EXPECT_TRUE(warnings(c).empty());
  }
}

// Every error is reported, not only the first.
TEST(ConfigChecks, ErrorsOfDifferentSettingsAreReportedTogether) {
  Config c;
  c.listen = "nonsense";
  c.mail_transport = "smtp";
  EXPECT_EQ(errors(c).size(), 2u);
}

// 8.2: a database on another machine without sslmode=verify-full.
TEST(ConfigChecks, Interface_8_2_ARemotePostgresqlWithoutVerifiedTlsIsWarnedAbout) {
  Config c;
  c.database = "postgresql://authd@db.example.com:5432/authd?sslmode=require";
  std::vector<ConfigFinding> found = warnings(c);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].event, "database_connection_unverified");
  EXPECT_EQ(found[0].fields["host"], "db.example.com");
  EXPECT_EQ(found[0].fields["sslmode"], "require");
  EXPECT_TRUE(errors(c).empty());
  for (const char* safe :
       {"postgresql://authd@db.example.com/authd?sslmode=verify-full",
        "postgresql://authd@127.0.0.1/authd?sslmode=disable", "sqlite:authd.db"}) {
    c.database = safe;
    EXPECT_TRUE(check_config(c).empty()) << safe;
  }
}

// 13.3: a certificate without its key, or a key without its certificate,
// stops the start; both together are fine.
TEST(ConfigChecks, Interface_13_3_CertificateAndKeyGoTogether) {
  Config cert_only;
  cert_only.tls_cert = "/etc/authd/cert.pem";
  EXPECT_EQ(refused_option(cert_only), "--tls-key");
  Config key_only;
  key_only.tls_key = "/etc/authd/key.pem";
  EXPECT_EQ(refused_option(key_only), "--tls-cert");
  Config both = cert_only;
  both.tls_key = key_only.tls_key;
  both.public_url = "https://auth.example.com";
  EXPECT_TRUE(check_config(both).empty());
}

// 13.3: links in mails keep an http:// public URL while the listeners
// speak HTTPS only: said at start.
TEST(ConfigChecks, Interface_13_3_AnHttpPublicUrlWithTlsIsWarnedAbout) {
  Config c;
  c.tls_cert = "/etc/authd/cert.pem";
  c.tls_key = "/etc/authd/key.pem";
  c.public_url = "http://auth.example.com";
  ASSERT_EQ(warnings(c).size(), 1u);
  EXPECT_EQ(warnings(c).front().event, "public_url_not_https");
}

// 13.5: over an https:// public URL, a session cookie whose name lacks
// the `__Host-` prefix is warned about (a sibling host could toss one of
// that name); with the prefix, over http://, or with no cookie, nothing.
TEST(ConfigChecks, Interface_13_5_ACookieWithoutTheHostPrefixIsWarnedAboutOverHttps) {
  Config c;
  c.public_url = "https://auth.example.com";
  c.http.session_cookie.name = "authd_session";
  ASSERT_EQ(warnings(c).size(), 1u);
  EXPECT_EQ(warnings(c).front().event, "session_cookie_without_host_prefix");
  EXPECT_EQ(warnings(c).front().fields["session_cookie"], "authd_session");
  c.http.session_cookie.name = "__Secure-authd_session";
  EXPECT_EQ(warnings(c).size(), 1u) << "__Secure- does not stop a sibling host";
  c.http.session_cookie.name = "__Host-authd_session";
  EXPECT_TRUE(warnings(c).empty());
  c.http.session_cookie.name = "authd_session";
  c.public_url = "http://auth.example.com";
  EXPECT_TRUE(warnings(c).empty());
  c.public_url = "https://auth.example.com";
  c.http.session_cookie.name.clear();
  EXPECT_TRUE(warnings(c).empty());
}

// 13.1: a trusted proxy network that holds every address lets any client
// name itself in X-Forwarded-For or Forwarded.
TEST(ConfigChecks, Interface_13_1_TrustingEveryAddressIsWarnedAbout) {
  Config c;
  for (const char* network : {"10.0.0.0/8", "0.0.0.0/0", "::/0"})
    c.http.trusted_proxies.push_back(*IpNetwork::parse(network));
  std::vector<ConfigFinding> found = warnings(c);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].event, "trusted_proxies_include_everyone");
  EXPECT_EQ(found[0].fields["network"], "0.0.0.0/0");
  EXPECT_EQ(found[1].fields["network"], "::/0");
}

// 4.1: argon2id below OWASP's minimum (m = 19 MiB, t = 2) works, and is
// said at start.
TEST(ConfigChecks, Interface_4_1_HashingBelowTheOwaspMinimumIsWarnedAbout) {
  Config c;
  c.argon2_memory_kib = 19455;
  std::vector<ConfigFinding> found = warnings(c);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].event, "weak_password_hashing");
  EXPECT_EQ(found[0].fields["argon2_memory_kib"], 19455);
  c = Config{};
  c.argon2_iterations = 1;
  EXPECT_EQ(warnings(c).size(), 1u);
  EXPECT_TRUE(errors(c).empty());
}

}  // namespace
}  // namespace authd
