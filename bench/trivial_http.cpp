// The trivial-HTTP ceiling: a minimal Boost.Beast server built like authd's
// front end (an io_context per thread, one thread per core, the accept loop
// handing connections to the threads in turn, one C++20 coroutine per
// keep-alive connection) that answers every request with a fixed JSON
// body. Whatever authd's GET /me costs above this is authd's own work
// (routing, bearer parsing, SHA-256, the database read, the User JSON, the
// log line). GET /healthz on authd itself would not do: it reads the
// database.
//
//   trivial_http PORT [THREADS]
#include <utility>  // before Boost 1.74 asio/awaitable.hpp, which misses it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

asio::awaitable<void> serve(tcp::socket socket) {
  beast::flat_buffer buffer;
  boost::system::error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  for (;;) {
    http::request<http::string_body> request;
    co_await http::async_read(socket, buffer, request, token);
    if (ec) break;
    http::response<http::string_body> response{http::status::ok, request.version()};
    response.set(http::field::content_type, "application/json");
    response.set(http::field::cache_control, "no-store");
    response.keep_alive(request.keep_alive());
    response.body() = R"({"status":"ok"})";
    response.prepare_payload();
    co_await http::async_write(socket, response, token);
    if (ec || !response.keep_alive()) break;
  }
  socket.shutdown(tcp::socket::shutdown_send, ec);
}

asio::awaitable<void> accept_loop(tcp::acceptor& acceptor,
                                  std::vector<std::unique_ptr<asio::io_context>>& contexts) {
  std::size_t next = 0;
  for (;;) {
    boost::system::error_code ec;
    asio::io_context& home = *contexts[next++ % contexts.size()];
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    tcp::socket socket = co_await acceptor.async_accept(home, token);
    if (ec) continue;
    auto connection_executor = socket.get_executor();
    asio::co_spawn(connection_executor, serve(std::move(socket)), asio::detached);
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: trivial_http PORT [THREADS]\n");
    return 2;
  }
  auto port = static_cast<unsigned short>(std::atoi(argv[1]));
  unsigned threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2]))
                              : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  for (unsigned i = 0; i < std::max(threads, 1u); ++i)
    contexts.push_back(std::make_unique<asio::io_context>(1));
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  for (auto& context : contexts) guards.push_back(asio::make_work_guard(*context));
  tcp::acceptor acceptor(*contexts[0], {asio::ip::make_address("127.0.0.1"), port});
  acceptor.listen(asio::socket_base::max_listen_connections);
  asio::co_spawn(*contexts[0], accept_loop(acceptor, contexts), asio::detached);
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < contexts.size(); ++i)
    pool.emplace_back([context = contexts[i].get()] { context->run(); });
  contexts[0]->run();
  for (auto& t : pool) t.join();
}
