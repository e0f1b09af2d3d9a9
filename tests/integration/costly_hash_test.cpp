// Costly kinds of stored hashes (interface.md 10.5) on the real server: a
// failed login at a kind dearer than the server's own counts as many
// failures as it costs; kinds dearer than 20 times the own are refused at
// import and by the admin API unless --allow-costly-hashes is set; a floor
// over one second is warned of at start, from the stored costs. No timing:
// counts of throttle events, statuses, details and log lines.
//
// The server runs with fast_hashing() (argon2id m = 64 KiB, t = 1); the
// costly kind is argon2id m = 8 MiB, t = 4: some 500 times as much work.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"

// Inside authd::test::admin (its helpers), as admin_users_test.cpp is.
namespace authd::test::admin {
namespace {
namespace costly {

const std::string kCostlyKind = "$argon2id$v=19$m=8192,t=4,p=1";
const std::string kOwnKind = "$argon2id$v=19$m=64,t=1,p=1";

std::string hash_of_costly_kind() { return argon2id_hash(kPassword, 4, 8192); }

// Waits (bounded) for the log line of `event` whose `kind` is `kind`.
nlohmann::json wait_for_kind_line(const AuthdProcess& authd, const std::string& event,
                                  const std::string& kind) {
  for (int i = 0; i < 750; ++i) {
    for (const nlohmann::json& line : log_lines(authd))
      if (line.value("event", "") == event && line.value("kind", "") == kind) return line;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return nullptr;
}

long events_of(const AuthdProcess& authd, const std::string& key) {
  return std::stol(
      lines(authd.sql("SELECT count(*) FROM throttle_events WHERE key = '" + key + "'"))[0]);
}

int login_status(const AuthdProcess& authd, const std::string& email, const std::string& password) {
  return post_json(authd.port(), "/login", login_body(email, password)).status;
}

std::string line_of(const std::string& email, const std::string& hash) {
  return nlohmann::json{{"email", email}, {"passwordHash", hash}}.dump() + "\n";
}

// The salt and digest of a PHC string: what must never be repeated.
std::string salt_and_digest(const std::string& phc) {
  return phc.substr(phc.find("$", phc.find("$m=") + 1) + 1);
}

}  // namespace costly

// One wrong password at the costly kind counts as its measured cost in
// failures (capped at each limit: 10 for the e-mail), so the e-mail's next
// attempt, even with the right password, is throttled; a wrong password at
// the server's own kind counts one.
TEST(CostlyHash, Interface_10_5_AFailedLoginAtACostlyKindCountsItsCostInTheThrottles) {
  AuthdProcess authd(fast_hashing());
  add_user_hashed_at(authd, "costly@example.com", "8192", "4");
  authd.add_user(kEmail, kPassword);
  nlohmann::json measured =
      costly::wait_for_kind_line(authd, "hash_kind_measured", costly::kCostlyKind);
  ASSERT_FALSE(measured.is_null()) << authd.log_text();
  ASSERT_GT(measured["relative_cost"].get<double>(), 10.0);

  EXPECT_EQ(costly::login_status(authd, kEmail, "a wrong password"), 401);
  EXPECT_EQ(costly::events_of(authd, "login:email:" + std::string(kEmail)), 1);
  EXPECT_EQ(costly::events_of(authd, "login:client:127.0.0.1"), 1);

  EXPECT_EQ(costly::login_status(authd, "costly@example.com", "a wrong password"), 401);
  EXPECT_EQ(costly::events_of(authd, "login:email:costly@example.com"), 10);
  EXPECT_GE(costly::events_of(authd, "login:client:127.0.0.1"), 1 + 10);
  EXPECT_EQ(costly::login_status(authd, "costly@example.com", kPassword), 429);
}

// A kind over 20 times the own is an invalid line of an import, named with
// its cost and the flag, never with its salt or digest; the flag lets it in.
TEST(CostlyHash, Interface_10_5_AKindOverTwentyTimesTheOwnIsRefusedAtImportUnlessAllowed) {
  AuthdProcess authd(fast_hashing());
  const std::string costly = costly::hash_of_costly_kind();
  const std::string cheap = argon2id_hash(kPassword, 1, 128);
  std::vector<std::string> import = {
      "user", "import", "-", "--argon2-memory-kib", "64", "--argon2-iterations", "1"};
  std::string output;
  EXPECT_EQ(
      authd.cli(import,
                costly::line_of("a@example.com", costly) + costly::line_of("b@example.com", cheap),
                &output),
      1);
  EXPECT_NE(output.find("line 1: passwordHash: " + costly::kCostlyKind + " costs "),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("over the limit of 20 (--allow-costly-hashes accepts it)"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("created 1, existing 0, invalid 1"), std::string::npos) << output;
  EXPECT_EQ(output.find(costly::salt_and_digest(costly).substr(0, 10)), std::string::npos);
  EXPECT_EQ(lines(authd.sql("SELECT count(*) FROM users WHERE email = 'a@example.com'"))[0], "0");

  import.push_back("--allow-costly-hashes");
  EXPECT_EQ(authd.cli(import, costly::line_of("a@example.com", costly), &output), 0) << output;
  EXPECT_NE(output.find("created 1, existing 0, invalid 0"), std::string::npos) << output;
}

// The same through the admin API: 400 with the detail, on POST and PUT,
// and nothing stored; a server started with the flag takes it.
TEST(CostlyHash, Interface_10_5_AKindOverTwentyTimesTheOwnIsRefusedByTheAdminApi) {
  AuthdProcess authd(fast_hashing());
  const std::string key = create_key(authd, "ops", "write");
  nlohmann::json user = create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(user.is_object());
  const std::string costly = costly::hash_of_costly_kind();
  const std::string target = "/admin/users/" + user["id"].get<std::string>() + "/password";
  for (const HttpResponse& res : {call(authd, key, "PUT", target, {{"passwordHash", costly}}),
                                  call(authd, key, "POST", "/admin/users",
                                       {{"email", "b@example.com"}, {"passwordHash", costly}})}) {
    ASSERT_EQ(res.status, 400) << res.body;
    std::string detail = res.json().value("detail", "");
    EXPECT_EQ(detail.rfind("passwordHash: " + costly::kCostlyKind + " costs ", 0), 0u) << detail;
    EXPECT_NE(detail.find("over the limit of 20"), std::string::npos) << detail;
    EXPECT_EQ(res.body.find(costly::salt_and_digest(costly).substr(0, 10)), std::string::npos);
  }
  EXPECT_EQ(lines(authd.sql("SELECT kind FROM password_hash_kinds")),
            std::vector<std::string>{costly::kOwnKind});
  EXPECT_EQ(costly::login_status(authd, kEmail, kPassword), 200) << "the password stayed";

  std::vector<std::string> allowing = fast_hashing();
  allowing.push_back("--allow-costly-hashes");
  AuthdProcess allowed(allowing, authd.database_url());
  EXPECT_EQ(call(allowed, key, "PUT", target, {{"passwordHash", costly}}).status, 200);
}

// New kinds are capped: one import run brings at most 8 kinds not stored
// before (the 9th line's kind is refused, and a later run may bring it),
// and no request brings a new kind once 32 are stored.
TEST(CostlyHash, Interface_10_5_NewKindsAreCappedPerImportAndInAll) {
  AuthdProcess authd(fast_hashing());
  std::string nine;
  for (int i = 0; i < 9; ++i)
    nine += costly::line_of("k" + std::to_string(i) + "@example.com",
                            argon2id_hash(kPassword, 1, 65 + static_cast<std::size_t>(i)));
  std::string output;
  EXPECT_EQ(authd.cli({"user", "import", "-"}, nine, &output), 1);
  EXPECT_NE(output.find("line 9: passwordHash: this import has brought 8 kinds of hash not "
                        "stored before, the most one run may"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("created 8, existing 0, invalid 1"), std::string::npos) << output;
  EXPECT_EQ(authd.cli({"user", "import", "-"}, nine, &output), 0) << output;
  EXPECT_NE(output.find("created 1, existing 8, invalid 0"), std::string::npos) << output;

  for (int i = 0; i < 23; ++i)  // 9 + 23 = 32 kinds
    authd.sql("INSERT INTO password_hash_kinds (kind) VALUES ('$2b$" + std::to_string(10 + i) +
              "x')");
  const std::string key = create_key(authd, "ops", "write");
  HttpResponse res =
      call(authd, key, "POST", "/admin/users",
           {{"email", "new@example.com"}, {"passwordHash", argon2id_hash(kPassword, 1, 100)}});
  ASSERT_EQ(res.status, 400) << res.body;
  EXPECT_EQ(res.json().value("detail", ""),
            "passwordHash: 32 kinds of hash are stored already, the most there may be; a hash "
            "of a kind not stored yet is refused");
  // A kind stored already is taken.
  EXPECT_EQ(call(authd, key, "POST", "/admin/users",
                 {{"email", "new@example.com"}, {"passwordHash", argon2id_hash(kPassword, 1, 65)}})
                .status,
            201);
}

// A floor over one second is said at start, from the costs stored with the
// kinds (here one as if measured at 100,000 times the own kind): the start
// measures no kind, and does not wait for any.
TEST(CostlyHash, Interface_10_5_AFloorOverOneSecondIsWarnedOfAtStartFromTheStoredCosts) {
  AuthdProcess before(fast_hashing());
  add_user_hashed_at(before, kEmail, "128", "1");
  before.stop();
  before.sql("UPDATE password_hash_kinds SET relative_cost_milli = 100000000, cost_basis = '" +
             costly::kOwnKind + "'");

  AuthdProcess authd(fast_hashing(), before.database_url());
  ASSERT_TRUE(wait_for_log(authd, "\"listening\""));
  nlohmann::json warning;
  for (const nlohmann::json& line : log_lines(authd))
    if (line.value("event", "") == "login_floor_high") warning = line;
  ASSERT_FALSE(warning.is_null()) << authd.log_text();
  EXPECT_GT(warning["floor_ms"].get<double>(), 1000.0);
  EXPECT_EQ(warning["level"], "warning");
  EXPECT_EQ(authd.log_text().find("hash_kind_measured"), std::string::npos) << authd.log_text();
}

}  // namespace
}  // namespace authd::test::admin
