// A client's redirect URIs (interface.md 17.3): which may be registered,
// and whether the one an authorization request names is one of them.
// RFC 9700 2.1 asks for exact matching; RFC 8252 7.3 lets a native app's
// loopback URI take any port, chosen by the app at run time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace authd {

struct OAuthClientRecord;

// Longest redirect URI taken, and most URIs of one list.
inline constexpr std::size_t kMaxRedirectUriBytes = 2048;
inline constexpr std::size_t kMaxRedirectUris = 50;

// Why `uri` cannot be registered, or nothing. The rules (interface.md
// 17.3): printable ASCII, an absolute URI with a lower-case scheme, no
// fragment, no `*`, no userinfo; `https://` with a host; `http://` only on
// the loopback addresses 127.0.0.1 and [::1] (`localhost` is not one, RFC
// 8252 8.3); any other scheme only as a private-use scheme (holding a '.',
// RFC 8252 7.1) of a public client. The text does not name the URI: the
// caller prefixes the member.
std::optional<std::string> redirect_uri_problem(std::string_view uri, bool confidential);

// The same for a whole list (`member` names it in the problem, e.g.
// "redirectUris"); `required`: an empty list is refused.
std::optional<std::string> redirect_uris_problem(const std::vector<std::string>& uris,
                                                 bool confidential, std::string_view member,
                                                 bool required);

// Whether `requested` is one of `client`'s redirect URIs: byte for byte,
// never by prefix or pattern, except that a registered
// http://127.0.0.1/... or http://[::1]/... URI matches the same URI with
// any port (RFC 8252 7.3).
bool redirect_uri_matches(const OAuthClientRecord& client, std::string_view requested);

}  // namespace authd
