// The User resource of the seed interface (interface.md section 2).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/api.hpp"
#include "store/records.hpp"

namespace authd {

// The User as a response body: all ten fields, absent values null,
// `password` always null, keys in alphabetical order. Written directly
// rather than through a json object: it is most of the work of a GET /me.
std::string user_body(const UserRecord& user);

// The same as a json value (the CLI adds to it).
nlohmann::json user_json(const UserRecord& user);

// The admin view of a user (interface.md 10.3): the User and `disabled`,
// `lastLoginAt` and `mfa` (the confirmed second factors).
std::string admin_user_body(const UserRecord& user, bool has_totp, bool has_passkeys);

// A new session's answer (the 200 of /login, the 201 of /verify): the User
// as the body, the bearer token in the Authorization header (interface.md
// 5.2). The response holds the secret (wiped once sent); `token` is wiped.
ApiResponse session_response(int status, const UserRecord& user, std::string& token);

// Serialises a response body; never throws on odd bytes in stored data.
std::string dump_json(const nlohmann::json& value);

}  // namespace authd
