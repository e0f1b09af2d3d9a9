#include "store/postgres/hosts.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <string_view>

namespace authd::postgres {
namespace {

std::vector<std::string> split_on_commas(std::string_view list) {
  std::vector<std::string> parts;
  if (list.empty()) return parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = list.find(',', start);
    parts.emplace_back(list.substr(start, comma - start));
    if (comma == std::string_view::npos) return parts;
    start = comma + 1;
  }
}

}  // namespace

HostList::HostList(const std::string& url) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> parsed(
      PQconninfoParse(url.c_str(), &error), PQconninfoFree);
  if (error != nullptr) PQfreemem(error);  // may quote the URL: never shown
  std::vector<std::string> hosts, addresses, ports;
  for (const PQconninfoOption* o = parsed.get(); o != nullptr && o->keyword != nullptr; ++o) {
    std::string_view keyword = o->keyword;
    std::string_view value = o->val != nullptr ? o->val : "";
    if (keyword == "host") hosts = split_on_commas(value);
    if (keyword == "hostaddr") addresses = split_on_commas(value);
    if (keyword == "port") ports = split_on_commas(value);
    if (keyword == "connect_timeout" && !value.empty()) {
      int seconds = 0;
      std::from_chars(value.data(), value.data() + value.size(), seconds);
      if (seconds > 0) host_budget_ = std::chrono::seconds(std::max(seconds, 2));
    }
  }
  const std::size_t count = std::max(hosts.size(), addresses.size());
  const bool pairs = (hosts.empty() || hosts.size() == count) &&
                     (addresses.empty() || addresses.size() == count) &&
                     (ports.size() <= 1 || ports.size() == count);
  if (count <= 1 || !pairs) {
    hosts_.emplace_back();
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    HostSettings& host = hosts_.emplace_back();
    if (!hosts.empty()) host.emplace_back("host", hosts[i]);
    if (!addresses.empty()) host.emplace_back("hostaddr", addresses[i]);
    if (!ports.empty()) host.emplace_back("port", ports.size() == 1 ? ports[0] : ports[i]);
  }
}

void HostList::failed(std::size_t index) {
  std::size_t expected = index;
  preferred_.compare_exchange_strong(expected, (index + 1) % size(), std::memory_order_relaxed);
}

std::vector<std::size_t> HostList::order() const {
  const std::size_t first = std::min(preferred_.load(std::memory_order_relaxed), size() - 1);
  std::vector<std::size_t> indexes{first};
  for (std::size_t i = 0; i < size(); ++i)
    if (i != first) indexes.push_back(i);
  return indexes;
}

}  // namespace authd::postgres
