// interface.md 10.3 and 10.4: the admin view of a user, and the routes
// that create, find, change and end accounts and their sessions, over real
// HTTP on the management listener.
#include <gtest/gtest.h>

#include <algorithm>
#include <latch>
#include <set>
#include <thread>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"

// Inside authd::test::admin, not with a using-directive: the unity build
// puts several test files in one translation unit, and a directive in the
// shared unnamed namespace would reach the files after this one.
namespace authd::test::admin {
namespace {

const std::string kNoSuchUserId = "01890a5d-ac96-774b-bcce-b302099a8057";

std::vector<std::string> users_with_mail() {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1ms"});
  return args;
}

// A server and a write key for it.
struct AdminServer {
  explicit AdminServer(std::vector<std::string> args = fast_hashing())
      : authd(std::move(args)), key(create_key(authd, "ops", "write")) {}
  HttpResponse operator()(const std::string& method, const std::string& target) const {
    return call(authd, key, method, target);
  }
  HttpResponse operator()(const std::string& method, const std::string& target,
                          const nlohmann::json& body) const {
    return call(authd, key, method, target, body);
  }
  HttpResponse raw(const std::string& method, const std::string& target,
                   const std::string& body) const {
    return call(authd, key, method, target, std::optional<std::string>(body));
  }
  nlohmann::json create(const nlohmann::json& body) const { return create_user(authd, key, body); }
  nlohmann::json get(const std::string& id) const { return get_user(authd, key, id); }
  nlohmann::json patch(const std::string& id, const nlohmann::json& body) const {
    HttpResponse res = call(authd, key, "PATCH", "/admin/users/" + id, body);
    EXPECT_EQ(res.status, 200) << body.dump() << " -> " << res.body;
    if (res.status != 200) return nullptr;
    nlohmann::json user = res.json();
    expect_admin_user(user);
    return user;
  }
  int login_status(const std::string& email, const std::string& password) const {
    return post_json(authd.port(), "/login", login_body(email, password)).status;
  }
  long user_count() const { return std::stol(lines(authd.sql("select count(*) from users"))[0]); }

  AuthdProcess authd;
  std::string key;
};

// The reset token of the newest mail to `email` (after a /forgot).
std::string mailed_reset_token(const AuthdProcess& authd, const std::string& email,
                               std::size_t mails_before) {
  EXPECT_EQ(post_json(authd.port(), "/forgot", forgot_body(email)).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(mails_before + 1);
  EXPECT_EQ(mails.size(), mails_before + 1);
  if (mails.size() != mails_before + 1) return "";
  EXPECT_NE(mails.back().find("To: " + email), std::string::npos) << mails.back();
  return reset_token_in(mails.back());
}

// ---------------------------------------------------------------- POST

// interface.md 10.4 and 10.3: 201 with the admin view (ten members of the
// User, disabled, lastLoginAt, mfa), Location /admin/users/{id}, the e-mail
// canonicalised, createdAt = updatedAt, verification times set by the
// booleans; GET answers the same user.
TEST(AdminUsers, Interface_10_4_5_And_10_3_1_CreateAnswers201WithTheAdminViewAndLocation) {
  AdminServer admin;
  HttpResponse res = admin("POST", "/admin/users",
                           {{"email", "Alice@Example.COM"},
                            {"password", kPassword},
                            {"displayName", "Alice Liddell"},
                            {"phone", "+15551234567"},
                            {"photoUrl", "https://example.com/alice.png"},
                            {"emailVerified", true},
                            {"phoneVerified", true},
                            {"disabled", false}});
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json user = res.json();
  expect_admin_user(user);
  EXPECT_TRUE(matches(user["id"].get<std::string>(), uuid_v7_pattern())) << user;
  EXPECT_EQ(res.header("Location"), "/admin/users/" + user["id"].get<std::string>());
  EXPECT_EQ(user["email"], kEmail);
  EXPECT_EQ(user["password"], nullptr);
  EXPECT_EQ(user["displayName"], "Alice Liddell");
  EXPECT_EQ(user["phone"], "+15551234567");
  EXPECT_EQ(user["photoUrl"], "https://example.com/alice.png");
  EXPECT_EQ(user["disabled"], false);
  EXPECT_EQ(user["lastLoginAt"], nullptr);
  EXPECT_EQ(user["mfa"], nlohmann::json::array());
  EXPECT_EQ(user["createdAt"], user["updatedAt"]);
  ASSERT_TRUE(user["emailVerifiedAt"].is_string()) << user;
  ASSERT_TRUE(user["phoneVerifiedAt"].is_string()) << user;
  EXPECT_GE(user["emailVerifiedAt"].get<std::string>(), user["createdAt"].get<std::string>());
  EXPECT_GE(user["phoneVerifiedAt"].get<std::string>(), user["createdAt"].get<std::string>());
  EXPECT_EQ(res.body.find("argon2"), std::string::npos);

  EXPECT_EQ(admin.get(user["id"]), user);

  // Without the booleans: nothing verified, enabled.
  nlohmann::json plain = admin.create({{"email", "bob@example.com"}, {"password", kPassword}});
  ASSERT_TRUE(plain.is_object());
  expect_admin_user(plain);
  EXPECT_EQ(plain["emailVerifiedAt"], nullptr);
  EXPECT_EQ(plain["phoneVerifiedAt"], nullptr);
  EXPECT_EQ(plain["displayName"], nullptr);
  EXPECT_EQ(plain["phone"], nullptr);
  EXPECT_EQ(plain["photoUrl"], nullptr);
  EXPECT_EQ(plain["disabled"], false);
  EXPECT_GT(plain["id"].get<std::string>(), user["id"].get<std::string>());
}

// interface.md 10.4: the created user logs in on the public listener with
// its password, with the same ten members; a disabled one gets 403.
TEST(AdminUsers, Interface_10_4_5_CreatedUserLogsInOnThePublicListener) {
  AdminServer admin;
  nlohmann::json user = admin.create(
      {{"email", "ALICE@example.com"}, {"password", kPassword}, {"displayName", "Alice"}});
  ASSERT_TRUE(user.is_object());
  HttpResponse login = post_json(admin.authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  nlohmann::json served = login.json();
  expect_full_user(served);
  for (const auto& [member, value] : served.items()) EXPECT_EQ(user[member], value) << member;
  EXPECT_EQ(admin.login_status(kEmail, "wrong password"), 401);

  ASSERT_TRUE(
      admin.create({{"email", "carol@example.com"}, {"password", kPassword}, {"disabled", true}})
          .is_object());
  HttpResponse disabled =
      post_json(admin.authd.port(), "/login", login_body("carol@example.com", kPassword));
  EXPECT_EQ(disabled.status, 403) << disabled.body;
}

// interface.md 10.4: without password and passwordHash the account has no
// password: every login is 401, like a wrong password; a reset gives it
// one.
TEST(AdminUsers, Interface_10_4_5_CreateWithoutPasswordOnlyAResetGivesOne) {
  AdminServer admin(users_with_mail());
  nlohmann::json user = admin.create({{"email", kEmail}});
  ASSERT_TRUE(user.is_object());
  for (const std::string& password : {kPassword, std::string(""), std::string("x"),
                                      std::string("*"), std::string("!"), std::string("null")}) {
    HttpResponse res = post_json(admin.authd.port(), "/login", login_body(kEmail, password));
    if (password.empty()) {
      EXPECT_EQ(res.status, 400);  // 3.2: an empty login password is invalid
      continue;
    }
    EXPECT_EQ(res.status, 401) << "'" << password << "'";
    EXPECT_EQ(res.body, unauthorized_body());
  }
  std::string token = mailed_reset_token(admin.authd, kEmail, 0);
  ASSERT_FALSE(token.empty());
  HttpResponse reset = post_json(admin.authd.port(), "/reset", reset_body(token, kNewPassword));
  ASSERT_EQ(reset.status, 200) << reset.body;
  EXPECT_EQ(admin.login_status(kEmail, kNewPassword), 200);
}

// interface.md 10.4: passwordHash, an argon2id hash in PHC form made
// elsewhere, is stored as given: the password it was made from logs in.
TEST(AdminUsers, Interface_10_4_3_CreateWithPasswordHash) {
  AdminServer admin;
  const std::string password = "imported passphrase";
  std::string hash = argon2id_hash(password);
  ASSERT_EQ(hash.rfind("$argon2id$", 0), 0u) << hash;
  nlohmann::json user = admin.create({{"email", kEmail}, {"passwordHash", hash}});
  ASSERT_TRUE(user.is_object());
  EXPECT_EQ(user.dump().find("argon2"), std::string::npos) << user;
  EXPECT_EQ(admin.login_status(kEmail, password), 200);
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 401);
}

// interface.md 10.4 and 10.5: the store records the kind of every hash it
// writes, an imported one too (POST and PUT), so that the login floor
// follows it.
TEST(AdminUsers, Interface_10_4_3_And_10_5_AnImportedHashsKindIsRecorded) {
  // Kinds a few times the tiny own one: one timing on a busy machine may
  // put them past 20 (10.5.6), which is not what this test is about.
  std::vector<std::string> args = fast_hashing();
  args.push_back("--allow-costly-hashes");
  AdminServer admin(args);
  nlohmann::json user =
      admin.create({{"email", kEmail}, {"passwordHash", argon2id_hash(kPassword, 2, 128)}});
  ASSERT_TRUE(user.is_object());
  auto kinds = [&] { return lines(admin.authd.sql("select kind from password_hash_kinds")); };
  auto has = [&](const std::string& kind) {
    std::vector<std::string> all = kinds();
    return std::find(all.begin(), all.end(), kind) != all.end();
  };
  EXPECT_TRUE(has("$argon2id$v=19$m=128,t=2,p=1")) << ::testing::PrintToString(kinds());
  ASSERT_EQ(admin("PUT", "/admin/users/" + user["id"].get<std::string>() + "/password",
                  {{"passwordHash", argon2id_hash(kPassword, 3, 96)}})
                .status,
            200);
  EXPECT_TRUE(has("$argon2id$v=19$m=96,t=3,p=1")) << ::testing::PrintToString(kinds());
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 200);
}

// interface.md 10.4.3 and 10.5: a passwordHash over its format's cost cap
// (argon2 of 4 GiB or 100 passes, bcrypt of cost 31) is a 400, on POST and
// on PUT, and nothing is stored.
TEST(AdminUsers, Interface_10_4_3_APasswordHashOverItsCostCapIs400) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  const std::string hash = argon2id_hash(kPassword);
  // The same salt and digest under parameters no worker should spend.
  const std::string tail = hash.substr(hash.find("$", hash.find("p=")));
  const std::vector<std::string> over = {
      "$argon2id$v=19$m=4194304,t=1,p=1" + tail,
      "$argon2id$v=19$m=64,t=100,p=1" + tail,
      "$2b$31$" + std::string("abcdefghijklmnopqrstuv") + std::string(31, 'A'),
  };
  for (const std::string& capped : over) {
    expect_error(
        admin("POST", "/admin/users", {{"email", "bob@example.com"}, {"passwordHash", capped}}),
        400, "POST " + capped);
    expect_error(admin("PUT", "/admin/users/" + user["id"].get<std::string>() + "/password",
                       {{"passwordHash", capped}}),
                 400, "PUT " + capped);
  }
  EXPECT_EQ(admin.user_count(), 1);
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 200);
  EXPECT_EQ(admin.get(user["id"])["updatedAt"], user["updatedAt"]);
}

// interface.md 10.4, 3.1, 3.3 and 1.7: every invalid body is a 400 (with
// the messages of 1.3) and creates nothing.
TEST(AdminUsers, Interface_10_4_3_CreateRefusesInvalidBodiesWith400) {
  AdminServer admin;
  const std::string hash = argon2id_hash(kPassword);
  auto bob = [](nlohmann::json extra) {
    nlohmann::json body = {{"email", "bob@example.com"}};
    body.update(extra);
    return body;
  };
  const std::vector<nlohmann::json> bodies = {
      nlohmann::json::object(),  // no e-mail
      {{"email", nullptr}},
      {{"email", 5}},
      {{"email", nlohmann::json::array({"bob@example.com"})}},
      {{"email", ""}},
      {{"email", "not an e-mail"}},
      {{"email", " bob@example.com"}},
      {{"email", "bob@example.com "}},
      {{"email",
        "b\xC3\xB6"
        "b@example.com"}},
      {{"email", std::string(250, 'b') + "@example.com"}},
      bob({{"password", "short"}}),
      bob({{"password", "1234567"}}),
      bob({{"password", emoji(7)}}),
      bob({{"password", std::string(256, 'p')}}),
      bob({{"password", emoji(256)}}),
      bob({{"password", "bob@example.com"}}),
      bob({{"password", "BOB@Example.com"}}),
      bob({{"password", 12345678}}),
      bob({{"password", true}}),
      bob({{"password", kPassword}, {"passwordHash", hash}}),
      bob({{"passwordHash", 5}}),
      bob({{"passwordHash", ""}}),
      bob({{"passwordHash", "not a hash"}}),
      bob({{"displayName", ""}}),
      bob({{"displayName", std::string(256, 'd')}}),
      bob({{"displayName", emoji(256)}}),
      bob({{"displayName", "line\nbreak"}}),
      bob({{"displayName", std::string("nul\x01here")}}),
      bob({{"displayName", "del\x7f"}}),
      bob({{"displayName", 5}}),
      bob({{"displayName", nlohmann::json::object()}}),
      bob({{"phone", "555-1234"}}),
      bob({{"phone", "15551234567"}}),
      bob({{"phone", "+"}}),
      bob({{"phone", "+1234567890123456"}}),
      bob({{"phone", "+1 555 123 4567"}}),
      bob({{"phone", "+1555123456a"}}),
      bob({{"phone", 15551234567}}),
      bob({{"photoUrl", "javascript:alert(1)"}}),
      bob({{"photoUrl", "ftp://example.com/bob.png"}}),
      bob({{"photoUrl", "example.com/bob.png"}}),
      bob({{"photoUrl", "https://example.com/" + std::string(2029, 'p')}}),  // 2049 characters
      bob({{"photoUrl", true}}),
      bob({{"emailVerified", "true"}}),
      bob({{"emailVerified", 1}}),
      bob({{"phoneVerified", "yes"}}),
      bob({{"phoneVerified", 0}}),
      bob({{"disabled", "false"}}),
      bob({{"disabled", 0}}),
      bob({{"disabled", nlohmann::json::array()}}),
  };
  for (const nlohmann::json& body : bodies)
    expect_error(admin("POST", "/admin/users", body), 400, body.dump());
  for (const std::string& text :
       {std::string("not json"), std::string("[]"), std::string("\"bob@example.com\""),
        std::string(R"({"email":"bob@example.com","email":"carol@example.com"})"),
        std::string(R"({"email":"bob@example.com")"), std::string("")})
    expect_error(admin.raw("POST", "/admin/users", text), 400, text);
  EXPECT_EQ(admin.user_count(), 0);
  HttpResponse listing = admin("GET", "/admin/users");
  ASSERT_EQ(listing.status, 200);
  EXPECT_EQ(listing.json()["users"], nlohmann::json::array());
}

// interface.md 10.4: the limits themselves are accepted: 8 and 255 code
// points of password, 255 of display name, 1 and 15 digits of phone, 2048
// characters of photo URL, http as well as https; an address without a dot
// in its domain (3.1).
TEST(AdminUsers, Interface_10_4_3_CreateAcceptsTheLimits) {
  AdminServer admin;
  const std::string url = "http://example.com/" + std::string(2029, 'p');  // 2048 characters
  ASSERT_EQ(url.size(), 2048u);
  nlohmann::json first = admin.create({{"email", "bob@example.com"},
                                       {"password", emoji(8)},
                                       {"displayName", emoji(255)},
                                       {"phone", "+1"},
                                       {"photoUrl", url}});
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first["displayName"], emoji(255));
  EXPECT_EQ(first["phone"], "+1");
  EXPECT_EQ(first["photoUrl"], url);
  EXPECT_EQ(admin.login_status("bob@example.com", emoji(8)), 200);

  nlohmann::json second = admin.create({{"email", "carol@localhost"},
                                        {"password", std::string(255, 'p')},
                                        {"displayName", "C"},
                                        {"phone", "+123456789012345"}});
  ASSERT_TRUE(second.is_object());
  EXPECT_EQ(second["phone"], "+123456789012345");
  EXPECT_EQ(admin.login_status("carol@localhost", std::string(255, 'p')), 200);
}

// interface.md 10.4: null for an optional member means absent.
TEST(AdminUsers, Interface_10_4_3_CreateTreatsNullAsAbsent) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail},
                                      {"password", nullptr},
                                      {"passwordHash", nullptr},
                                      {"displayName", nullptr},
                                      {"phone", nullptr},
                                      {"photoUrl", nullptr},
                                      {"emailVerified", nullptr},
                                      {"phoneVerified", nullptr},
                                      {"disabled", nullptr}});
  ASSERT_TRUE(user.is_object());
  expect_admin_user(user);
  for (const char* member :
       {"displayName", "phone", "photoUrl", "emailVerifiedAt", "phoneVerifiedAt", "lastLoginAt"})
    EXPECT_EQ(user[member], nullptr) << member;
  EXPECT_EQ(user["disabled"], false);
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 401);  // no password

  // Members the route does not know are ignored (1.7), even ones named like
  // the admin view's own.
  nlohmann::json dave = admin.create({{"email", "dave@example.com"},
                                      {"unknownMember", 1},
                                      {"mfa", nlohmann::json::array({"totp"})},
                                      {"lastLoginAt", "2020-01-01T00:00:00.000Z"},
                                      {"id", "01890a5d-ac96-774b-bcce-b302099a8057"}});
  ASSERT_TRUE(dave.is_object());
  EXPECT_EQ(dave["mfa"], nlohmann::json::array());
  EXPECT_EQ(dave["lastLoginAt"], nullptr);
  EXPECT_NE(dave["id"], "01890a5d-ac96-774b-bcce-b302099a8057");

  // One of the two passwords null, the other given: not "both".
  nlohmann::json bob = admin.create(
      {{"email", "bob@example.com"}, {"password", kPassword}, {"passwordHash", nullptr}});
  ASSERT_TRUE(bob.is_object());
  EXPECT_EQ(admin.login_status("bob@example.com", kPassword), 200);
  nlohmann::json carol = admin.create({{"email", "carol@example.com"},
                                       {"password", nullptr},
                                       {"passwordHash", argon2id_hash(kPassword)}});
  ASSERT_TRUE(carol.is_object());
  EXPECT_EQ(admin.login_status("carol@example.com", kPassword), 200);
}

// interface.md 10.4 and 1.3: an e-mail that has an account, in any letter
// case: 409 {"code":409,"message":"Conflict"}; nothing changes.
TEST(AdminUsers, Interface_10_4_5_ExistingEmailInAnyCaseIs409) {
  AdminServer admin;
  admin.authd.add_user("carol@example.com", kPassword);  // made by the CLI
  nlohmann::json alice = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(alice.is_object());
  for (const std::string& email :
       {kEmail, std::string("ALICE@EXAMPLE.COM"), std::string("Alice@example.com"),
        std::string("carol@example.com"), std::string("Carol@Example.Com")}) {
    HttpResponse res =
        admin("POST", "/admin/users", {{"email", email}, {"password", kNewPassword}});
    expect_error(res, 409, email);
    EXPECT_EQ(res.body, R"({"code":409,"message":"Conflict"})") << email;
  }
  EXPECT_EQ(admin.user_count(), 2);
  EXPECT_EQ(admin.get(alice["id"]), alice);
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 200);
  EXPECT_EQ(admin.login_status(kEmail, kNewPassword), 401);
}

// interface.md 10.4: two clients creating one e-mail at once (in two
// letter cases) on one server: exactly one 201 and one 409, round after
// round; each address ends with one account.
TEST(AdminUsers, Interface_10_4_5_ConcurrentCreatesOfOneEmailGiveOne201AndOne409) {
  AdminServer admin;
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    const std::string emails[2] = {"race" + std::to_string(round) + "@example.com",
                                   "RACE" + std::to_string(round) + "@Example.com"};
    std::latch start(2);
    HttpResponse answers[2];
    std::vector<std::thread> clients;
    for (int i = 0; i < 2; ++i) {
      clients.emplace_back([&, i] {
        nlohmann::json body = {{"email", emails[i]}, {"password", kPassword}};
        start.arrive_and_wait();
        answers[i] = admin("POST", "/admin/users", body);
      });
    }
    for (auto& client : clients) client.join();
    EXPECT_EQ((std::multiset<int>{answers[0].status, answers[1].status}),
              (std::multiset<int>{201, 409}))
        << "round " << round << ": " << answers[0].body << " / " << answers[1].body;
  }
  EXPECT_EQ(admin.user_count(), kRounds);
}

// ----------------------------------------------------------------- GET

// interface.md 10.3: lastLoginAt is null until a login succeeds, then the
// time of each successful login; a failed login leaves it; a login does
// not move updatedAt (2.6).
TEST(AdminUsers, Interface_10_3_2_LastLoginAtIsSetByEachSuccessfulLogin) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  EXPECT_EQ(user["lastLoginAt"], nullptr);
  ASSERT_EQ(admin.login_status(kEmail, "wrong password"), 401);
  EXPECT_EQ(admin.get(user["id"])["lastLoginAt"], nullptr);

  wait_past(user["createdAt"]);
  HttpResponse login = post_json(admin.authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  nlohmann::json first = admin.get(user["id"]);
  expect_admin_user(first);
  ASSERT_TRUE(first["lastLoginAt"].is_string()) << first;
  EXPECT_GT(first["lastLoginAt"].get<std::string>(), user["createdAt"].get<std::string>());
  EXPECT_EQ(first["updatedAt"], user["updatedAt"]);

  wait_past(first["lastLoginAt"]);
  ASSERT_EQ(admin.login_status(kEmail, kPassword), 200);
  nlohmann::json second = admin.get(user["id"]);
  ASSERT_TRUE(second["lastLoginAt"].is_string()) << second;
  EXPECT_GT(second["lastLoginAt"].get<std::string>(), first["lastLoginAt"].get<std::string>());
  EXPECT_EQ(second["updatedAt"], user["updatedAt"]);

  ASSERT_EQ(admin.login_status(kEmail, "wrong password"), 401);
  EXPECT_EQ(admin.get(user["id"])["lastLoginAt"], second["lastLoginAt"]);
}

// interface.md 10.4: GET /admin/users/{id}: 200 with the admin view, or
// 404 for an unknown id and for one that is not a UUID.
TEST(AdminUsers, Interface_10_4_6_GetUserByIdOr404) {
  AdminServer admin;
  std::string reader = create_key(admin.authd, "reader", "read");
  nlohmann::json user = admin.create({{"email", kEmail}, {"displayName", "Alice"}});
  ASSERT_TRUE(user.is_object());
  HttpResponse res =
      call(admin.authd, reader, "GET", "/admin/users/" + user["id"].get<std::string>());
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  EXPECT_EQ(res.json(), user);
  for (const std::string& id : {kNoSuchUserId, std::string("not-a-uuid"), std::string("%00"),
                                std::string(200, 'f'), user["id"].get<std::string>().substr(0, 35),
                                user["id"].get<std::string>() + "0", std::string("..")}) {
    expect_error(call(admin.authd, reader, "GET", "/admin/users/" + id), 404, id);
  }
}

// interface.md 10.4: GET /admin/users?email=E: {"users": [zero or one],
// "nextCursor": null}; matched in any letter case; E percent-decoded with
// '+' kept as it is; an invalid address: 400.
TEST(AdminUsers, Interface_10_4_7_FindByEmail) {
  AdminServer admin;
  std::string reader = create_key(admin.authd, "reader", "read");
  nlohmann::json alice = admin.create({{"email", kEmail}});
  nlohmann::json tagged = admin.create({{"email", "bob+tag@example.com"}});
  ASSERT_TRUE(alice.is_object() && tagged.is_object());
  auto find = [&](const std::string& query) {
    HttpResponse res = call(admin.authd, reader, "GET", "/admin/users?email=" + query);
    EXPECT_EQ(res.status, 200) << query << " -> " << res.body;
    nlohmann::json body = nlohmann::json::parse(res.body, nullptr, false);
    EXPECT_TRUE(body.is_object()) << res.body;
    if (!body.is_object()) return nlohmann::json::array();
    EXPECT_EQ(body.size(), 2u) << res.body;
    EXPECT_TRUE(body.contains("nextCursor") && body["nextCursor"].is_null()) << res.body;
    return body["users"];
  };
  for (const std::string& query :
       {std::string("alice@example.com"), std::string("alice%40example.com"),
        std::string("ALICE@Example.COM"), std::string("%41lice%40example.com")}) {
    nlohmann::json users = find(query);
    ASSERT_EQ(users.size(), 1u) << query;
    EXPECT_EQ(users[0], alice) << query;
  }
  for (const std::string& query :
       {std::string("bob+tag@example.com"), std::string("bob%2Btag%40example.com"),
        std::string("BOB+TAG@EXAMPLE.COM")}) {
    nlohmann::json users = find(query);
    ASSERT_EQ(users.size(), 1u) << query;
    EXPECT_EQ(users[0], tagged) << query;
  }
  EXPECT_EQ(find("nobody%40example.com"), nlohmann::json::array());
  EXPECT_EQ(find("bob@example.com"), nlohmann::json::array());
  // A '+' is not a space: "bob tag@..." would be an invalid address.
  expect_error(call(admin.authd, reader, "GET", "/admin/users?email=bob%20tag@example.com"), 400,
               "a space");
  for (const std::string& query :
       {std::string(""), std::string("not-an-address"), std::string("%20alice@example.com"),
        std::string("alice@"), std::string("b%C3%B6b@example.com")})
    expect_error(call(admin.authd, reader, "GET", "/admin/users?email=" + query), 400, query);
}

// --------------------------------------------------------------- PATCH

// interface.md 10.4: members present are set, null clears displayName,
// phone and photoUrl; 200 with the admin view; updatedAt moves; members
// absent are kept.
TEST(AdminUsers, Interface_10_4_11_PatchSetsAndClearsProfileMembers) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  const std::string id = user["id"];
  wait_past(user["updatedAt"]);
  nlohmann::json set = admin.patch(id, {{"displayName", "Alice L."},
                                        {"phone", "+15551234567"},
                                        {"photoUrl", "https://example.com/a.png"}});
  ASSERT_TRUE(set.is_object());
  EXPECT_EQ(set["displayName"], "Alice L.");
  EXPECT_EQ(set["phone"], "+15551234567");
  EXPECT_EQ(set["photoUrl"], "https://example.com/a.png");
  EXPECT_EQ(set["email"], kEmail);
  EXPECT_EQ(set["id"], id);
  EXPECT_EQ(set["createdAt"], user["createdAt"]);
  EXPECT_GT(set["updatedAt"].get<std::string>(), user["updatedAt"].get<std::string>());
  EXPECT_EQ(admin.get(id), set);

  nlohmann::json one = admin.patch(id, {{"phone", "+4930123456"}});
  ASSERT_TRUE(one.is_object());
  EXPECT_EQ(one["phone"], "+4930123456");
  EXPECT_EQ(one["displayName"], "Alice L.");
  EXPECT_EQ(one["photoUrl"], "https://example.com/a.png");

  wait_past(one["updatedAt"]);
  nlohmann::json cleared =
      admin.patch(id, {{"displayName", nullptr}, {"phone", nullptr}, {"photoUrl", nullptr}});
  ASSERT_TRUE(cleared.is_object());
  EXPECT_EQ(cleared["displayName"], nullptr);
  EXPECT_EQ(cleared["phone"], nullptr);
  EXPECT_EQ(cleared["photoUrl"], nullptr);
  EXPECT_GT(cleared["updatedAt"].get<std::string>(), one["updatedAt"].get<std::string>());
  EXPECT_EQ(admin.get(id), cleared);
  // The password was not touched; the public view shows the same.
  HttpResponse login = post_json(admin.authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  EXPECT_EQ(login.json()["displayName"], nullptr);
}

// interface.md 10.4: a PATCH that changes nothing (the same values, the
// e-mail in another letter case, an empty object) answers the user with
// updatedAt unchanged.
TEST(AdminUsers, Interface_10_4_11_PatchWithTheSameValuesLeavesUpdatedAt) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail},
                                      {"displayName", "Alice"},
                                      {"phone", "+15551234567"},
                                      {"emailVerified", true},
                                      {"disabled", false}});
  ASSERT_TRUE(user.is_object());
  const std::string id = user["id"];
  wait_past(user["updatedAt"]);
  for (const nlohmann::json& body :
       {nlohmann::json::object(),
        nlohmann::json{{"displayName", "Alice"}, {"phone", "+15551234567"}, {"photoUrl", nullptr}},
        nlohmann::json{{"email", kEmail}, {"emailVerified", true}, {"disabled", false}},
        nlohmann::json{{"email", "ALICE@example.com"}}, nlohmann::json{{"phoneVerified", false}}}) {
    nlohmann::json after = admin.patch(id, body);
    EXPECT_EQ(after, user) << body.dump();
  }
  EXPECT_EQ(admin.get(id), user);
  // Disabling a disabled account changes nothing either.
  nlohmann::json disabled = admin.create({{"email", "bob@example.com"}, {"disabled", true}});
  ASSERT_TRUE(disabled.is_object());
  wait_past(disabled["updatedAt"]);
  EXPECT_EQ(admin.patch(disabled["id"], {{"disabled", true}}), disabled);
}

// interface.md 10.4: a PATCH body is checked as POST's members are, plus:
// password or passwordHash present, null for email or a boolean: 400;
// nothing changes. An unknown id with a valid body: 404.
TEST(AdminUsers, Interface_10_4_11_And_10_4_3_PatchRefusesInvalidBodies) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"displayName", "Alice"}});
  ASSERT_TRUE(user.is_object());
  const std::string target = "/admin/users/" + user["id"].get<std::string>();
  const std::vector<nlohmann::json> bodies = {
      {{"password", kNewPassword}},
      {{"passwordHash", argon2id_hash(kNewPassword)}},
      {{"password", nullptr}},
      {{"passwordHash", nullptr}},
      {{"email", nullptr}},
      {{"emailVerified", nullptr}},
      {{"phoneVerified", nullptr}},
      {{"disabled", nullptr}},
      {{"email", ""}},
      {{"email", "not an e-mail"}},
      {{"email", 5}},
      {{"displayName", ""}},
      {{"displayName", std::string(256, 'd')}},
      {{"displayName", "tab\there"}},
      {{"displayName", 1}},
      {{"phone", "555-1234"}},
      {{"phone", "+1234567890123456"}},
      {{"photoUrl", "javascript:alert(1)"}},
      {{"photoUrl", "https://example.com/" + std::string(2029, 'p')}},
      {{"emailVerified", "true"}},
      {{"disabled", 1}},
      {{"displayName", "Valid"}, {"phone", "invalid"}},  // nothing of it is applied
  };
  for (const nlohmann::json& body : bodies)
    expect_error(admin("PATCH", target, body), 400, body.dump());
  for (const std::string& text : {std::string("not json"), std::string("[]"), std::string("null"),
                                  std::string(R"({"displayName":"a","displayName":"b"})")})
    expect_error(admin.raw("PATCH", target, text), 400, text);
  EXPECT_EQ(admin.get(user["id"]), user);

  expect_error(admin("PATCH", "/admin/users/" + kNoSuchUserId, {{"displayName", "x"}}), 404,
               "unknown");
  expect_error(admin("PATCH", "/admin/users/not-a-uuid", {{"displayName", "x"}}), 404,
               "not a UUID");
}

// interface.md 10.4: a new e-mail is canonicalised, must be free (409 for
// another account's, in any case), clears emailVerifiedAt unless the same
// PATCH sets emailVerified true; the old address no longer logs in.
TEST(AdminUsers, Interface_10_4_11_PatchEmailIsCanonicalFreeAndClearsVerification) {
  AdminServer admin;
  nlohmann::json alice =
      admin.create({{"email", kEmail}, {"password", kPassword}, {"emailVerified", true}});
  nlohmann::json bob = admin.create({{"email", "bob@example.com"}, {"password", kPassword}});
  ASSERT_TRUE(alice.is_object() && bob.is_object());
  ASSERT_TRUE(alice["emailVerifiedAt"].is_string());
  const std::string id = alice["id"];

  for (const std::string& taken :
       {std::string("bob@example.com"), std::string("BOB@example.com")}) {
    HttpResponse res = admin("PATCH", "/admin/users/" + id, {{"email", taken}});
    expect_error(res, 409, taken);
    EXPECT_EQ(res.body, R"({"code":409,"message":"Conflict"})");
  }
  EXPECT_EQ(admin.get(id), alice);

  wait_past(alice["updatedAt"]);
  nlohmann::json moved = admin.patch(id, {{"email", "Alice.New@Example.COM"}});
  ASSERT_TRUE(moved.is_object());
  EXPECT_EQ(moved["email"], "alice.new@example.com");
  EXPECT_EQ(moved["emailVerifiedAt"], nullptr);
  EXPECT_GT(moved["updatedAt"].get<std::string>(), alice["updatedAt"].get<std::string>());
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 401);
  EXPECT_EQ(admin.login_status("alice.new@example.com", kPassword), 200);
  // The old address is free again.
  EXPECT_TRUE(admin.create({{"email", kEmail}}).is_object());

  // A new e-mail with emailVerified true in the same PATCH: verified now.
  wait_past(moved["updatedAt"]);
  nlohmann::json verified =
      admin.patch(id, {{"email", "alice3@example.com"}, {"emailVerified", true}});
  ASSERT_TRUE(verified.is_object());
  EXPECT_EQ(verified["email"], "alice3@example.com");
  ASSERT_TRUE(verified["emailVerifiedAt"].is_string()) << verified;
  EXPECT_GT(verified["emailVerifiedAt"].get<std::string>(), moved["updatedAt"].get<std::string>());
  // Found under the new address only.
  HttpResponse found = admin("GET", "/admin/users?email=alice3%40example.com");
  ASSERT_EQ(found.status, 200);
  ASSERT_EQ(found.json()["users"].size(), 1u);
  EXPECT_EQ(found.json()["users"][0]["id"], id);
}

// interface.md 8.2: a change of e-mail holds its own account and then
// asks whether the new address is taken, without locking the account that
// has it: that account's own change may hold it while it waits for this one
// (two administrators swapping two addresses), which PostgreSQL would end
// as a deadlock. Here the holder is held: the answer is 409 at once.
TEST(AdminUsers, Interface_8_2_AnEmailChangeDoesNotLockTheAddresssHolder) {
  AUTHD_POSTGRES_ONLY();
  AdminServer admin;
  nlohmann::json alice = admin.create({{"email", kEmail}});
  nlohmann::json bob = admin.create({{"email", "bob@example.com"}});
  ASSERT_TRUE(alice.is_object() && bob.is_object());
  HeldLock bobs_change(admin.authd, "BEGIN; SELECT id FROM users WHERE id = '" +
                                        bob["id"].get<std::string>() + "' FOR UPDATE");
  expect_error(admin("PATCH", "/admin/users/" + alice["id"].get<std::string>(),
                     {{"email", "bob@example.com"}}),
               409, "the holder held");
  std::string locked = bobs_change.then("SELECT id FROM users WHERE id = '" +
                                        alice["id"].get<std::string>() + "' FOR UPDATE");
  EXPECT_EQ(locked.find("ERROR"), std::string::npos) << locked;
}

// interface.md 10.4: two accounts moved to one new e-mail at once: exactly
// one 200 and one 409, round after round; the address ends with one
// account, and the loser keeps its own address.
TEST(AdminUsers, Interface_10_4_11_ConcurrentPatchesToOneEmailGiveOne200AndOne409) {
  AdminServer admin;
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    const std::string r = std::to_string(round);
    nlohmann::json users[2] = {admin.create({{"email", "first" + r + "@example.com"}}),
                               admin.create({{"email", "second" + r + "@example.com"}})};
    ASSERT_TRUE(users[0].is_object() && users[1].is_object());
    const std::string target = "wanted" + r + "@example.com";
    std::latch start(2);
    HttpResponse answers[2];
    std::vector<std::thread> clients;
    for (int i = 0; i < 2; ++i) {
      clients.emplace_back([&, i] {
        std::string path = "/admin/users/" + users[i]["id"].get<std::string>();
        start.arrive_and_wait();
        answers[i] = admin("PATCH", path, {{"email", target}});
      });
    }
    for (auto& client : clients) client.join();
    EXPECT_EQ((std::multiset<int>{answers[0].status, answers[1].status}),
              (std::multiset<int>{200, 409}))
        << "round " << round << ": " << answers[0].body << " / " << answers[1].body;
    HttpResponse found = admin("GET", "/admin/users?email=" + url_encode(target));
    ASSERT_EQ(found.status, 200);
    ASSERT_EQ(found.json()["users"].size(), 1u) << found.body;
    int winner = answers[0].status == 200 ? 0 : 1;
    EXPECT_EQ(found.json()["users"][0]["id"], users[winner]["id"]);
    EXPECT_EQ(admin.get(users[1 - winner]["id"])["email"], users[1 - winner]["email"]);
  }
}

// interface.md 10.4: a new e-mail voids the reset tokens mailed before.
TEST(AdminUsers, Interface_10_4_11_PatchEmailVoidsPendingResetTokens) {
  AdminServer admin(users_with_mail());
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  std::string token = mailed_reset_token(admin.authd, kEmail, 0);
  ASSERT_FALSE(token.empty());
  ASSERT_TRUE(admin.patch(user["id"], {{"email", "alice.new@example.com"}}).is_object());
  HttpResponse reset = post_json(admin.authd.port(), "/reset", reset_body(token, kNewPassword));
  EXPECT_EQ(reset.status, 401) << reset.body;
  EXPECT_EQ(admin.login_status("alice.new@example.com", kPassword), 200);
  EXPECT_EQ(admin.login_status("alice.new@example.com", kNewPassword), 401);
}

// interface.md 10.4: "disabled": true revokes every session and login gets
// 403; "disabled": false lets the user log in again, and brings back no
// session.
TEST(AdminUsers, Interface_10_4_11_PatchDisabledRevokesSessionsAndBlocksLogin) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  ASSERT_TRUE(admin.create({{"email", "bob@example.com"}, {"password", kPassword}}).is_object());
  std::string first = admin.authd.login(kEmail, kPassword);
  std::string second = admin.authd.login(kEmail, kPassword);
  std::string bob = admin.authd.login("bob@example.com", kPassword);
  ASSERT_FALSE(first.empty() || second.empty() || bob.empty());

  wait_past(admin.get(user["id"])["updatedAt"]);
  nlohmann::json disabled = admin.patch(user["id"], {{"disabled", true}});
  ASSERT_TRUE(disabled.is_object());
  EXPECT_EQ(disabled["disabled"], true);
  EXPECT_GT(disabled["updatedAt"].get<std::string>(), user["updatedAt"].get<std::string>());
  for (const std::string& token : {first, second}) {
    HttpResponse me = get_with_token(admin.authd.port(), "/me", token);
    EXPECT_EQ(me.status, 401);
    EXPECT_EQ(me.header("WWW-Authenticate"), kInvalidKey);
  }
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", bob).status, 200);
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 403);
  HttpResponse sessions =
      admin("GET", "/admin/users/" + user["id"].get<std::string>() + "/sessions");
  ASSERT_EQ(sessions.status, 200);
  EXPECT_EQ(sessions.json()["sessions"], nlohmann::json::array());

  nlohmann::json enabled = admin.patch(user["id"], {{"disabled", false}});
  ASSERT_TRUE(enabled.is_object());
  EXPECT_EQ(enabled["disabled"], false);
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 200);
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", first).status, 401);
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", second).status, 401);
}

// interface.md 10.4 and 2.6: emailVerified and phoneVerified true set the
// time (an earlier one is kept), false clears it.
TEST(AdminUsers, Interface_10_4_4_PatchVerificationFlags) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"phone", "+15551234567"}});
  ASSERT_TRUE(user.is_object());
  const std::string id = user["id"];
  wait_past(user["updatedAt"]);
  nlohmann::json verified = admin.patch(id, {{"emailVerified", true}, {"phoneVerified", true}});
  ASSERT_TRUE(verified.is_object());
  ASSERT_TRUE(verified["emailVerifiedAt"].is_string()) << verified;
  ASSERT_TRUE(verified["phoneVerifiedAt"].is_string()) << verified;
  for (const char* member : {"emailVerifiedAt", "phoneVerifiedAt"}) {
    EXPECT_GT(verified[member].get<std::string>(), user["updatedAt"].get<std::string>()) << member;
    EXPECT_LE(verified[member].get<std::string>(), verified["updatedAt"].get<std::string>())
        << member;
  }
  EXPECT_GT(verified["updatedAt"].get<std::string>(), user["updatedAt"].get<std::string>());

  wait_past(verified["updatedAt"]);
  nlohmann::json again = admin.patch(id, {{"emailVerified", true}});
  EXPECT_EQ(again, verified);  // an earlier verification time is kept

  nlohmann::json cleared = admin.patch(id, {{"emailVerified", false}});
  ASSERT_TRUE(cleared.is_object());
  EXPECT_EQ(cleared["emailVerifiedAt"], nullptr);
  EXPECT_EQ(cleared["phoneVerifiedAt"], verified["phoneVerifiedAt"]);
  EXPECT_GT(cleared["updatedAt"].get<std::string>(), verified["updatedAt"].get<std::string>());
  nlohmann::json phone_cleared = admin.patch(id, {{"phoneVerified", false}});
  ASSERT_TRUE(phone_cleared.is_object());
  EXPECT_EQ(phone_cleared["phoneVerifiedAt"], nullptr);
  EXPECT_EQ(admin.get(id), phone_cleared);
}

// ----------------------------------------------------------- PUT password

// interface.md 10.4: PUT /admin/users/{id}/password {password}: 200 with
// the admin view; every session revoked, reset tokens void; the new
// password logs in, the old does not; updatedAt moves.
TEST(AdminUsers, Interface_10_4_12_PutPasswordRevokesSessionsAndResetTokens) {
  AdminServer admin(users_with_mail());
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  const std::string id = user["id"];
  std::string first = admin.authd.login(kEmail, kPassword);
  std::string second = admin.authd.login(kEmail, kPassword);
  ASSERT_FALSE(first.empty() || second.empty());
  std::string reset_token = mailed_reset_token(admin.authd, kEmail, 0);
  ASSERT_FALSE(reset_token.empty());

  wait_past(user["updatedAt"]);
  HttpResponse res = admin("PUT", "/admin/users/" + id + "/password", {{"password", kNewPassword}});
  ASSERT_EQ(res.status, 200) << res.body;
  nlohmann::json changed = res.json();
  expect_admin_user(changed);
  EXPECT_EQ(changed["id"], id);
  EXPECT_GT(changed["updatedAt"].get<std::string>(), user["updatedAt"].get<std::string>());
  EXPECT_TRUE(res.header("Authorization").empty());
  for (const std::string& token : {first, second})
    EXPECT_EQ(get_with_token(admin.authd.port(), "/me", token).status, 401);
  EXPECT_EQ(
      post_json(admin.authd.port(), "/reset", reset_body(reset_token, "another passphrase")).status,
      401);
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 401);
  EXPECT_EQ(admin.login_status(kEmail, kNewPassword), 200);
  std::string hash = without_trailing_newlines(
      admin.authd.sql("select password_hash from users where id = '" + id + "'"));
  EXPECT_EQ(hash.rfind("$argon2id$", 0), 0u) << hash;
}

// interface.md 10.4: PUT {passwordHash} stores the hash as given; an
// account created without a password gets one this way.
TEST(AdminUsers, Interface_10_4_12_PutPasswordHash) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}});
  ASSERT_TRUE(user.is_object());
  const std::string password = "imported passphrase";
  HttpResponse res = admin("PUT", "/admin/users/" + user["id"].get<std::string>() + "/password",
                           {{"passwordHash", argon2id_hash(password)}});
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.body.find("argon2"), std::string::npos);
  EXPECT_EQ(admin.login_status(kEmail, password), 200);
}

// interface.md 10.4 and 3.3: exactly one of password and passwordHash, a
// valid new password (8 to 255 code points, not the e-mail): else 400, and
// nothing changes (sessions stay); an unknown user: 404.
TEST(AdminUsers, Interface_10_4_12_PutPasswordNeedsExactlyOneValidMember) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  std::string token = admin.authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  const std::string target = "/admin/users/" + user["id"].get<std::string>() + "/password";
  const std::vector<nlohmann::json> bodies = {
      nlohmann::json::object(),
      {{"password", nullptr}},
      {{"passwordHash", nullptr}},
      {{"password", nullptr}, {"passwordHash", nullptr}},
      {{"password", kNewPassword}, {"passwordHash", argon2id_hash(kNewPassword)}},
      {{"password", "short"}},
      {{"password", emoji(7)}},
      {{"password", std::string(256, 'p')}},
      {{"password", kEmail}},
      {{"password", "ALICE@example.com"}},
      {{"password", 12345678}},
      {{"passwordHash", ""}},
      {{"passwordHash", "not a hash"}},
      {{"passwordHash", 1}},
  };
  for (const nlohmann::json& body : bodies)
    expect_error(admin("PUT", target, body), 400, body.dump());
  for (const std::string& text : {std::string("not json"), std::string("[]")})
    expect_error(admin.raw("PUT", target, text), 400, text);
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", token).status, 200);
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 200);
  EXPECT_EQ(admin.get(user["id"])["updatedAt"], user["updatedAt"]);

  expect_error(
      admin("PUT", "/admin/users/" + kNoSuchUserId + "/password", {{"password", kNewPassword}}),
      404, "unknown user");
}

// ------------------------------------------------------------- sessions

// interface.md 10.4: GET /admin/users/{id}/sessions lists the live
// sessions, newest first, each exactly {id, createdAt, expiresAt,
// clientAddress, userAgent}, the id a UUID that is not the token; revoked
// sessions and other users' are left out; an unknown user: 404.
TEST(AdminUsers, Interface_10_4_14_SessionsAreListedNewestFirstWithoutTokens) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  ASSERT_TRUE(admin.create({{"email", "bob@example.com"}, {"password", kPassword}}).is_object());
  const std::string target = "/admin/users/" + user["id"].get<std::string>() + "/sessions";
  HttpResponse empty = admin("GET", target);
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.json(), nlohmann::json({{"sessions", nlohmann::json::array()}}));

  auto login_as = [&](const std::string& email, const std::string& agent) {
    Headers headers;
    if (!agent.empty()) headers.emplace_back("User-Agent", agent);
    HttpResponse res =
        post_json(admin.authd.port(), "/login", login_body(email, kPassword), headers);
    EXPECT_EQ(res.status, 200);
    return token_of(res);
  };
  std::string first = login_as(kEmail, "first agent/1.0");
  wait_a_millisecond();
  std::string gone = login_as(kEmail, "logged out");
  wait_a_millisecond();
  std::string third = login_as(kEmail, "");
  std::string bob = login_as("bob@example.com", "bob");
  ASSERT_EQ(post_with_token(admin.authd.port(), "/logout", gone).status, 200);

  HttpResponse res = admin("GET", target);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json body = res.json();
  ASSERT_EQ(body.size(), 1u) << res.body;
  nlohmann::json sessions = body["sessions"];
  ASSERT_EQ(sessions.size(), 2u) << res.body;
  for (const nlohmann::json& s : sessions) {
    std::set<std::string> members;
    for (const auto& [member, value] : s.items()) members.insert(member);
    EXPECT_EQ(members,
              (std::set<std::string>{"id", "createdAt", "expiresAt", "clientAddress", "userAgent"}))
        << s;
    EXPECT_TRUE(matches(s["id"].get<std::string>(), uuid_pattern())) << s;
    EXPECT_TRUE(matches(s["createdAt"].get<std::string>(), timestamp_pattern())) << s;
    EXPECT_TRUE(matches(s["expiresAt"].get<std::string>(), timestamp_pattern())) << s;
    EXPECT_LT(s["createdAt"].get<std::string>(), s["expiresAt"].get<std::string>());
    EXPECT_EQ(s["clientAddress"], "127.0.0.1");
  }
  EXPECT_EQ(sessions[0]["userAgent"], nullptr);
  EXPECT_EQ(sessions[1]["userAgent"], "first agent/1.0");
  EXPECT_GT(sessions[0]["createdAt"].get<std::string>(),
            sessions[1]["createdAt"].get<std::string>());
  EXPECT_NE(sessions[0]["id"], sessions[1]["id"]);
  for (const std::string& token : {first, third, bob, gone}) {
    EXPECT_EQ(res.body.find(token.substr(token.find('_') + 1)), std::string::npos);
    EXPECT_EQ(res.body.find(sha256_hex(token)), std::string::npos);
  }
  // The same ids as the user's own GET /sessions.
  HttpResponse own = get_with_token(admin.authd.port(), "/sessions", first);
  ASSERT_EQ(own.status, 200);
  std::set<std::string> own_ids, admin_ids;
  const nlohmann::json own_sessions = own.json()["sessions"];
  for (const nlohmann::json& s : own_sessions) own_ids.insert(s["id"]);
  for (const nlohmann::json& s : sessions) admin_ids.insert(s["id"]);
  EXPECT_EQ(own_ids, admin_ids);

  expect_error(admin("GET", "/admin/users/" + kNoSuchUserId + "/sessions"), 404, "unknown user");
  expect_error(admin("GET", "/admin/users/not-a-uuid/sessions"), 404, "not a UUID");
}

// interface.md 10.4: DELETE /admin/sessions/{id}: 204, that session only is
// revoked; again, or an unknown id: 404. DELETE /admin/users/{id}/sessions:
// 204, every session of the user revoked, other users' kept; 404 for an
// unknown user.
TEST(AdminUsers, Interface_10_4_15_And_10_4_16_DeleteOneSessionAndEverySession) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  ASSERT_TRUE(admin.create({{"email", "bob@example.com"}, {"password", kPassword}}).is_object());
  const std::string list = "/admin/users/" + user["id"].get<std::string>() + "/sessions";
  std::string first = admin.authd.login(kEmail, kPassword);
  std::string second = admin.authd.login(kEmail, kPassword);
  std::string third = admin.authd.login(kEmail, kPassword);
  std::string bob = admin.authd.login("bob@example.com", kPassword);
  ASSERT_FALSE(first.empty() || second.empty() || third.empty() || bob.empty());
  nlohmann::json sessions = admin("GET", list).json()["sessions"];
  ASSERT_EQ(sessions.size(), 3u);
  // third's public id, as its own GET /sessions marks it.
  std::string newest;
  const nlohmann::json own_sessions =
      get_with_token(admin.authd.port(), "/sessions", third).json()["sessions"];
  for (const nlohmann::json& s : own_sessions)
    if (s["current"] == true) newest = s["id"];
  ASSERT_FALSE(newest.empty());

  HttpResponse res = admin("DELETE", "/admin/sessions/" + newest);
  EXPECT_EQ(res.status, 204) << res.body;
  EXPECT_TRUE(res.body.empty());
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", third).status, 401);
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", first).status, 200);
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", second).status, 200);
  EXPECT_EQ(admin("GET", list).json()["sessions"].size(), 2u);
  for (const std::string& id :
       {newest, kNoSuchUserId, std::string("not-a-uuid"), sha256_hex(first)})
    expect_error(admin("DELETE", "/admin/sessions/" + id), 404, id);

  HttpResponse all = admin("DELETE", list);
  EXPECT_EQ(all.status, 204) << all.body;
  EXPECT_TRUE(all.body.empty());
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", first).status, 401);
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", second).status, 401);
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", bob).status, 200);
  EXPECT_EQ(admin("GET", list).json()["sessions"], nlohmann::json::array());
  EXPECT_EQ(admin("DELETE", list).status, 204);  // nothing left: still 204
  expect_error(admin("DELETE", "/admin/users/" + kNoSuchUserId + "/sessions"), 404, "unknown user");
  // The account itself is untouched: it logs in again.
  EXPECT_EQ(admin.login_status(kEmail, kPassword), 200);
}

// interface.md 10.4: DELETE /admin/users/{id}/mfa: 204 (nothing to remove
// yet), 404 for an unknown user.
TEST(AdminUsers, Interface_10_4_17_DeleteMfaIs204Or404) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  std::string token = admin.authd.login(kEmail, kPassword);
  HttpResponse res = admin("DELETE", "/admin/users/" + user["id"].get<std::string>() + "/mfa");
  EXPECT_EQ(res.status, 204) << res.body;
  EXPECT_TRUE(res.body.empty());
  EXPECT_EQ(admin.get(user["id"])["mfa"], nlohmann::json::array());
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", token).status, 200);
  expect_error(admin("DELETE", "/admin/users/" + kNoSuchUserId + "/mfa"), 404, "unknown user");
}

// ---------------------------------------------------------------- DELETE

// interface.md 10.4: DELETE /admin/users/{id}: 204 with no body; the user
// is gone (GET 404, DELETE again 404), its sessions with it.
TEST(AdminUsers, Interface_10_4_13_DeleteUserIs204ThenTheUserIsGone) {
  AdminServer admin;
  nlohmann::json user = admin.create({{"email", kEmail}, {"password", kPassword}});
  nlohmann::json bob = admin.create({{"email", "bob@example.com"}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object() && bob.is_object());
  const std::string target = "/admin/users/" + user["id"].get<std::string>();
  std::string token = admin.authd.login(kEmail, kPassword);
  std::string bob_token = admin.authd.login("bob@example.com", kPassword);
  ASSERT_FALSE(token.empty() || bob_token.empty());
  bob = admin.get(bob["id"]);  // with its lastLoginAt

  HttpResponse res = admin("DELETE", target);
  EXPECT_EQ(res.status, 204) << res.body;
  EXPECT_TRUE(res.body.empty());
  expect_error(admin("GET", target), 404, "GET after DELETE");
  expect_error(admin("DELETE", target), 404, "DELETE again");
  expect_error(admin("GET", target + "/sessions"), 404, "sessions after DELETE");
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", token).status, 401);
  EXPECT_EQ(get_with_token(admin.authd.port(), "/me", bob_token).status, 200);
  EXPECT_EQ(admin.get(bob["id"]), bob);
  HttpResponse found = admin("GET", "/admin/users?email=" + url_encode(kEmail));
  ASSERT_EQ(found.status, 200);
  EXPECT_EQ(found.json()["users"], nlohmann::json::array());
  expect_error(admin("DELETE", "/admin/users/" + kNoSuchUserId), 404, "unknown");
}

}  // namespace
}  // namespace authd::test::admin
