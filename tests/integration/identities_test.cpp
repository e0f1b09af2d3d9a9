// interface.md 18.4 over real HTTP, on SQLite and on PostgreSQL: the
// caller's links of upstream identities listed (GET /identities) and
// removed (DELETE /identities/{id}, 409 for the account's last way to sign
// in), an operator's view and removal (GET /admin/users/{id}/identities,
// DELETE /admin/identities/{id}), erasure, the events; 18.3's account
// without a password at /login, and the links a reset's first proof of the
// address removes. The links are written into the test's database with
// SQL, as the upstream flow (18.2) would write them: no route of authd's
// makes one without an upstream.
#include <gtest/gtest.h>

#include <set>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test::identities {
namespace {

std::string user_id_of(const AuthdProcess& authd, const std::string& email) {
  return without_trailing_newlines(authd.sql("select id from users where email = '" + email + "'"));
}

// A link as the upstream flow writes it (migration 17's columns).
void link(const AuthdProcess& authd, const std::string& id, const std::string& user_id,
          const std::string& provider, const std::string& subject, long long created_at) {
  authd.sql("insert into identities (id, user_id, provider, subject, email, created_at) values ('" +
            id + "', '" + user_id + "', '" + provider + "', '" + subject +
            "', 'someone@upstream.example', " + std::to_string(created_at) + ")");
}

long long count_links(const AuthdProcess& authd, const std::string& where = "1 = 1") {
  return std::stoll(
      without_trailing_newlines(authd.sql("select count(*) from identities where " + where)));
}

HttpResponse unlink(const AuthdProcess& authd, const std::string& token, const std::string& id) {
  return send_request(authd.port(), "DELETE", "/identities/" + id,
                      {{"Authorization", "Bearer " + token}});
}

nlohmann::json events_of(const AuthdProcess& authd, const std::string& type) {
  std::string out;
  EXPECT_EQ(authd.cli({"events", "--type", type}, "", &out), 0) << out;
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& line : lines(out))
    if (!line.empty()) all.push_back(nlohmann::json::parse(line));
  return all;
}

const char* const kIdA = "6f1d8a52-3c4b-4e5f-8a9b-0c1d2e3f4a5b";
const char* const kIdB = "7a2e9b63-4d5c-4f60-9bac-1d2e3f405162";
const char* const kIdOther = "8b3fac74-5e6d-4071-8cbd-2e3f40516273";

// 18.4: the caller's links, oldest first, each with exactly its five
// members (never the upstream's subject); another account's are not
// listed; no session: 401.
TEST(Identities, Interface_18_4_GetIdentitiesListsTheCallersLinks) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string alice = user_id_of(authd, kEmail);
  link(authd, kIdB, alice, "github", "583231", 1'700'000'002'000);
  link(authd, kIdA, alice, "corp", "248289761001", 1'700'000'001'000);
  link(authd, kIdOther, user_id_of(authd, "bob@example.com"), "corp", "bob", 1'700'000'000'000);

  HttpResponse res = get_with_token(authd.port(), "/identities", token);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json list = res.json()["identities"];
  ASSERT_EQ(list.size(), 2u) << res.body;
  EXPECT_EQ(list[0]["id"], kIdA);
  EXPECT_EQ(list[0]["provider"], "corp");
  EXPECT_EQ(list[0]["email"], "someone@upstream.example");
  EXPECT_EQ(list[0]["createdAt"], "2023-11-14T22:13:21.000Z");
  EXPECT_EQ(list[0]["lastUsedAt"], nullptr);
  EXPECT_EQ(list[1]["id"], kIdB);
  for (const nlohmann::json& item : list) {
    std::set<std::string> members;
    for (const auto& [key, value] : item.items()) members.insert(key);
    EXPECT_EQ(members,
              (std::set<std::string>{"id", "provider", "email", "createdAt", "lastUsedAt"}));
  }
  EXPECT_EQ(res.body.find("248289761001"), std::string::npos);

  HttpResponse anonymous = send_request(authd.port(), "GET", "/identities", {});
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.body, unauthorized_body());
}

// 18.4: the caller removes a link of theirs (204, identity.unlinked by
// "self"); another account's link, an unknown id and one already removed
// are 404, and nothing else changes.
TEST(Identities, Interface_18_4_DeleteIdentityRemovesOnlyTheCallersLink) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string alice = user_id_of(authd, kEmail);
  link(authd, kIdA, alice, "corp", "alice", 1'700'000'000'000);
  link(authd, kIdOther, user_id_of(authd, "bob@example.com"), "corp", "bob", 1'700'000'000'000);

  EXPECT_EQ(unlink(authd, token, kIdOther).status, 404);
  EXPECT_EQ(unlink(authd, token, "not-an-id").status, 404);
  HttpResponse removed = unlink(authd, token, kIdA);
  EXPECT_EQ(removed.status, 204) << removed.body;
  EXPECT_EQ(unlink(authd, token, kIdA).status, 404);
  EXPECT_EQ(count_links(authd), 1);
  EXPECT_EQ(count_links(authd, std::string("id = '") + kIdOther + "'"), 1);

  nlohmann::json events = events_of(authd, "identity.unlinked");
  ASSERT_EQ(events.size(), 1u) << events.dump();
  EXPECT_EQ(events[0]["userId"], alice);
  EXPECT_EQ(events[0]["actor"], "self");
  EXPECT_EQ(events[0]["detail"], (nlohmann::json{{"identityId", kIdA}, {"provider", "corp"}}));
}

// 18.4: an account without a password (as an upstream sign-up makes it)
// keeps its last way to sign in: removing its last link is 409 and
// changes nothing, the one before it is not.
TEST(Identities, Interface_18_4_RemovingTheLastWayToSignInIs409) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string alice = user_id_of(authd, kEmail);
  authd.sql("update users set password_hash = NULL where id = '" + alice + "'");
  link(authd, kIdA, alice, "corp", "alice", 1'700'000'000'000);
  link(authd, kIdB, alice, "github", "alice", 1'700'000'001'000);

  EXPECT_EQ(unlink(authd, token, kIdA).status, 204);
  HttpResponse last = unlink(authd, token, kIdB);
  EXPECT_EQ(last.status, 409);
  EXPECT_EQ(last.body, R"({"code":409,"message":"Conflict"})");
  EXPECT_EQ(count_links(authd), 1);
  EXPECT_EQ(events_of(authd, "identity.unlinked").size(), 1u);
}

// 18.4: a password, or a sign-in by mail while --email-signin is on, is a
// way to sign in: the only link may go.
TEST(Identities, Interface_18_4_APasswordOrMailSignInLetsTheLastLinkGo) {
  AuthdProcess with_password(fast_hashing());
  with_password.add_user(kEmail, kPassword);
  std::string token = with_password.login(kEmail, kPassword);
  link(with_password, kIdA, user_id_of(with_password, kEmail), "corp", "a", 1'700'000'000'000);
  EXPECT_EQ(unlink(with_password, token, kIdA).status, 204);

  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--email-signin", "on"});
  AuthdProcess by_mail(args);
  by_mail.add_user(kEmail, kPassword);
  token = by_mail.login(kEmail, kPassword);
  std::string alice = user_id_of(by_mail, kEmail);
  by_mail.sql("update users set password_hash = NULL where id = '" + alice + "'");
  link(by_mail, kIdA, alice, "corp", "a", 1'700'000'000'000);
  EXPECT_EQ(unlink(by_mail, token, kIdA).status, 204);
}

// 18.3: an account without a password never logs in at /login: the same
// 401 as a wrong password, whatever is sent.
TEST(Identities, Interface_18_3_AnAccountWithoutAPasswordNeverLogsIn) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  authd.sql("update users set password_hash = NULL where email = '" + kEmail + "'");
  for (const std::string& password : {kPassword, std::string("anything at all"), std::string("")}) {
    HttpResponse res = post_json(authd.port(), "/login", login_body(kEmail, password));
    if (password.empty()) {
      EXPECT_EQ(res.status, 400);
      continue;
    }
    EXPECT_EQ(res.status, 401);
    EXPECT_EQ(res.body, unauthorized_body());
  }
}

// 18.4: the operator lists an account's links (a read key does), and
// removes one (a write key; even the last way: the operator can give the
// account a password, 10.4.12), with identity.unlinked by "admin:NAME";
// an unknown account or link is 404.
TEST(Identities, Interface_18_4_TheAdminApiListsAndRemovesLinks) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string alice = user_id_of(authd, kEmail);
  authd.sql("update users set password_hash = NULL where id = '" + alice + "'");
  link(authd, kIdA, alice, "corp", "alice", 1'700'000'000'000);
  std::string reader = admin::create_key(authd, "reader", "read");
  std::string writer = admin::create_key(authd, "ops");

  HttpResponse listed = admin::call(authd, reader, "GET", "/admin/users/" + alice + "/identities");
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.json()["identities"].size(), 1u);
  EXPECT_EQ(listed.json()["identities"][0]["id"], kIdA);
  EXPECT_EQ(admin::call(authd, reader, "GET",
                        "/admin/users/01900000-0000-7000-8000-000000000000/identities")
                .status,
            404);
  // Not on the public listener.
  EXPECT_EQ(send_request(authd.port(), "GET", "/admin/users/" + alice + "/identities",
                         {{"Authorization", "Bearer " + reader}})
                .status,
            404);

  EXPECT_EQ(admin::call(authd, reader, "DELETE", std::string("/admin/identities/") + kIdA).status,
            403);
  EXPECT_EQ(admin::call(authd, writer, "DELETE", std::string("/admin/identities/") + kIdA).status,
            204);
  EXPECT_EQ(admin::call(authd, writer, "DELETE", std::string("/admin/identities/") + kIdA).status,
            404);
  EXPECT_EQ(count_links(authd), 0);
  nlohmann::json events = events_of(authd, "identity.unlinked");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["actor"], "admin:ops");
  EXPECT_EQ(events[0]["userId"], alice);
}

// 18.4: erasing the account removes its links; the subject is free again.
TEST(Identities, Interface_18_4_ErasureRemovesTheLinks) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string alice = user_id_of(authd, kEmail);
  link(authd, kIdA, alice, "corp", "alice", 1'700'000'000'000);
  link(authd, kIdB, alice, "github", "alice", 1'700'000'001'000);
  std::string writer = admin::create_key(authd, "ops");
  EXPECT_EQ(admin::call(authd, writer, "DELETE", "/admin/users/" + alice).status, 204);
  EXPECT_EQ(count_links(authd), 0);
  EXPECT_EQ(authd.sql("select id from identities where email = 'someone@upstream.example'"), "");
}

// 18.3: a reset proves the address of an account whose address nobody had
// proved (one an upstream without a verified e-mail signed up): the links
// made before go, each with identity.unlinked ("address_proved"); an
// account proved before keeps its links through a reset.
TEST(Identities, Interface_18_3_AResetThatFirstProvesTheAddressRemovesTheLinks) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1ms"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string alice = user_id_of(authd, kEmail);
  std::string bob = user_id_of(authd, "bob@example.com");
  authd.sql("update users set email_verified_at = NULL where id = '" + alice + "'");
  authd.sql("update users set email_verified_at = 1700000000000 where id = '" + bob + "'");
  link(authd, kIdA, alice, "corp", "squatter", 1'700'000'000'000);
  link(authd, kIdB, bob, "corp", "bob", 1'700'000'000'000);

  for (const std::string& email : {kEmail, std::string("bob@example.com")}) {
    std::size_t before = authd.mails().size();
    ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(email)).status, 200);
    std::vector<std::string> mails = authd.wait_for_mails(before + 1);
    ASSERT_EQ(mails.size(), before + 1);
    std::string token = reset_token_in(mails.back());
    ASSERT_FALSE(token.empty());
    ASSERT_EQ(post_json(authd.port(), "/reset", reset_body(token, kNewPassword)).status, 200);
  }
  EXPECT_EQ(count_links(authd, "user_id = '" + alice + "'"), 0);
  EXPECT_EQ(count_links(authd, "user_id = '" + bob + "'"), 1);
  nlohmann::json events = events_of(authd, "identity.unlinked");
  ASSERT_EQ(events.size(), 1u) << events.dump();
  EXPECT_EQ(events[0]["detail"]["reason"], "address_proved");
}

}  // namespace
}  // namespace authd::test::identities
