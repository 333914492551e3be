#pragma once

#include "http/api.hpp"

#include <memory>
#include <string>

namespace belay {

class server {
public:
  // `a` must outlive the server.
  server(api& a, int threads);
  ~server();
  // Binds the listening socket; port 0 picks a free one. Returns the bound port or -1.
  int bind(const std::string& address, int port);
  // Serves until stop(): stop accepting, let in-flight requests finish.
  void run();
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace belay
