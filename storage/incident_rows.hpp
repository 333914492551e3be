// The incident row as every statement about incidents returns it, shared by the files
// of storage/ that write incidents.
#pragma once

#include "storage/columns.hpp"
#include "storage/db.hpp"
#include "storage/incidents.hpp"

// Every column of an incident but its ladder (storage/columns.hpp).
// clang-format off
#define BELAY_INCIDENT_COLUMN_LIST(first, next)                                          \
  first(org_id, "org_id")                                                                \
  next(id, "id")                                                                         \
  next(dedup_key, "dedup_key")                                                           \
  next(title, "title")                                                                   \
  next(severity, "severity")                                                             \
  next(status, "status")                                                                 \
  next(policy, "policy")                                                                 \
  next(current_step, "current_step")                                                     \
  next(loop, "loop")                                                                     \
  next(event_count, "event_count")                                                       \
  next(created_at, "belay_us(created_at)")                                               \
  next(last_seen_at, "belay_us(last_seen_at)")                                           \
  next(next_fire_at, "belay_us(next_fire_at)")                                           \
  next(acked_at, "belay_us(acked_at)")                                                   \
  next(acked_by, "coalesce(acked_by, '')")                                               \
  next(resolved_at, "belay_us(resolved_at)")                                             \
  next(exhausted_at, "belay_us(exhausted_at)")                                           \
  next(version, "version")                                                               \
  next(shadow, "shadow")                                                                 \
  next(acked_via, "coalesce(acked_via, '')")                                             \
  next(resolved_by, "coalesce(resolved_by, '')")                                         \
  next(resolved_via, "coalesce(resolved_via, '')")                                       \
  next(reopen_count, "reopen_count")                                                     \
  next(integration, "coalesce(integration, '')")                                         \
  next(held_until, "belay_us(held_until)")                                               \
  next(priority, "coalesce(priority, '')")                                               \
  next(snoozed_until, "belay_us(snoozed_until)")                                         \
  next(assigned_to, "coalesce(assigned_to, '')")
// clang-format on

// read_held() reads these, then the ladder: a statement that has no use for the ladder
// selects NULL::text in its place.
#define BELAY_INCIDENT_COLUMNS_BUT_LADDER BELAY_SELECT_LIST(BELAY_INCIDENT_COLUMN_LIST)
#define BELAY_INCIDENT_COLUMNS BELAY_INCIDENT_COLUMNS_BUT_LADDER ", ladder::text"
// How many alerts an incident has and how many fire
// (docs/guarantees.md#alerts-and-grouping), which statements that answer for grouped
// incidents select after the ladder. The trigger statements of integrations that do not
// group leave them out: their incidents are 1 and 1.
#define BELAY_INCIDENT_COUNTS "alert_count, firing_count"

namespace belay::storage {

// Reads one row; a NULL ladder column leaves held_incident::ladder empty. Columns a
// statement adds after the ladder are read by name (result::column).
held_incident read_held(const result& r, int row);

// Reads BELAY_INCIDENT_COUNTS of a result that selected them, looked up once.
class count_reader {
public:
  explicit count_reader(const result& r);
  void operator()(const result& r, int row, incident_record& out) const;

private:
  int alerts_, firing_;
};

// read_held, and the counts.
inline held_incident read_counted(const result& r, int row, const count_reader& counts) {
  auto h = read_held(r, row);
  counts(r, row, h.incident);
  return h;
}

} // namespace belay::storage
