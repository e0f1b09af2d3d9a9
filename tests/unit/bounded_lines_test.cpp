// cli/bounded_lines.hpp: the lines of `authd user import` (interface.md
// 10.6.2), each at most a bound, a longer one skipped without being held.
#include "cli/bounded_lines.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace authd {
namespace {

// What the reader makes of `input` with lines of at most `max_line`: each
// line as read, "<too long>" for one that was not, and "<failed>" for an
// error.
std::vector<std::string> lines_of(const std::string& input, std::size_t max_line) {
  int fd = ::memfd_create("bounded_lines_test", 0);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::write(fd, input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::lseek(fd, 0, SEEK_SET);
  std::vector<std::string> lines;
  {
    BoundedLines reader(fd, max_line);
    const std::string* line = nullptr;
    for (BoundedLines::Next next = reader.next(line); next != BoundedLines::Next::end;
         next = reader.next(line)) {
      if (next == BoundedLines::Next::failed) {
        lines.push_back("<failed>");
        break;
      }
      lines.push_back(next == BoundedLines::Next::line ? *line : "<too long>");
    }
  }
  ::close(fd);
  return lines;
}

using Lines = std::vector<std::string>;

TEST(BoundedLines, Interface_10_6_2_LinesAsWrittenBlankOnesIncluded) {
  EXPECT_EQ(lines_of("", 10), Lines{});
  EXPECT_EQ(lines_of("a\n", 10), Lines{"a"});
  EXPECT_EQ(lines_of("a\n\nb", 10), (Lines{"a", "", "b"}));
  EXPECT_EQ(lines_of("a\r\n\n", 10), (Lines{"a\r", ""}));
}

TEST(BoundedLines, Interface_10_6_2_ALineOverTheBoundIsSkippedToItsEnd) {
  EXPECT_EQ(lines_of("0123456789\n01234567890\nok\n", 10),
            (Lines{"0123456789", "<too long>", "ok"}));
  EXPECT_EQ(lines_of("ok\n01234567890", 10), (Lines{"ok", "<too long>"}));
  EXPECT_EQ(lines_of("01234567890\n\n", 10), (Lines{"<too long>", ""}));
}

// Lines and the bound across the reader's blocks (64 KiB).
TEST(BoundedLines, Interface_10_6_2_LinesSpanningBlocks) {
  const std::size_t bound = 200 * 1024;
  std::string exact(bound, 'x');
  std::string over(3 * bound, 'y');
  std::string input = "first\n" + exact + "\n" + over + "\n" + "last";
  Lines lines = lines_of(input, bound);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "first");
  EXPECT_EQ(lines[1], exact);
  EXPECT_EQ(lines[2], "<too long>");
  EXPECT_EQ(lines[3], "last");
}

TEST(BoundedLines, Interface_10_6_5_AReadErrorIsReported) {
  // A directory opens for reading, and then cannot be read.
  int fd = ::open("/", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  BoundedLines reader(fd, 10);
  const std::string* line = nullptr;
  EXPECT_EQ(reader.next(line), BoundedLines::Next::failed);
  ::close(fd);
}

}  // namespace
}  // namespace authd
