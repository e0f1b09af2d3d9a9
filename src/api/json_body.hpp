// Strict JSON request bodies (interface.md 1.7): valid UTF-8 JSON, an object
// at the top, no duplicate member name anywhere, string members where strings
// are wanted. Problems come back as a short "detail" for the 400; it never
// echoes the input, which may hold a password.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/wiping_allocator.hpp"

namespace authd {

// A parsed request body. Its strings, and those nlohmann's lexer builds on
// the way (the unescaped text of each string token), live in memory that
// is wiped when freed: they hold passwords and reset tokens. What remains
// unwiped is listed in
// docs/design/threat-model/secrets-and-data.md#secrets-in-memory-and-on-disk.
using RequestJson = nlohmann::basic_json<std::map, std::vector, WipedString>;

std::optional<RequestJson> parse_json_object(std::string_view text, std::string& problem);

// Takes the string member `name` out of `object` (the member's bytes are
// wiped). Missing or not a string: nothing, and `problem` is set unless an
// earlier problem is already there.
std::optional<std::string> take_string(RequestJson& object, const char* name, std::string& problem);

// The same for a member that may be left out: absent is nothing and no
// problem; present, it must be a string (null included: `problem` is set).
std::optional<std::string> take_optional_string(RequestJson& object, const char* name,
                                                std::string& problem);

// An object member that holds no secret (a passkey's response: interface.md
// 16), as plain JSON. `required`: missing is a problem; otherwise missing is
// nothing and no problem. Present and not an object: `problem` is set.
std::optional<nlohmann::json> take_object(RequestJson& object, const char* name, bool required,
                                          std::string& problem);

// The body of a request that names only an address and may queue a mail
// (/forgot, /signin/email: interface.md 6 /forgot 1, 19.1): a JSON object
// with a valid "email", whose canonical form this returns; nothing and
// `problem` set otherwise.
std::optional<std::string> take_canonical_email(std::string_view body, std::string& problem);

}  // namespace authd
