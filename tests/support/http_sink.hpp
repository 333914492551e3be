// A real HTTP server on 127.0.0.1 (ephemeral port) that records every request and
// answers from a script: queued responses first, then the default one. Used by the
// transport tests and by every later test that needs a webhook/Slack/Twilio peer.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace belay::test {

struct case_insensitive_less {
  bool operator()(const std::string& a, const std::string& b) const;
};

struct recorded_request {
  std::string method;
  std::string path; // without the query string
  // As cpp-httplib 0.11 hands them over: it percent-decodes header values.
  std::multimap<std::string, std::string, case_insensitive_less> headers;
  std::string body;
  std::chrono::steady_clock::time_point at; // when the request arrived

  // The first value of header `name` (any case), or "" if absent.
  std::string header(const std::string& name) const;
  bool has_header(const std::string& name) const;
};

struct sink_response {
  int status = 200;
  std::chrono::milliseconds delay{
      0}; // before answering, e.g. to outlast a client timeout
  std::string body;
};

class http_sink {
public:
  http_sink(); // answers 200 until told otherwise
  ~http_sink();
  http_sink(const http_sink&) = delete;
  http_sink& operator=(const http_sink&) = delete;

  int port() const;
  // "http://127.0.0.1:<port><path>"
  std::string url(const std::string& path = "/") const;

  // Answers for the next requests, in order, then the default again.
  void script(std::vector<int> statuses);
  void script_response(sink_response response);
  void set_default(sink_response response);
  void set_default_status(int status);
  // Added to every answer, scripted or default.
  void set_delay(std::chrono::milliseconds delay);

  // Called on the sink's thread for each request as it arrives, before it is answered:
  // what the sender's peer sees at the moment the send started (the simulation reads the
  // database there, docs/guarantees.md#g4). Set it before any request arrives.
  void on_request(std::function<void(const recorded_request&)> observer);

  // A thread-safe copy of everything received so far, in arrival order.
  std::vector<recorded_request> requests() const;
  std::size_t count() const;
  // Whether at least `n` requests arrived within `timeout`.
  bool wait_for(std::size_t n, std::chrono::milliseconds timeout) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace belay::test
