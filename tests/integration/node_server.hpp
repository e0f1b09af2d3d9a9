// A Node.js server of the test support (the webhook receiver, the upstream
// providers' doubles): started with its output appended to a log file, and
// ready once it has written its port, as a line, to a file of its own.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace authd::test {

// A whole file's bytes, or "" when it cannot be read (not written yet).
std::string whole_file_text(const std::string& path);

struct NodeServer {
  pid_t pid = -1;
  unsigned short port = 0;
};

// Runs `args` (argv, args[0] the program) with stdout and stderr appended
// to `log_path`, and waits up to 15 s for `port_file` to hold a line;
// throws with `what` and the log when it does not.
NodeServer start_node_server(const std::vector<std::string>& args, const std::string& log_path,
                             const std::string& port_file, const std::string& what);

// SIGTERM, then waits for it (nothing when it never started).
void stop_node_server(const NodeServer& server);

}  // namespace authd::test
