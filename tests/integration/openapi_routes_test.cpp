// The black-box half of keeping docs/reference/openapi.yaml true: the real binary,
// asked each documented operation, answers with a status the document lists
// for it (and never 404 or 405), and a known path asked with another method
// answers 405 with an Allow header naming exactly the documented methods.
// The server runs with sign-up open, sign-in by mail and the OpenID provider
// on, so that every documented route exists (the sign-up routes are
// documented as served only with --signup open, those of interface.md 19
// only with --email-signin on, those of 17 only with --oidc on, those of
// 18.2 only with an [[upstream]] provider: one of the oauth2 kind, which
// needs no discovery, named "corp" in the paths asked).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "../unit/openapi_reader.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

std::string join(const std::set<int>& statuses) {
  std::ostringstream out;
  for (int s : statuses) out << s << ' ';
  return out.str();
}

std::set<std::string> split_allow(const std::string& allow) {
  std::set<std::string> methods;
  std::istringstream in(allow);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto first = item.find_first_not_of(' ');
    auto last = item.find_last_not_of(' ');
    if (first != std::string::npos) methods.insert(item.substr(first, last - first + 1));
  }
  return methods;
}

std::vector<std::string> with_optional_routes() {
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string secret = dir + "/authd-openapi-corp-" + std::to_string(::getpid()) + ".secret";
  std::string config = dir + "/authd-openapi-" + std::to_string(::getpid()) + ".toml";
  std::ofstream(secret) << "not-a-real-secret\n";
  std::ofstream(config) << "[[upstream]]\nname = \"corp\"\nkind = \"oauth2\"\nlabel = \"Corp\"\n"
                           "client-id = \"authd\"\nclient-secret-file = \""
                        << secret
                        << "\"\nauthorization-endpoint = \"https://idp.example/authorize\"\n"
                           "token-endpoint = \"https://idp.example/token\"\n"
                           "userinfo-endpoint = \"https://idp.example/user\"\n";
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--signup", "open", "--email-signin", "on", "--oidc", "on",
                           "--public-url", "https://authd.test", "--config", config});
  return args;
}

// The path asked for a documented one: the upstream provider's {name} is
// the configured "corp".
std::string asked_path(std::string path) {
  for (std::size_t at; (at = path.find("{name}")) != std::string::npos;)
    path.replace(at, 6, "corp");
  return path;
}

// The media types the document gives the operation's answer of `status`:
// inline, or those of the shared response it refers to; empty when it gives
// none (then JSON is expected of an answer with a body).
std::set<std::string> documented_media_types(const OpenApiOperation& operation, int status,
                                             const SharedResponseMediaTypes& shared) {
  auto inline_types = operation.media_types.find(status);
  if (inline_types != operation.media_types.end() && !inline_types->second.empty())
    return inline_types->second;
  auto ref = operation.response_refs.find(status);
  if (ref == operation.response_refs.end()) return {};
  auto types = shared.find(ref->second);
  return types == shared.end() ? std::set<std::string>{} : types->second;
}

// A request without credentials and with an empty JSON object as body gets
// one of the statuses the document lists for the operation.
TEST(OpenApiRoutes, EveryDocumentedOperationAnswersADocumentedStatus) {
  OpenApiOperations documented = documented_operations();
  SharedResponseMediaTypes shared = documented_shared_responses();
  ASSERT_FALSE(documented.empty());
  AuthdProcess authd(with_optional_routes());
  for (const auto& [route, operation] : documented) {
    unsigned short port = operation.on_management_listener ? authd.admin_port() : authd.port();
    HttpResponse res = send_request(port, operation.method, asked_path(operation.path),
                                    {{"Content-Type", "application/json"}}, "{}");
    EXPECT_NE(res.status, 404) << route << " is documented but not served";
    EXPECT_NE(res.status, 405) << route << " is documented but not served";
    EXPECT_EQ(operation.statuses.count(res.status), 1u)
        << route << " answered " << res.status
        << ", which docs/reference/openapi.yaml does not list (" << join(operation.statuses) << ")";
    // JSON, except where the document gives the answer another media type
    // (the pages, their scripts and style sheet, the provider's own error
    // pages); no Content-Type on an answer without a body (a redirect, a
    // bare Bearer challenge).
    std::string media_type =
        res.header("content-type").substr(0, res.header("content-type").find(';'));
    std::set<std::string> types = documented_media_types(operation, res.status, shared);
    if (res.body.empty() && res.status != 200) {
      EXPECT_EQ(res.header("content-type"), "") << route << " answered " << res.status;
    } else if (!types.empty()) {
      EXPECT_EQ(types.count(media_type), 1u) << route << " answered " << res.status
                                             << " with Content-Type " << res.header("content-type");
    } else {
      EXPECT_EQ(res.header("content-type"), "application/json") << route;
    }
    // interface.md 17.2, 17.12: the discovery documents and the key set may
    // be cached; every other answer is no-store.
    EXPECT_EQ(res.header("cache-control"),
              res.status == 200 && operation.public_cache ? "public, max-age=300" : "no-store")
        << route;
    EXPECT_FALSE(res.header("x-request-id").empty()) << route;
  }
}

// interface.md 1.4: a known path with another method gets 405 and Allow;
// Allow must name exactly the methods the document gives that path.
TEST(OpenApiRoutes, AllowHeaderMatchesDocumentedMethods) {
  std::map<std::string, std::set<std::string>> methods_by_path;
  std::set<std::string> management_paths;
  for (const auto& [route, operation] : documented_operations()) {
    methods_by_path[operation.path].insert(operation.method);
    if (operation.on_management_listener) management_paths.insert(operation.path);
  }
  ASSERT_FALSE(methods_by_path.empty());
  AuthdProcess authd(with_optional_routes());
  for (const auto& [path, methods] : methods_by_path) {
    std::string other = methods.count("PUT") ? "DELETE" : "PUT";
    unsigned short port = management_paths.count(path) ? authd.admin_port() : authd.port();
    HttpResponse res = send_request(port, other, path);
    EXPECT_EQ(res.status, 405) << other << " " << path;
    EXPECT_EQ(split_allow(res.header("allow")), methods)
        << path << ": Allow is \"" << res.header("allow") << "\"";
  }
}

}  // namespace
}  // namespace authd::test
