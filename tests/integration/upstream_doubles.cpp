#include "upstream_doubles.hpp"
#include "node_server.hpp"
#include "source_paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

namespace authd::test {
namespace {

int decode_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string form_decode(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && decode_hex(text[i + 1]) >= 0 &&
               decode_hex(text[i + 2]) >= 0) {
      out += static_cast<char>(decode_hex(text[i + 1]) * 16 + decode_hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

UpstreamDouble::UpstreamDouble(const std::string& script, const std::string& client_id,
                               const std::string& redirect_uri, std::vector<std::string> extra) {
  char pattern[] = "/tmp/authd-upstream-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  directory_ = pattern;
  secret_file_ = directory_ + "/client.secret";
  std::ofstream(secret_file_) << "s3cret-" << std::to_string(::getpid()) << "-of-" << client_id
                              << "\n";
  std::string port_file = directory_ + "/port";
  std::vector<std::string> args = {
      "/usr/bin/node",        source_path("tests/interop/upstream/" + script),
      "--port-file",          port_file,
      "--client-id",          client_id,
      "--client-secret-file", secret_file_,
      "--redirect-uri",       redirect_uri};
  args.insert(args.end(), extra.begin(), extra.end());
  NodeServer server = start_node_server(args, directory_ + "/double.log", port_file, script);
  pid_ = server.pid;
  port_ = server.port;
}

UpstreamDouble::~UpstreamDouble() {
  stop_node_server({pid_, port_});
  if (std::getenv("AUTHD_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

nlohmann::json UpstreamDouble::control(const std::string& method, const std::string& target,
                                       const nlohmann::json& body) {
  HttpResponse response =
      send_request(port_, method, target, {{"Content-Type", "application/json"}}, body.dump());
  EXPECT_EQ(response.status, 200) << method << " " << target << ": " << response.body;
  return response.status == 200 ? response.json() : nlohmann::json();
}

SplitUrl split_url(const std::string& url) {
  SplitUrl split;
  auto scheme = url.find("://");
  if (scheme == std::string::npos) {
    split.target = url;
    return split;
  }
  auto path = url.find('/', scheme + 3);
  split.origin = url.substr(0, path);
  split.target = path == std::string::npos ? "/" : url.substr(path);
  std::string authority = url.substr(scheme + 3, path - scheme - 3);
  auto colon = authority.rfind(':');
  if (colon != std::string::npos)
    split.port = static_cast<unsigned short>(std::stoi(authority.substr(colon + 1)));
  return split;
}

std::string query_value(const std::string& url, const std::string& name) {
  auto question = url.find('?');
  if (question == std::string::npos) return "";
  std::istringstream pairs(url.substr(question + 1));
  std::string pair;
  while (std::getline(pairs, pair, '&')) {
    auto equals = pair.find('=');
    if (pair.substr(0, equals) == name)
      return equals == std::string::npos ? "" : form_decode(pair.substr(equals + 1));
  }
  return "";
}

std::string set_cookie_line(const HttpResponse& response, const std::string& name) {
  auto [begin, end] = response.headers.equal_range("set-cookie");
  for (auto it = begin; it != end; ++it) {
    if (it->second.rfind(name + "=", 0) == 0) return it->second;
  }
  return "";
}

std::string set_cookie_value(const HttpResponse& response, const std::string& name) {
  std::string line = set_cookie_line(response, name);
  if (line.empty()) return "";
  line = line.substr(name.size() + 1);
  return line.substr(0, line.find(';'));
}

}  // namespace authd::test
