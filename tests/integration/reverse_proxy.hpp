// A real nginx (Debian's) in front of a test's authd, for interface.md 13.1:
// started by the test in a temporary directory of its own (configuration,
// pid, logs and temporary files; nothing under /etc or /var), in the
// foreground (`daemon off`, `master_process off`), on a free loopback port,
// and stopped with it. It forwards everything to authd and appends the
// client's address to X-Forwarded-For, as
// docs/guide/proxies-tls-gateways.md says.
#pragma once

#include <functional>
#include <string>

namespace authd::test {

// What a test nginx serves: the inside of its http block (temporary paths
// are added around it) for a server that listens on 127.0.0.1:`port`.
struct NginxSite {
  std::function<std::string(unsigned short port)> http_block;
  // Ready once GET /healthz through it answers this status.
  int ready_status = 200;
};

class NginxProxy {
 public:
  // Proxies to authd on 127.0.0.1:`upstream_port`; returns once a request
  // through it reaches authd (GET /healthz answers 200).
  explicit NginxProxy(unsigned short upstream_port);
  // Any other site (tests/integration/gateway_test.cpp).
  explicit NginxProxy(NginxSite site);
  ~NginxProxy();
  NginxProxy(const NginxProxy&) = delete;
  NginxProxy& operator=(const NginxProxy&) = delete;

  unsigned short port() const { return port_; }
  std::string error_log() const;

 private:
  bool start_on(unsigned short port);
  void stop();

  NginxSite site_;
  std::string directory_;
  int pid_ = -1;
  unsigned short port_ = 0;
};

}  // namespace authd::test
