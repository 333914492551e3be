// The incident row as every statement about incidents returns it, shared by the files
// of storage/ that write incidents.
#pragma once

#include "storage/db.hpp"
#include "storage/incidents.hpp"

// Every column of an incident but its ladder, in the order read_held() reads them.
#define BELAY_INCIDENT_COLUMNS_BUT_LADDER                                                \
  "org_id, id, dedup_key, title, severity, status, policy, current_step, loop, "         \
  "event_count, belay_us(created_at), belay_us(last_seen_at), belay_us(next_fire_at), "  \
  "belay_us(acked_at), coalesce(acked_by, ''), belay_us(resolved_at), "                  \
  "belay_us(exhausted_at), version, shadow, coalesce(acked_via, ''), "                   \
  "coalesce(resolved_by, ''), coalesce(resolved_via, ''), reopen_count, "                \
  "coalesce(integration, ''), belay_us(held_until)"

#define BELAY_INCIDENT_COLUMNS BELAY_INCIDENT_COLUMNS_BUT_LADDER ", ladder::text"

namespace belay::storage {

// Columns before any a statement adds after BELAY_INCIDENT_COLUMNS.
constexpr int incident_column_count = 26;

// Reads one row; a NULL ladder column (a statement that did not need it) leaves
// held_incident::ladder empty.
held_incident read_held(const result& r, int row);

} // namespace belay::storage
