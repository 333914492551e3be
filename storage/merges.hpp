// Merged keys (docs/guarantees.md#working-an-incident): after a merge, a later event for
// the merged incident's dedup key joins the incident it went into, as a duplicate of that
// one's key, while that one is open (G1: no second incident for the outage).
#pragma once

#include "storage/incidents.hpp"

#include <vector>

namespace belay::storage {

class connection;

// This process knows a merge exists: it merged, or heard that another node did. Until
// then, a batch probes for redirects only once the database says a merge exists, which
// it asks at most once a second: another node's first merge redirects here within it.
void note_merges();

// `events` with each dedup key merged into a non-resolved incident replaced by that
// incident's key; as they are when none was (one probe of merged_key per batch, once
// any merge exists).
std::vector<trigger_event> redirect_merged(connection& c,
                                           const std::vector<trigger_event>& events);

} // namespace belay::storage
