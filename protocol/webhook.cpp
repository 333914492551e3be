#include "protocol/webhook.hpp"

#include "protocol/json_writer.hpp"

namespace belay::protocol {

namespace {

void string_field(json_writer& w, const char* key, std::string_view value) {
  w.Key(key);
  write_string(w, value);
}

} // namespace

std::string webhook_body(const page& p) {
  const auto& incident = p.incident;
  rapidjson::StringBuffer buffer;
  json_writer w(buffer);
  w.StartObject();
  w.Key("id");
  w.Int64(incident.id);
  string_field(w, "dedupKey", incident.dedup_key);
  string_field(w, "title", incident.title);
  string_field(w, "severity", incident.severity);
  string_field(w, "status", incident.status);
  w.Key("loop");
  w.Int(p.loop);
  w.Key("step");
  w.Int(p.step);
  string_field(w, "target", p.target);
  w.Key("attempt");
  w.Int(p.attempt);
  // A status update's words, or what a requested responder is asked.
  if (!p.message.empty())
    string_field(w, "message", p.message);
  switch (kind_of(p)) {
  case page_kind::status_update: { // what happened, by whom, how
    const bool acked = p.update == "acknowledged";
    string_field(w, "update", p.update);
    if (p.update == "status_update") // a person's words: "message" above
      break;
    string_field(w, "by", acked ? incident.acked_by : incident.resolved_by);
    string_field(w, "via", acked ? incident.acked_via : incident.resolved_via);
    break;
  }
  case page_kind::answerable:
    string_field(w, "ackUrl", p.answer_url);
    break;
  case page_kind::bundle: // a webhook does not bundle; the incidents listed if one did
    w.Key("bundle");
    w.Int64(p.bundle_id);
    w.Key("incidents");
    w.StartArray();
    for (auto& b : p.bundle)
      w.Int64(b.incident.id);
    w.EndArray();
    if (p.update.empty())
      string_field(w, "ackUrl", p.answer_url);
    break;
  case page_kind::plain:
    break;
  }
  w.EndObject();
  return to_string(buffer);
}

} // namespace belay::protocol
