// api/user_json: the User body (interface.md section 2) is written as text
// for speed. It must be byte for byte what nlohmann writes for the same
// User, whatever bytes the stored fields hold.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/user_json.hpp"
#include "core/time.hpp"

namespace authd {
namespace {

// The User shape as a json object, the way the API wrote it before.
std::string reference_body(const UserRecord& user) {
  auto nullable = [](const auto& value) -> nlohmann::json {
    if (value) return *value;
    return nullptr;
  };
  nlohmann::json json = {
      {"id", user.id},
      {"email", user.email},
      {"password", nullptr},
      {"phone", nullable(user.phone)},
      {"photoUrl", nullable(user.photo_url)},
      {"displayName", nullable(user.display_name)},
      {"emailVerifiedAt", nullable(format_rfc3339(user.email_verified_at))},
      {"phoneVerifiedAt", nullable(format_rfc3339(user.phone_verified_at))},
      {"updatedAt", format_rfc3339(user.updated_at)},
      {"createdAt", format_rfc3339(user.created_at)},
  };
  return dump_json(json);
}

UserRecord plain_user() {
  UserRecord user;
  user.id = "0190f5c2-7a1b-7c3d-8e4f-0123456789ab";
  user.email = "ada@example.com";
  user.password_hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA";
  user.created_at = 1'700'000'000'123;
  user.updated_at = 1'700'000'100'456;
  return user;
}

TEST(UserBody, Interface_2_MatchesTheJsonObjectForEveryField) {
  UserRecord user = plain_user();
  EXPECT_EQ(user_body(user), reference_body(user));
  user.phone = "+44 20 7946 0000";
  user.photo_url = "https://example.com/ada.png?size=64&x=1";
  user.display_name = "Ada Lovelace";
  user.email_verified_at = 1'700'000'050'000;
  user.phone_verified_at = -1;  // before 1970
  EXPECT_EQ(user_body(user), reference_body(user));
}

TEST(UserBody, Interface_2_EscapesLikeNlohmannAndReplacesBadUtf8) {
  const std::vector<std::string> awkward = {
      "",
      "a quote \" alone",
      "a backslash \\ alone",
      "control \x01 \x1f tab\t newline\n",
      "delete \x7f",
      "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",
      "truncated \xC3",
      "stray \x80 byte",
      "</script><script>alert(1)</script>",
  };
  for (const std::string& text : awkward) {
    UserRecord user = plain_user();
    user.display_name = text;
    user.photo_url = text;
    user.phone = text;
    EXPECT_EQ(user_body(user), reference_body(user)) << text;
  }
}

TEST(UserBody, Interface_2_NeverCarriesThePasswordHash) {
  UserRecord user = plain_user();
  std::string body = user_body(user);
  EXPECT_EQ(body.find("argon2"), std::string::npos) << body;
  EXPECT_TRUE(nlohmann::json::parse(body)["password"].is_null());
}

TEST(UserBody, Interface_2_TheJsonValueIsTheSameUser) {
  UserRecord user = plain_user();
  user.display_name = "Ada";
  EXPECT_EQ(dump_json(user_json(user)), user_body(user));
}

}  // namespace
}  // namespace authd
