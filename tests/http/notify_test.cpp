// belay under a service manager (docs/operations.md#the-watchdog): a unix datagram
// socket stands in for systemd's NOTIFY_SOCKET, as sd_notify writes to it.
#include "support/belay_process.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace belay;

namespace {

class notify_socket {
public:
  notify_socket() {
    path_ = "/tmp/belay-notify-" + std::to_string(getpid()) + ".sock";
    unlink(path_.c_str());
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path_.copy(addr.sun_path, sizeof addr.sun_path - 1);
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~notify_socket() {
    close(fd_);
    unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

  // The next datagram within `timeout`; empty if none came.
  std::string next(std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0)
      return {};
    char buf[4096];
    auto n = recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string{};
  }
  // Reads datagrams until one holds `line`; false if none did within `timeout`.
  bool wait_for(const std::string& line, std::chrono::milliseconds timeout) {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      auto message = next(left);
      INFO("notification: " << message);
      if (("\n" + message + "\n").find("\n" + line + "\n") != std::string::npos)
        return true;
    }
    return false;
  }

private:
  std::string path_;
  int fd_ = -1;
};

} // namespace

TEST_CASE("belay notifies READY=1 once it serves, WATCHDOG=1 while its actors answer, "
          "then STOPPING=1",
          "[notify]") {
  test::test_database db;
  notify_socket systemd;
  int port = test::free_port();
  test::belay_process belay{
      {"serve", "--port", std::to_string(port), "--database-url", db.url(), "--node-id",
       "notify-test"},
      {{"NOTIFY_SOCKET", systemd.path()}, {"WATCHDOG_USEC", "1000000"}}};

  if (!systemd.wait_for("READY=1", std::chrono::seconds{60}))
    FAIL("no READY=1; belay's log:\n" << belay.log());
  // Ready means ready: the probes a load balancer asks agree.
  auto readyz = belay.client().Get("/readyz");
  REQUIRE(readyz);
  CHECK(readyz->status == 200);

  // Every half of WATCHDOG_USEC.
  for (int ping = 0; ping < 3; ++ping)
    CHECK(systemd.wait_for("WATCHDOG=1", std::chrono::seconds{2}));

  std::thread stopping{[&] { CHECK(belay.stop() == 0); }};
  CHECK(systemd.wait_for("STOPPING=1", std::chrono::seconds{20}));
  stopping.join();
}
