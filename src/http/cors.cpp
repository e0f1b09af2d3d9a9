#include "http/cors.hpp"

#include <chrono>

namespace authd {

std::optional<std::string> allowed_origin(const std::vector<std::string>& allowed,
                                          const std::vector<std::string_view>& origins) {
  if (allowed.empty() || origins.size() != 1) return std::nullopt;
  for (const std::string& origin : allowed) {
    // Origins are compared exactly: browsers send them in lower case with
    // the port only when it is not the scheme's default, and the
    // configuration normalises the listed ones to that form (config.cpp).
    if (origin == origins.front()) return origin;
  }
  return std::nullopt;
}

std::optional<ApiResponse> answer_preflight(const CorsRequest& request,
                                            const std::optional<std::string>& origin,
                                            Duration max_age, bool credentials) {
  if (!origin || request.method != "OPTIONS" || !request.asks_method) return std::nullopt;
  std::string_view route;
  std::string methods = methods_of_path(request.path, request.optional_routes, route);
  if (methods.empty()) return std::nullopt;  // unknown path: 404 from the router
  ApiResponse response;
  response.status = 204;
  response.content_type = {};  // no body
  response.route = route;
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(max_age).count();
  response.headers = {
      {"Access-Control-Allow-Origin", *origin},
      {"Access-Control-Allow-Methods", methods},
      {"Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id"},
      {"Access-Control-Max-Age", std::to_string(seconds)},
  };
  if (credentials) response.headers.emplace_back("Access-Control-Allow-Credentials", "true");
  return response;
}

void add_cors_headers(ApiResponse& response, bool cors_enabled,
                      const std::optional<std::string>& origin, bool preflight, bool credentials) {
  if (!cors_enabled) return;
  response.headers.emplace_back("Vary", "Origin");
  if (!origin || preflight) return;
  response.headers.emplace_back("Access-Control-Allow-Origin", *origin);
  // The token (Authorization), the request id, and what a page needs to
  // react to a 401 (WWW-Authenticate) or to a 429/503 (Retry-After).
  response.headers.emplace_back("Access-Control-Expose-Headers", kCorsExposedHeaders);
  if (credentials) response.headers.emplace_back("Access-Control-Allow-Credentials", "true");
}

}  // namespace authd
