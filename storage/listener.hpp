// LISTEN on one PostgreSQL channel, on a thread and a connection of its own: the way one
// node hears what another committed (docs/architecture.md#ownership). A payload reaches
// `deliver` on that thread. After a lost connection it reconnects every second, then
// calls `resumed` (on that thread too): notifications sent meanwhile are lost, and the
// caller catches up another way. Its session is named "belay listener <pid>".
//
// A socket can die without a word (a network partition, a stalled proxy): TCP keepalives
// see a vanished peer, and a probe (SELECT 1 every `probe_every`) sees one that holds the
// connection but answers nothing. No answer within `grace` counts as a lost connection.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace belay::storage {

struct listener_timing {
  std::chrono::milliseconds probe_every{5000};
  std::chrono::milliseconds grace{10000};
};

class listener {
public:
  listener(std::string url, std::string channel,
           std::function<void(const std::string& payload)> deliver,
           std::function<void()> resumed, listener_timing timing = {});
  ~listener(); // stops listening within ~0.25 s and joins the thread
  listener(const listener&) = delete;
  listener& operator=(const listener&) = delete;

  // Connected, listening, and its last probe answered in time (for /readyz).
  bool listening() const { return listening_; }
  // Connections lost (or found silent) so far.
  uint64_t losses() const { return losses_; }

private:
  void run();

  std::string url_;
  std::string channel_;
  std::function<void(const std::string&)> deliver_;
  std::function<void()> resumed_;
  listener_timing timing_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> listening_{false};
  std::atomic<uint64_t> losses_{0};
  std::thread thread_;
};

} // namespace belay::storage
