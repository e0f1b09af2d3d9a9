// The linking rules of interface.md 18.3 (auth/upstream/linking.hpp), on
// SQLite and on PostgreSQL (the PostgreSQL cases skip unless
// AUTHD_TEST_POSTGRES names a server): every combination of a known or
// unknown link, an account with the upstream's e-mail or none, that
// account's e-mail verified or not, the upstream's verified or not,
// sign-up open or closed, and the account reached disabled or not; then the
// advisories of docs/design/threat-model/upstream-linking.md one by one,
// linking while signed in, and the ways to sign in that unlinking counts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth/upstream/identities.hpp"
#include "auth/upstream/linking.hpp"
#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

using Outcome = UpstreamSignInOutcome;

const EventSource kSelf{"self", "192.0.2.1", std::nullopt, ""};

// One combination of the six conditions.
struct Case {
  bool known_link;
  bool account_exists;  // an account (other than the link's) holds the upstream's e-mail
  bool account_verified;
  bool upstream_verified;
  bool signup_open;
  bool disabled;  // the account the rules would reach: the link's, or the e-mail's

  std::string name() const {
    return std::string(known_link ? "known" : "unknown") + (account_exists ? "+account" : "") +
           (account_verified ? "+verified" : "") + (upstream_verified ? "+upstream_verified" : "") +
           (signup_open ? "+signup" : "") + (disabled ? "+disabled" : "");
  }

  // 18.3 restated, condition by condition.
  Outcome expected() const {
    if (known_link) return disabled ? Outcome::account_disabled : Outcome::known_link;
    if (account_exists) {
      if (!account_verified || !upstream_verified) return Outcome::link_from_account;
      return disabled ? Outcome::account_disabled : Outcome::linked_by_email;
    }
    return signup_open ? Outcome::created : Outcome::signup_closed;
  }
};

std::vector<Case> every_case() {
  std::vector<Case> cases;
  for (int bits = 0; bits < 64; ++bits)
    cases.push_back(Case{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0,
                         (bits & 16) != 0, (bits & 32) != 0});
  return cases;
}

template <class Backend>
class UpstreamLinking : public StoreConformanceFixture<Backend> {
 protected:
  UserRecord account(const std::string& email, bool verified, bool disabled) {
    UserRecord u = StoreConformanceFixture<Backend>::user(email);
    if (verified) u.email_verified_at = 500;
    u.disabled = disabled;
    this->write([&](Transaction& tx) { ASSERT_TRUE(tx.users().insert(u)); });
    return u;
  }

  void link(const UserRecord& user, const std::string& provider, const std::string& subject) {
    this->write([&](Transaction& tx) {
      ASSERT_TRUE(tx.identities().insert(
          {new_uuid_v4(), user.id, provider, subject, user.email, 1'000, std::nullopt}));
    });
  }

  UpstreamSignIn resolve(const UpstreamAccount& upstream, bool signup_open, Millis now = 9'000) {
    UpstreamSignIn result;
    this->write([&](Transaction& tx) {
      result = resolve_upstream_sign_in(tx, upstream, signup_open, kSelf, now);
    });
    return result;
  }

  LinkOutcome link_signed_in(const std::string& user_id, const UpstreamAccount& upstream) {
    LinkOutcome outcome = LinkOutcome::unavailable;
    this->write(
        [&](Transaction& tx) { outcome = link_identity(tx, user_id, upstream, kSelf, 9'000); });
    return outcome;
  }

  std::vector<EventRecord> events(const std::string& type) {
    std::vector<EventRecord> found;
    this->read([&](Transaction& tx) {
      EventFilter filter;
      filter.type = type;
      found = tx.events().list(filter);
    });
    return found;
  }

  std::optional<IdentityRecord> link_of(const std::string& provider, const std::string& subject) {
    std::optional<IdentityRecord> found;
    this->read([&](Transaction& tx) { found = tx.identities().by_subject(provider, subject); });
    return found;
  }

  std::optional<UserRecord> user_by_email(const std::string& email) {
    std::optional<UserRecord> found;
    this->read([&](Transaction& tx) { found = tx.users().by_email(email); });
    return found;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(UpstreamLinking, Backends);

// 18.3: the 64 combinations, each with its own addresses and subject in one
// store: the outcome, the account reached, and what was written.
TYPED_TEST(UpstreamLinking, Interface_18_3_EveryCombinationOfTheLinkingRules) {
  int n = 0;
  for (const Case& c : every_case()) {
    SCOPED_TRACE(c.name());
    const std::string email = "c" + std::to_string(++n) + "@example.com";
    const std::string subject = "subject-" + std::to_string(n);
    std::optional<UserRecord> holder;  // the account with the upstream's e-mail
    std::optional<UserRecord> owner;   // the known link's account
    if (c.account_exists)
      holder = this->account(email, c.account_verified, !c.known_link && c.disabled);
    if (c.known_link) {
      owner = this->account("owner-" + email, true, c.disabled);
      this->link(*owner, "corp", subject);
    }
    UpstreamAccount upstream{"corp", subject, email, c.upstream_verified, "Ann"};

    UpstreamSignIn got = this->resolve(upstream, c.signup_open);
    ASSERT_EQ(got.outcome, c.expected());
    std::optional<IdentityRecord> link = this->link_of("corp", subject);
    switch (got.outcome) {
      case Outcome::known_link:
        ASSERT_TRUE(got.user);
        EXPECT_EQ(got.user->id, owner->id);  // never the e-mail's account
        EXPECT_EQ(got.identity_id, link->id);
        EXPECT_EQ(link->last_used_at, std::optional<Millis>(9'000));
        break;
      case Outcome::linked_by_email:
        ASSERT_TRUE(got.user);
        EXPECT_EQ(got.user->id, holder->id);
        ASSERT_TRUE(link);
        EXPECT_EQ(link->user_id, holder->id);
        EXPECT_EQ(link->email, email);
        break;
      case Outcome::created: {
        ASSERT_TRUE(got.user);
        std::optional<UserRecord> made = this->user_by_email(email);
        ASSERT_TRUE(made);
        EXPECT_EQ(made->id, got.user->id);
        EXPECT_FALSE(made->password_hash);  // no password: /login never succeeds
        EXPECT_EQ(made->email_verified_at.has_value(), c.upstream_verified);
        EXPECT_EQ(made->display_name, std::optional<std::string>("Ann"));
        ASSERT_TRUE(link);
        EXPECT_EQ(link->user_id, made->id);
        break;
      }
      default:
        EXPECT_FALSE(got.user);
        EXPECT_TRUE(got.identity_id.empty());
        // Refused: nothing linked, nothing created, the account unchanged.
        if (c.known_link) {
          EXPECT_EQ(link->last_used_at, std::nullopt);
        } else {
          EXPECT_FALSE(link);
        }
        if (!c.account_exists) {
          EXPECT_FALSE(this->user_by_email(email));
        }
    }
  }
  // One identity.linked per link made, one user.created per account.
  int linked = 0;
  int created = 0;
  for (const Case& c : every_case()) {
    if (c.expected() == Outcome::linked_by_email || c.expected() == Outcome::created) ++linked;
    if (c.expected() == Outcome::created) ++created;
  }
  EXPECT_EQ(this->events("identity.linked").size(), static_cast<std::size_t>(linked));
  EXPECT_EQ(this->events("user.created").size(), static_cast<std::size_t>(created));
}

// 18.3, pre-hijacking: an account made with the victim's address before
// the victim proved it (its e-mail unverified) is not reached by the
// victim's upstream sign-in, even with the upstream vouching for the
// address and sign-up open; the victim is told to sign in and link.
TYPED_TEST(UpstreamLinking, Interface_18_3_AnUnverifiedAccountIsNeverTakenOver) {
  UserRecord squatted = this->account("victim@example.com", false, false);
  UpstreamSignIn got = this->resolve({"corp", "victim", "victim@example.com", true, ""}, true);
  EXPECT_EQ(got.outcome, Outcome::link_from_account);
  EXPECT_FALSE(this->link_of("corp", "victim"));
  std::optional<UserRecord> after = this->user_by_email("victim@example.com");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->id, squatted.id);
  EXPECT_FALSE(after->email_verified_at);
  EXPECT_TRUE(this->events("identity.linked").empty());
}

// 18.3: an upstream that does not vouch for the address never reaches an
// existing account, verified or not, whatever the sign-up setting.
TYPED_TEST(UpstreamLinking, Interface_18_3_AnUnverifiedUpstreamEmailNeverReachesAnAccount) {
  this->account("ann@example.com", true, false);
  for (bool signup : {false, true}) {
    UpstreamSignIn got = this->resolve({"corp", "mallory", "ann@example.com", false, ""}, signup);
    EXPECT_EQ(got.outcome, Outcome::link_from_account);
    EXPECT_FALSE(got.user);
  }
  EXPECT_FALSE(this->link_of("corp", "mallory"));
}

// 18.3: a link is by subject: an upstream that changes its user's e-mail
// (to another account's address, verified) still signs in the linked
// account, never the other.
TYPED_TEST(UpstreamLinking, Interface_18_3_AKnownLinkIgnoresAChangedUpstreamEmail) {
  UserRecord owner = this->account("owner@example.com", true, false);
  UserRecord other = this->account("other@example.com", true, false);
  this->link(owner, "corp", "s1");
  UpstreamSignIn got = this->resolve({"corp", "s1", "other@example.com", true, ""}, true);
  EXPECT_EQ(got.outcome, Outcome::known_link);
  ASSERT_TRUE(got.user);
  EXPECT_EQ(got.user->id, owner.id);
  std::vector<IdentityRecord> others;
  this->read([&](Transaction& tx) { others = tx.identities().of_user(other.id); });
  EXPECT_TRUE(others.empty());
}

// 18.3: a subject is per provider: the same subject at another provider is
// not the link.
TYPED_TEST(UpstreamLinking, Interface_18_3_ASubjectAtAnotherProviderIsNotTheLink) {
  UserRecord owner = this->account("owner@example.com", true, false);
  this->link(owner, "corp", "42");
  UpstreamSignIn got = this->resolve({"github", "42", "someone@example.com", true, ""}, false);
  EXPECT_EQ(got.outcome, Outcome::signup_closed);
}

// 18.3: sign-up needs an address (an account has one, 2.5): an upstream
// that gives none, or one that is not valid by 3.1, creates nothing; the
// address is kept in its canonical form.
TYPED_TEST(UpstreamLinking, Interface_18_3_SignupNeedsAValidAddress) {
  EXPECT_EQ(this->resolve({"github", "1", "", true, ""}, true).outcome, Outcome::no_email);
  EXPECT_EQ(this->resolve({"github", "2", "not an address", true, ""}, true).outcome,
            Outcome::no_email);
  UpstreamSignIn got = this->resolve({"github", "3", "Ann@Example.COM", true, ""}, true);
  ASSERT_EQ(got.outcome, Outcome::created);
  EXPECT_EQ(got.user->email, "ann@example.com");
  // A display name outside 10.4's rules is left out, not refused.
  UpstreamSignIn nameless =
      this->resolve({"github", "4", "bob@example.com", true, std::string(300, 'b')}, true);
  ASSERT_EQ(nameless.outcome, Outcome::created);
  EXPECT_FALSE(nameless.user->display_name);
}

// 18.3: a second sign-in through a link just made signs the same account in.
TYPED_TEST(UpstreamLinking, Interface_18_3_ALinkJustMadeSignsInAgain) {
  UpstreamSignIn first = this->resolve({"corp", "s", "new@example.com", true, ""}, true);
  ASSERT_EQ(first.outcome, Outcome::created);
  UpstreamSignIn second = this->resolve({"corp", "s", "new@example.com", true, ""}, false, 10'000);
  ASSERT_EQ(second.outcome, Outcome::known_link);
  EXPECT_EQ(second.user->id, first.user->id);
  EXPECT_EQ(second.identity_id, first.identity_id);
}

// 18.4: linking while signed in needs no e-mail rule (the session proved
// the account), and links a (provider, subject) to one account only.
TYPED_TEST(UpstreamLinking, Interface_18_4_LinkingWhileSignedIn) {
  UserRecord unverified = this->account("unverified@example.com", false, false);
  UserRecord other = this->account("other@example.com", true, false);
  UpstreamAccount upstream{"corp", "s", "whatever@corp.example", false, ""};
  EXPECT_EQ(this->link_signed_in(unverified.id, upstream), LinkOutcome::linked);
  EXPECT_EQ(this->link_signed_in(unverified.id, upstream), LinkOutcome::already_linked_here);
  EXPECT_EQ(this->link_signed_in(other.id, upstream), LinkOutcome::linked_to_another_account);
  EXPECT_EQ(this->link_signed_in("01900000-0000-7000-8000-000000000000", upstream),
            LinkOutcome::no_account);
  std::optional<IdentityRecord> link = this->link_of("corp", "s");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->user_id, unverified.id);
  std::vector<EventRecord> linked = this->events("identity.linked");
  ASSERT_EQ(linked.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(linked.front().detail),
            (nlohmann::json{{"identityId", link->id}, {"provider", "corp"}, {"how", "account"}}));
}

// 18.4: the ways to sign in besides a link: the password, the passkeys
// while passkeys are served, a mail while --email-signin is on, the other
// links.
TYPED_TEST(UpstreamLinking, Interface_18_4_TheWaysToSignInBesidesALink) {
  UserRecord u = this->account("ways@example.com", true, false);
  u.password_hash.reset();
  this->write([&](Transaction& tx) { tx.users().update(u); });
  this->link(u, "corp", "1");
  std::string corp = this->link_of("corp", "1")->id;
  AuthPolicy policy;
  auto ways = [&](const UserRecord& user, const AuthPolicy& p, const std::string& except) {
    std::int64_t n = -1;
    this->read([&](Transaction& tx) { n = other_sign_in_ways(tx, p, user, except); });
    return n;
  };
  EXPECT_EQ(ways(u, policy, corp), 0);
  EXPECT_EQ(ways(u, policy, ""), 1);

  AuthPolicy mail = policy;
  mail.email_signin = true;
  EXPECT_EQ(ways(u, mail, corp), 1);

  PasskeyRecord key;
  key.id = "key";
  key.user_id = u.id;
  key.name = "Key";
  key.algorithm = -7;
  key.public_key = "BAAB";
  this->write([&](Transaction& tx) { ASSERT_TRUE(tx.passkeys().insert(key)); });
  EXPECT_EQ(ways(u, policy, corp), 0);  // passkeys not served: not a way
  AuthPolicy passkeys = policy;
  passkeys.webauthn.id = "example.com";
  EXPECT_EQ(ways(u, passkeys, corp), 1);

  this->link(u, "github", "1");
  EXPECT_EQ(ways(u, policy, corp), 1);

  UserRecord with_password = this->account("password@example.com", false, false);
  EXPECT_EQ(ways(with_password, policy, ""), 1);
}

// 18.3: a mail that first proves the address of an account (a reset, a
// sign-in by mail) removes the links made before, each with its event.
TYPED_TEST(UpstreamLinking, Interface_18_3_AFirstProofOfTheAddressRemovesTheLinks) {
  UpstreamSignIn made = this->resolve({"corp", "s", "squat@example.com", false, ""}, true);
  ASSERT_EQ(made.outcome, Outcome::created);
  std::int64_t removed = -1;
  this->write(
      [&](Transaction& tx) { removed = unlink_on_first_proof(tx, kSelf, made.user->id, 10'000); });
  EXPECT_EQ(removed, 1);
  EXPECT_FALSE(this->link_of("corp", "s"));
  std::vector<EventRecord> unlinked = this->events("identity.unlinked");
  ASSERT_EQ(unlinked.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(unlinked.front().detail)["reason"], "address_proved");
}

}  // namespace
}  // namespace authd
