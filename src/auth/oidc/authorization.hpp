// The authorization endpoint's decisions (interface.md 17.4-17.6): whether a
// request is answered on authd's own page, sent back to the client with an
// error, made to wait while the browser signs in or consents, or answered
// with a code. The browser's session is the cookie session of 13.5.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"
#include "auth/events/events.hpp"

namespace authd {

// A redirect to the client: its redirect URI and the parameters to add to
// its query (RFC 6749 4.1.2, RFC 9207).
struct ClientRedirect {
  std::string uri;
  std::vector<std::pair<std::string, std::string>> parameters;
};

struct AuthorizationStep {
  enum class Kind {
    error_page,   // authd's own page: the client or its redirect URI is not to be trusted
    redirect,     // to the client, with a code or an error
    sign_in,      // the request waits: the browser goes to GET /signin
    consent,      // the request waits: the browser goes to GET /consent
    unavailable,  // the database: 503
  } kind = Kind::unavailable;
  int status = 400;                       // error_page
  std::chrono::seconds retry_after{0};    // error_page 429: too many waiting requests
  std::string message;                    // error_page: for the person at the browser
  ClientRedirect redirect;                // redirect
  std::string request_id;                 // sign_in, consent: the waiting request's id
  std::optional<std::string> login_hint;  // sign_in
};

// The parameters as parsed (name -> first value) and the names sent twice.
struct RequestParameters {
  const std::map<std::string, std::string, std::less<>>& values;
  const std::vector<std::string>& repeated;
};

// GET and POST /oauth2/authorize. `session_token`: the session cookie's
// value, when the request carries exactly one.
boost::asio::awaitable<AuthorizationStep> authorize(AuthContext& ctx, RequestParameters parameters,
                                                    const std::optional<std::string>& session_token,
                                                    const EventSource& source);

// GET /oauth2/authorize/resume: the waiting request `request_id`, decided
// again now that the browser has (or has not) signed in.
boost::asio::awaitable<AuthorizationStep> resume_authorization(
    AuthContext& ctx, std::string_view request_id, const std::optional<std::string>& session_token,
    const EventSource& source);

// POST /oauth2/consent: the user's answer to the consent page.
boost::asio::awaitable<AuthorizationStep> answer_consent(
    AuthContext& ctx, std::string_view request_id, bool allow,
    const std::optional<std::string>& session_token, const EventSource& source);

// GET /consent: what the consent page shows, or where the browser goes
// instead (kind sign_in, error_page, unavailable).
struct ConsentPrompt {
  AuthorizationStep step;  // kind consent when the page is to be shown
  std::string client_name;
  std::vector<std::string> scopes;
  std::string redirect_uri;  // where the answer will go (the page's form-action allows it)
};
boost::asio::awaitable<ConsentPrompt> consent_prompt(
    AuthContext& ctx, std::string_view request_id, const std::optional<std::string>& session_token);

}  // namespace authd
