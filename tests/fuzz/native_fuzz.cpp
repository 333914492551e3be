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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = bytes(data, size);
  check_trigger(body);
  check_ack_and_resolve(body);
  return 0;
}
