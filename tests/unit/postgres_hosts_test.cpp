// store/postgres/hosts.hpp: the hosts of a multi-host --database string,
// tried one at a time, the one that connected last first (interface.md
// 20.1). Pure: no server.
#include "store/postgres/hosts.hpp"

#include <gtest/gtest.h>

namespace authd::postgres {
namespace {

using namespace std::chrono_literals;

HostSettings host(std::string name, std::string port) {
  return {{"host", std::move(name)}, {"port", std::move(port)}};
}

TEST(PostgresHosts, Interface_20_1_UrlFormGivesEachHostWithItsPort) {
  HostList hosts(
      "postgresql://authd@db1:5432,db2:5433,db3:5434/authd?target_session_attrs=read-write");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts.settings(0), host("db1", "5432"));
  EXPECT_EQ(hosts.settings(1), host("db2", "5433"));
  EXPECT_EQ(hosts.settings(2), host("db3", "5434"));
  EXPECT_EQ(hosts.host_budget(), HostList::kHostBudget);
}

TEST(PostgresHosts, Interface_20_1_KeywordFormWithOnePortForEveryHost) {
  HostList hosts("host=db1,db2 port=6432 dbname=authd connect_timeout=3");
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts.settings(0), host("db1", "6432"));
  EXPECT_EQ(hosts.settings(1), host("db2", "6432"));
  EXPECT_EQ(hosts.host_budget(), 3s);
}

TEST(PostgresHosts, Interface_20_1_HostaddrListsPairWithTheNames) {
  HostList hosts("host=a.example,b.example hostaddr=10.0.0.1,10.0.0.2 dbname=authd");
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts.settings(1), (HostSettings{{"host", "b.example"}, {"hostaddr", "10.0.0.2"}}));
}

// One host, or lists libpq itself would refuse, stay libpq's to handle.
TEST(PostgresHosts, Interface_20_1_OneHostOrUnpairedListsAreLeftToLibpq) {
  for (const char* url : {"postgresql://authd@db1:5432/authd", "host=db1,db2 port=1,2,3",
                          "not a connection string ="}) {
    HostList hosts(url);
    ASSERT_EQ(hosts.size(), 1u) << url;
    EXPECT_TRUE(hosts.settings(0).empty()) << url;
  }
}

// The host that connected last goes first; one that fails while first
// hands the first place on, so a frozen host is not tried first again and
// again.
TEST(PostgresHosts, Interface_20_1_TheLastGoodHostFirstAndAFailedFirstOneNoLonger) {
  HostList hosts("host=a,b,c");
  EXPECT_EQ(hosts.order(), (std::vector<std::size_t>{0, 1, 2}));
  hosts.connected(2);
  EXPECT_EQ(hosts.order(), (std::vector<std::size_t>{2, 0, 1}));
  hosts.failed(0);  // not first: no change
  EXPECT_EQ(hosts.order(), (std::vector<std::size_t>{2, 0, 1}));
  hosts.failed(2);
  EXPECT_EQ(hosts.order(), (std::vector<std::size_t>{0, 1, 2}));
}

}  // namespace
}  // namespace authd::postgres
