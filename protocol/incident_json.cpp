#include "protocol/incident_json.hpp"

#include <algorithm>

namespace belay::protocol {

namespace {

template <class T, class WriteOne>
void write_array(json_writer& w, const char* key, const std::vector<T>& items,
                 WriteOne write_one) {
  w.Key(key);
  w.StartArray();
  for (const auto& item : items)
    write_one(w, item);
  w.EndArray();
}

// {"policy": …} while the incident follows a policy, else {"user": …} or
// {"schedule": …} after a reassign to one (assigned_to "user:<name>").
void write_assignee(json_writer& w, const incident_record& incident) {
  w.StartObject();
  auto colon = incident.assigned_to.find(':');
  if (colon == std::string::npos) {
    w.Key("policy");
    write_string(w, incident.policy);
  } else {
    w.Key(incident.assigned_to.substr(0, colon).c_str());
    write_string(w, incident.assigned_to.substr(colon + 1));
  }
  w.EndObject();
}

} // namespace

void write_incident(json_writer& w, const incident_record& incident) {
  w.StartObject();
  w.Key("id");
  w.Int64(incident.id);
  w.Key("dedupKey");
  write_string(w, incident.dedup_key);
  w.Key("title");
  write_string(w, incident.title);
  w.Key("severity");
  write_string(w, incident.severity);
  w.Key("status");
  write_string(w, incident.status);
  w.Key("policy");
  write_string(w, incident.policy);
  w.Key("currentStep");
  w.Int(incident.current_step);
  w.Key("loop");
  w.Int(incident.loop);
  w.Key("eventCount");
  w.Int64(incident.event_count);
  w.Key("createdAt");
  write_time(w, incident.created_at);
  w.Key("lastSeenAt");
  write_time(w, incident.last_seen_at);
  w.Key("nextFireAt");
  write_time_or_null(w, incident.next_fire_at);
  w.Key("ackedAt");
  write_time_or_null(w, incident.acked_at);
  w.Key("ackedBy");
  write_string_or_null(w, incident.acked_by);
  w.Key("ackedVia");
  write_string_or_null(w, incident.acked_via);
  w.Key("resolvedAt");
  write_time_or_null(w, incident.resolved_at);
  w.Key("resolvedBy");
  write_string_or_null(w, incident.resolved_by);
  w.Key("resolvedVia");
  write_string_or_null(w, incident.resolved_via);
  w.Key("exhaustedAt");
  write_time_or_null(w, incident.exhausted_at);
  w.Key("version");
  w.Int64(incident.version);
  w.Key("reopenCount");
  w.Int(incident.reopen_count);
  w.Key("integration");
  write_string_or_null(w, incident.integration);
  w.Key("inMaintenance");
  w.Bool(incident.held_until.has_value());
  w.Key("maintenanceUntil");
  write_time_or_null(w, incident.held_until);
  w.Key("alertCount");
  w.Int(incident.alert_count);
  w.Key("firingCount");
  w.Int(incident.firing_count);
  w.Key("priority");
  write_string_or_null(w, incident.priority);
  w.Key("snoozedUntil");
  write_time_or_null(w, incident.snoozed_until);
  w.Key("assignedTo");
  write_assignee(w, incident);
  w.EndObject();
}

namespace {

void write_responder(json_writer& w, const responder_record& r) {
  w.StartObject();
  w.Key("user");
  write_string(w, r.user);
  w.Key("state");
  write_string(w, r.state);
  w.Key("requestedAt");
  write_time(w, r.requested_at);
  w.Key("requestedBy");
  write_string(w, r.requested_by);
  w.Key("message");
  write_string_or_null(w, r.message);
  w.Key("acknowledgedAt");
  write_time_or_null(w, r.acknowledged_at);
  w.EndObject();
}

void write_subscriber(json_writer& w, const subscriber_record& s) {
  w.StartObject();
  if (!s.user.empty()) {
    w.Key("user");
    write_string(w, s.user);
  } else {
    w.Key("channel");
    write_string(w, s.channel);
    w.Key("to");
    write_string(w, s.to);
  }
  w.EndObject();
}

} // namespace

void write_alert(json_writer& w, const alert_record& alert) {
  w.StartObject();
  w.Key("key");
  write_string(w, alert.key);
  w.Key("status");
  write_string(w, alert.status);
  w.Key("title");
  write_string(w, alert.title);
  w.Key("severity");
  write_string(w, alert.severity);
  w.Key("firstSeenAt");
  write_time(w, alert.first_seen_at);
  w.Key("lastSeenAt");
  write_time(w, alert.last_seen_at);
  w.Key("eventCount");
  w.Int64(alert.event_count);
  w.EndObject();
}

void write_timeline_entry(json_writer& w, const timeline_entry& entry) {
  w.StartObject();
  w.Key("at");
  write_time(w, entry.at);
  w.Key("kind");
  write_string(w, entry.kind);
  w.Key("detail");
  write_stored_json(w, entry.detail_json);
  w.EndObject();
}

void write_delivery(json_writer& w, const delivery_record& delivery) {
  w.StartObject();
  w.Key("id");
  w.Int64(delivery.id);
  w.Key("loop");
  w.Int(delivery.loop);
  w.Key("step");
  w.Int(delivery.step);
  w.Key("channel");
  write_string(w, delivery.channel);
  w.Key("target");
  write_string(w, delivery.target);
  w.Key("idempotencyKey");
  write_string(w, delivery.idempotency_key);
  w.Key("status");
  write_string(w, delivery.status);
  w.Key("attempts");
  w.Int(delivery.attempts);
  w.Key("nextAttemptAt");
  write_time_or_null(w, delivery.next_attempt_at);
  w.Key("lastError");
  write_string_or_null(w, delivery.last_error);
  w.Key("ambiguous");
  w.Bool(delivery.ambiguous);
  w.Key("failoverFrom");
  if (delivery.failover_from)
    w.Int64(*delivery.failover_from);
  else
    w.Null();
  w.Key("sentAt");
  write_time_or_null(w, delivery.sent_at);
  w.Key("createdAt");
  write_time(w, delivery.created_at);
  w.Key("heldBy");
  write_string_or_null(w, delivery.held_by);
  w.Key("bundle");
  if (delivery.bundle_id)
    w.Int64(*delivery.bundle_id);
  else
    w.Null();
  w.EndObject();
}

void write_dead_letter(json_writer& w, const dead_letter_record& dead_letter) {
  w.StartObject();
  w.Key("id");
  w.Int64(dead_letter.id);
  w.Key("deliveryId");
  w.Int64(dead_letter.delivery_id);
  w.Key("incidentId");
  w.Int64(dead_letter.incident_id);
  w.Key("channel");
  write_string(w, dead_letter.channel);
  w.Key("target");
  write_string(w, dead_letter.target);
  w.Key("reason");
  write_string(w, dead_letter.reason);
  w.Key("failedAt");
  write_time(w, dead_letter.failed_at);
  w.EndObject();
}

std::string render_incident_response(const incident_record& incident, bool deduplicated) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("incident");
  write_incident(w, incident);
  w.Key("deduplicated");
  w.Bool(deduplicated);
  w.EndObject();
  return to_string(out);
}

std::string render_incident_only(const incident_record& incident) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("incident");
  write_incident(w, incident);
  w.EndObject();
  return to_string(out);
}

std::string render_incident_list(const std::vector<incident_record>& incidents,
                                 const std::optional<std::string>& next) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  write_array(w, "incidents", incidents, write_incident);
  w.Key("next");
  if (next)
    write_string(w, *next);
  else
    w.Null();
  w.EndObject();
  return to_string(out);
}

std::string render_bundle(const bundle_view& b) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("bundle");
  w.StartObject();
  w.Key("id");
  w.Int64(b.id);
  w.Key("channel");
  write_string(w, b.channel);
  w.Key("target");
  write_string(w, b.target);
  w.EndObject();
  w.Key("incidents");
  w.StartArray();
  for (auto& i : b.incidents) {
    w.StartObject();
    w.Key("id");
    w.Int64(i.id);
    w.Key("title");
    write_string(w, i.title);
    w.Key("severity");
    write_string(w, i.severity);
    w.Key("status");
    write_string(w, i.status);
    w.Key("member");
    w.Bool(std::find(b.members.begin(), b.members.end(), i.id) != b.members.end());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

namespace {

void write_cursor(json_writer& w, const char* name,
                  const std::optional<std::string>& next) {
  w.Key(name);
  if (next)
    write_string(w, *next);
  else
    w.Null();
}

template <class T, class Write>
std::string render_page(const char* name, const std::vector<T>& items, Write write,
                        const std::optional<std::string>& next) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  write_array(w, name, items, write);
  write_cursor(w, "next", next);
  w.EndObject();
  return to_string(out);
}

} // namespace

std::string render_incident_detail(const incident_record& incident,
                                   const std::vector<timeline_entry>& timeline,
                                   const std::vector<delivery_record>& deliveries,
                                   const std::optional<std::string>& timeline_next,
                                   const std::optional<std::string>& deliveries_next,
                                   const std::vector<change_record>& changes,
                                   const incident_alerts& alerts,
                                   const incident_work& people) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("incident");
  write_incident(w, incident);
  write_array(w, "timeline", timeline, write_timeline_entry);
  write_array(w, "deliveries", deliveries, write_delivery);
  write_cursor(w, "timelineNext", timeline_next);
  write_cursor(w, "deliveriesNext", deliveries_next);
  write_array(w, "changes", changes, write_change);
  write_array(w, "alerts", alerts.alerts, write_alert);
  write_cursor(w, "alertsNext", alerts.next);
  w.Key("evidence");
  write_stored_json(w, alerts.evidence_json);
  write_array(w, "responders", people.responders, write_responder);
  write_array(w, "subscribers", people.subscribers, write_subscriber);
  w.Key("mergedInto");
  if (people.merged_into)
    w.Int64(*people.merged_into);
  else
    w.Null();
  w.EndObject();
  return to_string(out);
}

std::string render_timeline_page(const std::vector<timeline_entry>& timeline,
                                 const std::optional<std::string>& next) {
  return render_page("timeline", timeline, write_timeline_entry, next);
}

std::string render_alert_page(const std::vector<alert_record>& alerts,
                              const std::optional<std::string>& next) {
  return render_page("alerts", alerts, write_alert, next);
}

std::string render_delivery_page(const std::vector<delivery_record>& deliveries,
                                 const std::optional<std::string>& next) {
  return render_page("deliveries", deliveries, write_delivery, next);
}

std::string render_dead_letters(const std::vector<dead_letter_record>& dead_letters,
                                const std::optional<std::string>& next) {
  return render_page("deadLetters", dead_letters, write_dead_letter, next);
}

} // namespace belay::protocol
