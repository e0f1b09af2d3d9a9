// A small line-based reader for the `paths:` section of docs/reference/openapi.yaml
// (no YAML library is available). It relies on the document's layout, which
// the tests that use it check as a side effect: a path is a line
// `  /name:` (two spaces), an operation a line `    post:` (four spaces),
// a response a line `        '200':` (eight spaces) under `      responses:`.
// Shared by tests/unit/openapi_test.cpp and
// tests/integration/openapi_routes_test.cpp.
#pragma once

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "source_paths.hpp"

namespace authd::test {

struct OpenApiOperation {
  std::string method;      // upper case, e.g. "POST"
  std::string path;        // e.g. "/login"
  std::set<int> statuses;  // documented response statuses
  // Media types given inline for the 200 response (`            text/html:`);
  // empty when it only uses $ref.
  std::set<std::string> success_media_types;
  // Per status: the media types given inline, and the shared response it
  // refers to instead (`$ref: '#/components/responses/NAME'`: NAME).
  std::map<int, std::set<std::string>> media_types;
  std::map<int, std::string> response_refs;
  // The 200 says `Cache-Control: public, max-age=300` (interface.md 17.2,
  // 17.12: `$ref: '#/components/headers/Cache-Control-Public'`) instead of
  // the usual no-store.
  bool public_cache = false;
  // `      x-authd-listener: management` puts it on the management listener
  // (interface.md 10.1); otherwise it is the public listener's.
  bool on_management_listener = false;
  int line = 0;  // where the operation starts, for messages
};

// Operations keyed by "METHOD /path", the form of authd::route_list().
using OpenApiOperations = std::map<std::string, OpenApiOperation>;

inline OpenApiOperations read_openapi_paths(std::istream& in) {
  static const std::regex kPath(R"(^  (/[A-Za-z0-9_./{}-]*):\s*$)");
  static const std::regex kOperation(R"(^    (get|put|post|delete|options|head|patch|trace):\s*$)");
  static const std::regex kResponses(R"(^      responses:\s*$)");
  static const std::regex kStatus(R"(^        '?([1-5][0-9][0-9])'?:.*$)");
  static const std::regex kTopLevel(R"(^[^\s#].*$)");
  static const std::regex kMediaType(R"(^            ([a-z]+/[A-Za-z0-9.+-]+):\s*$)");
  static const std::regex kListener(R"(^      x-authd-listener:\s*(public|management)\s*$)");
  static const std::regex kResponseRef(
      R"(^          \$ref: '#/components/responses/([A-Za-z0-9-]+)'\s*$)");
  static const std::regex kPublicCache(
      R"(^\s+\$ref: '#/components/headers/Cache-Control-Public'\s*$)");

  OpenApiOperations operations;
  bool in_paths = false;
  bool in_responses = false;
  std::string path;
  OpenApiOperation* current = nullptr;
  int status = 0;  // the response being read
  std::string line;
  int number = 0;
  std::smatch m;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_match(line, kTopLevel)) {
      in_paths = line == "paths:";
      current = nullptr;
      path.clear();
      continue;
    }
    if (!in_paths) continue;
    if (std::regex_match(line, m, kPath)) {
      path = m[1];
      current = nullptr;
    } else if (std::regex_match(line, m, kOperation) && !path.empty()) {
      std::string method = m[1];
      std::transform(method.begin(), method.end(), method.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      OpenApiOperation& op = operations[method + " " + path];
      op.method = method;
      op.path = path;
      op.line = number;
      current = &op;
      in_responses = false;
      status = 0;
    } else if (current != nullptr && std::regex_match(line, kResponses)) {
      in_responses = true;
    } else if (current != nullptr && std::regex_match(line, m, kListener)) {
      current->on_management_listener = m[1] == "management";
      in_responses = false;
    } else if (current != nullptr && in_responses) {
      if (std::regex_match(line, m, kStatus)) {
        status = std::stoi(m[1]);
        current->statuses.insert(status);
      } else if (std::regex_match(line, m, kMediaType)) {
        current->media_types[status].insert(m[1]);
        if (status == 200) current->success_media_types.insert(m[1]);
      } else if (std::regex_match(line, m, kResponseRef)) {
        current->response_refs[status] = m[1];
      } else if (status == 200 && std::regex_match(line, kPublicCache)) {
        current->public_cache = true;
      } else if (line.size() < 8 || line.compare(0, 8, "        ") != 0) {
        if (line.find_first_not_of(' ') != std::string::npos) in_responses = false;
      }
    }
  }
  return operations;
}

// The media types of each shared response under `components: responses:`
// (`    NAME:` at four spaces, `        application/json:` at eight): what
// an operation's `$ref` to it answers with. Empty for one without content
// (a redirect).
using SharedResponseMediaTypes = std::map<std::string, std::set<std::string>>;

inline SharedResponseMediaTypes read_shared_response_media_types(std::istream& in) {
  static const std::regex kTopLevel(R"(^[^\s#].*$)");
  static const std::regex kSection(R"(^  ([A-Za-z]+):\s*$)");
  static const std::regex kName(R"(^    ([A-Za-z0-9-]+):\s*$)");
  static const std::regex kMediaType(R"(^        ([a-z]+/[A-Za-z0-9.+-]+):\s*$)");
  SharedResponseMediaTypes shared;
  bool in_components = false;
  bool in_responses = false;
  std::string name;
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_match(line, kTopLevel)) {
      in_components = line == "components:";
      in_responses = false;
      continue;
    }
    if (!in_components) continue;
    if (std::regex_match(line, m, kSection)) {
      in_responses = m[1] == "responses";
      name.clear();
    } else if (in_responses && std::regex_match(line, m, kName)) {
      name = m[1];
      shared[name];
    } else if (in_responses && !name.empty() && std::regex_match(line, m, kMediaType)) {
      shared[name].insert(m[1]);
    }
  }
  return shared;
}

inline OpenApiOperations read_openapi_paths_from_text(const std::string& text) {
  std::istringstream in(text);
  return read_openapi_paths(in);
}

inline std::string openapi_document_path() {
  return test::source_path("docs/reference/openapi.yaml");
}

inline SharedResponseMediaTypes documented_shared_responses() {
  std::ifstream in(openapi_document_path());
  EXPECT_TRUE(in.good()) << "cannot open " << openapi_document_path();
  return read_shared_response_media_types(in);
}

// The operations of docs/reference/openapi.yaml; fails the running test when the file
// cannot be read.
inline OpenApiOperations documented_operations() {
  std::ifstream in(openapi_document_path());
  EXPECT_TRUE(in.good()) << "cannot open " << openapi_document_path();
  return read_openapi_paths(in);
}

}  // namespace authd::test
