// The upstream identity providers of the integration tests (interface.md
// 18): the test doubles of tests/interop/upstream/ under Node, started as
// processes of one test. evil_idp.mjs is an OpenID provider that
// authorizes at once (no page) and signs its ID token correctly, or forges
// it in a chosen mode; github_double.mjs is shaped as GitHub's OAuth apps
// and REST API.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace authd::test {

class UpstreamDouble {
 public:
  // `script`: a file of tests/interop/upstream/; `redirect_uri`: authd's
  // {public_url}/signin/{name}/callback.
  UpstreamDouble(const std::string& script, const std::string& client_id,
                 const std::string& redirect_uri, std::vector<std::string> extra = {});
  ~UpstreamDouble();
  UpstreamDouble(const UpstreamDouble&) = delete;
  UpstreamDouble& operator=(const UpstreamDouble&) = delete;

  unsigned short port() const { return port_; }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  const std::string& secret_file() const { return secret_file_; }
  // A control call (/_test/...) with a JSON body; fails the test unless 200.
  nlohmann::json control(const std::string& method, const std::string& target,
                         const nlohmann::json& body);

 private:
  std::string directory_;
  std::string secret_file_;
  int pid_ = -1;
  unsigned short port_ = 0;
};

// A URL's parts, for following redirects by hand on loopback.
struct SplitUrl {
  std::string origin;  // scheme://host[:port]
  unsigned short port = 0;
  std::string target;  // path?query
};
SplitUrl split_url(const std::string& url);

// The value of the query parameter `name` of a URL or target ("" when none).
std::string query_value(const std::string& url, const std::string& name);

// The value the response sets for cookie `name` (first Set-Cookie of it),
// and the whole Set-Cookie line; "" when none.
std::string set_cookie_value(const HttpResponse& response, const std::string& name);
std::string set_cookie_line(const HttpResponse& response, const std::string& name);

}  // namespace authd::test
