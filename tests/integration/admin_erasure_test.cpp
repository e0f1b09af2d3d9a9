// interface.md 10.4: DELETE /admin/users/{id} (and `authd user delete`)
// erase the account and everything that names it: sessions, reset tokens,
// queued mails, second factors, per-e-mail throttling state. Checked by
// reading every table of the database (listed from its own catalogue), and
// by what the public routes say of the address afterwards.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"

// Inside authd::test::admin, not with a using-directive: the unity build
// puts several test files in one translation unit, and a directive in the
// shared unnamed namespace would reach the files after this one.
namespace authd::test::admin {
namespace {

std::string describe_rows(const std::map<std::string, long>& traces) {
  std::string out;
  for (const auto& [where, rows] : traces) out += where + " (" + std::to_string(rows) + " rows) ";
  return out;
}

// The columns where erasure leaves the account's id by design: the audit
// trail's (interface.md 14.1), and on SQLite its index by account.
void erase_audit_trail_columns(std::map<std::string, long>& traces) {
  traces.erase("events.user_id");
  traces.erase("events_by_user.user_id");
}

// Waits until the outbox has nothing left to send.
bool outbox_drained(const AuthdProcess& authd) {
  return eventually([&] {
    return lines(authd.sql("select count(*) from outbox where sent_at is null")) ==
           std::vector<std::string>{"0"};
  });
}

std::vector<std::string> erasure_args(const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1ms"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// interface.md 10.4: after a realistic life (a sign-up left pending
// before the operator made the account, two logins, one of them logged
// out, a failed login, a /forgot whose mail was delivered over SMTP so that
// a reset token exists), DELETE erases every row that holds the user's id
// or e-mail, in every table; another user's rows stay.
TEST(AdminErasure, Interface_10_4_13_DeleteLeavesNoRowThatNamesTheUser) {
  SmtpSink sink;
  std::vector<std::string> more = sink.authd_args();
  more.insert(more.end(), {"--signup", "open", "--login-email-limit", "2/15m"});
  AuthdProcess authd(erasure_args(more));
  std::string key = create_key(authd, "ops", "write");
  const std::string email = "erased.person@example.com";
  const std::string bob = "bob.stays@example.com";
  // A sign-up whose link was mailed but never followed: a pending row.
  ASSERT_EQ(post_json(authd.port(), "/signup",
                      nlohmann::json{{"email", email}, {"password", "sign-up passphrase"}}.dump())
                .status,
            200);
  ASSERT_EQ(sink.wait_for_mails(1).size(), 1u);
  ASSERT_TRUE(outbox_drained(authd));
  ASSERT_EQ(lines(authd.sql("select count(*) from signups")), std::vector<std::string>{"1"});
  nlohmann::json user = create_user(authd, key,
                                    {{"email", "Erased.Person@Example.com"},
                                     {"password", kPassword},
                                     {"displayName", "Erasable Display Name"},
                                     {"phone", "+15559876543"},
                                     {"photoUrl", "https://example.com/erasable.png"},
                                     {"emailVerified", true}});
  ASSERT_TRUE(user.is_object());
  ASSERT_TRUE(create_user(authd, key, {{"email", bob}, {"password", kPassword}}).is_object());
  const std::string id = user["id"];

  // Its life: sessions (one logged out), a failed login, a reset mail.
  std::string first = authd.login(email, kPassword);
  std::string second = authd.login(email, kPassword);
  ASSERT_FALSE(first.empty() || second.empty());
  ASSERT_EQ(post_with_token(authd.port(), "/logout", first).status, 200);
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(email, "wrong password")).status, 401);
  // Two more: the address's limit, then a 429, whose event stays open for
  // the window under a key that holds the address (interface.md 14.1).
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(email, "wrong password")).status, 401);
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(email, "wrong password")).status, 429);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(email)).status, 200);
  // And bob's, so that the scan has something to find that must stay.
  ASSERT_FALSE(authd.login(bob, kPassword).empty());
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(bob, "wrong password")).status, 401);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(bob)).status, 200);
  ASSERT_EQ(sink.wait_for_mails(3).size(), 3u);
  ASSERT_TRUE(outbox_drained(authd));
  ASSERT_EQ(lines(authd.sql("select count(*) from reset_tokens where user_id = '" + id + "'")),
            std::vector<std::string>{"1"});
  ASSERT_EQ(call(authd, key, "GET", "/admin/users/" + id + "/sessions").json()["sessions"].size(),
            1u);

  // The scan finds the user before the delete (it can see what it looks for).
  std::map<std::string, long> id_before = rows_containing(authd, id);
  std::map<std::string, long> email_before = rows_containing(authd, email);
  EXPECT_TRUE(id_before.count("users.id")) << describe_rows(id_before);
  EXPECT_GE(id_before.size(), 3u) << describe_rows(
      id_before);  // users, sessions, reset tokens, ...
  EXPECT_GE(email_before.size(), 2u) << describe_rows(email_before);  // users, throttling, outbox

  HttpResponse deleted = call(authd, key, "DELETE", "/admin/users/" + id);
  ASSERT_EQ(deleted.status, 204) << deleted.body;

  for (const std::string& needle : {id, email, std::string("Erasable Display Name"),
                                    std::string("+15559876543"), std::string("erasable.png")}) {
    std::map<std::string, long> left = rows_containing(authd, needle);
    // The audit trail keeps the account's id (interface.md 14.1: the
    // user.deleted event names it) until its retention ends, with its
    // index by account on SQLite (interface.md 14.1.5); nothing else.
    if (needle == id) erase_audit_trail_columns(left);
    EXPECT_TRUE(left.empty()) << "'" << needle << "' is still in " << describe_rows(left);
  }
  EXPECT_EQ(lines(authd.sql("select actor from events where type = 'user.deleted' and user_id = '" +
                            id + "'")),
            std::vector<std::string>{"admin:ops"});
  // bob's rows are untouched.
  std::map<std::string, long> bob_rows = rows_containing(authd, bob);
  EXPECT_TRUE(bob_rows.count("users.email")) << describe_rows(bob_rows);
  EXPECT_GE(bob_rows.size(), 2u) << describe_rows(bob_rows);
  EXPECT_FALSE(authd.login(bob, kPassword).empty());
}

// interface.md 10.4: a reset mail still queued (due in up to an hour) is
// erased with the account: no outbox row names it, and nothing is sent.
TEST(AdminErasure, Interface_10_4_13_DeleteErasesMailsStillQueued) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1h"});
  AuthdProcess authd(args);
  std::string key = create_key(authd, "ops", "write");
  nlohmann::json user = create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  ASSERT_EQ(lines(authd.sql("select count(*) from outbox where sent_at is null")),
            std::vector<std::string>{"1"});
  ASSERT_EQ(call(authd, key, "DELETE", "/admin/users/" + user["id"].get<std::string>()).status,
            204);
  EXPECT_EQ(lines(authd.sql("select count(*) from outbox")), std::vector<std::string>{"0"});
  EXPECT_TRUE(rows_containing(authd, kEmail).empty())
      << describe_rows(rows_containing(authd, kEmail));
  EXPECT_TRUE(authd.mails().empty());
}

// interface.md 10.4: afterwards the address behaves as unknown
// everywhere: login is the 401 of an unknown address (not a 429 from the
// failures before, not a 403), /forgot is 200 and mails nothing, the reset
// token mailed before is refused, the sessions are gone, the admin finds
// no user.
TEST(AdminErasure, Interface_10_4_13_DeletedEmailBehavesAsUnknownEverywhere) {
  AuthdProcess authd(erasure_args());
  std::string key = create_key(authd, "ops", "write");
  nlohmann::json user = create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  ASSERT_TRUE(
      create_user(authd, key, {{"email", "bob@example.com"}, {"password", kPassword}}).is_object());
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  std::string reset_token = reset_token_in(mails[0]);
  ASSERT_FALSE(reset_token.empty());
  // Ten failures: the address is locked (6 /login 4).
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 429);

  ASSERT_EQ(call(authd, key, "DELETE", "/admin/users/" + user["id"].get<std::string>()).status,
            204);

  HttpResponse unknown =
      post_json(authd.port(), "/login", login_body("nobody@example.com", kPassword));
  for (const std::string& password : {kPassword, std::string("wrong password")}) {
    HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, password));
    EXPECT_EQ(login.status, 401) << login.body;
    EXPECT_EQ(login.body, unknown.body);
    EXPECT_EQ(login.header("WWW-Authenticate"), unknown.header("WWW-Authenticate"));
  }
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 401);
  HttpResponse reset = post_json(authd.port(), "/reset", reset_body(reset_token, kNewPassword));
  EXPECT_EQ(reset.status, 401) << reset.body;

  HttpResponse forgot = post_json(authd.port(), "/forgot", forgot_body(kEmail));
  EXPECT_EQ(forgot.status, 200);
  EXPECT_EQ(forgot.body, R"({"email":"alice@example.com"})");
  // A mail for bob afterwards shows the worker ran past alice's request.
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body("bob@example.com")).status, 200);
  authd.wait_for_mails(2);
  ASSERT_TRUE(outbox_drained(authd));
  mails = authd.mails();
  ASSERT_EQ(mails.size(), 2u);
  EXPECT_NE(mails[1].find("To: bob@example.com"), std::string::npos) << mails[1];

  HttpResponse found = call(authd, key, "GET", "/admin/users?email=" + url_encode(kEmail));
  ASSERT_EQ(found.status, 200);
  EXPECT_EQ(found.json()["users"], nlohmann::json::array());
}

// interface.md 10.4: the address may be used for a new account: 201 with a
// new id; its throttling state starts afresh (the old account's failed
// logins and reset mails do not count against it), and the old reset token
// does not work for it.
TEST(AdminErasure, Interface_10_4_13_DeletedEmailMayBeUsedForANewAccount) {
  AuthdProcess authd(erasure_args());
  std::string key = create_key(authd, "ops", "write");
  nlohmann::json old_user = create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(old_user.is_object());
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  std::string old_reset = reset_token_in(mails[0]);
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 429);

  ASSERT_EQ(call(authd, key, "DELETE", "/admin/users/" + old_user["id"].get<std::string>()).status,
            204);
  nlohmann::json new_user =
      create_user(authd, key, {{"email", "ALICE@example.com"}, {"password", kNewPassword}});
  ASSERT_TRUE(new_user.is_object());
  EXPECT_NE(new_user["id"], old_user["id"]);
  EXPECT_GT(new_user["id"].get<std::string>(), old_user["id"].get<std::string>());
  EXPECT_EQ(new_user["email"], kEmail);
  EXPECT_EQ(new_user["lastLoginAt"], nullptr);

  // The old account's ten failures are gone with it: the new one logs in.
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kNewPassword));
  EXPECT_EQ(login.status, 200) << login.body;
  EXPECT_EQ(
      post_json(authd.port(), "/reset", reset_body(old_reset, "yet another passphrase")).status,
      401);
  // So is the old reset mail's count (one a minute per address, 6 /forgot 5).
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  mails = authd.wait_for_mails(2);
  ASSERT_EQ(mails.size(), 2u) << "no reset mail for the new account";
  std::string new_reset = reset_token_in(mails[1]);
  ASSERT_FALSE(new_reset.empty());
  HttpResponse reset =
      post_json(authd.port(), "/reset", reset_body(new_reset, "yet another passphrase"));
  ASSERT_EQ(reset.status, 200) << reset.body;
  EXPECT_EQ(reset.json()["id"], new_user["id"]);
}

// interface.md 10.4.13 and 11.4: after the delete, a sign-up of the
// address proceeds as for a new address: a sign-up made while the account
// existed (its "account exists" mail counted in the address's sign-up
// limits) does not hold the next one back, and the link creates a new
// account.
TEST(AdminErasure, Interface_10_4_13_ASignUpOfADeletedAddressProceedsAsForANewOne) {
  AuthdProcess authd(erasure_args({"--signup", "open"}));
  std::string key = create_key(authd, "ops", "write");
  nlohmann::json user = create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  const std::string body = nlohmann::json{{"email", kEmail}, {"password", kNewPassword}}.dump();
  ASSERT_EQ(post_json(authd.port(), "/signup", body).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].find("/verify#token="), std::string::npos) << "an account-exists mail";

  ASSERT_EQ(call(authd, key, "DELETE", "/admin/users/" + user["id"].get<std::string>()).status,
            204);
  ASSERT_EQ(post_json(authd.port(), "/signup", body).status, 200);
  mails = authd.wait_for_mails(2);
  ASSERT_EQ(mails.size(), 2u) << "no sign-up mail after the delete";
  std::smatch found;
  static const std::regex link(R"(http://authd\.test/verify#token=([A-Za-z0-9_-]+))");
  ASSERT_TRUE(std::regex_search(mails[1], found, link)) << mails[1];
  HttpResponse verified =
      post_json(authd.port(), "/verify",
                nlohmann::json{{"token", found[1].str()}, {"password", kNewPassword}}.dump());
  ASSERT_EQ(verified.status, 201) << verified.body;
  EXPECT_NE(verified.json()["id"], user["id"]);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kNewPassword)).status, 200);
}

// interface.md 10.4: `authd user delete --email E` does what DELETE does
// (exit 0; nothing of the account left); an unknown address exits 4.
TEST(AdminErasure, Interface_10_4_13_CliUserDeleteErasesLikeDelete) {
  AuthdProcess authd(erasure_args());
  std::string key = create_key(authd, "ops", "read");
  authd.add_user(kEmail, kPassword, {"--display-name", "Erasable Display Name"});
  authd.add_user("bob@example.com", kPassword);
  std::string id = show_user(authd, kEmail)["id"];
  ASSERT_FALSE(id.empty());
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  ASSERT_EQ(authd.wait_for_mails(1).size(), 1u);
  ASSERT_TRUE(outbox_drained(authd));

  std::string output;
  EXPECT_EQ(authd.cli({"user", "delete", "--email", "Alice@Example.com"}, "", &output), 0)
      << output;
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 401);
  expect_error(call(authd, key, "GET", "/admin/users/" + id), 404, "GET after user delete");
  for (const std::string& needle : {id, kEmail, std::string("Erasable Display Name")}) {
    std::map<std::string, long> left = rows_containing(authd, needle);
    if (needle == id) erase_audit_trail_columns(left);  // the audit trail's (14.1)
    EXPECT_TRUE(left.empty()) << "'" << needle << "' is still in " << describe_rows(left);
  }
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 401);
  EXPECT_FALSE(authd.login("bob@example.com", kPassword).empty());

  EXPECT_EQ(authd.cli({"user", "delete", "--email", kEmail}, "", &output), 4) << output;
  EXPECT_EQ(authd.cli({"user", "delete", "--email", "nobody@example.com"}, "", &output), 4)
      << output;
}

}  // namespace
}  // namespace authd::test::admin
