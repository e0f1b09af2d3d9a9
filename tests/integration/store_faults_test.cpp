// The SQLite WAL stays bounded and a full disk is recoverable; /healthz
// tells whether the store can commit (docs/guide/operations.md, "The SQLite WAL"
// and "Health"). The full disk is a small tmpfs the test mounts (root
// only, as CI runs; elsewhere the test is skipped and says why).
#include <sys/mount.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

namespace fs = std::filesystem;

std::uintmax_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

// A tmpfs of `mib` MiB mounted on a fresh directory for the test's life.
class SmallDisk {
 public:
  explicit SmallDisk(int mib) : directory_(fs::temp_directory_path() / "authd-small-disk-XXXXXX") {
    std::string pattern = directory_.string();
    if (::mkdtemp(pattern.data()) == nullptr) return;
    directory_ = pattern;
    std::string options = "size=" + std::to_string(mib) + "m,mode=0700";
    mounted_ = ::mount("tmpfs", pattern.c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(directory_.c_str(), MNT_DETACH);
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }
  bool mounted() const { return mounted_; }
  std::string path(const std::string& name) const { return (directory_ / name).string(); }

  // Writes a filler file until the disk is full.
  void fill() {
    std::ofstream filler(path("filler"), std::ios::binary);
    std::string block(64 * 1024, 'f');
    while (filler.write(block.data(), static_cast<std::streamsize>(block.size())) &&
           filler.flush()) {
    }
  }
  void free_space() { fs::remove(path("filler")); }

 private:
  fs::path directory_;
  bool mounted_ = false;
};

std::vector<std::string> limits_out_of_the_way() {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(),
              {"--login-email-limit", "1000000/1m", "--login-client-limit", "1000000/1m"});
  return args;
}

// Commits stop (the disk is full): /healthz answers 503 at once, though the
// database still answers reads; once space is freed it answers 200 again
// without any request having to write first, logins work, and the WAL is
// truncated to nothing once commits pause.
TEST(StoreFaults, FullDiskMakesHealthz503AndFreedSpaceMakesItWholeAgain) {
  AUTHD_SQLITE_ONLY();
  SmallDisk disk(8);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  AuthdProcess authd(limits_out_of_the_way(), "sqlite:" + disk.path("authd.db"));
  authd.add_user("ada@example.com", "correct horse battery");
  ASSERT_FALSE(authd.login("ada@example.com", "correct horse battery").empty());

  disk.fill();
  // Logins write a session each; bounded, the disk fills within a few.
  int status = 200;
  for (int i = 0; i < 2000 && status == 200; ++i) {
    status =
        post_json(authd.port(), "/login", login_body("ada@example.com", "correct horse battery"))
            .status;
  }
  ASSERT_EQ(status, 503) << "a full disk still took every login";
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 503);
  EXPECT_EQ(send_request(authd.admin_port(), "GET", "/healthz").status, 503);

  disk.free_space();
  EXPECT_TRUE(eventually([&] {
    return send_request(authd.port(), "GET", "/healthz").status == 200;
  })) << authd.log_text();
  EXPECT_FALSE(authd.login("ada@example.com", "correct horse battery").empty());
  EXPECT_TRUE(eventually([&] { return file_size_or_zero(disk.path("authd.db-wal")) == 0; }))
      << "WAL of " << file_size_or_zero(disk.path("authd.db-wal")) << " bytes left";
}

// A burst of writes grows the WAL; once commits pause it is truncated to
// nothing, rather than kept at its largest size for good.
TEST(StoreFaults, WalIsTruncatedOnceCommitsPause) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(limits_out_of_the_way());
  authd.add_user("ada@example.com", "correct horse battery");
  for (int i = 0; i < 300; ++i)
    ASSERT_FALSE(authd.login("ada@example.com", "correct horse battery").empty());
  const std::string wal = authd.database_path() + "-wal";
  EXPECT_TRUE(eventually([&] { return file_size_or_zero(wal) == 0; }))
      << "WAL of " << file_size_or_zero(wal) << " bytes left";
}

// A WAL left behind by a crash is checkpointed and truncated shortly after
// the next start.
TEST(StoreFaults, WalLeftByACrashIsTruncatedAfterTheNextStart) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(limits_out_of_the_way());
  authd.add_user("ada@example.com", "correct horse battery");
  for (int i = 0; i < 50; ++i)
    ASSERT_FALSE(authd.login("ada@example.com", "correct horse battery").empty());
  authd.kill_hard();
  const std::string wal = authd.database_path() + "-wal";
  ASSERT_GT(file_size_or_zero(wal), 0u) << "nothing for the restart to recover";
  authd.start();
  EXPECT_TRUE(eventually([&] { return file_size_or_zero(wal) == 0; }))
      << "WAL of " << file_size_or_zero(wal) << " bytes left";
  EXPECT_EQ(without_trailing_newlines(authd.sql("select count(*) from sessions")), "50");
}

}  // namespace
}  // namespace authd::test
