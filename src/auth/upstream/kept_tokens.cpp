#include "auth/upstream/kept_tokens.hpp"

#include <nlohmann/json.hpp>

#include "core/log.hpp"
#include "core/wipe.hpp"
#include "core/wipe_json.hpp"
#include "crypto/sealed_secrets.hpp"
#include "store/database.hpp"
#include "store/transaction.hpp"

namespace authd {
namespace {

// What is sealed: the answer's members under the names of the admin route.
std::string sealed_text(const SecretSealer& sealer, const UpstreamTokens& tokens,
                        std::string_view identity_id) {
  nlohmann::json plain = {{"tokenType", tokens.token_type},
                          {"accessToken", tokens.access_token},
                          {"scope", tokens.scope},
                          {"refreshToken", tokens.refresh_token},
                          {"idToken", tokens.id_token}};
  if (tokens.expires_at) plain["expiresAt"] = *tokens.expires_at;
  std::string text = plain.dump();
  std::string sealed = sealer.seal(text, kept_tokens_seal_context(identity_id));
  wipe(text);
  wipe_strings(plain);
  return sealed;
}

std::string member(const nlohmann::json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<UpstreamTokens> opened_tokens(const SecretSealer& sealer, const std::string& sealed,
                                            std::string_view identity_id) {
  auto opened = sealer.open(sealed, kept_tokens_seal_context(identity_id));
  if (!opened) return std::nullopt;
  nlohmann::json plain = nlohmann::json::parse(opened->plaintext, nullptr, false);
  wipe(opened->plaintext);
  if (!plain.is_object()) return std::nullopt;
  UpstreamTokens tokens;
  tokens.token_type = member(plain, "tokenType");
  tokens.access_token = member(plain, "accessToken");
  tokens.scope = member(plain, "scope");
  tokens.refresh_token = member(plain, "refreshToken");
  tokens.id_token = member(plain, "idToken");
  if (auto it = plain.find("expiresAt"); it != plain.end() && it->is_number_integer())
    tokens.expires_at = it->get<Millis>();
  wipe_strings(plain);
  return tokens;
}

}  // namespace

UpstreamTokens::~UpstreamTokens() {
  wipe(access_token);
  wipe(refresh_token);
  wipe(id_token);
}

std::string kept_tokens_seal_context(std::string_view identity_id) {
  return "authd upstream tokens " + std::string(identity_id);
}

boost::asio::awaitable<void> keep_upstream_tokens(AuthContext& ctx, std::string_view provider,
                                                  std::string_view subject,
                                                  const std::optional<UpstreamTokens>& tokens) {
  const bool keep = tokens.has_value() && ctx.sealer != nullptr;
  auto work = [&](Transaction& tx) {
    std::optional<IdentityRecord> link = tx.identities().by_subject(provider, subject);
    if (!link) return;  // unlinked meanwhile: nothing to keep it on
    if (!keep) {
      tx.identities().forget_tokens(link->id);
      return;
    }
    tx.identities().keep_tokens(
        link->id, KeptTokensRecord{sealed_text(*ctx.sealer, *tokens, link->id), now_millis()});
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok)
    log::warn("upstream_tokens_not_kept", {{"provider", provider}, {"reason", "store"}});
}

boost::asio::awaitable<KeptTokensRead> read_kept_tokens(AuthContext& ctx, std::string_view id) {
  KeptTokensRead read;
  std::optional<KeptTokensRecord> kept;
  auto work = [&](Transaction& tx) { kept = tx.identities().kept_tokens(id); };
  if (co_await ctx.db.read(work) != StoreStatus::ok) co_return read;
  read.kind = KeptTokensRead::Kind::not_found;
  if (!kept || ctx.sealer == nullptr) co_return read;
  std::optional<UpstreamTokens> tokens = opened_tokens(*ctx.sealer, kept->sealed, id);
  if (!tokens) {
    // Altered, or sealed by a key authd no longer has (12.2.3): the next
    // sign-in through the link keeps new ones.
    log::warn("upstream_tokens_unopened", {{"identityId", id}});
    co_return read;
  }
  read.tokens = std::move(*tokens);
  read.stored_at = kept->stored_at;
  read.kind = KeptTokensRead::Kind::ok;
  co_return read;
}

}  // namespace authd
