// interface.md section 1 (HTTP in general), clauses 1.1 to 1.7 and 1.9, over
// real sockets against the real binary. Each test name starts with the
// clause it checks (Interface_1_5_... is interface.md 1.5). Clauses 1.8, 1.10 and
// the framing defences are in http_protocol_test.cpp.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "http_contract_util.hpp"

namespace authd::test {
namespace {

using namespace http_contract;

// ---------------------------------------------------------------- 1.1

// 1.1: HTTP/1.1 keep-alive: several requests on one connection, errors too.
TEST(HttpContract, Interface_1_1_KeepAliveAnswersSeveralRequestsOnOneConnection) {
  AuthdProcess& authd = shared_authd();
  HttpConnection connection(authd.port());
  HttpResponse first = connection.request("GET", "/healthz");
  EXPECT_EQ(first.status, 200);
  EXPECT_TRUE(first.keep_alive);
  HttpResponse second = connection.request("POST", "/login", kJson, unknown_login());
  EXPECT_EQ(second.status, 401);
  EXPECT_TRUE(second.keep_alive);
  HttpResponse third = connection.request("GET", "/nope");
  EXPECT_EQ(third.status, 404);
  HttpResponse fourth = connection.request("GET", "/healthz");
  EXPECT_EQ(fourth.status, 200);
}

// 1.1: pipelined requests sent in one write are answered in order.
TEST(HttpContract, Interface_1_1_PipelinedRequestsAreAnsweredInOrder) {
  AuthdProcess& authd = shared_authd();
  HttpConnection connection(authd.port());
  connection.send_raw(http_contract::raw_request("GET", "/healthz") +
                      http_contract::raw_request("GET", "/nope") +
                      http_contract::raw_request("POST", "/me"));
  EXPECT_EQ(connection.read_response().status, 200);
  EXPECT_EQ(connection.read_response().status, 404);
  EXPECT_EQ(connection.read_response().status, 405);
}

// ---------------------------------------------------------------- 1.2

// 1.2: every successful JSON response is application/json and no-store.
TEST(HttpContract, Interface_1_2_SuccessResponsesAreJsonAndNoStore) {
  AuthdProcess& authd = shared_authd();
  HttpResponse health = send_request(authd.port(), "GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  expect_common_headers(health);

  HttpResponse login = post_json(authd.port(), "/login", login_body(kUserEmail, kUserPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  expect_common_headers(login);
  std::string token = login.header("Authorization").substr(7);

  HttpResponse forgot = post_json(authd.port(), "/forgot", R"({"email":"someone@example.com"})");
  EXPECT_EQ(forgot.status, 200);
  expect_common_headers(forgot);

  HttpResponse me = get_with_token(authd.port(), "/me", token);
  EXPECT_EQ(me.status, 200);
  expect_common_headers(me);

  HttpResponse logout = post_with_token(authd.port(), "/logout", token);
  EXPECT_EQ(logout.status, 200);
  expect_common_headers(logout);
}

// ---------------------------------------------------------------- 1.3
// (expect_error checks 1.2's headers and 1.3's body on every error below.)

// 1.3: 400 is {code, message} (+ optional string detail), message exact.
TEST(HttpContract, Interface_1_3_BadRequestBody) {
  AuthdProcess& authd = shared_authd();
  expect_error(post_json(authd.port(), "/login", "{"), 400);
  expect_error(post_json(authd.port(), "/forgot", R"({"email":"not an address"})"), 400);
}

// 1.3: 401, from /login and from a bearer route.
TEST(HttpContract, Interface_1_3_UnauthorizedBody) {
  AuthdProcess& authd = shared_authd();
  expect_error(post_json(authd.port(), "/login", unknown_login()), 401);
  expect_error(send_request(authd.port(), "GET", "/me"), 401);
  expect_error(post_with_token(authd.port(), "/logout", "abc"), 401);
}

// 1.3: 404, 405, 413, 415 bodies.
TEST(HttpContract, Interface_1_3_RoutingAndSizeErrorBodies) {
  AuthdProcess& authd = shared_authd();
  expect_error(send_request(authd.port(), "GET", "/nope"), 404);
  expect_error(send_request(authd.port(), "GET", "/login"), 405);
  expect_error(post_json(authd.port(), "/login", std::string(20000, 'x')), 413);
  expect_error(send_request(authd.port(), "POST", "/login", {}, unknown_login()), 415);
}

// 1.3: 414, 431 and 505 bodies (protocol-level errors are JSON too).
TEST(HttpContract, Interface_1_3_ProtocolErrorBodies) {
  AuthdProcess& authd = shared_authd();
  expect_error(exchange(authd.port(), raw_request("GET", "/" + std::string(9000, 'a'))), 414);
  expect_error(
      exchange(authd.port(), raw_request("GET", "/healthz", {{"X-Big", std::string(17000, 'b')}})),
      431);
  expect_error(exchange(authd.port(), raw_request("GET", "/healthz", {}, "", "HTTP/2.0")), 505);
  expect_error(exchange(authd.port(), "NOT A REQUEST\r\n\r\n"), 400);
}

// 1.3: 403 (disabled account) and 429 (throttled) bodies, on a server with
// a throttling limit of one failure so that the second attempt is refused.
TEST(HttpContract, Interface_1_3_ForbiddenAndTooManyRequestsBodies) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--login-email-limit", "1/15m"});
  AuthdProcess authd(args);
  authd.add_user("disabled@example.com", kUserPassword);
  ASSERT_EQ(authd.cli({"user", "disable", "--email", "disabled@example.com"}), 0);
  expect_error(post_json(authd.port(), "/login", login_body("disabled@example.com", kUserPassword)),
               403);

  expect_error(post_json(authd.port(), "/login", unknown_login()), 401);
  HttpResponse throttled = post_json(authd.port(), "/login", unknown_login());
  expect_error(throttled, 429);
  EXPECT_FALSE(throttled.header("Retry-After").empty());
}

// ---------------------------------------------------------------- 1.4

// 1.4: unknown paths are 404, with any method; paths match exactly.
TEST(HttpContract, Interface_1_4_UnknownPathIs404) {
  AuthdProcess& authd = shared_authd();
  for (const char* path : {"/", "/nope", "/login/", "/LOGIN", "/Login", "/me/", "//login",
                           "/login/x", "/healthz/", "/logout.json", "/%6Cogin"}) {
    SCOPED_TRACE(path);
    expect_error(send_request(authd.port(), "POST", path, kJson, unknown_login()), 404);
    expect_error(send_request(authd.port(), "GET", path), 404);
  }
}

// 1.4: a query string does not change the path.
TEST(HttpContract, Interface_1_4_QueryStringIsNotPartOfThePath) {
  AuthdProcess& authd = shared_authd();
  EXPECT_EQ(send_request(authd.port(), "GET", "/healthz?verbose=1").status, 200);
  expect_error(post_json(authd.port(), "/login?x=1", unknown_login()), 401);
}

// 1.4: known path, other method: 405 with Allow naming the path's methods.
TEST(HttpContract, Interface_1_4_KnownPathOtherMethodIs405WithAllow) {
  AuthdProcess& authd = shared_authd();
  struct Case {
    const char* method;
    const char* path;
    const char* allow;
  };
  for (const Case& c : {Case{"GET", "/login", "POST"}, Case{"PUT", "/login", "POST"},
                        Case{"DELETE", "/forgot", "POST"}, Case{"GET", "/logout", "POST"},
                        Case{"PATCH", "/logout", "POST"}, Case{"POST", "/me", "GET"},
                        Case{"DELETE", "/me", "GET"}, Case{"POST", "/healthz", "GET"},
                        Case{"OPTIONS", "/login", "POST"}, Case{"FOO", "/login", "POST"}}) {
    SCOPED_TRACE(std::string(c.method) + " " + c.path);
    HttpResponse res = send_request(authd.port(), c.method, c.path);
    expect_error(res, 405);
    EXPECT_EQ(res.header("Allow"), c.allow);
  }
}

// 1.4 with RFC 9110 9.3.2: HEAD on a known path is refused like any other
// method, and its response carries no body, or the next response on the
// connection would be read from the wrong place.
TEST(HttpContract, Interface_1_4_HeadIs405WithoutABody) {
  AuthdProcess& authd = shared_authd();
  std::string bytes = exchange_until_close(
      authd.port(),
      raw_request("HEAD", "/login") + raw_request("GET", "/healthz", {{"Connection", "close"}}));
  ASSERT_EQ(bytes.rfind("HTTP/1.1 405 ", 0), 0u) << bytes;
  std::size_t end_of_head = bytes.find("\r\n\r\n");
  ASSERT_NE(end_of_head, std::string::npos) << bytes;
  EXPECT_EQ(bytes.substr(end_of_head + 4, 13), "HTTP/1.1 200 ") << bytes;
}

// ---------------------------------------------------------------- 1.5

// Every route with its method, a known path with another method, and
// unknown paths: 413 must come first on all of them.
const std::vector<std::pair<const char*, const char*>> kEveryRouteAndSomeOthers = {
    {"POST", "/login"},  {"POST", "/forgot"}, {"POST", "/logout"}, {"GET", "/me"},
    {"GET", "/healthz"}, {"POST", "/nope"},   {"PUT", "/login"},   {"GET", "/"}};

// 1.5: over 16 KiB with Content-Length: 413, on every route, known or not,
// whatever the method, before the body is parsed (the body is not JSON).
TEST(HttpContract, Interface_1_5_ContentLengthOverLimitIs413OnEveryRoute) {
  AuthdProcess& authd = shared_authd();
  std::string body(16385, 'x');
  for (auto [method, path] : kEveryRouteAndSomeOthers) {
    SCOPED_TRACE(std::string(method) + " " + path);
    expect_error(exchange(authd.port(), raw_request(method, path, kJson, body)), 413);
  }
}

// 1.5: the same with the chunked transfer coding.
TEST(HttpContract, Interface_1_5_ChunkedBodyOverLimitIs413OnEveryRoute) {
  AuthdProcess& authd = shared_authd();
  std::string body = chunked(std::string(16385, 'x'));
  for (auto [method, path] : kEveryRouteAndSomeOthers) {
    SCOPED_TRACE(std::string(method) + " " + path);
    Headers headers = {{"Content-Type", "application/json"}, {"Transfer-Encoding", "chunked"}};
    expect_error(exchange(authd.port(), raw_request(method, path, headers, body)), 413);
  }
}

// 1.5: a declared length over the limit is refused at once: the server does
// not wait for a body it will not read.
TEST(HttpContract, Interface_1_5_DeclaredLengthOverLimitIsRefusedBeforeTheBody) {
  AuthdProcess& authd = shared_authd();
  Headers headers = {{"Content-Type", "application/json"}, {"Content-Length", "1000000"}};
  expect_error(exchange(authd.port(), raw_request("POST", "/login", headers)), 413);
}

// 1.5: a large body sent in full, as a client that does not wait for an
// answer would, still gets its 413 (not a connection reset).
TEST(HttpContract, Interface_1_5_LargeBodySentInFullGets413) {
  AuthdProcess& authd = shared_authd();
  std::string body(512 * 1024, 'x');
  expect_error(exchange(authd.port(), raw_request("POST", "/login", kJson, body)), 413);
  Headers headers = {{"Content-Type", "application/json"}, {"Transfer-Encoding", "chunked"}};
  expect_error(exchange(authd.port(), raw_request("POST", "/login", headers, chunked(body))), 413);
}

// 1.5: exactly 16384 bytes is within the limit, both ways.
TEST(HttpContract, Interface_1_5_BodyOfExactly16KiBIsAccepted) {
  AuthdProcess& authd = shared_authd();
  std::string body = json_of_size(unknown_login(), 16384);
  ASSERT_EQ(body.size(), 16384u);
  expect_error(exchange(authd.port(), raw_request("POST", "/login", kJson, body)), 401);
  Headers headers = {{"Content-Type", "application/json"}, {"Transfer-Encoding", "chunked"}};
  expect_error(exchange(authd.port(), raw_request("POST", "/login", headers, chunked(body, 1000))),
               401);
}

// 1.5: a 413 does not depend on the media type or the body's content.
TEST(HttpContract, Interface_1_5_OverLimitIs413WhateverTheContent) {
  AuthdProcess& authd = shared_authd();
  std::string body = json_of_size(unknown_login(), 16385);
  expect_error(post_json(authd.port(), "/login", body), 413);
  expect_error(
      exchange(authd.port(), raw_request("POST", "/login", {{"Content-Type", "text/plain"}}, body)),
      413);
}

// ---------------------------------------------------------------- 1.6

// 1.6: JSON routes refuse anything but application/json with 415.
TEST(HttpContract, Interface_1_6_WrongOrMissingMediaTypeIs415) {
  AuthdProcess& authd = shared_authd();
  std::vector<Headers> refused = {
      {},
      {{"Content-Type", "text/plain"}},
      {{"Content-Type", "application/jsonx"}},
      {{"Content-Type", "application/json-patch+json"}},
      {{"Content-Type", "application/x-www-form-urlencoded"}},
      {{"Content-Type", "json"}},
      {{"Content-Type", ""}},
      {{"Content-Type", "text/json"}},
      {{"Content-Type", "application/json"}, {"Content-Type", "text/plain"}},
  };
  for (const char* path : {"/login", "/forgot"}) {
    for (const Headers& headers : refused) {
      SCOPED_TRACE(std::string(path) + " " +
                   (headers.empty()
                        ? "(none)"
                        : headers.front().second + "/" + std::to_string(headers.size())));
      expect_error(exchange(authd.port(), raw_request("POST", path, headers, unknown_login())),
                   415);
    }
  }
}

// 1.6: parameters are allowed and the media type is case-insensitive.
TEST(HttpContract, Interface_1_6_JsonMediaTypeWithParametersAnyCaseIsAccepted) {
  AuthdProcess& authd = shared_authd();
  for (const char* type :
       {"application/json", "Application/JSON; charset=utf-8", "APPLICATION/JSON",
        "application/json;charset=UTF-8", "application/json ; charset=utf-8"}) {
    SCOPED_TRACE(type);
    Headers headers = {{"Content-Type", type}};
    expect_error(send_request(authd.port(), "POST", "/login", headers, unknown_login()), 401);
    HttpResponse forgot = send_request(authd.port(), "POST", "/forgot", headers,
                                       R"({"email":"someone@example.com"})");
    EXPECT_EQ(forgot.status, 200) << forgot.body;
  }
}

// ---------------------------------------------------------------- 1.7

// 1.7: not JSON, not an object, or not valid UTF-8: 400, on both JSON routes.
TEST(HttpContract, Interface_1_7_InvalidJsonIs400) {
  AuthdProcess& authd = shared_authd();
  const std::vector<std::string> bodies = {
      "",
      "{",
      "{}x",
      "{\"email\":\"a@example.com\",}",
      "{'email':'a@example.com'}",
      "{\"email\":\"a@example.com\" /* c */}",
      "[]",
      "[{\"email\":\"a@example.com\",\"password\":\"x\"}]",
      "\"a@example.com\"",
      "42",
      "null",
      "true",
      // not valid UTF-8 inside a string: a stray byte, an overlong form, a
      // truncated sequence, an escaped lone surrogate
      "{\"email\":\"a\xff@example.com\",\"password\":\"x\"}",
      "{\"email\":\"a@example.com\",\"password\":\"\xc0\xaf\"}",
      "{\"email\":\"a@example.com\",\"password\":\"\xe2\x82\"}",
      "{\"email\":\"a@example.com\",\"password\":\"\\ud800\"}",
  };
  for (const char* path : {"/login", "/forgot"}) {
    for (const std::string& body : bodies) {
      SCOPED_TRACE(std::string(path) + " " + body);
      expect_error(exchange(authd.port(), raw_request("POST", path, kJson, body)), 400);
    }
  }
}

// 1.7: a duplicate member name anywhere in the document: 400.
TEST(HttpContract, Interface_1_7_DuplicateMemberNameAnywhereIs400) {
  AuthdProcess& authd = shared_authd();
  const std::vector<std::string> bodies = {
      R"({"email":"a@example.com","email":"a@example.com","password":"x"})",
      R"({"email":"a@example.com","password":"x","password":"x"})",
      R"({"email":"a@example.com","\u0065mail":"b@example.com","password":"x"})",
      R"({"email":"a@example.com","password":"x","extra":{"k":1,"k":2}})",
      R"({"email":"a@example.com","password":"x","extra":[{"k":1},{"j":{"k":1,"k":1}}]})",
  };
  for (const char* path : {"/login", "/forgot"}) {
    for (const std::string& body : bodies) {
      SCOPED_TRACE(std::string(path) + " " + body);
      expect_error(post_json(authd.port(), path, body), 400);
    }
  }
  // The same name in two different objects is not a duplicate.
  expect_error(post_json(authd.port(), "/login",
                         R"({"email":"nobody@example.com","password":"x","a":{"email":1}})"),
               401);
}

// 1.7: a member of the wrong type is 400.
TEST(HttpContract, Interface_1_7_WrongMemberTypeIs400) {
  AuthdProcess& authd = shared_authd();
  for (const char* value : {"42", "null", "[]", "[\"a@example.com\"]", "{}", "true"}) {
    SCOPED_TRACE(value);
    std::string v = value;
    expect_error(post_json(authd.port(), "/login", R"({"email":)" + v + R"(,"password":"x"})"),
                 400);
    expect_error(
        post_json(authd.port(), "/login", R"({"email":"nobody@example.com","password":)" + v + "}"),
        400);
    expect_error(post_json(authd.port(), "/forgot", R"({"email":)" + v + "}"), 400);
  }
}

// 1.7: unknown members are ignored.
TEST(HttpContract, Interface_1_7_UnknownMembersAreIgnored) {
  AuthdProcess& authd = shared_authd();
  nlohmann::json login = {{"email", kUserEmail},
                          {"password", kUserPassword},
                          {"remember", true},
                          {"extra", {{"nested", {1, 2, 3}}}}};
  HttpResponse ok = post_json(authd.port(), "/login", login.dump());
  EXPECT_EQ(ok.status, 200) << ok.body;
  HttpResponse forgot = post_json(authd.port(), "/forgot",
                                  R"({"email":"someone@example.com","password":null,"x":[1]})");
  EXPECT_EQ(forgot.status, 200) << forgot.body;
}

// ---------------------------------------------------------------- 1.9

std::string request_id_sent(unsigned short port, const Headers& headers) {
  return send_request(port, "GET", "/healthz", headers).header("X-Request-Id");
}

// 1.9: a valid client id (1 to 128 of A-Z a-z 0-9 . _ : -) is echoed.
TEST(HttpContract, Interface_1_9_ValidClientRequestIdIsEchoed) {
  AuthdProcess& authd = shared_authd();
  for (const std::string& id : {std::string("a"), std::string("req-1.2_3:4"),
                                std::string("AZaz09._:-"), std::string(128, 'x')}) {
    EXPECT_EQ(request_id_sent(authd.port(), {{"X-Request-Id", id}}), id);
  }
  // Echoed on errors too, and whatever the header name's case.
  HttpResponse missing =
      send_request(authd.port(), "GET", "/nope", {{"x-request-id", "trace-404"}});
  EXPECT_EQ(missing.header("X-Request-Id"), "trace-404");
}

// 1.9: anything else gets a generated id instead.
TEST(HttpContract, Interface_1_9_InvalidClientRequestIdIsReplaced) {
  AuthdProcess& authd = shared_authd();
  for (const std::string& id :
       {std::string(129, 'x'), std::string("has space"), std::string("semi;colon"),
        std::string("slash/"), std::string("caf\xc3\xa9"), std::string("a\"b"), std::string("")}) {
    SCOPED_TRACE(id);
    std::string got = request_id_sent(authd.port(), {{"X-Request-Id", id}});
    EXPECT_FALSE(got.empty());
    EXPECT_NE(got, id);
  }
  // Two headers, each valid on its own: neither is used.
  std::string got =
      request_id_sent(authd.port(), {{"X-Request-Id", "one"}, {"X-Request-Id", "two"}});
  EXPECT_FALSE(got.empty());
  EXPECT_NE(got, "one");
  EXPECT_NE(got, "two");
}

// 1.9: generated ids differ from request to request.
TEST(HttpContract, Interface_1_9_GeneratedRequestIdsAreUnique) {
  AuthdProcess& authd = shared_authd();
  std::set<std::string> ids;
  for (int i = 0; i < 20; ++i) ids.insert(request_id_sent(authd.port(), {}));
  EXPECT_EQ(ids.size(), 20u);
  EXPECT_EQ(ids.count(""), 0u);
}

// 1.9: every response carries one, whatever produced it.
TEST(HttpContract, Interface_1_9_EveryResponseCarriesARequestId) {
  AuthdProcess& authd = shared_authd();
  const Headers id = {{"X-Request-Id", "every-1"}};
  std::vector<std::pair<std::string, HttpResponse>> responses = {
      {"404", send_request(authd.port(), "GET", "/nope", id)},
      {"405", send_request(authd.port(), "GET", "/login", id)},
      {"415", send_request(authd.port(), "POST", "/login", id, "{}")},
      {"400", post_json(authd.port(), "/login", "{", id)},
      {"401", send_request(authd.port(), "GET", "/me", id)},
      {"413", exchange(authd.port(), raw_request("POST", "/login", id, std::string(17000, 'x')))},
      {"505", exchange(authd.port(), raw_request("GET", "/healthz", id, "", "HTTP/2.0"))},
      {"431", exchange(authd.port(), raw_request("GET", "/healthz",
                                                 {{"X-Request-Id", "every-1"},
                                                  {"X-Big", std::string(17000, 'b')}}))},
  };
  for (const auto& [what, res] : responses) {
    SCOPED_TRACE(what);
    EXPECT_EQ(res.status, std::stoi(what));
    EXPECT_EQ(res.header_count("X-Request-Id"), 1u);
    EXPECT_FALSE(res.header("X-Request-Id").empty());
  }
  // A malformed request line or target has no usable header: a generated id.
  for (const std::string& bytes : {std::string("NOT A REQUEST\r\n\r\n"),
                                   raw_request("GET", "/" + std::string(9000, 'a'), id)}) {
    HttpResponse res = exchange(authd.port(), bytes);
    EXPECT_GE(res.status, 400);
    EXPECT_EQ(res.header_count("X-Request-Id"), 1u);
    EXPECT_FALSE(res.header("X-Request-Id").empty());
  }
}
}  // namespace
}  // namespace authd::test
