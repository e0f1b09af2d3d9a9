// interface.md section 1 (HTTP in general), clauses 1.8 (malformed requests,
// limits, time-outs) and 1.10 (which rule wins), plus the framing defences
// against request smuggling and Expect: 100-continue, over real sockets
// against the real binary. Each test name starts with the clause it checks
// (Interface_1_8_... is interface.md 1.8).
#include <gtest/gtest.h>

#include "harness.hpp"
#include "http_contract_util.hpp"

namespace authd::test {
namespace {

using namespace http_contract;

// Sends `bytes`, expects `status` and then the connection closed by the
// server (1.8: a malformed request ends the connection).
void expect_refused_and_closed(unsigned short port, const std::string& bytes, int status) {
  HttpConnection connection(port);
  connection.send_raw(bytes);
  HttpResponse res = connection.read_response();
  expect_error(res, status);
  EXPECT_FALSE(res.keep_alive);
  EXPECT_TRUE(connection.closed_by_server());
}

// ---------------------------------------------------------------- 1.8

// 1.8: a malformed request line or header is 400 and closes the connection.
TEST(HttpProtocol, Interface_1_8_MalformedRequestIs400AndCloses) {
  AuthdProcess& authd = shared_authd();
  for (const std::string& bytes : {
           std::string("NOT A REQUEST\r\n\r\n"),
           std::string("GET /healthz\r\nHost: x\r\n\r\n"),
           std::string("GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
           std::string("GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n"),
           std::string("GET /healthz HTTX/1.1\r\nHost: x\r\n\r\n"),
           std::string("GET /hea lthz HTTP/1.1\r\nHost: x\r\n\r\n"),
           std::string("GE(T /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
           std::string("GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n"),
           std::string("GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n"),
           std::string("POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
           std::string("POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
           std::string(
               "POST /login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
       }) {
    SCOPED_TRACE(bytes);
    expect_refused_and_closed(authd.port(), bytes, 400);
  }
}

// 1.8: a request target over 8 KiB is 414; up to 8 KiB is routed.
TEST(HttpProtocol, Interface_1_8_TargetOver8KiBIs414) {
  AuthdProcess& authd = shared_authd();
  std::string at_limit = "/" + std::string(8191, 'a');
  expect_error(exchange(authd.port(), raw_request("GET", at_limit)), 404);
  expect_refused_and_closed(authd.port(), raw_request("GET", at_limit + "a"), 414);
  expect_refused_and_closed(authd.port(),
                            raw_request("GET", "/healthz?q=" + std::string(9000, 'q')), 414);
  // Far beyond any buffer: still 414, not 431.
  expect_refused_and_closed(authd.port(), raw_request("POST", "/" + std::string(100000, 'a')), 414);
}

// 1.8: a header section over 16 KiB is 431; just under is served.
TEST(HttpProtocol, Interface_1_8_HeaderSectionOver16KiBIs431) {
  AuthdProcess& authd = shared_authd();
  EXPECT_EQ(
      exchange(authd.port(), raw_request("GET", "/healthz", {{"X-Big", std::string(15000, 'b')}}))
          .status,
      200);
  expect_refused_and_closed(
      authd.port(), raw_request("GET", "/healthz", {{"X-Big", std::string(17000, 'b')}}), 431);
  Headers many;
  for (int i = 0; i < 200; ++i)
    many.emplace_back("X-Field-" + std::to_string(i), std::string(100, 'v'));
  expect_refused_and_closed(authd.port(), raw_request("GET", "/healthz", many), 431);
  expect_refused_and_closed(
      authd.port(), raw_request("GET", "/healthz", {{"X-Big", std::string(100000, 'b')}}), 431);
}

// 1.8: HTTP/2.0 or 3.0 (or 0.9) in an HTTP/1 request line is 505 and closes.
TEST(HttpProtocol, Interface_1_8_UnsupportedVersionIs505) {
  AuthdProcess& authd = shared_authd();
  for (const char* version : {"HTTP/2.0", "HTTP/3.0", "HTTP/0.9"}) {
    SCOPED_TRACE(version);
    expect_refused_and_closed(authd.port(), raw_request("GET", "/healthz", {}, "", version), 505);
    expect_refused_and_closed(authd.port(),
                              raw_request("POST", "/login", kJson, unknown_login(), version), 505);
  }
  // HTTP/1.0 is served; HTTP/1.2 is not a version this server speaks.
  expect_refused_and_closed(authd.port(), raw_request("GET", "/healthz", {}, "", "HTTP/1.2"), 505);
  EXPECT_EQ(exchange(authd.port(), raw_request("GET", "/healthz", {}, "", "HTTP/1.0")).status, 200);
}

// 1.8: a client that stalls in its header is disconnected after the header
// time-out, and does not keep the server from serving others meanwhile.
TEST(HttpProtocol, Interface_1_8_StalledHeaderIsTimedOut) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--header-timeout", "1s", "--io-threads", "1"});
  AuthdProcess authd(args);
  HttpConnection stalled(authd.port());
  stalled.send_raw("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Partial: ");
  HttpConnection silent(authd.port());  // never sends a byte

  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 200);
  EXPECT_TRUE(stalled.closed_by_server());
  EXPECT_TRUE(silent.closed_by_server());
}

// 1.8: the header time-out also bounds the body: a stalled body is cut off.
TEST(HttpProtocol, Interface_1_8_StalledBodyIsTimedOut) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--header-timeout", "1s", "--io-threads", "1"});
  AuthdProcess authd(args);
  HttpConnection stalled(authd.port());
  stalled.send_raw(raw_request("POST", "/login",
                               {{"Content-Type", "application/json"}, {"Content-Length", "100"}}) +
                   "{\"email\"");
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 200);
  EXPECT_TRUE(stalled.closed_by_server());
}

// 1.8: an idle keep-alive connection is closed after the idle time-out,
// while other clients are served.
TEST(HttpProtocol, Interface_1_8_IdleKeepAliveIsTimedOut) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--idle-timeout", "1s", "--io-threads", "1"});
  AuthdProcess authd(args);
  HttpConnection idle(authd.port());
  HttpResponse first = idle.request("GET", "/healthz");
  EXPECT_EQ(first.status, 200);
  EXPECT_TRUE(first.keep_alive);
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz").status, 200);
  EXPECT_TRUE(idle.closed_by_server());
}

// ---------------------------------------------------------------- framing
// Request smuggling defences (RFC 9112 6.1, 6.3), part of 1.8's "malformed".

TEST(HttpProtocol, Interface_1_8_ContentLengthWithTransferEncodingIs400) {
  AuthdProcess& authd = shared_authd();
  std::string body = chunked(unknown_login());
  expect_refused_and_closed(authd.port(),
                            raw_request("POST", "/login",
                                        {{"Content-Type", "application/json"},
                                         {"Content-Length", std::to_string(body.size())},
                                         {"Transfer-Encoding", "chunked"}},
                                        body),
                            400);
  expect_refused_and_closed(authd.port(),
                            raw_request("POST", "/login",
                                        {{"Content-Type", "application/json"},
                                         {"Transfer-Encoding", "chunked"},
                                         {"Content-Length", std::to_string(body.size())}},
                                        body),
                            400);
}

TEST(HttpProtocol, Interface_1_8_TransferEncodingOtherThanChunkedIs400) {
  AuthdProcess& authd = shared_authd();
  for (const char* coding :
       {"gzip", "gzip, chunked", "chunked, gzip", "identity", "chunked, chunked", "xchunked"}) {
    SCOPED_TRACE(coding);
    expect_refused_and_closed(
        authd.port(),
        raw_request("POST", "/login",
                    {{"Content-Type", "application/json"}, {"Transfer-Encoding", coding}},
                    chunked(unknown_login())),
        400);
  }
  // Two Transfer-Encoding fields.
  expect_refused_and_closed(authd.port(),
                            raw_request("POST", "/login",
                                        {{"Content-Type", "application/json"},
                                         {"Transfer-Encoding", "chunked"},
                                         {"Transfer-Encoding", "chunked"}},
                                        chunked(unknown_login())),
                            400);
}

TEST(HttpProtocol, Interface_1_8_ConflictingContentLengthsAre400) {
  AuthdProcess& authd = shared_authd();
  std::string body = unknown_login();
  std::string length = std::to_string(body.size());
  expect_refused_and_closed(authd.port(),
                            raw_request("POST", "/login",
                                        {{"Content-Type", "application/json"},
                                         {"Content-Length", length},
                                         {"Content-Length", std::to_string(body.size() + 1)}},
                                        body),
                            400);
}

TEST(HttpProtocol, Interface_1_8_Http11WithoutOrWithTwoHostsIs400) {
  AuthdProcess& authd = shared_authd();
  expect_refused_and_closed(authd.port(), raw_request("GET", "/healthz", {}, "", "HTTP/1.1", false),
                            400);
  expect_refused_and_closed(authd.port(), raw_request("GET", "/healthz", {{"Host", "other"}}), 400);
  // HTTP/1.0 has no Host requirement.
  EXPECT_EQ(
      exchange(authd.port(), raw_request("GET", "/healthz", {}, "", "HTTP/1.0", false)).status,
      200);
}

// Expect: 100-continue (as curl sends for larger bodies): an interim 100,
// then the final answer once the body is sent.
TEST(HttpProtocol, Interface_1_8_ExpectContinueIsHonoured) {
  AuthdProcess& authd = shared_authd();
  HttpConnection connection(authd.port());
  std::string body = login_body(kUserEmail, kUserPassword);
  connection.send_raw(raw_request("POST", "/login",
                                  {{"Content-Type", "application/json"},
                                   {"Content-Length", std::to_string(body.size())},
                                   {"Expect", "100-continue"}}));
  EXPECT_EQ(connection.read_response().status, 100);
  connection.send_raw(body);
  HttpResponse res = connection.read_response();
  EXPECT_EQ(res.status, 200) << res.body;
  // Still usable afterwards.
  EXPECT_EQ(connection.request("GET", "/healthz").status, 200);
}

// Expect: 100-continue with a body over the limit: a 413 instead of 100.
TEST(HttpProtocol, Interface_1_8_ExpectContinueOverLimitIs413WithoutContinue) {
  AuthdProcess& authd = shared_authd();
  HttpResponse res = exchange(authd.port(), raw_request("POST", "/login",
                                                        {{"Content-Type", "application/json"},
                                                         {"Content-Length", "20000"},
                                                         {"Expect", "100-continue"}}));
  expect_error(res, 413);
}

// ---------------------------------------------------------------- 1.10

// 1.10: malformed HTTP beats everything that comes after it.
TEST(HttpProtocol, Interface_1_10_MalformedHttpComesFirst) {
  AuthdProcess& authd = shared_authd();
  std::string big(20000, 'x');
  // Unsupported version with an oversized body to an unknown path: 505.
  expect_error(exchange(authd.port(), raw_request("POST", "/nope", {}, big, "HTTP/2.0")), 505);
  // No Host with an oversized body: 400, not 413.
  expect_error(exchange(authd.port(), raw_request("POST", "/login", kJson, big, "HTTP/1.1", false)),
               400);
  // Long target with an oversized body: 414, not 413.
  expect_error(
      exchange(authd.port(), raw_request("POST", "/" + std::string(9000, 'a'), kJson, big)), 414);
  // Large header section with an oversized body: 431, not 413.
  expect_error(exchange(authd.port(), raw_request("POST", "/login",
                                                  {{"Content-Type", "application/json"},
                                                   {"X-Big", std::string(17000, 'b')}},
                                                  big)),
               431);
  // Smuggling attempt with an oversized declared length: 400.
  expect_error(exchange(authd.port(), raw_request("POST", "/login",
                                                  {{"Content-Type", "application/json"},
                                                   {"Content-Length", "20000"},
                                                   {"Transfer-Encoding", "chunked"}},
                                                  chunked(big))),
               400);
}

// 1.10: body too large beats unknown path and wrong method.
TEST(HttpProtocol, Interface_1_10_BodyTooLargeBeatsPathAndMethod) {
  AuthdProcess& authd = shared_authd();
  std::string big(20000, 'x');
  expect_error(exchange(authd.port(), raw_request("POST", "/nope", {}, big)), 413);
  expect_error(exchange(authd.port(), raw_request("DELETE", "/login", {}, big)), 413);
  expect_error(exchange(authd.port(), raw_request("GET", "/me", {}, big)), 413);
}

// 1.10: unknown path beats wrong method; wrong method beats media type;
// media type beats an invalid body.
TEST(HttpProtocol, Interface_1_10_PathThenMethodThenMediaTypeThenBody) {
  AuthdProcess& authd = shared_authd();
  expect_error(send_request(authd.port(), "DELETE", "/nope", {{"Content-Type", "text/plain"}}, "{"),
               404);
  HttpResponse method =
      send_request(authd.port(), "GET", "/login", {{"Content-Type", "text/plain"}}, "{");
  expect_error(method, 405);
  EXPECT_EQ(method.header("Allow"), "POST");
  expect_error(send_request(authd.port(), "PUT", "/forgot", {}, "not json"), 405);
  expect_error(send_request(authd.port(), "POST", "/login", {{"Content-Type", "text/plain"}}, "{"),
               415);
  expect_error(send_request(authd.port(), "POST", "/forgot", {}, "[1,2"), 415);
  expect_error(post_json(authd.port(), "/login", "{"), 400);
}

// 1.10 (and 6 /logout 5): /logout ignores its body, so an invalid body or
// media type does not hide the credential check.
TEST(HttpProtocol, Interface_1_10_LogoutIgnoresItsBody) {
  AuthdProcess& authd = shared_authd();
  HttpResponse no_token =
      send_request(authd.port(), "POST", "/logout", {{"Content-Type", "text/plain"}}, "{not json");
  expect_error(no_token, 401);
  EXPECT_EQ(no_token.header("WWW-Authenticate"), R"(Bearer realm="authd")");
  HttpResponse bad_token = send_request(
      authd.port(), "POST", "/logout",
      {{"Content-Type", "application/json"}, {"Authorization", "Bearer unknown_token"}}, "[[[");
  expect_error(bad_token, 401);

  std::string token = authd.login(kUserEmail, kUserPassword);
  ASSERT_FALSE(token.empty());
  HttpResponse ok = send_request(
      authd.port(), "POST", "/logout",
      {{"Authorization", "Bearer " + token}, {"Content-Type", "image/png"}}, "\xff\xfe garbage");
  EXPECT_EQ(ok.status, 200) << ok.body;
}

// 1.10: only requests that reach the throttling step are counted: 400,
// 413, 415 and 405 come before it, so a limit of one failure is not used
// up by them.
TEST(HttpProtocol, Interface_1_10_RequestsRefusedEarlierAreNotThrottled) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--login-email-limit", "1/15m", "--login-client-limit", "1/15m"});
  AuthdProcess authd(args);
  std::string padded = json_of_size(unknown_login(), 20000);
  for (int i = 0; i < 3; ++i) {
    expect_error(
        post_json(authd.port(), "/login", R"({"email":"nobody@example.com","password":""})"), 400);
    expect_error(send_request(authd.port(), "POST", "/login", {{"Content-Type", "text/plain"}},
                              unknown_login()),
                 415);
    expect_error(send_request(authd.port(), "PUT", "/login", kJson, unknown_login()), 405);
    expect_error(post_json(authd.port(), "/login", padded), 413);
  }
  expect_error(post_json(authd.port(), "/login", unknown_login()), 401);
  expect_error(post_json(authd.port(), "/login", unknown_login()), 429);
  // Past the limit, an invalid body is still 400: validation comes first.
  expect_error(post_json(authd.port(), "/login", R"({"email":"nobody@example.com"})"), 400);
}

}  // namespace
}  // namespace authd::test
