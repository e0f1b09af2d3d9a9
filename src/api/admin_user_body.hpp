// The bodies of the admin API's user routes (interface.md 10.4), read and
// checked member by member: POST /admin/users (and each line of `authd user
// import`), PATCH /admin/users/{id}, PUT /admin/users/{id}/password. A
// problem is a short detail for the 400 that names the member and never
// echoes its value (a password or a hash).
#pragma once

#include <optional>
#include <string>

#include "api/json_body.hpp"
#include "auth/admin/admin_users.hpp"

namespace authd {

enum class AdminBody {
  create,    // email required; password or passwordHash, at most one
  patch,     // every member optional, null clears; no password members
  password,  // exactly one of password and passwordHash, nothing else read
};

struct AdminUserBody {
  AdminUserFields fields;
  AdminPassword password;  // wiped by its users (WipeOnExit)
};

std::optional<AdminUserBody> read_admin_user_body(RequestJson& object, AdminBody kind,
                                                  std::string& problem);

}  // namespace authd
