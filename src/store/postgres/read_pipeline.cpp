#include "store/postgres/read_pipeline.hpp"

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_context.hpp>

#include <algorithm>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "store/postgres/connection.hpp"
#include "store/postgres/event_batch.hpp"
#include "store/postgres/fiber_switch.hpp"
#include "store/postgres/mail_batch.hpp"
#include "store/postgres/shared_access_tokens.hpp"
#include "store/postgres/shared_oauth_clients.hpp"
#include "store/postgres/shared_sessions.hpp"
#include "store/postgres/shared_throttle.hpp"

namespace authd::postgres {
namespace {

namespace ctx = boost::context;

// A thread's fiber stacks, kept for its next batch: mapping a stack
// and its guard page costs more system calls than the read it serves.
class StackCache {
 public:
  static constexpr std::size_t kKept = 64;
  StackCache() { free_.reserve(kKept); }
  ~StackCache() {
    for (ctx::stack_context& stack : free_) maker_.deallocate(stack);
  }
  StackCache(const StackCache&) = delete;
  StackCache& operator=(const StackCache&) = delete;

  ctx::stack_context take() {
    if (free_.empty()) return maker_.allocate();
    ctx::stack_context stack = free_.back();
    free_.pop_back();
    return stack;
  }
  void give_back(ctx::stack_context& stack) noexcept {
    if (free_.size() < kKept) {
      free_.push_back(stack);  // within the reserved capacity: does not throw
    } else {
      maker_.deallocate(stack);
    }
  }

 private:
  ctx::protected_fixedsize_stack maker_{kReadFiberStackBytes};
  std::vector<ctx::stack_context> free_;
};

// Boost.Context's StackAllocator, over the thread's cache; the fiber's
// switches are told of the stack it runs on.
struct CachedStack {
  StackCache* cache;
  FiberSwitch* fiber_switch;
  ctx::stack_context allocate() {
    ctx::stack_context stack = cache->take();
    fiber_switch->set_stack(stack);
    return stack;
  }
  void deallocate(ctx::stack_context& stack) noexcept { cache->give_back(stack); }
};

// One read: its fiber while it is parked, the loop's while it runs.
struct Read {
  ctx::fiber fiber;
  ctx::fiber loop;
  FiberSwitch fiber_switch;  // what the sanitizer must know of its switches
  std::size_t unit = 0;      // its place in the batch
  bool behind = false;       // parked by wait_behind
  bool finished = false;     // its work has returned
};

// The reads parked after their Sync, in the order the Syncs went out,
// which is the order their answers come back in. Each read is parked at
// most once at a time, so a ring of one place per read never allocates.
class Turns final : public PipelineTurns {
 public:
  Turns(std::vector<Read>& reads, bool one_transaction)
      : reads_(reads), ring_(reads.size()), one_transaction_(one_transaction) {
    company_.reserve(reads.size());
    resuming_.reserve(reads.size());
    turned_.reserve(reads.size());
  }
  bool one_transaction() const override { return one_transaction_; }
  SharedSessions& shared_sessions() override { return shared_sessions_; }
  SharedAccessTokens& shared_access_tokens() override { return shared_access_tokens_; }
  SharedOAuthClients& shared_oauth_clients() override { return shared_oauth_clients_; }
  SharedThrottle& throttle() override { return throttle_; }
  EventBatch& events() override { return events_; }
  MailBatch& mails() override { return mails_; }

  void wait_for_company() override {
    if (std::current_exception()) throw StoreError("a read waited in a catch handler");
    Read& read = *running_;
    company_.push_back(&read);  // within the reserved capacity
    read.loop = read.fiber_switch.resume_loop(std::move(read.loop));
  }

  void wait_for_answer() override {
    // A fiber parked inside a catch handler shares the thread's record of
    // the exceptions being handled with the others: two of them would end
    // each other's. No read runs a statement while handling an exception.
    if (std::current_exception()) throw StoreError("a read ran a statement in a catch handler");
    Read& read = *running_;
    ring_[(first_ + parked_++) % ring_.size()] = &read;
    read.loop = read.fiber_switch.resume_loop(std::move(read.loop));
  }

  // In the ring too, behind the read it waits for: when it comes to the
  // front, that one has left the ring with the answer.
  void wait_behind() override {
    if (std::current_exception()) throw StoreError("a read waited in a catch handler");
    running_->behind = true;
    wait_for_answer();
  }

  void answer_read(std::size_t waiting_behind) override { ready_behind_ += waiting_behind; }

  std::size_t running_unit() const override { return running_->unit; }

  void wait_for_turn() override {
    if (std::current_exception()) throw StoreError("a unit waited in a catch handler");
    Read& read = *running_;
    read.loop = read.fiber_switch.resume_loop(std::move(read.loop));
  }

  // Each unit waits for one turn at a time: turned_'s capacity holds it.
  void give_turn(std::size_t unit) override { turned_.push_back(&reads_[unit]); }

  // The keys the finished unit took are the next units' (noexcept: it
  // runs as the unit's fiber returns).
  void finished(Read& read) noexcept {
    read.finished = true;
    throttle_.release_all(*this, read.unit);
  }

  void resume(Read& read) {
    running_ = &read;
    read.fiber = read.fiber_switch.resume_fiber(std::move(read.fiber));
    running_ = nullptr;
  }

  // Resumes the parked reads in order until every one has finished. The
  // units given their turn on a key go first, as soon as it is given: each
  // may give the next its turn, and all then join the company of the
  // statement they come to next. The reads waiting for company go next, so
  // that their statement is sent before the next answer is waited for; but
  // not before the reads whose shared answer has been read, which may join
  // them.
  void run_parked() {
    while (parked_ > 0 || !company_.empty() || !turned_.empty()) {
      if (!turned_.empty()) {
        Read* read = turned_.back();
        turned_.pop_back();
        resume(*read);
        continue;
      }
      if (!company_.empty() && (ready_behind_ == 0 || parked_ == 0)) {
        std::swap(company_, resuming_);  // a read resumed here may wait again
        for (Read* read : resuming_) resume(*read);
        resuming_.clear();
        continue;
      }
      Read* next = ring_[first_];
      first_ = (first_ + 1) % ring_.size();
      --parked_;
      if (next->behind) --ready_behind_;
      next->behind = false;
      resume(*next);
    }
  }

 private:
  std::vector<Read>& reads_;
  std::vector<Read*> ring_;
  std::size_t first_ = 0;
  std::size_t parked_ = 0;
  std::size_t ready_behind_ = 0;  // parked by wait_behind, their answer read
  Read* running_ = nullptr;
  bool one_transaction_;
  std::vector<Read*> company_;   // waiting for company, in the order they came
  std::vector<Read*> resuming_;  // the company being resumed
  std::vector<Read*> turned_;    // given their turn on a key, not yet resumed
  SharedSessions shared_sessions_;
  SharedAccessTokens shared_access_tokens_;
  SharedOAuthClients shared_oauth_clients_;
  SharedThrottle throttle_;
  EventBatch events_;
  MailBatch mails_;
};

// The connection parks its reads here for as long as the batch runs.
class TurnsInstalled {
 public:
  TurnsInstalled(Connection& connection, PipelineTurns& turns) : connection_(connection) {
    connection_.set_turns(&turns);
  }
  ~TurnsInstalled() { connection_.set_turns(nullptr); }
  TurnsInstalled(const TurnsInstalled&) = delete;
  TurnsInstalled& operator=(const TurnsInstalled&) = delete;

 private:
  Connection& connection_;
};

}  // namespace

void run_in_one_pipeline(Connection& connection, std::span<TransactionUnit> units,
                         bool one_transaction,
                         const std::function<void(TransactionUnit&)>& run_unit) {
  thread_local StackCache stacks;
  std::vector<Read> reads(units.size());
  Turns turns(reads, one_transaction);
  TurnsInstalled installed(connection, turns);
  if (one_transaction) turns.throttle().order_keys(units);
  // Each read runs until it has sent its first statement, then the next
  // one starts; a read that needs no statement finishes at once.
  for (std::size_t i = 0; i < units.size(); ++i) {
    TransactionUnit& unit = units[i];
    Read& read = reads[i];
    read.unit = i;
    try {
      read.fiber = ctx::fiber(std::allocator_arg, CachedStack{&stacks, &read.fiber_switch},
                              [&run_unit, &unit, &read, &turns](ctx::fiber&& loop) {
                                read.fiber_switch.entered();
                                read.loop = std::move(loop);
                                try {
                                  run_unit(unit);  // is not meant to throw
                                } catch (const ctx::detail::forced_unwind&) {
                                  throw;  // Boost.Context's own unwinding
                                } catch (...) {
                                  unit.status = StoreStatus::failed;
                                  unit.error = std::current_exception();
                                }
                                turns.finished(read);
                                read.fiber_switch.leaving();
                                return std::move(read.loop);
                              });
    } catch (...) {
      unit.status = StoreStatus::failed;  // no stack for it
      unit.error = std::current_exception();
      turns.finished(read);
      continue;
    }
    turns.resume(read);
  }
  // Never leaves a parked fiber behind: each is resumed until it returns.
  turns.run_parked();
  // A unit still waiting for its turn (none should be) has not run whole:
  // it fails the batch, whose units then run alone.
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (reads[i].finished || units[i].error) continue;
    units[i].status = StoreStatus::failed;
    units[i].error = std::make_exception_ptr(StoreError("a unit never had its turn on a key"));
  }
  // The rows kept back go ahead of the COMMIT only: after a unit's failure
  // the caller rolls back, and a statement that failed in the aborted
  // transaction would take the ROLLBACK sent with it down too.
  const bool all_done = std::none_of(units.begin(), units.end(),
                                     [](const TransactionUnit& unit) { return unit.error; });
  if (!one_transaction || !all_done) return;
  turns.throttle().send_ahead(connection);
  turns.mails().send_ahead(connection);
  turns.events().send_ahead(connection);
}

std::exception_ptr take_first_cause(std::span<TransactionUnit> units) {
  std::exception_ptr first;
  std::exception_ptr cause;
  for (TransactionUnit& unit : units) {
    std::exception_ptr error = std::exchange(unit.error, nullptr);
    if (!error) continue;
    if (!first) first = error;
    if (cause) continue;
    try {
      std::rethrow_exception(error);
    } catch (const LostUnderAnotherRead&) {
      // not the cause: the unit whose wait failed has it
    } catch (...) {
      cause = error;
    }
  }
  return cause ? cause : first;
}

}  // namespace authd::postgres
