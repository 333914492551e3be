// Gauges read from the database at scrape time (GET /metrics).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace belay::storage {

class connection;

struct outbox_stats {
  int64_t depth = 0;                 // PENDING or CLAIMED deliveries
  double oldest_due_age_seconds = 0; // of the oldest PENDING delivery already due
  int64_t held_by_throttle = 0;      // PENDING, waiting for their contact's throttle
};

std::map<std::string, int64_t> unresolved_by_status(connection& c);
outbox_stats outbox(connection& c);

} // namespace belay::storage
