// interface.md 9.2 and 9.3: structured JSON logs carry one line
// per lifecycle event, from start to stop, besides one per request; the
// level is set by --log-level.
#include <signal.h>

#include <sstream>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace authd::test {
namespace {

std::vector<std::string> events(const std::vector<nlohmann::json>& lines) {
  std::vector<std::string> names;
  for (const auto& line : lines) names.push_back(line.value("event", ""));
  return names;
}

// Position of `event` in `names` (names.size() when absent).
std::size_t position(const std::vector<std::string>& names, const std::string& event) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), event) - names.begin());
}

// 9.2/9.3: starting, migration applied, outbox worker started, listening;
// then on SIGTERM draining, drained, outbox worker stopped, stopped: in
// that order, each a JSON object with time, level and event.
TEST(Logging, Interface_9_2_OneLinePerLifecycleEventFromStartToStop) {
  AuthdProcess authd(fast_hashing());
  ASSERT_EQ(authd.stop(), 0);
  auto lines = log_lines(authd);
  auto names = events(lines);
  const std::vector<std::string> expected = {
      "starting", "migration_applied", "outbox_worker_started", "listening",
      "draining", "drained",           "outbox_worker_stopped", "stopped"};
  std::size_t previous = 0;
  for (const auto& event : expected) {
    std::size_t at = position(names, event);
    ASSERT_LT(at, names.size()) << event << " was not logged:\n" << authd.log_text();
    EXPECT_GE(at, previous) << event << " out of order:\n" << authd.log_text();
    previous = at;
  }
  for (const auto& line : lines) {
    EXPECT_TRUE(line.contains("time") && line.contains("level") && line.contains("event")) << line;
  }
  const auto& starting = lines[position(names, "starting")];
  EXPECT_TRUE(starting.contains("version") && starting.contains("pid")) << starting;
  const auto& migration = lines[position(names, "migration_applied")];
  EXPECT_EQ(migration.value("version", 0), 1) << migration;
}

// 8.4: a migration is logged only when applied, not at every start.
TEST(Logging, MigrationIsLoggedOnceWhenApplied) {
  AuthdProcess authd(fast_hashing());
  ASSERT_EQ(authd.stop(), 0);
  authd.start();
  ASSERT_EQ(authd.stop(), 0);
  auto names = events(log_lines(authd));
  const std::string applied = authd.sql("SELECT count(*) FROM schema_migrations;");
  EXPECT_EQ(std::to_string(std::count(names.begin(), names.end(), "migration_applied")) + "\n",
            applied);
  EXPECT_EQ(std::count(names.begin(), names.end(), "starting"), 2);
}

// 9.2: --log-level sets the lowest level written: warn leaves out the
// info lines (requests, lifecycle), debug adds the debug ones.
TEST(Logging, Interface_9_2_LogLevelFlagSetsTheLowestLevelWritten) {
  std::vector<std::string> quiet_args = fast_hashing();
  quiet_args.insert(quiet_args.end(), {"--log-level", "warn"});
  AuthdProcess quiet(quiet_args);
  send_request(quiet.port(), "GET", "/me");
  ASSERT_EQ(quiet.stop(), 0);
  for (const auto& line : log_lines(quiet)) {
    EXPECT_TRUE(line["level"] == "warning" || line["level"] == "error") << line;
  }

  std::vector<std::string> verbose_args = fast_hashing();
  verbose_args.insert(verbose_args.end(), {"--log-level", "debug"});
  AuthdProcess verbose(verbose_args);
  send_request(verbose.port(), "GET", "/me");
  ASSERT_EQ(verbose.stop(), 0);
  auto names = events(log_lines(verbose));
  EXPECT_LT(position(names, "request_started"), names.size()) << verbose.log_text();
  EXPECT_LT(position(names, "request"), names.size());
}

}  // namespace
}  // namespace authd::test
