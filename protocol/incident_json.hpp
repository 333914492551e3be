// Response bodies of the native incident API (docs/http.md#incidents): camelCase names,
// RFC 3339 times, null for every optional that is not set.
#pragma once

#include "protocol/change_event.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace belay::protocol {

// The incident object: id (a number), dedupKey, title, severity, status, policy,
// currentStep, loop, eventCount, createdAt, lastSeenAt, nextFireAt, ackedAt, ackedBy,
// resolvedAt, exhaustedAt, version; reopenCount, integration, inMaintenance and
// maintenanceUntil (docs/guarantees.md#maintenance-windows); alertCount and firingCount
// (docs/guarantees.md#alerts-and-grouping). Other renderers (the inspector) embed it.
void write_incident(json_writer& w, const incident_record& incident);
// {"key","status","title","severity","firstSeenAt","lastSeenAt","eventCount"}
void write_alert(json_writer& w, const alert_record& alert);
// {"at","kind","detail":<the stored detail object>}
void write_timeline_entry(json_writer& w, const timeline_entry& entry);
// {"id","loop","step","channel","target","idempotencyKey","status","attempts",
//  "nextAttemptAt","lastError","ambiguous","failoverFrom","sentAt","createdAt"}
void write_delivery(json_writer& w, const delivery_record& delivery);
// {"id","deliveryId","incidentId","channel","target","reason","failedAt"}
void write_dead_letter(json_writer& w, const dead_letter_record& dead_letter);

// {"incident":{…},"deduplicated":bool}: POST /api/v1/incidents
std::string render_incident_response(const incident_record& incident, bool deduplicated);
// {"incident":{…}}: ack and resolve
std::string render_incident_only(const incident_record& incident);
// {"incidents":[…],"next":"<cursor>"|null}
std::string render_incident_list(const std::vector<incident_record>& incidents,
                                 const std::optional<std::string>& next);
// What the detail shows of an incident's alerts (docs/guarantees.md#alerts-and-grouping):
// the most recent, the cursor to the rest, and the payloads kept, newest first (a JSON
// array).
struct incident_alerts {
  std::vector<alert_record> alerts;
  std::optional<std::string> next;
  std::string evidence_json = "[]";
};

// {"incident":{…},"timeline":[…],"deliveries":[…],"timelineNext":c|null,
//  "deliveriesNext":c|null,"changes":[…],"alerts":[…],"alertsNext":c|null,
//  "evidence":[…]}: a next cursor continues that list at …/timeline, …/deliveries or
// …/alerts; changes are the org's change events of the hour before the incident opened
// (docs/guarantees.md#change-events), newest first.
// Working an incident (docs/http.md#working-an-incident): a responder asked to help,
// and a subscriber of its status updates (a user, or an address on a channel).
struct responder_record {
  std::string user;
  std::string state; // requested | acknowledged
  micros requested_at = 0;
  std::string requested_by;
  std::string message;
  std::optional<micros> acknowledged_at;
};
struct subscriber_record {
  std::string user; // or
  std::string channel, to;
};
// What working the incident added to it: its responders and subscribers, and the
// incident it was merged into, if it was.
struct incident_work {
  std::vector<responder_record> responders;
  std::vector<subscriber_record> subscribers;
  std::optional<int64_t> merged_into;
};

std::string render_incident_detail(const incident_record& incident,
                                   const std::vector<timeline_entry>& timeline,
                                   const std::vector<delivery_record>& deliveries,
                                   const std::optional<std::string>& timeline_next = {},
                                   const std::optional<std::string>& deliveries_next = {},
                                   const std::vector<change_record>& changes = {},
                                   const incident_alerts& alerts = {},
                                   const incident_work& people = {});
// {"alerts":[…],"next":c|null}
std::string render_alert_page(const std::vector<alert_record>& alerts,
                              const std::optional<std::string>& next);
// {"timeline":[…],"next":c|null}
std::string render_timeline_page(const std::vector<timeline_entry>& timeline,
                                 const std::optional<std::string>& next);
// {"deliveries":[…],"next":c|null}
std::string render_delivery_page(const std::vector<delivery_record>& deliveries,
                                 const std::optional<std::string>& next);
// A bundle seen from the console (docs/http.md#bundles): {"bundle":{"id","channel",
// "target"},"incidents":[{"id","title","severity","status","member"}]}, `member` false
// for an incident it spoke of without a page of its own.
struct bundle_view {
  int64_t id = 0;
  std::string channel;
  std::string target;
  std::vector<incident_record> incidents;
  std::vector<int64_t> members;
};
std::string render_bundle(const bundle_view& b);
// {"deadLetters":[…],"next":c|null}
std::string render_dead_letters(const std::vector<dead_letter_record>& dead_letters,
                                const std::optional<std::string>& next = {});

} // namespace belay::protocol
