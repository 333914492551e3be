#include "http/server.hpp"

#include "actors/metrics.hpp"
#include "http/admission.hpp"
#include "http/bounded_pool.hpp"
#include "http/connections.hpp"
#include "http/respond.hpp"
#include "http/routes.hpp"
#include "protocol/error.hpp"
#include "protocol/redact.hpp"

#include <cmath>
#include <cstdint>
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

const std::string body_limit_message =
    "request bodies are limited to 512 KiB (524288 bytes), after decompression";

bool has_body(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding"))
    return true;
  auto length = req.get_header_value("Content-Length");
  return !length.empty() && length != "0";
}

// A body past the limit is still read (and dropped) up to this much, so that the client,
// which may still be sending it, reads the 413 instead of a reset connection; past this
// the connection is closed unread.
constexpr size_t max_drained_bytes = 4 * max_body_bytes;
// A refused request's body (unknown key, no such route) is drained only when it is this
// small, which a client has all but sent by the time its headers are read.
constexpr size_t max_drained_unread = 64 * 1024;

// The declared Content-Length; SIZE_MAX when it is not a number, 0 when absent.
size_t declared_length(const httplib::Request& req) {
  if (!req.has_header("Content-Length"))
    return 0;
  auto text = req.get_header_value("Content-Length");
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return SIZE_MAX;
  return static_cast<size_t>(std::stoull(text));
}

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds{std::llround(seconds * 1000)};
}

} // namespace

// A monitor posting alerts keeps its connection: cpp-httplib's default closes it after 5
// requests, and each reconnection costs a handshake and a hand-over to a pool thread.
constexpr size_t keep_alive_requests = 1000;

struct server::impl {
  api& a;
  server_options options;
  httplib::Server http;
  routes table{http, make_admission(a)};
  connection_guard guard{millis(options.read_timeout_seconds),
                         millis(3 * options.read_timeout_seconds)};
  int listening_fd = -1;
  route_limits limits{options.limits};

  // A POST, PUT or DELETE: its route's check, then its body under the limit, then the
  // route.
  void dispatch(const httplib::Request& request, httplib::Response& res,
                const httplib::ContentReader& read) {
    auto& req = const_cast<httplib::Request&>(request); // the server's own (see below)
    auto* route = table.find(req);
    if (!route) {
      reply_error(res, 404, "not_found", "no such endpoint");
      return refuse_unread(req, res, read);
    }
    if (route->before_body && !route->before_body(req, res))
      return refuse_unread(req, res, read);
    read_multipart_as_bytes(req);
    bool too_large = false;
    size_t received = 0;
    bool complete = read([&](const char* data, size_t n) {
      received += n;
      if (req.body.size() + n > max_body_bytes)
        too_large = true;
      if (!too_large)
        req.body.append(data, n);
      return received <= max_drained_bytes;
    });
    if (too_large) {
      req.body.clear();
      reply_error(res, 413, "body_too_large", body_limit_message);
      if (!complete)
        linger_after_reply(req, res);
      return;
    }
    if (!complete) {
      reply_error(res, 400, "invalid_body",
                  "the body could not be read: malformed chunked encoding or compressed "
                  "data, or the client stopped sending");
      return close_after_reply(res);
    }
    if (req.get_header_value("Content-Type")
            .rfind("application/x-www-form-urlencoded", 0) == 0)
      httplib::detail::parse_query_text(req.body, req.params);
    route->handle(req, res);
  }

  // cpp-httplib parses a multipart/form-data body itself, past the counter below, and
  // no route takes one: it is read as plain bytes, counted like any other body (and
  // then refused by the route as not what it reads).
  static void read_multipart_as_bytes(httplib::Request& req) {
    if (!req.is_multipart_form_data())
      return;
    req.headers.erase("Content-Type");
    req.headers.emplace("Content-Type", "application/octet-stream");
  }

  // A request refused before its body was read (the answer is in `res`). A small body
  // with a length is read and dropped, so the connection stays usable; any other is
  // answered at once, and the connection ends with a lingering close (the client, still
  // sending, reads the answer rather than a reset).
  void refuse_unread(const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader& read) {
    auto length = declared_length(req);
    if (req.has_header("Transfer-Encoding") || length > max_drained_unread)
      return linger_after_reply(req, res);
    auto status = res.status;
    bool drained = length == 0 || read([](const char*, size_t) { return true; });
    res.status = status; // a failed read would have said 400
    if (!drained)
      close_after_reply(res);
  }
};

server::server(api& a, server_options options) : impl_(new impl{a, options, {}}) {
  auto& http = impl_->http;
  a.connections = &impl_->guard;
  auto threads = static_cast<size_t>(std::max(1, options.threads));
  // Without TCP_NODELAY every response waits for the client's delayed ACK (STACK.md).
  http.set_tcp_nodelay(true);
  // As many connections may wait as are served, each for at most a quarter second;
  // past that the node is saturated and says so (503) rather than queueing without
  // bound, save to its probes. Overflow threads, one per connection, serve the probes:
  // enough for 300 slow clients past the pool (issue 61), each closed at the header
  // deadline.
  http.new_task_queue = [threads] {
    return make_bounded_pool(threads, threads, 8 * threads,
                             std::chrono::milliseconds{250});
  };
  // cpp-httplib reads a declared length up to this; the limit itself is dispatch()'s.
  http.set_payload_max_length(max_drained_bytes);
  http.set_keep_alive_max_count(keep_alive_requests);
  // Each read and write waits at most this long; the whole request is the guard's.
  auto per_call = std::min(5.0, options.read_timeout_seconds);
  auto sec = static_cast<time_t>(per_call);
  auto usec = static_cast<time_t>((per_call - static_cast<double>(sec)) * 1e6);
  http.set_read_timeout(sec, usec);
  http.set_write_timeout(sec, usec);
  http.set_keep_alive_timeout(std::max<time_t>(1, sec));
  http.set_socket_options([this](int fd) {
    httplib::default_socket_options(fd);
    impl_->listening_fd = fd;
  });
  http.set_error_handler(httplib::Server::HandlerWithResponse{
      [](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty() || res.has_header("Content-Type"))
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
          e.message = body_limit_message;
          break;
        default:
          e.code = "http_error";
          e.message = "HTTP status " + std::to_string(res.status);
        }
        res.set_content(protocol::render_error(e), "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }});
  http.set_exception_handler([](const httplib::Request& req, httplib::Response& res,
                                std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("http {} {}: {}", req.method, protocol::loggable_path(req.path), what);
    res.status = 503;
    res.set_content(protocol::render_error({503, "unavailable",
                                            "belay could not complete "
                                            "the request; retry",
                                            ""}),
                    "application/json");
    res.set_header("Retry-After", "1");
  });
  // The same thread runs a request from routing to logging: a thread-local holds its
  // start time for the ingest latency histogram.
  static thread_local std::chrono::steady_clock::time_point started;
  http.set_pre_routing_handler([this](const httplib::Request& req,
                                      httplib::Response& res) {
    started = std::chrono::steady_clock::now();
    impl_->guard.request_started(req);
    if (shedding() && !served_when_saturated(req.path)) {
      metrics::count(metrics::name::http_shed_total);
      res.set_header("Retry-After", "1");
      reply_error(res, 503, "overloaded",
                  "every HTTP thread of this node is busy and its queue is full; retry "
                  "after a second");
      close_after_reply(res);
      return httplib::Server::HandlerResponse::Handled;
    }
    // Refused before a byte of the body is read: a declared length far over the limit,
    // and a body on a request that takes none (cpp-httplib would read it as the next
    // request).
    if (declared_length(req) > max_drained_bytes) {
      reply_error(res, 413, "body_too_large", body_limit_message);
      close_after_reply(res);
      return httplib::Server::HandlerResponse::Handled;
    }
    if (auto wait = impl_->limits.take(req); wait > 0) {
      reply_rate_limited(res, wait, "this address, ping key or answer link");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method != "POST" && req.method != "PUT" && req.method != "PATCH" &&
        req.method != "DELETE" && has_body(req)) {
      reply_error(res, 400, "unexpected_body", req.method + " requests take no body");
      close_after_reply(res);
      return httplib::Server::HandlerResponse::Handled;
    }
    // cpp-httplib 0.11 reads a body without Content-Length until the peer closes, so
    // `curl -X POST …/resolve` would wait for the read timeout. Without a length or
    // chunked encoding there is no body (RFC 9112 §6.3). This runs before the body is
    // read; the request object is the server's own, so the const_cast is sound.
    if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding"))
      const_cast<httplib::Request&>(req).headers.emplace("Content-Length", "0");
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    impl_->guard.request_finished();
    spdlog::debug("http {} {} -> {}", req.method, protocol::loggable_path(req.path),
                  res.status);
    if (auto format = ingest_format(req); !format.empty()) {
      std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
      metrics::observe(metrics::name::ingest_latency_seconds, took.count(),
                       {{"format", format}});
      if (res.status >= 400 && res.status < 500)
        metrics::count(metrics::name::events_total,
                       {{"format", format}, {"outcome", "rejected"}});
    }
  });
  auto& table = impl_->table;
  add_health_routes(table, impl_->a);
  add_incident_routes(table, impl_->a);
  add_incident_action_routes(table, impl_->a);
  add_ingest_routes(table, impl_->a);
  add_dead_letter_routes(table, impl_->a);
  add_inspector_routes(table, impl_->a);
  add_metrics_routes(table, impl_->a);
  add_schedule_routes(table, impl_->a);
  add_answer_routes(table, impl_->a);
  add_heartbeat_routes(table, impl_->a);
  add_maintenance_routes(table, impl_->a);
  add_change_routes(table, impl_->a);
  add_config_routes(table, impl_->a);
  add_sign_in_routes(table, impl_->a);
  add_audit_routes(table, impl_->a);
  add_openapi_routes(table);
  // Every method that may carry a body is read here, never by cpp-httplib (whose limit
  // holds for Content-Length only).
  auto dispatch = [this](const httplib::Request& req, httplib::Response& res,
                         const httplib::ContentReader& read) {
    impl_->dispatch(req, res, read);
  };
  http.Post(".*", dispatch);
  http.Delete(".*", dispatch);
  http.Put(".*", dispatch);
  http.Patch(".*", dispatch);
}

server::~server() = default;

const std::vector<routes::listing>& server::route_table() const {
  return impl_->table.listed();
}

int server::bind(const std::string& address, int port) {
  auto bound = port == 0 ? impl_->http.bind_to_any_port(address.c_str())
                         : (impl_->http.bind_to_port(address.c_str(), port) ? port : -1);
  // Debian's cpp-httplib listens with a backlog of 5, compiled into the library: a burst
  // of new connections (a storm, a restart of many monitors) would lose SYNs and wait a
  // second for each retransmission. listen() again on the bound socket raises it.
  if (bound > 0 && impl_->listening_fd >= 0)
    ::listen(impl_->listening_fd, SOMAXCONN);
  if (bound > 0)
    impl_->guard.watch(bound);
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
