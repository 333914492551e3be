// Switches that turn one guard off, for the simulation's planted-bug tests only
// (tests/actors/simulation_test.cpp): each shows that the invariant guarding against
// that bug can fail. Nothing outside tests sets them; all are off by default.
#pragma once

#include <atomic>

namespace belay::test_hooks {

// A claimed page that waited for a sender is sent without being checked against its
// incident again (docs/guarantees.md#g4).
inline std::atomic<bool> skip_send_recheck{false};
// The registry does not bring a crashed incident actor's ladder back
// (docs/guarantees.md#g5).
inline std::atomic<bool> no_respawn{false};

} // namespace belay::test_hooks
