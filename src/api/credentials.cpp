#include "api/credentials.hpp"

#include "api/errors.hpp"

namespace authd {
namespace {

ApiResponse unauthorized(std::string challenge) {
  ApiResponse response = error_response(401);
  response.headers.emplace_back("WWW-Authenticate", std::move(challenge));
  return response;
}

}  // namespace

std::optional<ApiResponse> credentials_problem(const BearerCredentials& credentials) {
  switch (credentials.kind) {
    case BearerCredentials::Kind::token:
      return std::nullopt;
    case BearerCredentials::Kind::missing:
      return unauthorized(R"(Bearer realm="authd")");
    case BearerCredentials::Kind::malformed: {
      ApiResponse response = bad_request("authorization: malformed bearer credentials");
      response.headers.emplace_back("WWW-Authenticate", R"(Bearer error="invalid_request")");
      return response;
    }
  }
  return std::nullopt;
}

ApiResponse invalid_token() { return unauthorized(R"(Bearer error="invalid_token")"); }

}  // namespace authd
