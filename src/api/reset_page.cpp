// GET /reset, /reset.js and /reset.css (interface.md 7.3): the page that
// takes the token from the link's fragment and sets a new password through
// POST /reset. Its sources are src/web/*, embedded at build time. The page
// loads nothing but its own script and style sheet (relative URLs, so a
// configured path prefix works), under a Content-Security-Policy without
// 'unsafe-inline' that also forbids framing and plain form submission.
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "web/assets.hpp"

namespace authd {
namespace {

constexpr std::string_view kPageSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'; "
    "require-trusted-types-for 'script'";

ApiResponse asset_response(std::string_view name, ContentType content_type) {
  std::optional<std::string_view> content = web::asset(name);
  if (!content) return error_response(500);  // the build embeds every file: cannot happen
  ApiResponse response;
  response.body = std::string(*content);
  response.content_type = content_type;
  response.headers = {
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"Cross-Origin-Resource-Policy", "same-origin"},
  };
  return response;
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_reset_page(ApiContext& /*ctx*/,
                                                      ApiRequest& /*request*/) {
  ApiResponse response = asset_response("reset.html", "text/html; charset=utf-8");
  response.headers.emplace_back("Content-Security-Policy", kPageSecurityPolicy);
  response.headers.emplace_back("X-Frame-Options", "DENY");
  response.headers.emplace_back("Cross-Origin-Opener-Policy", "same-origin");
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_reset_script(ApiContext& /*ctx*/,
                                                        ApiRequest& /*request*/) {
  co_return asset_response("reset.js", "text/javascript; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_reset_style(ApiContext& /*ctx*/,
                                                       ApiRequest& /*request*/) {
  co_return asset_response("reset.css", "text/css; charset=utf-8");
}

}  // namespace authd
