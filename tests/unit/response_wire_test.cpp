// http/response_wire: the flat bytes the server sends are exactly what
// Beast's message and serializer wrote for the same answer, the way the
// server assembled it before (kept here as the reference).
#include <gtest/gtest.h>

#include <string>

#include <boost/beast/http.hpp>

#include "http/response_wire.hpp"

namespace authd {
namespace {

namespace http = boost::beast::http;
using Response = http::response<http::string_body>;

boost::beast::string_view bsv(std::string_view s) { return {s.data(), s.size()}; }

bool iequal(std::string_view a, std::string_view b) {
  return boost::beast::iequals(bsv(a), bsv(b));
}

// The server's former response assembly on Beast's message.
Response beast_message(const ApiResponse& response, const ResponseFrame& frame) {
  Response res{static_cast<http::status>(response.status), frame.version};
  if (!response.content_type.empty())
    res.set(http::field::content_type, bsv(response.content_type.view()));
  res.set(http::field::cache_control, "no-store");
  res.set(http::field::date, bsv(frame.date));
  res.set("X-Request-Id", bsv(frame.request_id));
  if (frame.https) res.set(http::field::strict_transport_security, "max-age=63072000");
  for (const auto& [name, value] : response.headers) {
    if (iequal(name, "Content-Type") || iequal(name, "Cache-Control")) {
      res.set(name, value);
    } else {
      res.insert(name, value);
    }
  }
  res.keep_alive(frame.keep_alive);
  res.body() = response.body;
  res.prepare_payload();
  if (res.result() == http::status::no_content) res.erase(http::field::content_length);
  if (frame.head) {
    std::size_t length = res.body().size();
    res.body().clear();
    res.content_length(length);
  }
  return res;
}

// Beast's serializer, run to completion into a string.
std::string beast_wire(const ApiResponse& response, const ResponseFrame& frame) {
  Response res = beast_message(response, frame);
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

ResponseFrame frame(unsigned version = 11, bool keep_alive = true, bool head = false) {
  return {.version = version,
          .keep_alive = keep_alive,
          .head = head,
          .date = "Sat, 21 Nov 2026 22:00:00 GMT",
          .request_id = "0123456789abcdef0123456789abcdef"};
}

void expect_same_bytes(const ApiResponse& response, const ResponseFrame& f) {
  std::string ours = response_wire(response, f);
  EXPECT_EQ(ours, beast_wire(response, f));
}

TEST(ResponseWire, AJsonAnswerKeptAlive) {
  ApiResponse ok;
  ok.body = R"({"id":"u1","email":"a@b.c"})";
  expect_same_bytes(ok, frame());
  EXPECT_TRUE(response_wire(ok, frame()).starts_with("HTTP/1.1 200 OK\r\n"));
}

// interface.md 13.3: every answer over HTTPS carries HSTS, none over HTTP.
TEST(ResponseWire, Interface_13_3_HttpsAnswersCarryStrictTransportSecurity) {
  ApiResponse ok;
  ok.body = "{}";
  ResponseFrame https = frame();
  https.https = true;
  expect_same_bytes(ok, https);
  EXPECT_NE(response_wire(ok, https).find("\r\nStrict-Transport-Security: max-age=63072000\r\n"),
            std::string::npos);
  EXPECT_EQ(response_wire(ok, frame()).find("Strict-Transport-Security"), std::string::npos);
}

TEST(ResponseWire, AnErrorThatClosesWithRepeatedHeaders) {
  ApiResponse unauthorized;
  unauthorized.status = 401;
  unauthorized.body = R"({"code":401})";
  unauthorized.headers = {{"WWW-Authenticate", R"(Bearer error="invalid_token")"},
                          {"Vary", "Origin"},
                          {"Vary", "Access-Control-Request-Method"}};
  expect_same_bytes(unauthorized, frame(11, false));
}

TEST(ResponseWire, HandlerHeadersReplaceTheCommonOnes) {
  ApiResponse page;
  page.content_type = "text/html; charset=utf-8";
  page.body = "<!doctype html><title>Reset</title>";
  page.headers = {{"Cache-Control", "no-cache"},
                  {"content-type", "text/plain"},
                  {"Referrer-Policy", "no-referrer"}};
  expect_same_bytes(page, frame());
  EXPECT_EQ(response_wire(page, frame()).find("no-store"), std::string::npos);
}

TEST(ResponseWire, NoContentHasNoLengthAndHeadHasNoBody) {
  ApiResponse preflight;
  preflight.status = 204;
  preflight.content_type = {};
  preflight.headers = {{"Access-Control-Allow-Origin", "https://app.example"}};
  expect_same_bytes(preflight, frame());

  ApiResponse page;
  page.content_type = "text/html; charset=utf-8";
  page.body = "<!doctype html>";
  expect_same_bytes(page, frame(11, true, /*head=*/true));
  std::string head = response_wire(page, frame(11, true, true));
  EXPECT_TRUE(head.ends_with("Content-Length: 15\r\n\r\n")) << head;
}

TEST(ResponseWire, Http10SpellsOutKeepAlive) {
  ApiResponse busy;
  busy.status = 503;
  busy.body = "{}";
  busy.headers = {{"Retry-After", "5"}};
  expect_same_bytes(busy, frame(10, true));
  expect_same_bytes(busy, frame(10, false));
  EXPECT_TRUE(response_wire(busy, frame(10, true)).starts_with("HTTP/1.0 503 Service Unavailable"));
}

}  // namespace
}  // namespace authd
