// The HTTP server settings belay runs with (http/server.cpp), for the floors of
// scripts/bench that stand in for its HTTP side (bench/http_floor.cpp,
// bench/pipeline_floor.cpp): TCP_NODELAY, a pool of `threads`, the 512 KiB body limit,
// keep-alive for 1,000 requests, and the listen backlog raised past Debian's 5.
#pragma once

#include <cstdio>
#include <httplib.h>
#include <memory>
#include <sys/socket.h>

namespace belay_bench {

inline void configure_like_belay(httplib::Server& http, int threads,
                                 long keep_alive_max = 1000) {
  http.set_tcp_nodelay(true);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(512 * 1024);
  http.set_keep_alive_max_count(static_cast<size_t>(keep_alive_max));
}

// Binds 127.0.0.1:port, raises the backlog and serves until stopped; the exit status.
inline int listen_like_belay(httplib::Server& http, int port, const char* tool) {
  auto listening_fd = std::make_shared<int>(-1);
  http.set_socket_options([listening_fd](int fd) {
    httplib::default_socket_options(fd);
    *listening_fd = fd;
  });
  if (!http.bind_to_port("127.0.0.1", port)) {
    std::fprintf(stderr, "%s: cannot listen on 127.0.0.1:%d\n", tool, port);
    return 1;
  }
  if (*listening_fd >= 0)
    ::listen(*listening_fd, SOMAXCONN);
  return http.listen_after_bind() ? 0 : 1;
}

} // namespace belay_bench
