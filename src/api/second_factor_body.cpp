#include "api/second_factor_body.hpp"

namespace authd {

void take_second_factor(RequestJson& body, SecondFactorInput& second, std::string& problem) {
  second.otp = take_optional_string(body, "otp", problem);
  second.recovery_code = take_optional_string(body, "recoveryCode", problem);
  if (auto assertion = take_object(body, "webauthn", false, problem)) {
    std::string passkey_problem;
    second.passkey = webauthn::parse_assertion_response(*assertion, passkey_problem);
    if (!second.passkey && problem.empty()) problem = "webauthn: " + passkey_problem;
  }
}

}  // namespace authd
