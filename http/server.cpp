#include "http/server.hpp"

#include "actors/metrics.hpp"
#include "protocol/error.hpp"

#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

namespace belay {

namespace {

// Which wire format an ingest request speaks; empty for every other request.
std::string ingest_format(const httplib::Request& req) {
  if (req.method != "POST")
    return {};
  if (req.path == "/api/v1/incidents")
    return "native";
  if (req.path == "/v2/enqueue")
    return "events";
  if (req.path == "/api/v1/integrations/alertmanager")
    return "alertmanager";
  return {};
}

} // namespace

// A monitor posting alerts keeps its connection: cpp-httplib's default closes it after 5
// requests, and each reconnection costs a handshake and a hand-over to a pool thread.
constexpr size_t keep_alive_requests = 1000;

struct server::impl {
  api& a;
  httplib::Server http;
  int listening_fd = -1;
};

server::server(api& a, int threads) : impl_(new impl{a, {}}) {
  auto& http = impl_->http;
  // Without TCP_NODELAY every response waits for the client's delayed ACK (STACK.md).
  http.set_tcp_nodelay(true);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(max_body_bytes);
  http.set_keep_alive_max_count(keep_alive_requests);
  http.set_socket_options([this](int fd) {
    httplib::default_socket_options(fd);
    impl_->listening_fd = fd;
  });
  http.set_error_handler(httplib::Server::HandlerWithResponse{
      [](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty())
          return httplib::Server::HandlerResponse::Unhandled;
        protocol::error e;
        e.status = res.status;
        switch (res.status) {
        case 404:
          e.code = "not_found";
          e.message = "no such endpoint";
          break;
        case 413:
          e.code = "body_too_large";
          e.message = "request bodies are limited to 512 KiB";
          break;
        default:
          e.code = "http_error";
          e.message = "HTTP status " + std::to_string(res.status);
        }
        res.set_content(protocol::render_error(e), "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }});
  http.set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        spdlog::error("http {} {}: {}", req.method, req.path, what);
        res.status = 503;
        res.set_content(protocol::render_error({503, "unavailable",
                                                "belay could not complete "
                                                "the request; retry",
                                                ""}),
                        "application/json");
      });
  // The same thread runs a request from routing to logging: a thread-local holds its
  // start time for the ingest latency histogram.
  static thread_local std::chrono::steady_clock::time_point started;
  http.set_pre_routing_handler([](const httplib::Request& req, httplib::Response&) {
    started = std::chrono::steady_clock::now();
    // cpp-httplib 0.11 reads a body without Content-Length until the peer closes, so
    // `curl -X POST …/resolve` would wait for the read timeout. Without a length or
    // chunked encoding there is no body (RFC 9112 §6.3). This runs before the body is
    // read; the request object is the server's own, so the const_cast is sound.
    if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding"))
      const_cast<httplib::Request&>(req).headers.emplace("Content-Length", "0");
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    spdlog::debug("http {} {} -> {}", req.method, req.path, res.status);
    if (auto format = ingest_format(req); !format.empty()) {
      std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
      metrics::observe(metrics::name::ingest_latency_seconds, took.count(),
                       {{"format", format}});
      if (res.status >= 400 && res.status < 500)
        metrics::count(metrics::name::events_total,
                       {{"format", format}, {"outcome", "rejected"}});
    }
  });
  add_health_routes(http, impl_->a);
  add_incident_routes(http, impl_->a);
  add_ingest_routes(http, impl_->a);
  add_dead_letter_routes(http, impl_->a);
  add_inspector_routes(http, impl_->a);
  add_metrics_routes(http, impl_->a);
  add_schedule_routes(http, impl_->a);
  add_answer_routes(http, impl_->a);
}

server::~server() = default;

int server::bind(const std::string& address, int port) {
  auto bound = port == 0 ? impl_->http.bind_to_any_port(address.c_str())
                         : (impl_->http.bind_to_port(address.c_str(), port) ? port : -1);
  // Debian's cpp-httplib listens with a backlog of 5, compiled into the library: a burst
  // of new connections (a storm, a restart of many monitors) would lose SYNs and wait a
  // second for each retransmission. listen() again on the bound socket raises it.
  if (bound > 0 && impl_->listening_fd >= 0)
    ::listen(impl_->listening_fd, SOMAXCONN);
  return bound;
}

void server::run() {
  impl_->http.listen_after_bind();
}

void server::stop() {
  impl_->a.stopping = true;
  impl_->http.stop();
}

} // namespace belay
