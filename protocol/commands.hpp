// What callers ask of incidents, and what they are answered: the commands every ingest
// format becomes and the replies actors and storage give. Plain data, no I/O.
#pragma once

#include "protocol/model.hpp"

#include <string>

namespace belay {

// One event from any of the three wire formats.
struct trigger_command {
  int64_t org_id = 0;
  std::string dedup_key;
  std::string title;
  std::string severity = "critical";
  std::string policy;
  std::string details_json = "{}";
  std::string payload_json = "{}"; // kept as evidence on the incident
  bool shadow = false;
  std::string source =
      "native";              // wire format, for metrics: native | events | alertmanager
  std::string integration{}; // its name, for maintenance windows; empty: native API
};

enum class reply_code { ok, unchanged, not_found, conflict, unknown_policy };

struct trigger_reply {
  reply_code code = reply_code::ok;
  bool created = false;
  incident_record incident;
};

enum class transition { ack, resolve };

struct transition_command {
  int64_t org_id = 0;
  int64_t incident_id = 0; // 0: find by dedup_key
  std::string dedup_key;
  transition kind = transition::ack;
  std::string by;
  std::string source = "native"; // wire format, for metrics
  // How the answer came (DESIGN.md section 11), recorded with `by`: api, console, link,
  // sms, voice, slack, pagerduty or alertmanager.
  std::string via = "api";
};

struct transition_reply {
  reply_code code = reply_code::ok;
  incident_record incident;
};

} // namespace belay
