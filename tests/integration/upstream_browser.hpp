// What the upstream sign-in tests share (interface.md 18): authd's public
// URL, the providers' tables, and a browser played by hand: its cookies at
// authd, and the redirects through the test doubles followed one by one.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "oidc_support.hpp"
#include "upstream_doubles.hpp"

namespace authd::test {

// authd's public URL: loopback http:// (18.1 allows it there), never
// connected to: the tests send what a browser would to authd's port.
inline const std::string kPublic = kIssuer;
inline const std::string kEvilCallback = kPublic + "/signin/evil/callback";
inline const std::string kGithubCallback = kPublic + "/signin/github/callback";

inline std::string write_upstream_conf_file(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() /
             ("authd-upstream-conf-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

inline std::string evil_table(const UpstreamDouble& idp, bool signup) {
  return "[[upstream]]\nname = \"evil\"\nkind = \"oidc\"\nissuer = \"" + idp.base() +
         "\"\nclient-id = \"authd-evil\"\nclient-secret-file = \"" + idp.secret_file() +
         "\"\nlabel = \"Company account\"\nsignup = " + (signup ? "true" : "false") + "\n";
}

inline std::string github_table(const UpstreamDouble& gh) {
  return "[[upstream]]\nname = \"github\"\nkind = \"oauth2\"\nclient-id = \"authd-github\"\n"
         "client-secret-file = \"" +
         gh.secret_file() + "\"\nlabel = \"GitHub\"\nsignup = true\nscopes = [\"read:user\", " +
         "\"user:email\"]\nauthorization-endpoint = \"" + gh.base() +
         "/login/oauth/authorize\"\ntoken-endpoint = \"" + gh.base() +
         "/login/oauth/access_token\"\nuserinfo-endpoint = \"" + gh.base() +
         "/user\"\nemails-endpoint = \"" + gh.base() + "/user/emails\"\n";
}

inline std::vector<std::string> upstream_args(const std::string& tables,
                                              std::vector<std::string> more = {}) {
  static int counter = 0;
  std::string config =
      write_upstream_conf_file("authd-" + std::to_string(++counter) + ".toml", tables);
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--public-url", kPublic, "--config", config});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// One browser: its cookies at authd.
struct Browser {
  std::map<std::string, std::string> cookies;

  Headers headers() const {
    std::string line;
    for (const auto& [name, value] : cookies) {
      if (value.empty()) continue;
      line += (line.empty() ? "" : "; ") + name + "=" + value;
    }
    return line.empty() ? Headers{} : Headers{{"Cookie", line}};
  }
  void keep(const HttpResponse& response) {
    auto [begin, end] = response.headers.equal_range("set-cookie");
    for (auto it = begin; it != end; ++it) {
      std::string pair = it->second.substr(0, it->second.find(';'));
      auto equals = pair.find('=');
      cookies[pair.substr(0, equals)] = pair.substr(equals + 1);
    }
  }
  HttpResponse get(const AuthdProcess& authd, const std::string& target) {
    HttpResponse response = send_request(authd.port(), "GET", target, headers());
    keep(response);
    return response;
  }
};

// The evil IdP authorizes at once: its redirect back to authd's callback,
// as the target (path?query) the browser then asks authd for.
inline std::string through_idp(const std::string& authorization_url) {
  SplitUrl at = split_url(authorization_url);
  HttpResponse answer = send_request(at.port, "GET", at.target);
  EXPECT_EQ(answer.status, 303) << answer.body;
  SplitUrl back = split_url(answer.header("Location"));
  EXPECT_EQ(back.origin, kPublic);
  return back.target;
}

// The GitHub double's page, answered as `login`.
inline std::string through_github(const std::string& authorization_url, const std::string& login) {
  SplitUrl at = split_url(authorization_url);
  std::string query = at.target.substr(at.target.find('?') + 1);
  HttpResponse answer = send_request(at.port, "POST", "/login/oauth/authorize",
                                     {{"Content-Type", "application/x-www-form-urlencoded"}},
                                     query + "&login=" + login);
  EXPECT_EQ(answer.status, 302) << answer.body;
  return split_url(answer.header("Location")).target;
}

// GET /signin/{name}[query] then the upstream: the callback's target.
inline std::string start_at(Browser& browser, const AuthdProcess& authd, const std::string& start) {
  HttpResponse started = browser.get(authd, start);
  EXPECT_EQ(started.status, 302) << started.body;
  return started.header("Location");
}

inline nlohmann::json me(const AuthdProcess& authd, const Browser& browser) {
  HttpResponse response = send_request(authd.port(), "GET", "/me", browser.headers());
  EXPECT_EQ(response.status, 200) << response.body;
  return response.status == 200 ? response.json() : nlohmann::json();
}

inline std::string events_of(const AuthdProcess& authd, const std::string& type) {
  return authd.sql("SELECT detail FROM events WHERE type = '" + type + "' ORDER BY seq");
}

}  // namespace authd::test
