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
      } else if (status == 200 && std::regex_match(line, m, kMediaType)) {
        current->success_media_types.insert(m[1]);
      } else if (line.size() < 8 || line.compare(0, 8, "        ") != 0) {
        if (line.find_first_not_of(' ') != std::string::npos) in_responses = false;
      }
    }
  }
  return operations;
}

inline OpenApiOperations read_openapi_paths_from_text(const std::string& text) {
  std::istringstream in(text);
  return read_openapi_paths(in);
}

inline std::string openapi_document_path() {
  return test::source_path("docs/reference/openapi.yaml");
}

// The operations of docs/reference/openapi.yaml; fails the running test when the file
// cannot be read.
inline OpenApiOperations documented_operations() {
  std::ifstream in(openapi_document_path());
  EXPECT_TRUE(in.good()) << "cannot open " << openapi_document_path();
  return read_openapi_paths(in);
}

}  // namespace authd::test
