// interface.md 11.4-11.5: self-service sign-up. POST /signup answers the
// same for every valid request; the outbox worker mails a verification
// link, or tells an existing account's owner that the address has one;
// POST /verify turns the pending sign-up into an account with a session.
// Real HTTP, real mail files (the log transport). timing_test.cpp measures
// the time of /signup.
#include <atomic>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"
#include "signup_support.hpp"

namespace authd::test {
namespace {

// interface.md 11.4: closed by default, the sign-up routes and the page are
// unknown paths (404), as with --signup closed.
TEST(Signup, Interface_11_4_ClosedByDefaultTheRoutesAre404) {
  for (const auto& args : {fast_hashing(), std::vector<std::string>{"--signup", "closed"}}) {
    AuthdProcess authd(args);
    const std::vector<std::pair<std::string, std::string>> requests = {{"POST", "/signup"},
                                                                       {"POST", "/verify"},
                                                                       {"GET", "/verify"},
                                                                       {"GET", "/verify.js"},
                                                                       {"GET", "/signup"}};
    for (const auto& [method, path] : requests) {
      HttpResponse res =
          send_request(authd.port(), method, path, {{"Content-Type", "application/json"}},
                       method == "POST" ? signup_body(kNewcomer, kChosenPassword) : "");
      EXPECT_EQ(res.status, 404) << method << " " << path;
      EXPECT_EQ(res.body, R"({"code":404,"message":"Not Found"})") << method << " " << path;
    }
    EXPECT_EQ(rows(authd, "select count(*) from outbox"), std::vector<std::string>{"0"});
  }
}

// interface.md 11.4 and 1.4: open, the routes exist with their methods.
TEST(Signup, Interface_11_4_OpenTheRoutesExist) {
  AuthdProcess authd(signup_args());
  HttpResponse get_signup = send_request(authd.port(), "GET", "/signup");
  EXPECT_EQ(get_signup.status, 405);
  EXPECT_EQ(get_signup.header("Allow"), "POST");
  HttpResponse put_verify = send_request(authd.port(), "PUT", "/verify");
  EXPECT_EQ(put_verify.status, 405);
  EXPECT_EQ(put_verify.header("Allow"), "POST, GET");
  EXPECT_EQ(send_request(authd.port(), "POST", "/signup", {{"Content-Type", "text/plain"}},
                         signup_body(kNewcomer, kChosenPassword))
                .status,
            415);
  // The management listener has no sign-up.
  EXPECT_EQ(send_request(authd.admin_port(), "GET", "/verify").status, 404);
}

// interface.md 11.4 (3.1, 3.3): an invalid e-mail, password or display
// name is 400 in the contract's shape, and nothing is queued.
TEST(Signup, Interface_11_4_InvalidRequestIs400) {
  AuthdProcess authd(signup_args());
  const std::vector<std::string> bodies = {
      R"({})",
      R"({"email":"newcomer@example.com"})",
      R"({"password":"a sign-up passphrase"})",
      R"({"email":1,"password":"a sign-up passphrase"})",
      R"({"email":"newcomer@example.com","password":null})",
      R"({"email":"","password":"a sign-up passphrase"})",
      R"({"email":"newcomer","password":"a sign-up passphrase"})",
      R"({"email":" newcomer@example.com","password":"a sign-up passphrase"})",
      R"({"email":"newcomer@example.com","password":"short"})",
      R"({"email":"newcomer@example.com","password":"NewComer@Example.com"})",
      R"({"email":"newcomer@example.com","password":"newcomer@example.com"})",
      signup_body(kNewcomer, std::string(256, 'x')),
      R"({"email":"newcomer@example.com","password":"a sign-up passphrase","displayName":null})",
      R"({"email":"newcomer@example.com","password":"a sign-up passphrase","displayName":7})",
      R"({"email":"newcomer@example.com","password":"a sign-up passphrase","displayName":""})",
      R"({"email":"newcomer@example.com","password":"a sign-up passphrase","displayName":"a\nb"})",
      R"({"email":"newcomer@example.com","email":"x@example.com","password":"a sign-up passphrase"})",
      "[]",
  };
  for (const std::string& body : bodies) {
    HttpResponse res = post_json(authd.port(), "/signup", body);
    EXPECT_EQ(res.status, 400) << body;
    EXPECT_EQ(res.json()["code"], 400) << body;
    EXPECT_EQ(res.json()["message"], "Bad Request") << body;
  }
  EXPECT_EQ(rows(authd, "select count(*) from outbox"), std::vector<std::string>{"0"});
  EXPECT_EQ(rows(authd, "select count(*) from throttle_events"), std::vector<std::string>{"0"});
  // 255 code points are fine (3.3 counts code points, not bytes).
  EXPECT_EQ(signup(authd, kNewcomer, emoji(255)).status, 200);
}

// interface.md 11.4: exactly {"email": "<canonical>"}, the same answer and
// the same rows queued whether or not the address has an account.
TEST(Signup, Interface_11_4_SignupAnswersTheSameForANewAndAnExistingAddress) {
  AuthdProcess authd(signup_args({"--reset-mail-delay", "1h"}));
  authd.add_user(kEmail, kPassword);
  HttpResponse existing = signup(authd, "Alice@Example.COM");
  HttpResponse fresh = signup(authd, "NewComer@Example.com", kChosenPassword, "New Comer");
  ASSERT_EQ(existing.status, 200);
  ASSERT_EQ(fresh.status, 200);
  EXPECT_EQ(existing.body, R"({"email":"alice@example.com"})");
  EXPECT_EQ(fresh.body, R"({"email":"newcomer@example.com"})");
  for (const HttpResponse* res : {&existing, &fresh}) {
    EXPECT_EQ(res->header("Content-Type").rfind("application/json", 0), 0u);
    EXPECT_EQ(res->header("Cache-Control"), "no-store");
    EXPECT_TRUE(res->header("Authorization").empty());
    EXPECT_TRUE(res->header("Set-Cookie").empty());
  }
  // No account is looked up: both wait in the outbox, hashed, as sign-ups.
  EXPECT_EQ(rows(authd,
                 "select email, kind, user_id, attempts, substr(password_hash, 1, 10) "
                 "from outbox order by email"),
            (std::vector<std::string>{"alice@example.com|signup||0|$argon2id$",
                                      "newcomer@example.com|signup||0|$argon2id$"}));
  EXPECT_EQ(rows(authd,
                 "select key, count(*) from throttle_events where key like 'mail:%' "
                 "group by key order by key"),
            (std::vector<std::string>{"mail:signup:alice@example.com|1",
                                      "mail:signup:newcomer@example.com|1"}));
  EXPECT_EQ(rows(authd, "select count(*) from users"), std::vector<std::string>{"1"});
}

// interface.md 11.4: no account before verification; the mail carries
// {public_url}/verify#token=<token>; the token is stored only as its
// digest, valid 24 hours; neither it nor the password is at rest or in the
// log, and the sent mail no longer holds the password's hash.
TEST(Signup, Interface_11_4_AMailWithAVerifyLinkAndOnlyADigestAtRest) {
  AuthdProcess authd(signup_args());
  ASSERT_EQ(signup(authd, "NewComer@example.com", kChosenPassword, "New Comer").status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  EXPECT_NE(mails[0].find("To: newcomer@example.com\r\n"), std::string::npos) << mails[0];
  std::string token = verify_token_in(mails[0]);
  ASSERT_FALSE(token.empty()) << mails[0];
  EXPECT_TRUE(matches(token, token_pattern())) << token;
  EXPECT_NE(mails[0].find("24 hours"), std::string::npos) << mails[0];
  wait_for_outbox(authd);

  EXPECT_EQ(rows(authd, "select count(*) from users"), std::vector<std::string>{"0"});
  EXPECT_EQ(rows(authd, "select hex(token_digest), email, display_name from signups"),
            std::vector<std::string>{sha256_hex(token) + "|newcomer@example.com|New Comer"});
  EXPECT_EQ(rows(authd, "select expires_at - created_at from signups"),
            std::vector<std::string>{"86400000"});
  EXPECT_EQ(rows(authd, "select count(*) from outbox where password_hash is not null"),
            std::vector<std::string>{"0"});
  const std::string secret = token.substr(token.find('_') + 1);
  EXPECT_EQ(authd.log_text().find(secret), std::string::npos);
  EXPECT_EQ(authd.log_text().find(kChosenPassword), std::string::npos);
  EXPECT_EQ(authd.log_text().find("$argon2"), std::string::npos);
  if (!on_postgres()) {
    std::string at_rest = stored_bytes(authd);
    EXPECT_EQ(at_rest.find(secret), std::string::npos);
    EXPECT_EQ(at_rest.find(kChosenPassword), std::string::npos);
  }
}

// interface.md 11.4 (squatting): a sign-up for an address that has an
// account creates nothing, changes nothing, and mails the owner a notice
// without a token that says how to reset the password.
TEST(Signup, Interface_11_4_ASignupForAnExistingAccountCreatesNothingAndMailsTheOwner) {
  AuthdProcess authd(signup_args());
  authd.add_user(kEmail, kPassword);
  nlohmann::json before = show_user(authd, kEmail);
  ASSERT_EQ(signup(authd, kEmail, "the squatter's password").status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  wait_for_outbox(authd);
  EXPECT_NE(mails[0].find("To: alice@example.com\r\n"), std::string::npos) << mails[0];
  EXPECT_NE(mails[0].find("already has one"), std::string::npos) << mails[0];
  EXPECT_NE(mails[0].find("http://authd.test/forgot"), std::string::npos) << mails[0];
  EXPECT_EQ(mails[0].find("#token="), std::string::npos) << mails[0];
  EXPECT_EQ(verify_token_in(mails[0]), "");
  EXPECT_EQ(rows(authd, "select count(*) from signups"), std::vector<std::string>{"0"});
  EXPECT_EQ(rows(authd, "select count(*) from users"), std::vector<std::string>{"1"});
  EXPECT_EQ(show_user(authd, kEmail), before);
  EXPECT_FALSE(authd.login(kEmail, kPassword).empty());
  EXPECT_TRUE(authd.login(kEmail, "the squatter's password").empty());
}

// interface.md 11.5: the token creates the account (e-mail verified, the
// chosen password and display name), opens a session: 201, the full User,
// the bearer token in the Authorization header, as /login's 200.
TEST(Signup, Interface_11_5_VerifyCreatesTheAccountAndOpensASession) {
  AuthdProcess authd(signup_args());
  ASSERT_EQ(signup(authd, kNewcomer, kChosenPassword, "New Comer").status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  std::string token = verify_token_in(mails[0]);
  ASSERT_FALSE(token.empty());

  HttpResponse res = verify(authd.port(), token);
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(res.header("Content-Type").rfind("application/json", 0), 0u);
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json user = res.json();
  expect_full_user(user);
  EXPECT_EQ(user["email"], kNewcomer);
  EXPECT_EQ(user["displayName"], "New Comer");
  EXPECT_TRUE(user["emailVerifiedAt"].is_string()) << user;
  EXPECT_TRUE(user["phone"].is_null());
  EXPECT_EQ(user["createdAt"], user["updatedAt"]);
  std::string session = token_of(res);
  ASSERT_TRUE(matches(session, token_pattern())) << res.header("Authorization");
  HttpResponse me = get_with_token(authd.port(), "/me", session);
  ASSERT_EQ(me.status, 200);
  EXPECT_EQ(me.json()["id"], user["id"]);
  EXPECT_EQ(rows(authd, "select count(*) from signups"), std::vector<std::string>{"0"});
  EXPECT_FALSE(authd.login(kNewcomer, kChosenPassword).empty());
}

// interface.md 11.2 and 11.5: the session /verify opens is a session like
// a login's: listed by GET /sessions, current, with the client's address.
TEST(Signup, Interface_11_2_TheSessionOfVerifyRecordsWhereItCameFrom) {
  AuthdProcess authd(signup_args());
  ASSERT_EQ(signup(authd, kNewcomer, kChosenPassword, "New Comer").status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  HttpResponse res = verify(authd.port(), verify_token_in(mails[0]));
  ASSERT_EQ(res.status, 201) << res.body;
  HttpResponse listed = get_with_token(authd.port(), "/sessions", token_of(res));
  ASSERT_EQ(listed.status, 200) << listed.body;
  nlohmann::json sessions = listed.json()["sessions"];
  ASSERT_EQ(sessions.size(), 1u) << sessions;
  EXPECT_EQ(sessions[0]["current"], true);
  EXPECT_EQ(sessions[0]["clientAddress"], "127.0.0.1") << sessions;
}

// interface.md 11.5: a token works once; the second use is 401.
TEST(Signup, Interface_11_5_AUsedTokenIs401) {
  AuthdProcess authd(signup_args());
  std::string token = mailed_signup_token(authd, kNewcomer);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(verify(authd.port(), token).status, 201);
  HttpResponse again = verify(authd.port(), token);
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(again.body, unauthorized_body());
  EXPECT_TRUE(again.header("Authorization").empty());
  EXPECT_EQ(rows(authd, "select count(*) from users"), std::vector<std::string>{"1"});
}

// interface.md 11.5: unknown and expired tokens are 401; an empty or
// missing token is 400.
TEST(Signup, Interface_11_5_AnUnknownOrExpiredTokenIs401) {
  AuthdProcess authd(signup_args());
  std::string token = mailed_signup_token(authd, kNewcomer);
  ASSERT_FALSE(token.empty());
  wait_for_outbox(authd);
  EXPECT_EQ(verify(authd.port(), "authdsu_" + std::string(43, 'A')).status, 401);
  EXPECT_EQ(verify(authd.port(), token + "x").status, 401);
  EXPECT_EQ(post_json(authd.port(), "/verify", R"({"token":"","password":"x"})").status, 400);
  EXPECT_EQ(post_json(authd.port(), "/verify", R"({"password":"x"})").status, 400);
  EXPECT_EQ(post_json(authd.port(), "/verify", R"({"token":5,"password":"x"})").status, 400);
  authd.sql("update signups set expires_at = 1");  // expired long ago
  HttpResponse expired = verify(authd.port(), token);
  EXPECT_EQ(expired.status, 401);
  EXPECT_EQ(expired.body, unauthorized_body());
  EXPECT_EQ(rows(authd, "select count(*) from users"), std::vector<std::string>{"0"});
}

// interface.md 11.5: an address that got an account between the mail and
// the verification: 401, the existing account untouched, nothing pending.
TEST(Signup, Interface_11_5_AnAddressThatGotAnAccountMeanwhileIs401) {
  AuthdProcess authd(signup_args());
  std::string token = mailed_signup_token(authd, kEmail);
  ASSERT_FALSE(token.empty());
  wait_for_outbox(authd);
  authd.add_user(kEmail, kPassword);
  HttpResponse res = verify(authd.port(), token);
  EXPECT_EQ(res.status, 401);
  EXPECT_EQ(res.body, unauthorized_body());
  EXPECT_EQ(rows(authd, "select count(*) from signups"), std::vector<std::string>{"0"});
  EXPECT_FALSE(authd.login(kEmail, kPassword).empty());
  EXPECT_TRUE(authd.login(kEmail, kChosenPassword).empty());
}

// interface.md 11.4: a newer sign-up of an address voids the older link;
// the newest one creates the account with the newest password.
TEST(Signup, Interface_11_4_ANewerSignupVoidsTheOlderLink) {
  AuthdProcess authd(signup_args({"--signup-mail-limit-short", "100/1m"}));
  std::string older = mailed_signup_token(authd, kNewcomer, "the first passphrase");
  std::string newer = mailed_signup_token(authd, kNewcomer, "the second passphrase");
  ASSERT_FALSE(older.empty());
  ASSERT_FALSE(newer.empty());
  wait_for_outbox(authd);
  EXPECT_EQ(verify(authd.port(), older, "the first passphrase").status, 401);
  EXPECT_EQ(verify(authd.port(), newer, "the second passphrase").status, 201);
  EXPECT_FALSE(authd.login(kNewcomer, "the second passphrase").empty());
}

// interface.md 11.5 under concurrency: of simultaneous uses of one token
// exactly one wins; on PostgreSQL across two instances of one database.
TEST(Signup, Interface_11_5_ConcurrentUsesOfOneTokenHaveOneWinner) {
  AuthdProcess first(signup_args());
  std::string token = mailed_signup_token(first, kNewcomer);
  ASSERT_FALSE(token.empty());
  wait_for_outbox(first);
  // The second instance only once the mail is out: its outbox worker could
  // otherwise send it, into its own mail directory (seen once on PostgreSQL).
  std::unique_ptr<AuthdProcess> second;
  if (on_postgres()) second = std::make_unique<AuthdProcess>(signup_args(), first.database_url());
  constexpr int kClients = 8;
  std::atomic<int> created{0}, unauthorized{0}, other{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    unsigned short port = second && i % 2 == 1 ? second->port() : first.port();
    clients.emplace_back([&, port] {
      int status = verify(port, token).status;
      (status == 201 ? created : status == 401 ? unauthorized : other)++;
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(unauthorized.load(), kClients - 1);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(rows(first, "select count(*) from users"), std::vector<std::string>{"1"});
  EXPECT_EQ(rows(first, "select count(*) from sessions"), std::vector<std::string>{"1"});
}

// interface.md 11.4 (6 /forgot 5): one sign-up mail a minute per address,
// whichever kind; past it 200 all the same and nothing queued. Counted
// apart from /forgot's: a reset mail still goes.
TEST(Signup, Interface_11_4_OneSignupMailPerMinutePerAddressApartFromForgot) {
  AuthdProcess authd(signup_args({"--reset-mail-delay", "1h"}));
  authd.add_user(kEmail, kPassword);
  for (const std::string& email : {kEmail, kNewcomer}) {
    HttpResponse first = signup(authd, email);
    HttpResponse second = signup(authd, email);
    EXPECT_EQ(first.status, 200);
    EXPECT_EQ(second.status, 200);
    EXPECT_EQ(first.body, second.body);
  }
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  EXPECT_EQ(rows(authd,
                 "select kind, email from outbox where kind <> 'signup_request' "
                 "order by kind, email"),
            (std::vector<std::string>{"password_reset|alice@example.com",
                                      "signup|alice@example.com", "signup|newcomer@example.com"}));
}

// interface.md 11.4 (6 /forgot 5): five sign-up mails an hour per address.
TEST(Signup, Interface_11_4_FiveSignupMailsAnHourPerAddress) {
  AuthdProcess authd(
      signup_args({"--signup-mail-limit-short", "100/1m", "--reset-mail-delay", "1h"}));
  for (int i = 0; i < 7; ++i) ASSERT_EQ(signup(authd, kNewcomer).status, 200) << i;
  EXPECT_EQ(rows(authd, "select count(*) from outbox where kind = 'signup'"),
            std::vector<std::string>{"5"});
}

// interface.md 11.4 (6 /forgot 5): per client, N valid sign-ups per window,
// then 429 with Retry-After; 400s and 415s are not counted, nor are
// /forgot's requests (nor sign-ups in /forgot's count).
TEST(Signup, Interface_11_4_PerClientLimitCountedApartFromForgot) {
  AuthdProcess authd(signup_args({"--signup-client-limit", "2/15m", "--forgot-client-limit",
                                  "2/15m", "--reset-mail-delay", "1h"}));
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(post_json(authd.port(), "/signup", R"({"email":""})").status, 400);
    ASSERT_EQ(send_request(authd.port(), "POST", "/signup", {{"Content-Type", "text/plain"}},
                           signup_body(kNewcomer, kChosenPassword))
                  .status,
              415);
  }
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body("f1@example.com")).status, 200);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body("f2@example.com")).status, 200);
  EXPECT_EQ(signup(authd, "one@example.com").status, 200);
  EXPECT_EQ(signup(authd, "two@example.com").status, 200);
  HttpResponse blocked = signup(authd, "three@example.com");
  EXPECT_EQ(blocked.status, 429) << blocked.body;
  EXPECT_EQ(blocked.body, R"({"code":429,"message":"Too Many Requests"})");
  expect_retry_after(blocked, 900);
  EXPECT_EQ(signup(authd, "four@example.com").status, 429);
  EXPECT_EQ(post_json(authd.port(), "/signup", R"({"email":""})").status, 400);
  EXPECT_EQ(rows(authd, "select count(*) from throttle_events where key like 'signup:%'"),
            std::vector<std::string>{"2"});
  EXPECT_EQ(post_json(authd.port(), "/forgot", forgot_body("f3@example.com")).status, 429);
}

}  // namespace
}  // namespace authd::test
