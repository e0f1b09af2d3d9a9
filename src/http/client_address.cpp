#include "http/client_address.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "core/ascii.hpp"

namespace authd {

namespace ip = boost::asio::ip;

namespace {

ip::address unmapped(const ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return ip::make_address_v4(ip::v4_mapped, address.to_v6());
  return address;
}

// The address's bytes, in network order (4 of the 16 for IPv4). No
// allocation: this runs for every request behind a proxy.
std::array<unsigned char, 16> address_bytes(const ip::address& address) {
  std::array<unsigned char, 16> out{};
  if (address.is_v4()) {
    auto bytes = address.to_v4().to_bytes();
    std::copy(bytes.begin(), bytes.end(), out.begin());
  } else {
    out = address.to_v6().to_bytes();
  }
  return out;
}

bool is_trusted(const ip::address& address, const TrustedProxies& trusted) {
  return std::any_of(trusted.begin(), trusted.end(),
                     [&](const IpNetwork& network) { return network.contains(address); });
}

// One hop of a forwarding list: its address, or nothing when the entry is
// not one (malformed, "unknown", obfuscated).
using Hop = std::optional<ip::address>;

// RFC 9110 5.6.2: tchar.
bool is_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_token_char);
}

// Splits at `separator` outside quoted strings (with their backslash
// escapes). Nothing when a quoted string does not end.
std::optional<std::vector<std::string_view>> split_outside_quotes(std::string_view text,
                                                                  char separator) {
  std::vector<std::string_view> parts;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted && c == '\\') {
      ++i;  // the escaped character, whatever it is
    } else if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && c == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (quoted) return std::nullopt;
  parts.push_back(text.substr(start));
  return parts;
}

// A Forwarded parameter value: a token, or a quoted string unquoted.
std::optional<std::string> parameter_value(std::string_view raw) {
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') {
    std::string value;
    for (std::size_t i = 1; i + 1 < raw.size(); ++i) {
      if (raw[i] == '\\') ++i;
      if (i + 1 >= raw.size()) return std::nullopt;  // a lone backslash before the quote
      value += raw[i];
    }
    return value;
  }
  if (!is_token(raw)) return std::nullopt;
  return std::string(raw);
}

// RFC 7239 6: node-port = port / obfport.
bool is_node_port(std::string_view port) {
  if (port.empty()) return false;
  if (port.front() == '_') {
    return port.size() > 1 && std::all_of(port.begin() + 1, port.end(), [](char c) {
             return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
           });
  }
  return port.size() <= 5 &&
         std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// RFC 7239 6: node = nodename [ ":" node-port ], where nodename is an IPv4
// address, a bracketed IPv6 address, "unknown" or an obfuscated name. Only
// the first two name an address.
Hop forwarded_node(std::string_view node) {
  std::string_view name = node;
  std::string_view port;
  bool bracketed = !node.empty() && node.front() == '[';
  if (bracketed) {
    auto close = node.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    name = node.substr(1, close - 1);
    std::string_view rest = node.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
      if (!is_node_port(port)) return std::nullopt;
    }
  } else if (auto colon = node.find(':'); colon != std::string_view::npos) {
    name = node.substr(0, colon);
    port = node.substr(colon + 1);
    if (!is_node_port(port)) return std::nullopt;
  }
  auto address = parse_ip_address(name);
  if (!address) return std::nullopt;
  // An IPv6 address must be bracketed, an IPv4 one must not (an IPv4-mapped
  // IPv6 address in brackets is read as the IPv4 address it maps).
  bool written_as_v6 = name.find(':') != std::string_view::npos;
  if (written_as_v6 != bracketed) return std::nullopt;
  return address;
}

// The `for` of one Forwarded element; nothing unless it has exactly one
// well-formed `for` naming an address.
Hop forwarded_element(std::string_view element) {
  auto pairs = split_outside_quotes(element, ';');
  if (!pairs) return std::nullopt;
  std::optional<std::string> node;
  for (std::string_view pair : *pairs) {
    pair = trim_blanks(pair);
    if (pair.empty()) continue;
    auto equals = pair.find('=');
    if (equals == std::string_view::npos) return std::nullopt;
    std::string_view name = pair.substr(0, equals);
    if (!is_token(name)) return std::nullopt;
    auto value = parameter_value(pair.substr(equals + 1));
    if (!value) return std::nullopt;
    if (!equals_ignoring_case(name, "for")) continue;
    if (node) return std::nullopt;  // two `for` in one element
    node = std::move(value);
  }
  if (!node) return std::nullopt;
  return forwarded_node(*node);
}

// The entries of a list spread over several fields, in order, each as the
// raw text of one hop. A Forwarded field whose quotes do not balance is one
// unreadable entry (it cannot be split with certainty).
std::vector<std::string_view> list_entries(const std::vector<std::string_view>& fields,
                                           bool quoted_strings) {
  std::vector<std::string_view> entries;
  for (std::string_view field : fields) {
    if (!quoted_strings) {
      std::size_t start = 0;
      while (true) {
        auto comma = field.find(',', start);
        entries.push_back(trim_blanks(field.substr(start, comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      continue;
    }
    auto parts = split_outside_quotes(field, ',');
    if (!parts) {
      entries.push_back(std::string_view());  // unreadable: an empty, malformed entry
      continue;
    }
    for (std::string_view part : *parts) entries.push_back(trim_blanks(part));
  }
  return entries;
}

}  // namespace

std::optional<IpNetwork> IpNetwork::parse(std::string_view text) {
  auto slash = text.find('/');
  auto address = parse_ip_address(text.substr(0, slash));
  if (!address) return std::nullopt;
  // A network written in IPv6 form keeps IPv6 prefix lengths, even when it
  // is an IPv4-mapped one ("::ffff:10.0.0.0/104"), which matches IPv4.
  unsigned width = address->is_v4() ? 32 : 128;
  unsigned prefix = width;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty() ||
        (digits.size() > 1 && digits.front() == '0'))
      return std::nullopt;
  }
  bool mapped_form = address->is_v4() && text.substr(0, slash).find(':') != std::string_view::npos;
  if (mapped_form) {
    if (slash != std::string_view::npos && (prefix < 96 || prefix > 128)) return std::nullopt;
    prefix = slash == std::string_view::npos ? 32 : prefix - 96;
  } else if (prefix > width) {
    return std::nullopt;
  }
  // Host bits set: the base must be the network's first address.
  std::array<unsigned char, 16> base = address_bytes(*address);
  for (std::size_t bit = prefix; bit < width; ++bit) {
    if (base[bit / 8] & (0x80 >> (bit % 8))) return std::nullopt;
  }
  return IpNetwork(*address, prefix);
}

bool IpNetwork::contains(const ip::address& candidate) const {
  ip::address address = unmapped(candidate);
  if (address.is_v4() != base_.is_v4()) return false;
  std::array<unsigned char, 16> a = address_bytes(address);
  std::array<unsigned char, 16> b = address_bytes(base_);
  for (unsigned bit = 0; bit < prefix_; ++bit) {
    unsigned char mask = static_cast<unsigned char>(0x80 >> (bit % 8));
    if ((a[bit / 8] & mask) != (b[bit / 8] & mask)) return false;
  }
  return true;
}

std::string IpNetwork::to_string() const {
  return base_.to_string() + "/" + std::to_string(prefix_);
}

bool is_trusted_proxy(std::string_view peer, const TrustedProxies& trusted) {
  if (trusted.empty()) return false;
  auto address = parse_ip_address(peer);
  return address && is_trusted(*address, trusted);
}

std::optional<ip::address> parse_ip_address(std::string_view text) {
  // Zone indices ("fe80::1%eth0") name an interface of the sender's host:
  // meaningless here, and not one address.
  if (text.empty() || text.size() > 64 || text.find('%') != std::string_view::npos)
    return std::nullopt;
  boost::system::error_code ec;
  ip::address address = ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  return unmapped(address);
}

std::string choose_client_address(std::string_view peer, const ForwardingFields& fields,
                                  const TrustedProxies& trusted) {
  if (trusted.empty()) return std::string(peer);
  auto peer_address = parse_ip_address(peer);
  if (!peer_address) return std::string(peer);
  std::string peer_text = peer_address->to_string();
  if (!is_trusted(*peer_address, trusted)) return peer_text;
  bool by_x_forwarded_for = !fields.x_forwarded_for.empty();
  bool by_forwarded = !fields.forwarded.empty();
  if (by_x_forwarded_for == by_forwarded) return peer_text;  // neither, or both: see the header

  std::vector<std::string_view> entries = by_x_forwarded_for
                                              ? list_entries(fields.x_forwarded_for, false)
                                              : list_entries(fields.forwarded, true);
  // From the right: the nearest hop first. Entries left of the chosen one
  // are never read, so whatever the client put there cannot matter.
  Hop leftmost;
  for (auto entry = entries.rbegin(); entry != entries.rend(); ++entry) {
    Hop hop = by_x_forwarded_for ? parse_ip_address(*entry) : forwarded_element(*entry);
    if (!hop) return peer_text;
    if (!is_trusted(*hop, trusted)) return hop->to_string();
    leftmost = hop;
  }
  // Every hop is a trusted proxy: the request started at the farthest one.
  return leftmost ? leftmost->to_string() : peer_text;
}

}  // namespace authd
