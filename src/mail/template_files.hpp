// The built-in mail templates (src/mail/templates/*.mustache), compiled
// into the binary at build time (cmake/mail_templates.cmake): no file is
// read at run time unless an operator gives --mail-templates.
#pragma once

#include <optional>
#include <string_view>

namespace authd::mail {

// The content of the embedded template with this file name, e.g.
// "password_reset.text.mustache".
std::optional<std::string_view> template_file(std::string_view name);

}  // namespace authd::mail
