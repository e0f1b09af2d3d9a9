// Consent (interface.md 17.5) beside what ends it: a withdrawal voids the
// client's codes not yet exchanged, a code is not issued under a consent
// withdrawn since it was read, and (PostgreSQL, 8.2) the consent page's
// answer takes the user's row before the consent's.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "oidc_support.hpp"

namespace authd::test::consent_tests {
namespace {

// A third-party client and a browser signed in to authd.
struct ThirdParty {
  explicit ThirdParty(const AuthdProcess& authd)
      : authd(authd),
        cookie(signed_in(authd)),
        client(register_client(authd, {{"firstParty", false}})) {}

  HttpResponse authorize_for(const std::string& scope) {
    return authorize(authd, code_request(client["clientId"], pkce, scope), cookie);
  }

  // The waiting request the consent page is asked about.
  std::string consent_request(const std::string& scope) {
    HttpResponse res = authorize_for(scope);
    EXPECT_EQ(location_base(res), kIssuer + "/consent") << res.header("Location");
    return location_parameters(res)["request"];
  }

  HttpResponse allow(const std::string& request_id) {
    return send_request(authd.port(), "POST", "/oauth2/consent",
                        {{"Content-Type", "application/x-www-form-urlencoded"},
                         {"Cookie", "authd_session=" + cookie},
                         {"Origin", kIssuer}},
                        "request=" + request_id + "&decision=allow");
  }

  HttpResponse withdraw() {
    return send_request(authd.port(), "DELETE",
                        "/consents/" + client["clientId"].get<std::string>(),
                        {{"Authorization", "Bearer " + cookie}});
  }

  std::string user_id() { return get_with_token(authd.port(), "/me", cookie).json()["id"]; }

  const AuthdProcess& authd;
  std::string cookie;
  nlohmann::json client;
  Pkce pkce;
};

// 17.5: a code the client holds when the user withdraws consent is not
// exchanged afterwards (its tokens would outlive the withdrawal).
TEST(OidcConsent, Interface_17_5_5_AWithdrawalVoidsTheClientsCodesNotYetExchanged) {
  AuthdProcess authd(oidc_args());
  ThirdParty app(authd);
  ASSERT_EQ(app.allow(app.consent_request("openid")).status, 302);
  HttpResponse remembered = app.authorize_for("openid");
  std::string code = location_parameters(remembered)["code"];
  ASSERT_FALSE(code.empty()) << remembered.header("Location");
  ASSERT_EQ(app.withdraw().status, 204);
  HttpResponse exchanged = exchange_code(authd, app.client, code, app.pkce);
  EXPECT_EQ(exchanged.status, 400) << exchanged.body;
  EXPECT_EQ(exchanged.json().value("error", ""), "invalid_grant") << exchanged.body;
}

// 17.5, 8.2: the consent a request was decided on is read again under the
// user's lock; withdrawn meanwhile, the user is asked again, and no code
// is issued. The withdrawal is played by the database client, holding the
// user's row and deleting the consents as DELETE /consents does.
TEST(OidcConsent, Interface_17_5_5_NoCodeUnderAConsentWithdrawnSinceItWasRead) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args());
  ThirdParty app(authd);
  ASSERT_EQ(app.allow(app.consent_request("openid")).status, 302);
  HttpResponse answer = answer_beside_an_account_change(
      authd, app.user_id(), "oauth_consents", [&] { return app.authorize_for("openid"); });
  ASSERT_EQ(answer.status, 302) << answer.body;
  EXPECT_EQ(location_base(answer), kIssuer + "/consent") << answer.header("Location");
  EXPECT_EQ(location_parameters(answer).count("code"), 0u);
}

// 8.2: allowing more scopes updates the consent the user gave before and
// issues a code in one transaction: it locks the user's row before the
// consent's, as withdrawing consent and erasing the account lock the user
// and then delete the consents.
TEST(OidcConsent, Interface_8_2_AConsentWaitsForItsUserBeforeLockingTheConsent) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args());
  ThirdParty app(authd);
  ASSERT_EQ(app.allow(app.consent_request("openid")).status, 302);
  const std::string wider = app.consent_request("openid email");
  HttpResponse allowed = answer_beside_an_account_change(authd, app.user_id(), "oauth_consents",
                                                         [&] { return app.allow(wider); });
  ASSERT_EQ(allowed.status, 302) << allowed.body;
  EXPECT_FALSE(location_parameters(allowed)["code"].empty()) << allowed.header("Location");
}

// 8.2: a client's deletion locks the users of the client's consents before
// it deletes the client's waiting requests. Issuing the code of a resumed
// request holds the user's row and the consent, then removes the request:
// the deletion, holding the deleted request while waiting for the consent,
// deadlocked with it. Here the user has the consent and no code or token
// left (pruned); the database client plays the code's issue.
TEST(OidcConsent, Interface_8_2_AClientsDeletionWaitsForTheUsersOfItsConsents) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args());
  ThirdParty app(authd);
  ASSERT_EQ(app.allow(app.consent_request("openid")).status, 302);
  authd.sql("DELETE FROM oauth_codes");
  app.consent_request("openid email");  // a request waiting for the wider consent
  const std::string id = app.client["clientId"];
  const std::string key = admin::create_key(authd, "deleter");
  HttpResponse deleted = answer_beside_a_writer(
      authd,
      "SELECT 1 FROM users WHERE id = '" + app.user_id() +
          "' FOR UPDATE; SELECT 1 FROM oauth_consents WHERE client_id = '" + id + "' FOR UPDATE",
      "DELETE FROM oauth_authorization_requests WHERE client_id = '" + id + "'",
      [&] { return admin::call(authd, key, "DELETE", "/admin/clients/" + id); });
  EXPECT_EQ(deleted.status, 204) << deleted.body;
}

// 8.2: a client's deletion deletes the grants of the users it has locked
// only. A user whose first grant commits after the deletion read the
// client's users (here while it waits for a waiting request's row) is left
// to a later round, which locks that user first. Before, the deletion
// deleted that user's new code, then waited for the user's consent, which
// a withdrawal held while it waited for that code: a deadlock. The
// database clients play the first grant (a copy of the app user's consent
// and code, as the late user's) and the withdrawal.
TEST(OidcConsent, Interface_8_2_AClientsDeletionTouchesOnlyTheGrantsOfUsersItLocked) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args());
  ThirdParty app(authd);
  ASSERT_EQ(app.allow(app.consent_request("openid")).status, 302);  // a consent and a code
  app.consent_request("openid email");  // a request waiting for the wider consent
  authd.add_user("late@example.com", kPassword);
  const std::string late =
      lines(authd.sql("SELECT id FROM users WHERE email = 'late@example.com'"))[0];
  const std::string id = app.client["clientId"];
  const std::string late_grant = " WHERE user_id = '" + late + "' AND client_id = '" + id + "'";
  const std::string key = admin::create_key(authd, "deleter");

  HeldLock waiting_request(authd, "BEGIN; SELECT 1 FROM oauth_authorization_requests WHERE "
                                  "client_id = '" + id + "' FOR UPDATE");
  HttpResponse deleted;
  std::thread deletion([&] { deleted = admin::call(authd, key, "DELETE", "/admin/clients/" + id); });
  std::string withdrawn;
  auto play_the_others = [&] {
    if (!waits_for(authd, waiting_request)) return ADD_FAILURE() << "the deletion never waited";
    std::string granted = authd.sql(
        "CREATE TEMP TABLE c AS SELECT * FROM oauth_consents WHERE client_id = '" + id +
        "'; UPDATE c SET user_id = '" + late + "'; INSERT INTO oauth_consents SELECT * FROM c; "
        "CREATE TEMP TABLE k AS SELECT * FROM oauth_codes WHERE client_id = '" + id +
        "'; UPDATE k SET user_id = '" + late + "', code_digest = sha256(code_digest); "
        "INSERT INTO oauth_codes SELECT * FROM k");
    if (granted.find("ERROR") != std::string::npos) return ADD_FAILURE() << granted;
    HeldLock withdrawal(authd, "BEGIN; SELECT 1 FROM users WHERE id = '" + late +
                                   "' FOR UPDATE; DELETE FROM oauth_consents" + late_grant);
    waiting_request.release();
    if (!waits_for(authd, withdrawal)) return ADD_FAILURE() << "the deletion never met it";
    withdrawn = withdrawal.then("DELETE FROM oauth_codes" + late_grant);
    withdrawal.then("COMMIT");
  };
  try {
    play_the_others();
  } catch (...) {
    waiting_request.release();
    deletion.join();
    throw;
  }
  waiting_request.release();  // when a step above failed
  deletion.join();
  EXPECT_EQ(withdrawn.find("ERROR"), std::string::npos) << withdrawn;
  EXPECT_EQ(deleted.status, 204) << deleted.body;
  EXPECT_EQ(authd.sql("SELECT count(*) FROM oauth_clients WHERE id = '" + id + "'"), "0\n");
}

// 8.2: a waiting request is its user's (issuing a code locks the user,
// then removes the request), so a client's deletion that goes round again
// lets go of the requests it deleted. Here the deletion waits for the
// waiting request's row; meanwhile the late user's first code commits, and
// the late user's next code holds the user and waits for that request too.
// The deletion takes the request first, meets the first code's foreign key
// and goes round again, locking the late user. Before, it kept the request
// into that round: a deadlock. The database clients play the codes' issue.
TEST(OidcConsent, Interface_8_2_AClientsDeletionGoingRoundAgainLetsGoOfTheRequestsItDeleted) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args());
  ThirdParty app(authd);
  ASSERT_EQ(app.allow(app.consent_request("openid")).status, 302);  // a consent and a code
  app.consent_request("openid email");  // a waiting request
  authd.add_user("late@example.com", kPassword);
  const std::string late =
      lines(authd.sql("SELECT id FROM users WHERE email = 'late@example.com'"))[0];
  const std::string id = app.client["clientId"];
  const std::string key = admin::create_key(authd, "deleter");

  HeldLock waiting_request(authd, "BEGIN; SELECT 1 FROM oauth_authorization_requests WHERE "
                                  "client_id = '" + id + "' FOR UPDATE");
  HttpResponse deleted;
  std::thread deletion([&] { deleted = admin::call(authd, key, "DELETE", "/admin/clients/" + id); });
  std::string issued;
  auto play_the_others = [&] {
    if (!waits_for(authd, waiting_request)) return ADD_FAILURE() << "the deletion never waited";
    std::string first_code = authd.sql(
        "CREATE TEMP TABLE k AS SELECT * FROM oauth_codes WHERE client_id = '" + id +
        "'; UPDATE k SET user_id = '" + late + "', code_digest = sha256(code_digest); "
        "INSERT INTO oauth_codes SELECT * FROM k");
    if (first_code.find("ERROR") != std::string::npos) return ADD_FAILURE() << first_code;
    HeldLock next_code(authd, "BEGIN; SELECT 1 FROM users WHERE id = '" + late + "' FOR UPDATE");
    const std::string pid = next_code.backend_pid();
    next_code.start("DELETE FROM oauth_authorization_requests WHERE client_id = '" + id + "'");
    if (!waits_for_a_lock(authd, pid)) return ADD_FAILURE() << "the request was not held";
    waiting_request.release();  // the deletion, first in line, takes the request
    issued = next_code.finish();
    next_code.then("COMMIT");
  };
  try {
    play_the_others();
  } catch (...) {
    waiting_request.release();
    deletion.join();
    throw;
  }
  waiting_request.release();  // when a step above failed
  deletion.join();
  EXPECT_EQ(issued.find("ERROR"), std::string::npos) << issued;
  EXPECT_EQ(deleted.status, 204) << deleted.body;
  EXPECT_EQ(authd.sql("SELECT count(*) FROM oauth_clients WHERE id = '" + id + "'"), "0\n");
}

}  // namespace
}  // namespace authd::test::consent_tests
