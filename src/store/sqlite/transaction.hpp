// SQLite's areas of a transaction (store/transaction.hpp), each implemented
// in a file of its own (users.cpp, sessions.cpp, throttle_events.cpp,
// outbox.cpp, reset_tokens.cpp, email_signins.cpp, signups.cpp, admin_keys.cpp,
// second_factors.cpp, events.cpp, webhooks.cpp, oauth_clients.cpp,
// authorization_requests.cpp, authorization_codes.cpp, access_tokens.cpp, refresh_tokens.cpp,
// client_tokens.cpp, consents.cpp, signing_keys.cpp, operators.cpp) with the connection's cached
// prepared statements. SqliteStore (sqlite_store.cpp) begins and ends the transactions and batches
// them; the areas only run statements.
// The OpenID provider's areas are declared in oauth_areas.hpp, the
// identities' in identities.hpp.
#pragma once

#include "store/sqlite/identities.hpp"
#include "store/sqlite/oauth_areas.hpp"
#include "store/transaction.hpp"

namespace authd::sqlite {

class Connection;

class Users final : public UserStore {
 public:
  explicit Users(Connection& db) : db_(db) {}
  std::optional<UserRecord> by_email(std::string_view canonical_email) override;
  bool email_taken(std::string_view canonical_email) override;
  std::optional<std::string> email_of(std::string_view id) override;
  std::optional<UserRecord> by_id(std::string_view id) override;
  HeldAccounts lock_in_id_order_unless_held(std::span<const std::string> emails,
                                            std::span<const std::string> ids) override;
  bool insert(const UserRecord& user) override;
  void update(const UserRecord& user) override;
  bool update_unless_email_taken(const UserRecord& user) override;
  void replace_password_hash(std::string_view user_id, std::string_view phc) override;
  std::vector<std::string> password_hash_kinds() override;
  std::vector<HashKindCost> hash_kind_costs() override;
  void set_hash_kind_cost(std::string_view kind, std::string_view basis,
                          double relative_cost) override;
  std::vector<std::string> reconcile_hash_kinds() override;
  std::vector<UserRecord> page_after(std::string_view after, int limit) override;
  void record_login(std::string_view user_id, Millis at) override;
  bool remove(std::string_view user_id) override;

 private:
  void record_hash_kind(std::string_view phc);
  // The kinds this transaction has recorded already: an import of
  // thousands of accounts with one kind of hash writes the kind once.
  std::vector<std::string> kinds_recorded_;
  Connection& db_;
};

class Sessions final : public SessionStore {
 public:
  explicit Sessions(Connection& db) : db_(db) {}
  void insert(const SessionRecord& session) override;
  std::optional<SessionUser> user_of(const Sha256Digest& digest) override;
  std::optional<SessionRecord> record_of(const Sha256Digest& digest) override;
  bool revoke(const Sha256Digest& digest, Millis now) override;
  std::optional<UserRecord> revoke_live(const Sha256Digest& digest, Millis now) override;
  void delete_of_user(std::string_view user_id) override;
  std::vector<SessionRecord> list_live_of_user(std::string_view user_id, Millis now) override;
  bool revoke_by_public_id_of_user(std::string_view user_id, std::string_view public_id,
                                   Millis now) override;
  std::optional<std::string> revoke_by_public_id(std::string_view public_id, Millis now) override;
  std::int64_t revoke_others_of_user(std::string_view user_id, const Sha256Digest& kept,
                                     Millis now) override;
  std::int64_t live_count(Millis now) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class ThrottleEvents final : public ThrottleStore {
 public:
  explicit ThrottleEvents(Connection& db) : db_(db) {}
  std::vector<Millis> event_times(std::string_view key, Millis after, int most) override;
  std::int64_t insert_event(std::string_view key, Millis at) override;
  void add_event(std::string_view key, Millis at) override;
  void delete_event(std::int64_t event_id) override;
  void delete_events(std::string_view key) override;
  std::int64_t prune(Millis horizon) override;

 private:
  Connection& db_;
};

class Outbox final : public OutboxStore {
 public:
  explicit Outbox(Connection& db) : db_(db) {}
  std::int64_t enqueue(const OutboxRecord& mail) override;
  void add(const OutboxRecord& mail) override;
  std::vector<OutboxRecord> claim_due(Millis now, Millis lease_until, std::size_t limit) override;
  std::optional<OutboxRecord> claim_pending(Millis now, Millis lease_until) override;
  bool mark_sent(std::int64_t mail_id, Millis at, Millis claimed_until) override;
  void release(std::int64_t mail_id, Millis claimed_until) override;
  void postpone(std::int64_t mail_id, Millis claimed_until, Millis next_attempt_at) override;
  void reschedule(std::int64_t mail_id, int attempts, Millis next_attempt_at,
                  std::string_view last_error) override;
  void remove(std::int64_t mail_id) override;
  void record_signup_request(const OutboxRecord& request) override;
  std::optional<OutboxRecord> newest_signup_request(std::string_view email) override;
  void forget_signup_requests(std::string_view email) override;
  void remove_for(std::string_view user_id, std::string_view email) override;
  void remove_links_for(std::string_view user_id, std::string_view email) override;
  std::int64_t pending_count() override;
  std::int64_t prune(Millis sent_horizon) override;

 private:
  std::vector<OutboxRecord> claim(Millis now, Millis due_by, Millis lease_until, std::size_t limit);
  Connection& db_;
};

class ResetTokens final : public ResetTokenStore {
 public:
  explicit ResetTokens(Connection& db) : db_(db) {}
  void replace(const ResetTokenRecord& token) override;
  std::optional<ResetTokenRecord> by_digest(const Sha256Digest& digest) override;
  void delete_of_user(std::string_view user_id) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class EmailSignIns final : public EmailSignInStore {
 public:
  explicit EmailSignIns(Connection& db) : db_(db) {}
  void replace(const EmailSignInRecord& record) override;
  std::optional<EmailSignInRecord> by_token(const Sha256Digest& digest) override;
  std::optional<EmailSignInRecord> by_email(std::string_view email) override;
  int count_wrong_code(std::string_view email) override;
  void delete_of_user(std::string_view user_id) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class Signups final : public SignupStore {
 public:
  explicit Signups(Connection& db) : db_(db) {}
  void replace(const PendingSignupRecord& signup) override;
  std::optional<PendingSignupRecord> by_digest(const Sha256Digest& digest) override;
  std::optional<PendingSignupRecord> by_email(std::string_view canonical_email) override;
  void remove(const Sha256Digest& digest) override;
  void remove_of_email(std::string_view canonical_email) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class AdminKeys final : public AdminKeyStore {
 public:
  explicit AdminKeys(Connection& db) : db_(db) {}
  bool insert(const AdminKeyRecord& key) override;
  std::optional<AdminKeyRecord> by_digest(const Sha256Digest& digest) override;
  std::vector<AdminKeyRecord> list() override;
  bool revoke(std::string_view name) override;
  void mark_used(std::string_view name, Millis at) override;

 private:
  Connection& db_;
};

class SecondFactors final : public SecondFactorStore {
 public:
  explicit SecondFactors(Connection& db) : db_(db) {}
  std::optional<TotpFactorRecord> totp_of(std::string_view user_id) override;
  bool put_pending_totp(const TotpFactorRecord& factor) override;
  bool confirm_totp(std::string_view user_id, std::string_view sealed_secret, std::int64_t step,
                    Millis at) override;
  bool accept_totp_step(std::string_view user_id, std::int64_t step) override;
  bool reseal_totp(std::string_view user_id, std::string_view was,
                   std::string_view sealed_secret) override;
  std::vector<TotpFactorRecord> sealed_with_other_key(std::string_view key_id,
                                                      std::string_view after_user_id,
                                                      int limit) override;
  bool remove_all(std::string_view user_id) override;
  void remove_totp(std::string_view user_id) override;
  void replace_recovery_codes(std::string_view user_id,
                              const std::vector<Sha256Digest>& digests) override;
  bool use_recovery_code(std::string_view user_id, const Sha256Digest& digest) override;
  std::int64_t recovery_codes_left(std::string_view user_id) override;

 private:
  Connection& db_;
};

class Passkeys final : public PasskeyStore {
 public:
  explicit Passkeys(Connection& db) : db_(db) {}
  void put_challenge(const Sha256Digest& digest, ChallengePurpose purpose, std::string_view user_id,
                     Millis expires_at) override;
  std::optional<std::string> take_challenge(const Sha256Digest& digest, ChallengePurpose purpose,
                                            Millis now) override;
  std::optional<PasskeyRecord> by_id(std::string_view id) override;
  std::vector<PasskeyRecord> of_user(std::string_view user_id) override;
  std::int64_t count_of(std::string_view user_id) override;
  bool insert(const PasskeyRecord& passkey) override;
  bool record_use(std::string_view id, std::int64_t was, std::int64_t sign_count, bool backed_up,
                  Millis at) override;
  bool remove(std::string_view user_id, std::string_view id) override;
  std::int64_t remove_all_of(std::string_view user_id) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class Events final : public EventStore {
 public:
  explicit Events(Connection& db) : db_(db) {}
  std::int64_t append(const EventRecord& event) override;
  void append_repeated(const EventRecord& event, std::string_view key, Millis until,
                       Millis deliver_at) override;
  bool count_repeat(std::string_view key, Millis now) override;
  std::int64_t prune_repeats(Millis now) override;
  void forget_repeat(std::string_view key) override;
  std::int64_t last_seq() override;
  std::vector<EventRecord> list(const EventFilter& filter) override;
  std::int64_t prune(Millis horizon) override;
  std::int64_t index_appended(std::int64_t at_most) override;

  // The statements that read the indexed part of the trail (public for the
  // query plan's test: each must walk its index table's key backwards).
  static const char* const kIndexedByUser;
  static const char* const kIndexedByType;

 private:
  struct SeqRange {
    std::int64_t after;
    std::int64_t before;
  };
  std::int64_t insert(const EventRecord& event);
  void queue_delivery(std::int64_t seq, Millis due);
  std::int64_t indexed_through();
  void read_into(std::vector<EventRecord>& events, const char* sql, const EventFilter& filter,
                 SeqRange range, std::int64_t limit);
  Connection& db_;
};

class Webhooks final : public WebhookStore {
 public:
  explicit Webhooks(Connection& db) : db_(db) {}
  std::optional<WebhookDeliveryRecord> claim_due(Millis now, Millis lease_until) override;
  bool mark_delivered(std::int64_t event_seq, Millis at, Millis claimed_until) override;
  bool reschedule(std::int64_t event_seq, Millis claimed_until, int attempts,
                  Millis next_attempt_at, std::string_view last_error) override;
  bool mark_dead(std::int64_t event_seq, Millis claimed_until, int attempts, Millis at,
                 std::string_view last_error) override;
  std::int64_t pending_count() override;
  std::int64_t dead_count() override;
  std::vector<WebhookDeliveryRecord> dead(int limit) override;
  std::int64_t retry_dead(Millis now) override;
  bool set_delivering(bool on) override;
  std::int64_t drop_over(std::int64_t most, Millis now) override;

 private:
  Connection& db_;
};

class Operators final : public OperatorStore {
 public:
  explicit Operators(Connection& db) : db_(db) {}
  void grant(const OperatorRecord& grant) override;
  bool revoke(std::string_view user_id) override;
  std::optional<OperatorRecord> by_user(std::string_view user_id) override;
  std::vector<OperatorRecord> list() override;
  void insert_session(const ConsoleSessionRecord& session) override;
  std::optional<ConsoleSessionRecord> session_by_digest(const Sha256Digest& digest) override;
  void touch_session(const Sha256Digest& digest, Millis idle_until) override;
  bool end_session(const Sha256Digest& digest) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class UpstreamFlows final : public UpstreamFlowStore {
 public:
  explicit UpstreamFlows(Connection& db) : db_(db) {}
  void insert(const UpstreamFlowRecord& record) override;
  std::optional<UpstreamFlowRecord> take(const Sha256Digest& state_digest, Millis now) override;
  void await_second_factor(const Sha256Digest& state_digest, const std::string& user_id,
                           Millis until) override;
  std::optional<AwaitedSecondFactor> awaiting(const Sha256Digest& binder_digest) override;
  int count_wrong_try(const Sha256Digest& state_digest) override;
  void end_wait(const Sha256Digest& state_digest) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class SqliteTransaction final : public Transaction {
 public:
  explicit SqliteTransaction(Connection& db)
      : users_(db),
        sessions_(db),
        throttle_(db),
        outbox_(db),
        reset_tokens_(db),
        email_signins_(db),
        signups_(db),
        admin_keys_(db),
        second_factors_(db),
        passkeys_(db),
        events_(db),
        webhooks_(db),
        oauth_clients_(db),
        authorization_requests_(db),
        authorization_codes_(db),
        access_tokens_(db),
        client_tokens_(db),
        refresh_tokens_(db),
        consents_(db),
        signing_keys_(db),
        identities_(db),
        operators_(db),
        upstream_flows_(db) {}
  UserStore& users() override { return users_; }
  SessionStore& sessions() override { return sessions_; }
  ThrottleStore& throttle() override { return throttle_; }
  OutboxStore& outbox() override { return outbox_; }
  ResetTokenStore& reset_tokens() override { return reset_tokens_; }
  EmailSignInStore& email_signins() override { return email_signins_; }
  SignupStore& signups() override { return signups_; }
  AdminKeyStore& admin_keys() override { return admin_keys_; }
  SecondFactorStore& second_factors() override { return second_factors_; }
  PasskeyStore& passkeys() override { return passkeys_; }
  EventStore& events() override { return events_; }
  WebhookStore& webhooks() override { return webhooks_; }
  OAuthClientStore& oauth_clients() override { return oauth_clients_; }
  AuthorizationRequestStore& authorization_requests() override { return authorization_requests_; }
  AuthorizationCodeStore& authorization_codes() override { return authorization_codes_; }
  AccessTokenStore& access_tokens() override { return access_tokens_; }
  ClientTokenStore& client_tokens() override { return client_tokens_; }
  RefreshTokenStore& refresh_tokens() override { return refresh_tokens_; }
  ConsentStore& consents() override { return consents_; }
  SigningKeyStore& signing_keys() override { return signing_keys_; }
  IdentityStore& identities() override { return identities_; }
  OperatorStore& operators() override { return operators_; }
  UpstreamFlowStore& upstream_flows() override { return upstream_flows_; }

 private:
  Users users_;
  Sessions sessions_;
  ThrottleEvents throttle_;
  Outbox outbox_;
  ResetTokens reset_tokens_;
  EmailSignIns email_signins_;
  Signups signups_;
  AdminKeys admin_keys_;
  SecondFactors second_factors_;
  Passkeys passkeys_;
  Events events_;
  Webhooks webhooks_;
  OAuthClients oauth_clients_;
  AuthorizationRequests authorization_requests_;
  AuthorizationCodes authorization_codes_;
  AccessTokens access_tokens_;
  ClientTokens client_tokens_;
  RefreshTokens refresh_tokens_;
  Consents consents_;
  SigningKeys signing_keys_;
  Identities identities_;
  Operators operators_;
  UpstreamFlows upstream_flows_;
};

}  // namespace authd::sqlite
