// The checks of a request that need no socket (interface.md 1.8 and 1.10):
// the raw header's pre-scan (obs-fold, a bad request line answered without
// waiting for the header's end), the verdicts Beast leaves to the server on
// a parsed header (505, 414, 431, Host, request smuggling), and the path
// that routing sees. Functions of their arguments only, fuzzed through the
// server (fuzz/fuzz_request.cpp); http/exchange.cpp runs them per request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "core/ascii.hpp"
#include "core/wiping_allocator.hpp"
#include "http/server.hpp"

namespace authd {

namespace beast = boost::beast;
namespace http = beast::http;

using ReadBuffer = beast::basic_flat_buffer<WipingAllocator<char>>;
// Request bodies hold passwords, header fields tokens: their memory,
// including the copies left behind when a chunked body grows, is wiped when
// it is freed.
using RequestBody = http::basic_string_body<char, std::char_traits<char>, WipingAllocator<char>>;
using Parser = http::request_parser<RequestBody, WipingAllocator<char>>;

// Beast 1.74 speaks boost::string_view.
inline std::string_view as_std_view(beast::string_view s) { return {s.data(), s.size()}; }

template <class Fields>
std::vector<std::string_view> field_values(const Fields& fields, http::field name) {
  std::vector<std::string_view> values;
  auto [first, last] = fields.equal_range(name);
  for (auto it = first; it != last; ++it)
    values.emplace_back(it->value().data(), it->value().size());
  return values;
}

template <class Fields>
std::vector<std::string_view> field_values(const Fields& fields, std::string_view name) {
  std::vector<std::string_view> values;
  auto [first, last] = fields.equal_range(beast::string_view(name.data(), name.size()));
  for (auto it = first; it != last; ++it)
    values.emplace_back(it->value().data(), it->value().size());
  return values;
}

// What the connection loop does after a request's header has been read.
struct Rejection {
  int status;
  std::string_view reason;  // for the log, never sent
};

// 414 or 431 when the header section outgrew the parser's limit: the
// request line alone decides which (interface.md 1.8). Beast consumes the
// request line from the buffer as soon as it is complete, so the parser's
// message, not the buffer, tells what it was: no target yet means the
// request line itself did not end within the limit.
int classify_oversized_header(const Parser& parser, std::size_t max_target);

// Beast refuses every version but 1.0 and 1.1 as a malformed request line
// (400). A request line that is well formed apart from its version, such
// as "GET / HTTP/2.0", deserves the more precise 505 (interface.md 1.8).
// After that error the request line is still at the front of the buffer.
bool has_unsupported_version(const ReadBuffer& buffer);

// obs-fold (RFC 9112 5.2) is refused (400), not unfolded as Beast would
// silently do: an intermediary that reads the folded line otherwise would
// disagree with us on the request's fields (request smuggling). Beast
// consumes the header as it parses it, so the raw bytes are looked at
// first, as they arrive, until the empty line that ends the header section.
//
// The scan resumes where it stopped on each new read, so that a header
// dripped a byte at a time costs time linear in its size (interface.md 1.8:
// no client can hold a thread). It does not delay Beast's answers either:
// a request line that Beast refuses (bad method, target or version, bare
// LF, stray CR) is handed to Beast as soon as it is complete, or at once
// when the first bytes already show it, for the same 400/505/414 as without
// the scan (a bare LF right after the version, which Beast would refuse
// only once one more byte came, is answered 400 here); only a well-formed
// request line waits for the header's end.
class HeaderPrescan {
 public:
  enum class Verdict {
    need_more,  // read more, then scan again
    folded,     // a line starts with white space: 400
    bare_lf,    // the request line ends with LF alone: 400
    beast,      // let Beast parse what is there now
  };

  explicit HeaderPrescan(std::uint32_t header_limit) : header_limit_(header_limit) {}

  // `raw`: everything buffered for this request so far; it only grows
  // between calls.
  Verdict scan(std::string_view raw);

 private:
  static constexpr std::size_t npos = std::string_view::npos;
  std::uint32_t header_limit_;
  bool first_look_ = true;
  bool request_line_done_ = false;
  std::size_t request_line_start_ = npos;
  std::size_t search_ = 0;           // where the search for the next '\n' resumes
  std::size_t line_end_ = 0;         // the '\n' that ends the last complete line
  bool line_start_checked_ = false;  // the line after line_end_ has been classified
};

// Checks that Beast leaves to the server, on a parsed header, in the order
// of interface.md 1.10: protocol (505, 414, 431, 400 framing) come first.
std::optional<Rejection> check_header(const Parser& parser, std::size_t header_bytes,
                                      const HttpSettings& settings);

// Path for routing: the target without query, absolute-form authority or
// configured prefix. Empty when nothing can match.
std::string_view route_path(std::string_view target, std::string_view base_path);

// The target's query: after the first '?', before any '#'; empty for none.
std::string_view route_query(std::string_view target);

}  // namespace authd
