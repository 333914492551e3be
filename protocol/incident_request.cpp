#include "protocol/incident_request.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/json_document.hpp"
#include "protocol/redact.hpp"
#include "protocol/text.hpp"

namespace belay::protocol {

namespace {

constexpr const char* request_body = "request body";

// Ack and resolve bodies are often sent empty by curl users; read them as {}.
parsed<actor_request> parse_actor_request(std::string_view body, bool by_required) {
  rapidjson::Document doc;
  if (is_blank(body))
    doc.SetObject();
  else if (auto bad = parse_json(doc, body, request_body))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  actor_request request;
  if (by_required)
    request.by = r.required_string("by", max_name_chars);
  else
    request.by = r.optional_string("by", max_name_chars).value_or("");
  request.via = r.optional_choice("via", {"api", "console"}).value_or("api");
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

} // namespace belay::protocol
