// GET and POST /oauth2/authorize, GET /oauth2/authorize/resume, GET
// /consent and POST /oauth2/consent (interface.md 17.4, 17.5): the browser's
// way through a sign-in for an application. Each answer is a redirect (to
// the client, to the sign-in page or to the consent page) or a page of
// authd's own.
#include "api/credentials.hpp"
#include "api/form_body.hpp"
#include "api/handlers.hpp"
#include "api/oauth_pages.hpp"
#include "auth/oidc/authorization.hpp"

namespace authd {
namespace {

ApiResponse see_other(std::string location) {
  ApiResponse response;
  response.status = 302;
  response.content_type = {};
  response.headers.emplace_back("Location", std::move(location));
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  return response;
}

std::string client_location(const ClientRedirect& redirect) {
  std::string location = redirect.uri;
  char separator = location.find('?') == std::string::npos ? '?' : '&';
  for (const auto& [name, value] : redirect.parameters) {
    location += separator;
    location += form_encode(name) + "=" + form_encode(value);
    separator = '&';
  }
  return location;
}

ApiResponse step_response(const ApiContext& ctx, const AuthorizationStep& step) {
  const std::string& issuer = ctx.auth.policy.oidc.issuer;
  switch (step.kind) {
    case AuthorizationStep::Kind::error_page: {
      ApiResponse page = oauth_error_page(step.status, step.message);
      if (step.retry_after.count() > 0)
        page.headers.emplace_back("Retry-After", std::to_string(step.retry_after.count()));
      return page;
    }
    case AuthorizationStep::Kind::redirect: {
      ApiResponse response = see_other(client_location(step.redirect));
      response.holds_secret = true;  // the code
      return response;
    }
    case AuthorizationStep::Kind::sign_in: {
      std::string location = issuer + "/signin?request=" + form_encode(step.request_id);
      if (step.login_hint) location += "&login_hint=" + form_encode(*step.login_hint);
      return see_other(std::move(location));
    }
    case AuthorizationStep::Kind::consent:
      return see_other(issuer + "/consent?request=" + form_encode(step.request_id));
    case AuthorizationStep::Kind::unavailable:
      break;
  }
  ApiResponse response =
      oauth_error_page(503, "authd is briefly unavailable. Try again in a moment.");
  response.headers.emplace_back("Retry-After", "1");
  return response;
}

// The `request` parameter of a resumed request, from the query or a form.
std::optional<std::string> request_id_of(const std::optional<FormParameters>& form) {
  if (!form || form->is_repeated("request")) return std::nullopt;
  const std::string* id = form->find("request");
  return id == nullptr ? std::nullopt : std::optional<std::string>(*id);
}

ApiResponse unknown_request() {
  return oauth_error_page(400,
                          "This sign-in request has expired or was already answered. Go back to "
                          "the application and try again.");
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_oauth_authorize(ApiContext& ctx, ApiRequest& request) {
  // POST (Core 3.1.2.1): the same parameters, form-encoded in the body.
  bool post = request.method == "POST";
  if (post && !is_form_content_type(request.content_types))
    co_return oauth_error_page(400, "The application's sign-in request is malformed.");
  std::optional<FormParameters> form = parse_form(post ? request.body : request.query);
  if (!form) co_return oauth_error_page(400, "The application's sign-in request is malformed.");
  AuthorizationStep step =
      co_await authorize(ctx.auth, {form->values, form->repeated}, single_session_cookie(request),
                         event_source(ctx, request, std::string(kActorSelf)));
  co_return step_response(ctx, step);
}

boost::asio::awaitable<ApiResponse> handle_oauth_authorize_resume(ApiContext& ctx,
                                                                  ApiRequest& request) {
  std::optional<std::string> id = request_id_of(parse_form(request.query));
  if (!id) co_return unknown_request();
  AuthorizationStep step =
      co_await resume_authorization(ctx.auth, *id, single_session_cookie(request),
                                    event_source(ctx, request, std::string(kActorSelf)));
  co_return step_response(ctx, step);
}

boost::asio::awaitable<ApiResponse> handle_consent_page(ApiContext& ctx, ApiRequest& request) {
  std::optional<std::string> id = request_id_of(parse_form(request.query));
  if (!id) co_return unknown_request();
  ConsentPrompt prompt = co_await consent_prompt(ctx.auth, *id, single_session_cookie(request));
  if (prompt.step.kind != AuthorizationStep::Kind::consent)
    co_return step_response(ctx, prompt.step);
  co_return consent_page({.request_id = *id,
                          .client_name = prompt.client_name,
                          .scopes = prompt.scopes,
                          .redirect_uri = prompt.redirect_uri});
}

// 17.5: the answer to the consent page. A form of another origin must not
// be able to consent for the user: the Origin must be authd's own (or an
// allowed CORS origin, 13.5), and the cookie is SameSite=Lax besides.
boost::asio::awaitable<ApiResponse> handle_oauth_consent(ApiContext& ctx, ApiRequest& request) {
  if (!request.trusted_origin)
    co_return oauth_error_page(403, "This answer did not come from authd's consent page.");
  std::optional<FormParameters> form;
  if (is_form_content_type(request.content_types)) form = parse_form(request.body);
  std::optional<std::string> id = request_id_of(form);
  const std::string* decision = form ? form->find("decision") : nullptr;
  if (!id || decision == nullptr || (*decision != "allow" && *decision != "deny"))
    co_return unknown_request();
  AuthorizationStep step =
      co_await answer_consent(ctx.auth, *id, *decision == "allow", single_session_cookie(request),
                              event_source(ctx, request, std::string(kActorSelf)));
  co_return step_response(ctx, step);
}

}  // namespace authd
