// Consent (interface.md 17.5) beside what ends it: a withdrawal voids the
// client's codes not yet exchanged, a code is not issued under a consent
// withdrawn since it was read, and (PostgreSQL, 8.2) the consent page's
// answer takes the user's row before the consent's.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

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

// The deletion below waits while the database's clients start one after
// the other: on a loaded machine that can pass the default 5 s deadline.
const std::vector<std::string> kPatientDatabase = {"--database-timeout", "30s"};

// PostgreSQL, 8.2: a client's deletion held up by the row of a waiting
// request, beside a late user with no grant yet whose transactions the
// database's clients play. The app user has a consent and a code, and a
// request waits for a wider consent.
struct DeletionHeldByARequest {
  explicit DeletionHeldByARequest(AuthdProcess& authd) : authd(authd), app(authd) {
    EXPECT_EQ(app.allow(app.consent_request("openid")).status, 302);
    app.consent_request("openid email");
    authd.add_user("late@example.com", kPassword);
    late = lines(authd.sql("SELECT id FROM users WHERE email = 'late@example.com'"))[0];
    id = app.client["clientId"];
    key = admin::create_key(authd, "deleter");
  }

  // SQL giving the late user a copy of the app user's rows of `table` (a
  // first grant), under a new `digest_column` when the table has one.
  std::string first_grant(const std::string& table, const std::string& digest_column = "") const {
    std::string set = "user_id = '" + late + "'";
    if (!digest_column.empty()) set += ", " + digest_column + " = sha256(" + digest_column + ")";
    const std::string copy = "copy_of_" + table;
    return "CREATE TEMP TABLE " + copy + " AS SELECT * FROM " + table + " WHERE client_id = '" +
           id + "'; UPDATE " + copy + " SET " + set + "; INSERT INTO " + table + " SELECT * FROM " +
           copy + ";";
  }

  // Holds the waiting request's row, starts the deletion, and once it waits
  // for that row runs `others` (which may let the row go); then expects the
  // client deleted (204, no row left).
  void expect_deletion_beside(const std::function<void(HeldLock& waiting_request)>& others) {
    HeldLock waiting_request(authd,
                             "BEGIN; SELECT 1 FROM oauth_authorization_requests WHERE "
                             "client_id = '" +
                                 id + "' FOR UPDATE");
    HttpResponse deleted;
    std::thread deletion(
        [&] { deleted = admin::call(authd, key, "DELETE", "/admin/clients/" + id); });
    try {
      if (waits_for(authd, waiting_request))
        others(waiting_request);
      else
        ADD_FAILURE() << "the deletion never waited";
    } catch (...) {
      waiting_request.release();
      deletion.join();
      throw;
    }
    waiting_request.release();  // when `others` failed before letting it go
    deletion.join();
    EXPECT_EQ(deleted.status, 204) << deleted.body;
    EXPECT_EQ(authd.sql("SELECT count(*) FROM oauth_clients WHERE id = '" + id + "'"), "0\n");
  }

  AuthdProcess& authd;
  ThirdParty app;
  std::string late;
  std::string id;
  std::string key;
};

// 8.2: a client's deletion deletes the grants of the users it has locked
// only. A user whose first grant commits after the deletion read the
// client's users (here while it waits for a waiting request's row) is left
// to a later round, which locks that user first. Before, the deletion
// deleted that user's new code, then waited for the user's consent, which
// a withdrawal held while it waited for that code: a deadlock.
TEST(OidcConsent, Interface_8_2_AClientsDeletionTouchesOnlyTheGrantsOfUsersItLocked) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args(kPatientDatabase));
  DeletionHeldByARequest held(authd);
  const std::string late_grant =
      " WHERE user_id = '" + held.late + "' AND client_id = '" + held.id + "'";
  held.expect_deletion_beside([&](HeldLock& waiting_request) {
    std::string granted = authd.sql(held.first_grant("oauth_consents") +
                                    held.first_grant("oauth_codes", "code_digest"));
    if (granted.find("ERROR") != std::string::npos) return ADD_FAILURE() << granted;
    HeldLock withdrawal(authd, "BEGIN; SELECT 1 FROM users WHERE id = '" + held.late +
                                   "' FOR UPDATE; DELETE FROM oauth_consents" + late_grant);
    waiting_request.release();
    if (!waits_for(authd, withdrawal)) return ADD_FAILURE() << "the deletion never met it";
    std::string withdrawn = withdrawal.then("DELETE FROM oauth_codes" + late_grant);
    EXPECT_EQ(withdrawn.find("ERROR"), std::string::npos) << withdrawn;
    withdrawal.then("COMMIT");
  });
}

// 8.2: a waiting request is its user's (issuing a code locks the user,
// then removes the request), so a client's deletion that goes round again
// lets go of the requests it deleted. Here the deletion waits for the
// waiting request's row; meanwhile the late user's first code commits, and
// the late user's next code holds the user and waits for that request too.
// The deletion takes the request first, meets the first code's foreign key
// and goes round again, locking the late user. Before, it kept the request
// into that round: a deadlock.
TEST(OidcConsent, Interface_8_2_AClientsDeletionGoingRoundAgainLetsGoOfTheRequestsItDeleted) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(oidc_args(kPatientDatabase));
  DeletionHeldByARequest held(authd);
  held.expect_deletion_beside([&](HeldLock& waiting_request) {
    std::string first_code = authd.sql(held.first_grant("oauth_codes", "code_digest"));
    if (first_code.find("ERROR") != std::string::npos) return ADD_FAILURE() << first_code;
    HeldLock next_code(authd,
                       "BEGIN; SELECT 1 FROM users WHERE id = '" + held.late + "' FOR UPDATE");
    const std::string pid = next_code.backend_pid();
    next_code.start("DELETE FROM oauth_authorization_requests WHERE client_id = '" + held.id + "'");
    if (!waits_for_a_lock(authd, pid)) return ADD_FAILURE() << "the request was not held";
    waiting_request.release();  // the deletion, first in line, takes the request
    std::string issued = next_code.finish();
    EXPECT_EQ(issued.find("ERROR"), std::string::npos) << issued;
    next_code.then("COMMIT");
  });
}

}  // namespace
}  // namespace authd::test::consent_tests
