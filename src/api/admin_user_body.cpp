#include "api/admin_user_body.hpp"

#include "auth/admin/accounts.hpp"
#include "auth/credentials/email.hpp"
#include "auth/credentials/password_rules.hpp"
#include "core/wipe.hpp"
#include "crypto/legacy_hash.hpp"

namespace authd {
namespace {

enum class Presence { absent, null, value, wrong_type };

Presence presence(const RequestJson& object, const char* name, RequestJson::value_t type) {
  auto it = object.find(name);
  if (it == object.end()) return Presence::absent;
  if (it->is_null()) return Presence::null;
  return it->type() == type ? Presence::value : Presence::wrong_type;
}

// Reads a nullable text member: absent, null (kept as "present, cleared"
// where nulls clear, as "absent" where they do not), or a string that
// `valid` accepts.
bool read_text(RequestJson& object, const char* name, bool null_clears,
               bool (*valid)(std::string_view), const char* rule, Settable<std::string>& out,
               std::string& problem) {
  switch (presence(object, name, RequestJson::value_t::string)) {
    case Presence::absent:
      return true;
    case Presence::null:
      out.present = null_clears;
      return true;
    case Presence::wrong_type:
      problem = std::string(name) + ": must be a string or null";
      return false;
    case Presence::value:
      break;
  }
  std::string ignored;
  out.value = take_string(object, name, ignored);
  out.present = true;
  if (valid(*out.value)) return true;
  problem = std::string(name) + ": " + rule;
  return false;
}

// A boolean member; null means absent where nulls cannot clear it.
bool read_flag(const RequestJson& object, const char* name, bool null_allowed,
               std::optional<bool>& out, std::string& problem) {
  switch (presence(object, name, RequestJson::value_t::boolean)) {
    case Presence::absent:
      return true;
    case Presence::null:
      if (null_allowed) return true;
      break;
    case Presence::wrong_type:
      break;
    case Presence::value:
      out = object.at(name).get<bool>();
      return true;
  }
  problem = std::string(name) + ": must be a boolean";
  return false;
}

// password and passwordHash: strings, or null for absent.
bool read_secret(RequestJson& object, const char* name, std::optional<std::string>& out,
                 std::string& problem) {
  switch (presence(object, name, RequestJson::value_t::string)) {
    case Presence::absent:
    case Presence::null:
      return true;
    case Presence::wrong_type:
      problem = std::string(name) + ": must be a string";
      return false;
    case Presence::value:
      out = take_string(object, name, problem);
      return true;
  }
  return true;
}

bool read_email(RequestJson& object, bool required, std::optional<std::string>& out,
                std::string& problem) {
  Presence found = presence(object, "email", RequestJson::value_t::string);
  if (found == Presence::absent && !required) return true;
  if (found != Presence::value) {
    problem = found == Presence::absent ? "email: required" : "email: must be a string";
    return false;
  }
  std::string email = object.at("email").get<std::string>();
  if (!is_valid_email(email)) {
    problem = "email: not a valid address";
    return false;
  }
  out = canonical_email(email);
  return true;
}

bool read_passwords(RequestJson& object, AdminBody kind, const std::optional<std::string>& email,
                    AdminPassword& out, std::string& problem) {
  if (!read_secret(object, "password", out.password, problem) ||
      !read_secret(object, "passwordHash", out.hash, problem))
    return false;
  if (out.password && out.hash) {
    problem = "password, passwordHash: give one of them, not both";
    return false;
  }
  if (kind == AdminBody::password && !out.password && !out.hash) {
    problem = "password or passwordHash: required";
    return false;
  }
  if (out.password) {
    auto rule = email ? new_password_problem(*out.password, *email)
                      : new_password_length_problem(*out.password);
    if (rule) {
      problem = *rule;
      return false;
    }
  }
  if (out.hash) {
    if (auto hash_problem = imported_hash_problem(*out.hash)) {
      problem = *hash_problem;
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<AdminUserBody> read_admin_user_body(RequestJson& object, AdminBody kind,
                                                  std::string& problem) {
  AdminUserBody body;
  AdminUserFields& f = body.fields;
  if (kind == AdminBody::password) {
    if (read_passwords(object, kind, std::nullopt, body.password, problem)) return body;
    if (body.password.password) wipe(*body.password.password);
    if (body.password.hash) wipe(*body.password.hash);
    return std::nullopt;
  }
  if (kind == AdminBody::patch &&
      (object.contains("password") || object.contains("passwordHash"))) {
    problem = "password, passwordHash: set with PUT /admin/users/{id}/password";
    return std::nullopt;
  }
  const bool patch = kind == AdminBody::patch;
  bool ok = read_email(object, !patch, f.email, problem) &&
            read_text(object, "displayName", patch, &is_valid_display_name,
                      "1 to 255 characters, no control characters", f.display_name, problem) &&
            read_text(object, "phone", patch, &is_valid_phone, "E.164 form, '+' and 1 to 15 digits",
                      f.phone, problem) &&
            read_text(object, "photoUrl", patch, &is_valid_photo_url,
                      "an http or https URL of at most 2048 characters", f.photo_url, problem) &&
            read_flag(object, "emailVerified", !patch, f.email_verified, problem) &&
            read_flag(object, "phoneVerified", !patch, f.phone_verified, problem) &&
            read_flag(object, "disabled", !patch, f.disabled, problem) &&
            (patch || read_passwords(object, kind, f.email, body.password, problem));
  if (!ok) {
    if (body.password.password) wipe(*body.password.password);
    if (body.password.hash) wipe(*body.password.hash);
    return std::nullopt;
  }
  return body;
}

}  // namespace authd
