// PagerDuty change events (POST /v2/change/enqueue): either a change belay records or a
// list of problems that renders as PagerDuty's 400 body.
#include "checks.hpp"
#include "protocol/change_event.hpp"
#include "protocol/limits.hpp"
#include "protocol/pagerduty.hpp"
#include "protocol/redact.hpp"

using namespace belay;
using namespace belay::fuzz;

namespace {

void check_problems(const std::vector<std::string>& problems) {
  FUZZ_CHECK(!problems.empty());
  for (const auto& p : problems)
    FUZZ_CHECK(!is_blank(p) && is_utf8(p));
  rapidjson::Document body;
  FUZZ_CHECK(parse_strict(body, protocol::render_pd_invalid(problems)));
  FUZZ_CHECK(body.IsObject() && body["errors"].IsArray() &&
             body["errors"].Size() == problems.size());
}

// No member anywhere in `v` is named like a secret (it would be stored).
bool free_of_secrets(const rapidjson::Value& v) {
  if (v.IsObject()) {
    for (auto& m : v.GetObject())
      if (protocol::is_secret_field({m.name.GetString(), m.name.GetStringLength()}) ||
          !free_of_secrets(m.value))
        return false;
  } else if (v.IsArray()) {
    for (auto& e : v.GetArray())
      if (!free_of_secrets(e))
        return false;
  }
  return true;
}

void check_change(const protocol::change_event& e) {
  FUZZ_CHECK(!is_blank(e.routing_key) && is_utf8(e.routing_key) &&
             !has_nul(e.routing_key));
  FUZZ_CHECK(!is_blank(e.summary) && is_utf8(e.summary) && !has_nul(e.summary));
  FUZZ_CHECK(characters(e.summary) <= protocol::max_title_chars);
  FUZZ_CHECK(is_utf8(e.source) && !has_nul(e.source));
  FUZZ_CHECK(is_storable_object(e.details_json));
  rapidjson::Document links;
  FUZZ_CHECK(parse_strict(links, e.links_json) && links.IsArray() && free_of_nul(links));
  for (auto& link : links.GetArray())
    FUZZ_CHECK(link.IsObject() && link.HasMember("href") && link["href"].IsString());
  rapidjson::Document details;
  FUZZ_CHECK(parse_strict(details, e.details_json));
  FUZZ_CHECK(free_of_secrets(details) && free_of_secrets(links));

  // What GET /api/v1/changes renders from it is valid JSON.
  protocol::change_record stored{
      1,    e.summary,      e.source,    e.timestamp.value_or(0),
      "pd", e.details_json, e.links_json};
  rapidjson::Document listed;
  FUZZ_CHECK(parse_strict(listed, protocol::render_change_list({stored}, std::nullopt)));
  FUZZ_CHECK(listed["changes"].Size() == 1);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto result = protocol::parse_change_event(bytes(data, size));
  if (auto* problems = std::get_if<std::vector<std::string>>(&result))
    check_problems(*problems);
  else
    check_change(std::get<protocol::change_event>(result));
  return 0;
}
