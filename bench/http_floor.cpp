// The HTTP floor of scripts/bench: cpp-httplib with belay's server settings (TCP_NODELAY,
// a thread pool of the same size, the same body limit, keep-alive for 1,000 requests, the
// listen backlog raised as http/server.cpp does) and a handler that does nothing.
// Whatever belay reaches above this is spent in belay itself.
#include "belay_like_server.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <httplib.h>
#include <string>

int main(int argc, char** argv) {
  int port = 18402;
  int threads = 16;
  long keep_alive_max = 1000; // as belay runs it (http/server.cpp)
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--port")
      port = std::atoi(argv[i + 1]);
    else if (flag == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (flag == "--keep-alive-max")
      keep_alive_max = std::atol(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "usage: http_floor [--port N] [--threads N] [--keep-alive-max N]\n");
      return 2;
    }
  }
  httplib::Server http;
  belay_bench::configure_like_belay(http, threads, keep_alive_max);
  http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"status":"ok"})", "application/json");
  });
  // A heartbeat ping's floor: GET /hb/<key> answered "OK" (scripts/bench heartbeats).
  http.Get(R"(/hb/.*)", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("OK", "text/plain");
  });
  http.Post(R"(/.*)", [](const httplib::Request&, httplib::Response& res) {
    res.status = 201;
    res.set_content(R"({"ok":true})", "application/json");
  });
  return belay_bench::listen_like_belay(http, port, "http_floor");
}
