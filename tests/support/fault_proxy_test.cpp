#include "tests/support/eventually.hpp"
#include "tests/support/fault_proxy.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <libpq-fe.h>
#include <memory>
#include <mutex>
#include <netinet/in.h>
#include <optional>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace std::chrono_literals;
using namespace belay::test;

namespace {

// A TCP echo server on 127.0.0.1 that also keeps every byte it received, in order.
class echo_server {
public:
  echo_server() {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&address), length) ||
        listen(listener_, 16) ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) ||
        pipe2(stop_, O_CLOEXEC))
      throw std::runtime_error("echo_server: cannot listen");
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { run(); });
  }

  ~echo_server() {
    [[maybe_unused]] auto n = write(stop_[1], "x", 1);
    thread_.join();
    close(listener_);
    close(stop_[0]);
    close(stop_[1]);
  }

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  std::string received() const {
    std::lock_guard lock{mutex_};
    return received_;
  }

  int accepted() const { return accepted_; }

private:
  void run() {
    std::vector<int> clients;
    char buffer[4096];
    for (;;) {
      std::vector<pollfd> fds{{stop_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
      for (int c : clients)
        fds.push_back({c, POLLIN, 0});
      poll(fds.data(), fds.size(), -1);
      if (fds[0].revents)
        break;
      if (fds[1].revents) {
        clients.push_back(accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC));
        ++accepted_;
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents)
          continue;
        auto n = recv(fds[i].fd, buffer, sizeof buffer, 0);
        if (n <= 0) {
          close(fds[i].fd);
          clients.erase(std::find(clients.begin(), clients.end(), fds[i].fd));
          continue;
        }
        {
          std::lock_guard lock{mutex_};
          received_.append(buffer, size_t(n));
        }
        send(fds[i].fd, buffer, size_t(n), MSG_NOSIGNAL);
      }
    }
    for (int c : clients)
      close(c);
  }

  int listener_ = -1;
  int stop_[2] = {-1, -1};
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::string received_;
  std::atomic<int> accepted_{0};
};

class client_socket {
public:
  explicit client_socket(int port) : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(uint16_t(port));
    if (connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      throw std::runtime_error("cannot connect to the proxy");
  }
  ~client_socket() { close(fd_); }
  client_socket(const client_socket&) = delete;
  client_socket& operator=(const client_socket&) = delete;

  void send_all(std::string_view bytes) {
    while (!bytes.empty()) {
      auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0)
        throw std::runtime_error("send failed");
      bytes.remove_prefix(size_t(n));
    }
  }

  enum class ending { complete, eof, reset, timeout };
  struct outcome {
    std::string data;
    ending end;
  };

  // Reads until `n` bytes came, the peer closed or reset, or `timeout` passed.
  outcome read(size_t n, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    outcome out{{}, ending::complete};
    char buffer[4096];
    while (out.data.size() < n) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, int(left.count())) == 0)
        return {out.data, ending::timeout};
      auto got = recv(fd_, buffer, std::min(sizeof buffer, n - out.data.size()), 0);
      if (got == 0)
        return {out.data, ending::eof};
      if (got < 0)
        return {out.data, errno == ECONNRESET ? ending::reset : ending::timeout};
      out.data.append(buffer, size_t(got));
    }
    return out;
  }

  std::string echo(std::string_view bytes) {
    send_all(bytes);
    return read(bytes.size(), 5s).data;
  }

private:
  int fd_;
};

using ending = client_socket::ending;

// One frontend message of the PostgreSQL wire protocol.
std::string message(char type, const std::string& body) {
  auto length = uint32_t(body.size() + 4);
  std::string out(1, type);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(char((length >> shift) & 0xff));
  return out + body;
}

std::string query(const std::string& sql) {
  return message('Q', sql + '\0');
}

std::string parse(const std::string& name, const std::string& sql) {
  return message('P', name + '\0' + sql + '\0' + std::string(2, '\0'));
}

// What PQexecParams sends after its Parse: Bind, Describe, Execute, Sync.
std::string bind_execute_sync() {
  return message('B', std::string(8, '\0')) + message('D', std::string("P\0", 2)) +
         message('E', std::string(5, '\0')) + message('S', "");
}

} // namespace

TEST_CASE("fault proxy: bytes pass both ways and are counted", "[fault_proxy]") {
  echo_server echo;
  fault_proxy proxy{echo.address()};

  {
    client_socket client{proxy.port()};
    CHECK(client.echo("hello") == "hello");
    CHECK(echo.received() == "hello");
    CHECK(proxy.wait_for_traffic([](auto& t) { return t.bytes_down == 5; }, 2s));
    auto t = proxy.traffic();
    CHECK(t.bytes_up == 5);
    CHECK(t.chunks_up == 1);
    CHECK(t.chunks_down == 1);
    CHECK(t.bytes_dropped == 0);
    CHECK(proxy.connections().open == 1);
    CHECK(proxy.connections().accepted == 1);
  }
  CHECK(proxy.wait_for_open(0, 2s));
  CHECK(proxy.connections().accepted == 1);
}

TEST_CASE("fault proxy: reset_all resets every open connection", "[fault_proxy]") {
  echo_server echo;
  fault_proxy proxy{echo.address()};
  client_socket a{proxy.port()}, b{proxy.port()};
  REQUIRE(a.echo("a") == "a");
  REQUIRE(b.echo("b") == "b");
  REQUIRE(proxy.connections().open == 2);

  proxy.reset_all();

  CHECK(proxy.connections().open == 0); // reset_all returns once they are closed
  CHECK(a.read(1, 2s).end == ending::reset);
  CHECK(b.read(1, 2s).end == ending::reset);
  client_socket later{proxy.port()};
  CHECK(later.echo("c") == "c");
}

TEST_CASE("fault proxy: refuse resets new connections until lifted", "[fault_proxy]") {
  echo_server echo;
  fault_proxy proxy{echo.address()};
  client_socket before{proxy.port()};
  REQUIRE(before.echo("1") == "1");

  proxy.refuse(true);
  {
    client_socket refused{proxy.port()};
    CHECK(refused.read(1, 2s).end == ending::reset);
  }
  CHECK(before.echo("2") == "2"); // connections already open are left alone
  CHECK(proxy.connections().refused == 1);
  CHECK(echo.accepted() == 1);

  proxy.refuse(false);
  client_socket after{proxy.port()};
  CHECK(after.echo("3") == "3");
  CHECK(echo.accepted() == 2);
}

TEST_CASE("fault proxy: stall holds connections and forwards nothing until released",
          "[fault_proxy]") {
  echo_server echo;
  fault_proxy proxy{echo.address()};
  client_socket client{proxy.port()};
  REQUIRE(client.echo("one") == "one");

  proxy.stall(true);
  client.send_all("two");
  auto stalled = client.read(3, 300ms);
  CHECK(stalled.end == ending::timeout);
  CHECK(stalled.data.empty());
  CHECK(echo.received() == "one"); // "two" never left the proxy
  CHECK(proxy.traffic().bytes_up == 3);
  client_socket newcomer{proxy.port()}; // accepted and held, not refused
  CHECK(eventually([&] { return proxy.connections().open == 2; }, 2s));
  newcomer.send_all("three");
  CHECK(newcomer.read(5, 200ms).end == ending::timeout);

  proxy.stall(false);
  CHECK(client.read(3, 2s).data == "two");
  CHECK(newcomer.read(5, 2s).data == "three");
}

TEST_CASE("fault proxy: delay adds latency to each chunk, either way", "[fault_proxy]") {
  echo_server echo;
  fault_proxy proxy{echo.address()};
  client_socket client{proxy.port()};
  REQUIRE(client.echo("warm") == "warm");

  proxy.delay(150ms);
  auto start = std::chrono::steady_clock::now();
  CHECK(client.echo("slow") == "slow");
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  CHECK(elapsed.count() >= 300); // 150 ms up, 150 ms down

  proxy.delay(0ms);
  CHECK(client.echo("fast") == "fast");
}

TEST_CASE(
    "fault proxy: a one-shot trigger forwards the bytes but the reply never arrives",
    "[fault_proxy]") {
  echo_server echo;
  fault_proxy proxy{echo.address()};
  proxy.drop_reply_after([](std::string_view bytes) {
    return bytes.find("COMMIT") != std::string_view::npos;
  });
  client_socket client{proxy.port()};
  REQUIRE(client.echo("hello") == "hello"); // does not match: passes
  CHECK(proxy.drops() == 0);

  client.send_all("COMMIT");
  auto reply = client.read(6, 2s);

  CHECK(reply.end == ending::reset);
  CHECK(reply.data.empty());
  CHECK(proxy.drops() == 1);
  CHECK(echo.received() == "helloCOMMIT"); // the upstream got the bytes
  CHECK(proxy.traffic().bytes_dropped == 6);
  CHECK(proxy.wait_for_open(0, 2s));
  client_socket next{proxy.port()};
  CHECK(next.echo("COMMIT") == "COMMIT"); // one shot: disarmed after firing
}

TEST_CASE("fault proxy: contains_commit finds COMMIT in simple and extended messages",
          "[fault_proxy]") {
  CHECK(contains_commit(query("COMMIT")));
  CHECK(contains_commit(query("commit;")));
  CHECK(contains_commit(query("  End ")));
  CHECK(contains_commit(query("COMMIT AND CHAIN")));
  CHECK(contains_commit(query("-- done\nCOMMIT")));
  CHECK(contains_commit(query("BEGIN; INSERT INTO t VALUES (1); COMMIT;")));
  CHECK(contains_commit(parse("", "COMMIT") + bind_execute_sync()));
  CHECK(contains_commit(message('S', "") + query("COMMIT")));
  CHECK(contains_commit(parse("", "INSERT INTO t VALUES (1)") + bind_execute_sync() +
                        parse("", "COMMIT") + bind_execute_sync()));

  CHECK_FALSE(contains_commit(query("ROLLBACK")));
  CHECK_FALSE(contains_commit(query("SELECT 'COMMIT'")));
  CHECK_FALSE(contains_commit(query("INSERT INTO t VALUES ('x; commit')")));
  CHECK_FALSE(contains_commit(query("COMMITTED")));
  CHECK_FALSE(contains_commit(parse("commit", "SELECT 1") + bind_execute_sync()));
  CHECK_FALSE(contains_commit(query("COMMIT").substr(0, 9))); // cut off by the read
  CHECK_FALSE(
      contains_commit(std::string("\0\0\0\x08\x04\xd2\x16\x2f", 8))); // SSLRequest
  CHECK_FALSE(contains_commit(""));
}

TEST_CASE("fault proxy: ends_statement finds a simple query or an executed sync",
          "[fault_proxy]") {
  CHECK(ends_statement(query("INSERT INTO t VALUES (1)")));
  CHECK(ends_statement(parse("", "INSERT INTO t VALUES (1)") + bind_execute_sync()));
  CHECK(ends_statement(message('B', std::string(8, '\0')) +
                       message('E', std::string(5, '\0')) + message('S', "")));

  CHECK_FALSE(ends_statement(parse("belay_0", "SELECT 1") + message('S', ""))); // prepare
  CHECK_FALSE(ends_statement(message('B', std::string(8, '\0')) +
                             message('E', std::string(5, '\0')))); // no Sync yet
  CHECK_FALSE(ends_statement(""));
}

namespace {

struct cluster {
  std::string url; // direct: the unix socket
  std::string socket;
};

// The private cluster scripts/test started, or nothing (and a warning) without one.
std::optional<cluster> postgres() {
  auto* url = std::getenv("BELAY_TEST_DATABASE_URL");
  auto* dir = std::getenv("BELAY_TEST_PG_DIR");
  auto* port = std::getenv("BELAY_TEST_PG_PORT");
  if (!url || !*url || !dir || !*dir || !port || !*port) {
    WARN("skipped: needs the PostgreSQL of scripts/test (BELAY_TEST_DATABASE_URL, "
         "BELAY_TEST_PG_DIR, BELAY_TEST_PG_PORT)");
    return std::nullopt;
  }
  return cluster{url, fault_proxy::postgres_socket(dir, std::atoi(port))};
}

using connection_ptr = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using result_ptr = std::unique_ptr<PGresult, decltype(&PQclear)>;

connection_ptr connect_direct(const cluster& db) {
  return {PQconnectdb(db.url.c_str()), &PQfinish};
}

// The cluster's database and user, but over TCP through the proxy, as belay would be.
connection_ptr connect_through(const cluster& db, const fault_proxy& proxy) {
  auto port = std::to_string(proxy.port());
  const char* keys[] = {"dbname", "host", "port", "connect_timeout", nullptr};
  const char* values[] = {db.url.c_str(), "127.0.0.1", port.c_str(), "5", nullptr};
  return {PQconnectdbParams(keys, values, 1), &PQfinish};
}

result_ptr exec(PGconn* c, const std::string& sql) {
  return {PQexec(c, sql.c_str()), &PQclear};
}

bool ok(const result_ptr& r) {
  auto status = PQresultStatus(r.get());
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

std::string scratch_table() {
  static std::atomic<int> counter{0};
  return "fault_proxy_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
}

} // namespace

TEST_CASE(
    "fault proxy: PostgreSQL commits but the reply is lost, a real ambiguous commit",
    "[fault_proxy][postgres]") {
  auto db = postgres();
  if (!db)
    return;
  auto direct = connect_direct(*db);
  REQUIRE(PQstatus(direct.get()) == CONNECTION_OK);
  auto table = scratch_table();
  REQUIRE(ok(exec(direct.get(), "CREATE TABLE " + table + " (id int PRIMARY KEY)")));
  struct drop_table {
    PGconn* c;
    std::string table;
    ~drop_table() { exec(c, "DROP TABLE IF EXISTS " + table); }
  } cleanup{direct.get(), table};

  fault_proxy proxy{db->socket};
  auto via = connect_through(*db, proxy);
  INFO(PQerrorMessage(via.get()));
  REQUIRE(PQstatus(via.get()) == CONNECTION_OK);
  auto insert = "INSERT INTO " + table + " VALUES (1)";
  result_ptr lost{nullptr, &PQclear};

  SECTION("COMMIT as a simple query (PQexec)") {
    REQUIRE(ok(exec(via.get(), "BEGIN")));
    REQUIRE(ok(exec(via.get(), insert)));
    proxy.drop_after_commit();
    lost.reset(PQexec(via.get(), "COMMIT"));
  }
  SECTION(
      "COMMIT over the extended protocol (PQexecParams, as belay's storage sends it)") {
    REQUIRE(ok(exec(via.get(), "BEGIN")));
    REQUIRE(ok(exec(via.get(), insert)));
    proxy.drop_after_commit();
    lost.reset(
        PQexecParams(via.get(), "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0));
  }
  SECTION("a single statement's implicit transaction (ends_statement)") {
    proxy.drop_reply_after(ends_statement);
    lost.reset(PQexecParams(via.get(), insert.c_str(), 0, nullptr, nullptr, nullptr,
                            nullptr, 0));
  }

  INFO(PQerrorMessage(via.get()));
  CHECK(PQresultStatus(lost.get()) == PGRES_FATAL_ERROR);
  CHECK(PQstatus(via.get()) == CONNECTION_BAD); // the client never heard the outcome
  CHECK(proxy.drops() == 1);
  CHECK(proxy.traffic().bytes_dropped > 0);
  auto count = exec(direct.get(), "SELECT count(*) FROM " + table + " WHERE id = 1");
  REQUIRE(ok(count));
  CHECK(std::string(PQgetvalue(count.get(), 0, 0)) == "1"); // yet it committed
}

TEST_CASE("fault proxy: PostgreSQL behind a refusing or reset proxy",
          "[fault_proxy][postgres]") {
  auto db = postgres();
  if (!db)
    return;
  fault_proxy proxy{db->socket};

  proxy.refuse(true);
  auto refused = connect_through(*db, proxy);
  CHECK(PQstatus(refused.get()) == CONNECTION_BAD);
  proxy.refuse(false);

  auto via = connect_through(*db, proxy);
  INFO(PQerrorMessage(via.get()));
  REQUIRE(PQstatus(via.get()) == CONNECTION_OK);
  CHECK(ok(exec(via.get(), "SELECT 1")));
  CHECK(proxy.traffic().bytes_up > 0);
  CHECK(proxy.traffic().bytes_down > 0);

  proxy.reset_all();
  CHECK_FALSE(ok(exec(via.get(), "SELECT 1")));
  CHECK(PQstatus(via.get()) == CONNECTION_BAD);
}
