// Secrets in memory and on disk: authd's processes are not
// dumpable (no core file, no same-user ptrace, /proc/PID/mem and environ
// owned by root), and a database file that other users can read is warned
// about at start.
//
// Whether a process is dumpable shows in /proc: the files of a process
// that is not belong to root instead of to the process's user. So the
// process must run as another user than root to tell: authd is started
// through setpriv (util-linux) as `nobody`, in a directory nobody owns.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"
#include "source_paths.hpp"

namespace authd::test {
namespace {

constexpr uid_t kNobodyUid = 65534;

std::string whole_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// authd run as nobody in a temporary directory that nobody owns.
class AuthdAsNobody {
 public:
  AuthdAsNobody() {
    char pattern[] = "/tmp/authd-nobody-XXXXXX";
    if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    directory_ = pattern;
    if (::chown(directory_.c_str(), kNobodyUid, kNobodyUid) != 0)
      throw std::runtime_error("cannot chown the test directory");
    // A copy nobody can run, wherever the build lives (a checkout under
    // /root is out of its reach).
    binary_ = directory_ + "/authd";
    std::filesystem::copy_file(authd_binary(), binary_);
  }
  ~AuthdAsNobody() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      finish();
    }
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
  }

  const std::string& directory() const { return directory_; }

  // Starts `authd <args>`; standard input is a pipe this object holds open
  // until finish().
  void start(const std::vector<std::string>& args) {
    int input[2];
    if (::pipe2(input, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      int out = ::open((directory_ + "/authd.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(input[0], 0);
      dup2(out, 1);
      dup2(out, 2);
      if (chdir(directory_.c_str()) != 0) _exit(126);
      std::vector<std::string> argv = {
          "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", binary_};
      argv.insert(argv.end(), args.begin(), args.end());
      std::vector<char*> pointers;
      for (auto& a : argv) pointers.push_back(a.data());
      pointers.push_back(nullptr);
      execv(pointers[0], pointers.data());
      _exit(127);
    }
    ::close(input[0]);
    input_ = input[1];
  }

  // Polls (bounded) until `path` exists in the directory while authd runs.
  bool wait_for_file(const std::string& name) {
    for (int i = 0; i < 750; ++i) {
      if (std::filesystem::exists(directory_ + "/" + name)) return true;
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // The owner of /proc/PID/status, and the process's real user from it.
  uid_t proc_owner() const {
    struct stat info {};
    if (::stat(("/proc/" + std::to_string(pid_) + "/status").c_str(), &info) != 0) return -1;
    return info.st_uid;
  }
  uid_t real_uid() const {
    std::istringstream status(whole_file("/proc/" + std::to_string(pid_) + "/status"));
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("Uid:", 0) == 0) return static_cast<uid_t>(std::stoul(line.substr(4)));
    }
    return -1;
  }

  // Closes standard input, stops the process (SIGTERM) and reaps it.
  void finish() {
    if (input_ >= 0) ::close(input_);
    input_ = -1;
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::string log() const { return whole_file(directory_ + "/authd.log"); }

 private:
  std::string directory_;
  std::string binary_;
  int pid_ = -1;
  int input_ = -1;
};

#define AUTHD_NEEDS_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "runs authd as another user: needs root"

// `authd serve` is not dumpable: its /proc files belong to root although
// it runs as nobody (before the fix: to nobody).
TEST(SecretsInMemory, ServeIsNotDumpable) {
  AUTHD_NEEDS_ROOT();
  AuthdAsNobody authd;
  authd.start({"serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--port-file",
               "port", "--database", "sqlite:authd.db", "--mail-dir", "mail"});
  ASSERT_TRUE(authd.wait_for_file("port")) << authd.log();
  EXPECT_EQ(authd.real_uid(), kNobodyUid) << "the check below means nothing as root";
  EXPECT_EQ(authd.proc_owner(), 0u) << "/proc/PID belongs to the user: the process is dumpable";
  authd.finish();
}

// interface.md 7.5: `authd user add` is not dumpable while it waits for
// the password on standard input.
TEST(SecretsInMemory, Interface_7_5_UserCommandReadingAPasswordIsNotDumpable) {
  AUTHD_NEEDS_ROOT();
  AuthdAsNobody authd;
  std::vector<std::string> args = {
      "user", "add", "--email", "ada@example.com", "--database", "sqlite:authd.db"};
  for (const auto& arg : fast_hashing()) args.push_back(arg);
  authd.start(args);
  // The database exists once main() is well past its first line; the
  // command then blocks reading the password from the open pipe.
  ASSERT_TRUE(authd.wait_for_file("authd.db")) << authd.log();
  EXPECT_EQ(authd.real_uid(), kNobodyUid);
  EXPECT_EQ(authd.proc_owner(), 0u) << "/proc/PID belongs to the user: the process is dumpable";
  authd.finish();
}

// interface.md 8.1: an existing database file that other users can read
// is warned about at start (path and mode, nothing from inside it); the
// file authd creates itself (0600) is not.
TEST(SecretsAtRest, Interface_8_1_DatabaseFileWiderThan0600IsWarnedAbout) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(authd.stop(), 0);
  EXPECT_EQ(authd.log_text().find("database_file_not_private"), std::string::npos);

  ASSERT_EQ(::chmod(authd.database_path().c_str(), 0644), 0);
  authd.start();
  bool warned = false;
  for (const auto& line : log_lines(authd)) {
    if (line.value("event", "") != "database_file_not_private") continue;
    warned = true;
    EXPECT_EQ(line.value("level", ""), "warning");
    EXPECT_EQ(line.value("mode", ""), "0644");
    EXPECT_EQ(line.value("path", ""), authd.database_path());
  }
  EXPECT_TRUE(warned) << authd.log_text();
  // authd leaves the mode as the operator set it.
  struct stat info {};
  ASSERT_EQ(::stat(authd.database_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644);
}

}  // namespace
}  // namespace authd::test
