#include "storage/listener.hpp"

#include "storage/db.hpp"

#include <libpq-fe.h>
#include <memory>
#include <optional>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

namespace belay::storage {

namespace {

using pg_connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using steady = std::chrono::steady_clock;

// Connected and listening, or null (the reason logged).
pg_connection listen_on(const std::string& url, const std::string& channel,
                        std::chrono::milliseconds grace) {
  // Named after the process, so that pg_stat_activity tells which belay listens.
  auto name = "belay listener " + std::to_string(getpid());
  std::string error;
  pg_connection c{open_connection(url, name, error), &PQfinish};
  if (!c) {
    spdlog::warn("listener: cannot connect: {}", error);
    return c;
  }
  auto* quoted = PQescapeIdentifier(c.get(), channel.c_str(), channel.size());
  std::string listen = "LISTEN " + std::string{quoted};
  PQfreemem(quoted);
  // Sent and awaited by hand: a server that accepts the connection and then hangs must
  // not hold this thread (and with it the node's shutdown) for ever.
  auto deadline = steady::now() + grace;
  bool ok = PQsendQuery(c.get(), listen.c_str()) == 1;
  while (ok && PQisBusy(c.get())) {
    if (PQflush(c.get()) < 0 || steady::now() > deadline)
      ok = false;
    pollfd fd{PQsocket(c.get()), POLLIN, 0};
    if (ok && (poll(&fd, 1, 250) < 0 || !PQconsumeInput(c.get())))
      ok = false;
  }
  while (ok) {
    auto* r = PQgetResult(c.get());
    if (!r)
      break;
    ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
  }
  if (!ok) {
    spdlog::warn("listener: cannot listen on {}: {}", channel, PQerrorMessage(c.get()));
    return {nullptr, &PQfinish};
  }
  return c;
}

// Takes the results of the probe in flight as far as they arrived; true once the
// probe is answered whole (PQgetResult gave its final null).
bool probe_answered(PGconn* c) {
  while (!PQisBusy(c)) {
    auto* r = PQgetResult(c);
    if (!r)
      return true;
    PQclear(r);
  }
  return false;
}

} // namespace

listener::listener(std::string url, std::string channel,
                   std::function<void(const std::string&)> deliver,
                   std::function<void()> resumed, listener_timing timing)
    : url_(std::move(url)), channel_(std::move(channel)), deliver_(std::move(deliver)),
      resumed_(std::move(resumed)), timing_(timing), thread_([this] { run(); }) {}

listener::~listener() {
  stop_ = true;
  thread_.join();
}

void listener::run() {
  constexpr int wake_ms = 250; // how soon a stop request is seen
  bool lost_some = false;
  while (!stop_) {
    auto c = listen_on(url_, channel_, timing_.grace);
    if (!c) {
      lost_some = true;
      for (int i = 0; i < 4 && !stop_; ++i) // retry in a second
        std::this_thread::sleep_for(std::chrono::milliseconds{wake_ms});
      continue;
    }
    listening_ = true;
    if (std::exchange(lost_some, false)) {
      spdlog::warn("listener: listening on {} again; catching up on what was sent "
                   "meanwhile",
                   channel_);
      resumed_();
    }
    auto next_probe = steady::now() + timing_.probe_every;
    std::optional<steady::time_point> probe_sent;
    while (!stop_) {
      auto now = steady::now();
      if (probe_sent && now - *probe_sent > timing_.grace) {
        spdlog::warn("listener: no answer to a probe within {} ms; reconnecting",
                     timing_.grace.count());
        break;
      }
      if (!probe_sent && now >= next_probe) {
        if (!PQsendQuery(c.get(), "SELECT 1")) {
          spdlog::warn("listener: cannot probe: {}", PQerrorMessage(c.get()));
          break;
        }
        probe_sent = now;
      }
      if (PQflush(c.get()) < 0)
        break;
      pollfd fd{PQsocket(c.get()), POLLIN, 0};
      if (poll(&fd, 1, wake_ms) < 0 || !PQconsumeInput(c.get())) {
        spdlog::warn("listener: connection lost: {}", PQerrorMessage(c.get()));
        break;
      }
      if (probe_sent && probe_answered(c.get())) {
        probe_sent.reset();
        next_probe = steady::now() + timing_.probe_every;
      }
      while (auto* n = PQnotifies(c.get())) {
        std::string payload = n->extra;
        PQfreemem(n);
        deliver_(payload);
      }
    }
    listening_ = false;
    lost_some = true;
    ++losses_;
  }
}

} // namespace belay::storage
