#include "protocol/oncall_json.hpp"

#include "protocol/field_reader.hpp"
#include "protocol/json_document.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/limits.hpp"
#include "protocol/time.hpp"

namespace belay::protocol {

namespace {

// {"schedule" (when given),"user","start","end","source" (when asked for)}
void write_shift(json_writer& w, const shift& s, std::string_view schedule = {},
                 bool with_source = false) {
  w.StartObject();
  if (!schedule.empty()) {
    w.Key("schedule");
    write_string(w, schedule);
  }
  w.Key("user");
  write_string(w, s.user);
  w.Key("start");
  write_time(w, s.start);
  w.Key("end");
  write_time(w, s.end);
  if (with_source) {
    w.Key("source");
    write_string(w, s.source);
  }
  w.EndObject();
}

void write_override(json_writer& w, std::string_view schedule,
                    const schedule_override& o) {
  w.StartObject();
  w.Key("id");
  w.Int64(o.id);
  w.Key("schedule");
  write_string(w, schedule);
  w.Key("user");
  write_string(w, o.user);
  w.Key("replaces");
  write_string_or_null(w, o.replaces.value_or(""));
  w.Key("start");
  write_time(w, o.start);
  w.Key("end");
  write_time(w, o.end);
  w.Key("createdAt");
  write_time(w, o.created_at);
  w.EndObject();
}

std::optional<micros> read_time(field_reader& r, const char* name) {
  auto text = r.required_string(name, 64);
  if (!r.ok())
    return std::nullopt;
  auto at = parse_rfc3339(text);
  if (!at)
    r.fail("invalid_value", r.path_of(name),
           "'" + r.path_of(name) +
               "' must be an RFC 3339 time, e.g. 2026-12-01T09:00:00Z");
  return at;
}

} // namespace

std::string render_oncall(const std::vector<on_call_now>& all) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("oncall");
  w.StartArray();
  for (auto& s : all)
    if (s.now)
      write_shift(w, *s.now, s.schedule);
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

std::string render_schedules(const std::vector<on_call_now>& all) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("schedules");
  w.StartArray();
  for (auto& s : all) {
    w.StartObject();
    w.Key("name");
    write_string(w, s.schedule);
    w.Key("timeZone");
    write_string(w, s.time_zone);
    w.Key("oncall");
    w.StartArray();
    if (s.now)
      write_shift(w, *s.now);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

std::string render_shifts(const std::vector<shift>& shifts) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("shifts");
  w.StartArray();
  for (auto& s : shifts)
    write_shift(w, s, {}, true);
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

std::string render_override(std::string_view schedule, const schedule_override& o) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("override");
  write_override(w, schedule, o);
  w.EndObject();
  return to_string(out);
}

std::string render_overrides(std::string_view schedule,
                             const std::vector<schedule_override>& all) {
  rapidjson::StringBuffer out;
  json_writer w(out);
  w.StartObject();
  w.Key("overrides");
  w.StartArray();
  for (auto& o : all)
    write_override(w, schedule, o);
  w.EndArray();
  w.EndObject();
  return to_string(out);
}

parsed<schedule_override> parse_override_request(std::string_view body) {
  rapidjson::Document doc;
  if (auto bad = parse_json(doc, body, "request body"))
    return *bad;
  std::optional<error> failure;
  field_reader r(doc, "", failure);
  schedule_override o;
  o.user = r.required_string("user", max_name_chars);
  o.replaces = r.optional_string("replaces", max_name_chars);
  auto start = read_time(r, "start");
  auto end = read_time(r, "end");
  if (failure)
    return *failure;
  o.start = *start;
  o.end = *end;
  if (auto bad = check_override(o))
    return *bad;
  return o;
}

parsed<std::pair<micros, micros>> parse_span(const std::string& from,
                                             const std::string& to, micros default_from,
                                             micros default_to, micros max_span) {
  auto read = [](const std::string& text, const char* name,
                 micros fallback) -> parsed<micros> {
    if (text.empty())
      return fallback;
    if (auto at = parse_rfc3339(text))
      return *at;
    return error{400, "invalid_value",
                 std::string{"'"} + name +
                     "' must be an RFC 3339 time, e.g. "
                     "2026-12-01T09:00:00Z",
                 name};
  };
  auto f = read(from, "from", default_from);
  if (auto* e = std::get_if<error>(&f))
    return *e;
  auto t = read(to, "to", default_to);
  if (auto* e = std::get_if<error>(&t))
    return *e;
  auto a = std::get<micros>(f), b = std::get<micros>(t);
  if (b <= a)
    return error{400, "invalid_value", "'to' must be after 'from'", "to"};
  if (b - a > max_span)
    return error{400, "invalid_value",
                 "the span from 'from' to 'to' must be at most " +
                     std::to_string(max_span / 86'400'000'000LL) + " days",
                 "to"};
  return std::make_pair(a, b);
}

} // namespace belay::protocol
