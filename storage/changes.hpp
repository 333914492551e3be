// Change events (docs/guarantees.md#change-events): recorded as they come, listed newest
// first, and read beside the incidents opened within an hour after them.
#pragma once

#include "protocol/change_event.hpp"

#include <optional>
#include <vector>

namespace belay::storage {

class connection;

// How long after a change an incident that opens is shown with it.
inline constexpr micros change_reach = 3'600'000'000LL;

// Records the change as received at `now` (its timestamp, else `now`); returns its id.
int64_t record_change(connection& c, int64_t org_id, const std::string& integration,
                      const protocol::change_event& e, micros now);

struct change_page {
  std::vector<protocol::change_record> changes;
  std::optional<int64_t> next_after; // pass as after_id for the next (older) page
};

// Newest first (as received): ids below after_id when it is not 0.
change_page list_changes(connection& c, int64_t org_id, int limit, int64_t after_id);

// The org's changes of the hour up to `opened_at`, newest first, at most `limit`.
std::vector<protocol::change_record> changes_before(connection& c, int64_t org_id,
                                                    micros opened_at, int limit);

} // namespace belay::storage
