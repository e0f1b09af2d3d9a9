#include "http/request_checks.hpp"

namespace authd {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;

// Beast's verdict on a request line, without keeping any of it: a parser
// that stores nothing and is only ever given the bytes up to the end of the
// request line (or the first bytes of one).
class RequestLineProbe : public http::basic_parser<true> {
  void on_request_impl(http::verb, beast::string_view, beast::string_view, int,
                       error_code&) override {}
  void on_response_impl(int, beast::string_view, int, error_code&) override {}
  void on_field_impl(http::field, beast::string_view, beast::string_view, error_code&) override {}
  void on_header_impl(error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
  std::size_t on_body_impl(beast::string_view, error_code&) override { return 0; }
  void on_chunk_header_impl(std::uint64_t, beast::string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view, error_code&) override {
    return 0;
  }
  void on_finish_impl(error_code&) override {}
};

// True when Beast, given `bytes` (the start of a request, no further than
// the end of its request line), refuses them (400, 505 or 414 follow).
bool beast_refuses_request_line(std::string_view bytes, std::uint32_t header_limit) {
  RequestLineProbe probe;
  probe.header_limit(header_limit);
  error_code ec;
  probe.put(asio::buffer(bytes.data(), bytes.size()), ec);
  return ec && ec != http::error::need_more;
}

}  // namespace

int classify_oversized_header(const Parser& parser, std::size_t max_target) {
  std::size_t target = parser.get().target().size();
  return target == 0 || target > max_target ? 414 : 431;
}

bool has_unsupported_version(const ReadBuffer& buffer) {
  auto data = buffer.data();
  std::string_view raw(static_cast<const char*>(data.data()), data.size());
  auto end = raw.find("\r\n");
  if (end == std::string_view::npos) return false;
  std::string_view line = raw.substr(0, end);
  auto first_space = line.find(' ');
  auto last_space = line.rfind(' ');
  if (first_space == std::string_view::npos || first_space == 0 || last_space == first_space ||
      last_space == first_space + 1)
    return false;
  std::string_view version = line.substr(last_space + 1);  // HTTP-version = "HTTP/" DIGIT "." DIGIT
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  return version.size() == 8 && version.substr(0, 5) == "HTTP/" && digit(version[5]) &&
         version[6] == '.' && digit(version[7]) && version != "HTTP/1.0" && version != "HTTP/1.1";
}

HeaderPrescan::Verdict HeaderPrescan::scan(std::string_view raw) {
  bool first_look = std::exchange(first_look_, false);
  if (!request_line_done_) {
    // Empty lines before the request line are skipped.
    if (request_line_start_ == npos) {
      request_line_start_ = raw.find_first_not_of("\r\n", search_);
      if (request_line_start_ == npos) {
        search_ = raw.size();
        return Verdict::need_more;
      }
      search_ = request_line_start_;
    }
    // The request line ends at CRLF, or at a bare LF (Beast refuses
    // that); a CR alone, which no request line may hold, shows it bad.
    while (true) {
      std::size_t end = raw.find_first_of("\r\n", search_);
      bool crlf = false;
      if (end != npos && raw[end] == '\r' && end + 1 < raw.size()) {
        if (raw[end + 1] == '\n') {
          ++end;
          crlf = true;
        } else {
          if (beast_refuses_request_line(raw.substr(0, end + 2), header_limit_))
            return Verdict::beast;
          search_ = end + 1;
          continue;
        }
      } else if (end == npos || raw[end] == '\r') {
        // Incomplete: on the first look, Beast may already see it bad
        // (a bad method, say), as it did before there was a scan.
        search_ = end == npos ? raw.size() : end;
        return first_look && beast_refuses_request_line(raw, header_limit_) ? Verdict::beast
                                                                            : Verdict::need_more;
      }
      if (beast_refuses_request_line(raw.substr(0, end + 1), header_limit_)) return Verdict::beast;
      // Right after the version, Beast needs one more byte to refuse a
      // bare LF, which may never come: the answer is the same 400.
      if (!crlf) return Verdict::bare_lf;
      line_end_ = end;
      break;
    }
    request_line_done_ = true;
    line_start_checked_ = false;
  }
  while (true) {
    if (!line_start_checked_) {
      // The line after the '\n' at line_end_: empty (the end of the
      // header section), folded, or a field line.
      std::size_t at = line_end_ + 1;
      if (at >= raw.size()) return Verdict::need_more;
      char c = raw[at];
      if (c == ' ' || c == '\t') return Verdict::folded;
      if (c == '\n') return Verdict::beast;
      if (c == '\r') {
        if (at + 1 >= raw.size()) return Verdict::need_more;
        if (raw[at + 1] == '\n') return Verdict::beast;
      }
      line_start_checked_ = true;
      search_ = at;
    }
    std::size_t end = raw.find('\n', search_);
    if (end == npos) {
      search_ = raw.size();
      return Verdict::need_more;
    }
    line_end_ = end;
    line_start_checked_ = false;
  }
}

std::optional<Rejection> check_header(const Parser& parser, std::size_t header_bytes,
                                      const HttpSettings& settings) {
  const auto& req = parser.get();
  if (req.version() / 10 != 1) return Rejection{505, "unsupported HTTP version"};
  if (req.target().size() > settings.max_target) return Rejection{414, "request target too long"};
  // Request line: METHOD SP target SP HTTP/1.x CRLF
  std::size_t request_line = req.method_string().size() + req.target().size() + 12;
  if (header_bytes > request_line && header_bytes - request_line > settings.max_header_section)
    return Rejection{431, "header section too large"};
  std::size_t hosts = field_values(req, http::field::host).size();
  if (hosts > 1 || (req.version() == 11 && hosts == 0)) return Rejection{400, "bad Host header"};
  // Request smuggling defences (RFC 9112 6.1, 6.3): a request may frame its
  // body one way only, and "chunked" is the only transfer coding we take.
  auto encodings = field_values(req, http::field::transfer_encoding);
  if (!encodings.empty()) {
    if (req.count(http::field::content_length) > 0)
      return Rejection{400, "both Content-Length and Transfer-Encoding"};
    if (encodings.size() != 1 || !equals_ignoring_case(encodings.front(), "chunked") ||
        req.version() == 10)
      return Rejection{400, "unsupported Transfer-Encoding"};
  }
  return std::nullopt;
}

std::string_view route_query(std::string_view target) {
  target = target.substr(0, target.find('#'));
  std::size_t mark = target.find('?');
  return mark == std::string_view::npos ? std::string_view() : target.substr(mark + 1);
}

std::string_view route_path(std::string_view target, std::string_view base_path) {
  if (!target.empty() && target.front() != '/') {
    // absolute-form "http://host/path" (RFC 9112 3.2.2)
    auto scheme = target.find("://");
    if (scheme == std::string_view::npos) return {};
    auto slash = target.find('/', scheme + 3);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  target = target.substr(0, target.find_first_of("?#"));
  if (!base_path.empty()) {
    if (target.substr(0, base_path.size()) != base_path) return {};
    target.remove_prefix(base_path.size());
  }
  return target;
}

}  // namespace authd
