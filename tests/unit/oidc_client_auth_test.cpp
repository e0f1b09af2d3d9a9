// interface.md 17.3 and 17.7: client authentication through its seam,
// authenticate_client, on a real database of each backend (PostgreSQL
// when AUTHD_TEST_POSTGRES names a server): the secret's digest, the
// previous secret within the rotation's overlap, the refusals, their
// events, and their count with the failed logins of the client address.
// The token endpoint's answers to these outcomes are tested with it.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "auth/login/throttle.hpp"
#include "auth/oidc/client_auth.hpp"
#include "auth/oidc/clients.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/password_hasher.hpp"
#include "crypto/random.hpp"
#include "postgres_test_database.hpp"
#include "store/backends/open_store.hpp"
#include "store/batching/scheduled_database.hpp"
#include "temp_directory.hpp"

namespace authd {
namespace {

using Method = PresentedClient::Method;
using Status = ClientAuthOutcome::Status;

class OidcClientAuth : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    init_crypto();
    std::string url = "sqlite:" + (directory_.path() / "authd.db").string();
    if (GetParam()) {
      AUTHD_SKIP_WITHOUT_POSTGRES();
      url = test::fresh_postgres_database();
    }
    store_ = open_store(url);
    store_->migrate();
    db_ = std::make_unique<ScheduledDatabase>(*store_, 2);
    policy_.login_failures_per_client = {3, std::chrono::minutes(15)};
    source_.client_address = "192.0.2.7";
  }
  void TearDown() override {
    if (db_) db_->stop();
  }

  // A client registered as `authd client create` does; its secret, if any.
  std::pair<std::string, std::string> register_client(const char* type) {
    ClientFields fields;
    fields.name = "App";
    fields.type = type;
    fields.redirect_uris = std::vector<std::string>{"https://app.example.com/cb"};
    ClientOutcome created = create_client(*store_, fields, EventSource{});
    EXPECT_EQ(created.kind, ClientOutcome::Kind::ok) << created.problem;
    return {created.client.id, created.secret};
  }

  ClientAuthOutcome authenticate(PresentedClient presented, const std::string& address = "") {
    EventSource source = source_;
    if (!address.empty()) source.client_address = address;
    AuthContext ctx{*db_, pool_, policy_};
    ClientAuthOutcome outcome;
    boost::asio::io_context io;
    auto run = [&]() -> boost::asio::awaitable<void> {
      outcome = co_await authenticate_client(ctx, presented, source);
    };
    boost::asio::co_spawn(io, run, boost::asio::detached);
    io.run();
    return outcome;
  }

  std::vector<EventRecord> events(const std::string& type) {
    std::vector<EventRecord> found;
    store_->run(Store::Mode::read, [&](Transaction& tx) {
      EventFilter filter;
      filter.type = type;
      found = tx.events().list(filter);
    });
    return found;
  }

  test::TempDirectory directory_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ScheduledDatabase> db_;
  PasswordHasher hasher_{Argon2Params{64, 1}};
  HashingPool pool_{hasher_, 1, 1};
  AuthPolicy policy_;
  EventSource source_;
};

TEST_P(OidcClientAuth, Interface_17_7_ConfidentialClientBySecretBasicOrPost) {
  auto [id, secret] = register_client("confidential");
  ASSERT_EQ(secret.substr(0, 8), "authdcs_");
  for (Method method : {Method::basic, Method::post}) {
    ClientAuthOutcome outcome = authenticate({id, secret, method});
    ASSERT_EQ(outcome.status, Status::ok);
    ASSERT_TRUE(outcome.client);
    EXPECT_EQ(outcome.client->id, id);
  }
}

TEST_P(OidcClientAuth, Interface_17_7_RefusalsAreInvalidClientAndRecordedWithoutTheSecret) {
  auto [id, secret] = register_client("confidential");
  auto [public_id, none] = register_client("public");
  policy_.login_failures_per_client = {100, std::chrono::minutes(15)};
  const std::string wrong = "authdcs_" + std::string(43, 'A');
  struct Case {
    PresentedClient presented;
    const char* reason;
  };
  const Case cases[] = {
      {{id, wrong, Method::basic}, "secret_wrong"},
      {{id, std::nullopt, Method::none}, "secret_missing"},
      {{id, std::nullopt, Method::basic}, "secret_missing"},
      {{new_uuid_v4(), secret, Method::post}, "unknown_client"},
      {{"not-a-uuid", secret, Method::post}, "unknown_client"},
      {{public_id, wrong, Method::post}, "secret_from_public_client"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(authenticate(c.presented).status, Status::invalid_client) << c.reason;
  }
  std::vector<EventRecord> failed = events("oauth.client_auth_failed");
  ASSERT_EQ(failed.size(), std::size(cases));
  for (std::size_t i = 0; i < failed.size(); ++i) {
    const Case& c = cases[std::size(cases) - 1 - i];  // newest first
    nlohmann::json detail = nlohmann::json::parse(failed[i].detail);
    EXPECT_EQ(detail["reason"], c.reason) << failed[i].detail;
    EXPECT_EQ(failed[i].client_address, "192.0.2.7");
    EXPECT_EQ(failed[i].detail.find("authdcs_"), std::string::npos) << failed[i].detail;
    if (is_canonical_uuid(c.presented.id)) {
      EXPECT_EQ(detail["clientId"], c.presented.id);
    } else {
      EXPECT_FALSE(detail.contains("clientId")) << failed[i].detail;
    }
  }
  // A public client by its id alone.
  ClientAuthOutcome outcome = authenticate({public_id, std::nullopt, Method::none});
  EXPECT_EQ(outcome.status, Status::ok);
}

// interface.md 17.3: after a rotation the previous secret works for
// --oidc-secret-overlap, then never again; tested by configuration (a long
// overlap and none), not by waiting.
TEST_P(OidcClientAuth, Interface_17_3_PreviousSecretWorksDuringTheOverlapOnly) {
  auto [id, first] = register_client("confidential");
  ClientOutcome rotated = rotate_client_secret(*store_, id, std::chrono::hours(24), EventSource{});
  ASSERT_EQ(rotated.kind, ClientOutcome::Kind::ok);
  const std::string second = rotated.secret;
  EXPECT_NE(second, first);
  EXPECT_EQ(authenticate({id, first, Method::basic}).status, Status::ok);
  EXPECT_EQ(authenticate({id, second, Method::basic}).status, Status::ok);
  // Rotated again without overlap: only the newest works.
  rotated = rotate_client_secret(*store_, id, Duration(0), EventSource{});
  ASSERT_EQ(rotated.kind, ClientOutcome::Kind::ok);
  EXPECT_EQ(authenticate({id, first, Method::basic}).status, Status::invalid_client);
  EXPECT_EQ(authenticate({id, second, Method::basic}).status, Status::invalid_client);
  EXPECT_EQ(authenticate({id, rotated.secret, Method::basic}).status, Status::ok);
}

// Failures count with the failed logins of the client address (interface.md
// 6 /login 4): over the limit even the right secret is throttled, from that
// address only; successes do not count.
TEST_P(OidcClientAuth, Interface_17_7_FailuresAreThrottledPerClientAddress) {
  auto [id, secret] = register_client("confidential");
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(authenticate({id, secret, Method::post}).status, Status::ok);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(authenticate({id, "authdcs_wrong", Method::post}).status, Status::invalid_client);
  ClientAuthOutcome refused = authenticate({id, secret, Method::post});
  EXPECT_EQ(refused.status, Status::throttled);
  EXPECT_GT(refused.retry_after.count(), 0);
  EXPECT_LE(refused.retry_after, std::chrono::minutes(15));
  EXPECT_EQ(authenticate({id, secret, Method::post}, "192.0.2.8").status, Status::ok);
  // The refusals are counted in one login.failed of the client's key (14.1).
  std::vector<EventRecord> throttled = events("login.failed");
  ASSERT_EQ(throttled.size(), 1u);
  EXPECT_NE(throttled[0].detail.find("throttled"), std::string::npos) << throttled[0].detail;
}

// The same counter as /login's: failed logins of the address throttle its
// client authentications too.
TEST_P(OidcClientAuth, Interface_17_7_SharesTheCounterOfFailedLogins) {
  auto [id, secret] = register_client("confidential");
  for (int i = 0; i < 3; ++i) {
    store_->run(Store::Mode::write, [&](Transaction& tx) {
      tx.throttle().insert_event(login_client_key("192.0.2.7"), now_millis());
    });
  }
  EXPECT_EQ(authenticate({id, secret, Method::basic}).status, Status::throttled);
}

// A request that names no client guessed at nothing: refused, not counted.
TEST_P(OidcClientAuth, Interface_17_7_NoClientNamedIsRefusedUncounted) {
  auto [id, secret] = register_client("confidential");
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(authenticate(PresentedClient{}).status, Status::invalid_client);
  EXPECT_EQ(authenticate({id, secret, Method::basic}).status, Status::ok);
  EXPECT_TRUE(events("oauth.client_auth_failed").empty());
}

// A Database that counts the write transactions it is asked for, and
// hands every transaction to `inner`.
class CountingDatabase final : public Database {
 public:
  explicit CountingDatabase(Database& inner) : inner_(inner) {}
  int writes() const { return writes_; }
  boost::asio::awaitable<bool> healthy() override { return inner_.healthy(); }
  Store& for_background_threads() override { return inner_.for_background_threads(); }
  void stop() override {}

 protected:
  // Coroutines, so that `work` lives in their frame while the inner one runs.
  boost::asio::awaitable<StoreStatus> write_work(TransactionWork work) override {
    ++writes_;
    co_return co_await inner_.write(work);
  }
  boost::asio::awaitable<StoreStatus> write_together_work(
      TransactionWork work, std::vector<std::string> lock_keys) override {
    ++writes_;
    co_return co_await inner_.write_together(work, std::move(lock_keys));
  }
  boost::asio::awaitable<StoreStatus> read_work(TransactionWork work) override {
    co_return co_await inner_.read(work);
  }
  boost::asio::awaitable<StoreStatus> read_aside_work(TransactionWork work) override {
    co_return co_await inner_.read_aside(work);
  }

 private:
  Database& inner_;
  int writes_ = 0;
};

// interface.md 17.3.3: a right secret (or a public client's id alone) that
// the address's counters allow is answered by a read alone, no write
// (docs/design/performance-choices.md); a refusal, and a right secret past
// the limit, still go through the write that counts them.
TEST_P(OidcClientAuth, Interface_17_3_3_ARightSecretUnderTheLimitWritesNothing) {
  auto [id, secret] = register_client("confidential");
  auto [public_id, none] = register_client("public");
  CountingDatabase counting(*db_);
  auto authenticate_counting = [&](PresentedClient presented) {
    AuthContext ctx{counting, pool_, policy_};
    ClientAuthOutcome outcome;
    boost::asio::io_context io;
    auto run = [&]() -> boost::asio::awaitable<void> {
      outcome = co_await authenticate_client(ctx, presented, source_);
    };
    boost::asio::co_spawn(io, run, boost::asio::detached);
    io.run();
    return outcome;
  };
  EXPECT_EQ(authenticate_counting({id, secret, Method::basic}).status, Status::ok);
  EXPECT_EQ(authenticate_counting({public_id, std::nullopt, Method::none}).status, Status::ok);
  EXPECT_EQ(counting.writes(), 0);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(authenticate_counting({id, "authdcs_wrong", Method::basic}).status,
              Status::invalid_client);
  EXPECT_EQ(counting.writes(), 3);
  EXPECT_EQ(authenticate_counting({id, secret, Method::basic}).status, Status::throttled);
  EXPECT_EQ(counting.writes(), 4);
  EXPECT_EQ(events("oauth.client_auth_failed").size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Backends, OidcClientAuth, ::testing::Values(false, true),
                         [](const auto& param_info) {
                           return param_info.param ? "postgres" : "sqlite";
                         });

}  // namespace
}  // namespace authd
