// Every SQL statement about the outbox: claiming due deliveries, recording outcomes
// (retry, sent, dead letter, failover), dead letters and their replay.
#pragma once

#include "protocol/commands.hpp"
#include "protocol/model.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace belay::storage {

class connection;

std::vector<channel_config> load_channels(connection& c);

// A delivery this node has claimed, with what a transport needs to render the page.
struct claimed_delivery {
  delivery_record delivery; // attempts already counts the attempt about to be made
  incident_record incident; // id, dedup_key, title, severity, status
  // What a status update says, or the request a responder's page carries; else empty.
  std::string message{};
};

struct claim_request {
  int64_t org_id = 0;
  std::string channel;
  std::string node;
  micros now = 0;
  micros lease_until = 0; // a claim not settled by then returns to the pool (G6)
  int limit = 64;
  // After a claim whose reply was lost (it may have committed): this node's claims on
  // the channel other than these go back to the pool first, their attempt not made.
  bool release_unheld = false;
  std::vector<int64_t> held{};
};

// Claims due PENDING rows, with FOR UPDATE SKIP LOCKED so concurrent claimers never
// take the same row. Deliveries of acknowledged or resolved incidents are never claimed
// (G4); replays are, by an operator's choice. A due row of a settled incident (an ack
// that committed beside the step that wrote it) is cancelled on the way, so nothing
// stays PENDING for ever; it comes back with status CANCELLED, the others CLAIMED.
std::vector<claimed_delivery> claim_due(connection& c, const claim_request& r);

// Deliveries `ids` of the org as a claim returns them (a contact claim's members).
std::vector<claimed_delivery> load_claimed(connection& c, int64_t org_id,
                                           const std::vector<int64_t>& ids);

struct recheck_request {
  std::string node;
  micros now = 0;
  micros lease_until = 0; // the renewed claim lease of the rows still live
  struct claim {
    int64_t org_id = 0;
    int64_t delivery_id = 0;
    int attempts = 0; // as claimed
  };
  std::vector<claim> claims;
};

struct recheck_result {
  int64_t org_id = 0;
  int64_t delivery_id = 0;
  bool live = false; // false: its incident was settled, and the row is now CANCELLED
};

// Right before the network call of rows that waited since their claim: which are still
// this node's claims (a row absent from the result was taken over), renewing the lease
// of those whose incident is still open and cancelling the others.
std::vector<recheck_result> recheck_claims(connection& c, const recheck_request& r);

struct attempt_result {
  bool sent = false;
  bool permanent = false;
  bool ambiguous = false;
  std::string error;
};

struct recorded_outcome {
  std::string
      status; // SENT, PENDING (retry), DEAD, CANCELLED, or "" when the claim was lost
  std::optional<micros> next_attempt_at;
  std::optional<int64_t> dead_letter_id;
  std::optional<int64_t> failover_delivery_id;
};

// One attempt's outcome, as outcome_of() decides it and record_outcomes() writes it.
struct outcome_event {
  int64_t org_id = 0;
  int64_t delivery_id = 0;
  std::string node;   // the claim's holder
  int attempts = 0;   // the attempt this settles
  std::string status; // SENT, DEAD, or PENDING: retried at next_attempt_at
  micros next_attempt_at = 0;
  std::string error;
  bool ambiguous = false;
  micros at = 0;
  std::string failover_to; // the channel of a failover delivery, when DEAD
};

// A failed attempt is retried after min(base * 2^(attempts-1), cap) until max_attempts,
// then becomes DEAD, with a failover delivery when the channel names one.
outcome_event outcome_of(const claimed_delivery& d, const channel_config& ch,
                         const std::string& node, const attempt_result& r, micros now);

// Records outcomes, each only if its node still holds the claim (else its result has an
// empty status), in one statement: the DEAD ones with a dead_letter row and their
// failover delivery, and every one with its timeline entry.
std::vector<recorded_outcome> record_outcomes(connection& c,
                                              const std::vector<outcome_event>& events);

// Claims returned to the pool: (org, channel) of each.
using released_claims = std::vector<std::pair<int64_t, std::string>>;

// Returns the claims whose lease lapsed (their node died mid-send) to the pool, due
// at once: the page is sent again, at least once (G6). Returns (org, channel) of each.
released_claims release_expired_claims(connection& c, micros now);

// At start: claims this node holds are from its previous life (it crashed or stopped
// mid-send). Return them to the pool now rather than when their lease lapses.
released_claims release_claims_of(connection& c, const std::string& node, micros now);

// Pages pending on a channel its org no longer has (provisioning removed it; an
// incident's ladder, written when it opened, may still name it), or of an org that is
// disabled: up to `limit` of those due by `due_by` are cancelled with the reason
// `channel removed` (or `org disabled`) on their timeline and in last_error, instead of
// waiting for a channel actor that will never exist
// (docs/guarantees.md#provisioning-fails-closed). The number cancelled.
size_t cancel_removed_channel_deliveries(connection& c, micros now, int limit,
                                         micros due_by);

micros retry_delay(const channel_config& ch, int failed_attempts);

std::vector<delivery_record> load_deliveries(connection& c, int64_t org_id,
                                             int64_t incident_id);

std::vector<dead_letter_record> list_dead_letters(connection& c, int64_t org_id,
                                                  int limit);

struct delivery_page {
  std::vector<delivery_record> deliveries;
  std::optional<int64_t> next_after; // the last delivery's id, when more follow
};
// In id order, after delivery `after_id` (0: from the first).
delivery_page load_deliveries(connection& c, int64_t org_id, int64_t incident_id,
                              int64_t after_id, int limit);

struct dead_letter_page {
  std::vector<dead_letter_record> dead_letters;
  std::optional<int64_t> next_before; // the last one's id, when older ones follow
};
// Newest first, older than `before_id` (0: from the newest).
dead_letter_page list_dead_letters(connection& c, int64_t org_id, int64_t before_id,
                                   int limit);

struct replay_result {
  reply_code code = reply_code::ok; // ok, not_found, conflict (already replayed)
  int64_t delivery_id = 0;
  std::string channel;
};

// A fresh delivery for the dead letter's recipient only, due at once.
// `who`, when named, gets its audit row in the same transaction.
replay_result replay_dead_letter(connection& c, int64_t org_id, int64_t dead_letter_id,
                                 micros now, const attribution& who = {});

} // namespace belay::storage
