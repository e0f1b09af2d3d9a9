// interface.md 10.2.9 and 21.1: the admin keys through the admin API (which
// the console uses), on SQLite and (scripts/test.sh) PostgreSQL.
#include <gtest/gtest.h>

#include "admin_support.hpp"

namespace authd::test {
namespace {

TEST(AdminKeysApi, Interface_10_2_9_CreateListRevokeThroughTheAdminApi) {
  AuthdProcess authd(fast_hashing());
  const std::string writer = admin::create_key(authd, "robot");
  const std::string reader = admin::create_key(authd, "reader", "read");

  admin::expect_error(admin::call(authd, writer, "POST", "/admin/keys",
                                  nlohmann::json{{"name", "bad name"}, {"scope", "read"}}),
                      400);
  admin::expect_error(admin::call(authd, writer, "POST", "/admin/keys",
                                  nlohmann::json{{"name", "x"}, {"scope", "admin"}}),
                      400);
  admin::expect_error(admin::call(authd, reader, "POST", "/admin/keys",
                                  nlohmann::json{{"name", "x"}, {"scope", "read"}}),
                      403);
  admin::expect_error(admin::call(authd, writer, "POST", "/admin/keys",
                                  nlohmann::json{{"name", "reader"}, {"scope", "read"}}),
                      409);

  HttpResponse created = admin::call(authd, writer, "POST", "/admin/keys",
                                     nlohmann::json{{"name", "ci"}, {"scope", "read"}});
  ASSERT_EQ(created.status, 201) << created.body;
  nlohmann::json body = created.json();
  const std::string key = body["key"];
  EXPECT_TRUE(std::regex_match(key, admin::admin_key_pattern())) << key;
  EXPECT_EQ(body["name"], "ci");
  EXPECT_EQ(body["scope"], "read");
  EXPECT_TRUE(body["lastUsedAt"].is_null());
  // The new key works, as a read key.
  EXPECT_EQ(admin::call(authd, key, "GET", "/admin/users").status, 200);
  admin::expect_error(admin::call(authd, key, "DELETE", "/admin/keys/robot"), 403);

  HttpResponse listed = admin::call(authd, reader, "GET", "/admin/keys");
  ASSERT_EQ(listed.status, 200);
  std::vector<std::string> names;
  const nlohmann::json keys = listed.json();
  for (const auto& entry : keys["keys"]) {
    names.push_back(entry["name"]);
    EXPECT_EQ(entry.size(), 4u) << entry;  // never the key or its digest
  }
  EXPECT_EQ(names, (std::vector<std::string>{"ci", "reader", "robot"}));
  EXPECT_EQ(listed.body.find("authdak_"), std::string::npos);

  EXPECT_EQ(admin::call(authd, writer, "DELETE", "/admin/keys/ci").status, 204);
  admin::expect_error(admin::call(authd, writer, "DELETE", "/admin/keys/ci"), 404);
  EXPECT_EQ(admin::call(authd, key, "GET", "/admin/users").status, 401);

  HttpResponse events = admin::call(authd, writer, "GET", "/admin/events?type=admin_key.revoked");
  ASSERT_EQ(events.status, 200);
  EXPECT_EQ(events.json()["events"][0]["actor"], "admin:robot");
  EXPECT_EQ(events.json()["events"][0]["detail"]["name"], "ci");
  // The key is in no event and no log line.
  EXPECT_EQ(admin::call(authd, writer, "GET", "/admin/events").body.find(key), std::string::npos);
  EXPECT_EQ(authd.log_text().find(key), std::string::npos);
}

}  // namespace
}  // namespace authd::test
