// The store conformance suite: every primitive of every store area
// (store/areas/), run unchanged on SQLite and on PostgreSQL. A backend that
// passes it behaves, as far as the domain can see, like the other. Where
// the two differ on purpose (SQLite marks a revoked session and prunes it
// later, PostgreSQL deletes it at once), the tests pin what both show: a
// revoked session is never found again and no longer counts as live.
//
// The PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a server;
// scripts/test.sh runs them there (ctest -R 'StoreConformance.*OnPostgres').
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "store/pruning.hpp"
#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

template <class Backend>
class StoreConformance : public StoreConformanceFixture<Backend> {
 protected:
  // A mail tried twice (due at 1,000), claimed until 60,000, then given
  // back by `give_back(tx, id, lease)`: under another lease first, which
  // must leave it claimed, then under its own. The mail's id.
  template <class GiveBack>
  std::int64_t claimed_and_given_back(GiveBack give_back) {
    std::int64_t id = 0;
    this->write(
        [&](Transaction& tx) { id = tx.outbox().enqueue(this->mail("a@example.com", 1'000)); });
    this->write([&](Transaction& tx) { tx.outbox().reschedule(id, 2, 1'000, "451 later"); });
    this->write([&](Transaction& tx) {
      ASSERT_TRUE(this->claim_one_due(tx, 2'000, 60'000));
      give_back(tx, id, 59'999);
      EXPECT_FALSE(this->claim_one_due(tx, 2'000, 70'000)) << "given back under another lease";
      give_back(tx, id, 60'000);
    });
    return id;
  }
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(StoreConformance, Backends);

void expect_same_user(const UserRecord& a, const UserRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.email, b.email);
  EXPECT_EQ(a.password_hash, b.password_hash);
  EXPECT_EQ(a.phone, b.phone);
  EXPECT_EQ(a.photo_url, b.photo_url);
  EXPECT_EQ(a.display_name, b.display_name);
  EXPECT_EQ(a.email_verified_at, b.email_verified_at);
  EXPECT_EQ(a.phone_verified_at, b.phone_verified_at);
  EXPECT_EQ(a.disabled, b.disabled);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.updated_at, b.updated_at);
}

// ---- users ----------------------------------------------------------------

// interface.md 2: every field of the User record survives a round trip, by
// e-mail and by id, nulls as nulls.
TYPED_TEST(StoreConformance, Interface_2_AUserReadsBackWithEveryColumnByEmailAndById) {
  UserRecord full = this->user("full@example.com");
  full.phone = "+15550100";
  full.photo_url = "https://example.com/p.png";
  full.display_name = "Ann Example";
  full.email_verified_at = 2'000;
  full.phone_verified_at = 3'000;
  full.disabled = true;
  UserRecord bare = this->user("bare@example.com");
  bare.password_hash.reset();
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.users().insert(full));
    EXPECT_TRUE(tx.users().insert(bare));
  });
  this->read([&](Transaction& tx) {
    auto by_email = tx.users().by_email("full@example.com");
    ASSERT_TRUE(by_email);
    expect_same_user(*by_email, full);
    auto by_id = tx.users().by_id(bare.id);
    ASSERT_TRUE(by_id);
    expect_same_user(*by_id, bare);
    EXPECT_FALSE(tx.users().by_email("nobody@example.com"));
    EXPECT_FALSE(tx.users().by_id(new_uuid_v7(1)));
  });
}

// One account per canonical e-mail (interface.md 2.5): the second insert is
// refused and the first account is left as it was.
TYPED_TEST(StoreConformance, InsertIsFalseWhenTheEmailIsTaken) {
  UserRecord first = this->stored_user("a@example.com");
  UserRecord second = this->user("a@example.com");
  second.display_name = "Impostor";
  this->write([&](Transaction& tx) { EXPECT_FALSE(tx.users().insert(second)); });
  this->read([&](Transaction& tx) {
    auto found = tx.users().by_email("a@example.com");
    ASSERT_TRUE(found);
    expect_same_user(*found, first);
    EXPECT_FALSE(tx.users().by_id(second.id));
  });
}

// The reads a write transaction makes without locking (interface.md 8.2):
// an address's holder, and an account's address.
TYPED_TEST(StoreConformance, Interface_8_2_EmailTakenAndEmailOfAnswerInAWriteTransaction) {
  UserRecord ada = this->stored_user("ada@example.com");
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.users().email_taken("ada@example.com"));
    EXPECT_FALSE(tx.users().email_taken("bob@example.com"));
    EXPECT_EQ(tx.users().email_of(ada.id), std::optional<std::string>("ada@example.com"));
    EXPECT_EQ(tx.users().email_of(new_uuid_v7(1'000)), std::nullopt);
  });
}

TYPED_TEST(StoreConformance, UpdateChangesEveryColumnButIdAndCreatedAt) {
  UserRecord u = this->stored_user("a@example.com");
  UserRecord changed = u;
  changed.email = "b@example.com";
  changed.password_hash = "$argon2id$v=19$m=128,t=2,p=1$c2FsdA$aGFzaA";
  changed.phone = "+15550101";
  changed.display_name = "B";
  changed.email_verified_at = 5'000;
  changed.disabled = true;
  changed.updated_at = 6'000;
  changed.created_at = 9'999;  // not written
  this->write([&](Transaction& tx) { tx.users().update(changed); });
  this->read([&](Transaction& tx) {
    auto found = tx.users().by_id(u.id);
    ASSERT_TRUE(found);
    changed.created_at = u.created_at;
    expect_same_user(*found, changed);
    EXPECT_FALSE(tx.users().by_email("a@example.com"));
  });
}

// interface.md 4.2: a transparent rehash changes the hash and nothing else,
// not even updated_at.
TYPED_TEST(StoreConformance, Interface_4_2_ReplacePasswordHashChangesOnlyTheHash) {
  UserRecord u = this->stored_user("a@example.com");
  const std::string rehashed = "$argon2id$v=19$m=256,t=3,p=1$c2FsdA$aGFzaA";
  this->write([&](Transaction& tx) { tx.users().replace_password_hash(u.id, rehashed); });
  this->read([&](Transaction& tx) {
    auto found = tx.users().by_id(u.id);
    ASSERT_TRUE(found);
    u.password_hash = rehashed;
    expect_same_user(*found, u);
  });
}

// interface.md 10.5: every write of a hash records its kind (algorithm and
// parameters, never salt or digest), in its own transaction: a rolled-back
// write leaves no kind behind; what authd cannot read records nothing.
TYPED_TEST(StoreConformance, Interface_10_5_EveryHashWriteRecordsItsKindInItsTransaction) {
  UserRecord a = this->user("a@example.com");  // m=64,t=1
  UserRecord b = this->user("b@example.com");
  b.password_hash.reset();
  this->write([&](Transaction& tx) {
    tx.users().insert(a);
    tx.users().insert(b);
  });
  this->write([&](Transaction& tx) {
    tx.users().replace_password_hash(a.id, "$argon2id$v=19$m=128,t=2,p=1$c2FsdA$aA");
    b.password_hash = "$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aA";
    tx.users().update(b);
    tx.users().replace_password_hash(a.id, "not a hash authd can read");
  });
  EXPECT_EQ(this->store_->run(Store::Mode::write,
                              [&](Transaction& tx) {
                                tx.users().replace_password_hash(
                                    a.id, "$argon2id$v=19$m=512,t=4,p=1$c2FsdA$aA");
                                throw StoreError("simulated failure");
                              }),
            StoreStatus::failed);
  this->read([&](Transaction& tx) {
    EXPECT_EQ(
        tx.users().password_hash_kinds(),
        (std::vector<std::string>{"$argon2i$v=19$m=4096,t=3,p=1", "$argon2id$v=19$m=128,t=2,p=1",
                                  "$argon2id$v=19$m=64,t=1,p=1"}));
  });
}

// ---- sessions -------------------------------------------------------------

// interface.md 5.1: a session is found by its token's digest, with its user
// and expiry, expired or not (the domain decides what expiry means).
TYPED_TEST(StoreConformance, Interface_5_1_ASessionIsFoundByDigestWithItsUserAndExpiry) {
  UserRecord u = this->stored_user("a@example.com");
  this->write([&](Transaction& tx) {
    tx.sessions().insert({sha256("live"), u.id, 1'000, 90'000});
    tx.sessions().insert({sha256("expired"), u.id, 1'000, 2'000});
  });
  this->read([&](Transaction& tx) {
    auto live = tx.sessions().user_of(sha256("live"));
    ASSERT_TRUE(live);
    expect_same_user(live->user, u);
    EXPECT_EQ(live->expires_at, 90'000);
    auto expired = tx.sessions().user_of(sha256("expired"));
    ASSERT_TRUE(expired);
    EXPECT_EQ(expired->expires_at, 2'000);
    EXPECT_FALSE(tx.sessions().user_of(sha256("never issued")));
  });
}

// interface.md 6 /logout 4: a revoked session is never found again, cannot
// be revoked twice and no longer counts as live; its user's other session
// is untouched.
TYPED_TEST(StoreConformance, Interface_6_Logout_4_ARevokedSessionIsGoneAndRevokesOnce) {
  UserRecord u = this->stored_user("a@example.com");
  const Millis now = 10'000;
  this->write([&](Transaction& tx) {
    tx.sessions().insert({sha256("t1"), u.id, 1'000, now + 60'000});
    tx.sessions().insert({sha256("t2"), u.id, 1'000, now + 60'000});
  });
  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.sessions().revoke(sha256("t1"), now)); });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().revoke(sha256("t1"), now));
    EXPECT_FALSE(tx.sessions().revoke(sha256("never issued"), now));
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().user_of(sha256("t1")));
    EXPECT_TRUE(tx.sessions().user_of(sha256("t2")));
    EXPECT_EQ(tx.sessions().live_count(now), 1);
  });
}

// interface.md 6 /logout: the logout's one step ends a live session and
// returns its user; an expired session, a disabled user's, one already
// revoked or an unknown digest is left as it is and returns none.
TYPED_TEST(StoreConformance, Interface_6_Logout_4_RevokeLiveEndsOnlyALiveSessionOfAnEnabledUser) {
  UserRecord alice = this->stored_user("alice@example.com");
  UserRecord off = this->user("off@example.com");
  off.disabled = true;
  this->write([&](Transaction& tx) { ASSERT_TRUE(tx.users().insert(off)); });
  const Millis now = 10'000;
  this->write([&](Transaction& tx) {
    tx.sessions().insert({sha256("live"), alice.id, 1'000, now + 60'000});
    tx.sessions().insert({sha256("expired"), alice.id, 1'000, now});
    tx.sessions().insert({sha256("disabled"), off.id, 1'000, now + 60'000});
  });
  this->write([&](Transaction& tx) {
    std::optional<UserRecord> ended = tx.sessions().revoke_live(sha256("live"), now);
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->id, alice.id);
    EXPECT_EQ(ended->email, "alice@example.com");
  });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().revoke_live(sha256("live"), now));
    EXPECT_FALSE(tx.sessions().revoke_live(sha256("expired"), now));
    EXPECT_FALSE(tx.sessions().revoke_live(sha256("disabled"), now));
    EXPECT_FALSE(tx.sessions().revoke_live(sha256("never issued"), now));
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().user_of(sha256("live")));
    EXPECT_TRUE(tx.sessions().user_of(sha256("expired")));
    EXPECT_TRUE(tx.sessions().user_of(sha256("disabled")));
  });
}

// interface.md 7.2: a password reset ends every session of its user, and
// only of that user.
TYPED_TEST(StoreConformance, Interface_7_2_DeleteOfUserEndsEverySessionOfThatUserOnly) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  this->write([&](Transaction& tx) {
    tx.sessions().insert({sha256("a1"), a.id, 1'000, 90'000});
    tx.sessions().insert({sha256("a2"), a.id, 1'000, 90'000});
    tx.sessions().insert({sha256("b1"), b.id, 1'000, 90'000});
  });
  this->write([&](Transaction& tx) { tx.sessions().delete_of_user(a.id); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().user_of(sha256("a1")));
    EXPECT_FALSE(tx.sessions().user_of(sha256("a2")));
    EXPECT_TRUE(tx.sessions().user_of(sha256("b1")));
    EXPECT_EQ(tx.sessions().live_count(1'000), 1);
  });
}

// interface.md 5.3: expired sessions are pruned, live ones stay; the live
// count ignores the expired ones even before the pruner runs.
TYPED_TEST(StoreConformance, Interface_5_3_PruneRemovesExpiredSessionsOnly) {
  UserRecord u = this->stored_user("a@example.com");
  this->write([&](Transaction& tx) {
    tx.sessions().insert({sha256("old1"), u.id, 1'000, 5'000});
    tx.sessions().insert({sha256("old2"), u.id, 1'000, 6'000});
    tx.sessions().insert({sha256("live"), u.id, 1'000, 60'000});
  });
  this->read([&](Transaction& tx) { EXPECT_EQ(tx.sessions().live_count(6'000), 1); });
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.sessions().prune(6'000), 2); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().user_of(sha256("old1")));
    EXPECT_FALSE(tx.sessions().user_of(sha256("old2")));
    EXPECT_TRUE(tx.sessions().user_of(sha256("live")));
  });
}

// A session with its public id and origin (interface.md 11.2).
SessionRecord session_of(const std::string& user_id, const std::string& token, Millis created,
                         Millis expires) {
  SessionRecord s{sha256(token), user_id, created, expires};
  s.public_id = new_uuid_v4();
  s.client_address = "192.0.2.1";
  s.user_agent = "agent of " + token;
  return s;
}

std::vector<std::string> ids_of(const std::vector<SessionRecord>& sessions) {
  std::vector<std::string> ids;
  for (const SessionRecord& s : sessions) ids.push_back(s.public_id);
  return ids;
}

// interface.md 11.2: a user's live sessions come back newest first with
// every column (public id, origin, null origin as null); revoked, expired
// and other users' sessions are left out.
TYPED_TEST(StoreConformance, Interface_11_2_ListLiveOfUserIsNewestFirstWithEveryColumn) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  const Millis now = 10'000;
  SessionRecord older = session_of(a.id, "older", 1'000, 90'000);
  SessionRecord newer = session_of(a.id, "newer", 2'000, 91'000);
  SessionRecord bare{sha256("bare"), a.id, 1'500, 92'000};  // as a release before migration 4
  bare.public_id = new_uuid_v4();
  this->write([&](Transaction& tx) {
    tx.sessions().insert(older);
    tx.sessions().insert(newer);
    tx.sessions().insert(bare);
    tx.sessions().insert(session_of(a.id, "expired", 3'000, now));
    tx.sessions().insert(session_of(a.id, "revoked", 4'000, 90'000));
    tx.sessions().insert(session_of(b.id, "other user", 5'000, 90'000));
  });
  this->write([&](Transaction& tx) { EXPECT_TRUE(tx.sessions().revoke(sha256("revoked"), now)); });
  this->read([&](Transaction& tx) {
    std::vector<SessionRecord> live = tx.sessions().list_live_of_user(a.id, now);
    ASSERT_EQ(ids_of(live),
              (std::vector<std::string>{newer.public_id, bare.public_id, older.public_id}));
    EXPECT_EQ(live[0].token_digest, newer.token_digest);
    EXPECT_EQ(live[0].user_id, a.id);
    EXPECT_EQ(live[0].created_at, 2'000);
    EXPECT_EQ(live[0].expires_at, 91'000);
    EXPECT_EQ(live[0].client_address, "192.0.2.1");
    EXPECT_EQ(live[0].user_agent, "agent of newer");
    EXPECT_EQ(live[1].client_address, std::nullopt);
    EXPECT_EQ(live[1].user_agent, std::nullopt);
    EXPECT_TRUE(tx.sessions().list_live_of_user("no-such-user", now).empty());
  });
}

// interface.md 11.3: a session is revoked by its public id only for its own
// user, only while live, and only once.
TYPED_TEST(StoreConformance, Interface_11_3_RevokeByPublicIdNeedsTheOwnerAndALiveSession) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  const Millis now = 10'000;
  SessionRecord mine = session_of(a.id, "mine", 1'000, 90'000);
  SessionRecord kept = session_of(a.id, "kept", 1'000, 90'000);
  SessionRecord expired = session_of(a.id, "expired", 1'000, now);
  this->write([&](Transaction& tx) {
    tx.sessions().insert(mine);
    tx.sessions().insert(kept);
    tx.sessions().insert(expired);
  });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().revoke_by_public_id_of_user(b.id, mine.public_id, now));
    EXPECT_FALSE(tx.sessions().revoke_by_public_id_of_user(a.id, expired.public_id, now));
    EXPECT_FALSE(tx.sessions().revoke_by_public_id_of_user(a.id, new_uuid_v4(), now));
  });
  this->read([&](Transaction& tx) { EXPECT_TRUE(tx.sessions().user_of(mine.token_digest)); });
  this->write([&](Transaction& tx) {
    EXPECT_TRUE(tx.sessions().revoke_by_public_id_of_user(a.id, mine.public_id, now));
  });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().revoke_by_public_id_of_user(a.id, mine.public_id, now));
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.sessions().user_of(mine.token_digest));
    EXPECT_TRUE(tx.sessions().user_of(kept.token_digest));
    EXPECT_EQ(ids_of(tx.sessions().list_live_of_user(a.id, now)),
              std::vector<std::string>{kept.public_id});
  });
}

// interface.md 11.1 and 11.3: every live session of the user but the kept
// one is revoked; other users' sessions stay.
TYPED_TEST(StoreConformance, Interface_11_3_RevokeOthersOfUserKeepsOneSessionAndOtherUsers) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  const Millis now = 10'000;
  SessionRecord current = session_of(a.id, "current", 1'000, 90'000);
  SessionRecord theirs = session_of(b.id, "theirs", 1'000, 90'000);
  this->write([&](Transaction& tx) {
    tx.sessions().insert(current);
    tx.sessions().insert(session_of(a.id, "other 1", 1'000, 90'000));
    tx.sessions().insert(session_of(a.id, "other 2", 2'000, 90'000));
    tx.sessions().insert(theirs);
  });
  this->write([&](Transaction& tx) {
    EXPECT_EQ(tx.sessions().revoke_others_of_user(a.id, current.token_digest, now), 2);
  });
  this->write([&](Transaction& tx) {
    EXPECT_EQ(tx.sessions().revoke_others_of_user(a.id, current.token_digest, now), 0);
  });
  this->read([&](Transaction& tx) {
    EXPECT_TRUE(tx.sessions().user_of(current.token_digest));
    EXPECT_FALSE(tx.sessions().user_of(sha256("other 1")));
    EXPECT_FALSE(tx.sessions().user_of(sha256("other 2")));
    EXPECT_TRUE(tx.sessions().user_of(theirs.token_digest));
    EXPECT_EQ(tx.sessions().live_count(now), 2);
  });
}

// ---- throttling -----------------------------------------------------------

// interface.md 6 /login 4: a throttle reads the newest events of its key
// after the window's start, at most as many as its limit, oldest first.
TYPED_TEST(StoreConformance, Interface_6_Login_4_EventTimesAreTheNewestOnesAfterTheHorizon) {
  this->write([&](Transaction& tx) {
    for (Millis at : {100, 200, 300, 400, 500}) tx.throttle().insert_event("login:k", at);
    tx.throttle().insert_event("login:other", 450);
  });
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.throttle().event_times("login:k", 150, 10),
              (std::vector<Millis>{200, 300, 400, 500}));
    EXPECT_EQ(tx.throttle().event_times("login:k", 0, 2), (std::vector<Millis>{400, 500}));
    EXPECT_EQ(tx.throttle().event_times("login:k", 500, 10), std::vector<Millis>{});
    EXPECT_EQ(tx.throttle().event_times("login:none", 0, 10), std::vector<Millis>{});
  });
}

// interface.md 6 /login 4: a success clears its key's count (delete_events);
// an attempt given back (a request that failed for another reason) is one
// event removed (delete_event). Other keys keep theirs.
TYPED_TEST(StoreConformance, Interface_6_Login_4_EventsAreRemovedOneByOneOrByKey) {
  std::int64_t second = 0;
  this->write([&](Transaction& tx) {
    tx.throttle().insert_event("k", 100);
    second = tx.throttle().insert_event("k", 200);
    tx.throttle().insert_event("k", 300);
    tx.throttle().insert_event("other", 300);
  });
  this->write([&](Transaction& tx) { tx.throttle().delete_event(second); });
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.throttle().event_times("k", 0, 10), (std::vector<Millis>{100, 300}));
  });
  this->write([&](Transaction& tx) { tx.throttle().delete_events("k"); });
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.throttle().event_times("k", 0, 10), std::vector<Millis>{});
    EXPECT_EQ(tx.throttle().event_times("other", 0, 10), std::vector<Millis>{300});
  });
}

TYPED_TEST(StoreConformance, PruneRemovesEventsAtOrBeforeTheHorizon) {
  this->write([&](Transaction& tx) {
    for (Millis at : {100, 200, 300}) tx.throttle().insert_event("k", at);
  });
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.throttle().prune(200), 2); });
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.throttle().event_times("k", 0, 10), std::vector<Millis>{300});
  });
}

// ---- outbox ---------------------------------------------------------------

// interface.md 6 /forgot 5: a counted request's event and its
// mail, added without asking for their ids (on PostgreSQL sent ahead, with
// no round trip of their own), are there for the same transaction's next
// statement, and committed with it.
TYPED_TEST(StoreConformance,
           Interface_6_Forgot_5_AddedEventsAndMailsAreSeenByTheNextStatementAndCommitted) {
  this->write([&](Transaction& tx) {
    tx.throttle().add_event("forgot:client:192.0.2.1", 100);
    tx.throttle().add_event("forgot:client:192.0.2.1", 200);
    EXPECT_EQ(tx.throttle().event_times("forgot:client:192.0.2.1", 0, 10),
              (std::vector<Millis>{100, 200}));
    tx.outbox().add(this->mail("added@example.com", 1'000));
    auto claimed = this->claim_one_due(tx, 10'000, 20'000);
    ASSERT_TRUE(claimed);
    EXPECT_EQ(claimed->email, "added@example.com");
    tx.outbox().add(this->mail("kept@example.com", 2'000));
  });
  this->read([&](Transaction& tx) {
    EXPECT_EQ(tx.throttle().event_times("forgot:client:192.0.2.1", 0, 10),
              (std::vector<Millis>{100, 200}));
  });
  this->write([&](Transaction& tx) {
    auto kept = this->claim_one_due(tx, 10'000, 20'000);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->email, "kept@example.com");
  });
}

// interface.md 6 /forgot 4: a due mail is claimed by one worker at a time,
// oldest due first; a claim holds it until its lease runs out, after which
// another claim may take it.
TYPED_TEST(StoreConformance, Interface_6_Forgot_4_ClaimDueTakesTheOldestDueMailUnderALease) {
  std::int64_t later = 0, earlier = 0;
  this->write([&](Transaction& tx) {
    later = tx.outbox().enqueue(this->mail("later@example.com", 2'000));
    earlier = tx.outbox().enqueue(this->mail("earlier@example.com", 1'000));
    tx.outbox().enqueue(this->mail("not-due@example.com", 50'000));
  });
  this->write([&](Transaction& tx) {
    auto first = this->claim_one_due(tx, 10'000, 20'000);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->id, earlier);
    EXPECT_EQ(first->email, "earlier@example.com");
    EXPECT_EQ(first->kind, "password_reset");
    auto second = this->claim_one_due(tx, 10'000, 20'000);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->id, later);
    EXPECT_FALSE(this->claim_one_due(tx, 10'000, 20'000)) << "both held, the third not due";
  });
  this->write([&](Transaction& tx) {
    auto again = this->claim_one_due(tx, 20'000, 30'000);  // the leases ran out
    ASSERT_TRUE(again);
    EXPECT_EQ(again->id, earlier);
  });
  this->read([&](Transaction& tx) { EXPECT_EQ(tx.outbox().pending_count(), 3); });
}

// interface.md 6 /forgot 4: one claim may take several due mails,
// up to its limit, oldest first, all under its one lease; what it leaves is
// for the next claim, and what it holds for nobody else.
TYPED_TEST(StoreConformance, Interface_6_Forgot_4_AClaimTakesUpToItsLimitOldestFirstUnderOneLease) {
  std::vector<std::int64_t> ids(4);
  this->write([&](Transaction& tx) {
    ids[2] = tx.outbox().enqueue(this->mail("third@example.com", 3'000));
    ids[0] = tx.outbox().enqueue(this->mail("first@example.com", 1'000));
    ids[3] = tx.outbox().enqueue(this->mail("fourth@example.com", 4'000));
    ids[1] = tx.outbox().enqueue(this->mail("second@example.com", 2'000));
    tx.outbox().enqueue(this->mail("not-due@example.com", 50'000));
  });
  this->write([&](Transaction& tx) {
    std::vector<OutboxRecord> batch = tx.outbox().claim_due(10'000, 20'000, 3);
    ASSERT_EQ(batch.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(batch[i].id, ids[i]) << "oldest first";
    std::vector<OutboxRecord> rest = tx.outbox().claim_due(10'000, 20'000, 3);
    ASSERT_EQ(rest.size(), 1u) << "the first three are held, the fifth not due";
    EXPECT_EQ(rest[0].id, ids[3]);
    EXPECT_TRUE(tx.outbox().claim_due(10'000, 20'000, 3).empty());
  });
  this->write([&](Transaction& tx) {
    for (std::int64_t id : ids) EXPECT_TRUE(tx.outbox().mark_sent(id, 11'000, 20'000)) << id;
  });
}

// A claimed mail given back untried is claimable again at once, with its
// attempts and due time as they were; only the lease that holds it can give
// it back.
TYPED_TEST(StoreConformance,
           Interface_6_Forgot_4_ReleaseGivesAMailBackUntriedUnderItsOwnLeaseOnly) {
  const std::int64_t id = this->claimed_and_given_back(
      [](Transaction& tx, std::int64_t mail, Millis lease) { tx.outbox().release(mail, lease); });
  this->write([&](Transaction& tx) {
    auto again = this->claim_one_due(tx, 2'000, 80'000);
    ASSERT_TRUE(again) << "released: claimable before its lease would have run out";
    EXPECT_EQ(again->attempts, 2);
    EXPECT_EQ(again->next_attempt_at, 1'000);
    EXPECT_TRUE(tx.outbox().mark_sent(id, 3'000, 80'000));
  });
}

// interface.md 8.2: a mail whose account another transaction holds is given
// back untried and due again only later, with no attempt counted (a claim
// does not wait for the account); only the lease that holds it can do so.
TYPED_TEST(StoreConformance, Interface_8_2_PostponeGivesAMailBackDueLaterUnderItsOwnLeaseOnly) {
  const std::int64_t id =
      this->claimed_and_given_back([](Transaction& tx, std::int64_t mail, Millis lease) {
        tx.outbox().postpone(mail, lease, 3'000);
      });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(this->claim_one_due(tx, 2'999, 80'000)) << "due only at 3,000";
    auto again = this->claim_one_due(tx, 3'000, 80'000);
    ASSERT_TRUE(again) << "postponed: claimable once due, before its lease would have run out";
    EXPECT_EQ(again->attempts, 2);
    EXPECT_EQ(again->next_attempt_at, 3'000);
    EXPECT_TRUE(tx.outbox().mark_sent(id, 3'500, 80'000));
  });
}

// The relay probe: the unsent mail with the earliest next attempt, due or not.
TYPED_TEST(StoreConformance, ClaimPendingTakesMailThatIsNotDueYet) {
  std::int64_t id = 0;
  this->write(
      [&](Transaction& tx) { id = tx.outbox().enqueue(this->mail("a@example.com", 50'000)); });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(this->claim_one_due(tx, 10'000, 20'000));
    auto pending = tx.outbox().claim_pending(10'000, 20'000);
    ASSERT_TRUE(pending);
    EXPECT_EQ(pending->id, id);
    EXPECT_FALSE(tx.outbox().claim_pending(10'000, 20'000)) << "held now";
  });
}

// interface.md 6 /forgot 4: a mail is marked sent only under the lease that
// claimed it, so a worker whose lease ran out and was taken over cannot
// mark it; a sent mail is never claimed again.
TYPED_TEST(StoreConformance, Interface_6_Forgot_4_MarkSentNeedsTheClaimsOwnLease) {
  std::int64_t id = 0;
  this->write(
      [&](Transaction& tx) { id = tx.outbox().enqueue(this->mail("a@example.com", 1'000)); });
  this->write([&](Transaction& tx) { ASSERT_TRUE(this->claim_one_due(tx, 1'000, 5'000)); });
  this->write([&](Transaction& tx) { ASSERT_TRUE(this->claim_one_due(tx, 6'000, 9'000)); });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(tx.outbox().mark_sent(id, 7'000, 5'000)) << "the first lease was taken over";
    EXPECT_TRUE(tx.outbox().mark_sent(id, 7'000, 9'000));
    EXPECT_FALSE(tx.outbox().mark_sent(id, 7'000, 9'000)) << "sent already";
  });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(this->claim_one_due(tx, 100'000, 200'000));
    EXPECT_FALSE(tx.outbox().claim_pending(100'000, 200'000));
    EXPECT_EQ(tx.outbox().pending_count(), 0);
  });
}

// A failed delivery is retried later: the claim is released and the next
// attempt set; the attempt count travels with the mail.
TYPED_TEST(StoreConformance, RescheduleReleasesTheClaimUntilTheNextAttempt) {
  std::int64_t id = 0;
  this->write(
      [&](Transaction& tx) { id = tx.outbox().enqueue(this->mail("a@example.com", 1'000)); });
  this->write([&](Transaction& tx) {
    ASSERT_TRUE(this->claim_one_due(tx, 1'000, 60'000));
    tx.outbox().reschedule(id, 1, 4'000, "451 try again later");
  });
  this->write([&](Transaction& tx) {
    EXPECT_FALSE(this->claim_one_due(tx, 3'000, 60'000)) << "not due before its next attempt";
    auto retried = this->claim_one_due(tx, 4'000, 60'000);
    ASSERT_TRUE(retried) << "the lease no longer holds it";
    EXPECT_EQ(retried->attempts, 1);
    EXPECT_EQ(retried->next_attempt_at, 4'000);
  });
}

TYPED_TEST(StoreConformance, RemoveDropsAMailAndPruneOnlySentOnesBeforeTheHorizon) {
  std::int64_t dropped = 0, sent_early = 0, sent_late = 0;
  this->write([&](Transaction& tx) {
    dropped = tx.outbox().enqueue(this->mail("dropped@example.com", 1'000));
    sent_early = tx.outbox().enqueue(this->mail("early@example.com", 1'000));
    sent_late = tx.outbox().enqueue(this->mail("late@example.com", 1'000));
    tx.outbox().enqueue(this->mail("unsent@example.com", 900'000));
  });
  this->write([&](Transaction& tx) {
    tx.outbox().remove(dropped);
    ASSERT_TRUE(this->claim_one_due(tx, 1'000, 5'000));
    ASSERT_TRUE(this->claim_one_due(tx, 1'000, 6'000));
    EXPECT_TRUE(tx.outbox().mark_sent(sent_early, 2'000, 5'000));
    EXPECT_TRUE(tx.outbox().mark_sent(sent_late, 8'000, 6'000));
  });
  this->write([&](Transaction& tx) { EXPECT_EQ(tx.outbox().prune(5'000), 1); });
  this->write([&](Transaction& tx) {
    EXPECT_EQ(tx.outbox().pending_count(), 1) << "the unsent mail stays";
    EXPECT_EQ(tx.outbox().prune(10'000'000), 1) << "the later sent mail, then";
    EXPECT_EQ(tx.outbox().pending_count(), 1);
  });
}

// interface.md 11.4: a sign-up's password hash and display name travel with
// its mail, retries included. A reset mail carries neither.
TYPED_TEST(StoreConformance, Interface_11_4_ASignupMailCarriesItsHashUntilSent) {
  std::int64_t id = 0;
  this->write([&](Transaction& tx) {
    id = tx.outbox().enqueue(this->signup_mail("new@example.com", 1'000));
    tx.outbox().enqueue(this->mail("reset@example.com", 2'000));
  });
  this->write([&](Transaction& tx) {
    auto claimed = this->claim_one_due(tx, 5'000, 9'000);
    ASSERT_TRUE(claimed);
    EXPECT_EQ(claimed->id, id);
    EXPECT_EQ(claimed->kind, "signup");
    EXPECT_EQ(claimed->password_hash, this->signup_mail("", 0).password_hash);
    EXPECT_EQ(claimed->display_name, std::optional<std::string>("Ann"));
    auto reset = this->claim_one_due(tx, 5'000, 9'000);
    ASSERT_TRUE(reset);
    EXPECT_FALSE(reset->password_hash);
    EXPECT_FALSE(reset->display_name);
    tx.outbox().reschedule(id, 1, 6'000, "451 later");
  });
  this->write([&](Transaction& tx) {
    auto retried = this->claim_one_due(tx, 6'000, 9'000);
    ASSERT_TRUE(retried);
    EXPECT_TRUE(retried->password_hash) << "a retry needs the hash again";
    EXPECT_TRUE(tx.outbox().mark_sent(id, 7'000, 9'000));
  });
  // That the sent row no longer holds the hash is checked at rest, through
  // SQL, by the integration tests (signup_test.cpp).
}

// interface.md 11.5: the newest sign-up request of an address is the
// newest row that still holds a hash: an unsent sign-up mail, or a request
// past the mail limit, which is kept as a handled row (never claimed). A
// sent mail holds none; reset mails and other addresses do not count; once
// the account exists, the requests' hashes are forgotten.
TYPED_TEST(StoreConformance, Interface_11_5_TheNewestSignupRequestOfAnAddress) {
  std::int64_t sent = 0, unsent = 0;
  this->write([&](Transaction& tx) {
    sent = tx.outbox().enqueue(this->signup_mail("a@example.com", 1'000));
    unsent = tx.outbox().enqueue(this->signup_mail("a@example.com", 50'000));
    tx.outbox().enqueue(this->mail("a@example.com", 2'000));
    tx.outbox().enqueue(this->signup_mail("b@example.com", 3'000));
  });
  this->write([&](Transaction& tx) {
    auto claimed = this->claim_one_due(tx, 1'000, 9'000);
    ASSERT_TRUE(claimed);
    EXPECT_EQ(claimed->client_address, std::optional<std::string>("192.0.2.7"));
    EXPECT_TRUE(tx.outbox().mark_sent(sent, 1'500, 9'000));
  });
  this->read([&](Transaction& tx) {
    auto newest = tx.outbox().newest_signup_request("a@example.com");
    ASSERT_TRUE(newest);
    EXPECT_EQ(newest->id, unsent);
    EXPECT_FALSE(tx.outbox().newest_signup_request("c@example.com"));
  });
  OutboxRecord past_limit = this->signup_mail("a@example.com", 0);
  past_limit.kind = "signup_request";
  past_limit.password_hash = "$argon2id$v=19$m=64,t=1,p=1$c2$bB";
  past_limit.display_name = std::nullopt;
  past_limit.client_address = "2001:db8::9";
  past_limit.created_at = 5'000;
  this->write([&](Transaction& tx) { tx.outbox().record_signup_request(past_limit); });
  this->read([&](Transaction& tx) {
    auto newest = tx.outbox().newest_signup_request("a@example.com");
    ASSERT_TRUE(newest);
    EXPECT_GT(newest->id, unsent);
    EXPECT_EQ(newest->kind, "signup_request");
    EXPECT_EQ(newest->password_hash, past_limit.password_hash);
    EXPECT_FALSE(newest->display_name);
    EXPECT_EQ(newest->client_address, past_limit.client_address);
    EXPECT_EQ(newest->created_at, 5'000);
    EXPECT_EQ(tx.outbox().pending_count(), 3) << "a request past the limit is no mail to send";
  });
  this->write([&](Transaction& tx) {
    std::vector<OutboxRecord> due = tx.outbox().claim_due(100'000, 109'000, 10);
    EXPECT_EQ(due.size(), 3u);
    for (const OutboxRecord& mail : due) EXPECT_NE(mail.kind, "signup_request");
  });
  this->write([&](Transaction& tx) { tx.outbox().forget_signup_requests("a@example.com"); });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.outbox().newest_signup_request("a@example.com"));
    EXPECT_TRUE(tx.outbox().newest_signup_request("b@example.com"));
  });
}

// ---- pending sign-ups -----------------------------------------------------

// interface.md 11.4-11.5: a pending sign-up is found by its token's digest
// with every field; one per address, a newer one voids the older token.
TYPED_TEST(StoreConformance, Interface_11_4_ANewSignupOfAnAddressVoidsTheOlderOne) {
  this->write([&](Transaction& tx) {
    tx.signups().replace(this->signup("a-old", "a@example.com", 90'000, "Ann"));
    tx.signups().replace(this->signup("b", "b@example.com", 90'000));
  });
  this->write([&](Transaction& tx) {
    tx.signups().replace(this->signup("a-new", "a@example.com", 95'000));
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.signups().by_digest(sha256("a-old")));
    auto current = tx.signups().by_digest(sha256("a-new"));
    ASSERT_TRUE(current);
    EXPECT_EQ(current->token_digest, sha256("a-new"));
    EXPECT_EQ(current->email, "a@example.com");
    EXPECT_EQ(current->password_hash, this->signup("a-new", "", 0).password_hash);
    EXPECT_FALSE(current->display_name) << "the newer sign-up's fields, all of them";
    EXPECT_EQ(current->created_at, 1'000);
    EXPECT_EQ(current->expires_at, 95'000);
    auto other = tx.signups().by_digest(sha256("b"));
    ASSERT_TRUE(other);
    EXPECT_EQ(other->email, "b@example.com");
  });
  this->write([&](Transaction& tx) {
    tx.signups().replace(this->signup("named", "n@example.com", 90'000, "Ann Example"));
  });
  this->read([&](Transaction& tx) {
    auto named = tx.signups().by_digest(sha256("named"));
    ASSERT_TRUE(named);
    EXPECT_EQ(named->display_name, std::optional<std::string>("Ann Example"));
  });
}

// interface.md 11.5: a pending sign-up names the request whose password
// it holds, and is found by its address too.
TYPED_TEST(StoreConformance, Interface_11_5_APendingSignupNamesItsRequest) {
  PendingSignupRecord pending = this->signup("a", "a@example.com", 90'000, "Ann");
  pending.request_id = 42;
  this->write([&](Transaction& tx) { tx.signups().replace(pending); });
  this->read([&](Transaction& tx) {
    auto by_digest = tx.signups().by_digest(sha256("a"));
    auto by_email = tx.signups().by_email("a@example.com");
    ASSERT_TRUE(by_digest && by_email);
    EXPECT_EQ(by_digest->request_id, 42);
    EXPECT_EQ(by_email->token_digest, sha256("a"));
    EXPECT_EQ(by_email->display_name, std::optional<std::string>("Ann"));
    EXPECT_FALSE(tx.signups().by_email("b@example.com"));
  });
}

// interface.md 11.5: a used token's sign-up is removed; expired ones are
// pruned, live ones stay.
TYPED_TEST(StoreConformance, Interface_11_5_SignupsGoWhenUsedOrExpired) {
  this->write([&](Transaction& tx) {
    tx.signups().replace(this->signup("a", "a@example.com", 90'000));
    tx.signups().replace(this->signup("b", "b@example.com", 5'000));
    tx.signups().replace(this->signup("c", "c@example.com", 90'000));
  });
  this->write([&](Transaction& tx) {
    tx.signups().remove(sha256("a"));
    EXPECT_EQ(tx.signups().prune(5'000), 1);
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.signups().by_digest(sha256("a")));
    EXPECT_FALSE(tx.signups().by_digest(sha256("b")));
    EXPECT_TRUE(tx.signups().by_digest(sha256("c")));
  });
}

// ---- reset tokens ---------------------------------------------------------

// interface.md 6 /forgot 3: one live reset token per user; a new one voids the
// older, and tokens are found by digest only.
TYPED_TEST(StoreConformance, Interface_6_Forgot_3_ANewResetTokenVoidsTheOlderOne) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  this->write([&](Transaction& tx) {
    tx.reset_tokens().replace({sha256("a-old"), a.id, 1'000, 90'000});
    tx.reset_tokens().replace({sha256("b"), b.id, 1'000, 90'000});
  });
  this->write([&](Transaction& tx) {
    tx.reset_tokens().replace({sha256("a-new"), a.id, 2'000, 95'000});
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.reset_tokens().by_digest(sha256("a-old")));
    auto current = tx.reset_tokens().by_digest(sha256("a-new"));
    ASSERT_TRUE(current);
    EXPECT_EQ(current->user_id, a.id);
    EXPECT_EQ(current->created_at, 2'000);
    EXPECT_EQ(current->expires_at, 95'000);
    EXPECT_TRUE(tx.reset_tokens().by_digest(sha256("b")));
  });
}

// interface.md 7.2: a used token is gone (delete_of_user), and expired ones
// are pruned.
TYPED_TEST(StoreConformance, Interface_7_2_TokensGoWhenUsedOrExpired) {
  UserRecord a = this->stored_user("a@example.com");
  UserRecord b = this->stored_user("b@example.com");
  UserRecord c = this->stored_user("c@example.com");
  this->write([&](Transaction& tx) {
    tx.reset_tokens().replace({sha256("a"), a.id, 1'000, 90'000});
    tx.reset_tokens().replace({sha256("b"), b.id, 1'000, 5'000});
    tx.reset_tokens().replace({sha256("c"), c.id, 1'000, 90'000});
  });
  this->write([&](Transaction& tx) {
    tx.reset_tokens().delete_of_user(a.id);
    EXPECT_EQ(tx.reset_tokens().prune(5'000), 1);
  });
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.reset_tokens().by_digest(sha256("a")));
    EXPECT_FALSE(tx.reset_tokens().by_digest(sha256("b")));
    EXPECT_TRUE(tx.reset_tokens().by_digest(sha256("c")));
  });
}

// ---- transactions ---------------------------------------------------------

// interface.md 8.3: a transaction commits as a whole or not at all. A
// database error fails it (and its earlier writes with it); any other
// exception is the caller's, after the rollback.
TYPED_TEST(StoreConformance, Interface_8_3_AFailedTransactionLeavesNothingBehind) {
  EXPECT_EQ(this->store_->run(Store::Mode::write,
                              [&](Transaction& tx) {
                                tx.users().insert(this->user("a@example.com"));
                                // No such user: the foreign key fails, a StoreError.
                                tx.sessions().insert({sha256("t"), "no-such-user", 0, 10});
                              }),
            StoreStatus::failed);
  EXPECT_THROW(this->store_->run(Store::Mode::write,
                                 [&](Transaction& tx) {
                                   tx.users().insert(this->user("b@example.com"));
                                   throw std::runtime_error("bug in a handler");
                                 }),
               std::runtime_error);
  this->read([&](Transaction& tx) {
    EXPECT_FALSE(tx.users().by_email("a@example.com"));
    EXPECT_FALSE(tx.users().by_email("b@example.com"));
  });
  EXPECT_TRUE(this->store_->healthy()) << "the store is usable after both";
}

// The pruner's one call: every area's expired rows, in one transaction.
TYPED_TEST(StoreConformance, Interface_5_3_PruneSumsEveryArea) {
  UserRecord u = this->stored_user("a@example.com");
  this->write([&](Transaction& tx) {
    tx.sessions().insert({sha256("old"), u.id, 1'000, 5'000});
    tx.reset_tokens().replace({sha256("old"), u.id, 1'000, 5'000});
    tx.throttle().insert_event("k", 100);
    tx.outbox().enqueue(this->mail("a@example.com", 1'000));
    tx.signups().replace(this->signup("old", "new@example.com", 5'000));
  });
  this->write([&](Transaction& tx) {
    auto claimed = this->claim_one_due(tx, 1'000, 2'000);
    ASSERT_TRUE(claimed);
    tx.outbox().mark_sent(claimed->id, 1'500, 2'000);
  });
  this->write([&](Transaction& tx) { EXPECT_EQ(PrunePass({10'000, 1'000, 2'000, 0}).run(tx), 5); });
  this->write([&](Transaction& tx) { EXPECT_EQ(PrunePass({10'000, 1'000, 2'000, 0}).run(tx), 0); });
}

}  // namespace
}  // namespace authd
