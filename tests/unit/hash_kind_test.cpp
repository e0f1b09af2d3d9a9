// crypto/hash_kind and crypto/verification_floor: the kind of a stored hash
// (algorithm and parameters, never the salt), and the floor under a failed
// login that follows the slowest kind (interface.md 6 /login 2, 10.5).
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "crypto/hash_kind.hpp"
#include "crypto/password_hasher.hpp"
#include "crypto/verification_floor.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;
using Nanos = VerificationFloor::Nanos;

// The kind is everything before the salt, for argon2 PHC strings of every
// variant; nothing for anything else, and never a part of the salt.
TEST(HashKind, Interface_10_5_KindIsAlgorithmAndParametersNeverTheSalt) {
  struct Case {
    const char* phc;
    std::optional<std::string> kind;
  };
  const std::vector<Case> cases = {
      {"$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA", "$argon2id$v=19$m=19456,t=2,p=1"},
      {"$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aGFzaA", "$argon2i$v=19$m=4096,t=3,p=1"},
      {"$argon2d$v=16$m=8,t=1,p=4$c2FsdA$aA", "$argon2d$v=16$m=8,t=1,p=1"},
      {"$argon2id$v=19$m=64,t=1,p=1$$", "$argon2id$v=19$m=64,t=1,p=1"},
      {"$argon2id$v=19$m=64,t=1,p=1", std::nullopt},            // no salt: not a hash
      {"$argon2id$m=64,t=1,p=1$c2FsdA$aA", std::nullopt},       // no version
      {"$ARGON2ID$v=19$m=64,t=1,p=1$c2FsdA$aA", std::nullopt},  // case matters
      {"$argon2id$v=19$m=64,t=1,p=1,x=2$c2FsdA$aA", std::nullopt},
      {"$argon2id$v=1a$m=64,t=1,p=1$c2FsdA$aA", std::nullopt},
      {"$argon2id$v=19$m=12345678901,t=1,p=1$c2FsdA$aA", std::nullopt},  // 11 digits
      {"$argon2id$v=19$t=1,m=64,p=1$c2FsdA$aA", std::nullopt},           // order
      {"$argon2x$v=19$m=64,t=1,p=1$c2FsdA$aA", std::nullopt},
      {"$2b$12$abcdefghijklmnopqrstuv0123456789012345678901234567", std::nullopt},
      {"pbkdf2_sha256$600000$c2FsdA$aGFzaA", std::nullopt},
      {"", std::nullopt},
      {"$", std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(password_hash_kind(c.phc), c.kind) << c.phc;
    if (c.kind) {
      EXPECT_EQ(c.kind->find("c2Fsd"), std::string::npos);
      ASSERT_TRUE(parse_argon2_kind(*c.kind).has_value()) << *c.kind;
    }
  }
  auto parsed = parse_argon2_kind("$argon2i$v=19$m=4096,t=3,p=2");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->algorithm, "argon2i");
  EXPECT_EQ(parsed->version, 19u);
  EXPECT_EQ(parsed->memory_kib, 4096u);
  EXPECT_EQ(parsed->iterations, 3u);
  EXPECT_EQ(parsed->lanes, 2u);
  EXPECT_FALSE(parse_argon2_kind("$argon2i$v=19$m=4096,t=3,p=2$").has_value());
}

// The watch measures a kind on a hash of that kind made for the purpose: it
// must be of exactly that kind. libsodium makes the argon2 kinds it can;
// libargon2 the others (argon2d, several lanes, version 16, argon2i under
// t = 3) within the caps of interface.md 10.5 (tests/unit/legacy_hash_test.cpp
// has the other formats); nothing is made of a kind no library takes.
TEST(HashKind, Interface_10_5_ASyntheticHashIsOfTheKindAskedFor) {
  PasswordHasher hasher({64, 1});
  EXPECT_EQ(hasher.own_kind(), "$argon2id$v=19$m=64,t=1,p=1");
  for (const char* kind :
       {"$argon2id$v=19$m=128,t=2,p=1", "$argon2i$v=19$m=64,t=3,p=1", "$argon2d$v=19$m=64,t=1,p=1",
        "$argon2id$v=16$m=64,t=1,p=1", "$argon2i$v=19$m=64,t=1,p=1"}) {
    std::optional<std::string> made = hasher.hash_of_kind(kind, "some password");
    ASSERT_TRUE(made.has_value()) << kind;
    EXPECT_EQ(password_hash_kind(*made), std::string(kind));
    EXPECT_TRUE(hasher.verify("some password", *made).matches) << *made;
    EXPECT_FALSE(hasher.verify("some passwore", *made).matches) << *made;
  }
  for (const char* kind :
       {"$argon2id$v=19$m=4,t=1,p=1", "$argon2d$v=19$m=8,t=1,p=2", "$argon2d$v=19$m=262145,t=1,p=1",
        "$argon2d$v=19$m=64,t=17,p=1", "$argon2id$v=17$m=64,t=1,p=1", "not a kind"})
    EXPECT_FALSE(hasher.hash_of_kind(kind, "some password").has_value()) << kind;
}

// Lanes change nothing of what verifying a hash costs (one worker computes
// every lane), so hashes that differ only in them are one kind: a write key
// cannot make kinds of the same cost by varying p alone.
TEST(HashKind, Interface_10_5_LanesDoNotMakeKindsOfTheirOwn) {
  for (const char* phc :
       {"$argon2id$v=19$m=65536,t=3,p=1$c2FsdA$aA", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aA",
        "$argon2id$v=19$m=65536,t=3,p=255$c2FsdA$aA"})
    EXPECT_EQ(password_hash_kind(phc), std::string("$argon2id$v=19$m=65536,t=3,p=1")) << phc;
  // The hash itself keeps its lanes: it verifies as it was made.
  PasswordHasher hasher({64, 1});
  std::optional<std::string> made = hasher.hash_of_kind("$argon2id$v=19$m=64,t=1,p=2", "pw");
  ASSERT_TRUE(made.has_value());
  EXPECT_NE(made->find(",p=2$"), std::string::npos);
  EXPECT_EQ(password_hash_kind(*made), std::string("$argon2id$v=19$m=64,t=1,p=1"));
  EXPECT_TRUE(hasher.verify("pw", *made).matches);
}

double in_ms(Nanos t) { return static_cast<double>(t.count()) / 1e6; }

constexpr const char* kOwn = "$argon2id$v=19$m=19456,t=2,p=1";
constexpr const char* kOlder = "$argon2id$v=19$m=9728,t=1,p=1";
constexpr const char* kDearer = "$argon2id$v=19$m=65536,t=3,p=1";

// floor = margin x slowest relative cost x current cost of the own kind.
TEST(VerificationFloor, Interface_6_Login_2_FloorFollowsTheSlowestKindWithTheMargin) {
  VerificationFloor floor(kOwn);
  EXPECT_EQ(floor.current(), Nanos::zero()) << "nothing measured: nothing waits";
  floor.set_own_cost(20ms);
  EXPECT_EQ(floor.current(), Nanos(30ms));  // 1.5 x 20 ms
  floor.set_relative_cost(kOlder, 0.25);    // cheaper kinds do not lower it
  EXPECT_EQ(floor.current(), Nanos(30ms));
  floor.set_relative_cost(kDearer, 4.0);
  EXPECT_EQ(floor.current(), Nanos(120ms));  // 1.5 x 4 x 20 ms
  EXPECT_EQ(floor.unmeasured({kOwn, kOlder, kDearer, "$argon2id$v=19$m=8,t=1,p=1"}),
            std::vector<std::string>{"$argon2id$v=19$m=8,t=1,p=1"});
}

// The current cost follows the verifications the pool runs, whatever their
// kind, each scaled by its kind's relative cost: the floor rises with the
// load and falls back, and one stall moves it by a bounded step.
TEST(VerificationFloor, FloorFollowsTheLoadFromEveryKindsVerifications) {
  VerificationFloor floor(kOwn);
  floor.set_own_cost(20ms);
  floor.set_relative_cost(kOlder, 0.5);
  for (int i = 0; i < 50; ++i) floor.observe(kOlder, 20ms, floor.current());  // twice as slow
  EXPECT_NEAR(in_ms(floor.current()), 60.0, 0.5);
  for (int i = 0; i < 50; ++i) floor.observe(kOwn, 20ms, floor.current());
  EXPECT_NEAR(in_ms(floor.current()), 30.0, 0.5);
  floor.observe(kOwn, 10s, floor.current());  // a stall: at most 4x, weighted 0.2
  EXPECT_NEAR(in_ms(floor.current()), 1.5 * (20 + 0.2 * (80 - 20)), 0.5);
  EXPECT_EQ(floor.overruns(), 1u);
}

// A kind seen before it was measured (written by another instance a moment
// ago) is learnt from its own verifications, so it lifts the floor at once
// if it is dearer; a measurement then replaces what was learnt.
TEST(VerificationFloor, AKindNotYetMeasuredIsLearntFromItsVerifications) {
  VerificationFloor floor(kOwn);
  floor.set_own_cost(20ms);
  floor.observe(kDearer, 80ms, floor.current());
  EXPECT_EQ(floor.current(), Nanos(120ms));  // 1.5 x (80 / 20) x 20 ms
  EXPECT_EQ(floor.overruns(), 1u);           // 80 ms against a floor of 30 ms
  EXPECT_EQ(floor.unmeasured({kDearer}), std::vector<std::string>{kDearer});
  floor.set_relative_cost(kDearer, 3.0);
  EXPECT_EQ(floor.current(), Nanos(90ms));
  EXPECT_TRUE(floor.unmeasured({kDearer}).empty());
}

// interface.md 10.5: a failure counts as many failures as its kind costs
// verifications of the own kind (less a tolerance of 0.1 for the spread of
// a measurement, at least one); kinds dearer than 10 times, and kinds not
// known yet, run on one worker at a time.
TEST(VerificationFloor, Interface_10_5_AFailureCountsWhatItsKindCosts) {
  VerificationFloor floor(kOwn);
  floor.set_own_cost(20ms);
  floor.set_relative_cost(kOlder, 0.5);
  floor.set_relative_cost("$argon2id$v=19$m=19456,t=2,p=2", 1.08);
  floor.set_relative_cost(kDearer, 4.2);
  floor.set_relative_cost("$2b$15", 123.6);
  EXPECT_EQ(floor.charge(kOwn), 1);
  EXPECT_EQ(floor.charge(kOlder), 1);
  EXPECT_EQ(floor.charge("$argon2id$v=19$m=19456,t=2,p=2"), 1);
  EXPECT_EQ(floor.charge(kDearer), 5);
  EXPECT_EQ(floor.charge("$2b$15"), 124);
  EXPECT_EQ(floor.charge("$2b$12"), 1) << "not known yet: its verification teaches it";
  EXPECT_EQ(floor.charge(""), 1);
  EXPECT_FALSE(floor.one_at_a_time(kOwn));
  EXPECT_FALSE(floor.one_at_a_time(kDearer));
  EXPECT_TRUE(floor.one_at_a_time("$2b$15"));
  EXPECT_TRUE(floor.one_at_a_time("$2b$12")) << "not known yet";
  EXPECT_FALSE(floor.one_at_a_time("")) << "never computed";
  floor.learn_relative_cost("$2b$12", 30.0);
  EXPECT_EQ(floor.charge("$2b$12"), 30);
}

// A kind no stored hash has any more leaves the floor, which falls.
TEST(VerificationFloor, Interface_10_5_ADroppedKindNoLongerLiftsTheFloor) {
  VerificationFloor floor(kOwn);
  floor.set_own_cost(20ms);
  floor.set_relative_cost(kDearer, 4.0);
  floor.set_relative_cost(kOlder, 0.5);
  EXPECT_EQ(floor.current(), Nanos(120ms));
  floor.retain({kOlder});
  EXPECT_EQ(floor.current(), Nanos(30ms));
  EXPECT_EQ(floor.unmeasured({kDearer}), std::vector<std::string>{kDearer});
  floor.drop(kOlder);
  EXPECT_FALSE(floor.relative_cost(kOlder).has_value());
  EXPECT_EQ(floor.relative_cost(kOwn), 1.0);
}

}  // namespace
}  // namespace authd
