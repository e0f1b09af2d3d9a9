#include "api/oauth_errors.hpp"

#include <nlohmann/json.hpp>

namespace authd {
namespace {

void add_no_store(ApiResponse& response) {
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Pragma", "no-cache");
}

// RFC 6749 5.2: error_description is printable ASCII without '"' and
// '\\'. A description may name what a client sent (a parameter's name),
// which need not be even UTF-8: anything else becomes '?'.
std::string ascii_description(std::string_view description) {
  std::string out(description);
  for (char& c : out)
    if (c < ' ' || c > '~' || c == '"' || c == '\\') c = '?';
  return out;
}

}  // namespace

ApiResponse oauth_error(int status, std::string_view code, std::string_view description) {
  ApiResponse response;
  response.status = status;
  nlohmann::json body = {{"error", code}};
  if (!description.empty()) body["error_description"] = ascii_description(description);
  response.body = body.dump();
  add_no_store(response);
  return response;
}

ApiResponse invalid_client(bool basic_used) {
  ApiResponse response = oauth_error(401, "invalid_client", "client authentication failed");
  if (basic_used) response.headers.emplace_back("WWW-Authenticate", "Basic realm=\"authd\"");
  return response;
}

ApiResponse oauth_too_many(std::chrono::seconds retry_after) {
  ApiResponse response =
      oauth_error(429, "invalid_client", "too many failed client authentications");
  response.headers.emplace_back("Retry-After", std::to_string(retry_after.count()));
  return response;
}

ApiResponse oauth_unavailable(std::chrono::seconds retry_after) {
  ApiResponse response =
      oauth_error(503, "temporarily_unavailable", "the service is briefly unavailable");
  response.headers.emplace_back("Retry-After", std::to_string(retry_after.count()));
  return response;
}

ApiResponse bearer_error(int status, std::string_view code) {
  ApiResponse response;
  response.status = status;
  std::string challenge = "Bearer realm=\"authd\"";
  if (!code.empty()) challenge += ", error=\"" + std::string(code) + "\"";
  response.headers.emplace_back("WWW-Authenticate", challenge);
  nlohmann::json body = {{"error", code.empty() ? "invalid_token" : code}};
  response.body = code.empty() ? std::string() : body.dump();
  if (code.empty()) response.content_type = {};
  add_no_store(response);
  return response;
}

ApiResponse no_store_json(std::string body) {
  ApiResponse response;
  response.body = std::move(body);
  add_no_store(response);
  return response;
}

}  // namespace authd
