// PagerDuty Events API v2 bodies (POST /v2/enqueue): either an event belay can act on
// or a list of problems that renders as PagerDuty's 400 body.
#include "checks.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/limits.hpp"
#include "protocol/pagerduty.hpp"

using namespace belay;
using namespace belay::fuzz;

namespace {

bool is_one_of(std::string_view s, std::initializer_list<std::string_view> choices) {
  for (auto choice : choices)
    if (s == choice)
      return true;
  return false;
}

// What PostgreSQL's text columns take: valid UTF-8 without NUL.
void check_text(std::string_view s) {
  FUZZ_CHECK(!is_blank(s));
  FUZZ_CHECK(is_utf8(s));
  FUZZ_CHECK(!has_nul(s));
}

void check_problems(const std::vector<std::string>& problems) {
  FUZZ_CHECK(!problems.empty());
  for (const auto& p : problems) {
    FUZZ_CHECK(!is_blank(p));
    FUZZ_CHECK(is_utf8(p));
  }
  rapidjson::Document body;
  FUZZ_CHECK(parse_strict(body, protocol::render_pd_invalid(problems)));
  FUZZ_CHECK(body.IsObject() && body.HasMember("errors") && body["errors"].IsArray());
  const auto& errors = body["errors"];
  FUZZ_CHECK(errors.Size() == problems.size());
  for (rapidjson::SizeType i = 0; i < errors.Size(); ++i)
    FUZZ_CHECK(errors[i].IsString() &&
               std::string_view(errors[i].GetString(), errors[i].GetStringLength()) ==
                   problems[i]);
}

// The event written back as a PagerDuty client would send it must read the same.
void check_round_trip(const protocol::pd_event& e) {
  rapidjson::StringBuffer out;
  protocol::json_writer w(out);
  w.StartObject();
  w.Key("routing_key");
  protocol::write_string(w, e.routing_key);
  w.Key("event_action");
  protocol::write_string(w, e.event_action);
  if (!e.dedup_key.empty()) {
    w.Key("dedup_key");
    protocol::write_string(w, e.dedup_key);
  }
  if (e.event_action == "trigger") {
    w.Key("payload");
    w.StartObject();
    w.Key("summary");
    protocol::write_string(w, e.summary);
    w.Key("source");
    protocol::write_string(w, e.source);
    w.Key("severity");
    protocol::write_string(w, e.severity);
    w.Key("custom_details");
    w.RawValue(e.details_json.data(), e.details_json.size(), rapidjson::kObjectType);
    w.EndObject();
  }
  w.EndObject();

  auto again = protocol::parse_pd_event(protocol::to_string(out));
  FUZZ_CHECK(std::holds_alternative<protocol::pd_event>(again));
  const auto& q = std::get<protocol::pd_event>(again);
  FUZZ_CHECK(q.routing_key == e.routing_key);
  FUZZ_CHECK(q.event_action == e.event_action);
  FUZZ_CHECK(q.dedup_key == e.dedup_key);
  FUZZ_CHECK(q.summary == e.summary);
  FUZZ_CHECK(q.source == e.source);
  FUZZ_CHECK(q.severity == e.severity);
  FUZZ_CHECK(q.details_json == e.details_json);
}

void check_event(const protocol::pd_event& e) {
  check_text(e.routing_key);
  FUZZ_CHECK(is_one_of(e.event_action, {"trigger", "acknowledge", "resolve"}));
  FUZZ_CHECK(characters(e.dedup_key) <= protocol::max_dedup_key_chars);
  FUZZ_CHECK(!has_nul(e.dedup_key) && is_utf8(e.dedup_key));
  if (e.event_action == "trigger") {
    // An empty key means "generate one"; a blank one would be a key nobody can match.
    FUZZ_CHECK(e.dedup_key.empty() || !is_blank(e.dedup_key));
    check_text(e.summary);
    FUZZ_CHECK(characters(e.summary) <= protocol::max_title_chars);
    check_text(e.source);
    FUZZ_CHECK(is_one_of(e.severity, protocol::severities));
  } else {
    check_text(e.dedup_key);
  }
  FUZZ_CHECK(is_storable_object(e.details_json));

  rapidjson::Document accepted;
  FUZZ_CHECK(parse_strict(accepted, protocol::render_pd_accepted(e.dedup_key)));
  FUZZ_CHECK(accepted.IsObject() && string_at(accepted, "dedup_key") == e.dedup_key);
  check_round_trip(e);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto result = protocol::parse_pd_event(bytes(data, size));
  if (auto* problems = std::get_if<std::vector<std::string>>(&result))
    check_problems(*problems);
  else
    check_event(std::get<protocol::pd_event>(result));
  return 0;
}
