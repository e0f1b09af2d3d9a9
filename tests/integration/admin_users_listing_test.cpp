// interface.md 10.4: GET /admin/users?limit=N&cursor=C, every user in
// creation order (by id, UUIDv7 that increase with every account), page by
// page, never repeating or skipping a user that existed when the listing
// began, even while users are created (on SQLite and on PostgreSQL).
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
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

struct ListingPage {
  std::vector<std::string> ids;
  nlohmann::json next_cursor;
};

// One page; checks its shape: exactly {users, nextCursor}, each an admin
// user, at most `limit` of them, nextCursor a non-empty string or null.
ListingPage list_page(const AuthdProcess& authd, const std::string& key, const std::string& query,
                      std::size_t limit) {
  ListingPage out;
  HttpResponse res = call(authd, key, "GET", "/admin/users" + query);
  EXPECT_EQ(res.status, 200) << query << " -> " << res.body;
  if (res.status != 200) return out;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json body = res.json();
  EXPECT_EQ(body.size(), 2u) << res.body;
  EXPECT_TRUE(body["users"].is_array()) << res.body;
  EXPECT_LE(body["users"].size(), limit) << query;
  for (const nlohmann::json& user : body["users"]) {
    expect_admin_user(user);
    out.ids.push_back(user["id"]);
  }
  out.next_cursor = body["nextCursor"];
  EXPECT_TRUE(out.next_cursor.is_null() ||
              (out.next_cursor.is_string() && !out.next_cursor.get<std::string>().empty()))
      << res.body;
  return out;
}

// Every page from the first, with `limit` (none: the default of 100);
// `server_of` picks the server for each page (several instances may share
// one listing). Fails the test on a loop that never ends.
std::vector<std::string> list_all(const std::function<const AuthdProcess&(std::size_t)>& server_of,
                                  const std::string& key, std::optional<int> limit,
                                  std::vector<std::size_t>* sizes = nullptr) {
  std::vector<std::string> ids;
  std::size_t per_page = limit ? static_cast<std::size_t>(*limit) : 100;
  std::string query = limit ? "?limit=" + std::to_string(*limit) : "";
  for (std::size_t n = 0; n < 10000; ++n) {
    ListingPage p = list_page(server_of(n), key, query, per_page);
    if (sizes) sizes->push_back(p.ids.size());
    ids.insert(ids.end(), p.ids.begin(), p.ids.end());
    if (!p.next_cursor.is_string()) return ids;
    query = "?" + (limit ? "limit=" + std::to_string(*limit) + "&" : std::string()) +
            "cursor=" + url_encode(p.next_cursor.get<std::string>());
  }
  ADD_FAILURE() << "the listing never ended";
  return ids;
}

std::vector<std::string> list_all(const AuthdProcess& authd, const std::string& key,
                                  std::optional<int> limit,
                                  std::vector<std::size_t>* sizes = nullptr) {
  return list_all([&](std::size_t) -> const AuthdProcess& { return authd; }, key, limit, sizes);
}

// Creates `count` users without passwords (quick: nothing to hash) and
// returns their ids in the order their 201s came back.
std::vector<std::string> create_plain_users(const AuthdProcess& authd, const std::string& key,
                                            const std::string& prefix, int count) {
  std::vector<std::string> ids;
  for (int i = 0; i < count; ++i) {
    nlohmann::json user =
        create_user(authd, key, {{"email", prefix + std::to_string(i) + "@example.com"}});
    if (!user.is_object()) break;
    ids.push_back(user["id"]);
  }
  return ids;
}

void expect_increasing_ids(const std::vector<std::string>& ids) {
  for (std::size_t i = 1; i < ids.size(); ++i)
    EXPECT_LT(ids[i - 1], ids[i]) << "at " << i << ": " << ids[i - 1] << " then " << ids[i];
}

// interface.md 10.4: no users: one empty page, nextCursor null.
TEST(AdminUsersListing, Interface_10_4_8_EmptyListingIsOneEmptyPage) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "reader", "read");
  HttpResponse res = call(authd, key, "GET", "/admin/users");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.json(), nlohmann::json::parse(R"({"users":[],"nextCursor":null})"));
}

// interface.md 10.4 and 2.3: ids increase with every account created, one
// after the other, even several within one millisecond; the listing gives
// every user once, in that order, with the default of 100 a page and with
// any limit from 1 to 1000.
TEST(AdminUsersListing, Interface_10_4_8_And_10_4_10_ListingGivesEveryUserInCreationOrder) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  std::vector<std::string> created = create_plain_users(authd, key, "user", 205);
  ASSERT_EQ(created.size(), 205u);
  expect_increasing_ids(created);
  for (const std::string& id : created) EXPECT_TRUE(matches(id, uuid_v7_pattern())) << id;

  std::vector<std::size_t> sizes;
  EXPECT_EQ(list_all(authd, key, std::nullopt, &sizes), created);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{100, 100, 5}));

  for (int limit : {1, 7, 100, 204, 205, 206, 1000}) {
    sizes.clear();
    std::vector<std::string> listed = list_all(authd, key, limit, &sizes);
    EXPECT_EQ(listed, created) << "limit " << limit;
    // Full pages but the last (which may be empty when the count divides).
    for (std::size_t i = 0; i + 1 < sizes.size(); ++i)
      EXPECT_EQ(sizes[i], static_cast<std::size_t>(limit)) << "limit " << limit << " page " << i;
    EXPECT_LE(sizes.size(), 205 / limit + 1u) << "limit " << limit;
  }
}

// interface.md 10.4: ids increase with every account created, even when
// many are created at once (several clients) within one millisecond: the
// listing holds each exactly once, in increasing order, and every 201's
// id is among them.
TEST(AdminUsersListing, Interface_10_4_10_ConcurrentCreatesAreEachListedOnce) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  constexpr int kThreads = 4;
  constexpr int kEach = 40;
  std::mutex mutex;
  std::set<std::string> created;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::string> ids =
          create_plain_users(authd, key, "t" + std::to_string(t) + "-", kEach);
      // Each client's own creations come back in increasing order.
      expect_increasing_ids(ids);
      std::lock_guard lock(mutex);
      created.insert(ids.begin(), ids.end());
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(created.size(), static_cast<std::size_t>(kThreads * kEach));
  std::vector<std::string> listed = list_all(authd, key, 9);
  expect_increasing_ids(listed);
  EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), created);
  EXPECT_EQ(listed.size(), created.size());
}

// interface.md 10.4: limit must be an integer from 1 to 1000 and cursor one
// that authd gave: anything else is a 400.
TEST(AdminUsersListing, Interface_10_4_8_BadQueryValuesAre400) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  ASSERT_EQ(create_plain_users(authd, key, "user", 3).size(), 3u);
  for (const std::string& query :
       {std::string("limit=0"), std::string("limit=1001"), std::string("limit=abc"),
        std::string("limit=-1"), std::string("limit=1.5"), std::string("limit="),
        std::string("limit=10x"), std::string("limit=99999999999999999999"),
        std::string("cursor=abc"), std::string("cursor=%00"), std::string("cursor=!!!!"),
        std::string("cursor=") + std::string(300, 'A'), std::string("limit=2&cursor=nonsense")}) {
    expect_error(call(authd, key, "GET", "/admin/users?" + query), 400, query);
  }
  // The edges are fine.
  EXPECT_EQ(list_page(authd, key, "?limit=1", 1).ids.size(), 1u);
  EXPECT_EQ(list_page(authd, key, "?limit=1000", 1000).ids.size(), 3u);
  // A cursor authd gave works with another limit.
  ListingPage first = list_page(authd, key, "?limit=1", 1);
  ASSERT_TRUE(first.next_cursor.is_string());
  ListingPage rest = list_page(
      authd, key, "?limit=5&cursor=" + url_encode(first.next_cursor.get<std::string>()), 5);
  EXPECT_EQ(rest.ids.size(), 2u);
  EXPECT_TRUE(rest.next_cursor.is_null());
}

// interface.md 10.4.7 and 10.4.9: how the query is read: unknown names
// and empty pairs are ignored; a malformed escape or a name given twice is
// a 400; with email, limit and cursor are still checked; a cursor is read
// in any letter case.
TEST(AdminUsersListing, Interface_10_4_9_HowTheQueryIsRead) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  std::vector<std::string> ids = create_plain_users(authd, key, "user", 3);
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(list_page(authd, key, "?unknown=1&other", 100).ids, ids);
  EXPECT_EQ(list_page(authd, key, "?&&limit=2&", 2).ids,
            (std::vector<std::string>{ids[0], ids[1]}));
  EXPECT_EQ(list_page(authd, key, "?%6Cimit=1", 1).ids, std::vector<std::string>{ids[0]});
  for (const std::string& query :
       {std::string("limit=1&limit=2"), std::string("email=user0%40example.com&email=x%40y.z"),
        std::string("limit=%"), std::string("limit=%4"), std::string("limit=%zz"),
        std::string("email=user0%40example.com&limit=0"),
        std::string("email=user0%40example.com&cursor=nonsense")})
    expect_error(call(authd, key, "GET", "/admin/users?" + query), 400, query);
  ListingPage first = list_page(authd, key, "?limit=1", 1);
  ASSERT_TRUE(first.next_cursor.is_string());
  std::string upper = first.next_cursor.get<std::string>();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(list_page(authd, key, "?limit=5&cursor=" + upper, 5).ids,
            (std::vector<std::string>{ids[1], ids[2]}));
}

// interface.md 10.4.8: a cursor is an id (the last of the page before), so
// anything that is not a UUID cannot be one authd gave: 400. A well-formed
// UUID is a valid position whether or not it names a user (keyset paging,
// docs/design/decisions/admin-and-cli.md#the-admin-api): the page after it
// starts at the next id.
TEST(AdminUsersListing, Interface_10_4_8_ACursorAuthdNeverGaveIs400) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  std::vector<std::string> ids = create_plain_users(authd, key, "user", 3);
  ASSERT_EQ(ids.size(), 3u);
  for (const std::string& cursor :
       {std::string("abc"), std::string("01890a5d-ac96-774b-bcce-b302099a805"),
        std::string("01890a5d-ac96-774b-bcce-b302099a8057x"),
        std::string("01890a5dxac96-774b-bcce-b302099a8057"), std::string("")})
    expect_error(call(authd, key, "GET", "/admin/users?limit=2&cursor=" + url_encode(cursor)), 400,
                 cursor);
  // The zero UUID is before every id: the listing from the start.
  EXPECT_EQ(list_page(authd, key, "?limit=5&cursor=00000000-0000-7000-8000-000000000000", 5).ids,
            ids);
}

// interface.md 10.4: 250 users, then a listing with limit=7 while another
// client creates 100 more: every one of the first 250 (and every user
// whose 201 came before the listing began) exactly once, all ids strictly
// increasing, no page over 7.
TEST(AdminUsersListing, Interface_10_4_8_ListingNeverRepeatsOrSkipsWhileUsersAreCreated) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops", "write");
  std::vector<std::string> before = create_plain_users(authd, key, "early", 250);
  ASSERT_EQ(before.size(), 250u);

  std::mutex mutex;
  std::vector<std::string> late;  // 201s of the creating client, in order
  std::atomic<bool> creating_started{false};
  std::thread creator([&] {
    for (int i = 0; i < 100; ++i) {
      nlohmann::json user =
          create_user(authd, key, {{"email", "late" + std::to_string(i) + "@example.com"}});
      if (!user.is_object()) continue;
      std::lock_guard lock(mutex);
      late.push_back(user["id"]);
      creating_started = true;
    }
  });
  // The listing begins once the creator is under way, so that they overlap.
  ASSERT_TRUE(eventually([&] { return creating_started.load(); }));
  std::vector<std::string> existing = before;
  {
    std::lock_guard lock(mutex);
    existing.insert(existing.end(), late.begin(), late.end());
  }
  std::vector<std::string> listed = list_all(authd, key, 7);
  creator.join();

  expect_increasing_ids(listed);
  std::multiset<std::string> seen(listed.begin(), listed.end());
  for (const std::string& id : existing) EXPECT_EQ(seen.count(id), 1u) << id;
  std::set<std::string> all(before.begin(), before.end());
  all.insert(late.begin(), late.end());
  for (const std::string& id : listed) EXPECT_EQ(all.count(id), 1u) << "listed unknown " << id;
  // The later users come after the earlier ones in the listing, as created.
  expect_increasing_ids(late);
  EXPECT_LT(before.back(), late.front());
  // Once everyone is created, a fresh listing has all 350.
  EXPECT_EQ(list_all(authd, key, 7).size(), 350u);
}

}  // namespace
}  // namespace authd::test::admin
