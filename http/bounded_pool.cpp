#include "http/bounded_pool.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace belay {

namespace {

thread_local bool on_shedding_thread = false;

class bounded_pool : public httplib::TaskQueue {
public:
  bounded_pool(size_t threads, size_t queued, size_t overflow)
      : overflow_(std::max<size_t>(overflow, 1)) {
    threads = std::max<size_t>(threads, 1);
    capacity_ = threads + std::max<size_t>(queued, 1);
    for (size_t i = 0; i < threads; ++i)
      threads_.emplace_back([this] { work(); });
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
        jobs_.push_back(std::move(fn));
        lock.unlock();
        ready_.notify_one();
        return;
      }
      if (overflowing_ < overflow_) {
        ++overflowing_;
        std::thread{[this, fn = std::move(fn)] {
          shed(fn);
          std::lock_guard done{mutex_};
          --overflowing_;
          overflow_done_.notify_all();
        }}.detach();
        return;
      }
    }
    shed(fn); // on the accepting thread: the backlog waits meanwhile
  }

  void shutdown() override {
    {
      std::lock_guard lock{mutex_};
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_)
      t.join();
    std::unique_lock lock{mutex_};
    overflow_done_.wait(lock, [this] { return overflowing_ == 0; });
  }

private:
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
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      fn();
      std::lock_guard done{mutex_};
      --in_pool_;
    }
  }

  size_t overflow_;
  size_t capacity_ = 0;    // connections running or queued at most
  size_t in_pool_ = 0;     // connections running or queued now
  size_t overflowing_ = 0; // overflow threads running now
  std::mutex mutex_;
  std::condition_variable ready_, overflow_done_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace

httplib::TaskQueue* make_bounded_pool(size_t threads, size_t queued, size_t overflow) {
  return new bounded_pool(threads, queued, overflow);
}

bool shedding() {
  return on_shedding_thread;
}

bool served_when_saturated(const std::string& path) {
  return path == "/healthz" || path == "/readyz" || path == "/metrics";
}

} // namespace belay
