// interface.md 6 /forgot: the always-same 200, the reset mail through the
// outbox, the reset token stored only as a digest, the limits. Real HTTP,
// real mail files (the log transport).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

HttpResponse forgot(const AuthdProcess& authd, const std::string& email) {
  return post_json(authd.port(), "/forgot", forgot_body(email));
}

std::string recipient_of(const std::string& mail) {
  std::smatch found;
  static const std::regex to(R"((^|\r\n)To: ([^\r\n]*)\r\n)");
  if (!std::regex_search(mail, found, to)) return "";
  return found[2];
}

// interface.md 6 /forgot 1: e-mail missing, not a string, empty, invalid:
// 400 (never a 200, never a mail).
TEST(Forgot, Interface_6_Forgot_1_InvalidRequestIs400) {
  AuthdProcess authd(fast_hashing());
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
      "{",
  };
  for (const std::string& body : bodies) {
    HttpResponse res = post_json(authd.port(), "/forgot", body);
    EXPECT_EQ(res.status, 400) << body;
    EXPECT_EQ(res.json()["code"], 400) << body;
    EXPECT_EQ(res.json()["message"], "Bad Request") << body;
  }
  EXPECT_EQ(lines(authd.sql("select count(*) from outbox")), std::vector<std::string>{"0"});
}

// interface.md 6 /forgot 2: exactly {"email": "<canonical form>"}, the same
// for an existing, an unknown and a disabled account.
TEST(Forgot, Interface_6_Forgot_2_AnswerIsExactlyTheCanonicalEmail) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword, {"--display-name", "Alice", "--phone", "+15551234567"});
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});

  HttpResponse existing = forgot(authd, "Alice@Example.COM");
  ASSERT_EQ(existing.status, 200);
  EXPECT_EQ(existing.body, R"({"email":"alice@example.com"})");
  HttpResponse unknown = forgot(authd, "Nobody@Example.com");
  ASSERT_EQ(unknown.status, 200);
  EXPECT_EQ(unknown.body, R"({"email":"nobody@example.com"})");
  HttpResponse disabled = forgot(authd, "carol@example.com");
  ASSERT_EQ(disabled.status, 200);
  EXPECT_EQ(disabled.body, R"({"email":"carol@example.com"})");

  for (const HttpResponse* res : {&existing, &unknown, &disabled}) {
    EXPECT_EQ(res->header("Content-Type").rfind("application/json", 0), 0u);
    EXPECT_EQ(res->header("Cache-Control"), "no-store");
    EXPECT_TRUE(res->header("Authorization").empty());
    EXPECT_TRUE(res->header("Set-Cookie").empty());
  }
}

// interface.md 6 /forgot 3: for an existing, enabled account, a mail with
// {public_url}/reset#token=<token>; the database keeps only the token's
// digest, and the token text is nowhere at rest.
TEST(Forgot, Interface_6_Forgot_3_MailWithResetLinkAndOnlyADigestAtRest) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, "ALICE@example.com").status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  EXPECT_EQ(recipient_of(mails[0]), kEmail) << mails[0];

  std::string token = reset_token_in(mails[0]);
  ASSERT_FALSE(token.empty()) << mails[0];
  EXPECT_TRUE(matches(token, token_pattern())) << token;

  // The worker marks the row sent after writing the file; wait for that.
  ASSERT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox where sent_at is not null")) ==
           std::vector<std::string>{"1"};
  }));
  EXPECT_EQ(lines(authd.sql("select hex(token_digest) from reset_tokens")),
            std::vector<std::string>{sha256_hex(token)});
  // Valid 30 minutes by default.
  EXPECT_EQ(lines(authd.sql("select expires_at - created_at from reset_tokens")),
            std::vector<std::string>{"1800000"});
  std::string at_rest = stored_bytes(authd);
  EXPECT_EQ(at_rest.find(token), std::string::npos);
  EXPECT_EQ(at_rest.find(token.substr(token.find('_') + 1)), std::string::npos);
  EXPECT_EQ(authd.log_text().find(token.substr(token.find('_') + 1)), std::string::npos);
}

// interface.md 6 /forgot 2: the request writes the same rows
// whatever the address: a mail-limit event and an outbox row keyed by the
// address, with no account resolved (that happens at delivery, here an
// hour away). So the transaction, and its time, cannot depend on whether
// the address has an account. timing_test.cpp measures the time itself.
TEST(Forgot, Interface_6_Forgot_2_EveryAddressQueuesTheSameRequest) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1h"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});
  for (const char* email : {"alice@example.com", "carol@example.com", "nobody@example.com"})
    ASSERT_EQ(forgot(authd, email).status, 200) << email;
  EXPECT_EQ(lines(authd.sql("select email, kind, user_id, attempts from outbox order by email")),
            (std::vector<std::string>{"alice@example.com|password_reset||0",
                                      "carol@example.com|password_reset||0",
                                      "nobody@example.com|password_reset||0"}));
  EXPECT_EQ(
      lines(authd.sql("select key, count(*) from throttle_events where key like 'mail:%' "
                      "group by key order by key")),
      (std::vector<std::string>{"mail:reset:alice@example.com|1", "mail:reset:carol@example.com|1",
                                "mail:reset:nobody@example.com|1"}));
}

// 8.2 (PostgreSQL): the outbox worker's claim never waits for an account
// that an account's change holds. An erasure locks the account and then
// deletes its mails; a claim that held the mail and waited for the account
// deadlocked with it, and PostgreSQL ended one of the two a second later.
TEST(Forgot, Interface_8_2_TheClaimDoesNotWaitForAnAccountInChange) {
  AUTHD_POSTGRES_ONLY();
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--log-level", "debug"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  std::string id = lines(authd.sql("SELECT id FROM users"))[0];
  std::string deleted = mails_deleted_beside_a_claim(
      authd, id, kEmail, [&] { ASSERT_EQ(forgot(authd, kEmail).status, 200); });
  EXPECT_EQ(deleted.find("ERROR"), std::string::npos) << deleted;
  EXPECT_EQ(authd.log_text().find("deadlock"), std::string::npos) << authd.log_text();
  EXPECT_EQ(lines(authd.sql("SELECT count(*) FROM outbox")), std::vector<std::string>{"0"});
  EXPECT_TRUE(authd.mails().empty());
}

// interface.md 6 /forgot 3: no mail for an unknown or a disabled account.
// A mail for an existing account afterwards proves the worker ran.
TEST(Forgot, Interface_6_Forgot_3_NoMailForUnknownOrDisabledAccount) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});

  ASSERT_EQ(forgot(authd, "nobody@example.com").status, 200);
  ASSERT_EQ(forgot(authd, "carol@example.com").status, 200);
  ASSERT_EQ(forgot(authd, kEmail).status, 200);
  authd.wait_for_mails(1);
  ASSERT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox where sent_at is null")) ==
           std::vector<std::string>{"0"};
  }));
  std::vector<std::string> mails = authd.mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(recipient_of(mails[0]), kEmail);
  EXPECT_EQ(lines(authd.sql("select count(*) from outbox")), std::vector<std::string>{"1"});
  EXPECT_EQ(lines(authd.sql("select count(*) from reset_tokens")), std::vector<std::string>{"1"});
}

// interface.md 6 /forgot 5: at most one mail a minute per e-mail; the
// request past it is answered 200 all the same and enqueues nothing.
TEST(Forgot, Interface_6_Forgot_5_OneMailPerMinutePerEmail) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  HttpResponse first = forgot(authd, kEmail);
  HttpResponse second = forgot(authd, "Alice@example.com");
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(first.body, second.body);
  ASSERT_EQ(forgot(authd, "bob@example.com").status, 200);
  authd.wait_for_mails(2);
  ASSERT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox where sent_at is null")) ==
           std::vector<std::string>{"0"};
  }));
  std::vector<std::string> mails = authd.mails();
  ASSERT_EQ(mails.size(), 2u);
  std::vector<std::string> recipients = {recipient_of(mails[0]), recipient_of(mails[1])};
  std::sort(recipients.begin(), recipients.end());
  EXPECT_EQ(recipients, (std::vector<std::string>{kEmail, "bob@example.com"}));
}

// interface.md 6 /forgot 5: per client, N valid requests per window, then
// 429 with Retry-After; requests answered 400 or 415 are not counted.
TEST(Forgot, Interface_6_Forgot_5_PerClientLimit) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--forgot-client-limit", "2/15m"});
  AuthdProcess authd(args);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(post_json(authd.port(), "/forgot", R"({"email":""})").status, 400);
    ASSERT_EQ(post_json(authd.port(), "/forgot", R"({"email":1})").status, 400);
    ASSERT_EQ(send_request(authd.port(), "POST", "/forgot", {{"Content-Type", "text/plain"}},
                           forgot_body(kEmail))
                  .status,
              415);
  }
  EXPECT_EQ(forgot(authd, "one@example.com").status, 200);
  EXPECT_EQ(forgot(authd, "two@example.com").status, 200);
  HttpResponse blocked = forgot(authd, "three@example.com");
  EXPECT_EQ(blocked.status, 429) << blocked.body;
  EXPECT_EQ(blocked.body, R"({"code":429,"message":"Too Many Requests"})");
  expect_retry_after(blocked, 900);
  // The 429 itself is not counted, and the 400 still comes first.
  EXPECT_EQ(forgot(authd, "four@example.com").status, 429);
  EXPECT_EQ(post_json(authd.port(), "/forgot", R"({"email":""})").status, 400);
  EXPECT_EQ(lines(authd.sql("select count(*) from throttle_events where key like 'forgot:%'")),
            std::vector<std::string>{"2"});
}

// interface.md 6 /forgot 5: at most five mails an hour per e-mail (the
// one-a-minute limit relaxed here to reach the hourly one).
TEST(Forgot, Interface_6_Forgot_5_FiveMailsAnHourPerEmail) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-limit-short", "100/1m"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  for (int i = 0; i < 7; ++i) {
    HttpResponse res = forgot(authd, kEmail);
    ASSERT_EQ(res.status, 200) << "request " << i + 1;
    EXPECT_EQ(res.body, R"({"email":"alice@example.com"})");
  }
  ASSERT_EQ(forgot(authd, "bob@example.com").status, 200);
  authd.wait_for_mails(6);
  ASSERT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox where sent_at is null")) ==
           std::vector<std::string>{"0"};
  }));
  std::vector<std::string> mails = authd.mails();
  ASSERT_EQ(mails.size(), 6u);
  EXPECT_EQ(std::count_if(mails.begin(), mails.end(),
                          [](const std::string& m) { return recipient_of(m) == kEmail; }),
            5);
}

// interface.md 6 /forgot 3: a new reset token voids any older one of the
// same user: only the last mail's token is stored.
TEST(Forgot, Interface_6_Forgot_3_NewResetTokenVoidsTheOlderOne) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-limit-short", "100/1m"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(forgot(authd, kEmail).status, 200);
  authd.wait_for_mails(1);
  ASSERT_EQ(forgot(authd, kEmail).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(2);
  ASSERT_EQ(mails.size(), 2u);
  std::string older = reset_token_in(mails[0]);
  std::string newer = reset_token_in(mails[1]);
  ASSERT_FALSE(older.empty());
  ASSERT_FALSE(newer.empty());
  EXPECT_NE(older, newer);
  ASSERT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox where sent_at is null")) ==
           std::vector<std::string>{"0"};
  }));
  EXPECT_EQ(lines(authd.sql("select hex(token_digest) from reset_tokens")),
            std::vector<std::string>{sha256_hex(newer)});
}

// interface.md 6 /forgot 3: a request whose account was disabled before
// delivery is dropped (delivery is made to fail first, so that the disable
// lands before it; then delivery works again).
TEST(Forgot, Interface_6_Forgot_3_AccountDisabledBeforeDeliveryIsDropped) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::filesystem::remove_all(authd.mail_directory());
  { std::ofstream(authd.mail_directory()) << "not a directory"; }
  ASSERT_EQ(forgot(authd, kEmail).status, 200);
  ASSERT_TRUE(eventually([&] {
    std::vector<std::string> rows = lines(authd.sql("select attempts from outbox"));
    return rows.size() == 1 && rows[0] != "0";
  })) << authd.log_text();
  cli_json(authd, {"user", "disable", "--email", kEmail});
  std::filesystem::remove(authd.mail_directory());
  std::filesystem::create_directory(authd.mail_directory());
  // The worker retries, finds the account disabled and drops the request.
  ASSERT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox")) == std::vector<std::string>{"0"};
  })) << authd.log_text();
  EXPECT_TRUE(authd.mails().empty());
  EXPECT_EQ(lines(authd.sql("select count(*) from reset_tokens")), std::vector<std::string>{"0"});
}

// interface.md 6 /forgot 6: /forgot never answers 401 or 403, whatever the account
// or the Authorization header.
TEST(Forgot, Interface_6_Forgot_6_ForgotNeverAnswers401Or403) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("carol@example.com", kPassword);
  cli_json(authd, {"user", "disable", "--email", "carol@example.com"});
  const std::vector<Headers> headers = {
      {{"Content-Type", "application/json"}},
      {{"Content-Type", "application/json"}, {"Authorization", "Bearer nonsense"}},
      {{"Content-Type", "application/json"}, {"Authorization", "Basic xxx"}},
      {{"Content-Type", "application/json"}, {"Authorization", "Bearer"}},
  };
  for (const std::string& email :
       {kEmail, std::string("carol@example.com"), std::string("nobody@example.com")}) {
    for (const Headers& h : headers) {
      HttpResponse res = send_request(authd.port(), "POST", "/forgot", h, forgot_body(email));
      EXPECT_EQ(res.status, 200) << email << " " << nlohmann::json(h).dump();
    }
  }
}

}  // namespace
}  // namespace authd::test
