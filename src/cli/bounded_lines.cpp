#include "cli/bounded_lines.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <sodium.h>

#include "core/wipe.hpp"

namespace authd {
namespace {

constexpr std::size_t kBlockSize = std::size_t{64} * 1024;

}  // namespace

BoundedLines::BoundedLines(int fd, std::size_t max_line)
    : fd_(fd), max_line_(max_line), block_(kBlockSize) {
  line_.reserve(max_line);
}

// What a longer line held was wiped before it was cleared.
BoundedLines::~BoundedLines() {
  wipe(line_);
  sodium_memzero(block_.data(), block_.size());
}

// The next block of the file; false at its end or on an error.
bool BoundedLines::fill() {
  ssize_t n;
  do {
    n = ::read(fd_, block_.data(), block_.size());
  } while (n < 0 && errno == EINTR);
  failed_ = n < 0;
  begin_ = 0;
  end_ = n > 0 ? static_cast<std::size_t>(n) : 0;
  return n > 0;
}

BoundedLines::Next BoundedLines::next(const std::string*& line) {
  wipe(line_);
  line_.clear();
  line = &line_;
  bool too_long = false;
  while (true) {
    if (begin_ == end_ && !fill()) {
      if (failed_) return Next::failed;
      if (too_long) return Next::too_long;
      return line_.empty() ? Next::end : Next::line;
    }
    const char* start = block_.data() + begin_;
    const void* newline = std::memchr(start, '\n', end_ - begin_);
    std::size_t n = newline != nullptr ? static_cast<const char*>(newline) - start : end_ - begin_;
    if (!too_long && line_.size() + n > max_line_) {
      // From here on the line's bytes are only counted past, never kept.
      too_long = true;
      wipe(line_);
      line_.clear();
    }
    if (!too_long) line_.append(start, n);
    begin_ += n;
    if (newline != nullptr) {
      ++begin_;
      return too_long ? Next::too_long : Next::line;
    }
  }
}

}  // namespace authd
