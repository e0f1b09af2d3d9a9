// The OpenID provider's tables (interface.md 17) as both backends read
// them: the columns of each SELECT, and the one reading of a row into its
// record. A column added to one of these tables is added here once. Lists
// (redirect URIs, grant types, scopes) are kept as JSON arrays of strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/areas/oauth_clients.hpp"
#include "store/areas/oauth_grants.hpp"
#include "store/areas/oauth_tokens.hpp"
#include "store/areas/signing_keys.hpp"

// Macros so that they concatenate into string literals: both backends'
// connections cache statements by the literal's address.
#define AUTHD_OAUTH_CLIENT_COLUMNS                                                         \
  "id, name, confidential, secret_digest, previous_secret_digest, previous_secret_until, " \
  "redirect_uris, post_logout_redirect_uris, grant_types, scopes, first_party, "           \
  "access_token_format, id_token_alg, introspection, created_at, updated_at"
#define AUTHD_OAUTH_REQUEST_COLUMNS "id_digest, client_id, parameters, created_at, expires_at"
#define AUTHD_OAUTH_CODE_COLUMNS                                                         \
  "code_digest, client_id, user_id, redirect_uri, scope, nonce, code_challenge, "        \
  "session_digest, session_public_id, auth_time, amr, created_at, expires_at, used_at, " \
  "keep_until, resource"
// The access token's columns after the user's (AccessTokenStore::live_with_user
// joins users, whose created_at the token's is renamed away from).
#define AUTHD_OAUTH_TOKEN_COLUMNS                                                          \
  "token_digest, client_id, user_id, scope, grant_digest, session_public_id, created_at, " \
  "expires_at, resource"
#define AUTHD_OAUTH_TOKEN_COLUMNS_AS_JOINED                                    \
  "token_digest, client_id, user_id, scope, grant_digest, session_public_id, " \
  "token_created_at, expires_at, resource"
#define AUTHD_OAUTH_TOKEN_COLUMNS_RENAMED                                      \
  "token_digest, client_id, user_id, scope, grant_digest, session_public_id, " \
  "created_at AS token_created_at, expires_at, resource"
// interface.md 17.10: a refresh token (store/areas/oauth_tokens.hpp).
#define AUTHD_OAUTH_REFRESH_COLUMNS                                                       \
  "token_digest, family_digest, client_id, user_id, scope, resource, session_public_id, " \
  "auth_time, amr, created_at, expires_at, family_expires_at, used_at"
#define AUTHD_OAUTH_CONSENT_COLUMNS "user_id, client_id, scopes, granted_at, updated_at"
// The client_credentials grant's tokens (17.7); resource NULL for the issuer.
#define AUTHD_OAUTH_CLIENT_TOKEN_COLUMNS \
  "token_digest, client_id, scope, resource, created_at, expires_at"
#define AUTHD_SIGNING_KEY_COLUMNS                                                          \
  "kid, alg, generation, public_jwk, sealed_private, created_at, signs_from, retired_at, " \
  "remove_after"

namespace authd {

// An optional text column (the resource, RFC 8707) stored as NULL when
// empty.
inline std::optional<std::string> null_if_empty(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

// A list of strings as a JSON array's text, and back (StoreError when the
// text is not such an array).
std::string json_list(const std::vector<std::string>& items);
std::vector<std::string> parse_json_list(std::string_view text);

// `row` reads one result row by column index: text, optional_text, integer,
// optional_integer, boolean, digest and optional_digest (sqlite::Statement,
// postgres::Row).
template <class Row>
OAuthClientRecord read_oauth_client(const Row& row) {
  OAuthClientRecord c;
  c.id = row.text(0);
  c.name = row.text(1);
  c.confidential = row.boolean(2);
  c.secret_digest = row.optional_digest(3);
  c.previous_secret_digest = row.optional_digest(4);
  c.previous_secret_until = row.optional_integer(5);
  c.redirect_uris = parse_json_list(row.text(6));
  c.post_logout_redirect_uris = parse_json_list(row.text(7));
  c.grant_types = parse_json_list(row.text(8));
  c.scopes = parse_json_list(row.text(9));
  c.first_party = row.boolean(10);
  c.access_token_format = row.text(11);
  c.id_token_alg = row.text(12);
  c.introspection = row.boolean(13);
  c.created_at = row.integer(14);
  c.updated_at = row.integer(15);
  return c;
}

template <class Row>
AuthorizationRequestRecord read_authorization_request(const Row& row) {
  return AuthorizationRequestRecord{row.digest(0), row.text(1), row.text(2), row.integer(3),
                                    row.integer(4)};
}

template <class Row>
AuthorizationCodeRecord read_authorization_code(const Row& row) {
  AuthorizationCodeRecord c;
  c.code_digest = row.digest(0);
  c.client_id = row.text(1);
  c.user_id = row.text(2);
  c.redirect_uri = row.text(3);
  c.scope = row.text(4);
  c.nonce = row.text(5);
  c.code_challenge = row.text(6);
  c.session_digest = row.digest(7);
  c.session_public_id = row.text(8);
  c.auth_time = row.integer(9);
  c.amr = row.text(10);
  c.created_at = row.integer(11);
  c.expires_at = row.integer(12);
  c.used_at = row.optional_integer(13);
  c.keep_until = row.integer(14);
  c.resource = row.optional_text(15).value_or("");
  return c;
}

// The token's columns from `first` on.
template <class Row>
AccessTokenRecord read_access_token(const Row& row, int first = 0) {
  AccessTokenRecord t;
  t.token_digest = row.digest(first);
  t.client_id = row.text(first + 1);
  t.user_id = row.text(first + 2);
  t.scope = row.text(first + 3);
  t.grant_digest = row.digest(first + 4);
  t.session_public_id = row.text(first + 5);
  t.created_at = row.integer(first + 6);
  t.expires_at = row.integer(first + 7);
  t.resource = row.optional_text(first + 8).value_or("");
  return t;
}

// An absent resource (NULL) reads as empty: the issuer.
template <class Row>
RefreshTokenRecord read_refresh_token(const Row& row) {
  RefreshTokenRecord t;
  t.token_digest = row.digest(0);
  t.family_digest = row.digest(1);
  t.client_id = row.text(2);
  t.user_id = row.text(3);
  t.scope = row.text(4);
  t.resource = row.optional_text(5).value_or("");
  t.session_public_id = row.text(6);
  t.auth_time = row.integer(7);
  t.amr = row.text(8);
  t.created_at = row.integer(9);
  t.expires_at = row.integer(10);
  t.family_expires_at = row.integer(11);
  t.used_at = row.optional_integer(12);
  return t;
}

template <class Row>
ConsentRecord read_consent(const Row& row) {
  return ConsentRecord{row.text(0), row.text(1), parse_json_list(row.text(2)), row.integer(3),
                       row.integer(4)};
}

template <class Row>
SigningKeyRecord read_signing_key(const Row& row) {
  SigningKeyRecord k;
  k.kid = row.text(0);
  k.alg = row.text(1);
  k.generation = row.integer(2);
  k.public_jwk = row.text(3);
  k.sealed_private = row.text(4);
  k.created_at = row.integer(5);
  k.signs_from = row.integer(6);
  k.retired_at = row.optional_integer(7);
  k.remove_after = row.optional_integer(8);
  return k;
}

template <class Row>
ClientTokenRecord read_client_token(const Row& row) {
  ClientTokenRecord t;
  t.token_digest = row.digest(0);
  t.client_id = row.text(1);
  t.scope = row.text(2);
  t.resource = row.optional_text(3).value_or("");
  t.created_at = row.integer(4);
  t.expires_at = row.integer(5);
  return t;
}

}  // namespace authd
