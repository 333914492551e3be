// http/bounded_pool.hpp: a connection overflows (onto a thread of its own, where only
// the probes are served) only once as many connections are running or queued as the
// pool has threads and queue places, however late its threads take their connections,
// or once it has waited in the queue for longer than the pool allows.
#include "http/bounded_pool.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// Jobs that record whether they ran on an overflow thread, then block until released.
struct blocking_jobs {
  std::mutex mutex;
  std::condition_variable changed;
  int started = 0, shed = 0;
  bool released = false;

  std::function<void()> job() {
    return [this] {
      std::unique_lock lock{mutex};
      ++started;
      shed += shedding() ? 1 : 0;
      changed.notify_all();
      changed.wait(lock, [this] { return released; });
    };
  }
  bool wait_started(int n) {
    std::unique_lock lock{mutex};
    return changed.wait_for(lock, 5s, [&] { return started >= n; });
  }
  void release() {
    std::lock_guard lock{mutex};
    released = true;
    changed.notify_all();
  }
};

} // namespace

TEST_CASE("the HTTP pool overflows a connection only once its threads and queue are "
          "full, even when its threads take their connections late") {
  for (int round = 0; round < 50; ++round) {
    INFO("round " << round);
    blocking_jobs jobs;
    std::unique_ptr<httplib::TaskQueue> pool{make_bounded_pool(2, 1, 4, 10s)};
    // Back to back: the threads have not woken for the first when the next arrive.
    for (int i = 0; i < 3; ++i)
      pool->enqueue(jobs.job());
    REQUIRE(jobs.wait_started(2)); // both threads busy, one connection queued
    {
      std::lock_guard lock{jobs.mutex};
      CHECK(jobs.shed == 0);
    }
    // The fourth finds the pool full: it runs at once, on an overflow thread.
    pool->enqueue(jobs.job());
    REQUIRE(jobs.wait_started(3));
    {
      std::lock_guard lock{jobs.mutex};
      CHECK(jobs.shed == 1);
    }
    jobs.release();
    pool->shutdown();
    CHECK(jobs.started == 4);
  }
}

TEST_CASE("a connection queued behind threads that stay busy goes to an overflow thread "
          "once it waited the pool's queue wait") {
  blocking_jobs jobs;
  std::unique_ptr<httplib::TaskQueue> pool{make_bounded_pool(2, 8, 4, 200ms)};
  for (int i = 0; i < 2; ++i)
    pool->enqueue(jobs.job());
  REQUIRE(jobs.wait_started(2)); // both threads held
  auto queued = std::chrono::steady_clock::now();
  pool->enqueue(jobs.job()); // room in the queue: it waits there, first
  REQUIRE(jobs.wait_started(3));
  auto waited = std::chrono::steady_clock::now() - queued;
  {
    std::lock_guard lock{jobs.mutex};
    CHECK(jobs.shed == 1);
  }
  CHECK(waited >= 200ms);
  CHECK(waited < 1s);
  jobs.release();
  pool->shutdown();
  CHECK(jobs.started == 3);
}
