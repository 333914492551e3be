#include "storage/listener.hpp"

#include <chrono>
#include <libpq-fe.h>
#include <memory>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

namespace belay::storage {

namespace {

using pg_connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;

// Connected and listening, or null (the reason logged).
pg_connection listen_on(const std::string& url, const std::string& channel) {
  // Named after the process, so that pg_stat_activity tells which belay listens.
  auto name = "belay listener " + std::to_string(getpid());
  const char* keys[] = {"dbname", "application_name", nullptr};
  const char* values[] = {url.c_str(), name.c_str(), nullptr};
  pg_connection c{PQconnectdbParams(keys, values, 1), &PQfinish};
  if (PQstatus(c.get()) != CONNECTION_OK) {
    spdlog::warn("listener: cannot connect: {}", PQerrorMessage(c.get()));
    return {nullptr, &PQfinish};
  }
  auto* quoted = PQescapeIdentifier(c.get(), channel.c_str(), channel.size());
  std::unique_ptr<PGresult, decltype(&PQclear)> r{
      PQexec(c.get(), ("LISTEN " + std::string{quoted}).c_str()), &PQclear};
  PQfreemem(quoted);
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
    spdlog::warn("listener: cannot listen on {}: {}", channel, PQerrorMessage(c.get()));
    return {nullptr, &PQfinish};
  }
  return c;
}

} // namespace

listener::listener(std::string url, std::string channel,
                   std::function<void(const std::string&)> deliver,
                   std::function<void()> resumed)
    : url_(std::move(url)), channel_(std::move(channel)), deliver_(std::move(deliver)),
      resumed_(std::move(resumed)), thread_([this] { run(); }) {}

listener::~listener() {
  stop_ = true;
  thread_.join();
}

void listener::run() {
  constexpr int wake_ms = 250; // how soon a stop request is seen
  bool lost_some = false;
  while (!stop_) {
    auto c = listen_on(url_, channel_);
    if (!c) {
      lost_some = true;
      for (int i = 0; i < 4 && !stop_; ++i) // retry in a second
        std::this_thread::sleep_for(std::chrono::milliseconds{wake_ms});
      continue;
    }
    if (std::exchange(lost_some, false)) {
      spdlog::warn("listener: listening on {} again; catching up on what was sent "
                   "meanwhile",
                   channel_);
      resumed_();
    }
    while (!stop_) {
      pollfd fd{PQsocket(c.get()), POLLIN, 0};
      if (poll(&fd, 1, wake_ms) < 0 || !PQconsumeInput(c.get())) {
        spdlog::warn("listener: connection lost: {}", PQerrorMessage(c.get()));
        lost_some = true;
        break;
      }
      while (auto* n = PQnotifies(c.get())) {
        std::string payload = n->extra;
        PQfreemem(n);
        deliver_(payload);
      }
    }
  }
}

} // namespace belay::storage
