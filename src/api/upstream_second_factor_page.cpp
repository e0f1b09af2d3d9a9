// The pages of an upstream sign-in's end (interface.md 18.2.5, 18.2.6):
// GET /signin/upstream/second-factor and its script, where the browser
// whose flow waits for the account's second factor types a code or uses
// its passkey (src/web/second_factor.html, second_factor.js, with the
// sign-in page's style sheet and common.js), and GET /signed-in, where a
// flow with nowhere to go back to ends (src/web/signed_in.html). The
// headers are those of the other pages (api/pages.cpp): a CSP without
// 'unsafe-inline' that forbids framing and plain form submission.
#include <kainjow/mustache.hpp>

#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "api/page_response.hpp"
#include "api/upstream_pages.hpp"
#include "core/wipe.hpp"
#include "upstream/second_factor.hpp"
#include "web/assets.hpp"

namespace authd {
namespace {

// second_factor.html with the factors the account has: which parts the
// page shows (Mustache: nothing but two booleans goes in). The analyzer
// follows kainjow's constructors into a virtual call it cannot resolve;
// mustache.hpp calls it on a fully built object.
// NOLINTBEGIN(clang-analyzer-optin.cplusplus.VirtualCall)
std::optional<std::string> rendered(const AwaitedFactors& factors) {
  std::optional<std::string_view> source = web::asset("second_factor.html");
  if (!source) return std::nullopt;
  kainjow::mustache::mustache page{std::string(*source)};
  kainjow::mustache::data data;
  data.set("totp", factors.totp ? kainjow::mustache::data::type::bool_true
                                : kainjow::mustache::data::type::bool_false);
  data.set("passkey", factors.passkey ? kainjow::mustache::data::type::bool_true
                                      : kainjow::mustache::data::type::bool_false);
  std::string out = page.render(data);
  if (!page.is_valid()) return std::nullopt;
  return out;
}
// NOLINTEND(clang-analyzer-optin.cplusplus.VirtualCall)

}  // namespace

boost::asio::awaitable<ApiResponse> handle_upstream_second_factor_page(ApiContext& ctx,
                                                                       ApiRequest& request) {
  std::optional<std::string> binder = binder_of(request);
  WipeOnExit wipe_binder(binder);
  AwaitedFactors factors = co_await awaited_factors(ctx.auth, binder);
  if (factors.kind == AwaitedFactors::Kind::unavailable) co_return unavailable_page();
  if (factors.kind == AwaitedFactors::Kind::no_flow)
    co_return error_page(400,
                         "This sign-in has expired or was already used. Go back and sign "
                         "in again.");
  std::optional<std::string> body = rendered(factors);
  if (!body) co_return error_response(500);  // embedded and rendered by the tests
  ApiResponse response = page_response("second_factor.html");
  response.body = std::move(*body);
  co_return response;
}

boost::asio::awaitable<ApiResponse> handle_upstream_second_factor_script(ApiContext& /*ctx*/,
                                                                         ApiRequest& /*request*/) {
  co_return asset_response("second_factor.js", "text/javascript; charset=utf-8");
}

boost::asio::awaitable<ApiResponse> handle_signed_in_page(ApiContext& /*ctx*/,
                                                          ApiRequest& /*request*/) {
  co_return page_response("signed_in.html");
}

}  // namespace authd
