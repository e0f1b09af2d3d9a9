#include "api/oauth_client_credentials.hpp"

#include <sodium.h>

#include "core/ascii.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {

// Longest Basic credentials read: a client id (a UUID) and a secret of
// authd's (51 characters), each at worst three times as long encoded.
constexpr std::size_t kMaxBasicBytes = 1024;

// Standard base64 (RFC 7617 2), with or without its padding.
std::optional<std::string> base64_decoded(std::string_view text) {
  if (text.empty() || text.size() > kMaxBasicBytes * 4 / 3 + 4) return std::nullopt;
  std::string out(text.size(), '\0');
  for (int variant : {sodium_base64_VARIANT_ORIGINAL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING}) {
    std::size_t length = 0;
    const char* end = nullptr;
    if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                          text.size(), nullptr, &length, &end, variant) == 0 &&
        end == text.data() + text.size()) {
      out.resize(length);
      return out;
    }
  }
  wipe(out);
  return std::nullopt;
}

// "Basic <base64 of id:secret>", both form-urlencoded (RFC 6749 2.3.1).
std::optional<PresentedClient> basic_credentials(std::string_view field, std::string& problem) {
  field = trim_ows(field);
  std::size_t space = field.find(' ');
  if (space == std::string_view::npos || !equals_ignoring_case(field.substr(0, space), "Basic")) {
    problem = "client authentication: Basic, or client_id in the body";
    return std::nullopt;
  }
  std::optional<std::string> decoded = base64_decoded(trim_ows(field.substr(space + 1)));
  std::size_t colon = decoded ? decoded->find(':') : std::string::npos;
  std::optional<std::string> id;
  std::optional<std::string> secret;
  if (colon != std::string::npos) {
    id = form_decode(std::string_view(*decoded).substr(0, colon));
    secret = form_decode(std::string_view(*decoded).substr(colon + 1));
  }
  if (decoded) wipe(*decoded);
  if (!id || !secret || id->empty()) {
    if (secret) wipe(*secret);
    problem = "Authorization: Basic credentials must be base64 of client_id:client_secret";
    return std::nullopt;
  }
  PresentedClient presented{std::move(*id), std::nullopt, PresentedClient::Method::basic};
  if (!secret->empty()) presented.secret = std::move(secret);
  return presented;
}

}  // namespace

std::optional<PresentedClient> presented_client(const ApiRequest& request,
                                                const FormParameters& form, std::string& problem) {
  for (const char* name : {"client_id", "client_secret"}) {
    if (form.is_repeated(name)) {
      problem = std::string(name) + ": given more than once";
      return std::nullopt;
    }
  }
  const std::string* body_id = form.find("client_id");
  const std::string* body_secret = form.find("client_secret");
  if (request.authorization.size() > 1) {
    problem = "Authorization: given more than once";
    return std::nullopt;
  }
  if (request.authorization.size() == 1) {
    std::optional<PresentedClient> basic = basic_credentials(request.authorization[0], problem);
    if (basic && body_secret) problem = "client authentication: Basic and client_secret at once";
    if (basic && body_id && *body_id != basic->id)
      problem = "client_id: differs from the Basic credentials";
    if (!problem.empty()) {
      if (basic && basic->secret) wipe(*basic->secret);
      return std::nullopt;
    }
    return basic;
  }
  if (!body_id) {
    if (!body_secret) return PresentedClient{};  // no client named: invalid_client
    problem = "client_secret: without client_id";
    return std::nullopt;
  }
  PresentedClient presented{*body_id, std::nullopt, PresentedClient::Method::none};
  if (body_secret) {
    presented.secret = *body_secret;
    presented.method = PresentedClient::Method::post;
  }
  return presented;
}

}  // namespace authd
