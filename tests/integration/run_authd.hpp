// Runs the authd binary with exactly the given arguments (no --database
// added, unlike AuthdProcess::cli) and collects its exit code and output.
// For the operator commands that tests drive from outside: config, backup.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

#include "source_paths.hpp"

namespace authd::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline std::string shell_quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// Runs `command` through /bin/sh; its exit code and standard output.
inline CommandResult run_shell(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// `environment` is a list of NAME=VALUE set for this run only.
inline CommandResult run_authd(const std::vector<std::string>& args,
                               const std::vector<std::string>& environment = {}) {
  std::string command = "env";
  for (const auto& variable : environment) command += " " + shell_quote(variable);
  command += " " + shell_quote(authd_binary());
  for (const auto& arg : args) command += " " + shell_quote(arg);
  command += " 2>&1 </dev/null";
  return run_shell(command);
}

}  // namespace authd::test
