// interface.md 6 /forgot 3-5 over real SMTP: authd's libcurl transport
// delivers to an SMTP receiver (tests/support/smtp_sink.py, Debian's
// aiosmtpd) started by the test. Retries, restarts, AUTH and STARTTLS.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"
#include "tls_client.hpp"

namespace authd::test {
namespace {

// authd delivering to `smtp_url`, mails due at once; `more` appended.
std::vector<std::string> smtp_args(const std::string& smtp_url,
                                   std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1ms", "--mail-transport", "smtp", "--smtp-url",
                           smtp_url, "--mail-from", "Example Accounts <accounts@example.com>"});
  if (std::find(more.begin(), more.end(), "--smtp-starttls") == more.end())
    args.insert(args.end(), {"--smtp-starttls", "off"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string smtp_url(unsigned short port) { return "smtp://127.0.0.1:" + std::to_string(port); }

int forgot(const AuthdProcess& authd, const std::string& email) {
  return post_json(authd.port(), "/forgot", forgot_body(email)).status;
}

// The value of the first header `name` of a mail ("" when absent).
std::string header_of(const std::string& mail, const std::string& name) {
  std::smatch found;
  std::regex header("(^|\r\n)" + name + ": ([^\r\n]*)\r\n");
  if (!std::regex_search(mail, found, header)) return "";
  return found[2];
}

// The reset mails' rows (the notice that follows a reset is
// notifications_test's).
std::string outbox_state(const AuthdProcess& authd) {
  return without_trailing_newlines(
      authd.sql("select email, attempts, case when sent_at is null then 0 else 1 end from outbox "
                "where kind = 'password_reset' order by id"));
}

// interface.md 6 /forgot 3: the mail for an existing, enabled account
// reaches the receiver with proper headers, the envelope, and a link whose
// token resets the password end to end.
TEST(Smtp, Interface_6_Forgot_3_ResetMailArrivesOverSmtp) {
  SmtpSink sink;
  AuthdProcess authd(smtp_args(sink.url()));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, kEmail), 200);
  auto mails = sink.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  const std::string& mail = mails[0];

  EXPECT_EQ(header_of(mail, "Return-Path"), "<accounts@example.com>");
  EXPECT_EQ(header_of(mail, "Delivered-To"), kEmail);
  EXPECT_EQ(header_of(mail, "From"), "Example Accounts <accounts@example.com>");
  EXPECT_EQ(header_of(mail, "To"), kEmail);
  EXPECT_EQ(header_of(mail, "Subject"), "Reset your password");
  EXPECT_TRUE(std::regex_match(
      header_of(mail, "Date"),
      std::regex(R"(^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$)")))
      << header_of(mail, "Date");
  EXPECT_TRUE(std::regex_match(header_of(mail, "Message-ID"),
                               std::regex(R"(^<[0-9a-f-]{36}@authd\.test>$)")))
      << header_of(mail, "Message-ID");
  EXPECT_NE(header_of(mail, "Content-Type").find("multipart/alternative"), std::string::npos);

  std::string token = reset_token_in(mail);
  ASSERT_TRUE(std::regex_match(token, std::regex("^authdrt_[A-Za-z0-9_-]{43}$"))) << token;
  ASSERT_EQ(post_json(authd.port(), "/reset", reset_body(token, kNewPassword)).status, 200);
  EXPECT_EQ(authd.login(kEmail, kPassword), "");
  EXPECT_NE(authd.login(kEmail, kNewPassword), "");
  EXPECT_EQ(outbox_state(authd), kEmail + "|0|1");
}

// interface.md 6 /forgot 2, 3 and 5: no mail for an unknown or a disabled
// account, and a second request within a minute sends nothing. A last mail
// to another account is the barrier: once it has arrived, every earlier
// request has been dealt with.
TEST(Smtp, Interface_6_Forgot_5_OnlyEnabledAccountsGetMailAndOnlyOnceAMinute) {
  SmtpSink sink;
  AuthdProcess authd(smtp_args(sink.url()));
  authd.add_user(kEmail, kPassword);
  authd.add_user("disabled@example.com", kPassword);
  ASSERT_EQ(authd.cli({"user", "disable", "--email", "disabled@example.com"}), 0);
  authd.add_user("barrier@example.com", kPassword);

  EXPECT_EQ(forgot(authd, "nobody@example.com"), 200);
  EXPECT_EQ(forgot(authd, "disabled@example.com"), 200);
  EXPECT_EQ(forgot(authd, kEmail), 200);
  EXPECT_EQ(forgot(authd, kEmail), 200);
  EXPECT_EQ(forgot(authd, "barrier@example.com"), 200);

  auto mails = sink.wait_for_mails(2);
  ASSERT_EQ(mails.size(), 2u);
  std::vector<std::string> recipients;
  for (const auto& mail : mails) recipients.push_back(header_of(mail, "Delivered-To"));
  std::sort(recipients.begin(), recipients.end());
  EXPECT_EQ(recipients, (std::vector<std::string>{kEmail, "barrier@example.com"}));
  // The requests for the unknown and the disabled address were queued like
  // the others (the same work for every address, interface.md 6 /forgot 2)
  // and are dropped by the worker when due, perhaps after the barrier's mail
  // arrived.
  EXPECT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox")) == std::vector<std::string>{"2"};
  }));
  EXPECT_EQ(lines(authd.sql("select count(*) from reset_tokens")), std::vector<std::string>{"2"});
}

// interface.md 6 /forgot 4: the relay is down when the mail is due; authd
// retries, and the mail arrives once the relay is up. The token delivered
// is the only live one: the failed attempt's token was replaced.
TEST(Smtp, Interface_6_Forgot_4_RelayDownThenUpDeliversOnRetry) {
  ReservedPort relay;  // refuses connections until the sink starts on it
  AuthdProcess authd(smtp_args(smtp_url(relay.port())));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, kEmail), 200);
  ASSERT_TRUE(wait_for_log(authd, "\"event\":\"mail_failed\"")) << authd.log_text();

  relay.release();
  SmtpSink sink({.port = relay.port()});
  auto mails = sink.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  std::string token = reset_token_in(mails[0]);
  EXPECT_EQ(lines(authd.sql("select hex(token_digest) from reset_tokens")),
            std::vector<std::string>{sha256_hex(token)});
  EXPECT_EQ(post_json(authd.port(), "/reset", reset_body(token, kNewPassword)).status, 200);
  auto sent =
      lines(authd.sql("select case when attempts >= 1 then 1 else 0 end, "
                      "case when sent_at is null then 0 else 1 end from outbox "
                      "where kind = 'password_reset'"));
  EXPECT_EQ(sent, std::vector<std::string>{"1|1"});
}

// interface.md 6 /forgot 4: a temporary SMTP failure (451) is retried with
// backoff and recorded; the mail arrives once.
TEST(Smtp, Interface_6_Forgot_4_TemporaryRejectionIsRetried) {
  SmtpSink sink({.fail_first = 1});
  AuthdProcess authd(smtp_args(sink.url()));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, kEmail), 200);
  auto mails = sink.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  // Marked sent a moment after the relay has it.
  EXPECT_TRUE(eventually([&] { return outbox_state(authd) == kEmail + "|1|1"; }))
      << outbox_state(authd);
  EXPECT_TRUE(wait_for_log(authd, "451")) << authd.log_text();
  EXPECT_EQ(
      post_json(authd.port(), "/reset", reset_body(reset_token_in(mails[0]), kNewPassword)).status,
      200);
}

// interface.md 6 /forgot 4 retries what may pass; a recipient the relay
// refuses for good (550 to RCPT TO) never will: that mail is dropped after
// one attempt, counted and logged with the address masked, and the outbox
// goes on delivering the next mail.
TEST(Smtp, Interface_6_Forgot_4_ARecipientRefusedForGoodIsDroppedNotRetried) {
  const std::string refused = "nobody@example.com";
  SmtpSink sink({.refuse_recipients = {refused}});
  AuthdProcess authd(smtp_args(sink.url()));
  authd.add_user(refused, kPassword);
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, refused), 200);
  ASSERT_TRUE(wait_for_log(authd, "\"event\":\"mail_rejected\"")) << authd.log_text();

  ASSERT_EQ(forgot(authd, kEmail), 200);  // delivered after the rejected one
  auto mails = sink.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  EXPECT_EQ(header_of(mails[0], "Delivered-To"), kEmail);
  // The refused mail is gone, not rescheduled; the other one is marked sent
  // (a moment after the relay has it).
  EXPECT_TRUE(eventually([&] { return outbox_state(authd) == kEmail + "|0|1"; }))
      << outbox_state(authd);
  std::string metrics = "\n" + send_request(authd.admin_port(), "GET", "/metrics").body;
  EXPECT_NE(metrics.find("\nauthd_outbox_rejected_total 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nauthd_outbox_delivery_failures_total 0\n"), std::string::npos)
      << metrics;

  std::string log = authd.log_text();
  EXPECT_EQ(log.find("\"event\":\"mail_failed\""), std::string::npos) << log;
  EXPECT_NE(log.find("RCPT failed: 550"), std::string::npos) << log;  // the relay's answer
  EXPECT_EQ(log.find(refused), std::string::npos) << "the address must be masked:\n" << log;
}

// interface.md 6 /forgot 4: a crash (kill -9) after the 200 and before the
// delivery loses no mail: it is delivered after the restart.
TEST(Smtp, Interface_6_Forgot_4_MailSurvivesKillNineBeforeDelivery) {
  ReservedPort relay;  // no relay yet: the mail cannot leave
  AuthdProcess authd(
      smtp_args(smtp_url(relay.port()), {"--smtp-timeout", "2s", "--mail-claim-lease", "5s"}));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, kEmail), 200);
  authd.kill_hard();
  EXPECT_EQ(lines(authd.sql("select count(*) from outbox where sent_at is null")),
            std::vector<std::string>{"1"});

  relay.release();
  SmtpSink sink({.port = relay.port()});
  authd.start();
  auto mails = sink.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  EXPECT_EQ(
      post_json(authd.port(), "/reset", reset_body(reset_token_in(mails[0]), kNewPassword)).status,
      200);
}

// SMTP AUTH: with the relay's credentials the mail is accepted; with wrong
// ones it is refused and retried, and the password never reaches the log.
TEST(Smtp, AuthenticatesWithConfiguredCredentials) {
  SmtpSink sink({.auth = "mailer:relay-secret-1"});
  {
    AuthdProcess wrong(smtp_args(
        sink.url(), {"--smtp-username", "mailer", "--smtp-password", "not-the-secret-2"}));
    wrong.add_user(kEmail, kPassword);
    ASSERT_EQ(forgot(wrong, kEmail), 200);
    ASSERT_TRUE(wait_for_log(wrong, "\"event\":\"mail_failed\"")) << wrong.log_text();
    EXPECT_EQ(wrong.log_text().find("not-the-secret-2"), std::string::npos);
  }
  AuthdProcess authd(
      smtp_args(sink.url(), {"--smtp-username", "mailer", "--smtp-password", "relay-secret-1"}));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, kEmail), 200);
  auto mails = sink.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  EXPECT_EQ(header_of(mails[0], "Delivered-To"), kEmail);
  EXPECT_EQ(authd.log_text().find("relay-secret-1"), std::string::npos);
}

// A self-signed certificate for 127.0.0.1 (tls_client.hpp's, made with
// Debian's openssl) in a directory of its own, removed afterwards.
struct RelayCertificate {
  std::string directory =
      std::filesystem::temp_directory_path() / ("authd-cert-" + std::to_string(::getpid()));
  std::string cert;
  std::string key;
  RelayCertificate() {
    std::filesystem::create_directories(directory);
    TestCertificate made = make_certificate(directory, "127.0.0.1");
    cert = made.cert;
    key = made.key;
  }
  ~RelayCertificate() { std::filesystem::remove_all(directory); }
};

// STARTTLS required: the relay offers it with a certificate authd trusts
// through --smtp-ca-file; the mail arrives over TLS.
TEST(Smtp, StartTlsWithAPrivateCa) {
  RelayCertificate certificate;
  SmtpSink sink({.tls_cert = certificate.cert, .tls_key = certificate.key});
  AuthdProcess authd(
      smtp_args(sink.url(), {"--smtp-starttls", "required", "--smtp-ca-file", certificate.cert}));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, kEmail), 200);
  auto mails = sink.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  EXPECT_FALSE(reset_token_in(mails[0]).empty());
}

// STARTTLS required and a relay without it: nothing is sent in clear; the
// attempt fails and is retried later.
TEST(Smtp, StartTlsRequiredRefusesAPlainRelay) {
  SmtpSink sink;
  AuthdProcess authd(smtp_args(sink.url(), {"--smtp-starttls", "required"}));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, kEmail), 200);
  ASSERT_TRUE(wait_for_log(authd, "\"event\":\"mail_failed\"")) << authd.log_text();
  EXPECT_TRUE(sink.mails().empty());
  EXPECT_EQ(lines(authd.sql("select count(*) from outbox where sent_at is null")),
            std::vector<std::string>{"1"});
}

// --mail-transport smtp without a relay, or a lease shorter than the SMTP
// time-out, is a configuration error at start, not a silent loss of mail.
TEST(Smtp, BadSmtpConfigurationStopsTheStart) {
  EXPECT_THROW(AuthdProcess({"--mail-transport", "smtp"}), std::runtime_error);
  EXPECT_THROW(AuthdProcess({"--mail-transport", "smtp", "--smtp-url", "smtp://127.0.0.1:25",
                             "--smtp-timeout", "2m", "--mail-claim-lease", "1m"}),
               std::runtime_error);
  EXPECT_THROW(AuthdProcess({"--mail-transport", "smtp", "--smtp-url", "http://127.0.0.1:25"}),
               std::runtime_error);
  // Credentials that could travel in clear to a remote relay.
  for (const char* mode : {"off", "opportunistic"}) {
    EXPECT_THROW(AuthdProcess({"--mail-transport", "smtp", "--smtp-url", "smtp://mail.example.com",
                               "--smtp-username", "u", "--smtp-starttls", mode}),
                 std::runtime_error)
        << mode;
  }
}

}  // namespace
}  // namespace authd::test
