// The steps that the provider's client endpoints share (interface.md 17.7
// steps 1-3, 17.11): a form body, no parameter twice, and client
// authentication (17.3.3) with its throttling and events. Used by
// POST /oauth2/introspect.
#pragma once

#include <optional>

#include <boost/asio/awaitable.hpp>

#include "api/api.hpp"
#include "api/form_body.hpp"
#include "store/areas/oauth_clients.hpp"

namespace authd {

struct ClientFormRequest {
  std::optional<ApiResponse> refusal;  // set: the answer, in RFC 6749 5.2's shape
  FormParameters form;
  std::optional<OAuthClientRecord> client;  // without refusal: authenticated
};

boost::asio::awaitable<ClientFormRequest> authenticated_client_form(ApiContext& ctx,
                                                                    const ApiRequest& request);

}  // namespace authd
