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

inline void observe(const page_observer& observer, const std::string& idempotency_key) {
  if (observer)
    observer(idempotency_key);
}

} // namespace belay::test_hooks
