// A real HAProxy (Debian's) in front of a test's authd, for interface.md
// 13.2: TCP mode, sending the PROXY protocol header (`send-proxy` for
// version 1, `send-proxy-v2` for version 2) on each connection to authd.
// Started by the test in a temporary directory of its own, in the
// foreground (-db), on a free loopback port, and stopped with it.
#pragma once

#include <string>

namespace authd::test {

class HaProxy {
 public:
  // `send_proxy`: "send-proxy" or "send-proxy-v2". Returns once a request
  // through it reaches authd (GET /healthz answers 200, over HTTPS when
  // `upstream_tls`: HAProxy then passes TLS through untouched, interface.md
  // 13.3 behind 13.2).
  HaProxy(unsigned short upstream_port, const std::string& send_proxy, bool upstream_tls = false);
  ~HaProxy();
  HaProxy(const HaProxy&) = delete;
  HaProxy& operator=(const HaProxy&) = delete;

  unsigned short port() const { return port_; }
  std::string output() const;  // what HAProxy printed

 private:
  bool start_on(unsigned short port);
  void stop();

  unsigned short upstream_port_;
  std::string send_proxy_;
  bool upstream_tls_ = false;
  std::string directory_;
  int pid_ = -1;
  unsigned short port_ = 0;
};

}  // namespace authd::test
