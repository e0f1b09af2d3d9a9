#include "core/log_sink.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "core/scheduling.hpp"

namespace authd::log {

GroupWriteSink::GroupWriteSink(int fd, std::chrono::microseconds window)
    : fd_(fd), window_(window) {
  pending_.reserve(max_buffered_bytes);
  writing_.reserve(max_buffered_bytes);
  if (window_.count() > 0) writer_ = std::thread([this] { gather_and_write(); });
}

GroupWriteSink::~GroupWriteSink() {
  if (writer_.joinable()) {
    {
      std::lock_guard lock(buffer_mutex_);
      stopping_ = true;
    }
    lines_waiting_.notify_one();
    writer_.join();
  }
  write_out();
}

void GroupWriteSink::log(const spdlog::details::log_msg& msg) {
  bool write_now = window_.count() == 0 || msg.level >= spdlog::level::warn;
  bool first_of_group = false;
  {
    std::lock_guard lock(buffer_mutex_);
    first_of_group = pending_.empty();
    if (first_of_group) group_due_ = std::chrono::steady_clock::now() + window_;
    pending_.append(msg.payload.data(), msg.payload.size());
    pending_ += '\n';
    if (pending_.size() >= max_buffered_bytes) write_now = true;
  }
  if (write_now) {
    write_out();
  } else if (first_of_group) {
    lines_waiting_.notify_one();  // once per group: later lines find it waiting
  }
}

void GroupWriteSink::flush() { write_out(); }

void GroupWriteSink::gather_and_write() {
  // The server's other threads ask for short slices before they start
  // (core/scheduling.hpp); this one starts earlier, with the log.
  prefer_short_time_slices();
  std::unique_lock lock(buffer_mutex_);
  while (!stopping_) {
    lines_waiting_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    // Let the group fill until one window after its first line (a stop cuts
    // it short; a group that waited for the previous write is due at once).
    lines_waiting_.wait_until(lock, group_due_, [this] { return stopping_; });
    lock.unlock();
    write_out();
    lock.lock();
  }
}

void GroupWriteSink::write_out() {
  std::lock_guard write_lock(write_mutex_);
  {
    std::lock_guard lock(buffer_mutex_);
    writing_.swap(pending_);  // pending_ takes writing_'s empty buffer
  }
  if (writing_.empty()) return;
  // A group given up part-way may have left a line cut: end it, so that the
  // next line starts on a line of its own.
  if (line_cut_) writing_.insert(writing_.begin(), '\n');
  std::size_t written = write_fully(fd_, writing_);
  if (written > 0) line_cut_ = written < writing_.size() && writing_[written - 1] != '\n';
  writing_.clear();
}

std::size_t write_fully(int fd, std::string_view text) {
  std::size_t total = 0;
  while (total < text.size()) {
    ssize_t written = ::write(fd, text.data() + total, text.size() - total);
    if (written > 0) {
      total += static_cast<std::size_t>(written);
    } else if (written < 0 && errno == EINTR) {
      continue;
    } else if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd ready{fd, POLLOUT, 0};
      if (::poll(&ready, 1, 1000) <= 0) break;  // a reader that stopped reading
    } else {
      break;
    }
  }
  return total;
}

}  // namespace authd::log
