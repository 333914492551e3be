#include "protocol/inspector_json.hpp"

#include "protocol/incident_json.hpp"
#include "protocol/json_writer.hpp"

namespace belay::protocol {

namespace {

void write_node(json_writer& w, const node_info& n) {
  w.StartObject();
  w.Key("id");
  write_string(w, n.id);
  w.Key("version");
  write_string(w, n.version);
  w.Key("startedAt");
  write_time(w, n.started_at);
  w.Key("uptimeSeconds");
  w.Double(static_cast<double>(n.now - n.started_at) / 1e6);
  w.Key("now");
  write_time(w, n.now);
  w.EndObject();
}

void write_registry(json_writer& w, const registry_stats& r) {
  w.StartObject();
  w.Key("held");
  w.Uint64(r.held);
  w.Key("created");
  w.Uint64(r.created);
  w.Key("deduplicated");
  w.Uint64(r.deduplicated);
  w.Key("respawned");
  w.Uint64(r.respawned);
  w.Key("adopted");
  w.Uint64(r.adopted);
  w.EndObject();
}

void write_incident_view(json_writer& w, const incident_view& v) {
  w.StartObject();
  w.Key("actorId");
  write_string(w, v.actor_id);
  w.Key("upSince");
  write_time(w, v.up_since);
  w.Key("mailbox");
  w.Uint64(v.mailbox);
  w.Key("noOneOnCall");
  w.StartArray();
  for (auto& schedule : v.no_one_on_call)
    write_string(w, schedule);
  w.EndArray();
  w.Key("nextTimerDue");
  write_time_or_null(w, v.incident.status == status_open ? v.incident.next_fire_at
                                                         : std::nullopt);
  w.Key("incident");
  write_incident(w, v.incident);
  w.EndObject();
}

void write_channel_view(json_writer& w, const channel_view& c,
                        const std::vector<throttled_contact>& throttled) {
  w.StartObject();
  w.Key("name");
  write_string(w, c.config.name);
  w.Key("type");
  write_string(w, c.config.type);
  w.Key("queued");
  w.Uint64(c.queued);
  w.Key("inFlight");
  w.Uint64(c.in_flight);
  w.Key("sent");
  w.Uint64(c.sent);
  w.Key("failed");
  w.Uint64(c.failed);
  w.Key("deadLetters");
  w.Uint64(c.dead);
  w.Key("ambiguous");
  w.Uint64(c.ambiguous);
  w.Key("retriesScheduled");
  w.StartArray();
  for (auto& r : c.retries) {
    w.StartObject();
    w.Key("deliveryId");
    w.Int64(r.delivery_id);
    w.Key("incidentId");
    w.Int64(r.incident_id);
    w.Key("target");
    write_string(w, r.target);
    w.Key("attempt");
    w.Int(r.attempt);
    w.Key("dueAt");
    write_time(w, r.due_at);
    w.EndObject();
  }
  w.EndArray();
  w.Key("throttled");
  w.StartArray();
  for (auto& t : throttled) {
    if (t.channel != c.config.name)
      continue;
    w.StartObject();
    w.Key("target");
    write_string(w, t.target);
    w.Key("waiting");
    w.Int64(t.waiting);
    w.Key("opensAt");
    write_time(w, t.opens_at);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

} // namespace

std::string render_inspector(const inspector_snapshot& s) {
  rapidjson::StringBuffer buf;
  json_writer w{buf};
  w.StartObject();
  w.Key("node");
  write_node(w, s.node);
  w.Key("registry");
  write_registry(w, s.registry);
  w.Key("incidents");
  w.StartArray();
  for (auto& v : s.incidents)
    write_incident_view(w, v);
  w.EndArray();
  w.Key("channels");
  w.StartArray();
  for (auto& c : s.channels)
    write_channel_view(w, c, s.throttled);
  w.EndArray();
  w.Key("deadLetters");
  w.StartArray();
  for (auto& d : s.dead_letters)
    write_dead_letter(w, d);
  w.EndArray();
  w.Key("storage");
  w.StartObject();
  w.Key("workers");
  w.Uint64(s.storage.workers);
  w.Key("poolSize");
  w.Uint64(s.storage.pool_size);
  w.Key("poolBusy");
  w.Uint64(s.storage.pool_busy);
  w.EndObject();
  w.EndObject();
  return to_string(buf);
}

} // namespace belay::protocol
