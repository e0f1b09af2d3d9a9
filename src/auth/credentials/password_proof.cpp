#include "auth/credentials/password_proof.hpp"

#include <optional>
#include <vector>

#include "core/wipe.hpp"
#include "crypto/hashing_pool.hpp"
#include "store/database.hpp"

namespace authd {

boost::asio::awaitable<PasswordProof> reserve_proof_attempt(AuthContext& ctx,
                                                            const UserRecord& user,
                                                            const std::string& client_address) {
  PasswordProof answered =
      co_await reserve_proof_attempt(ctx, user.email, user.password_hash, client_address);
  co_return answered;
}

boost::asio::awaitable<PasswordProof> reserve_proof_attempt(AuthContext& ctx,
                                                            const std::string& canonical_email,
                                                            const std::optional<std::string>& phc,
                                                            const std::string& client_address) {
  const AuthPolicy& policy = ctx.policy;
  const std::string email_key = login_email_key(canonical_email);
  const std::vector<ThrottleCounter> per_client =
      client_counters(ClientCounterKind::login, client_address, policy.login_failures_per_client,
                      policy.ipv6_aggregates);
  PasswordProof proof;
  auto reserve = [&](Transaction& tx) {
    proof.reserved =
        reserve_login_failure(tx, email_key, policy.login_failures_per_email, per_client,
                              now_millis(), [&] { return ctx.hashing.failure_charge(phc); });
  };
  if (co_await ctx.db.write(reserve) != StoreStatus::ok) co_return proof;  // unavailable
  if (!proof.reserved.verdict.allowed) {
    proof.kind = PasswordProof::Kind::throttled;
    proof.retry_after = proof.reserved.verdict.retry_after;
    co_return proof;
  }
  proof.kind = PasswordProof::Kind::right;
  co_return proof;
}

boost::asio::awaitable<PasswordProof> prove_password(AuthContext& ctx, const UserRecord& user,
                                                     std::string& password,
                                                     const std::string& client_address) {
  PasswordProof answered =
      co_await prove_password(ctx, user.email, user.password_hash, password, client_address);
  co_return answered;
}

boost::asio::awaitable<PasswordProof> prove_password(AuthContext& ctx,
                                                     const std::string& canonical_email,
                                                     const std::optional<std::string>& phc,
                                                     std::string& password,
                                                     const std::string& client_address) {
  WipeOnExit wipe_password(password);
  std::optional<HashingPool::Place> place = ctx.hashing.reserve();
  if (!place) {
    PasswordProof busy;
    busy.kind = PasswordProof::Kind::busy;
    co_return busy;
  }
  PasswordProof proof = co_await reserve_proof_attempt(ctx, canonical_email, phc, client_address);
  if (proof.kind != PasswordProof::Kind::right) co_return proof;
  VerifyResult verified = co_await ctx.hashing.verify(*place, password, phc);
  if (!verified.matches) proof.kind = PasswordProof::Kind::wrong;  // stays counted
  co_return proof;
}

}  // namespace authd
