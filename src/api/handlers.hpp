// One handler per route; each validates its input, calls the domain (auth/)
// and shapes the response. The router (routes.cpp) has already settled 404,
// 405 and 415.
#pragma once

#include "api/api.hpp"

namespace authd {

boost::asio::awaitable<ApiResponse> handle_login(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_forgot(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_reset(ApiContext& ctx, ApiRequest& request);
// The reset page and its own script and style sheet, the sign-up
// confirmation page and its script, the passkeys page and its script
// (api/pages.cpp).
boost::asio::awaitable<ApiResponse> handle_reset_page(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_reset_script(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_reset_style(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_verify_page(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_verify_script(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_passkeys_page(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_passkeys_script(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_common_script(ApiContext& ctx, ApiRequest& request);
// The page of sign-in by mail and its script (api/pages.cpp).
boost::asio::awaitable<ApiResponse> handle_email_signin_page(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_email_signin_script(ApiContext& ctx,
                                                               ApiRequest& request);
// The provider's sign-in page and its script (interface.md 17.5,
// api/oauth_pages.cpp); the page uses the reset page's style sheet.
boost::asio::awaitable<ApiResponse> handle_signin_page(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_signin_script(ApiContext& ctx, ApiRequest& request);
// Self-service sign-up (api/signup.cpp, api/verify.cpp).
boost::asio::awaitable<ApiResponse> handle_signup(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_verify(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_email_signin(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_email_signin_verify(ApiContext& ctx,
                                                               ApiRequest& request);
// Sign-in through upstream providers (interface.md 18.2, 18.4):
// api/upstream_signin.cpp, api/upstream_callback.cpp.
boost::asio::awaitable<ApiResponse> handle_upstream_signin(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_upstream_callback(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_upstream_link(ApiContext& ctx, ApiRequest& request);
// interface.md 18.2.5, 18.2.6: api/upstream_second_factor*.cpp.
boost::asio::awaitable<ApiResponse> handle_upstream_second_factor(ApiContext& ctx,
                                                                  ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_upstream_second_factor_page(ApiContext& ctx,
                                                                       ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_upstream_second_factor_script(ApiContext& ctx,
                                                                         ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_signed_in_page(ApiContext& ctx, ApiRequest& request);
// The OpenID provider (interface.md 17): api/oauth_authorize.cpp,
// api/oauth_logout.cpp, api/oauth_token.cpp, api/oauth_userinfo.cpp,
// api/consents.cpp.
boost::asio::awaitable<ApiResponse> handle_oauth_authorize(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_oauth_authorize_resume(ApiContext& ctx,
                                                                  ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_consent_page(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_oauth_consent(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_oauth_logout(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_oauth_logout_confirm(ApiContext& ctx,
                                                                ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_oauth_token(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_oauth_revoke(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_oauth_userinfo(ApiContext& ctx, ApiRequest& request);
// api/oauth_introspect.cpp (17.11).
boost::asio::awaitable<ApiResponse> handle_oauth_introspect(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_list_consents(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_withdraw_consent(ApiContext& ctx, ApiRequest& request);
// Upstream identities' links (interface.md 18.4): api/identities.cpp.
boost::asio::awaitable<ApiResponse> handle_list_identities(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_unlink_identity(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_list_identities(ApiContext& ctx,
                                                                 ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_unlink_identity(ApiContext& ctx,
                                                                 ApiRequest& request);
// The upstream tokens kept on a link (18.5): api/admin_identity_tokens.cpp.
boost::asio::awaitable<ApiResponse> handle_admin_identity_tokens(ApiContext& ctx,
                                                                 ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_logout(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_me(ApiContext& ctx, ApiRequest& request);
// The account's own routes (interface.md 11.1-11.3): api/password.cpp and
// api/session_routes.cpp.
boost::asio::awaitable<ApiResponse> handle_change_password(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_list_sessions(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_end_session(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_end_other_sessions(ApiContext& ctx, ApiRequest& request);
// The second factor (interface.md 12.1): api/mfa.cpp.
boost::asio::awaitable<ApiResponse> handle_mfa_enroll(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_mfa_confirm(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_mfa_remove(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_mfa_recovery_codes(ApiContext& ctx, ApiRequest& request);
// Passkeys (interface.md 16): api/webauthn.cpp.
boost::asio::awaitable<ApiResponse> handle_webauthn_register_options(ApiContext& ctx,
                                                                     ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_webauthn_register(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_webauthn_login_options(ApiContext& ctx,
                                                                  ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_webauthn_login(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_webauthn_list(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_webauthn_remove(ApiContext& ctx, ApiRequest& request);
// The admin API (interface.md 10.4), on the management listener:
// api/admin_users.cpp and api/admin_sessions.cpp.
boost::asio::awaitable<ApiResponse> handle_admin_create_user(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_list_users(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_get_user(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_patch_user(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_set_password(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_delete_user(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_list_sessions(ApiContext& ctx,
                                                               ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_revoke_sessions(ApiContext& ctx,
                                                                 ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_revoke_session(ApiContext& ctx,
                                                                ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_reset_mfa(ApiContext& ctx, ApiRequest& request);
// api/admin_reset_mail.cpp (10.4.18).
boost::asio::awaitable<ApiResponse> handle_admin_send_reset_mail(ApiContext& ctx,
                                                                 ApiRequest& request);
// The OAuth clients (interface.md 17.3): api/admin_clients.cpp.
boost::asio::awaitable<ApiResponse> handle_admin_create_client(ApiContext& ctx,
                                                               ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_list_clients(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_get_client(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_patch_client(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_delete_client(ApiContext& ctx,
                                                               ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_rotate_client_secret(ApiContext& ctx,
                                                                      ApiRequest& request);
// The admin keys (interface.md 10.2.9): api/admin_keys_routes.cpp.
boost::asio::awaitable<ApiResponse> handle_admin_list_keys(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_create_key(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_admin_revoke_key(ApiContext& ctx, ApiRequest& request);
// The audit trail (interface.md 14.2): api/admin_events.cpp.
boost::asio::awaitable<ApiResponse> handle_admin_list_events(ApiContext& ctx, ApiRequest& request);
// The operator's console (interface.md 21), on the management listener:
// its page, script and style sheet, and its own sign-in, sign-out and
// "who am I" (api/console.cpp); everything else it does is the admin API.
boost::asio::awaitable<ApiResponse> handle_console_redirect(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_console_page(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_console_script(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_console_admin_script(ApiContext& ctx,
                                                                ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_console_style(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_console_sign_in(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_console_sign_out(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_console_session(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_healthz(ApiContext& ctx, ApiRequest& request);
// The OpenID provider's keys and metadata (interface.md 17.12, 17.2):
// api/oauth_jwks.cpp, api/oauth_discovery.cpp (both metadata paths).
boost::asio::awaitable<ApiResponse> handle_oauth_jwks(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_oauth_discovery(ApiContext& ctx, ApiRequest& request);
boost::asio::awaitable<ApiResponse> handle_metrics(ApiContext& ctx, ApiRequest& request);

}  // namespace authd
