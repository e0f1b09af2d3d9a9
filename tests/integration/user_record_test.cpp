// interface.md section 2 (the User record) and 4.2 (a transparent re-hash
// is not a change of the record), over real HTTP against the real binary.
#include <latch>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// interface.md 2.1, 2.2: the 200 of /login, /me and /logout is a full User,
// all ten fields present, absent values null, password null.
TEST(UserRecord, Interface_2_1_LoginMeLogoutReturnAllTenFields) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);

  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  nlohmann::json user = login.json();
  expect_full_user(user);
  for (const char* field :
       {"phone", "photoUrl", "displayName", "emailVerifiedAt", "phoneVerifiedAt"}) {
    EXPECT_TRUE(user[field].is_null()) << field << " in " << user;
  }
  std::string token = token_of(login);
  ASSERT_FALSE(token.empty());

  HttpResponse me = get_with_token(authd.port(), "/me", token);
  ASSERT_EQ(me.status, 200) << me.body;
  expect_full_user(me.json());
  EXPECT_EQ(me.json(), user);

  HttpResponse logout = post_with_token(authd.port(), "/logout", token);
  ASSERT_EQ(logout.status, 200) << logout.body;
  expect_full_user(logout.json());
  EXPECT_EQ(logout.json(), user);
}

// interface.md 2.1: profile values set by the operator come back as given.
TEST(UserRecord, Interface_2_1_ProfileFieldsArePresentWhenSet) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword,
                 {"--display-name", "Alice Liddell", "--phone", "+15551234567", "--photo-url",
                  "https://example.com/alice.png"});
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  nlohmann::json user = login.json();
  expect_full_user(user);
  EXPECT_EQ(user["displayName"], "Alice Liddell");
  EXPECT_EQ(user["phone"], "+15551234567");
  EXPECT_EQ(user["photoUrl"], "https://example.com/alice.png");
}

// interface.md 2.2: the password field is null and no hash is anywhere in
// the response.
TEST(UserRecord, Interface_2_2_PasswordIsNullAndNoHashLeaves) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  EXPECT_TRUE(login.json()["password"].is_null());
  EXPECT_EQ(login.body.find("argon2"), std::string::npos) << login.body;
  for (const auto& [name, value] : login.headers) {
    EXPECT_EQ(value.find("argon2"), std::string::npos) << name;
  }
}

// interface.md 2.3: id is a UUID (version 7), stable across responses.
TEST(UserRecord, Interface_2_3_IdIsUuidV7) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  HttpResponse alice = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  HttpResponse bob = post_json(authd.port(), "/login", login_body("bob@example.com", kPassword));
  ASSERT_EQ(alice.status, 200);
  ASSERT_EQ(bob.status, 200);
  std::string alice_id = alice.json()["id"];
  std::string bob_id = bob.json()["id"];
  EXPECT_TRUE(matches(alice_id, uuid_v7_pattern())) << alice_id;
  EXPECT_TRUE(matches(bob_id, uuid_v7_pattern())) << bob_id;
  EXPECT_NE(alice_id, bob_id);
  EXPECT_EQ(show_user(authd, kEmail)["id"], alice_id);
}

// interface.md 2.4: timestamps are RFC 3339 in UTC with milliseconds,
// including the verification times once set.
TEST(UserRecord, Interface_2_4_TimestampsAreRfc3339UtcWithMilliseconds) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword, {"--phone", "+15551234567"});
  cli_json(authd, {"user", "verify-email", "--email", kEmail});
  cli_json(authd, {"user", "verify-phone", "--email", kEmail});
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  nlohmann::json user = login.json();
  for (const char* field : {"createdAt", "updatedAt", "emailVerifiedAt", "phoneVerifiedAt"}) {
    ASSERT_TRUE(user[field].is_string()) << field << " in " << user;
    EXPECT_TRUE(matches(user[field].get<std::string>(), timestamp_pattern()))
        << field << ": " << user[field];
  }
}

// interface.md 2.5: e-mail stored and returned ASCII-lowercased, and
// matched case-insensitively.
TEST(UserRecord, Interface_2_5_EmailIsCanonicalLowercase) {
  AuthdProcess authd(fast_hashing());
  authd.add_user("Alice@Example.COM", kPassword);
  EXPECT_EQ(lines(authd.sql("select email from users")), std::vector<std::string>{kEmail});

  HttpResponse login =
      post_json(authd.port(), "/login", login_body("Alice@Example.COM", kPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  EXPECT_EQ(login.json()["email"], kEmail);
  HttpResponse upper =
      post_json(authd.port(), "/login", login_body("ALICE@EXAMPLE.COM", kPassword));
  ASSERT_EQ(upper.status, 200) << upper.body;
  EXPECT_EQ(upper.json()["email"], kEmail);
  EXPECT_EQ(get_with_token(authd.port(), "/me", token_of(upper)).json()["email"], kEmail);
}

// interface.md 2.6: updatedAt equals createdAt at creation, and a login
// changes neither.
TEST(UserRecord, Interface_2_6_UpdatedAtEqualsCreatedAtAndLoginChangesNothing) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  nlohmann::json created = show_user(authd, kEmail);
  EXPECT_EQ(created["updatedAt"], created["createdAt"]);

  for (int i = 0; i < 2; ++i) {
    HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
    ASSERT_EQ(login.status, 200);
    EXPECT_EQ(login.json()["updatedAt"], created["createdAt"]);
    EXPECT_EQ(login.json()["createdAt"], created["createdAt"]);
  }
  // A failed login is no change either.
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  EXPECT_EQ(show_user(authd, kEmail)["updatedAt"], created["createdAt"]);
}

// interface.md 2.6: every change of the stored record moves updatedAt
// forward: password, enabled state, verification.
TEST(UserRecord, Interface_2_6_UpdatedAtChangesWithEveryRecordChange) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword, {"--phone", "+15551234567"});
  nlohmann::json before = show_user(authd, kEmail);
  std::string last = before["updatedAt"];
  std::vector<std::string> hashing = fast_hashing();

  auto expect_moved = [&](const nlohmann::json& after, const char* what) {
    ASSERT_TRUE(after["updatedAt"].is_string()) << what;
    std::string now = after["updatedAt"];
    EXPECT_GT(now, last) << what;  // same fixed-width format: text order is time order
    EXPECT_EQ(after["createdAt"], before["createdAt"]) << what;
    last = now;
  };

  std::vector<std::string> set_password = {"user", "set-password", "--email", kEmail};
  set_password.insert(set_password.end(), hashing.begin(), hashing.end());
  expect_moved(cli_json(authd, set_password, "another good password"), "set-password");
  expect_moved(cli_json(authd, {"user", "disable", "--email", kEmail}), "disable");
  expect_moved(cli_json(authd, {"user", "enable", "--email", kEmail}), "enable");
  expect_moved(cli_json(authd, {"user", "verify-email", "--email", kEmail}), "verify-email");
  expect_moved(cli_json(authd, {"user", "verify-phone", "--email", kEmail}), "verify-phone");

  HttpResponse login =
      post_json(authd.port(), "/login", login_body(kEmail, "another good password"));
  ASSERT_EQ(login.status, 200) << login.body;
  EXPECT_EQ(login.json()["updatedAt"], last);
}

// interface.md 2.6 and 4.2: a login that re-hashes a password made under
// other parameters stores the new hash, but does not change updatedAt.
TEST(UserRecord, Interface_2_6_And_4_2_TransparentRehashDoesNotChangeUpdatedAt) {
  AuthdProcess authd;  // default (OWASP) parameters
  // Created with weaker parameters than the server's.
  std::vector<std::string> args = {"user", "add", "--email", kEmail};
  std::vector<std::string> hashing = fast_hashing();
  args.insert(args.end(), hashing.begin(), hashing.end());
  nlohmann::json created = cli_json(authd, args, kPassword);
  std::string old_hash = without_trailing_newlines(authd.sql("select password_hash from users"));
  ASSERT_EQ(old_hash.rfind("$argon2id$v=19$m=64,t=1,p=1$", 0), 0u) << old_hash;
  std::string old_updated = without_trailing_newlines(authd.sql("select updated_at from users"));

  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  EXPECT_EQ(login.json()["updatedAt"], created["createdAt"]);

  std::string new_hash = without_trailing_newlines(authd.sql("select password_hash from users"));
  EXPECT_NE(new_hash, old_hash);
  EXPECT_EQ(new_hash.rfind("$argon2id$v=19$m=19456,t=2,p=1$", 0), 0u) << new_hash;
  EXPECT_EQ(without_trailing_newlines(authd.sql("select updated_at from users")), old_updated);

  // The upgraded hash still verifies, and nothing changed for the user.
  HttpResponse again = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json()["updatedAt"], created["createdAt"]);
  EXPECT_EQ(without_trailing_newlines(authd.sql("select password_hash from users")), new_hash);
}

// interface.md 4.2: the upgrade is invisible, also to several logins that
// race on the same outdated hash: every one of them succeeds.
TEST(UserRecord, Interface_4_2_ConcurrentLoginsDuringRehashAllSucceed) {
  AuthdProcess authd({"--hash-workers", "4", "--hash-queue", "16"});
  std::vector<std::string> args = {"user", "add", "--email", kEmail};
  std::vector<std::string> hashing = fast_hashing();
  args.insert(args.end(), hashing.begin(), hashing.end());
  cli_json(authd, args, kPassword);

  constexpr int kClients = 4;
  std::vector<int> statuses(kClients, 0);
  std::latch ready(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      HttpConnection connection(authd.port());
      ready.arrive_and_wait();
      statuses[static_cast<std::size_t>(i)] =
          connection
              .request("POST", "/login", {{"Content-Type", "application/json"}},
                       login_body(kEmail, kPassword))
              .status;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(statuses, std::vector<int>(kClients, 200));
  std::string hash = without_trailing_newlines(authd.sql("select password_hash from users"));
  EXPECT_EQ(hash.rfind("$argon2id$v=19$m=19456,t=2,p=1$", 0), 0u) << hash;
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 2.6: emailVerifiedAt is never set implicitly by `user add`;
// an operator sets it (and phoneVerifiedAt) explicitly.
TEST(UserRecord, Interface_2_6_VerificationOnlyByOperator) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword, {"--phone", "+15551234567"});
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  EXPECT_TRUE(login.json()["emailVerifiedAt"].is_null());
  EXPECT_TRUE(login.json()["phoneVerifiedAt"].is_null());

  nlohmann::json verified = cli_json(authd, {"user", "verify-email", "--email", kEmail});
  ASSERT_TRUE(verified["emailVerifiedAt"].is_string()) << verified;
  EXPECT_TRUE(verified["phoneVerifiedAt"].is_null());
  HttpResponse me = get_with_token(authd.port(), "/me", token_of(login));
  ASSERT_EQ(me.status, 200);
  EXPECT_EQ(me.json()["emailVerifiedAt"], verified["emailVerifiedAt"]);
  EXPECT_TRUE(me.json()["phoneVerifiedAt"].is_null());

  nlohmann::json phone = cli_json(authd, {"user", "verify-phone", "--email", kEmail});
  ASSERT_TRUE(phone["phoneVerifiedAt"].is_string()) << phone;
  EXPECT_EQ(get_with_token(authd.port(), "/me", token_of(login)).json()["phoneVerifiedAt"],
            phone["phoneVerifiedAt"]);
}

}  // namespace
}  // namespace authd::test
