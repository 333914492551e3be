// Switches that turn one guard of storage off, for the simulation's planted-bug tests
// only (tests/actors/simulation_test.cpp), as actors/test_hooks.hpp's do for the actors:
// storage cannot include that layer above it. Nothing outside tests sets them; all are
// off by default.
#pragma once

#include <atomic>

namespace belay::test_hooks {

// Resolving the last firing alert of an incident leaves the incident as it was, not
// resolved (docs/guarantees.md#alerts-and-grouping).
inline std::atomic<bool> keep_incident_after_last_alert{false};

} // namespace belay::test_hooks
