// interface.md 19: passwordless sign-in by mail. POST /signin/email answers
// the same for every address and queues a mail; the outbox worker mails a
// link and an 8-digit code to an enabled account (or, with sign-up open, a
// sign-up link to an address without one); POST /signin/email/verify opens
// a session with either. Real HTTP, real mail files (the log transport).
// timing_test.cpp measures the time of POST /signin/email.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"
#include "mfa_support.hpp"
#include "passkey_support.hpp"
#include "run_authd.hpp"

namespace authd::test {
namespace {

const std::string kSignin = "/signin/email";
const std::string kVerify = "/signin/email/verify";

// Mails become due at once (unless `more` sets the delay), so tests wait
// only for the worker's poll.
std::vector<std::string> signin_args(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--email-signin", "on"});
  if (std::find(more.begin(), more.end(), "--reset-mail-delay") == more.end())
    args.insert(args.end(), {"--reset-mail-delay", "1ms"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

HttpResponse ask_signin(const AuthdProcess& authd, const std::string& email) {
  return post_json(authd.port(), kSignin, nlohmann::json{{"email", email}}.dump());
}

HttpResponse verify_token(const AuthdProcess& authd, const std::string& token,
                          nlohmann::json extra = nlohmann::json::object(),
                          unsigned short port = 0) {
  extra["token"] = token;
  return post_json(port != 0 ? port : authd.port(), kVerify, extra.dump());
}

HttpResponse verify_code(const AuthdProcess& authd, const std::string& email,
                         const std::string& code, nlohmann::json extra = nlohmann::json::object()) {
  extra["email"] = email;
  extra["code"] = code;
  return post_json(authd.port(), kVerify, extra.dump());
}

// The link alone on its line of the text part ("" when there is none).
std::string signin_token_in(const std::string& mail) {
  std::smatch found;
  static const std::regex link(R"(\r\nhttp://authd\.test/signin/email#token=([A-Za-z0-9_-]+)\r\n)");
  if (!std::regex_search(mail, found, link)) return "";
  return found[1];
}

// The code alone on its line, indented by four spaces ("" when none).
std::string signin_code_in(const std::string& mail) {
  std::smatch found;
  static const std::regex code(R"(\r\n    ([0-9]{8})\r\n)");
  if (!std::regex_search(mail, found, code)) return "";
  return found[1];
}

std::string signin_recipient(const std::string& mail) {
  std::smatch found;
  static const std::regex to(R"((^|\r\n)To: ([^\r\n]*)\r\n)");
  if (!std::regex_search(mail, found, to)) return "";
  return found[2];
}

// A code of 8 digits that is not `code`.
std::string other_code(const std::string& code, int n = 1) {
  std::string wrong = code;
  wrong[7] = static_cast<char>('0' + (wrong[7] - '0' + n) % 10);
  return wrong;
}

// Upper-case hex of SHA-256 over the token's raw digest and the code: the
// code's digest were it not keyed.
std::string unkeyed_code_digest_hex(const std::string& token, const std::string& code) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(token.data()), token.size());
  return sha256_hex(std::string(reinterpret_cast<const char*>(digest), sizeof digest) + code);
}

std::vector<std::string> signin_rows(const AuthdProcess& authd, const std::string& query) {
  return lines(authd.sql(query));
}

void wait_until_sent(const AuthdProcess& authd) {
  ASSERT_TRUE(eventually([&] {
    return signin_rows(authd, "select count(*) from outbox where sent_at is null") ==
           std::vector<std::string>{"0"};
  })) << authd.log_text();
}

struct SigninMail {
  std::string mail;
  std::string token;
  std::string code;
};

// The mails of the directory that carry a sign-in link, oldest first
// (others, such as the notice of a new factor, may arrive meanwhile).
std::vector<std::string> signin_mails(const AuthdProcess& authd) {
  std::vector<std::string> out;
  for (std::string& mail : authd.mails())
    if (!signin_token_in(mail).empty()) out.push_back(std::move(mail));
  return out;
}

// Asks for a sign-in mail for `email` and reads the one that follows.
SigninMail mailed_signin(const AuthdProcess& authd, const std::string& email) {
  const std::size_t before = signin_mails(authd).size();
  EXPECT_EQ(ask_signin(authd, email).status, 200);
  if (!eventually([&] { return signin_mails(authd).size() > before; })) {
    ADD_FAILURE() << "no sign-in mail arrived:\n" << authd.log_text();
    return {};
  }
  std::string mail = signin_mails(authd).back();
  SigninMail m{mail, signin_token_in(mail), signin_code_in(mail)};
  EXPECT_FALSE(m.code.empty()) << m.mail;
  return m;
}

// ---- 19.1 the request ------------------------------------------------------

// interface.md 19.1: off by default, and with --email-signin off, the four
// routes are unknown paths (404), as with sign-up closed.
TEST(EmailSignin, Interface_19_1_OffTheRoutesAre404) {
  for (const auto& args : {fast_hashing(), std::vector<std::string>{"--email-signin", "off"}}) {
    AuthdProcess authd(args);
    authd.add_user(kEmail, kPassword);
    const std::vector<std::pair<std::string, std::string>> requests = {
        {"POST", kSignin}, {"POST", kVerify}, {"GET", kSignin}, {"GET", "/signin/email.js"}};
    for (const auto& [method, path] : requests) {
      std::string body = path == kVerify ? R"({"email":"alice@example.com","code":"12345678"})"
                                         : R"({"email":"alice@example.com"})";
      HttpResponse res =
          send_request(authd.port(), method, path, {{"Content-Type", "application/json"}},
                       method == "POST" ? body : "");
      EXPECT_EQ(res.status, 404) << method << " " << path;
      EXPECT_EQ(res.body, R"({"code":404,"message":"Not Found"})") << method << " " << path;
    }
    EXPECT_EQ(signin_rows(authd, "select count(*) from outbox"), std::vector<std::string>{"0"});
    EXPECT_EQ(signin_rows(authd, "select count(*) from throttle_events"),
              std::vector<std::string>{"0"});
  }
}

// interface.md 19.1 (1.4, 1.6): on, the routes take JSON only, and only on
// the public listener.
TEST(EmailSignin, Interface_19_1_OnTheRoutesExistOnThePublicListenerOnly) {
  AuthdProcess authd(signin_args());
  for (const std::string& path : {kSignin, kVerify}) {
    EXPECT_EQ(send_request(authd.port(), "POST", path, {{"Content-Type", "text/plain"}},
                           R"({"email":"alice@example.com"})")
                  .status,
              415)
        << path;
    EXPECT_EQ(send_request(authd.port(), "PUT", path).status, 405) << path;
    EXPECT_EQ(send_request(authd.admin_port(), "POST", path, {{"Content-Type", "application/json"}},
                           R"({"email":"alice@example.com"})")
                  .status,
              404)
        << path;
  }
}

// interface.md 19.1: a body that is not an object, a missing or non-string
// e-mail, an invalid one (3.1): 400, exactly as /forgot; nothing queued,
// nothing counted, no event.
TEST(EmailSignin, Interface_19_1_InvalidRequestIs400) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  const std::vector<std::string> bodies = {
      R"({})",
      R"({"mail":"alice@example.com"})",
      R"({"email":1})",
      R"({"email":null})",
      R"({"email":true})",
      R"({"email":["alice@example.com"]})",
      R"({"email":{"address":"alice@example.com"}})",
      R"({"email":""})",
      R"({"email":"alice"})",
      R"({"email":" alice@example.com"})",
      R"({"email":"alice@example.com","email":"alice@example.com"})",
      R"("alice@example.com")",
      "[]",
      "{",
  };
  for (const std::string& body : bodies) {
    HttpResponse res = post_json(authd.port(), kSignin, body);
    EXPECT_EQ(res.status, 400) << body;
    EXPECT_EQ(res.json()["code"], 400) << body;
    EXPECT_EQ(res.json()["message"], "Bad Request") << body;
  }
  EXPECT_EQ(signin_rows(authd, "select count(*) from outbox"), std::vector<std::string>{"0"});
  EXPECT_EQ(signin_rows(authd, "select count(*) from throttle_events"),
            std::vector<std::string>{"0"});
  EXPECT_TRUE(events_of_type(authd, "login.email_requested").empty());
}

// interface.md 19.1: exactly {"email": "<canonical form>"}, the same for
// an enabled, a disabled and an unknown address; no credential set.
TEST(EmailSignin, Interface_19_1_AnswerIsExactlyTheCanonicalEmail) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});

  HttpResponse enabled = ask_signin(authd, "Alice@Example.COM");
  HttpResponse disabled = ask_signin(authd, "carol@example.com");
  HttpResponse unknown = ask_signin(authd, "Nobody@Example.com");
  ASSERT_EQ(enabled.status, 200);
  ASSERT_EQ(disabled.status, 200);
  ASSERT_EQ(unknown.status, 200);
  EXPECT_EQ(enabled.body, R"({"email":"alice@example.com"})");
  EXPECT_EQ(disabled.body, R"({"email":"carol@example.com"})");
  EXPECT_EQ(unknown.body, R"({"email":"nobody@example.com"})");
  for (const HttpResponse* res : {&enabled, &disabled, &unknown}) {
    EXPECT_EQ(res->header("Content-Type").rfind("application/json", 0), 0u);
    EXPECT_EQ(res->header("Cache-Control"), "no-store");
    EXPECT_TRUE(res->header("Authorization").empty());
    EXPECT_TRUE(res->header("Set-Cookie").empty());
  }
}

// interface.md 19.1: the request writes the same rows whatever the
// address, and looks no account up (that happens at delivery, here an
// hour away): one outbox row naming no account and one mail-limit event,
// under a key of its own (not /forgot's). timing_test.cpp measures the time.
TEST(EmailSignin, Interface_19_1_EveryAddressQueuesTheSameRequest) {
  AuthdProcess authd(signin_args({"--reset-mail-delay", "1h"}));
  authd.add_user(kEmail, kPassword);
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});
  for (const char* email : {"alice@example.com", "carol@example.com", "nobody@example.com"})
    ASSERT_EQ(ask_signin(authd, email).status, 200) << email;
  EXPECT_EQ(signin_rows(authd, "select email, kind, user_id, attempts from outbox order by email"),
            (std::vector<std::string>{"alice@example.com|email_signin||0",
                                      "carol@example.com|email_signin||0",
                                      "nobody@example.com|email_signin||0"}));
  EXPECT_EQ(signin_rows(authd,
                        "select key, count(*) from throttle_events where key like 'mail:%' "
                        "group by key order by key"),
            (std::vector<std::string>{"mail:signin:alice@example.com|1",
                                      "mail:signin:carol@example.com|1",
                                      "mail:signin:nobody@example.com|1"}));
  // Minted at delivery: nothing yet.
  EXPECT_EQ(signin_rows(authd, "select count(*) from email_signins"),
            std::vector<std::string>{"0"});
}

// interface.md 19.1: per client, N valid requests per window, then 429
// with Retry-After; requests answered 400 or 415 are not counted, nor is
// the 429 itself.
TEST(EmailSignin, Interface_19_1_PerClientLimit) {
  AuthdProcess authd(signin_args({"--email-signin-client-limit", "2/15m"}));
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(post_json(authd.port(), kSignin, R"({"email":""})").status, 400);
    ASSERT_EQ(post_json(authd.port(), kSignin, R"({"email":1})").status, 400);
    ASSERT_EQ(send_request(authd.port(), "POST", kSignin, {{"Content-Type", "text/plain"}},
                           R"({"email":"alice@example.com"})")
                  .status,
              415);
  }
  EXPECT_EQ(ask_signin(authd, "one@example.com").status, 200);
  EXPECT_EQ(ask_signin(authd, "two@example.com").status, 200);
  HttpResponse blocked = ask_signin(authd, "three@example.com");
  EXPECT_EQ(blocked.status, 429) << blocked.body;
  EXPECT_EQ(blocked.body, R"({"code":429,"message":"Too Many Requests"})");
  expect_retry_after(blocked, 900);
  EXPECT_EQ(ask_signin(authd, "four@example.com").status, 429);
  EXPECT_EQ(post_json(authd.port(), kSignin, R"({"email":""})").status, 400);
  EXPECT_EQ(signin_rows(authd,
                        "select count(*) from throttle_events where key like "
                        "'signin-mail:client:%'"),
            std::vector<std::string>{"2"});
  // Only the two accepted requests were queued.
  EXPECT_EQ(signin_rows(authd, "select email from outbox order by email"),
            (std::vector<std::string>{"one@example.com", "two@example.com"}));
}

// interface.md 19.1: the client limit is counted apart from /forgot's,
// both ways: one route's exhausted limit leaves the other open.
TEST(EmailSignin, Interface_19_1_ClientLimitIsCountedApartFromForgot) {
  const std::vector<std::string> limits = {"--email-signin-client-limit", "1/15m",
                                           "--forgot-client-limit", "1/15m"};
  AuthdProcess authd(signin_args(limits));
  EXPECT_EQ(ask_signin(authd, "one@example.com").status, 200);
  EXPECT_EQ(ask_signin(authd, "two@example.com").status, 429);
  EXPECT_EQ(post_json(authd.port(), "/forgot", forgot_body("one@example.com")).status, 200);
  EXPECT_EQ(post_json(authd.port(), "/forgot", forgot_body("two@example.com")).status, 429);

  AuthdProcess other(signin_args(limits));
  EXPECT_EQ(post_json(other.port(), "/forgot", forgot_body("one@example.com")).status, 200);
  EXPECT_EQ(post_json(other.port(), "/forgot", forgot_body("two@example.com")).status, 429);
  EXPECT_EQ(ask_signin(other, "one@example.com").status, 200);
}

// interface.md 19.1: at most one sign-in mail a minute per address; past
// it the answer is the same 200 and nothing is queued. Counted apart from
// reset mails: a /forgot for the same address still mails.
TEST(EmailSignin, Interface_19_1_OneMailPerMinutePerEmailApartFromResetMails) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  HttpResponse first = ask_signin(authd, kEmail);
  HttpResponse second = ask_signin(authd, "Alice@example.com");
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(first.body, second.body);
  ASSERT_EQ(ask_signin(authd, "bob@example.com").status, 200);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  authd.wait_for_mails(3);
  wait_until_sent(authd);
  std::vector<std::string> mails = authd.mails();
  ASSERT_EQ(mails.size(), 3u);
  int signin_to_alice = 0, reset_to_alice = 0, signin_to_bob = 0;
  for (const std::string& mail : mails) {
    bool signin = !signin_token_in(mail).empty();
    if (signin_recipient(mail) == kEmail) (signin ? signin_to_alice : reset_to_alice)++;
    if (signin_recipient(mail) == "bob@example.com" && signin) ++signin_to_bob;
  }
  EXPECT_EQ(signin_to_alice, 1);
  EXPECT_EQ(reset_to_alice, 1);
  EXPECT_EQ(signin_to_bob, 1);
}

// interface.md 19.1: at most five sign-in mails an hour per address (the
// one-a-minute limit relaxed to reach it).
TEST(EmailSignin, Interface_19_1_FiveMailsAnHourPerEmail) {
  AuthdProcess authd(signin_args({"--email-signin-mail-limit-short", "100/1m"}));
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  for (int i = 0; i < 7; ++i) {
    HttpResponse res = ask_signin(authd, kEmail);
    ASSERT_EQ(res.status, 200) << "request " << i + 1;
    EXPECT_EQ(res.body, R"({"email":"alice@example.com"})");
  }
  ASSERT_EQ(ask_signin(authd, "bob@example.com").status, 200);
  authd.wait_for_mails(6);
  wait_until_sent(authd);
  std::vector<std::string> mails = authd.mails();
  ASSERT_EQ(mails.size(), 6u);
  EXPECT_EQ(std::count_if(mails.begin(), mails.end(),
                          [](const std::string& m) { return signin_recipient(m) == kEmail; }),
            5);
}

// interface.md 19.1 (14.1.3): an accepted request records
// login.email_requested, naming no account (as /forgot's event), with the
// address masked; a 400 or a 429 records none.
TEST(EmailSignin, Interface_19_1_AnAcceptedRequestRecordsItsEventNamingNoAccount) {
  AuthdProcess authd(signin_args({"--email-signin-client-limit", "2/15m"}));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(post_json(authd.port(), kSignin, R"({"email":"alice"})").status, 400);
  ASSERT_EQ(ask_signin(authd, kEmail).status, 200);
  ASSERT_EQ(ask_signin(authd, "nobody@example.com").status, 200);
  ASSERT_EQ(ask_signin(authd, "bob@example.com").status, 429);
  std::vector<nlohmann::json> requested = events_of_type(authd, "login.email_requested");
  ASSERT_EQ(requested.size(), 2u);
  for (const nlohmann::json& event : requested) {
    EXPECT_EQ(event["actor"], "self") << event;
    EXPECT_TRUE(event["userId"].is_null()) << event;
  }
  EXPECT_EQ(requested[0]["detail"], (nlohmann::json{{"email", "n***@example.com"}}));
  EXPECT_EQ(requested[1]["detail"], (nlohmann::json{{"email", "a***@example.com"}}));
}

// interface.md 19.1: an IPv6 client is its /64, and the /56 and /48 around
// it are counters too, at /forgot's factors (clients named through
// X-Forwarded-For by the trusted loopback peer, 13.1).
TEST(EmailSignin, Interface_19_1_Slash56AndSlash48AreLimitedAcrossTheirSlash64s) {
  AuthdProcess authd(signin_args({"--trusted-proxies", "127.0.0.1/32",
                                  "--email-signin-client-limit", "2/15m", "--ipv6-56-limit-factor",
                                  "2", "--ipv6-48-limit-factor", "3", "--reset-mail-delay", "1h"}));
  int n = 0;
  auto ask_as = [&](const std::string& client) {
    return post_json(authd.port(), kSignin,
                     nlohmann::json{{"email", "n" + std::to_string(++n) + "@example.com"}}.dump(),
                     {{"X-Forwarded-For", client}})
        .status;
  };
  EXPECT_EQ(ask_as("2001:db8:1:100::1"), 200);
  EXPECT_EQ(ask_as("2001:db8:1:100::2"), 200);
  EXPECT_EQ(ask_as("2001:db8:1:100::3"), 429);  // the /64
  EXPECT_EQ(ask_as("2001:db8:1:101::1"), 200);
  EXPECT_EQ(ask_as("2001:db8:1:101::1"), 200);
  EXPECT_EQ(ask_as("2001:db8:1:1ff::1"), 429);  // the /56 is full
  EXPECT_EQ(ask_as("2001:db8:1:200::1"), 200);
  EXPECT_EQ(ask_as("2001:db8:1:200::1"), 200);
  EXPECT_EQ(ask_as("2001:db8:1:300::1"), 429);  // the /48 is full
  EXPECT_EQ(ask_as("2001:db8:2::1"), 200);
  EXPECT_EQ(ask_as("198.51.100.1"), 200);
  // /forgot's counters are apart.
  EXPECT_EQ(post_json(authd.port(), "/forgot", forgot_body("x@example.com"),
                      {{"X-Forwarded-For", "2001:db8:1:100::1"}})
                .status,
            200);
}

// interface.md 19.1 (9.1): the flags, their defaults, and the same
// settings as config-file keys and AUTHD_ environment variables.
TEST(EmailSignin, Interface_19_1_FlagsDefaultsConfigKeysAndEnvironmentNames) {
  auto value_of = [](const std::string& toml, const std::string& key) {
    std::smatch m;
    return std::regex_search(toml, m, std::regex("(^|\n)" + key + " = ([^\n]*)")) ? m[2].str() : "";
  };
  CommandResult defaults = run_authd({"config"});
  ASSERT_EQ(defaults.exit_code, 0) << defaults.output;
  EXPECT_EQ(value_of(defaults.output, "email-signin"), "'off'");
  EXPECT_EQ(value_of(defaults.output, "email-signin-client-limit"), "'100/15m'");
  EXPECT_EQ(value_of(defaults.output, "email-signin-mail-limit-short"), "'1/1m'");
  EXPECT_EQ(value_of(defaults.output, "email-signin-mail-limit-long"), "'5/1h'");

  char pattern[] = "/tmp/authd-signin-config-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string path = std::string(pattern) + "/authd.toml";
  std::ofstream(path) << "email-signin = \"on\"\nemail-signin-client-limit = \"7/15m\"\n";
  CommandResult set = run_authd(
      {"config", "--config", path},
      {"AUTHD_EMAIL_SIGNIN_MAIL_LIMIT_SHORT=2/1m", "AUTHD_EMAIL_SIGNIN_MAIL_LIMIT_LONG=9/1h"});
  std::filesystem::remove_all(pattern);
  ASSERT_EQ(set.exit_code, 0) << set.output;
  EXPECT_EQ(value_of(set.output, "email-signin"), "'on'");
  EXPECT_EQ(value_of(set.output, "email-signin-client-limit"), "'7/15m'");
  EXPECT_EQ(value_of(set.output, "email-signin-mail-limit-short"), "'2/1m'");
  EXPECT_EQ(value_of(set.output, "email-signin-mail-limit-long"), "'9/1h'");
  CommandResult by_environment =
      run_authd({"config"}, {"AUTHD_EMAIL_SIGNIN=on", "AUTHD_EMAIL_SIGNIN_CLIENT_LIMIT=3/1m"});
  EXPECT_EQ(value_of(by_environment.output, "email-signin"), "'on'");
  EXPECT_EQ(value_of(by_environment.output, "email-signin-client-limit"), "'3/1m'");
}

// ---- 19.2 the mail ---------------------------------------------------------

// interface.md 19.2: an enabled account's mail has the link
// {public_url}/signin/email#token=<token> and an 8-digit code, each alone
// on its line (the code indented by four spaces), valid 15 minutes; only
// digests are at rest, and neither the token nor the code is in the log.
TEST(EmailSignin, Interface_19_2_MailWithALinkAndAnEightDigitCodeAndOnlyDigestsAtRest) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, "ALICE@example.com");
  ASSERT_FALSE(m.token.empty());
  EXPECT_EQ(signin_recipient(m.mail), kEmail);
  EXPECT_TRUE(matches(m.token, token_pattern())) << m.token;
  EXPECT_EQ(m.token.rfind("authdsi_", 0), 0u) << m.token;
  EXPECT_TRUE(matches(m.code, std::regex("^[0-9]{8}$"))) << m.code;
  EXPECT_NE(m.mail.find("15 minutes"), std::string::npos) << m.mail;
  // The HTML part has both too.
  const std::string link = "http://authd.test/signin/email#token=" + m.token;
  std::size_t html = m.mail.find("Content-Type: text/html");
  ASSERT_NE(html, std::string::npos) << m.mail;
  EXPECT_NE(m.mail.find("href=\"" + link + "\"", html), std::string::npos) << m.mail;
  EXPECT_NE(m.mail.find(m.code, html), std::string::npos) << m.mail;

  wait_until_sent(authd);
  EXPECT_EQ(signin_rows(authd, "select hex(token_digest) from email_signins"),
            std::vector<std::string>{sha256_hex(m.token)});
  std::vector<std::string> code_digest =
      signin_rows(authd, "select hex(code_digest) from email_signins");
  ASSERT_EQ(code_digest.size(), 1u);
  // Keyed under the secret key (made beside the SQLite file; the harness
  // gives one on PostgreSQL), so a copy of the database cannot try codes.
  EXPECT_NE(code_digest[0], sha256_hex(m.code));
  EXPECT_NE(code_digest[0], unkeyed_code_digest_hex(m.token, m.code));
  EXPECT_EQ(
      signin_rows(authd, "select expires_at - created_at, email, wrong_codes from email_signins"),
      std::vector<std::string>{"900000|alice@example.com|0"});
  if (!on_postgres()) {
    std::string at_rest = stored_bytes(authd);
    EXPECT_EQ(at_rest.find(m.token), std::string::npos);
    EXPECT_EQ(at_rest.find(m.token.substr(m.token.find('_') + 1)), std::string::npos);
  }
  std::string log = authd.log_text();
  EXPECT_EQ(log.find(m.token.substr(m.token.find('_') + 1)), std::string::npos);
  EXPECT_EQ(log.find(m.code), std::string::npos);
}

// interface.md 19.2: each mail has its own token and code, minted at
// delivery; the account has one live sign-in mail: a newer one voids the
// older's link and code.
TEST(EmailSignin, Interface_19_2_ANewerMailVoidsTheOlder) {
  AuthdProcess authd(signin_args({"--email-signin-mail-limit-short", "100/1m"}));
  authd.add_user(kEmail, kPassword);
  SigninMail older = mailed_signin(authd, kEmail);
  SigninMail newer = mailed_signin(authd, kEmail);
  ASSERT_FALSE(older.token.empty());
  ASSERT_FALSE(newer.token.empty());
  EXPECT_NE(older.token, newer.token);
  wait_until_sent(authd);
  EXPECT_EQ(signin_rows(authd, "select hex(token_digest) from email_signins"),
            std::vector<std::string>{sha256_hex(newer.token)});
  EXPECT_EQ(verify_token(authd, older.token).status, 401);
  if (older.code != newer.code) {
    EXPECT_EQ(verify_code(authd, kEmail, older.code).status, 401);
  }
  EXPECT_EQ(verify_token(authd, newer.token).status, 200);
}

// interface.md 19.2: with sign-up closed (the default), nothing is mailed
// for an address without an account or with a disabled one; the request
// is dropped. A mail to an enabled account afterwards proves the worker ran.
TEST(EmailSignin, Interface_19_2_NothingForADisabledOrUnknownAccountWhenSignupIsClosed) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});
  ASSERT_EQ(ask_signin(authd, "nobody@example.com").status, 200);
  ASSERT_EQ(ask_signin(authd, "carol@example.com").status, 200);
  ASSERT_EQ(ask_signin(authd, kEmail).status, 200);
  authd.wait_for_mails(1);
  wait_until_sent(authd);
  std::vector<std::string> mails = authd.mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(signin_recipient(mails[0]), kEmail);
  EXPECT_EQ(signin_rows(authd, "select count(*) from outbox"), std::vector<std::string>{"1"});
  EXPECT_EQ(signin_rows(authd, "select email from email_signins"),
            std::vector<std::string>{kEmail});
  EXPECT_EQ(signin_rows(authd, "select count(*) from users"), std::vector<std::string>{"2"});
}

// interface.md 19.2 and 10.4.13: erasing an account takes its live
// sign-in mail with it (the row, and the address it holds).
TEST(EmailSignin, Interface_19_2_AnErasedAccountLeavesNoSignInMailBehind) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.token.empty());
  wait_until_sent(authd);
  ASSERT_EQ(signin_rows(authd, "select count(*) from email_signins"),
            std::vector<std::string>{"1"});
  std::string output;
  ASSERT_EQ(authd.cli({"user", "delete", "--email", kEmail}, "", &output), 0) << output;
  EXPECT_EQ(signin_rows(authd, "select count(*) from email_signins"),
            std::vector<std::string>{"0"});
  EXPECT_EQ(verify_token(authd, m.token).status, 401);
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 401);
}

// interface.md 19.2: disabling voids the mail in its own transaction: its
// link and code are 401 then, and stay void once the account is enabled
// again (it needs a new mail).
TEST(EmailSignin, Interface_19_2_DisablingVoidsTheMailForGood) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.token.empty());
  wait_until_sent(authd);
  ASSERT_EQ(authd.cli({"user", "disable", "--email", kEmail}), 0);
  EXPECT_EQ(signin_rows(authd, "select count(*) from email_signins"),
            std::vector<std::string>{"0"});
  HttpResponse res = verify_token(authd, m.token);
  EXPECT_EQ(res.status, 401) << res.body;
  EXPECT_EQ(res.body, unauthorized_body());
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 401);
  ASSERT_EQ(authd.cli({"user", "enable", "--email", kEmail}), 0);
  EXPECT_EQ(verify_token(authd, m.token).status, 401);
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 401);
  EXPECT_EQ(signin_rows(authd, "select count(*) from sessions"), std::vector<std::string>{"0"});
}

// interface.md 19.2 (7.2): whatever voids the account's reset token voids
// its sign-in mail: a password set by the operator, by the user, by a
// reset, and a new address.
TEST(EmailSignin, Interface_19_2_ANewPasswordOrAddressVoidsTheMail) {
  AuthdProcess authd(signin_args(
      {"--email-signin-mail-limit-short", "100/1m", "--reset-mail-limit-short", "100/1m"}));
  authd.add_user(kEmail, kPassword);
  const std::string id = show_user(authd, kEmail)["id"];
  auto expect_void = [&](const SigninMail& m, const std::string& email, const std::string& how) {
    EXPECT_EQ(signin_rows(authd, "select count(*) from email_signins"),
              std::vector<std::string>{"0"})
        << how;
    EXPECT_EQ(verify_token(authd, m.token).status, 401) << how;
    EXPECT_EQ(verify_code(authd, email, m.code).status, 401) << how;
  };

  SigninMail m = mailed_signin(authd, kEmail);
  wait_until_sent(authd);
  ASSERT_EQ(authd.cli({"user", "set-password", "--email", kEmail}, kNewPassword), 0);
  expect_void(m, kEmail, "authd user set-password");

  m = mailed_signin(authd, kEmail);
  wait_until_sent(authd);
  std::string session = authd.login(kEmail, kNewPassword);
  ASSERT_EQ(post_json(authd.port(), "/password",
                      nlohmann::json{{"currentPassword", kNewPassword},
                                     {"newPassword", "a third passphrase"}}
                          .dump(),
                      {{"Authorization", "Bearer " + session}})
                .status,
            200);
  expect_void(m, kEmail, "POST /password");

  m = mailed_signin(authd, kEmail);
  wait_until_sent(authd);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  std::string reset_token;
  ASSERT_TRUE(eventually([&] {
    for (const std::string& mail : authd.mails())
      if (!reset_token_in(mail).empty()) reset_token = reset_token_in(mail);
    return !reset_token.empty();
  }));
  wait_until_sent(authd);
  ASSERT_EQ(
      post_json(authd.port(), "/reset", reset_body(reset_token, "a fourth passphrase")).status,
      200);
  expect_void(m, kEmail, "POST /reset");

  m = mailed_signin(authd, kEmail);
  wait_until_sent(authd);
  const std::string key = admin::create_key(authd, "ops", "write");
  ASSERT_EQ(admin::call(authd, key, "PATCH", "/admin/users/" + id,
                        nlohmann::json{{"email", "moved@example.com"}})
                .status,
            200);
  expect_void(m, kEmail, "a new address");
  EXPECT_EQ(verify_code(authd, "moved@example.com", m.code).status, 401);
}

// ---- 19.3 the verification -------------------------------------------------

// interface.md 19.3: the link's token opens a session: 200 with the User
// and the token in Authorization, as /login; the mail is used up (its link
// and its code); emailVerifiedAt is set; login.succeeded says email_link.
TEST(EmailSignin, Interface_19_3_TheLinkSignsInOnceAndVoidsTheCode) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  nlohmann::json before = show_user(authd, kEmail);
  ASSERT_TRUE(before["emailVerifiedAt"].is_null()) << before;
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.token.empty());

  HttpResponse res = verify_token(authd, m.token);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  expect_full_user(res.json());
  EXPECT_EQ(res.json()["id"], before["id"]);
  EXPECT_TRUE(res.json()["emailVerifiedAt"].is_string()) << res.body;
  EXPECT_EQ(show_user(authd, kEmail)["emailVerifiedAt"], res.json()["emailVerifiedAt"]);
  std::string session = token_of(res);
  ASSERT_TRUE(matches(session, token_pattern())) << res.header("Authorization");
  HttpResponse me = get_with_token(authd.port(), "/me", session);
  ASSERT_EQ(me.status, 200);
  EXPECT_EQ(me.json()["email"], kEmail);
  EXPECT_EQ(res.header_count("set-cookie"), 0u);

  HttpResponse again = verify_token(authd, m.token);
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(again.body, unauthorized_body());
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 401);
  EXPECT_EQ(signin_rows(authd, "select count(*) from email_signins"),
            std::vector<std::string>{"0"});

  std::vector<nlohmann::json> succeeded = events_of_type(authd, "login.succeeded");
  ASSERT_EQ(succeeded.size(), 1u);
  EXPECT_EQ(succeeded[0]["userId"], before["id"]);
  EXPECT_EQ(succeeded[0]["detail"]["method"], "email_link");
  EXPECT_TRUE(succeeded[0]["detail"]["secondFactor"].is_null()) << succeeded[0];
  EXPECT_TRUE(succeeded[0]["detail"]["sessionId"].is_string()) << succeeded[0];
}

// interface.md 19.3: the address (in any case) and the code open a
// session the same way; the code is used up with the link.
TEST(EmailSignin, Interface_19_3_TheCodeSignsInOnceAndVoidsTheLink) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.code.empty());
  HttpResponse res = verify_code(authd, "Alice@Example.COM", m.code);
  ASSERT_EQ(res.status, 200) << res.body;
  expect_full_user(res.json());
  EXPECT_EQ(res.json()["email"], kEmail);
  EXPECT_EQ(get_with_token(authd.port(), "/me", token_of(res)).status, 200);
  HttpResponse again = verify_code(authd, kEmail, m.code);
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(again.body, unauthorized_body());
  EXPECT_EQ(verify_token(authd, m.token).status, 401);
  std::vector<nlohmann::json> succeeded = events_of_type(authd, "login.succeeded");
  ASSERT_EQ(succeeded.size(), 1u);
  EXPECT_EQ(succeeded[0]["detail"]["method"], "email_code");
}

// interface.md 19.3: an address already verified keeps its first
// verification time.
TEST(EmailSignin, Interface_19_3_KeepsAnEarlierEmailVerification) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(authd.cli({"user", "verify-email", "--email", kEmail}), 0);
  nlohmann::json verified = show_user(authd, kEmail)["emailVerifiedAt"];
  ASSERT_TRUE(verified.is_string());
  HttpResponse res = verify_token(authd, mailed_signin(authd, kEmail).token);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.json()["emailVerifiedAt"], verified);
}

// interface.md 19.3: a body of the wrong shape is 400, before anything is
// counted or looked up; none of them uses the mail up.
TEST(EmailSignin, Interface_19_3_InvalidBodyIs400AndCountsNothing) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.token.empty());
  wait_until_sent(authd);
  const std::string mail_limit_events =
      signin_rows(authd, "select count(*) from throttle_events").at(0);  // the request's own
  const std::vector<nlohmann::json> bodies = {
      nlohmann::json::array({m.token}),
      "token",
      nlohmann::json::object(),
      {{"token", m.token}, {"email", kEmail}, {"code", m.code}},
      {{"token", m.token}, {"email", kEmail}},
      {{"token", m.token}, {"code", m.code}},
      {{"token", ""}},
      {{"token", 7}},
      {{"token", nullptr}},
      {{"token", nlohmann::json::array({m.token})}},
      {{"email", kEmail}},
      {{"code", m.code}},
      {{"email", kEmail}, {"code", 12345678}},
      {{"email", kEmail}, {"code", nullptr}},
      {{"email", 1}, {"code", m.code}},
      {{"email", "alice"}, {"code", m.code}},
      {{"email", " alice@example.com"}, {"code", m.code}},
      {{"email", kEmail}, {"code", "1234567"}},
      {{"email", kEmail}, {"code", "123456789"}},
      {{"email", kEmail}, {"code", "1234567a"}},
      {{"email", kEmail}, {"code", " 12345678"}},
      {{"email", kEmail}, {"code", "1234-5678"}},
      {{"email", kEmail},
       {"code", "\xd9\xa1\xd9\xa2\xd9\xa3\xd9\xa4\xd9\xa5\xd9\xa6\xd9\xa7\xd9\xa8"}},
      {{"email", kEmail}, {"code", ""}},
      {{"token", m.token}, {"otp", 123456}},
      {{"email", kEmail}, {"code", m.code}, {"recoveryCode", nlohmann::json::array()}},
  };
  for (const nlohmann::json& body : bodies) {
    HttpResponse res = post_json(authd.port(), kVerify, body.dump());
    EXPECT_EQ(res.status, 400) << body.dump();
    EXPECT_EQ(res.json()["message"], "Bad Request") << body.dump();
  }
  for (const std::string& raw :
       {std::string("{"), std::string(R"({"token":"a","token":"a"})"), std::string("null")}) {
    EXPECT_EQ(post_json(authd.port(), kVerify, raw).status, 400) << raw;
  }
  EXPECT_EQ(signin_rows(authd, "select count(*) from throttle_events"),
            std::vector<std::string>{mail_limit_events});
  EXPECT_EQ(signin_rows(authd, "select wrong_codes from email_signins"),
            std::vector<std::string>{"0"});
  EXPECT_TRUE(events_of_type(authd, "login.failed").empty());
  EXPECT_EQ(verify_token(authd, m.token).status, 200);
}

// interface.md 19.3: an unknown token (or another kind of token), a code
// for an address with no live mail, or no account: 401 in the contract's
// shape, without WWW-Authenticate; login.failed says email_proof.
TEST(EmailSignin, Interface_19_3_UnknownTokenOrCodeIs401) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  std::string session = authd.login(kEmail, kPassword);
  const std::vector<std::string> tokens = {"authdsi_" + std::string(43, 'A'), "x", session,
                                           "authdsi_" + std::string(300, 'A')};
  for (const std::string& token : tokens) {
    HttpResponse res = verify_token(authd, token);
    EXPECT_EQ(res.status, 401) << token;
    EXPECT_EQ(res.body, unauthorized_body());
    EXPECT_EQ(res.header_count("www-authenticate"), 0u);
    EXPECT_EQ(res.header_count("authd-second-factor"), 0u);
  }
  for (const std::string& email : {kEmail, std::string("nobody@example.com")}) {
    HttpResponse res = verify_code(authd, email, "12345678");
    EXPECT_EQ(res.status, 401) << email;
    EXPECT_EQ(res.body, unauthorized_body());
    EXPECT_EQ(res.header_count("www-authenticate"), 0u);
  }
  std::vector<nlohmann::json> failed = events_of_type(authd, "login.failed");
  ASSERT_EQ(failed.size(), tokens.size() + 2);
  for (const nlohmann::json& event : failed)
    EXPECT_EQ(event["detail"]["reason"], "email_proof") << event;
  // Newest first: the unknown address (null, masked), the account's
  // address (its id), then the tokens (null, no address).
  EXPECT_TRUE(failed[0]["userId"].is_null()) << failed[0];
  EXPECT_EQ(failed[0]["detail"]["email"], "n***@example.com") << failed[0];
  EXPECT_EQ(failed[1]["userId"], show_user(authd, kEmail)["id"]) << failed[1];
  for (std::size_t i = 2; i < failed.size(); ++i) {
    EXPECT_TRUE(failed[i]["userId"].is_null()) << failed[i];
    EXPECT_FALSE(failed[i]["detail"].contains("email")) << failed[i];
  }
  EXPECT_EQ(signin_rows(authd, "select count(*) from sessions"), std::vector<std::string>{"1"});
}

// interface.md 19.3: past its 15 minutes the mail's link and code are 401.
// The clock is moved by ageing the stored row (as the sign-up tests do).
TEST(EmailSignin, Interface_19_3_AnExpiredMailIs401) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.token.empty());
  wait_until_sent(authd);
  authd.sql("update email_signins set expires_at = 1");  // expired long ago
  HttpResponse by_token = verify_token(authd, m.token);
  EXPECT_EQ(by_token.status, 401);
  EXPECT_EQ(by_token.body, unauthorized_body());
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 401);
  EXPECT_EQ(signin_rows(authd, "select count(*) from sessions"), std::vector<std::string>{"0"});
}

// interface.md 19.3: a code gets at most five wrong tries per mail: at the
// fifth the mail is void, so the right code (and the link) are 401 after.
TEST(EmailSignin, Interface_19_3_FiveWrongCodesVoidTheMailEvenForTheRightCode) {
  AuthdProcess authd(signin_args({"--login-email-limit", "100/15m"}));
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.code.empty());
  for (int i = 1; i <= 5; ++i) {
    HttpResponse res = verify_code(authd, kEmail, other_code(m.code, i));
    EXPECT_EQ(res.status, 401) << "wrong code " << i;
    EXPECT_EQ(res.body, unauthorized_body());
  }
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 401);
  EXPECT_EQ(verify_token(authd, m.token).status, 401);
  EXPECT_EQ(signin_rows(authd, "select count(*) from sessions"), std::vector<std::string>{"0"});
  std::vector<nlohmann::json> failed = events_of_type(authd, "login.failed");
  ASSERT_FALSE(failed.empty());
  EXPECT_EQ(failed.back()["detail"]["reason"], "email_proof");
}

// interface.md 19.3: four wrong codes leave the mail usable: the fifth try
// may be the right code.
TEST(EmailSignin, Interface_19_3_FourWrongCodesLeaveTheMailUsable) {
  AuthdProcess authd(signin_args({"--login-email-limit", "100/15m"}));
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.code.empty());
  for (int i = 1; i <= 4; ++i)
    EXPECT_EQ(verify_code(authd, kEmail, other_code(m.code, i)).status, 401) << i;
  wait_until_sent(authd);
  EXPECT_EQ(signin_rows(authd, "select wrong_codes from email_signins"),
            std::vector<std::string>{"4"});
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 200);
}

// interface.md 19.3 (6 /login 4): wrong codes are failed logins of the
// address: past --login-email-limit even the right code is 429, checked
// before the code, and so is /login with the right password.
TEST(EmailSignin, Interface_19_3_WrongCodesCountAsFailedLoginsOfTheAddress) {
  AuthdProcess authd(signin_args({"--login-email-limit", "3/15m"}));
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.code.empty());
  for (int i = 1; i <= 3; ++i)
    EXPECT_EQ(verify_code(authd, kEmail, other_code(m.code, i)).status, 401) << i;
  HttpResponse blocked = verify_code(authd, kEmail, m.code);
  EXPECT_EQ(blocked.status, 429) << blocked.body;
  EXPECT_EQ(blocked.body, R"({"code":429,"message":"Too Many Requests"})");
  expect_retry_after(blocked, 900);
  // With a token, the address of the token's mail (read first).
  EXPECT_EQ(verify_token(authd, m.token).status, 429);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 429);
  // 14.1.6: the 429s of the address are one event.
  std::vector<nlohmann::json> failed = events_of_type(authd, "login.failed");
  int throttled = 0;
  for (const nlohmann::json& event : failed)
    if (event["detail"]["reason"] == "throttled") ++throttled;
  EXPECT_EQ(throttled, 1) << nlohmann::json(failed).dump();
}

// interface.md 19.3 (6 /login 4): /login's failures and this route's
// share the address's counter.
TEST(EmailSignin, Interface_19_3_LoginFailuresAndWrongCodesShareTheAddressCounter) {
  AuthdProcess authd(signin_args({"--login-email-limit", "3/15m"}));
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.code.empty());
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "a wrong guess")).status, 401);
  EXPECT_EQ(verify_code(authd, kEmail, other_code(m.code)).status, 401);
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 429);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 429);
}

// interface.md 19.3 (6 /login 4): unknown tokens are failed logins of the
// client: past --login-client-limit even a right token is 429.
TEST(EmailSignin, Interface_19_3_UnknownTokensCountAsFailedLoginsOfTheClient) {
  AuthdProcess authd(signin_args({"--login-client-limit", "3/15m"}));
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.token.empty());
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(verify_token(authd, "authdsi_" + std::string(43, 'A' + i)).status, 401) << i;
  HttpResponse blocked = verify_token(authd, m.token);
  EXPECT_EQ(blocked.status, 429) << blocked.body;
  expect_retry_after(blocked, 900);
  EXPECT_EQ(verify_code(authd, kEmail, m.code).status, 429);
  // Another client is not refused: the mail is still usable.
  HttpConnection elsewhere(authd.port(), "127.0.0.2");
  HttpResponse ok = elsewhere.request("POST", kVerify, {{"Content-Type", "application/json"}},
                                      nlohmann::json{{"token", m.token}}.dump());
  EXPECT_EQ(ok.status, 200) << ok.body;
}

// interface.md 19.3: a sign-in clears the address's failed-login count.
TEST(EmailSignin, Interface_19_3_ASignInClearsTheAddressFailures) {
  AuthdProcess authd(signin_args({"--login-email-limit", "3/15m"}));
  authd.add_user(kEmail, kPassword);
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "a wrong guess")).status, 401);
  ASSERT_EQ(verify_token(authd, mailed_signin(authd, kEmail).token).status, 200);
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "a wrong guess")).status, 401);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 19.3: a right proof for a live mail of a disabled account
// is 403, not counted as a failed login, and opens nothing. authd never
// leaves such a mail (disabling voids it, 19.2): the account is disabled
// behind its back here.
TEST(EmailSignin, Interface_19_3_ARightProofForADisabledAccountIs403) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.token.empty());
  wait_until_sent(authd);
  authd.sql("update users set disabled = true");
  HttpResponse by_token = verify_token(authd, m.token);
  EXPECT_EQ(by_token.status, 403) << by_token.body;
  EXPECT_EQ(by_token.body, R"({"code":403,"message":"Forbidden"})");
  EXPECT_TRUE(by_token.header("Authorization").empty());
  HttpResponse by_code = verify_code(authd, kEmail, m.code, {{"otp", "123456"}});
  EXPECT_EQ(by_code.status, 403) << by_code.body;
  EXPECT_EQ(by_code.header_count("authd-second-factor"), 0u);
  EXPECT_EQ(signin_rows(authd, "select count(*) from sessions"), std::vector<std::string>{"0"});
  EXPECT_EQ(signin_rows(authd, "select count(*) from throttle_events where key like 'login:%'"),
            std::vector<std::string>{"0"});
  std::vector<nlohmann::json> failed = events_of_type(authd, "login.failed");
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0]["detail"]["reason"], "disabled");
  EXPECT_EQ(failed[1]["detail"]["reason"], "disabled");
}

// interface.md 19.3 and 13.5: with --session-cookie on, a sign-in by mail
// sets the session cookie as a login does; a refused one sets none.
TEST(EmailSignin, Interface_19_3_SetsTheSessionCookieWhenOn) {
  AuthdProcess authd(signin_args({"--session-cookie", "authd_session", "--cors-origins",
                                  "https://app.example.com", "--session-lifetime", "2h"}));
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  HttpResponse refused = verify_token(authd, "authdsi_" + std::string(43, 'A'));
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(refused.header_count("set-cookie"), 0u);
  HttpResponse res = verify_token(authd, m.token);
  ASSERT_EQ(res.status, 200) << res.body;
  std::string token = token_of(res);
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(res.header_count("set-cookie"), 1u);
  EXPECT_EQ(res.header("set-cookie"),
            "authd_session=" + token + "; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=7200");
}

// interface.md 19.3: 8 concurrent attempts (attempt(i) is the status of
// the i-th) at one mail: exactly one 200, the others 401, one session.
void expect_one_winner(AuthdProcess& authd, const std::function<int(int)>& attempt) {
  constexpr int kClients = 8;
  std::atomic<int> ok{0}, unauthorized{0}, other{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      int status = attempt(i);
      (status == 200 ? ok : status == 401 ? unauthorized : other)++;
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(unauthorized.load(), kClients - 1);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(signin_rows(authd, "select count(*) from sessions"), std::vector<std::string>{"1"});
}

// interface.md 19.3: of concurrent uses of one token exactly one gets 200;
// on PostgreSQL across two instances of one database.
TEST(EmailSignin, Interface_19_3_ConcurrentUsesOfOneTokenHaveOneWinner) {
  AuthdProcess first(signin_args());
  first.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(first, kEmail);
  ASSERT_FALSE(m.token.empty());
  wait_until_sent(first);
  std::unique_ptr<AuthdProcess> second;
  if (on_postgres()) second = std::make_unique<AuthdProcess>(signin_args(), first.database_url());
  expect_one_winner(first, [&](int i) {
    unsigned short port = second && i % 2 == 1 ? second->port() : first.port();
    return verify_token(first, m.token, nlohmann::json::object(), port).status;
  });
}

// interface.md 19.3: the same for concurrent uses of one code, and of the
// code and the link together.
TEST(EmailSignin, Interface_19_3_ConcurrentUsesOfTheCodeAndTheLinkHaveOneWinner) {
  AuthdProcess authd(signin_args());
  authd.add_user(kEmail, kPassword);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.code.empty());
  wait_until_sent(authd);
  expect_one_winner(authd, [&](int i) {
    return i % 2 == 0 ? verify_code(authd, kEmail, m.code).status
                      : verify_token(authd, m.token).status;
  });
}

// ---- 19.4 the second factor ------------------------------------------------

// interface.md 19.4 (12.3): an account with TOTP still needs its factor:
// the right link without a code, or with a wrong one, is 401 with
// Authd-Second-Factor, counted as a failed login, and leaves the mail
// usable; with the code it signs in.
TEST(EmailSignin, Interface_19_4_TheLinkStillNeedsTheSecondFactor) {
  AuthdProcess authd(signin_args());
  Enrolled enrolled = enrolled_account(authd);
  ASSERT_FALSE(enrolled.secret.empty());
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.token.empty());

  HttpResponse without = verify_token(authd, m.token);
  EXPECT_EQ(without.status, 401);
  EXPECT_EQ(without.body, unauthorized_body());
  EXPECT_EQ(without.header("authd-second-factor"), "totp");
  EXPECT_TRUE(without.header("Authorization").empty());
  std::string code = code_in_steps(enrolled.secret, 0);
  std::string wrong = code == "000000" ? "000001" : "000000";
  HttpResponse wrong_code = verify_token(authd, m.token, {{"otp", wrong}});
  EXPECT_EQ(wrong_code.status, 401);
  EXPECT_EQ(wrong_code.header("authd-second-factor"), "totp");
  EXPECT_EQ(
      signin_rows(authd, "select count(*) from throttle_events where key like 'login:email:%'"),
      std::vector<std::string>{"2"});

  HttpResponse ok = verify_token(authd, m.token, {{"otp", code}});
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(get_with_token(authd.port(), "/me", token_of(ok)).status, 200);
  std::vector<nlohmann::json> failed = events_of_type(authd, "login.failed");
  ASSERT_GE(failed.size(), 2u);
  EXPECT_EQ(failed[0]["detail"]["reason"], "second_factor");
  std::vector<nlohmann::json> succeeded = events_of_type(authd, "login.succeeded");
  ASSERT_FALSE(succeeded.empty());
  EXPECT_EQ(succeeded[0]["detail"]["method"], "email_link");
  EXPECT_EQ(succeeded[0]["detail"]["secondFactor"], "totp");
}

// interface.md 19.4: the same for the code form, with a recovery code.
TEST(EmailSignin, Interface_19_4_TheCodeStillNeedsTheSecondFactor) {
  AuthdProcess authd(signin_args());
  Enrolled enrolled = enrolled_account(authd);
  ASSERT_EQ(enrolled.recovery_codes.size(), 10u);
  SigninMail m = mailed_signin(authd, kEmail);
  ASSERT_FALSE(m.code.empty());
  HttpResponse without = verify_code(authd, kEmail, m.code);
  EXPECT_EQ(without.status, 401);
  EXPECT_EQ(without.header("authd-second-factor"), "totp");
  // A wrong code is the plain 401, whatever the account has.
  HttpResponse wrong = verify_code(authd, kEmail, other_code(m.code),
                                   {{"recoveryCode", enrolled.recovery_codes[0]}});
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.header_count("authd-second-factor"), 0u);
  // The factor's 401 is not a wrong code of the mail; the wrong code is.
  wait_until_sent(authd);
  EXPECT_EQ(signin_rows(authd, "select wrong_codes from email_signins"),
            std::vector<std::string>{"1"});
  HttpResponse ok =
      verify_code(authd, kEmail, m.code, {{"recoveryCode", enrolled.recovery_codes[0]}});
  ASSERT_EQ(ok.status, 200) << ok.body;
  std::vector<nlohmann::json> succeeded = events_of_type(authd, "login.succeeded");
  ASSERT_FALSE(succeeded.empty());
  EXPECT_EQ(succeeded[0]["detail"]["method"], "email_code");
  EXPECT_EQ(succeeded[0]["detail"]["secondFactor"], "recovery_code");
  // Used up now, factor or not.
  EXPECT_EQ(verify_token(authd, m.token, {{"recoveryCode", enrolled.recovery_codes[1]}}).status,
            401);
}

// ---- 19.5 sign-up for unknown addresses ------------------------------------

// interface.md 19.5: with sign-up open, an address without an account gets
// the sign-up mail: a link to {public_url}/signin/email#signup, no token,
// no code; no account, sign-in row or pending sign-up is made.
TEST(EmailSignin, Interface_19_5_AnUnknownAddressGetsASignupLinkWhenSignupIsOpen) {
  AuthdProcess authd(signin_args({"--signup", "open"}));
  ASSERT_EQ(ask_signin(authd, "Newcomer@example.com").status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  wait_until_sent(authd);
  EXPECT_EQ(signin_recipient(mails[0]), "newcomer@example.com");
  EXPECT_NE(mails[0].find("\r\nhttp://authd.test/signin/email#signup\r\n"), std::string::npos)
      << mails[0];
  EXPECT_NE(mails[0].find("href=\"http://authd.test/signin/email#signup\""), std::string::npos)
      << mails[0];
  EXPECT_EQ(mails[0].find("#token="), std::string::npos) << mails[0];
  EXPECT_EQ(signin_code_in(mails[0]), "") << mails[0];
  EXPECT_EQ(signin_rows(authd, "select count(*) from users"), std::vector<std::string>{"0"});
  EXPECT_EQ(signin_rows(authd, "select count(*) from email_signins"),
            std::vector<std::string>{"0"});
  EXPECT_EQ(signin_rows(authd, "select count(*) from signups"), std::vector<std::string>{"0"});
}

// interface.md 19.5: with sign-up open, a disabled account still gets
// nothing, and an enabled one its sign-in mail.
TEST(EmailSignin, Interface_19_5_WithSignupOpenADisabledAccountGetsNothing) {
  AuthdProcess authd(signin_args({"--signup", "open"}));
  authd.add_user(kEmail, kPassword);
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});
  ASSERT_EQ(ask_signin(authd, "carol@example.com").status, 200);
  ASSERT_EQ(ask_signin(authd, kEmail).status, 200);
  authd.wait_for_mails(1);
  wait_until_sent(authd);
  std::vector<std::string> mails = authd.mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(signin_recipient(mails[0]), kEmail);
  EXPECT_FALSE(signin_token_in(mails[0]).empty()) << mails[0];
  EXPECT_FALSE(signin_code_in(mails[0]).empty()) << mails[0];
}

}  // namespace
}  // namespace authd::test
