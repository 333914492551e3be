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
      : queued_(std::max<size_t>(queued, 1)), overflow_(std::max<size_t>(overflow, 1)) {
    for (size_t i = 0; i < threads; ++i)
      threads_.emplace_back([this] { work(); });
  }

  void enqueue(std::function<void()> fn) override {
    {
      std::unique_lock lock{mutex_};
      if (jobs_.size() < queued_) {
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
    }
  }

  size_t queued_, overflow_;
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
