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

// Reads `body` (blank reads as {}) with `read(reader, request, document)`, or the first
// error.
template <class Request, class Read>
parsed<Request> read_request(std::string_view body, Read read) {
  rapidjson::Document doc;
  if (auto bad = parse_body(doc, body))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  Request request;
  read(r, request, doc);
  if (failure)
    return *failure;
  return request;
}

parsed<actor_request> parse_actor_request(std::string_view body, bool by_required) {
  return read_request<actor_request>(
      body, [&](field_reader& r, actor_request& q, const rapidjson::Document&) {
        q = read_actor(r, by_required);
      });
}

// An action's body: who asked ("by", "via"), then what `read(reader, request)` reads.
template <class Request, class Read>
parsed<Request> parse_action(std::string_view body, Read read) {
  return read_request<Request>(
      body, [&](field_reader& r, Request& q, const rapidjson::Document&) {
        q.actor = read_actor(r, false);
        read(r, q);
      });
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

namespace {

// A list of names ("users": ["ada", …]), at most max_people_per_request of them.
std::vector<std::string> read_names(field_reader& r, const char* name) {
  std::vector<std::string> out;
  const rapidjson::Value* list = r.optional_array(name);
  if (!list)
    return out;
  if (list->Size() > max_people_per_request) {
    r.fail("invalid_value", r.path_of(name),
           std::string{name} + " names at most " +
               std::to_string(max_people_per_request));
    return out;
  }
  for (rapidjson::SizeType i = 0; i < list->Size() && r.ok(); ++i)
    out.push_back(r.string_value((*list)[i],
                                 r.path_of(name) + "[" + std::to_string(i) + "]",
                                 max_name_chars, blank::refused));
  return out;
}

} // namespace

parsed<responders_request> parse_responders_request(std::string_view body) {
  return parse_action<responders_request>(body, [](field_reader& r,
                                                   responders_request& q) {
    q.users = read_names(r, "users");
    q.schedules = read_names(r, "schedules");
    q.message = r.optional_string("message", max_message_chars).value_or("");
    if (r.ok() && q.users.empty() && q.schedules.empty())
      r.fail("missing_field", "users", "name at least one of \"users\" or \"schedules\"");
  });
}

parsed<subscribers_request> parse_subscribers_request(std::string_view body) {
  return parse_action<subscribers_request>(body, [](field_reader& r,
                                                    subscribers_request& q) {
    q.users = read_names(r, "users");
    if (const rapidjson::Value* list = r.optional_array("channels")) {
      if (list->Size() > max_people_per_request)
        return r.fail("invalid_value", "channels",
                      "channels names at most " + std::to_string(max_people_per_request));
      for (rapidjson::SizeType i = 0; i < list->Size() && r.ok(); ++i) {
        field_reader item((*list)[i], "channels[" + std::to_string(i) + "]",
                          r.error_slot());
        auto channel = item.required_string("channel", max_name_chars);
        auto to = item.required_string("to", max_title_chars);
        item.refuse_unknown({"channel", "to"});
        q.addresses.emplace_back(channel, to);
      }
    }
    if (r.ok() && q.users.empty() && q.addresses.empty())
      r.fail("missing_field", "users", "name at least one of \"users\" or \"channels\"");
  });
}

parsed<merge_request> parse_merge_request(std::string_view body) {
  // "into" straight from the document: field_reader reads no integer as large as an id.
  return read_request<merge_request>(
      body, [](field_reader& r, merge_request& m, const rapidjson::Document& doc) {
        m.actor = read_actor(r, false);
        if (!r.ok())
          return;
        if (!doc.IsObject() || !doc.HasMember("into") || doc["into"].IsNull())
          return r.fail("missing_field", "into",
                        "\"into\" is required: the id of the incident to merge into");
        if (!doc["into"].IsInt64() || doc["into"].GetInt64() < 1)
          return r.fail("wrong_type", "into",
                        "\"into\" must be an incident id, a whole number");
        m.into = doc["into"].GetInt64();
      });
}

parsed<status_update_request> parse_status_update_request(std::string_view body) {
  return parse_action<status_update_request>(
      body, [](field_reader& r, status_update_request& q) {
        q.message = r.required_string("message", max_message_chars);
      });
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
  return read_request<priority_request>(
      body, [](field_reader& r, priority_request& p, const rapidjson::Document& doc) {
        p.actor = read_actor(r, false);
        // null clears the priority, so the member itself must be there.
        if (r.ok() && !doc.HasMember("priority"))
          return r.fail("missing_field", "priority",
                        "priority is required (P1..P5, or null for none)");
        p.priority = r.optional_choice("priority", priorities).value_or("");
      });
}

} // namespace belay::protocol
