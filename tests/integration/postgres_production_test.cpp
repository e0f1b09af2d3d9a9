// interface.md 20.1: --database takes libpq's multi-host strings with
// target_session_attrs=read-write, and after a failover authd finds the new
// primary by itself, answering 503 with Retry-After meanwhile. The hot
// standby is a real one: pg_basebackup -R from the test cluster
// (scripts/with-postgres.sh's `standby` verb), promoted with pg_ctl.
//
// PostgresStandby makes a standby of the test cluster (a base backup, which
// waits for the cluster's checkpoint) and freezes the cluster's server, so
// scripts/test.sh runs it with the restart tests, one test at a time.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <regex>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// Runs a shell command; its standard output.
std::string output_of(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  if (::pclose(pipe) != 0) throw std::runtime_error("failed: " + command + "\n" + output);
  return without_trailing_newlines(output);
}

// A loopback port nothing listens on: bound by the kernel's choice, then
// closed.
std::string closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return std::to_string(ntohs(address.sin_port));
}

// The parts of a fresh database's URL (postgresql://USER@HOST:PORT/NAME).
struct Database {
  std::string user, host, port, name;
  explicit Database(const std::string& url) {
    static const std::regex kUrl(R"(postgresql://([^@]+)@([^:/]+):(\d+)/(\w+))");
    std::smatch parts;
    if (!std::regex_match(url, parts, kUrl)) throw std::runtime_error("unexpected URL " + url);
    user = parts[1], host = parts[2], port = parts[3], name = parts[4];
  }
  // The URL form naming `first` (a port on the same host) before the server.
  std::string url_with_first(const std::string& first) const {
    return "postgresql://" + user + "@" + host + ":" + first + "," + host + ":" + port + "/" +
           name + "?target_session_attrs=read-write";
  }
};

// A hot standby streaming from the test cluster, stopped and deleted at
// the end.
class Standby {
 public:
  Standby() : name_(std::to_string(::getpid()) + "-" + std::to_string(++count_)) {
    port_ = output_of("bash " + control() + " standby " + name_);
  }
  ~Standby() {
    [[maybe_unused]] int ignored =
        std::system(("bash " + control() + " standby-stop " + name_).c_str());
  }
  const std::string& port() const { return port_; }
  void promote() { output_of("bash " + control() + " promote " + name_); }
  // True once the standby has replayed everything `primary_url` wrote so far.
  void wait_for_replay(const std::string& primary_url, const std::string& name) {
    const std::string lsn =
        output_of("psql -X -At -d '" + primary_url + "' -c 'SELECT pg_current_wal_lsn()'");
    const std::string standby = "postgresql://postgres@127.0.0.1:" + port_ + "/" + name;
    ASSERT_TRUE(eventually([&] {
      return output_of("psql -X -At -d '" + standby +
                       "' -c \"SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'\"") == "t";
    }));
  }

 private:
  static std::string control() { return std::getenv("AUTHD_TEST_POSTGRES_CONTROL"); }
  static inline std::atomic<int> count_{0};
  std::string name_;
  std::string port_;
};

std::vector<std::string> cheap_hashing_and(std::vector<std::string> more) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Starts authd on `url`, then signs kEmail in through it: both a read and
// a write on whichever host it chose.
void expect_serves(const std::string& url) {
  AuthdProcess authd(fast_hashing(), url);
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty()) << authd.log_text();
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 200);
}

// The URL form with a host that refuses connections named first: authd
// starts and serves from the second.
TEST(PostgresProduction, Interface_20_1_MultiHostUrlSkipsAHostThatRefuses) {
  AUTHD_POSTGRES_ONLY();
  Database database(fresh_postgres_database());
  expect_serves(database.url_with_first(closed_port()));
}

// The keyword form of the same.
TEST(PostgresProduction, Interface_20_1_MultiHostKeywordStringSkipsAHostThatRefuses) {
  AUTHD_POSTGRES_ONLY();
  Database database(fresh_postgres_database());
  expect_serves("host=" + database.host + "," + database.host + " port=" + closed_port() + "," +
                database.port + " user=" + database.user + " dbname=" + database.name +
                " target_session_attrs=read-write");
}

// A hot standby named first is passed over for the primary: every write
// lands (a standby would refuse it).
TEST(PostgresStandby, Interface_20_1_AStandbyNamedFirstIsSkippedForThePrimary) {
  AUTHD_POSTGRES_ONLY();
  Database database(fresh_postgres_database());
  Standby standby;
  expect_serves(database.url_with_first(standby.port()));
}

// A failover: the primary stops answering (frozen), the standby is
// promoted. Meanwhile requests answer 503 with Retry-After, never 500;
// afterwards authd serves from the new primary by itself, with the session
// it acknowledged before, and takes new writes there.
TEST(PostgresStandby, Interface_20_1_FrozenPrimaryThenPromotedStandbyServesAgain) {
  AUTHD_POSTGRES_ONLY();
  Database database(fresh_postgres_database());
  Standby standby;
  const std::string primary_url = "postgresql://" + database.user + "@" + database.host + ":" +
                                  database.port + "/" + database.name;
  const std::string url = "postgresql://" + database.user + "@" + database.host + ":" +
                          database.port + "," + database.host + ":" + standby.port() + "/" +
                          database.name + "?target_session_attrs=read-write";
  AuthdProcess authd(cheap_hashing_and({"--database-timeout", "1s"}), url);
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  ASSERT_FALSE(token.empty()) << authd.log_text();
  standby.wait_for_replay(primary_url, database.name);

  control_postgres({"freeze"});
  for (int i = 0; i < 3; ++i) {
    HttpResponse me = get_with_token(authd.port(), "/me", token);
    EXPECT_EQ(me.status, 503) << me.body;
    EXPECT_FALSE(me.header("Retry-After").empty());
    HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
    EXPECT_EQ(login.status, 503) << login.body;
  }
  standby.promote();
  auto promoted = std::chrono::steady_clock::now();
  bool served = eventually([&] {
    int status = get_with_token(authd.port(), "/me", token).status;
    EXPECT_TRUE(status == 200 || status == 503) << status;
    return status == 200;
  });
  auto took = std::chrono::steady_clock::now() - promoted;
  control_postgres({"thaw"});
  ASSERT_TRUE(served) << authd.log_text();
  std::cout << "served again "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
            << " ms after the promotion\n";
  EXPECT_FALSE(authd.login(kEmail, kPassword).empty()) << authd.log_text();
}

// A string without target_session_attrs lets a connection land on a
// standby (here: once the primary stops answering). A write there is
// refused by the server (0A000 to BEGIN READ WRITE): that is a 503 with
// Retry-After, never a 500, and the host loses its first place, so that
// once the primary answers again the writes go back to it by themselves.
// Behind a pooler that still reports a demoted primary's parameters the
// same happens with target_session_attrs=read-write.
TEST(PostgresStandby, Interface_20_1_AWriteOnAStandbyIs503AndTheStoreMovesOn) {
  AUTHD_POSTGRES_ONLY();
  Database database(fresh_postgres_database());
  Standby standby;
  const std::string primary_url = "postgresql://" + database.user + "@" + database.host + ":" +
                                  database.port + "/" + database.name;
  const std::string url = "postgresql://" + database.user + "@" + database.host + ":" +
                          database.port + "," + database.host + ":" + standby.port() + "/" +
                          database.name;
  AuthdProcess authd(cheap_hashing_and({"--database-timeout", "1s"}), url);
  authd.add_user(kEmail, kPassword);
  ASSERT_FALSE(authd.login(kEmail, kPassword).empty()) << authd.log_text();
  standby.wait_for_replay(primary_url, database.name);

  control_postgres({"freeze"});
  for (int i = 0; i < 6; ++i) {
    HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
    EXPECT_EQ(login.status, 503) << login.body;
    EXPECT_FALSE(login.header("Retry-After").empty());
  }
  // The standby's refusal is the database being unavailable (store_busy),
  // not an error of authd's, and the store does not stay on the standby:
  // at most every other write tries it.
  const std::string log = authd.log_text();
  EXPECT_EQ(log.find("\"event\":\"store_error\""), std::string::npos) << log;
  std::size_t refusals = 0;
  for (auto at = log.find("SQLSTATE 0A000"); at != std::string::npos;
       at = log.find("SQLSTATE 0A000", at + 1))
    ++refusals;
  EXPECT_GE(refusals, 1u) << "the standby was never tried: " << log;
  EXPECT_LE(refusals, 3u) << log;
  control_postgres({"thaw"});
  bool served = eventually([&] {
    int status = post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status;
    EXPECT_TRUE(status == 200 || status == 503) << status;
    return status == 200;
  });
  EXPECT_TRUE(served) << authd.log_text();
}

}  // namespace
}  // namespace authd::test
