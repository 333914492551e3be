// Requests that name a span of time, read from any caller with an API key: maintenance
// windows (POST /api/v1/maintenance), schedule overrides (POST …/overrides), and the
// ?from=&to= of the shift and override lists, fed here the request's "start" and "end".
// What is accepted holds the times the request gave (or the documented defaults), ends
// after it starts, keeps within its bound (to the microsecond: the bound itself passes,
// one more is refused), names its target, and written back with its times to the
// microsecond, reads the same; what is refused names the field at fault.
#include "checks.hpp"
#include "protocol/maintenance_json.hpp"
#include "protocol/oncall_json.hpp"
#include "protocol/time.hpp"

using namespace belay;
using namespace belay::fuzz;

namespace {

constexpr micros now = 1'796'115'600'000'000; // 2026-12-01T09:00:00Z
constexpr micros day = 86'400'000'000;

// The spans http/schedules.cpp asks for: the shift list's and the override list's.
constexpr micros shifts_default = 14 * day, shifts_max = 93 * day;
constexpr micros overrides_default = 100 * 365 * day, overrides_max = 1000 * 365 * day;

// A member as the parsers read it: absent and null are the same.
std::optional<std::string_view> text_member(const rapidjson::Value& object,
                                            const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull())
    return std::nullopt;
  FUZZ_CHECK(it->value.IsString());
  return std::string_view{it->value.GetString(), it->value.GetStringLength()};
}

std::string_view string_or_empty(const rapidjson::Value& doc, const char* name) {
  if (!doc.IsObject())
    return {};
  auto it = doc.FindMember(name);
  if (it == doc.MemberEnd() || !it->value.IsString())
    return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

micros time_member(const rapidjson::Value& object, const char* name) {
  auto text = text_member(object, name);
  FUZZ_CHECK(text);
  auto at = protocol::parse_rfc3339(*text);
  FUZZ_CHECK(at);
  return *at;
}

// RFC 3339 to the microsecond (rfc3339 writes milliseconds), for the years it can
// write; nullopt outside them.
std::optional<std::string> microsecond_time(micros t) {
  std::string text = protocol::rfc3339(t);
  if (text.size() != 24)
    return std::nullopt;
  const auto micro = static_cast<int>((t % 1000 + 1000) % 1000);
  text.insert(23, {static_cast<char>('0' + micro / 100),
                   static_cast<char>('0' + micro / 10 % 10),
                   static_cast<char>('0' + micro % 10)});
  return text;
}

// An instant the API accepted is written in responses as RFC 3339 that reads back.
void check_renders(micros t) {
  auto text = microsecond_time(t);
  FUZZ_CHECK(text);
  FUZZ_CHECK(protocol::parse_rfc3339(*text) == t);
}

void write_time(protocol::json_writer& w, const char* name, micros t) {
  w.Key(name);
  protocol::write_string(w, *microsecond_time(t));
}

void write_text(protocol::json_writer& w, const char* name, std::string_view text) {
  w.Key(name);
  protocol::write_string(w, text);
}

rapidjson::Document response(const std::string& text, const char* member) {
  rapidjson::Document doc;
  FUZZ_CHECK(parse_strict(doc, text) && doc.IsObject() && doc.HasMember(member));
  return doc;
}

// The window as a client would ask for it, ending at `end`; nullopt when `end` is
// outside the years RFC 3339 writes.
std::optional<std::string> maintenance_request(const protocol::maintenance_window& m,
                                               micros end) {
  if (!microsecond_time(end))
    return std::nullopt;
  rapidjson::StringBuffer out;
  protocol::json_writer w(out);
  w.StartObject();
  write_text(w, m.policy.empty() ? "integration" : "policy",
             m.policy.empty() ? m.integration : m.policy);
  write_time(w, "start", m.start);
  write_time(w, "end", end);
  write_text(w, "reason", m.reason);
  w.EndObject();
  return protocol::to_string(out);
}

// The bound is exact: a window of a year is the longest, and one a microsecond longer or
// of no length at all is refused naming "end".
void check_end_bound(const protocol::maintenance_window& m) {
  constexpr micros year = 365 * day;
  if (auto longest = maintenance_request(m, m.start + year))
    FUZZ_CHECK(std::holds_alternative<protocol::maintenance_window>(
        protocol::parse_maintenance_request(*longest, now)));
  for (micros end : {m.start, m.start + year + 1}) {
    auto body = maintenance_request(m, end);
    if (!body)
      continue;
    auto refused = protocol::parse_maintenance_request(*body, now);
    auto* e = std::get_if<protocol::error>(&refused);
    FUZZ_CHECK(e && e->field == "end");
  }
}

void check_maintenance(std::string_view body, const rapidjson::Document& doc) {
  auto result = protocol::parse_maintenance_request(body, now);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    check_error(*e, body,
                {"invalid_json", "missing_field", "wrong_type", "invalid_value",
                 "too_long", "unknown_field"});
    return;
  }
  const auto& m = std::get<protocol::maintenance_window>(result);
  FUZZ_CHECK(doc.IsObject());
  FUZZ_CHECK(m.policy.empty() != m.integration.empty());
  check_name(m.policy.empty() ? m.integration : m.policy);
  FUZZ_CHECK(m.policy == text_member(doc, "policy").value_or(""));
  FUZZ_CHECK(m.integration == text_member(doc, "integration").value_or(""));
  FUZZ_CHECK(m.start == (text_member(doc, "start") ? time_member(doc, "start") : now));
  FUZZ_CHECK(m.end == time_member(doc, "end"));
  FUZZ_CHECK(m.start < m.end && m.end - m.start <= 365 * day);
  FUZZ_CHECK(m.reason == text_member(doc, "reason").value_or(""));
  FUZZ_CHECK(is_utf8(m.reason) && !has_nul(m.reason) && characters(m.reason) <= 1000);
  check_renders(m.start);
  check_renders(m.end);

  auto again =
      protocol::parse_maintenance_request(*maintenance_request(m, m.end), now + day);
  FUZZ_CHECK(std::holds_alternative<protocol::maintenance_window>(again));
  const auto& n = std::get<protocol::maintenance_window>(again);
  FUZZ_CHECK(n.policy == m.policy && n.integration == m.integration &&
             n.start == m.start && n.end == m.end && n.reason == m.reason);
  check_end_bound(m);

  auto shown = response(protocol::render_maintenance(m), "maintenance");
  FUZZ_CHECK(string_at(shown["maintenance"], "reason") == m.reason);
}

void check_override(std::string_view body, const rapidjson::Document& doc) {
  auto result = protocol::parse_override_request(body);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    check_error(
        *e, body,
        {"invalid_json", "missing_field", "wrong_type", "invalid_value", "too_long"});
    return;
  }
  const auto& o = std::get<protocol::schedule_override>(result);
  FUZZ_CHECK(doc.IsObject());
  check_name(o.user);
  FUZZ_CHECK(o.user == text_member(doc, "user"));
  FUZZ_CHECK(o.replaces == text_member(doc, "replaces"));
  if (o.replaces) {
    check_name(*o.replaces);
    FUZZ_CHECK(*o.replaces != o.user);
  }
  FUZZ_CHECK(o.start == time_member(doc, "start") && o.end == time_member(doc, "end"));
  FUZZ_CHECK(o.start < o.end);
  check_renders(o.start);
  check_renders(o.end);

  rapidjson::StringBuffer out;
  protocol::json_writer w(out);
  w.StartObject();
  write_text(w, "user", o.user);
  if (o.replaces)
    write_text(w, "replaces", *o.replaces);
  write_time(w, "start", o.start);
  write_time(w, "end", o.end);
  w.EndObject();
  auto again = protocol::parse_override_request(protocol::to_string(out));
  FUZZ_CHECK(std::holds_alternative<protocol::schedule_override>(again));
  const auto& p = std::get<protocol::schedule_override>(again);
  FUZZ_CHECK(p.user == o.user && p.replaces == o.replaces && p.start == o.start &&
             p.end == o.end);

  auto shown = response(protocol::render_override("primary", o), "override");
  FUZZ_CHECK(string_at(shown["override"], "user") == o.user);
}

// ?from= and ?to=: absent takes the default; a malformed one, to ≤ from, or a span
// over the bound is refused naming the parameter.
void check_span(std::string_view from, std::string_view to, micros default_to,
                micros max_span) {
  auto result =
      protocol::parse_span(std::string{from}, std::string{to}, now, default_to, max_span);
  const auto a =
      from.empty() ? std::optional<micros>{now} : protocol::parse_rfc3339(from);
  const auto b =
      to.empty() ? std::optional<micros>{default_to} : protocol::parse_rfc3339(to);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    check_error(*e, "", {"invalid_value"});
    FUZZ_CHECK(e->field == (a ? "to" : "from"));
    if (a && b)
      FUZZ_CHECK(*b <= *a || *b - *a > max_span);
    return;
  }
  const auto [start, end] = std::get<std::pair<micros, micros>>(result);
  FUZZ_CHECK(a && b && start == *a && end == *b);
  FUZZ_CHECK(start < end && end - start <= max_span);

  // The bound is exact: `max_span` after the start is the latest end, a microsecond more
  // is refused naming "to".
  const std::string from_text{from};
  if (auto latest = microsecond_time(start + max_span)) {
    auto longest = protocol::parse_span(from_text, *latest, now, default_to, max_span);
    FUZZ_CHECK(!std::holds_alternative<protocol::error>(longest));
  }
  if (auto over = microsecond_time(start + max_span + 1)) {
    auto refused = protocol::parse_span(from_text, *over, now, default_to, max_span);
    auto* e = std::get_if<protocol::error>(&refused);
    FUZZ_CHECK(e && e->field == "to");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = bytes(data, size);
  rapidjson::Document doc;
  if (!parse_strict(doc, body))
    doc.SetNull();
  check_maintenance(body, doc);
  check_override(body, doc);
  const auto from = string_or_empty(doc, "start"), to = string_or_empty(doc, "end");
  check_span(from, to, now + shifts_default, shifts_max);
  check_span(from, to, now + overrides_default, overrides_max);
  return 0;
}
