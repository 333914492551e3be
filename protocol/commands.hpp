// What callers ask of incidents, and what they are answered: the commands every ingest
// format becomes and the replies actors and storage give. Plain data, no I/O.
#pragma once

#include "protocol/model.hpp"

#include <string>
#include <utility>
#include <vector>

namespace belay {

// Who made a write a person or key asked for, for the audit log
// (docs/security.md#audit-log); an empty actor writes no row.
struct attribution {
  std::string actor;
  std::string via;
  std::string source_ip;
};

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
  // Set when the integration groups its alerts (docs/guarantees.md#alerts-and-grouping):
  // the event's own key, which names its alert, while dedup_key holds the group key of
  // its incident.
  std::string alert_key{};
};

enum class reply_code { ok, unchanged, not_found, conflict, unknown_policy, invalid };

struct trigger_reply {
  reply_code code = reply_code::ok;
  bool created = false;
  incident_record incident;
  bool grouped = false; // a new alert that joined an incident rather than opening one
};

enum class transition { ack, resolve };

struct transition_command {
  int64_t org_id = 0;
  int64_t incident_id = 0; // 0: find by dedup_key
  std::string dedup_key;
  transition kind = transition::ack;
  std::string by;
  std::string source = "native"; // wire format, for metrics
  // How the answer came (docs/guarantees.md#answering-the-page), recorded with `by`: api,
  // console, link, sms, voice, slack, pagerduty or alertmanager.
  std::string via = "api";
  // dedup_key names an alert of a grouping integration
  // (docs/guarantees.md#alerts-and-grouping): its firing alert is acted on, else the
  // incident of that dedup key as without grouping.
  bool alert_key = false;
  // A person's or key's answer (the API, the console, a link, a reply): written to the
  // audit log in the transaction of the change (docs/security.md#audit-log), with the
  // address it came from. Integrations' and heartbeats' are not: the log is of people.
  bool audited = false;
  std::string source_ip{};
};

struct transition_reply {
  reply_code code = reply_code::ok;
  incident_record incident;
};

// What a person does to an incident beyond acknowledging and resolving it
// (docs/guarantees.md#working-an-incident).
enum class incident_verb {
  note,
  escalate,
  snooze,
  reassign,
  priority,
  responders,    // page these people now, without disturbing the ladder
  subscribe,     // add subscribers of status updates
  status_update, // tell every subscriber
  merge          // resolve it into another incident of the org
};

struct incident_action {
  int64_t org_id = 0;
  int64_t incident_id = 0;
  incident_verb verb = incident_verb::note;
  attribution who;
  std::string text{};   // note
  micros until = 0;     // snooze: when it returns to OPEN
  std::string policy{}; // reassign: exactly one of these three
  std::string user{};
  std::string schedule{};
  std::string priority{}; // priority: P1..P5, or empty for none
  // responders: users and schedules to page; subscribe: users and addresses on channels
  std::vector<std::string> users{};
  std::vector<std::string> schedules{};
  std::vector<std::pair<std::string, std::string>> addresses{}; // channel, to
  std::string message{}; // responders: what they are asked; status_update: what it says
  int64_t into = 0;      // merge: the incident it goes into
};

} // namespace belay
