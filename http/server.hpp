#pragma once

#include "http/api.hpp"
#include "http/route_limits.hpp"
#include "http/routes.hpp"

#include <memory>
#include <string>
#include <vector>

namespace belay {

struct server_options {
  int threads = 64;
  // A connection sends a request's headers within this, and a request is answered
  // within three times this (streams excepted): http/connections.hpp.
  double read_timeout_seconds = 10;
  // The heartbeat and answer routes' rate limits (docs/guarantees.md#rate-limits).
  route_limit_options limits{};
};

class server {
public:
  // `a` must outlive the server.
  server(api& a, server_options options);
  server(api& a, int threads) : server(a, server_options{threads}) {}
  ~server();
  // Binds the listening socket; port 0 picks a free one. Returns the bound port or -1.
  int bind(const std::string& address, int port);
  // Serves until stop(): stop accepting, let in-flight requests finish.
  void run();
  void stop();
  // Every route, in the order it was added.
  const std::vector<routes::listing>& route_table() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace belay
