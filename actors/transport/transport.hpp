// Outgoing delivery transports: one blocking call per page, no CAF, no database.
// The channel actor calls send() from worker threads outside any transaction and
// turns the result into SENT, a scheduled retry or a dead letter.
#pragma once

#include "protocol/model.hpp"
#include "protocol/network.hpp"

#include <string>
#include <vector>

namespace belay::transport {

struct page {
  std::string idempotency_key; // "<incident id>:<loop>:<step>:<channel>:<target>",
                               // identical on every attempt
  std::string target; // recipient: slack channel name / email address / phone number /
                      // free text for webhook
  incident_record incident;
  int loop = 0;
  int step = 0;
  int attempt = 1;
  // The way back (DESIGN.md section 11), set by with_answer(): the delivery, its answer
  // token, <public url>/a/<token>, and where a call's <Gather> posts. Empty when the
  // node has no signing secret: the page then carries no link.
  int64_t delivery_id = 0;
  // A status update rather than a page: "acknowledged" or "resolved" (with_answer).
  std::string update{};
  std::string answer_token{};
  std::string answer_url{};
  std::string voice_url{};
};

// What a node needs to put the way back into its pages.
struct answer_links {
  std::string public_url;     // the base of every link (--public-url)
  std::string signing_secret; // signs the tokens; never logged
};

// Gives `p` what its delivery adds to the page: its id, whether it is a status update,
// and (pages only) the delivery's token, valid for 7 days from `now` (the actor system's
// clock), with the links made from it.
void with_answer(page& p, const answer_links& links, const delivery_record& delivery,
                 micros now);

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
// network is listed here (DESIGN.md section 13: --allowed-target-networks). Process-wide;
// set at start, and by tests that send to local sinks. Default: none.
void set_allowed_target_networks(std::vector<protocol::cidr> networks);

// Blocking and thread-safe; never throws. Called from worker threads outside any DB
// transaction.
send_result send(const channel_config& channel, const page& p);

// The exact bytes POSTed (and signed) by the webhook transport.
std::string webhook_body(const page& p);

// The Message-ID of the email for this page (without angle brackets): the
// idempotency key with ':' replaced by '.', "@belay" appended. Characters that are
// not allowed in a Message-ID (such as the '@' of the target address) are written
// as "=XX" so that distinct keys keep distinct ids.
std::string email_message_id(const page& p);

} // namespace belay::transport
