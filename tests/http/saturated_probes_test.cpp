// docs/guarantees.md#nothing-waits-for-ever (slow clients cannot hold threads), and
// /readyz telling whether the node is up: a node whose every HTTP thread and queue place
// is taken by slow clients still answers its probes at once.
#include "support/eventually.hpp"
#include "support/raw_connection.hpp"
#include "support/served_belay.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

using namespace belay;
using namespace std::chrono_literals;

TEST_CASE("with 150 slow clients connected, /healthz and /readyz answer 200 within a "
          "second, and other requests 503") {
  test::served_belay belay; // 64 HTTP threads, 64 queue places
  std::vector<std::unique_ptr<test::raw_connection>> slow;
  for (int i = 0; i < 150; ++i) {
    slow.push_back(std::make_unique<test::raw_connection>(belay.process().port()));
    slow.back()->send_text("GET /hea"); // an unfinished request holds its thread
  }
  std::this_thread::sleep_for(300ms); // every one of them accepted

  for (const char* path : {"/healthz", "/readyz"}) {
    INFO(path);
    auto started = std::chrono::steady_clock::now();
    test::raw_connection probe{belay.process().port()};
    probe.send_text(std::string("GET ") + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
    auto answer = probe.receive_response(5s);
    auto took = std::chrono::steady_clock::now() - started;
    INFO(answer);
    CHECK(test::status_code(answer) == 200);
    INFO("answered after " << std::chrono::duration<double>(took).count() << " s");
    CHECK(took < 1s);
  }

  test::raw_connection ingest{belay.process().port()};
  ingest.send_text("POST /api/v1/incidents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                   "alpha-key\r\nContent-Length: 2\r\n\r\n{}");
  auto answer = ingest.receive_until_closed(3s);
  INFO(answer);
  CHECK(test::status_code(answer) == 503);
  CHECK(answer.find("\"overloaded\"") != std::string::npos);
}

namespace {

// Connections that each began a request and then send one more byte of a header line
// that never ends, every second: the slow-loris client of issue 61.
struct trickle {
  trickle(int port, int connections) {
    for (int i = 0; i < connections; ++i) {
      conns.push_back(std::make_unique<test::raw_connection>(port));
      conns.back()->send_text("POST /api/v1/incidents HTTP/1.1\r\nHost: x\r\n");
    }
    sender = std::thread{[this] {
      while (!stop) {
        for (auto& c : conns)
          if (!c->closed())
            c->send_text("X");
        for (int i = 0; i < 10 && !stop; ++i)
          std::this_thread::sleep_for(100ms);
      }
    }};
  }
  ~trickle() {
    stop = true;
    sender.join();
  }
  size_t open() const {
    size_t n = 0;
    for (auto& c : conns)
      n += c->ended() ? 0 : 1;
    return n;
  }
  std::vector<std::unique_ptr<test::raw_connection>> conns;
  std::atomic<bool> stop{false};
  std::thread sender;
};

// Seconds until a whole answer to `request` on a new connection, and its status (0: none
// within `wait`).
std::pair<double, int> ask(int port, const std::string& request,
                           std::chrono::milliseconds wait = 3s) {
  auto started = std::chrono::steady_clock::now();
  test::raw_connection c{port};
  c.send_text(request);
  auto answer = c.receive_response(wait);
  return {
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
      test::status_code(answer)};
}

} // namespace

// Issue 61: 100 connections trickling a header a byte a second left /healthz silent
// (each probe queued behind them), 300 silenced the node.
TEST_CASE("while 100, then 300, connections trickle a header a byte a second, probes "
          "answer within a second every time, an API client within a second, and each "
          "trickler is closed at the read timeout") {
  test::served_belay belay{test::two_orgs(), 1, {"--http-read-timeout-seconds", "4"}};
  const int port = belay.process().port();
  const std::string ingest =
      "POST /api/v1/incidents HTTP/1.1\r\nHost: x\r\nAuthorization: "
      "Bearer alpha-key\r\nContent-Length: 2\r\n\r\n{}";
  for (int connections : {100, 300}) {
    INFO(connections << " trickling connections");
    auto closed_before = belay.metric("belay_http_deadline_closed_total");
    auto began = std::chrono::steady_clock::now();
    trickle slow{port, connections};
    int probes = 0;
    while (std::chrono::steady_clock::now() - began < 3500ms) {
      for (const char* path : {"/healthz", "/readyz"}) {
        auto [took, status] = ask(port, std::string("GET ") + path +
                                            " HTTP/1.1\r\nHost: x\r\nConnection: "
                                            "close\r\n\r\n");
        INFO(path << " after " << took << " s");
        CHECK(status == 200);
        CHECK(took < 1.0);
        ++probes;
      }
      auto [took, status] = ask(port, ingest);
      INFO("an API client after " << took << " s: " << status);
      CHECK(status != 0); // its 400 (the body lacks fields), or 503 overloaded
      CHECK(took < 1.0);
      std::this_thread::sleep_for(200ms);
    }
    CHECK(probes >= 6);
    // Closed at the 4 s header deadline, counted; not kept alive by their bytes.
    CHECK(test::eventually([&] { return slow.open() == 0; }, 6s));
    auto closed_at =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    INFO("all closed after " << closed_at << " s");
    CHECK(closed_at < 7.0);
    CHECK(belay.metric("belay_http_deadline_closed_total") - closed_before >=
          connections);
  }
}
