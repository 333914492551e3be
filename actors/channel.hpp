// One actor per configured channel (channel_actor in actors/actors.hpp): it claims due
// deliveries from the outbox, hands each to one of its own senders (a blocking transport
// call on a thread of its own), records the outcome, schedules retries with backoff and
// writes dead letters. The ladder never waits on any of this (G7).
//
// One bad endpoint harms nobody else (docs/guarantees.md#one-bad-endpoint): each channel
// has its own senders, at most `concurrency` of them, so a hung endpoint occupies only
// its own channel's. It claims no more than it can start before the claim lease ends,
// even if every send takes its full timeout, and a row that waited since its claim is
// checked against its incident again (and its lease renewed) right before it is sent
// (G4).
#pragma once

#include "actors/deps.hpp"
#include "actors/transport/transport.hpp"
#include "protocol/views.hpp"
#include "storage/contacts.hpp"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace belay {

struct delivery_options {
  double claim_lease_seconds = 300;
  int claim_batch = 64;
  size_t concurrency = 8; // senders per channel
  bool detached = true;   // senders on threads of their own (false in tests)
  // Pages at most in one bundle: one message names them all, and its statement stays
  // bounded however large the storm. At 1,000 a storm of 10,000 alerts on one SMS person
  // was never named whole: 5 texts in 5 minutes, the largest naming 4,016 (scripts/bench
  // storm-person); a bundle of 10,000 is one statement of a few hundred milliseconds.
  int max_bundle_members = 20000;
};

// A claimed delivery waiting for a sender. `checked` is the dispatch round (see
// channel_state::round) of the claim or re-check that last found its incident open.
struct queued_delivery {
  storage::claimed_delivery claimed;
  uint64_t checked = 0; // 0: never, check it first
};

// A sender and the page given to it and not answered yet. A page goes only to an idle
// sender: one queued in a busy sender's mailbox would wait behind another send,
// unchecked, for up to that send's timeout (G4). Two pages a sender (one on the wire, the
// next in its mailbox) drained faster, 2,148 -> 2,355 deliveries/s with 8 senders, but
// its second page could be sent up to 250 ms after an acknowledge committed.
struct sender_slot {
  sender_actor actor;
  size_t pages = 0;
};

// An attempt whose outcome could not be recorded yet (storage was down): recorded again
// until its claim would lapse, rather than sent a second time once it has.
struct unrecorded_outcome {
  storage::claimed_delivery claimed;
  transport::send_result result;
  caf::actor_clock::time_point give_up_at;
};

struct unrecorded_bundle {
  storage::claimed_bundle bundle;
  transport::send_result result;
  caf::actor_clock::time_point give_up_at;
};

struct channel_state {
  static inline const char* name = "channel";
  channel_config config;
  dispatcher_actor dispatcher;
  delivery_options opts;
  deps d;
  std::vector<sender_slot> senders; // spawned and not given up on
  std::deque<queued_delivery> queue;
  size_t checking = 0; // being re-checked
  size_t sending = 0;  // with a sender (on the wire or next in its mailbox)
  size_t settling = 0; // their outcome being recorded
  // Bundles claimed and waiting for a sender; those being checked, sent or recorded.
  std::deque<storage::claimed_bundle> bundles;
  size_t bundling = 0;
  size_t bundle_checks = 0; // bundles being checked: each has a sender reserved
  // Advances after every dispatch: a row is sent without another check only in the
  // round whose claim or re-check passed it, i.e. with no wait between check and send.
  uint64_t round = 1;
  // When the throttle's timer wakes the channel next (a contact's throttle opens).
  std::optional<micros> wake_at;
  bool claiming = false;
  bool again = false; // claim again once the current claim (or room) allows
  // A claim failed, and may have committed: the next one releases this node's claims
  // on the channel that are not among `holding` (claimed rows known here).
  bool claim_lost = false;
  std::set<int64_t> holding;
  uint64_t sent = 0, failed = 0, dead = 0, ambiguous = 0;
  std::map<int64_t, scheduled_retry> retries;
  std::vector<unrecorded_outcome> unrecorded;
  std::vector<unrecorded_bundle> unrecorded_bundles; // still counted in `bundling`
};

channel_actor::behavior_type channel(channel_actor::stateful_pointer<channel_state> self,
                                     channel_config config, dispatcher_actor dispatcher,
                                     delivery_options opts, deps d);

// How many claimed rows a channel may hold at once: what its senders can start before
// the claim lease ends, were every send to take the channel's whole timeout.
size_t claim_capacity(const delivery_options& opts, const channel_config& ch);

} // namespace belay
