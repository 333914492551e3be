// LISTEN on one PostgreSQL channel, on a thread and a connection of its own: the way one
// node hears what another committed (DESIGN.md section 9). A payload reaches `deliver`
// on that thread. After a lost connection it reconnects every second, then calls
// `resumed` (on that thread too): notifications sent meanwhile are lost, and the caller
// catches up another way. Its session is named "belay listener <pid>".
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace belay::storage {

class listener {
public:
  listener(std::string url, std::string channel,
           std::function<void(const std::string& payload)> deliver,
           std::function<void()> resumed);
  ~listener(); // stops listening within ~0.25 s and joins the thread
  listener(const listener&) = delete;
  listener& operator=(const listener&) = delete;

private:
  void run();

  std::string url_;
  std::string channel_;
  std::function<void(const std::string&)> deliver_;
  std::function<void()> resumed_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace belay::storage
