#include "protocol/pagerduty.hpp"

#include "protocol/json_document.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/limits.hpp"
#include "protocol/redact.hpp"
#include "protocol/text.hpp"

namespace belay::protocol {

namespace {

// PagerDuty reports every problem at once; so does this reader.
class pd_reader {
public:
  explicit pd_reader(std::vector<std::string>& errors) : errors_(errors) {}

  // nullopt when absent, null or not a usable string (a problem is then recorded,
  // except for absence, which only the caller can judge).
  std::optional<std::string> string(const rapidjson::Value& object, const char* name,
                                    const std::string& label) {
    auto it = object.FindMember(name);
    if (it == object.MemberEnd() || it->value.IsNull())
      return std::nullopt;
    if (!it->value.IsString()) {
      problem("'" + label + "' must be a string");
      return std::nullopt;
    }
    const std::string_view text = string_view_of(it->value);
    if (text.find('\0') != std::string_view::npos) {
      problem("'" + label + "' must not contain NUL characters");
      return std::nullopt;
    }
    return std::string{text};
  }

  // A string that must be present and not blank.
  std::string required(const rapidjson::Value& object, const char* name,
                       const std::string& label) {
    auto it = object.FindMember(name);
    const bool absent = it == object.MemberEnd() || it->value.IsNull();
    if (absent || (it->value.IsString() && is_blank(string_view_of(it->value)))) {
      problem("'" + label + "' is missing or blank");
      return {};
    }
    return string(object, name, label).value_or("");
  }

  void at_most(const std::string& text, std::size_t max_chars, const std::string& label) {
    if (utf8_length(text) > max_chars)
      problem("'" + label + "' is too long (maximum is " + std::to_string(max_chars) +
              " characters)");
  }

  void problem(std::string message) { errors_.push_back(std::move(message)); }

private:
  std::vector<std::string>& errors_;
};

bool is_one_of(std::string_view value, std::initializer_list<std::string_view> choices) {
  for (auto choice : choices)
    if (value == choice)
      return true;
  return false;
}

void read_trigger_payload(const rapidjson::Value& event, pd_event& out, pd_reader& r) {
  auto payload = event.FindMember("payload");
  if (payload == event.MemberEnd() || !payload->value.IsObject()) {
    r.problem("'payload' is missing or not an object");
    return;
  }
  const rapidjson::Value& p = payload->value;
  out.summary = r.required(p, "summary", "payload.summary");
  r.at_most(out.summary, max_title_chars, "payload.summary");
  out.source = r.required(p, "source", "payload.source");
  out.severity = r.required(p, "severity", "payload.severity");
  if (!out.severity.empty() && !is_one_of(out.severity, severities))
    r.problem("'payload.severity' is invalid (must be one of critical, error, warning, "
              "info)");
  auto text = [&p](const char* name) {
    auto it = p.FindMember(name);
    return it != p.MemberEnd() && it->value.IsString()
               ? std::string{string_view_of(it->value)}
               : std::string{};
  };
  out.component = text("component");
  out.group = text("group");
  out.event_class = text("class");
  auto details = p.FindMember("custom_details");
  if (details == p.MemberEnd() || details->value.IsNull())
    return;
  if (details->value.IsObject()) {
    out.details_json = compact_json_without_secrets(details->value);
    return;
  }
  // PagerDuty accepts any JSON value here (often a plain string); belay's details are
  // an object, so a non-object is kept under one name rather than refused.
  rapidjson::Document wrapped(rapidjson::kObjectType);
  rapidjson::Value copy(details->value, wrapped.GetAllocator());
  wrapped.AddMember("custom_details", copy, wrapped.GetAllocator());
  out.details_json = compact_json_without_secrets(wrapped);
}

} // namespace

std::variant<pd_event, std::vector<std::string>> parse_pd_event(std::string_view body) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, body, "Event object"))
    return std::vector<std::string>{bad->message};
  if (!doc.IsObject())
    return std::vector<std::string>{
        std::string{"Event object must be a JSON object, not "} + json_type_name(doc)};
  std::vector<std::string> errors;
  pd_reader r(errors);
  pd_event event;
  event.routing_key = r.required(doc, "routing_key", "routing_key");
  event.event_action = r.required(doc, "event_action", "event_action");
  if (event.event_action == "trigger") {
    // Optional on a trigger: belay generates one, as PagerDuty does.
    event.dedup_key = r.string(doc, "dedup_key", "dedup_key").value_or("");
    if (is_blank(event.dedup_key))
      event.dedup_key.clear();
    read_trigger_payload(doc, event, r);
  } else if (event.event_action == "acknowledge" || event.event_action == "resolve") {
    event.dedup_key = r.required(doc, "dedup_key", "dedup_key");
  } else if (!event.event_action.empty()) {
    // What else is required depends on the action, so nothing more can be said.
    r.problem("Event action is invalid");
  }
  r.at_most(event.dedup_key, max_dedup_key_chars, "dedup_key");
  if (!errors.empty())
    return errors;
  event.payload_json = compact_json_without_secrets(doc);
  return event;
}

std::string render_pd_accepted(const std::string& dedup_key) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("status");
  w.String("success");
  w.Key("message");
  w.String("Event processed");
  w.Key("dedup_key");
  write_string(w, dedup_key);
  w.EndObject();
  return to_string(out);
}

std::string render_pd_throttled(const std::string& message) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("status");
  w.String("throttle event");
  w.Key("message");
  write_string(w, message);
  w.EndObject();
  return to_string(out);
}

std::string render_pd_invalid(const std::vector<std::string>& errors) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("status");
  w.String("invalid event");
  w.Key("message");
  w.String("Event object is invalid");
  w.Key("errors");
  w.StartArray();
  for (const auto& e : errors)
    write_string(w, e);
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

} // namespace belay::protocol
