// The console's live stream (docs/http.md#inspector) under many viewers: one snapshot per
// org a second on the node, however many streams are open, and a bounded number of
// streams, so that viewers cannot take every HTTP thread.
#include "support/served_belay.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

TEST_CASE("live streams share one snapshot per org a second, however many watch") {
  test::served_belay belay{test::two_orgs(), 1, {"--http-threads", "16"}};
  constexpr int viewers = 4; // the node allows 16 / 4 streams
  std::atomic<bool> stop{false};
  std::atomic<int> events{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < viewers; ++i)
    threads.emplace_back([&] {
      auto http = belay.client();
      http.set_read_timeout(5, 0);
      http.Get("/api/v1/inspector/stream", {{"Authorization", "Bearer alpha-key"}},
               [&](const char* data, size_t n) {
                 for (size_t k = 0; k + 6 < n; ++k)
                   if (std::string_view{data + k, 6} == "event:")
                     ++events;
                 return !stop;
               });
    });
  std::this_thread::sleep_for(3500ms);
  auto snapshots = belay.metric("belay_inspector_snapshots_total");
  // A fifth stream is refused: 503 with Retry-After rather than another thread.
  auto extra = belay.client().Get("/api/v1/inspector/stream",
                                  {{"Authorization", "Bearer alpha-key"}});
  stop = true;
  for (auto& t : threads)
    t.join();
  INFO("events " << events << ", snapshots " << snapshots);
  CHECK(events >= viewers * 3); // every viewer had an event a second
  CHECK(snapshots <= 5);        // ~4 s of one shared snapshot a second, not 4 × 4
  REQUIRE(extra);
  CHECK(extra->status == 503);
  CHECK(extra->get_header_value("Retry-After") == "5");
}
