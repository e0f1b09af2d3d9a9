#include "api/credentials.hpp"

#include "api/errors.hpp"
#include "api/user_json.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

ApiResponse unauthorized(std::string challenge) {
  ApiResponse response = error_response(401);
  response.headers.emplace_back("WWW-Authenticate", std::move(challenge));
  return response;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A cookie value holds a token as sent at login: the same characters as
// in a bearer token (RFC 6750 b64token), which parse_bearer checks.
BearerCredentials cookie_credentials(const std::vector<std::string_view>& values) {
  // Two cookies of the name (another path or domain set one too): which
  // one the user meant cannot be known.
  if (values.size() != 1) return {BearerCredentials::Kind::malformed, {}};
  std::string as_header = "Bearer " + std::string(values.front());
  std::vector<std::string_view> fields = {as_header};
  BearerCredentials credentials = parse_bearer(fields);
  wipe(as_header);
  if (credentials.kind == BearerCredentials::Kind::missing)
    credentials.kind = BearerCredentials::Kind::malformed;
  return credentials;
}

bool changes_state(std::string_view method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

// interface.md 13.4: a gateway's subrequest stands for a state-changing
// request when its one X-Original-Method says so; several values cannot be
// told apart, so they count as one that changes state.
bool original_changes_state(const ApiRequest& request) {
  const auto& methods = request.original_methods;
  return !methods.empty() && (methods.size() != 1 || changes_state(methods.front()));
}

std::string cookie_attributes(const SessionCookie& cookie) {
  return std::string("; HttpOnly") + (cookie.secure ? "; Secure" : "") + "; SameSite=Lax; Path=/";
}

}  // namespace

std::optional<ApiResponse> credentials_problem(const BearerCredentials& credentials) {
  switch (credentials.kind) {
    case BearerCredentials::Kind::token:
      return std::nullopt;
    case BearerCredentials::Kind::missing:
      return unauthorized(R"(Bearer realm="authd")");
    case BearerCredentials::Kind::malformed: {
      ApiResponse response = bad_request("authorization: malformed bearer credentials");
      response.headers.emplace_back("WWW-Authenticate", R"(Bearer error="invalid_request")");
      return response;
    }
  }
  return std::nullopt;
}

ApiResponse invalid_token() { return unauthorized(R"(Bearer error="invalid_token")"); }

std::optional<ApiResponse> read_credentials(const ApiRequest& request,
                                            BearerCredentials& credentials) {
  bool by_cookie = request.authorization.empty() && request.session_cookie != nullptr &&
                   !request.session_cookies.empty();
  if (!by_cookie) {
    credentials = parse_bearer(request.authorization);
    return credentials_problem(credentials);
  }
  credentials = cookie_credentials(request.session_cookies);
  if (credentials.kind != BearerCredentials::Kind::token) {
    ApiResponse response = bad_request("cookie: malformed session cookie");
    response.headers.emplace_back("WWW-Authenticate", R"(Bearer error="invalid_request")");
    return response;
  }
  if (changes_state(request.method) && !request.trusted_origin) return error_response(403);
  if (original_changes_state(request) && !request.original_trusted_origin)
    return error_response(403);
  return std::nullopt;
}

std::string session_cookie_header(const SessionCookie& cookie, std::string_view token,
                                  std::chrono::seconds lifetime) {
  return cookie.name + "=" + std::string(token) + cookie_attributes(cookie) +
         "; Max-Age=" + std::to_string(lifetime.count());
}

std::string clearing_cookie_header(const SessionCookie& cookie) {
  return cookie.name + "=" + cookie_attributes(cookie) + "; Max-Age=0";
}

std::vector<std::string_view> cookie_values(const std::vector<std::string_view>& fields,
                                            std::string_view name) {
  std::vector<std::string_view> values;
  for (std::string_view field : fields) {
    while (!field.empty()) {
      std::size_t end = field.find(';');
      std::string_view pair = trimmed(field.substr(0, end));
      field = end == std::string_view::npos ? std::string_view() : field.substr(end + 1);
      std::size_t equals = pair.find('=');
      if (equals == std::string_view::npos || trimmed(pair.substr(0, equals)) != name) continue;
      std::string_view value = trimmed(pair.substr(equals + 1));
      // RFC 6265 4.1.1 allows the value in double quotes.
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
      values.push_back(value);
    }
  }
  return values;
}

ApiResponse signed_in_response(const ApiRequest& request, const UserRecord& user,
                               std::string& token, Duration session_lifetime) {
  std::string cookie;
  WipeOnExit wipe_cookie(cookie);
  if (request.session_cookie != nullptr) {
    auto lifetime = std::chrono::duration_cast<std::chrono::seconds>(session_lifetime);
    cookie = session_cookie_header(*request.session_cookie, token, lifetime);
  }
  ApiResponse response = session_response(200, user, token);
  if (!cookie.empty()) response.headers.emplace_back("Set-Cookie", cookie);
  return response;
}

std::optional<std::string> single_session_cookie(const ApiRequest& request) {
  if (request.session_cookie == nullptr || request.session_cookies.size() != 1) return std::nullopt;
  return std::string(request.session_cookies.front());
}

}  // namespace authd
