// The lines of a file descriptor with a bound on what one line may hold
// (interface.md 10.6.2): `authd user import` reads a file of any size, and
// a line longer than the bound is skipped to its end without ever being
// held, so the command's memory stays bounded whatever its input. The
// bytes read pass through one block and one line buffer, both reserved up
// front (no reallocation leaves a copy behind) and wiped at the end: a line
// may hold a password.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace authd {

class BoundedLines {
 public:
  enum class Next {
    line,      // `line` holds the next line, without its '\n'
    too_long,  // the next line had more than `max_line` bytes: skipped
    end,       // no more lines
    failed,    // reading failed (errno says why)
  };

  // Reads `fd`, which stays open (the caller owns it).
  BoundedLines(int fd, std::size_t max_line);
  ~BoundedLines();
  BoundedLines(const BoundedLines&) = delete;
  BoundedLines& operator=(const BoundedLines&) = delete;

  // The next line. `line` is this reader's buffer, valid until the next
  // call; a last line without '\n' counts as a line.
  Next next(const std::string*& line);

 private:
  bool fill();

  int fd_;
  std::size_t max_line_;
  std::string line_;
  std::vector<char> block_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool failed_ = false;
};

}  // namespace authd
