#include "http/connection_registry.hpp"

namespace authd {

ConnectionRegistry::Admission ConnectionRegistry::admit(const std::shared_ptr<Tracked>& connection,
                                                        bool exempt_from_client_cap) {
  std::lock_guard lock(mutex_);
  Set& of_client = by_client_[connection->client_key()];
  // A closed idle connection leaves the counts only when its coroutine
  // ends, a moment later: the one admitted in its place may briefly take
  // the count one past the cap.
  if (!exempt_from_client_cap && of_client.size() >= limits_.per_client &&
      !close_one_idle(of_client)) {
    if (of_client.empty()) by_client_.erase(connection->client_key());
    ++refused_per_client_;
    return Admission::refused_per_client;
  }
  const std::size_t near = limits_.total - limits_.total / 10;
  bool made_room = open_ >= near && close_one_idle_anywhere();
  if (open_ >= limits_.total && !made_room) {
    if (of_client.empty()) by_client_.erase(connection->client_key());
    ++refused_total_;
    return Admission::refused_total;
  }
  of_client.insert(connection);
  ++open_;
  return Admission::admitted;
}

bool ConnectionRegistry::forget(const std::shared_ptr<Tracked>& connection) {
  std::lock_guard lock(mutex_);
  auto client = by_client_.find(connection->client_key());
  if (client != by_client_.end() && client->second.erase(connection) == 1) {
    --open_;
    if (client->second.empty()) by_client_.erase(client);
  }
  return open_ == 0;
}

void ConnectionRegistry::for_each(
    const std::function<void(const std::shared_ptr<Tracked>&)>& visit) {
  std::lock_guard lock(mutex_);
  for (const auto& [client, connections] : by_client_) {
    for (const auto& connection : connections) visit(connection);
  }
}

std::size_t ConnectionRegistry::open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

bool ConnectionRegistry::close_one_idle(const Set& among) {
  for (const auto& connection : among) {
    if (!connection->idle()) continue;
    // Not idle any more from now on as far as the caps go: the next
    // admission must pick another one.
    connection->set_idle(false);
    connection->close_if_idle();
    ++idle_closed_;
    return true;
  }
  return false;
}

bool ConnectionRegistry::close_one_idle_anywhere() {
  for (const auto& [client, connections] : by_client_) {
    if (close_one_idle(connections)) return true;
  }
  return false;
}

}  // namespace authd
