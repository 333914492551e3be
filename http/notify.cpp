#include "http/notify.hpp"

#include "protocol/views.hpp"

#include <algorithm>
#include <caf/scoped_actor.hpp>
#include <cstdint>
#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>
#include <vector>

namespace belay {

void notify_ready() {
  sd_notify(0, "READY=1\nSTATUS=serving");
}

void notify_stopping() {
  sd_notify(0, "STOPPING=1\nSTATUS=stopping");
}

watchdog_pings::watchdog_pings(caf::actor_system& sys, const node& n)
    : sys_(sys), node_(n) {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0)
    return;
  spdlog::info("systemd watchdog: {} ms; pinging while the node's actors answer",
               usec / 1000);
  thread_ = std::thread{[this, usec] { run(std::chrono::microseconds{usec}); }};
}

watchdog_pings::~watchdog_pings() {
  {
    std::lock_guard<std::mutex> lock{mutex_};
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void watchdog_pings::run(std::chrono::microseconds interval) {
  auto period = interval / 2;
  // Three requests one after another fit in the period, with room for the ping.
  auto deadline = std::chrono::duration_cast<caf::timespan>(
      std::min<std::chrono::microseconds>(period / 4, std::chrono::seconds{2}));
  bool was_healthy = true;
  std::unique_lock<std::mutex> lock{mutex_};
  while (!stop_) {
    lock.unlock();
    bool healthy = node_answers(deadline);
    if (healthy)
      sd_notify(0, "WATCHDOG=1");
    else if (was_healthy)
      spdlog::error("systemd watchdog: the node's actors do not answer; pings stopped");
    was_healthy = healthy;
    lock.lock();
    wake_.wait_for(lock, period, [this] { return stop_; });
  }
}

bool watchdog_pings::node_answers(caf::timespan deadline) {
  caf::scoped_actor self{sys_};
  bool ok = true;
  auto failed = [&](caf::error&) { ok = false; };
  self->request(node_.registry, deadline, atom::stats_v)
      .receive([](registry_stats&) {}, failed);
  if (ok)
    self->request(node_.dispatcher, deadline, atom::children_v)
        .receive([](std::vector<channel_actor>&) {}, failed);
  if (ok)
    self->request(node_.storage, deadline, atom::children_v)
        .receive([](std::vector<storage_worker_actor>&) {}, failed);
  return ok;
}

} // namespace belay
