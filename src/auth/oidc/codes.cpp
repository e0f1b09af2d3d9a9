#include "auth/oidc/codes.hpp"

#include <algorithm>

#include <sodium.h>

#include "crypto/random.hpp"

namespace authd {

IssuedCode new_authorization_code(const OidcSettings& oidc,
                                  const AuthorizationParameters& parameters,
                                  const SessionRecord& session, Millis now) {
  IssuedCode issued;
  issued.code = new_secret_token(kAuthorizationCodePrefix);
  AuthorizationCodeRecord& record = issued.record;
  record.code_digest = sha256(issued.code);
  record.client_id = parameters.client_id;
  record.user_id = session.user_id;
  record.redirect_uri = parameters.redirect_uri;
  record.scope = parameters.scope_text();
  record.nonce = parameters.nonce.value_or("");
  record.code_challenge = parameters.code_challenge;
  record.session_digest = session.token_digest;
  record.session_public_id = session.public_id;
  record.auth_time = session.created_at;
  record.amr = session.amr;
  record.created_at = now;
  record.expires_at = now + oidc.code_lifetime.count();
  record.resource = parameters.resource;
  record.keep_until = record.expires_at + oidc.access_token_ttl.count() + 60'000;
  return issued;
}

bool pkce_verifier_matches(std::string_view verifier, std::string_view challenge) {
  bool well_formed = verifier.size() >= 43 && verifier.size() <= 128 &&
                     std::all_of(verifier.begin(), verifier.end(), [](char c) {
                       return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                              (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
                              c == '~';
                     });
  if (!well_formed) return false;
  Sha256Digest digest = sha256(verifier);
  std::string computed = base64url(digest.data(), digest.size());
  return computed.size() == challenge.size() &&
         sodium_memcmp(computed.data(), challenge.data(), computed.size()) == 0;
}

}  // namespace authd
