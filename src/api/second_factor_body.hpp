// The second factor's members of a request body (interface.md 12.3.1,
// 16.4.1): "otp" and "recoveryCode" (strings) and "webauthn" (a passkey's
// assertion, read as 16.7 says). POST /login and the routes that change the
// account's passkeys (16.4.3) read the same members the same way.
#pragma once

#include <string>

#include "api/json_body.hpp"
#include "auth/second_factor/second_factor.hpp"

namespace authd {

// Takes the members out of `body` into `second` (each absent stays
// nothing). A member of the wrong shape sets `problem` (unless one is set).
// The caller wipes `second`'s strings.
void take_second_factor(RequestJson& body, SecondFactorInput& second, std::string& problem);

}  // namespace authd
