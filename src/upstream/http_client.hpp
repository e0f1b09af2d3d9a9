// The upstream layer's HTTP client (interface.md 18.2): libcurl, blocking,
// with a time-out on every call and a bound on the answer's size. Called
// only on the upstream pool's threads (upstream/registry.hpp), never on a
// connection thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/duration.hpp"

namespace authd {

struct UpstreamHttpAnswer {
  long status = 0;    // 0: no answer (error says why)
  std::string body;   // at most kMaxUpstreamAnswer bytes
  std::string error;  // libcurl's generic reason, never its buffer (it may quote the URL)
  bool ok() const { return status >= 200 && status < 300; }
};

inline constexpr std::size_t kMaxUpstreamAnswer = 1 << 20;

struct UpstreamHttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string form;                  // a POST's body (form-encoded); GET when `post` is false
  bool post = false;
  Duration timeout = std::chrono::seconds(10);
};

// Never follows redirects; only http and https.
UpstreamHttpAnswer upstream_http(const UpstreamHttpRequest& request);

// RFC 6749 2.3.1 / appendix B: application/x-www-form-urlencoded.
std::string form_component(std::string_view text);

}  // namespace authd
