// The e-mail address rules of interface.md section 3.1.
#pragma once

#include <string>
#include <string_view>

namespace authd {

// 1 to 254 characters forming a "valid e-mail address" by the WHATWG HTML
// definition (what browsers accept in <input type=email>): ASCII only, no
// quoted local part, no IP literal, no surrounding white space.
bool is_valid_email(std::string_view email);

// ASCII-lowercased: the form authd stores, compares and returns.
std::string canonical_email(std::string_view email);

// For logs: "a***@example.com". Never the whole local part.
std::string mask_email(std::string_view email);

}  // namespace authd
