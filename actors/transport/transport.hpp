// Outgoing delivery transports: one blocking call per page, no CAF, no database.
// The channel actor calls send() from worker threads outside any transaction and
// turns the result into SENT, a scheduled retry or a dead letter. send() renders the
// page with protocol/'s renderer for the channel's type; a transport only sends those
// bytes.
#pragma once

#include "protocol/model.hpp"
#include "protocol/network.hpp"
#include "protocol/page.hpp"

#include <string>
#include <vector>

namespace belay::transport {

// The names the actors and http/ use (actors/actors.hpp, deps.hpp, node.hpp, main.cpp).
using page = protocol::page;
using answer_links = protocol::answer_links;

enum class outcome { sent, retry, permanent };

struct send_result {
  outcome result = outcome::retry;
  // The request was completely written but no answer came back (timeout, reset):
  // the peer may have acted on it, so a retry may page twice.
  bool ambiguous = false;
  int http_status = 0; // HTTP status, or the last SMTP reply code for email; 0 if none
  std::string error;   // for last_error and dead letters; never contains secrets
};

// Outbound targets that resolve to loopback, private, link-local, metadata or other
// non-public addresses are refused (a permanent failure, nothing sent) unless their
// network is listed here (docs/guarantees.md#outbound-targets:
// --allowed-target-networks). Process-wide; set at start, and by tests that send to local
// sinks. Default: none.
void set_allowed_target_networks(std::vector<protocol::cidr> networks);

// Blocking and thread-safe; never throws. Called from worker threads outside any DB
// transaction.
send_result send(const channel_config& channel, const page& p);

} // namespace belay::transport
