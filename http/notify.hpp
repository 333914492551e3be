// The service manager's notifications (sd_notify;
// docs/operations.md#running-as-a-service): READY=1 once the node serves, WATCHDOG=1
// while its actors answer, STOPPING=1 when it stops. Each is a no-op when NOTIFY_SOCKET
// is unset (not started by systemd).
#pragma once

#include "actors/actors.hpp"
#include "actors/node.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace belay {

void notify_ready();
void notify_stopping();

// Sends WATCHDOG=1 every half of the interval systemd asked for (WATCHDOG_USEC), but
// only after the node's registry, dispatcher and storage router each answered a request
// within their deadline: a hung actor system stops the pings, and systemd restarts the
// service (docs/operations.md#the-watchdog). Does nothing without WATCHDOG_USEC.
class watchdog_pings {
public:
  watchdog_pings(caf::actor_system& sys, const node& n);
  ~watchdog_pings(); // stops the pings before the node stops
  watchdog_pings(const watchdog_pings&) = delete;
  watchdog_pings& operator=(const watchdog_pings&) = delete;

private:
  void run(std::chrono::microseconds interval);
  bool node_answers(caf::timespan deadline);

  caf::actor_system& sys_;
  const node& node_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace belay
