// Pages and channels shared by the transport tests.
#pragma once

#include "actors/transport/transport.hpp"
#include "tests/support/form.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace belay::transport::testing {

// The sinks of these tests listen on loopback, which outbound targets may not be
// otherwise (docs/guarantees.md#nothing-waits-for-ever): allowed for the whole test
// binary, before main.
inline const bool loopback_allowed = [] {
  set_allowed_target_networks(std::get<std::vector<protocol::cidr>>(
      protocol::parse_cidr_list("127.0.0.0/8,::1")));
  return true;
}();

inline page sample_page(const std::string& channel, const std::string& target) {
  page p;
  p.incident.org_id = 1;
  p.incident.id = 42;
  p.incident.dedup_key = "disk-full/db-1";
  p.incident.title = "Disk full on db-1";
  p.incident.severity = "critical";
  p.incident.policy = "default";
  p.loop = 0;
  p.step = 1;
  p.attempt = 2;
  p.target = target;
  p.idempotency_key = "42:0:1:" + channel + ":" + target;
  return p;
}

inline channel_config make_channel(const std::string& name, const std::string& type,
                                   const std::string& url) {
  channel_config c;
  c.org_id = 1;
  c.name = name;
  c.type = type;
  c.url = url;
  c.timeout_seconds = 2;
  return c;
}

// Channel "lead-<type>" of Twilio kind `type` ("sms" or "voice"), sending from
// +15550001111 with these credentials.
inline channel_config twilio_channel(const std::string& type, const std::string& url,
                                     const std::string& account,
                                     const std::string& secret) {
  auto c = make_channel("lead-" + type, type, url);
  c.account = account;
  c.secret = secret;
  c.from = "+15550001111";
  return c;
}

// A loopback port with nothing listening on it (bound, read, released).
inline int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

using belay::test::form_fields;

} // namespace belay::transport::testing
