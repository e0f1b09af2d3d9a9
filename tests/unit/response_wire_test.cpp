// http/response_wire: the flat bytes the server sends are exactly what
// Beast's own serializer writes for the same response.
#include <gtest/gtest.h>

#include <string>

#include <boost/asio/buffers_iterator.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/ostream.hpp>
#include <boost/beast/http.hpp>

#include "http/response_wire.hpp"

namespace authd {
namespace {

namespace http = boost::beast::http;
using Response = http::response<http::string_body>;

// Beast's serializer, run to completion into a string.
std::string beast_wire(Response& res) {
  http::serializer<false, http::string_body> serializer(res);
  std::string out;
  boost::beast::error_code ec;
  while (!serializer.is_done()) {
    serializer.next(ec, [&](boost::beast::error_code&, const auto& buffers) {
      std::size_t n = 0;
      for (auto buffer : boost::beast::buffers_range_ref(buffers)) {
        out.append(static_cast<const char*>(buffer.data()), buffer.size());
        n += buffer.size();
      }
      serializer.consume(n);
    });
    EXPECT_FALSE(ec) << ec.message();
    if (ec) break;
  }
  return out;
}

void expect_same_bytes(Response res) {
  std::string ours = response_wire(res);
  EXPECT_EQ(ours, beast_wire(res));
}

TEST(ResponseWire, AJsonAnswerWithKeepAlive) {
  Response res{http::status::ok, 11};
  res.set(http::field::content_type, "application/json");
  res.set(http::field::cache_control, "no-store");
  res.set("X-Request-Id", "0123456789abcdef");
  res.keep_alive(true);
  res.body() = R"({"id":"u1","email":"a@b.c"})";
  res.prepare_payload();
  expect_same_bytes(res);
  EXPECT_TRUE(response_wire(res).starts_with("HTTP/1.1 200 OK\r\n"));
}

TEST(ResponseWire, AnErrorThatClosesAndRepeatedFields) {
  Response res{http::status::unauthorized, 11};
  res.insert("WWW-Authenticate", R"(Bearer error="invalid_token")");
  res.insert("Vary", "Origin");
  res.insert("Vary", "Access-Control-Request-Method");
  res.keep_alive(false);
  res.body() = R"({"code":401})";
  res.prepare_payload();
  expect_same_bytes(res);
}

TEST(ResponseWire, NoContentAndHeadAnswersHaveNoBody) {
  Response no_content{http::status::no_content, 11};
  no_content.set("Access-Control-Allow-Origin", "https://app.example");
  no_content.prepare_payload();
  no_content.erase(http::field::content_length);
  expect_same_bytes(no_content);

  Response head{http::status::ok, 11};
  head.content_length(42);  // what GET would carry, without the body
  expect_same_bytes(head);
}

TEST(ResponseWire, Http10AndACustomReason) {
  Response res{http::status::service_unavailable, 10};
  res.keep_alive(true);  // HTTP/1.0 needs "Connection: keep-alive" spelled out
  res.reason("Busy");
  res.set(http::field::retry_after, "1");
  res.body() = "{}";
  res.prepare_payload();
  expect_same_bytes(res);
  EXPECT_TRUE(response_wire(res).starts_with("HTTP/1.0 503 Busy\r\n"));
}

}  // namespace
}  // namespace authd
