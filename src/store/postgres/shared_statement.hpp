// One statement for the like requests of a batch's units (read_pipeline.hpp):
// the token checks of a batch of reads, the session deletes of a batch of
// logouts, the throttle counts of a batch of /forgot requests. Each unit
// adds what it asks and waits for company (PipelineTurns::wait_for_company);
// the first one resumed then sends one statement for every request added,
// and parks for its answer like any unit. The others park behind it, so
// that when they are resumed the first has read the rows, and each takes
// its own answer.
//
// The units still get their own outcomes but for the statement itself: a
// failure of the shared statement (the server gone, the batch's deadline)
// fails every unit that shared it, as it would have failed each of them
// alone. The units see one snapshot, taken when the statement runs.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "store/postgres/read_pipeline.hpp"
#include "store/store.hpp"

namespace authd::postgres {

template <typename Ask, typename Answer>
class SharedStatement {
 public:
  // The requests that share one statement, and their answers by the same
  // place (sized before `send` runs, each default until it fills them).
  struct Group {
    std::vector<Ask> asks;
    std::vector<Answer> answers;
  };
  using Send = std::function<void(Group&)>;

  // Adds `ask` to the open group, waits for company, and returns this
  // unit's answer once `send` has run for the group (on the first unit).
  Answer share(PipelineTurns& turns, Ask ask, const Send& send) {
    // Refused before it joins: a unit refused after joining would leave
    // its request in the group, to be run on its behalf.
    if (std::current_exception()) throw StoreError("a unit waited in a catch handler");
    if (!open_) open_ = std::make_shared<Shared>();
    const std::shared_ptr<Shared> group = open_;
    const std::size_t mine = group->asks.size();
    group->asks.push_back(std::move(ask));
    turns.wait_for_company();
    if (!group->sent) {
      // The first resumed: every unit that waited is in the group now, and
      // one that comes later starts a group of its own.
      group->sent = true;
      open_.reset();
      try {
        group->answers.resize(group->asks.size());
        send(*group);
      } catch (...) {
        group->failure = std::current_exception();
      }
      group->answered = true;
      turns.answer_read(group->behind);
    } else if (!group->answered) {
      ++group->behind;
      turns.wait_behind();  // the first one reads the rows
    }
    if (!group->answered) throw StoreError("a shared statement was resumed before its answer");
    if (group->failure) std::rethrow_exception(group->failure);
    return std::move(group->answers[mine]);
  }

 private:
  struct Shared : Group {
    std::exception_ptr failure;
    std::size_t behind = 0;  // the units parked behind the first one
    bool sent = false;
    bool answered = false;
  };
  std::shared_ptr<Shared> open_;  // the group a request joins, until it is sent
};

}  // namespace authd::postgres
