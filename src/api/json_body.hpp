// Strict JSON request bodies (decisions.md 1.7): valid UTF-8 JSON, an object
// at the top, no duplicate member name anywhere, string members where strings
// are wanted. Problems come back as a short "detail" for the 400; it never
// echoes the input, which may hold a password.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace authd {

std::optional<nlohmann::json> parse_json_object(std::string_view text, std::string& problem);

// Moves the string member `name` out of `object` (no copy of a secret is
// left behind). Missing or not a string: nothing, and `problem` is set unless
// an earlier problem is already there.
std::optional<std::string> take_string(nlohmann::json& object, const char* name,
                                       std::string& problem);

}  // namespace authd
