#include "auth/oidc/clients.hpp"

#include <algorithm>

#include "core/wipe.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

using Kind = ClientOutcome::Kind;

ClientOutcome outcome_of(Kind kind, std::string problem = {}) {
  ClientOutcome outcome;
  outcome.kind = kind;
  outcome.problem = std::move(problem);
  return outcome;
}

// Every change moves updatedAt forward, even within the millisecond of the
// previous one (interface.md 2.6).
Millis change_time(const OAuthClientRecord& client) {
  return std::max(now_millis(), client.updated_at + 1);
}

const char* type_name(const OAuthClientRecord& client) {
  return client.confidential ? "confidential" : "public";
}

// What is decided before the transaction: the new client, its id and
// (confidential) its secret, drawn once however often the transaction runs.
ClientOutcome prepare_create(const ClientFields& fields) {
  std::string problem;
  std::optional<OAuthClientRecord> client = new_client(fields, now_millis(), problem);
  if (!client) return outcome_of(Kind::invalid, std::move(problem));
  ClientOutcome prepared = outcome_of(Kind::ok);
  prepared.client = std::move(*client);
  prepared.client.id = new_uuid_v4();
  if (prepared.client.confidential) {
    prepared.secret = new_secret_token(kClientSecretPrefix);
    prepared.client.secret_digest = sha256(prepared.secret);
  }
  return prepared;
}

// The transactions' work. Each may run again: each sets its outcome anew.
void create_in(Transaction& tx, const ClientOutcome& prepared, const EventSource& source,
               ClientOutcome& out) {
  tx.oauth_clients().insert(prepared.client);
  record_event(tx, source, "oauth.client_created", std::nullopt,
               {{"clientId", prepared.client.id},
                {"name", prepared.client.name},
                {"type", type_name(prepared.client)}},
               prepared.client.created_at);
  out = outcome_of(Kind::ok);
  out.client = prepared.client;
}

void read_in(Transaction& tx, const std::string& id, ClientOutcome& out) {
  std::optional<OAuthClientRecord> client = tx.oauth_clients().by_id(id);
  out = outcome_of(client ? Kind::ok : Kind::not_found);
  if (client) out.client = std::move(*client);
}

void update_in(Transaction& tx, const std::string& id, const ClientFields& fields,
               const EventSource& source, ClientOutcome& out) {
  read_in(tx, id, out);
  if (out.kind != Kind::ok) return;
  std::vector<std::string> changed;
  std::string problem;
  if (!apply_client_fields(out.client, fields, changed, problem)) {
    out = outcome_of(Kind::invalid, std::move(problem));
    return;
  }
  if (changed.empty()) return;  // nothing to write, nothing to record
  out.client.updated_at = change_time(out.client);
  tx.oauth_clients().update(out.client);
  record_event(tx, source, "oauth.client_updated", std::nullopt,
               {{"clientId", out.client.id}, {"changed", changed}}, out.client.updated_at);
}

// The previous secret works until now + overlap (none when zero), then
// never again (interface.md 17.3).
void rotate_in(Transaction& tx, const std::string& id, const Sha256Digest& digest, Duration overlap,
               const EventSource& source, ClientOutcome& out) {
  read_in(tx, id, out);
  if (out.kind != Kind::ok) return;
  OAuthClientRecord& client = out.client;
  if (!client.confidential) {
    out = outcome_of(Kind::invalid, "type: a public client has no secret");
    return;
  }
  const Millis now = change_time(client);
  client.previous_secret_digest.reset();
  client.previous_secret_until.reset();
  if (overlap.count() > 0 && client.secret_digest) {
    client.previous_secret_digest = client.secret_digest;
    client.previous_secret_until = now + overlap.count();
  }
  client.secret_digest = digest;
  client.updated_at = now;
  tx.oauth_clients().update(client);
  nlohmann::json detail = {{"clientId", client.id}, {"previousSecretUntil", nullptr}};
  if (client.previous_secret_until)
    detail["previousSecretUntil"] = format_rfc3339(*client.previous_secret_until);
  record_event(tx, source, "oauth.client_secret_rotated", std::nullopt, detail, now);
}

void delete_in(Transaction& tx, const std::string& id, const EventSource& source,
               ClientOutcome& out) {
  read_in(tx, id, out);
  if (out.kind != Kind::ok) return;
  if (!tx.oauth_clients().remove(id)) {
    out = outcome_of(Kind::not_found);
    return;
  }
  record_event(tx, source, "oauth.client_deleted", std::nullopt,
               {{"clientId", out.client.id}, {"name", out.client.name}}, now_millis());
}

// The outcome of a transaction that ran (or not).
ClientOutcome finished(StoreStatus status, ClientOutcome& out) {
  if (status == StoreStatus::ok) return std::move(out);
  wipe(out.secret);
  return outcome_of(Kind::unavailable);
}

}  // namespace

// The work lambdas are named: GCC 12 destroys a temporary argument of a
// coroutine call inside co_await too early (core/offload.hpp).
boost::asio::awaitable<ClientOutcome> create_client(AuthContext& ctx, const ClientFields& fields,
                                                    const EventSource& source) {
  ClientOutcome prepared = prepare_create(fields);
  if (prepared.kind != Kind::ok) co_return prepared;
  ClientOutcome out;
  auto work = [&](Transaction& tx) { create_in(tx, prepared, source, out); };
  StoreStatus status = co_await ctx.db.write(work);
  out.secret = std::move(prepared.secret);
  co_return finished(status, out);
}

boost::asio::awaitable<ClientOutcome> read_client(AuthContext& ctx, const std::string& id) {
  ClientOutcome out;
  auto work = [&](Transaction& tx) { read_in(tx, id, out); };
  StoreStatus status = co_await ctx.db.read(work);
  co_return finished(status, out);
}

boost::asio::awaitable<ClientList> list_clients(AuthContext& ctx) {
  ClientList list;
  auto work = [&](Transaction& tx) { list.clients = tx.oauth_clients().list(); };
  list.ok = co_await ctx.db.read(work) == StoreStatus::ok;
  co_return list;
}

boost::asio::awaitable<ClientOutcome> update_client(AuthContext& ctx, const std::string& id,
                                                    const ClientFields& fields,
                                                    const EventSource& source) {
  ClientOutcome out;
  auto work = [&](Transaction& tx) { update_in(tx, id, fields, source, out); };
  StoreStatus status = co_await ctx.db.write(work);
  co_return finished(status, out);
}

boost::asio::awaitable<ClientOutcome> rotate_client_secret(AuthContext& ctx, const std::string& id,
                                                           const EventSource& source) {
  std::string secret = new_secret_token(kClientSecretPrefix);
  const Sha256Digest digest = sha256(secret);
  const Duration overlap = ctx.policy.oidc.secret_overlap;
  ClientOutcome out;
  auto work = [&](Transaction& tx) { rotate_in(tx, id, digest, overlap, source, out); };
  StoreStatus status = co_await ctx.db.write(work);
  if (out.kind == Kind::ok) out.secret.swap(secret);  // no copy left behind to wipe
  wipe(secret);
  co_return finished(status, out);
}

boost::asio::awaitable<ClientOutcome> delete_client(AuthContext& ctx, const std::string& id,
                                                    const EventSource& source) {
  ClientOutcome out;
  auto work = [&](Transaction& tx) { delete_in(tx, id, source, out); };
  StoreStatus status = co_await ctx.db.write(work);
  co_return finished(status, out);
}

ClientOutcome create_client(Store& store, const ClientFields& fields, const EventSource& source) {
  ClientOutcome prepared = prepare_create(fields);
  if (prepared.kind != Kind::ok) return prepared;
  ClientOutcome out;
  StoreStatus status =
      store.run(Store::Mode::write, [&](Transaction& tx) { create_in(tx, prepared, source, out); });
  out.secret = std::move(prepared.secret);
  return finished(status, out);
}

ClientOutcome read_client(Store& store, const std::string& id) {
  ClientOutcome out;
  StoreStatus status = store.run(Store::Mode::read, [&](Transaction& tx) { read_in(tx, id, out); });
  return finished(status, out);
}

ClientList list_clients(Store& store) {
  ClientList list;
  list.ok = store.run(Store::Mode::read, [&](Transaction& tx) {
    list.clients = tx.oauth_clients().list();
  }) == StoreStatus::ok;
  return list;
}

ClientOutcome update_client(Store& store, const std::string& id, const ClientFields& fields,
                            const EventSource& source) {
  ClientOutcome out;
  StoreStatus status = store.run(Store::Mode::write,
                                 [&](Transaction& tx) { update_in(tx, id, fields, source, out); });
  return finished(status, out);
}

ClientOutcome rotate_client_secret(Store& store, const std::string& id, Duration overlap,
                                   const EventSource& source) {
  std::string secret = new_secret_token(kClientSecretPrefix);
  const Sha256Digest digest = sha256(secret);
  ClientOutcome out;
  StoreStatus status = store.run(Store::Mode::write, [&](Transaction& tx) {
    rotate_in(tx, id, digest, overlap, source, out);
  });
  if (out.kind == Kind::ok) out.secret.swap(secret);  // no copy left behind to wipe
  wipe(secret);
  return finished(status, out);
}

ClientOutcome delete_client(Store& store, const std::string& id, const EventSource& source) {
  ClientOutcome out;
  StoreStatus status =
      store.run(Store::Mode::write, [&](Transaction& tx) { delete_in(tx, id, source, out); });
  return finished(status, out);
}

}  // namespace authd
