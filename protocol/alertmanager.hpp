// Prometheus Alertmanager webhook payload, version 4
// (POST /api/v1/integrations/alertmanager).
#pragma once

#include "protocol/error.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

struct am_alert {
  std::string status;       // firing | resolved
  std::string dedup_key;    // the fingerprint, else derived from the labels
  std::string title;        // annotations.summary, else labels.alertname, else "alert"
  std::string severity;     // labels.severity when belay knows it; "page" means critical
  std::string payload_json; // the alert object as evidence, secret-named members removed
  std::string alertname;    // labels.alertname, or empty (Watchdog pings a heartbeat)
  // What grouping may read (docs/guarantees.md#alerts-and-grouping): every label, and the
  // annotations whose values are strings.
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::pair<std::string, std::string>> annotations;
};

struct am_webhook {
  std::string version;
  std::string status;
  std::vector<am_alert> alerts;
};

// "alerts" must be an array of objects, each with "status" firing|resolved and
// "labels" an object of strings; errors name the path ("alerts[3].status"). Every
// other field is optional and unknown fields are ignored.
parsed<am_webhook> parse_alertmanager(std::string_view body);

// When an alert has no fingerprint: its labels sorted by name as {a="b",c="d"} (values
// escaped as Prometheus does), or "labels:" + SHA-256 hex of that when it would be
// longer than a dedup key may be.
std::string
dedup_key_from_labels(const std::vector<std::pair<std::string, std::string>>& labels);

struct am_counts {
  int created = 0;
  int deduplicated = 0;
  int resolved = 0;
  int ignored = 0;
  // An integration that groups (docs/guarantees.md#alerts-and-grouping) also says how
  // many of the deduplicated were new alerts that joined an incident.
  bool grouping = false;
  int grouped = 0;
};

// {"created":n,"deduplicated":n,"resolved":n,"ignored":n}, and "grouped":n when grouping
std::string render_am_counts(const am_counts& counts);

} // namespace belay::protocol
