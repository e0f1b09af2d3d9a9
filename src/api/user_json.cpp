#include "api/user_json.hpp"

#include <optional>
#include <string_view>

#include "core/json_text.hpp"
#include "core/time.hpp"

namespace authd {
namespace {

void append_field(std::string& out, std::string_view key, const std::optional<std::string>& value) {
  out += '"';
  out += key;
  out += "\":";
  if (value) {
    append_json_string(out, *value);
  } else {
    out += "null";
  }
  out += ',';
}

}  // namespace

std::string user_body(const UserRecord& user) {
  std::string out = "{";
  out.reserve(384);
  append_field(out, "createdAt", format_rfc3339(user.created_at));
  append_field(out, "displayName", user.display_name);
  append_field(out, "email", user.email);
  append_field(out, "emailVerifiedAt", format_rfc3339(user.email_verified_at));
  append_field(out, "id", user.id);
  append_field(out, "password", std::nullopt);  // the hash never leaves the server
  append_field(out, "phone", user.phone);
  append_field(out, "phoneVerifiedAt", format_rfc3339(user.phone_verified_at));
  append_field(out, "photoUrl", user.photo_url);
  append_field(out, "updatedAt", format_rfc3339(user.updated_at));
  out.back() = '}';  // replaces the last field's comma
  return out;
}

nlohmann::json user_json(const UserRecord& user) { return nlohmann::json::parse(user_body(user)); }

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace authd
