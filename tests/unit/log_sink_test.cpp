// The log's group-writing sink (core/log_sink.hpp): when a line reaches the
// file, and that lines arrive whole, once each and in order.
#include "core/log_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>

#include "temp_directory.hpp"

namespace authd::log {
namespace {

using namespace std::chrono_literals;

// A window no test waits out: whatever reaches the file did not wait for it.
constexpr auto kNever = std::chrono::microseconds(std::chrono::hours(1));

class LogFile {
 public:
  LogFile() : path_(dir_.file("log")) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) throw std::runtime_error("open failed");
  }
  ~LogFile() { ::close(fd_); }
  int fd() const { return fd_; }
  std::string text() const {
    std::ifstream in(path_);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }

 private:
  test::TempDirectory dir_;
  std::string path_;
  int fd_ = -1;
};

void log_line(GroupWriteSink& sink, spdlog::level::level_enum level, const std::string& line) {
  sink.log(spdlog::details::log_msg("authd", level, line));
}

TEST(GroupWriteSink, AnInfoLineWaitsForItsGroupAndAWarnLineWritesItAndItselfAtOnce) {
  LogFile file;
  GroupWriteSink sink(file.fd(), kNever);
  log_line(sink, spdlog::level::info, R"({"n":1})");
  log_line(sink, spdlog::level::debug, R"({"n":2})");
  EXPECT_EQ(file.text(), "");
  log_line(sink, spdlog::level::warn, R"({"n":3})");
  EXPECT_EQ(file.text(), "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
  log_line(sink, spdlog::level::err, R"({"n":4})");
  EXPECT_EQ(file.text(), "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n");
}

TEST(GroupWriteSink, FlushAndDestructionWriteWhatIsHeld) {
  LogFile file;
  {
    GroupWriteSink sink(file.fd(), kNever);
    log_line(sink, spdlog::level::info, "a");
    sink.flush();
    EXPECT_EQ(file.text(), "a\n");
    log_line(sink, spdlog::level::info, "b");
    EXPECT_EQ(file.text(), "a\n");
  }
  EXPECT_EQ(file.text(), "a\nb\n");
}

TEST(GroupWriteSink, WithAZeroWindowEveryLineIsWrittenBeforeLogReturns) {
  LogFile file;
  GroupWriteSink sink(file.fd(), std::chrono::microseconds(0));
  log_line(sink, spdlog::level::info, "first");
  EXPECT_EQ(file.text(), "first\n");
  log_line(sink, spdlog::level::debug, "second");
  EXPECT_EQ(file.text(), "first\nsecond\n");
}

TEST(GroupWriteSink, TheBackgroundThreadWritesAGroupWithoutAnyFurtherCall) {
  LogFile file;
  GroupWriteSink sink(file.fd(), std::chrono::microseconds(1000));
  log_line(sink, spdlog::level::info, "alone");
  // Liveness, not timing: the deadline only keeps a broken sink from
  // hanging the suite.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (file.text().empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(file.text(), "alone\n");
}

TEST(GroupWriteSink, ALoggingThreadWritesTheGroupItselfOnceTheBufferIsFull) {
  LogFile file;
  GroupWriteSink sink(file.fd(), kNever);
  std::string line(999, 'x');  // 1,000 bytes with its newline
  std::size_t lines = GroupWriteSink::max_buffered_bytes / 1000 + 1;
  for (std::size_t i = 0; i < lines; ++i) log_line(sink, spdlog::level::info, line);
  EXPECT_EQ(file.text().size(), lines * 1000);
}

TEST(GroupWriteSink, LinesFromManyThreadsArriveWholeOnceEachAndInEachThreadsOrder) {
  LogFile file;
  constexpr int kThreads = 4;
  constexpr int kLines = 20000;
  {
    GroupWriteSink sink(file.fd(), std::chrono::microseconds(200));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&sink, t] {
        for (int i = 0; i < kLines; ++i) {
          // Every 1,000th line is a warning: those take the other path.
          auto level = i % 1000 == 999 ? spdlog::level::warn : spdlog::level::info;
          log_line(sink, level, "t" + std::to_string(t) + " " + std::to_string(i) + " end");
        }
      });
    }
    for (auto& thread : threads) thread.join();
  }
  std::istringstream in(file.text());
  std::vector<int> next(kThreads, 0);
  std::string line;
  int count = 0;
  while (std::getline(in, line)) {
    ++count;
    int t = -1, i = -1;
    char end[4] = {};
    ASSERT_EQ(std::sscanf(line.c_str(), "t%d %d %3s", &t, &i, end), 3) << line;
    ASSERT_EQ(std::string(end), "end") << line;
    ASSERT_GE(t, 0);
    ASSERT_LT(t, kThreads);
    ASSERT_EQ(i, next[t]) << "thread " << t << " out of order";
    ++next[t];
  }
  EXPECT_EQ(count, kThreads * kLines);
}

// Everything the read end holds now (it is non-blocking).
std::string drain(int fd) {
  std::string all;
  char chunk[65536];
  for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) > 0;)
    all.append(chunk, static_cast<std::size_t>(n));
  return all;
}

// A stderr that stays full for a second loses the rest of the group, and
// the line cut there is ended before the next line, which starts whole.
TEST(GroupWriteSink, ALineCutByAStderrThatStaysFullIsEndedBeforeTheNextLine) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_NONBLOCK | O_CLOEXEC), 0);
  int capacity = ::fcntl(ends[1], F_SETPIPE_SZ, 4096);
  ASSERT_GT(capacity, 0);
  std::string got;
  {
    GroupWriteSink sink(ends[1], std::chrono::microseconds(0));
    std::string too_long(static_cast<std::size_t>(capacity) + 1000, 'a');
    log_line(sink, spdlog::level::warn, too_long);  // nobody reads: given up after a second
    got = drain(ends[0]);
    log_line(sink, spdlog::level::warn, R"({"n":2})");
    got += drain(ends[0]);
  }
  ::close(ends[0]);
  ::close(ends[1]);
  EXPECT_EQ(got, std::string(static_cast<std::size_t>(capacity), 'a') + "\n{\"n\":2}\n");
}

TEST(GroupWriteSink, WriteFullyWaitsForANonBlockingPipeToDrain) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_NONBLOCK | O_CLOEXEC), 0);
  std::string text(1 << 20, 'p');  // far more than a pipe holds
  std::string received;
  std::thread reader([&] {
    char chunk[65536];
    while (received.size() < text.size()) {
      ssize_t n = ::read(ends[0], chunk, sizeof chunk);
      if (n > 0)
        received.append(chunk, static_cast<std::size_t>(n));
      else
        std::this_thread::sleep_for(1ms);
    }
  });
  write_fully(ends[1], text);
  reader.join();
  ::close(ends[0]);
  ::close(ends[1]);
  EXPECT_EQ(received, text);
}

}  // namespace
}  // namespace authd::log
