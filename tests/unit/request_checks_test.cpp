// http/request_checks: the checks of a request that need no socket, called
// directly (the integration tests reach them through the real server, over
// a socket). Headers are parsed by the server's own parser type, as
// http/exchange.cpp does, so each check sees what it sees in the server.
// Each test name starts with the clause of docs/reference/interface.md it pins
// (Interface_1_8_... is interface.md 1.8);
// docs/design/decisions/http-tls-bodies.md#http says what each rule is for.
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/buffer.hpp>

#include "http/request_checks.hpp"

namespace authd {
namespace {

using boost::system::error_code;

// Beast's limit for the default settings, as the server sets it.
constexpr std::uint32_t kHeaderLimit = 8 * 1024 + 16 * 1024 + 1024;

// A header parsed by the server's parser: Beast's verdict in `ec`, the bytes
// it took in `header_bytes` (what async_read_header reports).
struct Parsed {
  Parser parser;
  error_code ec;
  std::size_t header_bytes = 0;
};

std::unique_ptr<Parsed> parse(std::string_view raw, std::uint32_t header_limit = kHeaderLimit) {
  auto parsed = std::make_unique<Parsed>();
  parsed->parser.header_limit(header_limit);
  parsed->parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  parsed->header_bytes =
      parsed->parser.put(boost::asio::buffer(raw.data(), raw.size()), parsed->ec);
  return parsed;
}

// check_header on a header Beast accepted; the status refused, or 0.
int header_status(std::string_view raw, const HttpSettings& settings = {}) {
  auto parsed = parse(raw);
  EXPECT_FALSE(parsed->ec) << parsed->ec.message() << " for " << raw;
  EXPECT_TRUE(parsed->parser.is_header_done()) << raw;
  auto rejection = check_header(parsed->parser, parsed->header_bytes, settings);
  return rejection ? rejection->status : 0;
}

// The prescan's verdict on `raw`, given all at once.
HeaderPrescan::Verdict prescan(std::string_view raw) {
  HeaderPrescan scan(kHeaderLimit);
  return scan.scan(raw);
}

ReadBuffer buffer_of(std::string_view bytes) {
  ReadBuffer buffer;
  auto room = buffer.prepare(bytes.size());
  std::memcpy(room.data(), bytes.data(), bytes.size());
  buffer.commit(bytes.size());
  return buffer;
}

using Verdict = HeaderPrescan::Verdict;

// ------------------------------------------------------- HeaderPrescan

TEST(RequestChecks, Interface_1_8_WholeHeaderGoesToBeast) {
  EXPECT_EQ(prescan("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), Verdict::beast);
  // White space inside a field value is no fold.
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\nHost: x\r\nX-A: a b\tc\r\n\r\n"), Verdict::beast);
  // What follows the header's end (a body) is not scanned.
  EXPECT_EQ(prescan("POST / HTTP/1.1\r\nHost: x\r\n\r\n  {}"), Verdict::beast);
  // A header section ended by a bare LF line is Beast's to judge.
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\nHost: x\r\n\n"), Verdict::beast);
}

// Empty lines before the request line: the scan looks past them for the
// request line, and hands them to Beast with it. Beast 1.74 does not skip
// them (RFC 9112 2.2 says a server SHOULD): it refuses the request line, so
// such a request gets 400.
TEST(RequestChecks, Interface_1_8_EmptyLinesBeforeTheRequestLineGoToBeast) {
  EXPECT_EQ(prescan("\r\n"), Verdict::need_more);
  EXPECT_EQ(prescan("\r\n\r\nGET / HTTP/1.1\r\n"), Verdict::beast);
  EXPECT_EQ(prescan("\r\nGET / HTTP/1.1\r\nHost: x\r\n b\r\n\r\n"), Verdict::beast);
  auto parsed = parse("\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(parsed->ec, boost::beast::http::error::bad_method);
}

TEST(RequestChecks, Interface_1_8_IncompleteHeaderNeedsMore) {
  EXPECT_EQ(prescan(""), Verdict::need_more);
  EXPECT_EQ(prescan("GET /heal"), Verdict::need_more);
  EXPECT_EQ(prescan("GET / HTTP/1.1\r"), Verdict::need_more);
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\n"), Verdict::need_more);
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\nHost: x\r\n"), Verdict::need_more);
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\nHost: x\r\n\r"), Verdict::need_more);
}

TEST(RequestChecks, Interface_1_8_ObsoleteLineFoldingIsRefused) {
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"), Verdict::folded);
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n"), Verdict::folded);
  // White space between the request line and the first field (RFC 9112 2.2).
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\n Host: x\r\n\r\n"), Verdict::folded);
  // Seen as soon as the fold's first byte is there, before the header ends.
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\nHost: x\r\n "), Verdict::folded);
  // After a field line ended by a bare LF too.
  EXPECT_EQ(prescan("GET / HTTP/1.1\r\nHost: x\n b\r\n\r\n"), Verdict::folded);
}

TEST(RequestChecks, Interface_1_8_BareLfAfterTheVersionIsRefused) {
  // Beast would wait for one more byte before refusing it; no need to.
  EXPECT_EQ(prescan("GET / HTTP/1.1\n"), Verdict::bare_lf);
}

TEST(RequestChecks, Interface_1_8_BadRequestLineGoesToBeastAtOnce) {
  // Beast refuses these itself (400, 505 or 414): no wait for the header's
  // end, even when the request line is not complete yet.
  EXPECT_EQ(prescan("GE(T / HTTP/1.1\r\n"), Verdict::beast);
  EXPECT_EQ(prescan("GE(T /he"), Verdict::beast);  // incomplete, on the first look
  EXPECT_EQ(prescan("GET / HTTX/1.1\r\nHost: x\r\n"), Verdict::beast);
  EXPECT_EQ(prescan("GET / HTTP/2.0\r\n"), Verdict::beast);
  EXPECT_EQ(prescan("GET /a\rb HTTP/1.1\r\n"), Verdict::beast);  // a CR inside
  EXPECT_EQ(prescan("GET /hea lthz HTTP/1.1\r\n"), Verdict::beast);
  EXPECT_EQ(prescan("GET /\n"), Verdict::beast);  // bare LF before any version
}

// interface.md 1.8: no client can hold a thread. A header dripped a byte at
// a time gets, on its last byte, the verdict it gets whole, and none
// before; the scan resumes where it stopped.
TEST(RequestChecks, Interface_1_8_DrippedHeaderGetsTheSameVerdict) {
  for (std::string_view raw : {
           std::string_view("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n\r\n"),
           std::string_view("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"),
           std::string_view("GET / HTTP/1.1\n"),
       }) {
    SCOPED_TRACE(raw);
    HeaderPrescan scan(kHeaderLimit);
    for (std::size_t n = 1; n < raw.size(); ++n) {
      Verdict early = scan.scan(raw.substr(0, n));
      if (early != Verdict::need_more) {
        // Only a fold is told early: its first byte is enough.
        EXPECT_EQ(early, Verdict::folded) << n;
        EXPECT_EQ(prescan(raw), Verdict::folded);
        break;
      }
      if (n + 1 == raw.size()) {
        EXPECT_EQ(scan.scan(raw), prescan(raw));
      }
    }
  }
}

// Only the first look judges an incomplete request line: once the scan
// waited for more, a request line still open is left to Beast at its end.
TEST(RequestChecks, Interface_1_8_BadMethodDrippedIsJudgedAtTheLineEnd) {
  HeaderPrescan scan(kHeaderLimit);
  EXPECT_EQ(scan.scan("GE"), Verdict::need_more);
  EXPECT_EQ(scan.scan("GE(T /"), Verdict::need_more);
  EXPECT_EQ(scan.scan("GE(T / HTTP/1.1\r\n"), Verdict::beast);
}

// ----------------------------------------------- has_unsupported_version

TEST(RequestChecks, Interface_1_8_WellFormedOtherVersionIs505) {
  for (std::string_view line : {"GET / HTTP/2.0\r\n", "GET /login HTTP/3.0\r\nHost: x\r\n",
                                "POST /a?b HTTP/1.2\r\n", "GET / HTTP/0.9\r\n"}) {
    EXPECT_TRUE(has_unsupported_version(buffer_of(line))) << line;
  }
}

TEST(RequestChecks, Interface_1_8_MalformedOrSupportedVersionIsNot505) {
  for (std::string_view line : {
           "GET / HTTP/1.1\r\n", "GET / HTTP/1.0\r\n",
           "GET / HTTP/2\r\n",     // not DIGIT "." DIGIT
           "GET / HTTP/12.0\r\n",  // two digits
           "GET / HTTX/2.0\r\n",   // not HTTP
           "GET / http/2.0\r\n",   // case-sensitive (RFC 9112 2.3)
           "GET HTTP/2.0\r\n",     // no target
           "GET  HTTP/2.0\r\n",    // empty target
           " / HTTP/2.0\r\n",      // no method
           "GET / HTTP/2.0",       // the line has not ended
           "GET / HTTP/2.0\n",     // nor here: LF alone
       }) {
    EXPECT_FALSE(has_unsupported_version(buffer_of(line))) << line;
  }
}

// ----------------------------------------- classify_oversized_header

TEST(RequestChecks, Interface_1_8_OversizedHeaderIs414OnlyForTheRequestLine) {
  constexpr std::uint32_t kLimit = 256;
  constexpr std::size_t kMaxTarget = 100;
  // The request line did not end within the limit: 414.
  auto endless_line = parse("GET /" + std::string(400, 'a'), kLimit);
  EXPECT_EQ(endless_line->ec, boost::beast::http::error::header_limit);
  EXPECT_EQ(classify_oversized_header(endless_line->parser, kMaxTarget), 414);
  // A complete request line with a target over its own limit: 414.
  auto long_target = parse(
      "GET /" + std::string(150, 'a') + " HTTP/1.1\r\nX: " + std::string(400, 'x') + "\r\n\r\n",
      kLimit);
  EXPECT_EQ(long_target->ec, boost::beast::http::error::header_limit);
  EXPECT_EQ(classify_oversized_header(long_target->parser, kMaxTarget), 414);
  // A short target and too many field bytes: 431.
  auto big_fields =
      parse("GET /login HTTP/1.1\r\nX: " + std::string(400, 'x') + "\r\n\r\n", kLimit);
  EXPECT_EQ(big_fields->ec, boost::beast::http::error::header_limit);
  EXPECT_EQ(classify_oversized_header(big_fields->parser, kMaxTarget), 431);
}

// ------------------------------------------------------- check_header

TEST(RequestChecks, Interface_1_8_WellFormedHeaderPasses) {
  EXPECT_EQ(header_status("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
  EXPECT_EQ(header_status("POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n"), 0);
  EXPECT_EQ(header_status("POST /login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"),
            0);
}

TEST(RequestChecks, Interface_1_8_Http11NeedsExactlyOneHost) {
  EXPECT_EQ(header_status("GET / HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(header_status("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n"), 400);
  EXPECT_EQ(header_status("GET / HTTP/1.1\r\nhost: a\r\nHOST: b\r\n\r\n"), 400);
  // HTTP/1.0 may omit it, but not send two.
  EXPECT_EQ(header_status("GET / HTTP/1.0\r\n\r\n"), 0);
  EXPECT_EQ(header_status("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n"), 400);
}

// Request smuggling (RFC 9112 6.1, 6.3): one framing only, and "chunked"
// the only transfer coding, as the single value of a single field, on
// HTTP/1.1.
TEST(RequestChecks, Interface_1_8_ContentLengthWithTransferEncodingIs400) {
  // Beast refuses the pair when chunked is involved; a coding it does not
  // know is left to us.
  EXPECT_EQ(header_status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n"
                          "Content-Length: 5\r\n\r\n"),
            400);
  auto parsed = parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  ASSERT_FALSE(parsed->ec);
  parsed->parser.get().insert(boost::beast::http::field::content_length, "5");
  auto rejection = check_header(parsed->parser, parsed->header_bytes, HttpSettings{});
  ASSERT_TRUE(rejection.has_value());
  EXPECT_EQ(rejection->status, 400);
  EXPECT_EQ(rejection->reason, "both Content-Length and Transfer-Encoding");
}

TEST(RequestChecks, Interface_1_8_TransferEncodingOtherThanChunkedIs400) {
  for (std::string_view coding :
       {"gzip", "gzip, chunked", "chunked, gzip", "identity", "chunked;x=1", "chunked, chunked"}) {
    EXPECT_EQ(header_status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " +
                            std::string(coding) + "\r\n\r\n"),
              400)
        << coding;
  }
  // Two fields, the second chunked (Beast takes the pair).
  EXPECT_EQ(header_status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n"
                          "Transfer-Encoding: chunked\r\n\r\n"),
            400);
  // chunked on HTTP/1.0, which has no such coding.
  EXPECT_EQ(header_status("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
  // The coding's name is case-insensitive.
  EXPECT_EQ(header_status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n"), 0);
}

TEST(RequestChecks, Interface_1_8_TargetOverItsLimitIs414) {
  HttpSettings settings;
  settings.max_target = 16;
  EXPECT_EQ(
      header_status("GET /" + std::string(15, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n", settings), 0);
  EXPECT_EQ(
      header_status("GET /" + std::string(16, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n", settings),
      414);
}

// The header section is counted without the request line: its own limit,
// whatever the target's length.
TEST(RequestChecks, Interface_1_8_HeaderSectionOverItsLimitIs431) {
  HttpSettings settings;
  settings.max_header_section = 64;
  // "Host: x\r\n" (9) + "X: " (3) + value + "\r\n" (2) + "\r\n" (2).
  auto with_value = [](std::size_t size, std::string_view target = "/") {
    return "GET " + std::string(target) + " HTTP/1.1\r\nHost: x\r\nX: " + std::string(size, 'v') +
           "\r\n\r\n";
  };
  EXPECT_EQ(header_status(with_value(48), settings), 0);
  EXPECT_EQ(header_status(with_value(49), settings), 431);
  EXPECT_EQ(header_status(with_value(48, "/" + std::string(1000, 't')), settings), 0);
}

TEST(RequestChecks, Interface_1_8_VersionOtherThan1xIs505) {
  // Beast parses 1.0 and 1.1 only; the check stands behind it.
  auto parsed = parse("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_FALSE(parsed->ec);
  parsed->parser.get().version(20);
  auto rejection = check_header(parsed->parser, parsed->header_bytes, HttpSettings{});
  ASSERT_TRUE(rejection.has_value());
  EXPECT_EQ(rejection->status, 505);
}

// interface.md 1.10: protocol errors in order, 505 then 414 then 431 then
// the 400s of the fields.
TEST(RequestChecks, Interface_1_10_HeaderChecksComeInOrder) {
  HttpSettings settings;
  settings.max_target = 8;
  settings.max_header_section = 16;
  std::string no_host_long_target_big_fields =
      "GET /0123456789 HTTP/1.1\r\nX: " + std::string(40, 'x') + "\r\n\r\n";
  EXPECT_EQ(header_status(no_host_long_target_big_fields, settings), 414);
  settings.max_target = 64;
  EXPECT_EQ(header_status(no_host_long_target_big_fields, settings), 431);
  settings.max_header_section = 1024;
  EXPECT_EQ(header_status(no_host_long_target_big_fields, settings), 400);
}

// ---------------------------------------------------------- route_path

struct RouteCase {
  std::string_view target;
  std::string_view path;  // what route_path makes of it
};

void expect_route_paths(std::string_view base_path, std::initializer_list<RouteCase> cases) {
  for (const RouteCase& c : cases) EXPECT_EQ(route_path(c.target, base_path), c.path) << c.target;
}

TEST(RequestChecks, RoutingPathIgnoresQueryAndFragment) {
  expect_route_paths("", {{"/login", "/login"},
                          {"/login?next=/me", "/login"},
                          {"/login#top", "/login"},
                          {"/reset?token=a#b", "/reset"},
                          {"/?", "/"}});
}

// RFC 9112 3.2.2: routed by its path; the authority is not compared with
// Host.
TEST(RequestChecks, RoutingPathOfAbsoluteFormIsItsPath) {
  expect_route_paths("", {{"http://auth.example/login", "/login"},
                          {"https://auth.example:8443/me?x=1", "/me"},
                          {"http://auth.example", "/"},
                          {"http://auth.example?q", "/"},
                          // Neither origin-form nor absolute-form: nothing can match.
                          {"*", ""},
                          {"auth.example:443", ""},
                          {"login", ""}});
}

TEST(RequestChecks, RoutingPathIsNotNormalised) {
  // No dot segments removed, no percent-decoding, no case folding: such a
  // target names no route (404), whatever it would become normalised.
  expect_route_paths("", {{"/./login", "/./login"},
                          {"/me/../login", "/me/../login"},
                          {"/%6Cogin", "/%6Cogin"},
                          {"//login", "//login"},
                          {"/Login", "/Login"},
                          {"/login/", "/login/"}});
}

// --base-path: every route under the prefix, matched textually; a target
// outside it names nothing.
TEST(RequestChecks, RoutingPathDropsTheBasePath) {
  expect_route_paths("/auth", {{"/auth/login", "/login"},
                               {"/auth/login?x", "/login"},
                               {"http://h/auth/me", "/me"},
                               {"/login", ""},
                               {"/au", ""},
                               {"/AUTH/login", ""},
                               {"/auth", ""},
                               // Textual: what is left of "/authx/login" does not start with
                               // '/', so no route matches it.
                               {"/authx/login", "x/login"}});
}

// -------------------------------------------------------- field helpers

TEST(RequestChecks, FieldValuesAreEveryFieldOfTheNameInOrder) {
  auto parsed = parse(
      "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.0.0.1\r\nAccept: */*\r\n"
      "x-forwarded-for: 10.0.0.2, 10.0.0.3\r\nContent-Type: text/plain\r\n\r\n");
  ASSERT_FALSE(parsed->ec);
  const auto& req = parsed->parser.get();
  std::vector<std::string_view> forwarded = field_values(req, "X-Forwarded-For");
  ASSERT_EQ(forwarded.size(), 2U);
  EXPECT_EQ(forwarded[0], "10.0.0.1");
  EXPECT_EQ(forwarded[1], "10.0.0.2, 10.0.0.3");
  EXPECT_EQ(field_values(req, "x-FORWARDED-for"), forwarded);
  EXPECT_EQ(field_values(req, boost::beast::http::field::content_type),
            std::vector<std::string_view>{"text/plain"});
  EXPECT_TRUE(field_values(req, "Forwarded").empty());
  EXPECT_TRUE(field_values(req, boost::beast::http::field::authorization).empty());
  EXPECT_EQ(as_std_view(req.target()), "/");
}

}  // namespace
}  // namespace authd
