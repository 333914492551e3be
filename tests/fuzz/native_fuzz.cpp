// The native incident API's request bodies (POST /api/v1/incidents, …/ack,
// …/resolve): whatever a client sends, the parser either returns a request that
// storage can hold or an error whose rendered body is valid JSON.
#include "checks.hpp"
#include "protocol/incident_request.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/limits.hpp"

using namespace belay;
using namespace belay::fuzz;

namespace {

const std::initializer_list<std::string_view> request_errors = {
    "invalid_json", "missing_field", "wrong_type", "invalid_value", "too_long"};

bool is_severity(std::string_view s) {
  for (auto known : protocol::severities)
    if (s == known)
      return true;
  return false;
}

// What PostgreSQL's text columns take: valid UTF-8 without NUL.
void check_text(std::string_view s, std::size_t max_chars) {
  FUZZ_CHECK(!is_blank(s));
  FUZZ_CHECK(is_utf8(s));
  FUZZ_CHECK(characters(s) <= max_chars);
  FUZZ_CHECK(!has_nul(s));
}

// The request written back as a client would send it must read the same.
void check_round_trip(const protocol::trigger_request& r) {
  rapidjson::StringBuffer out;
  protocol::json_writer w(out);
  w.StartObject();
  w.Key("dedupKey");
  protocol::write_string(w, r.dedup_key);
  w.Key("title");
  protocol::write_string(w, r.title);
  w.Key("policy");
  protocol::write_string(w, r.policy);
  w.Key("severity");
  protocol::write_string(w, r.severity);
  w.Key("details");
  w.RawValue(r.details_json.data(), r.details_json.size(), rapidjson::kObjectType);
  w.EndObject();

  auto again = protocol::parse_trigger_request(protocol::to_string(out));
  FUZZ_CHECK(std::holds_alternative<protocol::trigger_request>(again));
  const auto& q = std::get<protocol::trigger_request>(again);
  FUZZ_CHECK(q.dedup_key == r.dedup_key);
  FUZZ_CHECK(q.title == r.title);
  FUZZ_CHECK(q.policy == r.policy);
  FUZZ_CHECK(q.severity == r.severity);
  FUZZ_CHECK(q.details_json == r.details_json);
}

void check_trigger(std::string_view body) {
  auto result = protocol::parse_trigger_request(body);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    check_error(*e, body, request_errors);
    return;
  }
  const auto& r = std::get<protocol::trigger_request>(result);
  check_text(r.dedup_key, protocol::max_dedup_key_chars);
  check_text(r.title, protocol::max_title_chars);
  check_text(r.policy, protocol::max_name_chars);
  FUZZ_CHECK(is_severity(r.severity));
  FUZZ_CHECK(is_storable_object(r.details_json));
  check_round_trip(r);
}

// Resolve accepts everything ack accepts (ack only adds that "by" is required), and
// reads the same name.
void check_ack_and_resolve(std::string_view body) {
  auto ack = protocol::parse_ack_request(body);
  auto resolve = protocol::parse_resolve_request(body);
  if (auto* e = std::get_if<protocol::error>(&resolve))
    check_error(*e, body, request_errors);
  if (auto* e = std::get_if<protocol::error>(&ack)) {
    check_error(*e, body, request_errors);
    return;
  }
  const std::string& by = std::get<protocol::actor_request>(ack).by;
  check_text(by, protocol::max_name_chars);
  FUZZ_CHECK(std::holds_alternative<protocol::actor_request>(resolve));
  FUZZ_CHECK(std::get<protocol::actor_request>(resolve).by == by);
}

// The bodies of working an incident (docs/http.md#working-an-incident): a precise error,
// or every value within its limits.
template <class Request, class Check>
void check_action(std::string_view body,
                  protocol::parsed<Request> (*parse)(std::string_view), Check check) {
  auto result = parse(body);
  if (auto* e = std::get_if<protocol::error>(&result)) {
    check_error(*e, body, request_errors);
    return;
  }
  const auto& r = std::get<Request>(result);
  if (!r.actor.by.empty()) // optional: the credential says who
    check_text(r.actor.by, protocol::max_name_chars);
  FUZZ_CHECK(r.actor.via == "api" || r.actor.via == "console");
  check(r);
}

void check_names(const std::vector<std::string>& names) {
  FUZZ_CHECK(names.size() <= protocol::max_people_per_request);
  for (auto& n : names) {
    FUZZ_CHECK(!n.empty());
    check_text(n, protocol::max_name_chars);
  }
}

void check_actions(std::string_view body) {
  check_action(body, protocol::parse_note_request, [](const protocol::note_request& n) {
    FUZZ_CHECK(!n.text.empty());
    check_text(n.text, protocol::max_note_chars);
  });
  check_action(body, protocol::parse_snooze_request,
               [](const protocol::snooze_request& s) {
                 FUZZ_CHECK(s.until.has_value() != s.seconds.has_value());
                 FUZZ_CHECK(!s.seconds || *s.seconds > 0);
               });
  check_action(body, protocol::parse_reassign_request,
               [](const protocol::reassign_request& r) {
                 FUZZ_CHECK(r.policy.empty() + r.user.empty() + r.schedule.empty() == 2);
               });
  check_action(body, protocol::parse_priority_request,
               [](const protocol::priority_request& p) {
                 FUZZ_CHECK(p.priority.empty() ||
                            (p.priority.size() == 2 && p.priority[0] == 'P' &&
                             p.priority[1] >= '1' && p.priority[1] <= '5'));
               });
  check_action(body, protocol::parse_responders_request,
               [](const protocol::responders_request& r) {
                 check_names(r.users);
                 check_names(r.schedules);
                 FUZZ_CHECK(!r.users.empty() || !r.schedules.empty());
                 if (!r.message.empty())
                   check_text(r.message, protocol::max_message_chars);
               });
  check_action(body, protocol::parse_subscribers_request,
               [](const protocol::subscribers_request& r) {
                 check_names(r.users);
                 FUZZ_CHECK(r.addresses.size() <= protocol::max_people_per_request);
                 FUZZ_CHECK(!r.users.empty() || !r.addresses.empty());
               });
  check_action(body, protocol::parse_status_update_request,
               [](const protocol::status_update_request& r) {
                 FUZZ_CHECK(!r.message.empty());
                 check_text(r.message, protocol::max_message_chars);
               });
  check_action(body, protocol::parse_merge_request,
               [](const protocol::merge_request& m) { FUZZ_CHECK(m.into >= 1); });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = bytes(data, size);
  check_trigger(body);
  check_ack_and_resolve(body);
  check_actions(body);
  return 0;
}
