// Rows for the OpenID provider's store conformance suites
// (store_conformance_oauth_test.cpp, store_conformance_oauth_tokens_test.cpp):
// a client, a waiting request, a code, an access token, a consent and a
// signing key, each with every member set, and a check that two read back
// the same.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store_conformance_fixture.hpp"

namespace authd {

template <class Backend>
class StoreConformanceOAuthFixture : public StoreConformanceFixture<Backend> {
 protected:
  static OAuthClientRecord client(const std::string& name, Millis at = 1'000) {
    OAuthClientRecord c;
    c.id = new_uuid_v4();
    c.name = name;
    c.confidential = true;
    c.secret_digest = sha256("secret of " + name);
    c.redirect_uris = {"https://" + name + ".example/cb", "http://127.0.0.1/cb"};
    c.post_logout_redirect_uris = {"https://" + name + ".example/bye"};
    c.grant_types = {"authorization_code", "refresh_token"};
    c.scopes = {"openid", "profile", "email"};
    c.created_at = c.updated_at = at;
    return c;
  }

  OAuthClientRecord stored_client(const std::string& name, Millis at = 1'000) {
    OAuthClientRecord c = client(name, at);
    this->write([&](Transaction& tx) { tx.oauth_clients().insert(c); });
    return c;
  }

  static AuthorizationRequestRecord request(const std::string& id, const OAuthClientRecord& c,
                                            Millis expires_at = 600'000) {
    return AuthorizationRequestRecord{sha256(id), c.id, R"({"state":")" + id + R"("})", 1'000,
                                      expires_at};
  }

  static AuthorizationCodeRecord code(const std::string& code, const OAuthClientRecord& c,
                                      const UserRecord& u, Millis expires_at = 61'000) {
    AuthorizationCodeRecord r;
    r.code_digest = sha256(code);
    r.client_id = c.id;
    r.user_id = u.id;
    r.redirect_uri = c.redirect_uris.front();
    r.scope = "openid email";
    r.nonce = "nonce of " + code;
    r.code_challenge = "challenge of " + code;
    r.session_digest = sha256("session of " + code);
    r.session_public_id = "sid-" + code;
    r.auth_time = 500;
    r.amr = "pwd otp mfa";
    r.created_at = 1'000;
    r.expires_at = expires_at;
    r.keep_until = expires_at + 600'000;
    return r;
  }

  static AccessTokenRecord token(const std::string& token, const std::string& grant,
                                 const OAuthClientRecord& c, const UserRecord& u,
                                 Millis expires_at = 601'000) {
    return AccessTokenRecord{sha256(token),  c.id,          u.id,
                             "openid email", sha256(grant), "sid-" + grant,
                             1'000,          expires_at,    ""};
  }

  static SigningKeyRecord key(const std::string& kid, const std::string& alg,
                              std::int64_t generation) {
    SigningKeyRecord k;
    k.kid = kid;
    k.alg = alg;
    k.generation = generation;
    k.public_jwk = R"({"kid":")" + kid + R"("})";
    k.sealed_private = "sealed " + kid;
    k.created_at = 1'000;
    k.signs_from = 2'000;
    return k;
  }

  template <class Result, class Work>
  Result read_value(Work&& work) {
    Result result{};
    this->read([&](Transaction& tx) { result = work(tx); });
    return result;
  }
  template <class Result, class Work>
  Result write_value(Work&& work) {
    Result result{};
    this->write([&](Transaction& tx) { result = work(tx); });
    return result;
  }
};

inline void expect_same_client(const OAuthClientRecord& a, const OAuthClientRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.confidential, b.confidential);
  EXPECT_EQ(a.secret_digest, b.secret_digest);
  EXPECT_EQ(a.previous_secret_digest, b.previous_secret_digest);
  EXPECT_EQ(a.previous_secret_until, b.previous_secret_until);
  EXPECT_EQ(a.redirect_uris, b.redirect_uris);
  EXPECT_EQ(a.post_logout_redirect_uris, b.post_logout_redirect_uris);
  EXPECT_EQ(a.grant_types, b.grant_types);
  EXPECT_EQ(a.scopes, b.scopes);
  EXPECT_EQ(a.first_party, b.first_party);
  EXPECT_EQ(a.access_token_format, b.access_token_format);
  EXPECT_EQ(a.id_token_alg, b.id_token_alg);
  EXPECT_EQ(a.introspection, b.introspection);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.updated_at, b.updated_at);
}

inline void expect_same_code(const AuthorizationCodeRecord& a, const AuthorizationCodeRecord& b) {
  EXPECT_EQ(a.code_digest, b.code_digest);
  EXPECT_EQ(a.client_id, b.client_id);
  EXPECT_EQ(a.user_id, b.user_id);
  EXPECT_EQ(a.redirect_uri, b.redirect_uri);
  EXPECT_EQ(a.scope, b.scope);
  EXPECT_EQ(a.nonce, b.nonce);
  EXPECT_EQ(a.code_challenge, b.code_challenge);
  EXPECT_EQ(a.session_digest, b.session_digest);
  EXPECT_EQ(a.session_public_id, b.session_public_id);
  EXPECT_EQ(a.auth_time, b.auth_time);
  EXPECT_EQ(a.amr, b.amr);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.expires_at, b.expires_at);
  EXPECT_EQ(a.used_at, b.used_at);
  EXPECT_EQ(a.keep_until, b.keep_until);
  EXPECT_EQ(a.resource, b.resource);
}

inline void expect_same_token(const AccessTokenRecord& a, const AccessTokenRecord& b) {
  EXPECT_EQ(a.token_digest, b.token_digest);
  EXPECT_EQ(a.client_id, b.client_id);
  EXPECT_EQ(a.user_id, b.user_id);
  EXPECT_EQ(a.scope, b.scope);
  EXPECT_EQ(a.grant_digest, b.grant_digest);
  EXPECT_EQ(a.session_public_id, b.session_public_id);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.expires_at, b.expires_at);
  EXPECT_EQ(a.resource, b.resource);
}

inline void expect_same_key(const SigningKeyRecord& a, const SigningKeyRecord& b) {
  EXPECT_EQ(a.kid, b.kid);
  EXPECT_EQ(a.alg, b.alg);
  EXPECT_EQ(a.generation, b.generation);
  EXPECT_EQ(a.public_jwk, b.public_jwk);
  EXPECT_EQ(a.sealed_private, b.sealed_private);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.signs_from, b.signs_from);
  EXPECT_EQ(a.retired_at, b.retired_at);
  EXPECT_EQ(a.remove_after, b.remove_after);
}

}  // namespace authd
