#include "http/response_wire.hpp"

#include <sodium.h>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/status.hpp>

#include "http/tls.hpp"

namespace authd {
namespace {

void append_field(std::string& wire, std::string_view name, std::string_view value) {
  wire += name;
  wire += ": ";
  wire += value;
  wire += "\r\n";
}

}  // namespace

std::string response_wire(const ApiResponse& response, const ResponseFrame& frame) {
  namespace http = boost::beast::http;
  auto status = static_cast<http::status>(response.status);
  auto reason_view = http::obsolete_reason(status);
  std::string_view reason(reason_view.data(), reason_view.size());
  bool own_type = false, own_cache = false;
  std::size_t size = 160 + response.body.size() + response.content_type.view().size();
  for (const auto& [name, value] : response.headers) {
    own_type = own_type || boost::beast::iequals(name, "Content-Type");
    own_cache = own_cache || boost::beast::iequals(name, "Cache-Control");
    size += name.size() + value.size() + 4;
  }

  std::string wire;
  wire.reserve(size);
  wire += "HTTP/";
  wire += static_cast<char>('0' + frame.version / 10);
  wire += '.';
  wire += static_cast<char>('0' + frame.version % 10);
  wire += ' ';
  wire += std::to_string(response.status);
  wire += ' ';
  wire += reason;
  wire += "\r\n";
  if (!own_type && !response.content_type.empty())
    append_field(wire, "Content-Type", response.content_type.view());
  if (!own_cache) append_field(wire, "Cache-Control", "no-store");
  append_field(wire, "Date", frame.date);
  append_field(wire, "X-Request-Id", frame.request_id);
  if (frame.https) append_field(wire, "Strict-Transport-Security", kStrictTransportSecurity);
  for (const auto& [name, value] : response.headers) append_field(wire, name, value);
  if (frame.version == 11 && !frame.keep_alive) append_field(wire, "Connection", "close");
  if (frame.version == 10 && frame.keep_alive) append_field(wire, "Connection", "keep-alive");
  bool bodiless_status =
      response.status / 100 == 1 || response.status == 204 || response.status == 304;
  if (!bodiless_status) append_field(wire, "Content-Length", std::to_string(response.body.size()));
  wire += "\r\n";
  if (!frame.head && !bodiless_status) wire += response.body;
  return wire;
}

void wipe_sent_response(ApiResponse& response, std::string& wire) {
  sodium_memzero(wire.data(), wire.size());
  sodium_memzero(response.body.data(), response.body.size());
  for (auto& [name, value] : response.headers) sodium_memzero(value.data(), value.size());
}

}  // namespace authd
