#include "cli/password_input.hpp"

#include "core/wipe.hpp"

#include <sodium.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>

namespace authd {
namespace {

// One line from the terminal with echo off.
std::optional<std::string> prompt(const char* question) {
  std::fputs(question, stderr);
  std::fflush(stderr);
  termios saved{};
  bool restore = tcgetattr(STDIN_FILENO, &saved) == 0;
  if (restore) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  std::string line;
  bool ok = static_cast<bool>(std::getline(std::cin, line));
  if (restore) tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
  std::fputs("\n", stderr);
  if (!ok) return std::nullopt;
  return line;
}

}  // namespace

std::optional<std::string> read_new_password() {
  if (!isatty(STDIN_FILENO)) {
    // Piped: the whole input, less one trailing line break.
    std::string input(std::istreambuf_iterator<char>(std::cin), {});
    if (!input.empty() && input.back() == '\n') input.pop_back();
    if (!input.empty() && input.back() == '\r') input.pop_back();
    return input;
  }
  auto first = prompt("New password: ");
  if (!first) return std::nullopt;
  auto second = prompt("Repeat the password: ");
  if (!second || *first != *second) {
    std::cerr << "error: the two passwords differ\n";
    wipe(*first);
    if (second) wipe(*second);
    return std::nullopt;
  }
  wipe(*second);
  return first;
}

}  // namespace authd
