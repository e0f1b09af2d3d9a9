// JSON written as text, for the two lines authd writes on every request
// (the User body and the request log), where building a json object first
// costs more than the rest of the work.
#pragma once

#include <string>
#include <string_view>

namespace authd {

// Appends `text` as a JSON string. Printable ASCII without quote or
// backslash is copied as it is; anything else (escapes, UTF-8, bytes that
// are not UTF-8, which are replaced) goes through nlohmann, so that the
// result is byte for byte what nlohmann writes.
void append_json_string(std::string& out, std::string_view text);

}  // namespace authd
