// Switches that turn one guard off, for the simulation's planted-bug tests only
// (tests/actors/simulation_test.cpp): each shows that the invariant guarding against
// that bug can fail. Nothing outside tests sets them; all are off by default. And the
// points on a page's way to its sender that the simulation observes, and a fault the
// tests inject into a storage worker.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

namespace belay::test_hooks {

// A claimed page that waited for a sender is sent without being checked against its
// incident again (docs/guarantees.md#g4).
inline std::atomic<bool> skip_send_recheck{false};
// The registry does not bring a crashed incident actor's ladder back
// (docs/guarantees.md#g5).
inline std::atomic<bool> no_respawn{false};
// A throttling channel claims its contacts as if no throttle held them
// (docs/architecture.md#storms).
inline std::atomic<bool> skip_throttle{false};
// A page whose sender died before answering is recorded as sent, not as an ambiguous
// attempt to retry (docs/guarantees.md#g6).
inline std::atomic<bool> sender_lost_as_sent{false};
// A duplicate event, or an alert joining the incident, fires the step the incident stands
// on at once instead of leaving its timer as armed
// (docs/guarantees.md#alerts-and-grouping: a new alert pages nobody anew).
inline std::atomic<bool> duplicate_fires_now{false};
// The dispatcher does not start a channel actor that crashed again: the channel's pages
// are claimed by nobody (docs/guarantees.md#g6: a channel actor started again after a
// crash).
inline std::atomic<bool> no_channel_restart{false};
// A batch whose fate is unknown (its connection broke, or a bug threw after its
// statements went out) answers its triggers with what their statement returned instead
// of reading back whether it committed (docs/guarantees.md#g3).
inline std::atomic<bool> trust_unknown_batch{false};

// Called with a page's idempotency key when the claim or re-check that found its incident
// open answers the channel, and when the channel hands the page to a sender: the
// simulation reads what had committed by each point (docs/guarantees.md#simulation).
// Set only by the simulation, before its node starts, and empty again after it.
using page_observer = std::function<void(const std::string& idempotency_key)>;
inline page_observer on_page_checked;
inline page_observer on_page_handed_over;

// Called by a storage worker right before it writes a batched lane's statement
// ("steps" or "outcomes"), in a batch or on its own: a test makes it throw an exception
// that is not a database error, a bug in the middle of a write
// (docs/guarantees.md#nothing-waits-for-ever). Set only by tests, before their node
// starts, and empty again after it.
using storage_fault = std::function<void(std::string_view lane)>;
inline storage_fault before_storage_write;

// Called by a channel's sender right before its transport call (`sent` false) and right
// after it (`sent` true), with the page's idempotency key: the simulation throws from it,
// a sender that crashes holding a page, before the page went out or after it went and
// before the sender answered (docs/guarantees.md#g6). Set only by the simulation, before
// its node starts, and empty again after it.
using send_fault = std::function<void(const std::string& idempotency_key, bool sent)>;
inline send_fault around_send;

inline void observe(const page_observer& observer, const std::string& idempotency_key) {
  if (observer)
    observer(idempotency_key);
}

} // namespace belay::test_hooks
