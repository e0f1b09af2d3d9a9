#include "api/user_json.hpp"

#include "core/time.hpp"

namespace authd {

nlohmann::json user_json(const UserRecord& user) {
  auto nullable = [](const auto& value) -> nlohmann::json {
    if (value) return *value;
    return nullptr;
  };
  return {
      {"id", user.id},
      {"email", user.email},
      {"password", nullptr},  // the hash never leaves the server
      {"phone", nullable(user.phone)},
      {"photoUrl", nullable(user.photo_url)},
      {"displayName", nullable(user.display_name)},
      {"emailVerifiedAt", nullable(format_rfc3339(user.email_verified_at))},
      {"phoneVerifiedAt", nullable(format_rfc3339(user.phone_verified_at))},
      {"updatedAt", format_rfc3339(user.updated_at)},
      {"createdAt", format_rfc3339(user.created_at)},
  };
}

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace authd
