// GET and POST /oauth2/logout, POST /oauth2/logout/confirm (interface.md
// 17.13, OpenID Connect RP-Initiated Logout 1.0): the browser's way out of
// its authd session at an application's request. Each answer is a redirect
// to the application's registered post_logout_redirect_uri, or a page of
// authd's own (the confirmation, "You are signed out", an error); the
// decisions are auth/oidc/rp_logout.cpp's.
#include <array>

#include "api/credentials.hpp"
#include "api/form_body.hpp"
#include "api/handlers.hpp"
#include "api/oauth_pages.hpp"
#include "auth/oidc/rp_logout.hpp"

namespace authd {
namespace {

constexpr std::string_view kConfirmPath = "/oauth2/logout/confirm";

// The parameters this endpoint reads; logout_hint and ui_locales are
// accepted and not used (17.13).
constexpr std::array<std::string_view, 6> kParameterNames = {
    "id_token_hint", "client_id", "post_logout_redirect_uri", "state", "logout_hint", "ui_locales"};

// Nothing when a parameter is sent twice. An empty value is no value.
std::optional<LogoutParameters> logout_parameters(const FormParameters& form) {
  for (std::string_view name : kParameterNames)
    if (form.is_repeated(name)) return std::nullopt;
  auto value = [&](std::string_view name) -> std::optional<std::string> {
    const std::string* found = form.find(name);
    if (found == nullptr || found->empty()) return std::nullopt;
    return *found;
  };
  return LogoutParameters{value("id_token_hint"), value("client_id"),
                          value("post_logout_redirect_uri"), value("state")};
}

std::vector<std::pair<std::string, std::string>> posted_back(const LogoutParameters& parameters) {
  std::vector<std::pair<std::string, std::string>> fields;
  auto add = [&](const char* name, const std::optional<std::string>& value) {
    if (value) fields.emplace_back(name, *value);
  };
  add("id_token_hint", parameters.id_token_hint);
  add("client_id", parameters.client_id);
  add("post_logout_redirect_uri", parameters.post_logout_redirect_uri);
  add("state", parameters.state);
  return fields;
}

ApiResponse redirect(int status, std::string location) {
  ApiResponse response;
  response.status = status;
  response.content_type = {};
  response.headers.emplace_back("Location", std::move(location));
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  return response;
}

// 13.5: the cookie goes with the session (as POST /logout clears it).
ApiResponse clearing_cookie(const ApiRequest& request, ApiResponse response) {
  if (request.session_cookie != nullptr && !request.session_cookies.empty())
    response.headers.emplace_back("Set-Cookie", clearing_cookie_header(*request.session_cookie));
  return response;
}

ApiResponse step_response(const ApiRequest& request, const LogoutStep& step,
                          const LogoutParameters& parameters, std::string_view page_path) {
  switch (step.kind) {
    case LogoutStep::Kind::error_page:
      return logout_error_page(step.status, step.message, page_path);
    case LogoutStep::Kind::confirm:
      return logout_page({.client_name = step.client_name,
                          .form_token = step.form_token,
                          .fields = posted_back(parameters),
                          .redirect_uri = step.redirect_uri,
                          .page_path = std::string(page_path)});
    case LogoutStep::Kind::signed_out:
      // A form's answer is a 303: the browser follows it with GET.
      if (step.redirect)
        return clearing_cookie(request,
                               redirect(request.method == "POST" ? 303 : 302, *step.redirect));
      return clearing_cookie(request, signed_out_page(step.client_name, page_path));
    case LogoutStep::Kind::unavailable:
      break;
  }
  ApiResponse response =
      logout_error_page(503, "authd is briefly unavailable. Try again in a moment.", page_path);
  response.headers.emplace_back("Retry-After", "1");
  return response;
}

// A POST from the application's page does not carry the SameSite=Lax
// cookie (13.5): the same request as a GET, which does, so that the
// browser's session is seen.
ApiResponse as_get(const ApiContext& ctx, const FormParameters& form) {
  std::string location = ctx.auth.policy.oidc.issuer + "/oauth2/logout";
  char separator = '?';
  for (std::string_view name : kParameterNames) {
    const std::string* value = form.find(name);
    if (value == nullptr) continue;
    location += separator;
    location += std::string(name) + "=" + form_encode(*value);
    separator = '&';
  }
  return redirect(303, std::move(location));
}

ApiResponse malformed() {
  return logout_error_page(400, "The application's sign-out request is malformed.");
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_oauth_logout(ApiContext& ctx, ApiRequest& request) {
  bool post = request.method == "POST";
  if (post && !is_form_content_type(request.content_types)) co_return malformed();
  std::optional<FormParameters> form = parse_form(post ? request.body : request.query);
  if (!form) co_return malformed();
  std::optional<LogoutParameters> parameters = logout_parameters(*form);
  if (!parameters) co_return malformed();
  if (post && request.session_cookie != nullptr && request.session_cookies.empty())
    co_return as_get(ctx, *form);
  // Named, not temporaries of the co_await (architecture-threads.md, the
  // GCC 12 coroutine rule).
  const std::optional<std::string> cookie = single_session_cookie(request);
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  LogoutStep step = co_await request_logout(ctx.auth, *parameters, cookie, source);
  co_return step_response(request, step, *parameters, "/oauth2/logout");
}

// 17.13: the answer to the confirmation page. A form of another origin
// must not be able to sign the user out: the Origin must be authd's own
// (or an allowed CORS origin, 13.5), and the form token the one made for
// this browser's session.
boost::asio::awaitable<ApiResponse> handle_oauth_logout_confirm(ApiContext& ctx,
                                                                ApiRequest& request) {
  if (!request.trusted_origin)
    co_return logout_error_page(
        403, "This answer did not come from authd's sign-out page. You have not been signed out.",
        kConfirmPath);
  std::optional<FormParameters> form;
  if (is_form_content_type(request.content_types)) form = parse_form(request.body);
  std::optional<LogoutParameters> parameters;
  if (form && !form->is_repeated("token")) parameters = logout_parameters(*form);
  if (!parameters)
    co_return logout_error_page(400, "This sign-out answer is malformed.", kConfirmPath);
  const std::string* found = form->find("token");
  const std::string token = found != nullptr ? *found : std::string();
  const std::optional<std::string> cookie = single_session_cookie(request);
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  LogoutStep step = co_await confirm_logout(ctx.auth, *parameters, token, cookie, source);
  co_return step_response(request, step, *parameters, kConfirmPath);
}

}  // namespace authd
