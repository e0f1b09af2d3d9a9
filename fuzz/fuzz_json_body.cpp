// Fuzz target: the strict JSON body rules (api/json_body.cpp, interface.md
// 1.7) and the field checks the JSON routes apply to what they take out of a
// body (auth/credentials/email.cpp, auth/credentials/password_rules.cpp), on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/json_body.hpp"
#include "auth/credentials/email.hpp"
#include "auth/credentials/password_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string problem;
  auto body = authd::parse_json_object(text, problem);
  if (!body) {
    if (problem.empty()) std::abort();  // every refusal says why (the 400's detail)
    return 0;
  }
  if (!body->is_object()) std::abort();
  for (const char* name : {"email", "password", "token"}) {
    std::string field_problem;
    auto value = authd::take_string(*body, name, field_problem);
    // A string comes back without a problem; anything else with one.
    if (value.has_value() != field_problem.empty()) std::abort();
    if (!value) continue;
    // Parsed JSON strings are valid UTF-8: the rules must agree.
    if (!authd::is_well_formed_utf8(*value)) std::abort();
    if (authd::is_valid_email(*value)) {
      std::string canonical = authd::canonical_email(*value);
      if (!authd::is_valid_email(canonical) || canonical.size() != value->size()) std::abort();
      authd::mask_email(canonical);
    }
    authd::is_valid_login_password(*value);
    authd::new_password_length_problem(*value);
    authd::new_password_problem(*value, "someone@example.com");
  }
  return 0;
}
