#include "http/response_wire.hpp"

#include <string_view>

#include <boost/beast/http/status.hpp>

namespace authd {

std::string response_wire(
    const boost::beast::http::response<boost::beast::http::string_body>& res) {
  namespace http = boost::beast::http;
  auto view = [](boost::beast::string_view s) { return std::string_view(s.data(), s.size()); };
  std::string_view reason = view(res.reason());
  if (reason.empty()) reason = view(http::obsolete_reason(res.result()));

  std::size_t size = 32 + reason.size() + res.body().size();
  for (const auto& field : res) size += field.name_string().size() + field.value().size() + 4;
  std::string wire;
  wire.reserve(size);
  wire += "HTTP/";
  wire += static_cast<char>('0' + res.version() / 10);
  wire += '.';
  wire += static_cast<char>('0' + res.version() % 10);
  wire += ' ';
  wire += std::to_string(res.result_int());
  wire += ' ';
  wire += reason;
  wire += "\r\n";
  for (const auto& field : res) {
    wire += view(field.name_string());
    wire += ": ";
    wire += view(field.value());
    wire += "\r\n";
  }
  wire += "\r\n";
  wire += res.body();
  return wire;
}

}  // namespace authd
