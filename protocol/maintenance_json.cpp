#include "protocol/maintenance_json.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/json_document.hpp"
#include "protocol/limits.hpp"
#include "protocol/time.hpp"

namespace belay::protocol {

namespace {

constexpr std::size_t max_reason_chars = 1000;

std::optional<micros> read_time(field_reader& r, const char* name) {
  auto text = r.optional_string(name, 64);
  if (!r.ok() || !text)
    return std::nullopt;
  auto at = parse_rfc3339(*text);
  if (!at)
    r.fail("invalid_value", r.path_of(name),
           "'" + r.path_of(name) +
               "' must be an RFC 3339 time, e.g. 2026-12-01T09:00:00Z");
  return at;
}

} // namespace

parsed<maintenance_window> parse_maintenance_request(std::string_view body, micros now) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, body, "request body"))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  r.refuse_unknown({"policy", "integration", "start", "end", "reason"});
  maintenance_window m;
  auto policy = r.optional_string("policy", max_name_chars);
  auto integration = r.optional_string("integration", max_name_chars);
  auto start = read_time(r, "start");
  bool has_end = r.has("end");
  auto end = read_time(r, "end");
  m.reason = r.optional_string("reason", max_reason_chars, blank::allowed).value_or("");
  if (failure)
    return *failure;
  if (policy && integration)
    return error{400, "invalid_value",
                 "a maintenance window covers a policy or an integration, not both",
                 "integration"};
  if (!policy && !integration)
    return error{400, "missing_field",
                 "a maintenance window needs a 'policy' or an 'integration'", "policy"};
  if (!has_end)
    return error{400, "missing_field", "'end' is required", "end"};
  m.policy = policy.value_or("");
  m.integration = integration.value_or("");
  m.start = start.value_or(now);
  m.end = *end;
  if (m.end <= m.start)
    return error{400, "invalid_value", "'end' must be after 'start'", "end"};
  if (m.end - m.start > static_cast<micros>(max_duration_seconds * 1e6))
    return error{400, "invalid_value", "a maintenance window lasts at most a year",
                 "end"};
  return m;
}

void write_maintenance(json_writer& w, const maintenance_window& m) {
  w.StartObject();
  w.Key("id");
  w.Int64(m.id);
  w.Key("policy");
  write_string_or_null(w, m.policy);
  w.Key("integration");
  write_string_or_null(w, m.integration);
  w.Key("start");
  write_time(w, m.start);
  w.Key("end");
  write_time(w, m.end);
  w.Key("reason");
  write_string(w, m.reason);
  w.Key("createdAt");
  write_time(w, m.created_at);
  w.EndObject();
}

std::string render_maintenance(const maintenance_window& m) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("maintenance");
  write_maintenance(w, m);
  w.EndObject();
  return to_string(out);
}

std::string render_maintenance_list(const std::vector<maintenance_window>& all) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("maintenance");
  w.StartArray();
  for (auto& m : all)
    write_maintenance(w, m);
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

} // namespace belay::protocol
