// G3: a 2xx is sent only after the transaction that records the event committed.
// With group commit in play, every answer must find its incident already visible to
// any other session at the moment the answer arrives.
#include "support/served_belay.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

using namespace belay;

TEST_CASE("every 201 finds its incident committed, under concurrent load") {
  test::served_belay belay;
  constexpr int threads = 8;
  constexpr int per_thread = 25;
  std::atomic<int> answered{0}, invisible{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t)
    clients.emplace_back([&, t] {
      storage::connection observer{belay.db.url()};
      for (int i = 0; i < per_thread; ++i) {
        auto r = belay.trigger("commit-" + std::to_string(t) + "-" + std::to_string(i));
        if (r.status != 201)
          continue;
        ++answered;
        auto id = r.json["incident"]["id"].GetInt64();
        if (observer.query("SELECT count(*) FROM incident WHERE id = $1", id)
                .int64(0, 0) != 1)
          ++invisible;
      }
    });
  for (auto& c : clients)
    c.join();
  CHECK(answered == threads * per_thread);
  CHECK(invisible == 0);
}
