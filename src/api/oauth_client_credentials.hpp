// The client credentials of a token endpoint request (interface.md 17.3,
// 17.7): HTTP Basic (client_secret_basic, RFC 6749 2.3.1), client_id and
// client_secret in the form body (client_secret_post), or client_id alone
// (none, a public client). auth/oidc/client_auth.hpp checks them.
#pragma once

#include <optional>
#include <string>

#include "api/api.hpp"
#include "api/form_body.hpp"
#include "auth/oidc/client_auth.hpp"

namespace authd {

// The credentials `request` presents. Nothing, with `problem` set (for an
// invalid_request's error_description), when they are malformed or two
// methods were used at once: several Authorization fields, a scheme other
// than Basic, Basic credentials that are not base64 of "id:secret" with
// both parts form-urlencoded, client_id or client_secret given twice, a
// client_secret in the body besides Basic, a body client_id other than
// Basic's, a client_secret without a client_id.
//
// A malformed Basic header is invalid_request, not invalid_client: RFC 6749
// 5.2 names "otherwise malformed" requests and "more than one mechanism"
// under invalid_request, and a header that names no client cannot be a
// guess at one client's secret, so it is not counted as a failed login.
// A request with no credentials at all gives a PresentedClient with an
// empty id: invalid_client (RFC 6749 5.2, "no client authentication
// included"). An empty Basic password is no secret (method basic, secret
// absent): what some libraries send for public clients.
std::optional<PresentedClient> presented_client(const ApiRequest& request,
                                                const FormParameters& form, std::string& problem);

}  // namespace authd
