#include "support/raw_connection.hpp"

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace belay::test {

raw_connection::raw_connection(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  REQUIRE(connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0);
}

raw_connection::~raw_connection() {
  close(fd_);
}

bool raw_connection::send_text(const std::string& text) {
  size_t sent = 0;
  while (sent < text.size()) {
    auto n = ::send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0)
      return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

bool raw_connection::ended() {
  if (closed_)
    return true;
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, 0) <= 0)
    return false;
  char c;
  auto n = recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  closed_ = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
  return closed_;
}

bool raw_connection::read_some(std::string& out) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, 50) <= 0)
    return true;
  char buf[4096];
  auto n = recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) {
    closed_ = true;
    return false;
  }
  out.append(buf, static_cast<size_t>(n));
  return true;
}

std::string raw_connection::receive(std::chrono::milliseconds wait) {
  std::string out;
  auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    auto before = out.size();
    if (!read_some(out))
      break;
    if (out.size() > before && out.find("\r\n\r\n") != std::string::npos &&
        !wait_for_close_)
      break;
  }
  return out;
}

std::string raw_connection::receive_response(std::chrono::milliseconds wait) {
  std::string out;
  auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    auto end = out.find("\r\n\r\n");
    if (end != std::string::npos) {
      auto at = out.find("Content-Length: ");
      if (at != std::string::npos && at < end &&
          out.size() >= end + 4 + std::stoul(out.substr(at + 16)))
        break;
    }
    if (!read_some(out))
      break;
  }
  return out;
}

std::string raw_connection::receive_until_closed(std::chrono::milliseconds wait) {
  wait_for_close_ = true;
  return receive(wait);
}

int status_code(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0)
    return 0;
  return std::stoi(response.substr(9, 3));
}

} // namespace belay::test
