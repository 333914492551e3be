// What cpp-httplib 0.11 does not bound by itself (STACK.md): how long a connection may
// take to send a request, and how many connections wait for a thread.
//
// - Deadlines. cpp-httplib's read timeout applies to each read, so a client sending a
//   byte a second holds a thread for ever. The watchdog gives a connection `header`
//   seconds from its accept (or its previous request's answer) to send a request's
//   headers, and a request `request` seconds from its headers to its answer; past them
//   it shuts the socket down, which ends the thread's wait. A stream (the console's
//   SSE) is exempt once its handler runs. cpp-httplib never tells which socket a
//   thread serves, so the watchdog reads the process's sockets from /proc/self/fd and
//   knows each request by its peer's address and port.
// - Saturation: http/bounded_pool.hpp.
#pragma once

#include <chrono>
#include <httplib.h>
#include <memory>

namespace belay {

class connection_guard {
public:
  connection_guard(std::chrono::milliseconds header, std::chrono::milliseconds request);
  ~connection_guard();
  connection_guard(const connection_guard&) = delete;
  connection_guard& operator=(const connection_guard&) = delete;

  // Starts watching the sockets accepted on `port` (the server's bound port).
  void watch(int port);

  // Called on the thread serving the request.
  void request_started(const httplib::Request& req);
  void request_finished();
  void streaming(); // this request may last: no deadline until it ends

  // Sockets shut down for missing a deadline, since start.
  size_t closed() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The descriptor of the accepted socket `req` arrived on (found by its peer among the
// process's sockets, as the watchdog finds them), or -1.
int socket_of(const httplib::Request& req);

// Ends the connection of a request refused before its body was read with a lingering
// close (issue 61): the answer is written whole, the write side shut (the client reads
// it, then the end), and what the client still sends is read and dropped for at most
// 2 s or 1 MiB, so that it sees the answer rather than a reset. Without the socket
// (not found), the connection just ends after the answer.
void linger_after_reply(const httplib::Request& req, httplib::Response& res);

} // namespace belay
