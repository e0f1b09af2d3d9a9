#include "load_balancer.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "tls_client.hpp"

namespace authd::test {
namespace {

constexpr const char* kHaProxy = "/usr/sbin/haproxy";

std::string configuration(unsigned short port, unsigned short upstream_port,
                          const std::string& send_proxy) {
  std::ostringstream c;
  c << "defaults\n"
    << "  mode tcp\n"
    << "  timeout connect 5s\n"
    << "  timeout client 60s\n"
    << "  timeout server 60s\n"
    << "frontend public\n"
    << "  bind 127.0.0.1:" << port << "\n"
    << "  default_backend authd\n"
    << "backend authd\n"
    << "  server a 127.0.0.1:" << upstream_port << " " << send_proxy << "\n";
  return c.str();
}

}  // namespace

HaProxy::HaProxy(unsigned short upstream_port, const std::string& send_proxy, bool upstream_tls)
    : upstream_port_(upstream_port), send_proxy_(send_proxy), upstream_tls_(upstream_tls) {
  char pattern[] = "/tmp/authd-haproxy-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  directory_ = pattern;
  // A port reserved and released just before HAProxy binds it can be taken
  // by another process in between: then try another one.
  for (int attempt = 0; attempt < 5; ++attempt) {
    ReservedPort reserved;
    unsigned short port = reserved.port();
    reserved.release();
    if (start_on(port)) {
      port_ = port;
      return;
    }
  }
  std::string printed = output();
  stop();
  std::filesystem::remove_all(directory_);
  throw std::runtime_error("haproxy did not start:\n" + printed);
}

HaProxy::~HaProxy() {
  stop();
  if (std::getenv("AUTHD_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
  }
}

std::string HaProxy::output() const {
  std::ifstream in(directory_ + "/haproxy.out");
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

bool HaProxy::start_on(unsigned short port) {
  const std::string conf = directory_ + "/haproxy.cfg";
  {
    std::ofstream out(conf, std::ios::trunc);
    out << configuration(port, upstream_port_, send_proxy_);
  }
  std::vector<std::string> args = {kHaProxy, "-db", "-f", conf};
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int out = ::open((directory_ + "/haproxy.out").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    int in = ::open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  // Ready when a request through it reaches authd; gone when it could not
  // bind (or failed otherwise).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    try {
      int answered = upstream_tls_ ? TlsConnection(port).request("GET", "/healthz").status
                                   : send_request(port, "GET", "/healthz").status;
      if (answered == 200) return true;
    } catch (const std::exception&) {
      // not listening yet
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop();
  return false;
}

void HaProxy::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace authd::test
