// `authd backup PATH` (interface.md 7.5): an online, consistent copy of the SQLite
// database taken while the server runs and writes, restorable by starting
// authd on it.
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"
#include "run_authd.hpp"

namespace authd::test {
namespace {

// Taken under load (logins and logouts writing sessions the whole time),
// the copy is a complete database: it passes SQLite's integrity check, it
// holds the accounts made before the backup, and a second authd started on
// it logs them in.
TEST(Backup, CopyTakenUnderWritesRestoresAndLogsIn) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(fast_hashing());
  authd.add_user("ada@example.com", "correct horse battery");
  authd.add_user("grace@example.com", "hopper compiler 1952");
  ASSERT_FALSE(authd.login("ada@example.com", "correct horse battery").empty());

  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::thread load([&] {
    while (!stop) {
      std::string token = authd.login("grace@example.com", "hopper compiler 1952");
      if (!token.empty() && post_with_token(authd.port(), "/logout", token).status == 200)
        writes += 2;
    }
  });
  // Stops the load on every way out, a failed ASSERT included.
  struct StopLoad {
    std::atomic<bool>& stop;
    std::thread& load;
    ~StopLoad() {
      stop = true;
      if (load.joinable()) load.join();
    }
  } stop_load{stop, load};
  ASSERT_TRUE(eventually([&] { return writes >= 10; })) << "the load never ran";

  std::string copy = authd.directory() + "/backup/authd-copy.db";
  std::filesystem::create_directories(authd.directory() + "/backup");
  std::string output;
  int code = authd.cli({"backup", copy}, "", &output);
  int writes_during = writes;
  ASSERT_TRUE(eventually([&] { return writes >= writes_during + 10; }))
      << "the server stopped writing after the backup";
  stop = true;
  load.join();
  ASSERT_EQ(code, 0) << output;

  struct stat info {};
  ASSERT_EQ(::stat(copy.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  EXPECT_FALSE(std::filesystem::exists(copy + "-wal")) << "the copy is one self-contained file";
  for (const auto& entry : std::filesystem::directory_iterator(authd.directory() + "/backup"))
    EXPECT_EQ(entry.path().string(), copy) << "a temporary file was left behind";

  // Restore: a second authd on a copy of the backup.
  AuthdProcess restored(fast_hashing());
  restored.stop();
  for (const char* suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(restored.database_path() + suffix);
  std::filesystem::copy_file(copy, restored.database_path());
  restored.start();
  EXPECT_EQ(restored.sql("PRAGMA integrity_check;"), "ok\n");
  EXPECT_EQ(restored.sql("SELECT count(*) FROM users;"), "2\n");
  EXPECT_FALSE(restored.login("ada@example.com", "correct horse battery").empty());
  EXPECT_FALSE(restored.login("grace@example.com", "hopper compiler 1952").empty());
  EXPECT_EQ(restored.login("ada@example.com", "wrong password!!"), "");
}

// The copy replaces an older backup at PATH atomically.
TEST(Backup, ReplacesAnOlderBackup) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(fast_hashing());
  std::string copy = authd.directory() + "/copy.db";
  std::ofstream(copy) << "an old backup";
  std::string output;
  ASSERT_EQ(authd.cli({"backup", copy}, "", &output), 0) << output;
  authd.add_user("ada@example.com", "correct horse battery");
  ASSERT_EQ(authd.cli({"backup", copy}, "", &output), 0) << output;
  std::string command = "/usr/bin/sqlite3 " + copy + " 'SELECT count(*) FROM users;'";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char line[64] = {};
  ASSERT_NE(std::fgets(line, sizeof line, pipe), nullptr);
  ::pclose(pipe);
  EXPECT_STREQ(line, "1\n");
}

// Other databases have their own tools; the message says which, and never
// repeats a password from the URL.
TEST(Backup, RefusesANonSqliteDatabaseWithAClearMessage) {
  CommandResult r = run_authd({"backup", "/tmp/never-written.db", "--database",
                               "postgresql://authd:pw-s3cret@db.example/authd"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("SQLite databases only"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pg_dump"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("pw-s3cret"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists("/tmp/never-written.db"));
}

// A missing database is an error, not a new empty database and backup.
TEST(Backup, MissingDatabaseIsAnErrorAndCreatesNothing) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(fast_hashing());
  std::string missing = authd.directory() + "/missing.db";
  std::string copy = authd.directory() + "/copy.db";
  CommandResult r = run_authd({"backup", copy, "--database", "sqlite:" + missing});
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(missing));
  EXPECT_FALSE(std::filesystem::exists(copy));
}

}  // namespace
}  // namespace authd::test
