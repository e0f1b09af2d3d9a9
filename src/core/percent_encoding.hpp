// Percent-encoding (RFC 3986 2.1) for the URLs authd writes and the
// queries and forms it reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace authd {

// RFC 3986 unreserved characters as they are, every other byte as %XX.
std::string percent_encode(std::string_view text);

// The bytes of `text` with each %XX decoded, and with `plus_is_space` each
// '+' a space (application/x-www-form-urlencoded); nothing when an escape
// is malformed ("%", "%4", "%zz").
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);

}  // namespace authd
