#include "cli/password_input.hpp"

#include <sodium.h>
#include <termios.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <iostream>

namespace authd {
namespace {

// More than any password authd accepts (255 code points are at most 1,020
// bytes of UTF-8), so that a longer one is refused by the password rules'
// messages rather than cut here, and small enough for a buffer on the
// stack that is wiped before return. Standard input is read with read(2),
// not iostreams: std::cin's buffer (the C library's stdin buffer) would
// keep a copy of the password that nothing wipes.
constexpr std::size_t kMaxInput = 4096;
using InputBuffer = std::array<char, kMaxInput + 1>;  // one more byte tells "too long"

// Reads standard input into `buffer` until end of input or, with
// `one_line`, the first line break (not kept). Its length, or nothing when
// reading failed, the input does not fit, or a line ended without a break.
std::optional<std::size_t> read_input(InputBuffer& buffer, bool one_line) {
  std::size_t used = 0;
  while (used < buffer.size()) {
    // A line is read a byte at a time, so that nothing after it is taken.
    std::size_t want = one_line ? 1 : buffer.size() - used;
    ssize_t n = ::read(STDIN_FILENO, buffer.data() + used, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return one_line ? std::nullopt : std::optional<std::size_t>(used);  // ended early
    if (one_line && buffer[used] == '\n') return used;
    used += static_cast<std::size_t>(n);
  }
  std::cerr << "error: the password is longer than " << kMaxInput << " bytes\n";
  return std::nullopt;
}

// One line from the terminal with echo off, into `buffer`; its length.
std::optional<std::size_t> prompt(const char* question, InputBuffer& buffer) {
  std::fputs(question, stderr);
  std::fflush(stderr);
  termios saved{};
  bool restore = tcgetattr(STDIN_FILENO, &saved) == 0;
  if (restore) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  auto length = read_input(buffer, true);
  if (restore) tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
  std::fputs("\n", stderr);
  return length;
}

// Wipes the stack buffers of read_new_password on every path out.
struct WipedBuffers {
  InputBuffer first;
  InputBuffer second;
  ~WipedBuffers() {
    sodium_memzero(first.data(), first.size());
    sodium_memzero(second.data(), second.size());
  }
};

}  // namespace

std::optional<std::string> read_new_password() {
  WipedBuffers buffers;
  if (!isatty(STDIN_FILENO)) {
    // Piped: the whole input, less one trailing line break.
    auto length = read_input(buffers.first, false);
    if (!length) return std::nullopt;
    std::size_t n = *length;
    if (n > 0 && buffers.first[n - 1] == '\n') --n;
    if (n > 0 && buffers.first[n - 1] == '\r') --n;
    // One allocation of the exact size: the caller wipes it.
    return std::string(buffers.first.data(), n);
  }
  auto first = prompt("New password: ", buffers.first);
  if (!first) return std::nullopt;
  auto second = prompt("Repeat the password: ", buffers.second);
  if (!second || *first != *second ||
      sodium_memcmp(buffers.first.data(), buffers.second.data(), *first) != 0) {
    std::cerr << "error: the two passwords differ\n";
    return std::nullopt;
  }
  return std::string(buffers.first.data(), *first);
}

}  // namespace authd
