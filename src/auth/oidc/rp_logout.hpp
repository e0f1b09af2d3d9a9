// RP-initiated logout (interface.md 17.13, OpenID Connect RP-Initiated
// Logout 1.0): whether a logout request ends the browser's authd session at
// once, asks first on authd's confirmation page, or is refused on authd's
// own page; and where the browser goes afterwards. A redirect goes only to
// a post_logout_redirect_uri registered for the client of a verified
// id_token_hint: never anywhere a request names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"

namespace authd {

// The request's parameters as sent (logout_hint and ui_locales are
// accepted and not used).
struct LogoutParameters {
  std::optional<std::string> id_token_hint;
  std::optional<std::string> client_id;
  std::optional<std::string> post_logout_redirect_uri;
  std::optional<std::string> state;
};

struct LogoutStep {
  enum class Kind {
    error_page,   // authd's own page: nothing ended, no redirect
    confirm,      // the confirmation page (POST /oauth2/logout/confirm)
    signed_out,   // the browser's session is over (ended now, or there was none)
    unavailable,  // the database, or no secret key: 503
  } kind = Kind::unavailable;
  int status = 400;         // error_page
  std::string message;      // error_page: for the person at the browser
  std::string client_name;  // confirm, signed_out: the client's, when known
  std::string form_token;   // confirm: bound to the browser's session
  // signed_out: the client's post_logout_redirect_uri with `state`, when a
  // redirect is allowed; confirm: that URI, which the page's form-action
  // must allow (the confirmation's answer redirects there).
  std::optional<std::string> redirect;
  std::optional<std::string> redirect_uri;  // confirm: posted back as sent
};

// GET and POST /oauth2/logout. `session_token`: the session cookie's value,
// when the request carries exactly one.
boost::asio::awaitable<LogoutStep> request_logout(AuthContext& ctx,
                                                  const LogoutParameters& parameters,
                                                  const std::optional<std::string>& session_token,
                                                  const EventSource& source);

// POST /oauth2/logout/confirm: the confirmation page's answer, with the
// parameters it carried and its form token. A token that is not the one of
// the browser's session (another session's, expired, forged) is refused.
boost::asio::awaitable<LogoutStep> confirm_logout(AuthContext& ctx,
                                                  const LogoutParameters& parameters,
                                                  std::string_view form_token,
                                                  const std::optional<std::string>& session_token,
                                                  const EventSource& source);

}  // namespace authd
