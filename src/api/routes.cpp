// The route table and the checks every route shares: 404 for an unknown
// path, 405 (with Allow) for a known path and another method, 415 when a
// route that takes JSON gets anything else (interface.md 1.4, 1.6, 1.10).
// Each route belongs to the public listener, the management one, or both
// (interface.md 10.1); on the other listener its path is unknown (404), so
// that the public port says nothing of what the management port serves.
// A path may have one parameter segment (api/path_pattern.hpp); the route's
// pattern, not the path sent, labels the request in logs and metrics.
// The sign-up routes (interface.md 11.4-11.5) exist only with --signup
// open, and those of passwordless sign-in (19) only with --email-signin
// on, and the OpenID provider's (17) only with --oidc on: otherwise their
// paths are unknown (404), the pages' included.
#include <algorithm>
#include <array>

#include "api/errors.hpp"
#include "api/handlers.hpp"
#include "api/path_pattern.hpp"
#include "core/ascii.hpp"

namespace authd {
namespace {

enum class Served {
  publicly,
  on_management,
  on_both,
  with_signup_open,
  with_email_signin,
  with_oidc,       // interface.md 17.2: the provider's public routes, with --oidc on
  with_upstreams,  // interface.md 18.2: with [[upstream]] providers configured
};

struct Route {
  std::string_view path;
  std::string_view method;
  bool takes_json;
  Handler handler;
  Served where = Served::publicly;

  bool served_on(Listener listener, OptionalRoutes optional) const {
    if (where == Served::on_both) return true;
    if (where == Served::with_signup_open)
      return optional.signup_open && listener == Listener::public_api;
    if (where == Served::with_email_signin)
      return optional.email_signin && listener == Listener::public_api;
    if (where == Served::with_oidc) return optional.oidc && listener == Listener::public_api;
    if (where == Served::with_upstreams)
      return optional.upstreams && listener == Listener::public_api;
    return (where == Served::on_management) == (listener == Listener::management);
  }
};

constexpr std::array kRoutes = {
    Route{"/login", "POST", true, &handle_login},
    Route{"/forgot", "POST", true, &handle_forgot},
    Route{"/reset", "POST", true, &handle_reset},
    Route{"/reset", "GET", false, &handle_reset_page},
    Route{"/reset.js", "GET", false, &handle_reset_script},
    Route{"/reset.css", "GET", false, &handle_reset_style},
    Route{"/signup", "POST", true, &handle_signup, Served::with_signup_open},
    Route{"/verify", "POST", true, &handle_verify, Served::with_signup_open},
    Route{"/verify", "GET", false, &handle_verify_page, Served::with_signup_open},
    Route{"/verify.js", "GET", false, &handle_verify_script, Served::with_signup_open},
    // interface.md 18.2, 18.4: before /signin/email, so that its literal
    // route, matched later, wins ("email" is no provider's name).
    Route{"/signin/{name}", "GET", false, &handle_upstream_signin, Served::with_upstreams},
    Route{"/signin/{name}/callback", "GET", false, &handle_upstream_callback,
          Served::with_upstreams},
    // 18.2.5: two segments after /signin, so that no provider's name can
    // take them (a name is one segment).
    Route{"/signin/upstream/second-factor", "GET", false, &handle_upstream_second_factor_page,
          Served::with_upstreams},
    Route{"/signin/upstream/second-factor", "POST", true, &handle_upstream_second_factor,
          Served::with_upstreams},
    Route{"/signin/upstream/second-factor.js", "GET", false, &handle_upstream_second_factor_script,
          Served::with_upstreams},
    Route{"/signed-in", "GET", false, &handle_signed_in_page, Served::with_upstreams},
    // The segment is a provider's name here, a link's id for DELETE (18.4).
    Route{"/identities/{id}", "POST", false, &handle_upstream_link, Served::with_upstreams},
    Route{"/signin/email", "POST", true, &handle_email_signin, Served::with_email_signin},
    Route{"/signin/email/verify", "POST", true, &handle_email_signin_verify,
          Served::with_email_signin},
    Route{"/signin/email", "GET", false, &handle_email_signin_page, Served::with_email_signin},
    Route{"/signin/email.js", "GET", false, &handle_email_signin_script, Served::with_email_signin},
    // The OpenID provider (interface.md 17): its browser routes, the token
    // and userinfo endpoints, and the user's consents.
    Route{"/oauth2/authorize", "GET", false, &handle_oauth_authorize, Served::with_oidc},
    Route{"/oauth2/authorize", "POST", false, &handle_oauth_authorize, Served::with_oidc},
    Route{"/oauth2/authorize/resume", "GET", false, &handle_oauth_authorize_resume,
          Served::with_oidc},
    Route{"/consent", "GET", false, &handle_consent_page, Served::with_oidc},
    Route{"/oauth2/consent", "POST", false, &handle_oauth_consent, Served::with_oidc},
    Route{"/oauth2/token", "POST", false, &handle_oauth_token, Served::with_oidc},
    Route{"/oauth2/revoke", "POST", false, &handle_oauth_revoke, Served::with_oidc},
    Route{"/oauth2/userinfo", "GET", false, &handle_oauth_userinfo, Served::with_oidc},
    Route{"/oauth2/userinfo", "POST", false, &handle_oauth_userinfo, Served::with_oidc},
    // interface.md 17.13: RP-initiated logout.
    Route{"/oauth2/logout", "GET", false, &handle_oauth_logout, Served::with_oidc},
    Route{"/oauth2/logout", "POST", false, &handle_oauth_logout, Served::with_oidc},
    Route{"/oauth2/logout/confirm", "POST", false, &handle_oauth_logout_confirm, Served::with_oidc},
    Route{"/oauth2/introspect", "POST", false, &handle_oauth_introspect, Served::with_oidc},
    Route{"/consents", "GET", false, &handle_list_consents, Served::with_oidc},
    Route{"/consents/{id}", "DELETE", false, &handle_withdraw_consent, Served::with_oidc},
    Route{"/signin", "GET", false, &handle_signin_page, Served::with_oidc},
    Route{"/signin.js", "GET", false, &handle_signin_script, Served::with_oidc},
    // Upstream identities' links (interface.md 18.4), whatever providers
    // are configured: a link outlives its provider's removal.
    Route{"/identities", "GET", false, &handle_list_identities},
    Route{"/identities/{id}", "DELETE", false, &handle_unlink_identity},
    Route{"/passkeys", "GET", false, &handle_passkeys_page},
    Route{"/passkeys.js", "GET", false, &handle_passkeys_script},
    // What the pages /passkeys, /signin and /signin/email share (common.js):
    // served whenever any of them may be, so always.
    Route{"/common.js", "GET", false, &handle_common_script},
    Route{"/logout", "POST", false, &handle_logout},
    Route{"/me", "GET", false, &handle_me},
    Route{"/password", "POST", true, &handle_change_password},
    Route{"/sessions", "GET", false, &handle_list_sessions},
    Route{"/sessions", "DELETE", false, &handle_end_other_sessions},
    Route{"/sessions/{id}", "DELETE", false, &handle_end_session},
    Route{"/mfa/totp", "POST", true, &handle_mfa_enroll},
    Route{"/mfa/totp/confirm", "POST", true, &handle_mfa_confirm},
    Route{"/mfa/totp/remove", "POST", true, &handle_mfa_remove},
    Route{"/mfa/recovery-codes", "POST", true, &handle_mfa_recovery_codes},
    Route{"/webauthn/register/options", "POST", true, &handle_webauthn_register_options},
    Route{"/webauthn/register", "POST", true, &handle_webauthn_register},
    Route{"/webauthn/login/options", "POST", false, &handle_webauthn_login_options},
    Route{"/webauthn/login", "POST", true, &handle_webauthn_login},
    Route{"/webauthn/credentials", "GET", false, &handle_webauthn_list},
    Route{"/webauthn/credentials/{id}/remove", "POST", true, &handle_webauthn_remove},
    Route{"/healthz", "GET", false, &handle_healthz, Served::on_both},
    // The OpenID provider (interface.md 17.2, 17.12).
    Route{"/oauth2/jwks", "GET", false, &handle_oauth_jwks, Served::with_oidc},
    Route{"/.well-known/openid-configuration", "GET", false, &handle_oauth_discovery,
          Served::with_oidc},
    Route{"/.well-known/oauth-authorization-server", "GET", false, &handle_oauth_discovery,
          Served::with_oidc},
    // The admin API (interface.md 10.4): the management listener's only.
    Route{"/admin/users", "POST", true, &handle_admin_create_user, Served::on_management},
    Route{"/admin/users", "GET", false, &handle_admin_list_users, Served::on_management},
    Route{"/admin/users/{id}", "GET", false, &handle_admin_get_user, Served::on_management},
    Route{"/admin/users/{id}", "PATCH", true, &handle_admin_patch_user, Served::on_management},
    Route{"/admin/users/{id}", "DELETE", false, &handle_admin_delete_user, Served::on_management},
    Route{"/admin/users/{id}/password", "PUT", true, &handle_admin_set_password,
          Served::on_management},
    Route{"/admin/users/{id}/sessions", "GET", false, &handle_admin_list_sessions,
          Served::on_management},
    Route{"/admin/users/{id}/sessions", "DELETE", false, &handle_admin_revoke_sessions,
          Served::on_management},
    Route{"/admin/users/{id}/mfa", "DELETE", false, &handle_admin_reset_mfa, Served::on_management},
    Route{"/admin/users/{id}/password-reset", "POST", false, &handle_admin_send_reset_mail,
          Served::on_management},
    Route{"/admin/sessions/{id}", "DELETE", false, &handle_admin_revoke_session,
          Served::on_management},
    Route{"/admin/users/{id}/identities", "GET", false, &handle_admin_list_identities,
          Served::on_management},
    Route{"/admin/identities/{id}", "DELETE", false, &handle_admin_unlink_identity,
          Served::on_management},
    Route{"/admin/identities/{id}/tokens", "GET", false, &handle_admin_identity_tokens,
          Served::on_management},
    // interface.md 17.3: whether or not --oidc is on.
    Route{"/admin/clients", "POST", true, &handle_admin_create_client, Served::on_management},
    Route{"/admin/clients", "GET", false, &handle_admin_list_clients, Served::on_management},
    Route{"/admin/clients/{id}", "GET", false, &handle_admin_get_client, Served::on_management},
    Route{"/admin/clients/{id}", "PATCH", true, &handle_admin_patch_client, Served::on_management},
    Route{"/admin/clients/{id}", "DELETE", false, &handle_admin_delete_client,
          Served::on_management},
    Route{"/admin/clients/{id}/secret", "POST", false, &handle_admin_rotate_client_secret,
          Served::on_management},
    Route{"/admin/events", "GET", false, &handle_admin_list_events, Served::on_management},
    // interface.md 10.2.9: the admin keys, as `authd admin-key` manages them.
    Route{"/admin/keys", "GET", false, &handle_admin_list_keys, Served::on_management},
    Route{"/admin/keys", "POST", true, &handle_admin_create_key, Served::on_management},
    Route{"/admin/keys/{name}", "DELETE", false, &handle_admin_revoke_key, Served::on_management},
    // The operator's console (interface.md 21).
    Route{"/console", "GET", false, &handle_console_redirect, Served::on_management},
    Route{"/console/", "GET", false, &handle_console_page, Served::on_management},
    Route{"/console/console.js", "GET", false, &handle_console_script, Served::on_management},
    Route{"/console/console-admin.js", "GET", false, &handle_console_admin_script,
          Served::on_management},
    Route{"/console/console.css", "GET", false, &handle_console_style, Served::on_management},
    Route{"/console/sign-in", "POST", true, &handle_console_sign_in, Served::on_management},
    Route{"/console/sign-out", "POST", false, &handle_console_sign_out, Served::on_management},
    Route{"/console/session", "GET", false, &handle_console_session, Served::on_management},
    // Gauges such as the outbox backlog would tell the public whether an
    // address has an account (scrape, /forgot, scrape).
    Route{"/metrics", "GET", false, &handle_metrics, Served::on_management},
};

// "application/json", any case, parameters (e.g. charset) allowed.
bool is_json_media_type(std::string_view value) {
  return equals_ignoring_case(trim_ows(value.substr(0, value.find(';'))), "application/json");
}

}  // namespace

boost::asio::awaitable<ApiResponse> dispatch(ApiContext& ctx, ApiRequest& request) {
  const Route* same_path = nullptr;
  const Route* match = nullptr;
  std::string allow;
  std::string_view parameter;
  for (const Route& route : kRoutes) {
    const AuthPolicy& policy = ctx.auth.policy;
    if (!route.served_on(request.listener, {policy.signup_open, policy.email_signin, policy.oidc.on,
                                            ctx.upstreams != nullptr}) ||
        !match_path(route.path, request.path, parameter))
      continue;
    same_path = &route;
    request.path_parameter = parameter;
    if (route.method == request.method) match = &route;
    if (!allow.empty()) allow += ", ";
    allow += route.method;
  }
  if (same_path == nullptr) co_return error_response(404);

  ApiResponse response;
  if (match == nullptr) {
    response = error_response(405);
    response.headers.emplace_back("Allow", allow);
  } else if (match->takes_json && (request.content_types.size() != 1 ||
                                   !is_json_media_type(request.content_types.front()))) {
    response = error_response(415);
  } else {
    ApiResponse handled = co_await match->handler(ctx, request);
    response = std::move(handled);
  }
  response.route = same_path->path;
  co_return response;
}

std::vector<std::string> route_list() {
  std::vector<std::string> list;
  list.reserve(kRoutes.size());
  for (const Route& route : kRoutes) {
    list.push_back(std::string(route.method) + " " + std::string(route.path));
  }
  return list;
}

std::vector<std::string> route_labels() {
  std::vector<std::string> labels;
  for (const Route& route : kRoutes) {
    std::string path(route.path);
    if (std::find(labels.begin(), labels.end(), path) == labels.end()) labels.push_back(path);
  }
  return labels;
}

std::string methods_of_path(std::string_view path, OptionalRoutes optional,
                            std::string_view& route) {
  std::string methods;
  for (const Route& r : kRoutes) {
    // CORS is the public listener's only.
    std::string_view parameter;
    if (!r.served_on(Listener::public_api, optional) || !match_path(r.path, path, parameter))
      continue;
    if (!methods.empty()) methods += ", ";
    methods += r.method;
    route = r.path;
  }
  return methods;
}

}  // namespace authd
