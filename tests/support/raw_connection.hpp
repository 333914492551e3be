// HTTP written and read as raw bytes on a TCP connection to 127.0.0.1: for what
// httplib::Client would not send (or not slowly), and to see the status line as sent.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

namespace belay::test {

class raw_connection {
public:
  // Connects at once; the test fails if nothing listens on `port`.
  explicit raw_connection(int port);
  ~raw_connection();
  raw_connection(const raw_connection&) = delete;
  raw_connection& operator=(const raw_connection&) = delete;

  // False once the peer closed or reset the connection.
  bool send_text(const std::string& text);
  // What arrives within `wait`, up to the end of the response headers or until the peer
  // closes (closed() tells).
  std::string receive(std::chrono::milliseconds wait);
  // One whole response (headers and Content-Length bytes), at most `wait`.
  std::string receive_response(std::chrono::milliseconds wait);
  // Reads until the peer closes, at most `wait`.
  std::string receive_until_closed(std::chrono::milliseconds wait);
  bool closed() const { return closed_; }
  // Whether the peer has ended the connection (a FIN or a reset), without waiting and
  // without taking what arrived.
  bool ended();

private:
  // Appends what arrives within 50 ms; false once the peer closed.
  bool read_some(std::string& out);

  int fd_;
  std::atomic<bool> closed_{false};
  bool wait_for_close_ = false;
};

// The status code of a raw HTTP/1.1 response, 0 when it is not one.
int status_code(const std::string& response);

} // namespace belay::test
