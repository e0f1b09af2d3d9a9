#include "store/database.hpp"

#include "core/offload.hpp"

namespace authd {

boost::asio::awaitable<StoreStatus> Database::write(std::function<void(Transaction&)> work) {
  co_return co_await run_on(pool_, [&] { return store_.run(Store::Mode::write, work); });
}

boost::asio::awaitable<StoreStatus> Database::read(std::function<void(Transaction&)> work) {
  co_return co_await run_on(pool_, [&] { return store_.run(Store::Mode::read, work); });
}

boost::asio::awaitable<bool> Database::healthy() {
  co_return co_await run_on(pool_, [&] { return store_.healthy(); });
}

}  // namespace authd
