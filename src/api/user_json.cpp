#include "api/user_json.hpp"

#include "api/errors.hpp"
#include "core/wipe.hpp"

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

void append_time_field(std::string& out, std::string_view key, std::optional<Millis> at) {
  out += '"';
  out += key;
  out += "\":";
  if (at) {
    out += '"';
    append_rfc3339(out, *at);  // digits, '-', ':', '.', 'T', 'Z': nothing to escape
    out += '"';
  } else {
    out += "null";
  }
  out += ',';
}

}  // namespace

std::string user_body(const UserRecord& user) {
  std::string out = "{";
  out.reserve(384);
  append_time_field(out, "createdAt", user.created_at);
  append_field(out, "displayName", user.display_name);
  append_field(out, "email", user.email);
  append_time_field(out, "emailVerifiedAt", user.email_verified_at);
  append_field(out, "id", user.id);
  append_field(out, "password", std::nullopt);  // the hash never leaves the server
  append_field(out, "phone", user.phone);
  append_time_field(out, "phoneVerifiedAt", user.phone_verified_at);
  append_field(out, "photoUrl", user.photo_url);
  append_time_field(out, "updatedAt", user.updated_at);
  out.back() = '}';  // replaces the last field's comma
  return out;
}

nlohmann::json user_json(const UserRecord& user) { return nlohmann::json::parse(user_body(user)); }

std::string admin_user_body(const UserRecord& user, bool has_totp, bool has_passkeys) {
  std::string out = user_body(user);
  out.pop_back();  // the closing brace: the admin members follow
  out += ",\"disabled\":";
  out += user.disabled ? "true" : "false";
  out += ',';
  append_time_field(out, "lastLoginAt", user.last_login_at);
  // Confirmed factors only (interface.md 10.3, 16.6.3).
  out += R"("mfa":[)";
  if (has_totp) out += R"("totp")";
  if (has_passkeys) out += has_totp ? R"(,"webauthn")" : R"("webauthn")";
  out += "]}";
  return out;
}

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ApiResponse session_response(int status, const UserRecord& user, std::string& token) {
  ApiResponse response = json_response(status, user_body(user));
  response.headers.emplace_back("Authorization", "Bearer " + token);
  response.holds_secret = true;  // wiped once sent, like this copy now
  wipe(token);
  return response;
}

}  // namespace authd
