// The mails a batch of /forgot requests queues, inserted by one statement
// (docs/design/performance-choices.md#postgresql-forgot-batches-share-statements),
// as the batch's audit events are (event_batch.hpp). Each request's mail would
// be an INSERT of its own, sent ahead of what follows it; the batch collects
// them and sends one INSERT, in the order they were added, ahead of its COMMIT.
// No unit of a batch reads the outbox, so none misses a mail kept back. Like
// the INSERTs it replaces it has no answer of its own: the COMMIT reports its
// failure, and the batch is then undone and each request runs alone.
#pragma once

#include <vector>

#include "store/records.hpp"

namespace authd::postgres {

class Connection;

class MailBatch {
 public:
  void add(const OutboxRecord& mail) { mails_.push_back(mail); }
  // Sends what was added, to travel with the next awaited statement.
  // Nothing when nothing was.
  void send_ahead(Connection& db);

 private:
  std::vector<OutboxRecord> mails_;
};

}  // namespace authd::postgres
