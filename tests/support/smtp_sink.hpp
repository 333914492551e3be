// A real SMTP server for tests: aiosmtpd (Debian's python3-aiosmtpd) in a child
// process on 127.0.0.1, storing each accepted message as raw bytes in a private
// temporary folder. Throws from the constructor when the server cannot start
// (for instance when aiosmtpd is missing): a test never passes without it.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <sys/types.h>
#include <vector>

namespace belay::test {

struct smtp_options {
  std::string rcpt_reply; // e.g. "550 5.1.1 no such user"; empty: accept
  std::string data_reply; // e.g. "451 4.3.0 try later"; empty: accept and store
  std::chrono::milliseconds rcpt_delay{0}; // before answering RCPT TO
  // Before answering the end of DATA; the message is stored first, so a client
  // that times out here has delivered it all the same.
  std::chrono::milliseconds data_delay{0};
};

struct received_mail {
  std::string mail_from;
  std::vector<std::string> rcpt_to;
  std::string raw; // the message as received, headers and body

  // The unfolded value of the first header `name` (any case), or "" if absent.
  std::string header(const std::string& name) const;
  std::string body() const;
};

class smtp_sink {
public:
  smtp_sink();
  explicit smtp_sink(smtp_options options);
  ~smtp_sink();
  smtp_sink(const smtp_sink&) = delete;
  smtp_sink& operator=(const smtp_sink&) = delete;

  int port() const { return port_; }
  // "smtp://127.0.0.1:<port>"
  std::string url() const;

  // Every accepted message so far, in arrival order.
  std::vector<received_mail> messages() const;
  // Whether at least `n` messages arrived within `timeout`.
  bool wait_for(std::size_t n, std::chrono::milliseconds timeout) const;

private:
  void stop();

  std::string dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

} // namespace belay::test
