// interface.md 8.3: a 200 means the change is committed durably; a kill -9
// right after it loses nothing. And 6 /forgot 4: a mail acknowledged by a 200
// survives a crash and failed deliveries (it is retried).
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// interface.md 8.3: a session acknowledged by a 200 login survives kill -9.
TEST(Durability, Interface_8_3_LoginSurvivesKill9) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  authd.kill_hard();
  authd.start();
  HttpResponse me = get_with_token(authd.port(), "/me", token);
  EXPECT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(me.json()["email"], kEmail);
}

// interface.md 8.3: a revocation acknowledged by a 200 logout survives kill -9.
TEST(Durability, Interface_8_3_LogoutSurvivesKill9) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(post_with_token(authd.port(), "/logout", token).status, 200);
  authd.kill_hard();
  authd.start();
  HttpResponse me = get_with_token(authd.port(), "/me", token);
  EXPECT_EQ(me.status, 401);
  EXPECT_EQ(me.header("WWW-Authenticate"), R"(Bearer error="invalid_token")");
}

// interface.md 8.3 and 6 /login 4: throttling counters are committed too: a
// crash does not reset them.
TEST(Durability, Interface_8_3_ThrottlingSurvivesKill9) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  }
  authd.kill_hard();
  authd.start();
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 429);
}

// interface.md 6 /forgot 3-4 and 8.3: the mail request of a 200 /forgot is
// in the durable outbox; when delivery fails it is retried, and a kill -9
// before it could be delivered loses nothing: the next start delivers it.
TEST(Durability, Interface_8_3_ForgotMailSurvivesFailedDeliveryAndKill9) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  // Make delivery fail: the mail directory becomes a plain file.
  std::filesystem::remove_all(authd.mail_directory());
  { std::ofstream(authd.mail_directory()) << "not a directory"; }

  ASSERT_EQ(post_json(authd.port(), "/forgot", R"({"email":"alice@example.com"})").status, 200);
  // The worker tried and rescheduled the mail (this is the server's own
  // background work: poll for it).
  ASSERT_TRUE(eventually([&] {
    std::vector<std::string> rows = lines(authd.sql("select attempts from outbox"));
    return rows.size() == 1 && rows[0] != "0";
  })) << authd.log_text();
  EXPECT_EQ(lines(authd.sql("select count(*) from outbox where sent_at is null")),
            std::vector<std::string>{"1"});
  EXPECT_EQ(lines(authd.sql("select count(*) from reset_tokens")).size(), 1u);

  authd.kill_hard();
  std::filesystem::remove(authd.mail_directory());
  authd.start();
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  EXPECT_NE(mails[0].find("http://authd.test/reset#token="), std::string::npos);
  // The token of the delivered mail is the one live reset token (minted
  // afresh for the successful attempt).
  std::smatch found;
  ASSERT_TRUE(std::regex_search(mails[0], found, std::regex(R"(reset#token=([A-Za-z0-9_-]+))")));
  ASSERT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox where sent_at is null")) ==
           std::vector<std::string>{"0"};
  }));
  EXPECT_EQ(lines(authd.sql("select hex(token_digest) from reset_tokens")),
            std::vector<std::string>{sha256_hex(found[1])});
}

}  // namespace
}  // namespace authd::test
