// What a node's registry counted (created, deduplicated, respawned, adopted), by org:
// the inspector shows an org its own counts only (docs/http.md#inspector). Kept beside
// the registry's node-wide registry_stats, keyed by the registry's actor id so that
// several nodes in one process (the tests) keep theirs apart.
#pragma once

#include "protocol/views.hpp"

#include <cstdint>

namespace belay::org_counts {

enum class counted { created, deduplicated, respawned, adopted };

void add(uint64_t registry_id, int64_t org, counted what, uint64_t n = 1);

// The org's counts (`held` left 0: the caller counts what it is shown).
registry_stats of(uint64_t registry_id, int64_t org);

} // namespace belay::org_counts
