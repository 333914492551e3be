#include "protocol/incident_request.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/json_document.hpp"
#include "protocol/redact.hpp"
#include "protocol/text.hpp"
#include "protocol/time.hpp"

namespace belay::protocol {

namespace {

constexpr const char* request_body = "request body";

// Bodies of actions are often sent empty by curl users; read them as {}.
std::optional<error> parse_body(rapidjson::Document& doc, std::string_view body) {
  if (is_blank(body)) {
    doc.SetObject();
    return std::nullopt;
  }
  return parse_json(doc, body, request_body);
}

actor_request read_actor(field_reader& r, bool by_required) {
  actor_request request;
  if (by_required)
    request.by = r.required_string("by", max_name_chars);
  else
    request.by = r.optional_string("by", max_name_chars).value_or("");
  request.via = r.optional_choice("via", {"api", "console"}).value_or("api");
  return request;
}

parsed<actor_request> parse_actor_request(std::string_view body, bool by_required) {
  rapidjson::Document doc;
  if (auto bad = parse_body(doc, body))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  auto request = read_actor(r, by_required);
  if (failure)
    return *failure;
  return request;
}

// Reads `body` with `read` (a field_reader and the request to fill), or the first error.
template <class Request, class Read>
parsed<Request> parse_action(std::string_view body, Read read) {
  rapidjson::Document doc;
  if (auto bad = parse_body(doc, body))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  Request request;
  request.actor = read_actor(r, false);
  read(r, request);
  if (failure)
    return *failure;
  return request;
}

} // namespace

parsed<trigger_request> parse_trigger_request(std::string_view body) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, body, request_body))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  trigger_request request;
  request.dedup_key = r.required_string("dedupKey", max_dedup_key_chars);
  request.title = r.required_string("title", max_title_chars);
  request.policy = r.required_string("policy", max_name_chars);
  request.severity = r.optional_choice("severity", severities).value_or(request.severity);
  if (const rapidjson::Value* details = r.optional_object("details"))
    request.details_json = compact_json_without_secrets(*details);
  if (failure)
    return *failure;
  request.payload_json = compact_json_without_secrets(doc);
  return request;
}

parsed<actor_request> parse_ack_request(std::string_view body, bool by_required) {
  return parse_actor_request(body, by_required);
}

parsed<actor_request> parse_resolve_request(std::string_view body) {
  return parse_actor_request(body, false);
}

parsed<note_request> parse_note_request(std::string_view body) {
  return parse_action<note_request>(body, [](field_reader& r, note_request& n) {
    n.text = r.required_string("text", max_note_chars);
  });
}

parsed<actor_request> parse_escalate_request(std::string_view body) {
  return parse_actor_request(body, false);
}

parsed<snooze_request> parse_snooze_request(std::string_view body) {
  return parse_action<snooze_request>(body, [](field_reader& r, snooze_request& s) {
    if (r.has("until") == r.has("seconds"))
      return r.fail("missing_field", "until",
                    "give exactly one of \"until\" (RFC 3339) or \"seconds\"");
    if (r.has("until")) {
      auto text = r.required_string("until", 64);
      if (!r.ok())
        return;
      s.until = parse_rfc3339(text);
      if (!s.until)
        r.fail("invalid_value", "until", "until must be an RFC 3339 time");
      return;
    }
    s.seconds = r.optional_seconds("seconds", lowest_seconds::above_zero);
  });
}

parsed<reassign_request> parse_reassign_request(std::string_view body) {
  return parse_action<reassign_request>(body, [](field_reader& r, reassign_request& a) {
    int named = r.has("policy") + r.has("user") + r.has("schedule");
    if (named != 1)
      return r.fail(named == 0 ? "missing_field" : "invalid_value", "policy",
                    "give exactly one of \"policy\", \"user\" or \"schedule\"");
    a.policy = r.optional_string("policy", max_name_chars).value_or("");
    a.user = r.optional_string("user", max_name_chars).value_or("");
    a.schedule = r.optional_string("schedule", max_name_chars).value_or("");
  });
}

parsed<priority_request> parse_priority_request(std::string_view body) {
  rapidjson::Document doc;
  if (auto bad = parse_body(doc, body))
    return *bad;
  // null clears the priority, so the member itself must be there.
  if (!doc.IsObject() || !doc.HasMember("priority"))
    return error{400, "missing_field", "priority is required (P1..P5, or null for none)",
                 "priority"};
  return parse_action<priority_request>(body, [](field_reader& r, priority_request& p) {
    p.priority = r.optional_choice("priority", priorities).value_or("");
  });
}

} // namespace belay::protocol
