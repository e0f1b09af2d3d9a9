// docs/reference/openapi.yaml describes the real interface (docs/reference/interface.md): every
// route the server serves is documented, and every documented operation is
// served. The route table is authd::route_list(), the router's own list.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "api/api.hpp"
#include "openapi_reader.hpp"

namespace authd::test {
namespace {

// The reader itself: it must find operations under `paths:` only, and must
// not take a component or a nested key for a path.
TEST(OpenApiReader, FindsOperationsAndStatusesUnderPathsOnly) {
  const std::string text =
      "openapi: 3.0.3\n"
      "paths:\n"
      "  /login:\n"
      "    post:\n"
      "      summary: x\n"
      "      responses:\n"
      "        '200':\n"
      "          description: ok\n"
      "          content:\n"
      "            application/json:\n"
      "              schema: {}\n"
      "        '401':\n"
      "          $ref: '#/components/responses/Unauthorized'\n"
      "      tags: [auth]\n"
      "  /me:\n"
      "    parameters: []\n"
      "    get:\n"
      "      responses:\n"
      "        '200':\n"
      "          description: ok\n"
      "components:\n"
      "  /notapath:\n"
      "    post:\n";
  OpenApiOperations ops = read_openapi_paths_from_text(text);
  ASSERT_EQ(ops.size(), 2u);
  ASSERT_EQ(ops.count("POST /login"), 1u);
  ASSERT_EQ(ops.count("GET /me"), 1u);
  EXPECT_EQ(ops["POST /login"].statuses, (std::set<int>{200, 401}));
  EXPECT_EQ(ops["GET /me"].statuses, (std::set<int>{200}));
  EXPECT_EQ(ops["POST /login"].success_media_types, (std::set<std::string>{"application/json"}));
  EXPECT_TRUE(ops["GET /me"].success_media_types.empty());
}

// Per status, the reader keeps inline media types and the shared response
// referred to, whose media types it reads under components; and it sees the
// public Cache-Control of the discovery documents (interface.md 17.2).
TEST(OpenApiReader, KeepsMediaTypesPerStatusAndSharedResponses) {
  const std::string text =
      "openapi: 3.0.3\n"
      "paths:\n"
      "  /page:\n"
      "    get:\n"
      "      responses:\n"
      "        '200':\n"
      "          description: ok\n"
      "          headers:\n"
      "            Cache-Control:\n"
      "              $ref: '#/components/headers/Cache-Control-Public'\n"
      "          content:\n"
      "            text/html:\n"
      "              schema: {}\n"
      "        '302':\n"
      "          $ref: '#/components/responses/Redirect'\n"
      "        '400':\n"
      "          $ref: '#/components/responses/Page'\n"
      "components:\n"
      "  responses:\n"
      "    Redirect:\n"
      "      description: on\n"
      "    Page:\n"
      "      description: a page\n"
      "      content:\n"
      "        text/html:\n"
      "          schema: {}\n"
      "  schemas:\n"
      "    Other:\n"
      "      content:\n"
      "        application/json:\n";
  OpenApiOperations ops = read_openapi_paths_from_text(text);
  ASSERT_EQ(ops.count("GET /page"), 1u);
  const OpenApiOperation& page = ops["GET /page"];
  EXPECT_EQ(page.media_types.at(200), (std::set<std::string>{"text/html"}));
  EXPECT_EQ(page.response_refs.at(302), "Redirect");
  EXPECT_EQ(page.response_refs.at(400), "Page");
  EXPECT_TRUE(page.public_cache);
  std::istringstream in(text);
  SharedResponseMediaTypes shared = read_shared_response_media_types(in);
  EXPECT_EQ(shared.size(), 2u);
  EXPECT_TRUE(shared.at("Redirect").empty());
  EXPECT_EQ(shared.at("Page"), (std::set<std::string>{"text/html"}));
}

TEST(OpenApi, DocumentIsOpenApi303) {
  std::ifstream in(openapi_document_path());
  std::string first_line;
  std::getline(in, first_line);
  EXPECT_EQ(first_line, "openapi: 3.0.3") << openapi_document_path();
}

TEST(OpenApi, EveryServedRouteIsDocumented) {
  OpenApiOperations documented = documented_operations();
  std::vector<std::string> served = route_list();
  ASSERT_FALSE(served.empty());
  for (const std::string& route : served) {
    EXPECT_EQ(documented.count(route), 1u)
        << "the server serves \"" << route
        << "\" but docs/reference/openapi.yaml does not document it";
  }
}

TEST(OpenApi, EveryDocumentedOperationIsServed) {
  OpenApiOperations documented = documented_operations();
  ASSERT_FALSE(documented.empty())
      << "no operation found under paths: in docs/reference/openapi.yaml";
  std::vector<std::string> list = route_list();
  std::set<std::string> served(list.begin(), list.end());
  for (const auto& [route, operation] : documented) {
    EXPECT_EQ(served.count(route), 1u)
        << "docs/reference/openapi.yaml (line " << operation.line << ") documents \"" << route
        << "\" but the server has no such route";
  }
}

// Each documented operation lists its responses, a success among them
// (200; 201 for POST /verify; 204 for the DELETEs of interface.md 11.3), or,
// for a form that only ever sends the browser on (POST /oauth2/consent,
// interface.md 17.5.4), a 302 and none of those.
TEST(OpenApi, EveryOperationDocumentsItsSuccess) {
  for (const auto& [route, operation] : documented_operations()) {
    const std::size_t successes = operation.statuses.count(200) + operation.statuses.count(201) +
                                  operation.statuses.count(204);
    EXPECT_TRUE(successes == 1u || (successes == 0u && operation.statuses.count(302) == 1u))
        << "\"" << route << "\" (line " << operation.line
        << ") documents no 200, 201 or 204 response (nor a 302 alone)";
  }
}

}  // namespace
}  // namespace authd::test
