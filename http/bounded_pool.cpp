#include "http/bounded_pool.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace belay {

namespace {

thread_local bool on_shedding_thread = false;

using steady = std::chrono::steady_clock;

class bounded_pool : public httplib::TaskQueue {
public:
  bounded_pool(size_t threads, size_t queued, size_t overflow,
               std::chrono::milliseconds queue_wait)
      : overflow_(std::max<size_t>(overflow, 1)), queue_wait_(queue_wait) {
    threads = std::max<size_t>(threads, 1);
    capacity_ = threads + std::max<size_t>(queued, 1);
    for (size_t i = 0; i < threads; ++i)
      threads_.emplace_back([this] { work(); });
    mover_ = std::thread{[this] { move_stale(); }};
  }

  void enqueue(std::function<void()> fn) override {
    {
      std::unique_lock lock{mutex_};
      // Counted as running plus queued, not by the queue's length: on a starved CPU the
      // threads take their connections late, the queue then looks full while threads
      // are still free, later connections overflowed early, and once the threads took
      // theirs a probe found room in the queue, behind slow clients, and waited for
      // their deadline (6 Dec: /healthz after 4.7 s with 150 slow clients).
      if (in_pool_ < capacity_) {
        ++in_pool_;
        jobs_.push_back({std::move(fn), steady::now()});
        lock.unlock();
        ready_.notify_one();
        return;
      }
      if (overflowing_ < overflow_)
        return overflow(std::move(fn));
    }
    shed(fn); // on the accepting thread: the backlog waits meanwhile
  }

  void shutdown() override {
    {
      std::lock_guard lock{mutex_};
      stopping_ = true;
    }
    ready_.notify_all();
    moved_.notify_all();
    for (auto& t : threads_)
      t.join();
    mover_.join();
    std::unique_lock lock{mutex_};
    overflow_done_.wait(lock, [this] { return overflowing_ == 0; });
  }

private:
  // Under mutex_, with overflowing_ < overflow_.
  void overflow(std::function<void()> fn) {
    ++overflowing_;
    std::thread{[this, fn = std::move(fn)] {
      shed(fn);
      std::lock_guard done{mutex_};
      --overflowing_;
      overflow_done_.notify_all();
    }}.detach();
  }

  // A connection queued longer than queue_wait_ goes to an overflow thread: every pool
  // thread is then held (slow clients, each up to the header deadline), and whatever
  // waits behind them would wait that long. Issue 61: 100 connections trickling a header
  // a byte a second took the 64 threads and the first 36 places, and a probe queued
  // behind them went unanswered for 3 s and more; moved, it is answered at once (and
  // any other request gets 503 with Retry-After).
  void move_stale() {
    std::unique_lock lock{mutex_};
    while (!stopping_) {
      moved_.wait_for(lock, queue_wait_ / 4);
      const auto stale = steady::now() - queue_wait_;
      while (!jobs_.empty() && jobs_.front().queued_at < stale &&
             overflowing_ < overflow_) {
        auto fn = std::move(jobs_.front().fn);
        jobs_.pop_front();
        --in_pool_;
        overflow(std::move(fn));
      }
    }
  }

  static void shed(const std::function<void()>& fn) {
    on_shedding_thread = true;
    fn();
    on_shedding_thread = false;
  }

  void work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock{mutex_};
        ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty())
          return;
        fn = std::move(jobs_.front().fn);
        jobs_.pop_front();
      }
      fn();
      std::lock_guard done{mutex_};
      --in_pool_;
    }
  }

  struct job {
    std::function<void()> fn;
    steady::time_point queued_at;
  };

  size_t overflow_;
  std::chrono::milliseconds queue_wait_;
  size_t capacity_ = 0;    // connections running or queued at most
  size_t in_pool_ = 0;     // connections running or queued now
  size_t overflowing_ = 0; // overflow threads running now
  std::mutex mutex_;
  std::condition_variable ready_, overflow_done_, moved_;
  std::deque<job> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::thread mover_;
};

} // namespace

httplib::TaskQueue* make_bounded_pool(size_t threads, size_t queued, size_t overflow,
                                      std::chrono::milliseconds queue_wait) {
  return new bounded_pool(threads, queued, overflow, queue_wait);
}

bool shedding() {
  return on_shedding_thread;
}

bool served_when_saturated(const std::string& path) {
  return path == "/healthz" || path == "/readyz" || path == "/metrics";
}

} // namespace belay
