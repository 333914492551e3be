// Waiting for something another thread or process does: the one poll loop of the tests.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace belay::test {

// Polls `done` every 20 ms until it holds or `timeout` passed; whether it held.
inline bool eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds timeout = std::chrono::seconds{10}) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return true;
}

} // namespace belay::test
