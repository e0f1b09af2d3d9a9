// The pages that the links in mails open, each taking the token from the
// link's fragment: GET /reset, /reset.js and /reset.css (interface.md 7.3),
// which sets a new password through POST /reset, and GET /verify and
// /verify.js (interface.md 11.5, with the reset page's style sheet), which
// confirms a sign-up through POST /verify, and GET /passkeys and
// /passkeys.js (interface.md 16.8, with the reset page's style sheet),
// where a user signs in and manages passkeys, and GET /signin/email and
// /signin/email.js (interface.md 19.6, with the reset page's style sheet as
// ../reset.css), where a user signs in with a link or a code sent by mail;
// and GET /common.js, what the passkeys page, the sign-in by mail and the
// OpenID sign-in page (api/oauth_pages.cpp) share, loaded before their own
// script. Their sources are src/web/*, embedded at build time. A page loads
// nothing but its scripts and the style sheet (relative URLs, so a configured
// path prefix works), under a Content-Security-Policy without
// 'unsafe-inline' that also forbids framing and plain form submission.
#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "api/page_response.hpp"
#include "web/assets.hpp"

namespace authd {
namespace {

constexpr std::string_view kPageSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'; "
    "require-trusted-types-for 'script'";

}  // namespace

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

ApiResponse page_response(std::string_view name) {
  ApiResponse response = asset_response(name, "text/html; charset=utf-8");
  response.headers.emplace_back("Content-Security-Policy", kPageSecurityPolicy);
  response.headers.emplace_back("X-Frame-Options", "DENY");
  response.headers.emplace_back("Cross-Origin-Opener-Policy", "same-origin");
  return response;
}

boost::asio::awaitable<ApiResponse> handle_reset_page(ApiContext& /*ctx*/,
                                                      ApiRequest& /*request*/) {
  co_return page_response("reset.html");
}

boost::asio::awaitable<ApiResponse> handle_reset_script(ApiContext& /*ctx*/,
                                                        ApiRequest& /*request*/) {
  co_return asset_response("reset.js", "text/javascript; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_reset_style(ApiContext& /*ctx*/,
                                                       ApiRequest& /*request*/) {
  co_return asset_response("reset.css", "text/css; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_verify_page(ApiContext& /*ctx*/,
                                                       ApiRequest& /*request*/) {
  co_return page_response("verify.html");
}

boost::asio::awaitable<ApiResponse> handle_verify_script(ApiContext& /*ctx*/,
                                                         ApiRequest& /*request*/) {
  co_return asset_response("verify.js", "text/javascript; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_passkeys_page(ApiContext& /*ctx*/,
                                                         ApiRequest& /*request*/) {
  co_return page_response("passkeys.html");
}

boost::asio::awaitable<ApiResponse> handle_passkeys_script(ApiContext& /*ctx*/,
                                                           ApiRequest& /*request*/) {
  co_return asset_response("passkeys.js", "text/javascript; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_common_script(ApiContext& /*ctx*/,
                                                         ApiRequest& /*request*/) {
  co_return asset_response("common.js", "text/javascript; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_email_signin_page(ApiContext& /*ctx*/,
                                                             ApiRequest& /*request*/) {
  co_return page_response("email.html");
}

boost::asio::awaitable<ApiResponse> handle_email_signin_script(ApiContext& /*ctx*/,
                                                               ApiRequest& /*request*/) {
  co_return asset_response("email.js", "text/javascript; charset=utf-8");
}

}  // namespace authd
