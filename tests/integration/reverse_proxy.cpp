#include "reverse_proxy.hpp"

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
#include <utility>
#include <vector>

#include "harness.hpp"

namespace authd::test {
namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";

std::string nginx_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// The configuration of one test nginx. Every path nginx writes is in
// `directory`; the error log is also given by -e, so that nginx never opens
// its compiled-in /var/log/nginx/error.log, not even before reading this.
std::string nginx_configuration(const std::string& directory, const std::string& http_block) {
  std::ostringstream c;
  c << "daemon off;\n"
    << "master_process off;\n"
    << "worker_processes 1;\n"
    << "pid " << directory << "/nginx.pid;\n"
    << "error_log " << directory << "/error.log info;\n"
    << "events { worker_connections 256; }\n"
    << "http {\n"
    << "  access_log " << directory << "/access.log;\n"
    << "  client_body_temp_path " << directory << "/client_body;\n"
    << "  proxy_temp_path " << directory << "/proxy;\n"
    << "  fastcgi_temp_path " << directory << "/fastcgi;\n"
    << "  uwsgi_temp_path " << directory << "/uwsgi;\n"
    << "  scgi_temp_path " << directory << "/scgi;\n"
    << http_block << "}\n";
  return c.str();
}

// The reverse proxy of interface.md 13.1, as
// docs/guide/proxies-tls-gateways.md shows it.
std::string proxy_site(unsigned short port, unsigned short upstream_port) {
  std::ostringstream c;
  c << "  server {\n"
    << "    listen 127.0.0.1:" << port << ";\n"
    << "    location / {\n"
    << "      proxy_pass http://127.0.0.1:" << upstream_port << ";\n"
    << "      proxy_http_version 1.1;\n"
    << "      proxy_set_header Connection \"\";\n"
    << "      proxy_set_header Host $host;\n"
    // As docs/guide/proxies-tls-gateways.md says: append the peer to what the client sent,
    // and drop a Forwarded the client may have sent.
    << "      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n"
    << "      proxy_set_header Forwarded \"\";\n"
    << "    }\n"
    << "  }\n";
  return c.str();
}

}  // namespace

NginxProxy::NginxProxy(unsigned short upstream_port)
    : NginxProxy(NginxSite{
          [upstream_port](unsigned short port) { return proxy_site(port, upstream_port); }}) {}

NginxProxy::NginxProxy(NginxSite site) : site_(std::move(site)) {
  char pattern[] = "/tmp/authd-nginx-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  directory_ = pattern;
  // A port reserved and released just before nginx binds it can be taken
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
  std::string log = error_log();
  stop();
  std::filesystem::remove_all(directory_);
  throw std::runtime_error("nginx did not start:\n" + log);
}

NginxProxy::~NginxProxy() {
  stop();
  if (std::getenv("AUTHD_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
  }
}

std::string NginxProxy::error_log() const { return nginx_file(directory_ + "/error.log"); }

bool NginxProxy::start_on(unsigned short port) {
  const std::string conf = directory_ + "/nginx.conf";
  {
    std::ofstream out(conf, std::ios::trunc);
    out << nginx_configuration(directory_, site_.http_block(port));
  }
  std::vector<std::string> args = {kNginx, "-p", directory_, "-e", directory_ + "/error.log",
                                   "-c",   conf};
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int out = ::open((directory_ + "/nginx.out").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
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
  // Ready when a request through it gets the site's answer; gone when it
  // could not bind (or failed otherwise).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    try {
      if (send_request(port, "GET", "/healthz").status == site_.ready_status) return true;
    } catch (const std::exception&) {
      // not listening yet
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop();
  return false;
}

void NginxProxy::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);  // fast shutdown: nothing of a test is left in flight
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace authd::test
