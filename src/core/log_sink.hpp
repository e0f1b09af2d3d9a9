// The sink behind authd's log: complete JSON lines gathered and written to a
// file descriptor (stderr) in groups, like the writer's group commit.
//
// At info level every request writes a line. The request log cost about 7%
// of GET /me's throughput, most of it in writing each line with its own
// write(2) (spdlog's stderr sink also flushes stdio per line, under one
// lock); writing in groups won back 4 to 5%
// (docs/design/performance-choices.md#the-request-log-written-in-groups). Here
// an info or debug line joins a buffer that a background thread writes out at
// most `window` after the first line of the group arrived; a warn or error line
// is written before its call returns, after every line logged before it. Lines
// keep their order and are never split by another line. With a window of zero
// every line is written before its call returns. If stderr fails, or stays full
// for a second, the rest of a group is dropped (a line cut there is ended
// before the next one).
//
// What is at stake on a crash (kill -9, a fatal signal): the info and debug
// lines of the last window. Destroying the sink writes what it holds.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include <spdlog/sinks/sink.h>

namespace authd::log {

class GroupWriteSink final : public spdlog::sinks::sink {
 public:
  // fd stays the caller's: it is not closed.
  GroupWriteSink(int fd, std::chrono::microseconds window);
  ~GroupWriteSink() override;
  GroupWriteSink(const GroupWriteSink&) = delete;
  GroupWriteSink& operator=(const GroupWriteSink&) = delete;

  // The message's payload is the whole line (log.cpp formats it).
  void log(const spdlog::details::log_msg& msg) override;
  // Returns once every line logged before the call is written.
  void flush() override;
  // Lines arrive formatted: patterns and formatters do not apply.
  void set_pattern(const std::string&) override {}
  void set_formatter(std::unique_ptr<spdlog::formatter>) override {}

  // Past this many buffered bytes the logging thread writes the group
  // itself, so the buffer stays small whatever the rate of lines.
  static constexpr std::size_t max_buffered_bytes = std::size_t{64} * 1024;

 private:
  void gather_and_write();
  void write_out();

  const int fd_;
  const std::chrono::microseconds window_;

  std::mutex buffer_mutex_;  // guards pending_ and stopping_
  std::condition_variable lines_waiting_;
  std::string pending_;
  std::chrono::steady_clock::time_point group_due_;  // when pending_ is to be written
  bool stopping_ = false;

  // Held for a whole write, so that groups reach the fd in the order they
  // left the buffer (taken before buffer_mutex_, never the other way round).
  std::mutex write_mutex_;
  std::string writing_;
  bool line_cut_ = false;  // the last write stopped inside a line

  std::thread writer_;  // last: it starts once the members above exist
};

// Writes all of text to fd: retries after EINTR and short writes, and waits
// for a non-blocking fd to drain (a second at most each time). Gives up on
// any other error: there is nowhere to report a failure of the log. Returns
// the bytes written.
std::size_t write_fully(int fd, std::string_view text);

}  // namespace authd::log
