// The audit trail (interface.md 14.1-14.2): every flow writes its event in
// the transaction of its change; GET /admin/events and `authd events` read
// them newest first with filters and cursors. Run on SQLite and PostgreSQL.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"
#include "http_contract_util.hpp"

namespace authd::test {
namespace {

const std::string kUnknownUserId = "01890a5d-ac96-774b-bcce-b302099a8058";

nlohmann::json trail_page(const AuthdProcess& authd, const std::string& key,
                          const std::string& query = "") {
  HttpResponse res = admin::call(authd, key, "GET", "/admin/events" + query);
  EXPECT_EQ(res.status, 200) << res.body;
  nlohmann::json body = nlohmann::json::parse(res.body, nullptr, false);
  return body.is_object() ? body : nlohmann::json::object();
}

// The types of `events`, oldest first.
std::vector<std::string> trail_types_oldest_first(const nlohmann::json& events) {
  std::vector<std::string> types;
  for (auto it = events.rbegin(); it != events.rend(); ++it) types.push_back((*it)["type"]);
  return types;
}

nlohmann::json trail_first_of_type(const nlohmann::json& events, const std::string& type) {
  for (const nlohmann::json& event : events)
    if (event["type"] == type) return event;
  ADD_FAILURE() << "no " << type << " event in " << events.dump(1);
  return nlohmann::json::object();
}

// interface.md 14.1.1-14.1.3: one account's life, each step's event, in
// order, with its actor, source and detail.
TEST(Events, Interface_14_1_3_EveryFlowRecordsItsEventWithActorAndDetail) {
  AuthdProcess authd(fast_hashing());
  const std::string key = admin::create_key(authd, "ops", "write");
  nlohmann::json user =
      admin::create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  const std::string id = user["id"];

  HttpResponse wrong = post_json(authd.port(), "/login", login_body(kEmail, "wrong password"),
                                 {{"User-Agent", "events-test/1"}, {"X-Request-Id", "req-1"}});
  ASSERT_EQ(wrong.status, 401);
  ASSERT_EQ(post_json(authd.port(), "/login", login_body("nobody@example.com", "whatever")).status,
            401);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  ASSERT_EQ(post_with_token(authd.port(), "/logout", token).status, 200);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  ASSERT_EQ(
      admin::call(authd, key, "PATCH", "/admin/users/" + id, nlohmann::json{{"displayName", "Al"}})
          .status,
      200);
  ASSERT_EQ(
      admin::call(authd, key, "PATCH", "/admin/users/" + id, nlohmann::json{{"disabled", true}})
          .status,
      200);
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 403);
  ASSERT_EQ(
      admin::call(authd, key, "PATCH", "/admin/users/" + id, nlohmann::json{{"disabled", false}})
          .status,
      200);
  ASSERT_EQ(admin::call(authd, key, "PUT", "/admin/users/" + id + "/password",
                        nlohmann::json{{"password", kNewPassword}})
                .status,
            200);
  ASSERT_FALSE(authd.login(kEmail, kNewPassword).empty());
  ASSERT_EQ(admin::call(authd, key, "DELETE", "/admin/users/" + id + "/sessions").status, 204);
  ASSERT_EQ(admin::call(authd, key, "PATCH", "/admin/users/" + id,
                        nlohmann::json{{"email", "moved@example.com"}})
                .status,
            200);
  ASSERT_EQ(admin::call(authd, key, "DELETE", "/admin/users/" + id).status, 204);

  nlohmann::json mine = trail_page(authd, key, "?userId=" + id)["events"];
  EXPECT_EQ(trail_types_oldest_first(mine),
            (std::vector<std::string>{"user.created", "login.failed", "login.succeeded", "logout",
                                      "user.updated", "user.disabled", "login.failed",
                                      "user.enabled", "password.changed", "login.succeeded",
                                      "session.revoked", "email.changed", "user.deleted"}))
      << mine.dump(1);

  nlohmann::json all = trail_page(authd, key)["events"];
  nlohmann::json failed = trail_first_of_type(mine, "login.failed");  // newest: disabled
  EXPECT_EQ(failed["detail"], (nlohmann::json{{"reason", "disabled"}}));
  nlohmann::json first_failure = mine[mine.size() - 2];
  EXPECT_EQ(first_failure["detail"], (nlohmann::json{{"reason", "credentials"}}));
  EXPECT_EQ(first_failure["actor"], "self");
  EXPECT_EQ(first_failure["clientAddress"], "127.0.0.1");
  EXPECT_EQ(first_failure["userAgent"], "events-test/1");
  EXPECT_EQ(first_failure["requestId"], "req-1");
  EXPECT_TRUE(std::regex_match(first_failure["id"].get<std::string>(), admin::uuid_pattern()));
  EXPECT_EQ(wrong.header("X-Request-Id"), "req-1");
  // No account: no id, the address masked.
  nlohmann::json unknown = all[0];
  for (const nlohmann::json& event : all)
    if (event["type"] == "login.failed" && event["userId"].is_null()) unknown = event;
  EXPECT_TRUE(unknown["userId"].is_null()) << all.dump(1);
  EXPECT_EQ(unknown["detail"]["reason"], "credentials");
  EXPECT_EQ(unknown["detail"]["email"], "n***@example.com");
  EXPECT_EQ(trail_first_of_type(mine, "user.created")["actor"], "admin:ops");
  EXPECT_EQ(trail_first_of_type(mine, "user.updated")["detail"],
            (nlohmann::json{{"fields", {"displayName"}}}));
  EXPECT_EQ(trail_first_of_type(mine, "email.changed")["detail"],
            (nlohmann::json{{"from", "a***@example.com"}, {"to", "m***@example.com"}}));
  // A request for an address names no account: its lookup would show in
  // the time of the answer (14.1.3, 6 /forgot 2).
  nlohmann::json requested = trail_first_of_type(all, "password.reset_requested");
  EXPECT_TRUE(requested["userId"].is_null());
  EXPECT_EQ(requested["detail"], (nlohmann::json{{"email", "a***@example.com"}}));
  EXPECT_EQ(trail_first_of_type(mine, "user.deleted")["actor"], "admin:ops");
  EXPECT_TRUE(trail_first_of_type(mine, "login.succeeded")["detail"]["secondFactor"].is_null());
  // The key itself, made by the CLI: no account, no client.
  nlohmann::json created_key = trail_first_of_type(all, "admin_key.created");
  EXPECT_EQ(created_key["actor"], "cli");
  EXPECT_TRUE(created_key["userId"].is_null());
  EXPECT_TRUE(created_key["clientAddress"].is_null());
  EXPECT_EQ(created_key["detail"], (nlohmann::json{{"name", "ops"}, {"scope", "write"}}));
}

// interface.md 14.1.3: the account's own routes and the CLI's commands.
TEST(Events, Interface_14_1_3_OwnRoutesAndCliCommandsRecordTheirEvents) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string first = authd.login(kEmail, kPassword);
  std::string second = authd.login(kEmail, kPassword);
  ASSERT_FALSE(first.empty() || second.empty());
  ASSERT_EQ(
      send_request(authd.port(), "DELETE", "/sessions", {{"Authorization", "Bearer " + second}})
          .status,
      204);
  ASSERT_EQ(
      post_json(
          authd.port(), "/password",
          nlohmann::json{{"currentPassword", kPassword}, {"newPassword", kNewPassword}}.dump(),
          {{"Authorization", "Bearer " + second}})
          .status,
      200);
  ASSERT_EQ(authd.cli({"user", "disable", "--email", kEmail}), 0);
  ASSERT_EQ(authd.cli({"user", "enable", "--email", kEmail}), 0);
  std::string out;
  ASSERT_EQ(authd.cli({"events", "--limit", "100"}, "", &out), 0);
  std::vector<std::string> types;
  std::vector<nlohmann::json> lines_read;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    lines_read.push_back(nlohmann::json::parse(line));
    types.insert(types.begin(), lines_read.back()["type"].get<std::string>());
  }
  EXPECT_EQ(types, (std::vector<std::string>{"user.created", "login.succeeded", "login.succeeded",
                                             "session.revoked", "password.changed", "user.disabled",
                                             "user.enabled"}))
      << out;
  ASSERT_EQ(lines_read.size(), 7u);
  EXPECT_EQ(lines_read[0]["actor"], "cli");
  EXPECT_EQ(lines_read[2]["actor"], "self");
  EXPECT_EQ(lines_read[2]["clientAddress"], "127.0.0.1");
  EXPECT_EQ(lines_read[3]["detail"], (nlohmann::json{{"count", 1}, {"others", true}}));
  EXPECT_EQ(lines_read[6]["actor"], "cli");
}

// interface.md 14.2.1: newest first, pages that visit every event once,
// filters, and the 400s of bad filters after the key's checks.
TEST(Events, Interface_14_2_1_FiltersAndCursorsPageNewestFirst) {
  AuthdProcess authd(fast_hashing());
  const std::string key = admin::create_key(authd, "ops", "write");
  const std::string reader = admin::create_key(authd, "auditor", "read");
  authd.add_user(kEmail, kPassword);
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  ASSERT_FALSE(authd.login(kEmail, kPassword).empty());

  nlohmann::json everything = trail_page(authd, reader, "?limit=1000");
  EXPECT_TRUE(everything["nextCursor"].is_null());
  const std::size_t total = everything["events"].size();
  ASSERT_EQ(total, 9u) << everything.dump(1);  // 2 keys, a user, 5 failures, a login
  std::vector<std::string> paged;
  std::string cursor;
  for (int page = 0; page < 10; ++page) {
    nlohmann::json body =
        trail_page(authd, reader, "?limit=2" + (cursor.empty() ? "" : "&cursor=" + cursor));
    for (const nlohmann::json& event : body["events"]) paged.push_back(event["id"]);
    if (body["nextCursor"].is_null()) break;
    cursor = body["nextCursor"];
  }
  std::vector<std::string> all_ids;
  for (const nlohmann::json& event : everything["events"]) all_ids.push_back(event["id"]);
  EXPECT_EQ(paged, all_ids);
  EXPECT_EQ(everything["events"][0]["type"], "login.succeeded");  // newest first

  nlohmann::json failures = trail_page(authd, reader, "?type=login.failed&limit=3");
  EXPECT_EQ(failures["events"].size(), 3u);
  EXPECT_FALSE(failures["nextCursor"].is_null());
  for (const nlohmann::json& event : failures["events"]) EXPECT_EQ(event["type"], "login.failed");
  EXPECT_EQ(trail_page(authd, reader, "?since=2999-01-01T00:00:00Z")["events"].size(), 0u);
  EXPECT_EQ(trail_page(authd, reader, "?since=2000-01-01T00:00:00%2B02:00")["events"].size(),
            total);
  const std::string latest = everything["events"][0]["time"];
  nlohmann::json since_latest = trail_page(authd, reader, "?since=" + latest);
  ASSERT_GE(since_latest["events"].size(), 1u);
  EXPECT_EQ(since_latest["events"][0]["id"], everything["events"][0]["id"]);
  EXPECT_EQ(trail_page(authd, reader, "?userId=" + kUnknownUserId)["events"].size(), 0u);

  admin::expect_error(admin::call(authd, reader, "GET", "/admin/events?type=nothing"), 400, "type");
  admin::expect_error(admin::call(authd, reader, "GET", "/admin/events?limit=0"), 400, "limit");
  admin::expect_error(admin::call(authd, reader, "GET", "/admin/events?limit=1001"), 400, "limit");
  admin::expect_error(admin::call(authd, reader, "GET", "/admin/events?since=yesterday"), 400,
                      "since");
  admin::expect_error(admin::call(authd, reader, "GET", "/admin/events?userId=bob"), 400, "userId");
  admin::expect_error(admin::call(authd, reader, "GET", "/admin/events?cursor=x"), 400, "cursor");
  HttpResponse bad = admin::call(authd, reader, "GET", "/admin/events?since=yesterday");
  EXPECT_NE(bad.body.find("since"), std::string::npos) << bad.body;
  // The key is checked first: a bad filter without a key is 401.
  EXPECT_EQ(admin::call(authd, "", "GET", "/admin/events?limit=0").status, 401);
  // Not on the public listener.
  EXPECT_EQ(send_request(authd.port(), "GET", "/admin/events").status, 404);
}

// The ids of the account's events the API lists, newest first.
std::vector<std::string> trail_ids_of(const AuthdProcess& authd, const std::string& key,
                                      const std::string& user_id) {
  nlohmann::json page = trail_page(authd, key, "?limit=1000&userId=" + user_id);
  std::vector<std::string> ids;
  for (const nlohmann::json& event : page["events"]) ids.push_back(event["id"]);
  return ids;
}

// interface.md 14.1.5: a running server indexes what it writes (on SQLite
// in the background: the account's listing is the same before and after)
// and prunes what is past --event-retention, index entries included; what
// is written after a prune that emptied the trail is found again.
TEST(Events, Interface_14_1_5_TheServerIndexesThenPrunesPastTheRetention) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--event-retention", "4s", "--prune-interval", "100ms"});
  AuthdProcess authd(args);
  const std::string key = admin::create_key(authd, "ops", "read");
  authd.add_user(kEmail, kPassword);
  const std::string user_id = lines(authd.sql("select id from users")).at(0);
  ASSERT_FALSE(authd.login(kEmail, kPassword).empty());
  std::vector<std::string> before = trail_ids_of(authd, key, user_id);
  ASSERT_EQ(before.size(), 2u);  // user.created (CLI), login.succeeded
  if (!on_postgres()) {
    EXPECT_TRUE(eventually([&] {
      return lines(authd.sql("select count(*) from events_by_user")) ==
             std::vector<std::string>{"2"};
    })) << "the server's indexing pass never ran";
    EXPECT_EQ(trail_ids_of(authd, key, user_id), before);
  }
  EXPECT_TRUE(eventually([&] { return trail_ids_of(authd, key, user_id).empty(); }))
      << "events past --event-retention were not pruned";
  if (!on_postgres()) {
    EXPECT_EQ(
        lines(authd.sql("select (select count(*) from events_by_user) + (select count(*) from "
                        "events_by_type)")),
        std::vector<std::string>{"0"});
  }
  ASSERT_FALSE(authd.login(kEmail, kPassword).empty());
  std::vector<std::string> after = trail_ids_of(authd, key, user_id);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(trail_page(authd, key, "?type=login.succeeded")["events"][0]["id"], after[0]);
}

// interface.md 14.2.2: `authd events` prints what the API answers, as JSON
// lines, with the same filters.
TEST(Events, Interface_14_2_2_CliPrintsWhatTheApiAnswers) {
  AuthdProcess authd(fast_hashing());
  const std::string key = admin::create_key(authd, "ops", "read");
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  ASSERT_FALSE(authd.login(kEmail, kPassword).empty());
  nlohmann::json api = trail_page(authd, key, "?type=login.failed")["events"];
  std::string out;
  ASSERT_EQ(authd.cli({"events", "--type", "login.failed"}, "", &out), 0);
  nlohmann::json cli = nlohmann::json::array();
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) cli.push_back(nlohmann::json::parse(line));
  EXPECT_EQ(cli, api);
  ASSERT_EQ(cli.size(), 1u);
  EXPECT_EQ(authd.cli({"events", "--type", "nothing"}, "", &out), 2);
  EXPECT_EQ(authd.cli({"events", "--since", "yesterday"}, "", &out), 2);
}

// interface.md 14.1.1: a server killed while account creations commit
// leaves no account without its user.created event and no event without
// its account, and every creation it acknowledged has both.
TEST(Events, Interface_14_1_1_AKilledServerLeavesNoChangeWithoutItsEventNorTheReverse) {
  AuthdProcess authd(fast_hashing());
  const std::string key = admin::create_key(authd, "ops", "write");
  std::atomic<bool> stop{false};
  std::atomic<int> created{0};
  std::mutex acknowledged_mutex;
  std::vector<std::string> acknowledged;
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      for (int i = 0; !stop; ++i) {
        std::string email = "c" + std::to_string(t) + "-" + std::to_string(i) + "@example.com";
        HttpResponse res;
        try {
          res = admin::call(authd, key, "POST", "/admin/users", nlohmann::json{{"email", email}});
        } catch (const std::exception&) {
          break;  // killed before this request's connect or send: never acknowledged
        }
        if (res.status != 201) break;  // the server is gone
        std::lock_guard<std::mutex> lock(acknowledged_mutex);
        acknowledged.push_back(res.json()["id"]);
        ++created;
      }
    });
  }
  for (int wait = 0; wait < 2000 && created < 60; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  authd.kill_hard();
  stop = true;
  for (std::thread& client : clients) client.join();
  ASSERT_GE(created.load(), 60);
  authd.start();

  EXPECT_EQ(lines(authd.sql("select count(*) from users u where not exists (select 1 from events "
                            "e where e.user_id = u.id and e.type = 'user.created')")),
            std::vector<std::string>{"0"});
  EXPECT_EQ(lines(authd.sql("select count(*) from events e where e.type = 'user.created' and not "
                            "exists (select 1 from users u where u.id = e.user_id)")),
            std::vector<std::string>{"0"});
  std::vector<std::string> users = lines(authd.sql("select id from users"));
  std::set<std::string> stored(users.begin(), users.end());
  for (const std::string& id : acknowledged) EXPECT_TRUE(stored.contains(id)) << id;
}

// interface.md 14.1.4: the scan every server runs when it ends (harness)
// finds a secret planted in an event, so its silence means something.
TEST(Events, Interface_14_1_4_TheSecretScanFindsAPlantedToken) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty());
  EXPECT_NO_FATAL_FAILURE(expect_no_secret_in_events(authd));
  authd.sql("update events set detail = '{\"leak\":\"" + token +
            "\"}' where type = 'login.succeeded'");
  EXPECT_NONFATAL_FAILURE(expect_no_secret_in_events(authd), "looks like a secret");
  authd.sql("delete from events where type = 'login.succeeded'");
}

}  // namespace
}  // namespace authd::test
