// Reads a new password for the operator commands: from a no-echo prompt on
// a terminal (asked twice), or from standard input when it is a pipe or a
// file. Never from argv, where other users could read it.
#pragma once

#include <optional>
#include <string>

namespace authd {

// Nothing when the input ended early or the two entries differ (the reason
// goes to stderr).
std::optional<std::string> read_new_password();

}  // namespace authd
