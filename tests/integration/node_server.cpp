#include "node_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace authd::test {

std::string whole_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

NodeServer start_node_server(const std::vector<std::string>& args, const std::string& log_path,
                             const std::string& port_file, const std::string& what) {
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ::dup2(out, 1);
    ::dup2(out, 2);
    std::vector<char*> argv;
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  NodeServer server{pid, 0};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string text = whole_file_text(port_file);
    if (!text.empty() && text.back() == '\n') {
      server.port = static_cast<unsigned short>(std::stoi(text));
      return server;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop_node_server(server);
  throw std::runtime_error(what + " did not start:\n" + whole_file_text(log_path));
}

void stop_node_server(const NodeServer& server) {
  if (server.pid <= 0) return;
  ::kill(server.pid, SIGTERM);
  int status = 0;
  ::waitpid(server.pid, &status, 0);
}

}  // namespace authd::test
