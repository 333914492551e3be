// docs/guarantees.md#nothing-waits-for-ever (slow clients cannot hold threads), and
// /readyz telling whether the node is up: a node whose every HTTP thread and queue place
// is taken by slow clients still answers its probes at once.
#include "support/raw_connection.hpp"
#include "support/served_belay.hpp"

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
